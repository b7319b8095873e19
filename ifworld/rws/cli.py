"""`ifworld rws check|grade` — the grader's command line (mounted by ifworld/cli.py as ``rws``).

Contracts (DESIGN.md): ``check`` prints one JSON object {verdict, type, reason, pred_norm, gt_norm, …}
and exits 0 whatever the verdict, 2 on unusable arguments; ``grade`` prints/writes {accuracy, by_type,
items: [{id, type, verdict, reason, stage, annotations}]}, reporting bad input lines on stderr.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from pydantic import BaseModel, ConfigDict, field_validator

from ifworld.rws.dataset import DatasetTooLarge, load_items, parse_records
from ifworld.rws.grading.grader import DEFAULT_TIMEOUT_S, check, grade_many, normalise_type

app = typer.Typer(help="Reasoning With a Star: grade answers programmatically.", no_args_is_help=True)


class Prediction(BaseModel):
    """One line of a predictions file."""

    model_config = ConfigDict(extra="ignore")

    id: str
    prediction: str

    @field_validator("prediction", mode="before")
    @classmethod
    def _stringify(cls, value: object) -> object:
        """Numbers are accepted as predictions and graded as their text."""
        return str(value) if isinstance(value, (int, float)) else value


def _fail(message: str) -> None:
    """Print a usage error and exit 2."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=2)


@app.command("check")
def check_cmd(
    pred: Annotated[str, typer.Argument(help="The model's answer (free text, LaTeX, JSON …).")],
    gt: Annotated[str, typer.Argument(help="The ground-truth final answer.")],
    type_: Annotated[str, typer.Option("--type", "-t", help="numeric | symbolic | textual")] = "numeric",
    units: Annotated[str | None, typer.Option(help="Expected unit when the gold has none (numeric).")] = None,
    timeout: Annotated[float, typer.Option(help="Time limit for grading this answer, seconds.")] = DEFAULT_TIMEOUT_S,
    hint: Annotated[str | None, typer.Option(help="The item's hint; a unit it states is required.")] = None,
) -> None:
    """Grade one prediction against one ground truth and print the result as JSON."""
    try:
        kind = normalise_type(type_)
    except ValueError as exc:
        _fail(str(exc))
    if not pred.strip() or not gt.strip():
        _fail("PRED and GT must be non-empty")
    if timeout <= 0:
        _fail("--timeout must be positive")
    result = check(pred, gt, kind, units=units, timeout_s=timeout, hint=hint)
    typer.echo(json.dumps(result.model_dump(), ensure_ascii=False))


def _report_errors(label: str, errors: list) -> None:
    """Write bad-line reports for one input file to stderr."""
    for err in errors:
        typer.echo(f"{label}: line {err.line}: {err.reason}", err=True)


@app.command("grade")
def grade_cmd(
    data: Annotated[Path, typer.Option("--data", help="Items, JSONL (or a JSON array).")],
    predictions: Annotated[Path, typer.Option("--predictions", help="JSONL lines {id, prediction}.")],
    out: Annotated[Path | None, typer.Option("--out", help="Also write the results JSON here.")] = None,
    timeout: Annotated[float, typer.Option(help="Time limit per item, seconds.")] = DEFAULT_TIMEOUT_S,
) -> None:
    """Grade saved predictions against a dataset (re-scoring without re-running any model)."""
    for path in (data, predictions):
        if not path.is_file():
            _fail(f"no such file: {path}")
    try:
        loaded = load_items(data, check_gold=True)
        pred_rows, pred_errors = parse_records(predictions, Prediction)
    except DatasetTooLarge as exc:
        _fail(str(exc))
    _report_errors(str(data), loaded.errors)
    _report_errors(f"{data} (gold kept, will grade not_sure)", loaded.gold_problems)
    _report_errors(str(predictions), pred_errors)
    preds: dict[str, str] = {}
    for line, row in pred_rows:
        if row.id in preds:
            typer.echo(f"{predictions}: line {line}: duplicate id {row.id!r} (first kept)", err=True)
            continue
        preds[row.id] = row.prediction
    unknown = sorted(set(preds) - {item.id for item in loaded.items})
    if unknown:
        typer.echo(f"{predictions}: {len(unknown)} prediction(s) for unknown ids, e.g. {unknown[0]!r}", err=True)
    report = grade_many(loaded.items, preds, timeout_s=timeout)
    payload = report.model_dump()
    text = json.dumps(payload, ensure_ascii=False, indent=2)
    if out is not None:
        out.write_text(text + "\n", encoding="utf-8")
    sys.stdout.write(text + "\n")


@app.command("convert")
def convert_cmd(
    source: Annotated[Path, typer.Argument(help="A GSM8K-style or MATH-style JSONL file.")],
    fmt: Annotated[str, typer.Option("--format", "-f", help="gsm8k | math")],
    out: Annotated[Path | None, typer.Option("--out", help="Write the RWS JSONL here (else stdout).")] = None,
    prefix: Annotated[str, typer.Option(help="Item id prefix (default: the format name).")] = "",
) -> None:
    """Convert a GSM8K/MATH-style JSONL file into the RWS schema (bad lines listed on stderr)."""
    from ifworld.rws.convert import FORMATS, convert, to_jsonl

    if fmt not in FORMATS:
        _fail(f"--format must be one of {', '.join(FORMATS)}")
    if not source.is_file():
        _fail(f"no such file: {source}")
    try:
        items, errors = convert(source, fmt, prefix)
    except DatasetTooLarge as exc:
        _fail(str(exc))
    _report_errors(str(source), errors)
    text = to_jsonl(items)
    if out is not None:
        out.write_text(text, encoding="utf-8")
        typer.echo(f"{len(items)} items written to {out}", err=True)
    else:
        sys.stdout.write(text)
