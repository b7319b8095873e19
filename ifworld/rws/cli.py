"""``ifworld rws …`` — the grader's and the benchmark's command line (mounted by ifworld/cli.py as ``rws``).

Contracts (DESIGN.md): ``check`` prints one JSON object {verdict, type, reason, pred_norm, gt_norm, …}
and exits 0 whatever the verdict, 2 on unusable arguments; ``grade`` prints/writes {accuracy, by_type,
items: [{id, type, verdict, reason, stage, annotations}]}, reporting bad input lines on stderr; with no usable
item or no prediction for a known id it exits 2 (an accuracy over nothing is not a result). Every reason starts
with the step that decided, in a student's words (``decided_by``: extraction, units, tolerance, stated
precision, Math-Verify, equation sides, …); ``grade`` also counts them on stderr.

``run --pattern NAME[,…] --data items.jsonl [--limit N] [--models a,b] [--no-verify] [--verifier-sees-grader]
[--out results.json] [--yes]`` (NAME: a registered pattern, :data:`ifworld.rws.patterns.REGISTRY`; the LLM
verifier is on by default, as in the paper): the run id goes to stderr at start, progress lines to stderr, the
run record (results, summary, cost) to ``--out`` or stdout. Without a model the command exits 2 with the
connection help; bad input lines are listed on stderr and skipped. When the estimated calls (items × patterns
× models, retry paths included) exceed ``ifworld.limits.CONFIRM_CALLS`` the command asks on a terminal and
otherwise refuses (exit 2) unless ``--yes`` is given. ``tables`` prints the paper's tables from saved runs;
``patterns [--json]`` lists the registered patterns (as ``ifworld beliefs rules`` lists rules).

Only typer, pydantic, light constants and the pattern registry (which loads no LangGraph) are imported here at
load time: the grader, the model layer, the run store and LangGraph load inside the commands that use them, so
``ifworld --help`` and ``check`` start fast.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from pydantic import BaseModel, ConfigDict, field_validator

from ifworld import safe_json
from ifworld.errors import InputError
from ifworld.files import output_option
from ifworld.rws.grading.constants import DEFAULT_TIMEOUT_S
from ifworld.rws.patterns import REGISTRY as PATTERNS

if TYPE_CHECKING:
    from ifworld.runs.events import Event

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
    from ifworld.rws.grading.grader import check, normalise_type

    try:
        kind = normalise_type(type_)
    except ValueError as exc:
        _fail(str(exc))
    if not pred.strip() or not gt.strip():
        _fail("PRED and GT must be non-empty")
    if timeout <= 0:
        _fail("--timeout must be positive")
    result = check(pred, gt, kind, units=units, timeout_s=timeout, hint=hint)
    typer.echo(safe_json.dumps(result.model_dump(), ensure_ascii=False))


def _report_errors(label: str, errors: list) -> None:
    """Write bad-line reports for one input file to stderr."""
    for err in errors:
        typer.echo(f"{label}: line {err.line}: {err.reason}", err=True)


@app.command("grade")
def grade_cmd(
    data: Annotated[Path, typer.Option("--data", help="Items, JSONL (or a JSON array).")],
    predictions: Annotated[Path, typer.Option("--predictions", help="JSONL lines {id, prediction}.")],
    out: Annotated[Path | None, typer.Option("--out", callback=output_option,
                                             help="Also write the results JSON here.")] = None,
    timeout: Annotated[float, typer.Option(help="Time limit per item, seconds.")] = DEFAULT_TIMEOUT_S,
) -> None:
    """Grade saved predictions against a dataset (re-scoring without re-running any model)."""
    from ifworld.rws.dataset import load_items, parse_records
    from ifworld.rws.grading.grader import grade_many

    try:  # a missing, special (/dev/zero, a FIFO), directory or oversized file is refused by the reader
        loaded = load_items(data, check_gold=True)
        pred_rows, pred_errors = parse_records(predictions, Prediction)
    except InputError as exc:
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
    if not set(preds) & {item.id for item in loaded.items}:  # an accuracy over nothing is not a result
        _fail(f"nothing to grade: {len(loaded.items)} usable item(s) in {data}, {len(preds)} usable "
              f"prediction(s) in {predictions}, none for a known id")
    report = grade_many(loaded.items, preds, timeout_s=timeout)
    typer.echo(_decided_by_line(report.items), err=True)
    payload = report.model_dump()
    text = safe_json.dumps(payload, ensure_ascii=False, indent=2)
    if out is not None:
        out.write_text(text + "\n", encoding="utf-8")
    sys.stdout.write(text + "\n")


def _decided_by_line(items: list) -> str:
    """One stderr line: how many verdicts each step decided (``decided by: tolerance 20, Math-Verify 12, …``)."""
    counts: dict[str, int] = {}
    for item in items:
        counts[item.decided_by or item.stage] = counts.get(item.decided_by or item.stage, 0) + 1
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return "decided by: " + ", ".join(f"{step} {n}" for step, n in ranked)


@app.command("convert")
def convert_cmd(
    source: Annotated[Path, typer.Argument(help="A GSM8K-style or MATH-style JSONL file.")],
    fmt: Annotated[str, typer.Option("--format", "-f", help="gsm8k | math")],
    out: Annotated[Path | None, typer.Option("--out", callback=output_option,
                                             help="Write the RWS JSONL here (else stdout).")] = None,
    prefix: Annotated[str, typer.Option(help="Item id prefix (default: the format name).")] = "",
) -> None:
    """Convert a GSM8K/MATH-style JSONL file into the RWS schema (bad lines listed on stderr)."""
    from ifworld.rws.convert import FORMATS, convert, to_jsonl

    if fmt not in FORMATS:
        _fail(f"--format must be one of {', '.join(FORMATS)}")
    try:
        items, errors = convert(source, fmt, prefix)
    except InputError as exc:
        _fail(str(exc))
    _report_errors(str(source), errors)
    text = to_jsonl(items)
    if out is not None:
        out.write_text(text, encoding="utf-8")
        typer.echo(f"{len(items)} items written to {out}", err=True)
    else:
        sys.stdout.write(text)


def _progress(total: int) -> Callable[[Event], None]:
    from ifworld.rws import benchmark

    done = {"n": 0}

    def on_event(event: Event) -> None:
        for task in benchmark.progress_of(event):
            done["n"] += 1
            print(f"[{done['n']}/{total}] {task.pattern:<6} {task.item_id} {task.model}: {task.grade.verdict}"
                  f" ({task.calls} calls)", file=sys.stderr, flush=True)
        if event.type == "run_failed":
            print(f"run failed: {event.data.get('error', '')}", file=sys.stderr, flush=True)
    return on_event


@app.command("run")
def run_cmd(
    pattern: Annotated[str, typer.Option("--pattern", "-p",
                                         help=f"One or more of {PATTERNS.help_text(', ')}, comma-separated "
                                         "(the registered answer patterns).")],
    data: Annotated[Path, typer.Option("--data", "-d", help="Items as JSONL (RWS schema).")],
    limit: Annotated[int | None, typer.Option(help="Only the first N items.")] = None,
    models: Annotated[str | None, typer.Option(help="Comma-separated model names (same endpoint).")] = None,
    verify: Annotated[bool, typer.Option("--verify/--no-verify", help="Ask the LLM verifier (Parser + Judge) "
                                         "when the grader does not say correct, as the paper's headline "
                                         "accuracy does.")] = True,
    verifier_sees_grader: Annotated[bool, typer.Option(help="Also show the verifier's Judge the programmatic "
                                                       "grader's reason (the paper's Judge does not see it).")
                                    ] = False,
    out: Annotated[Path | None, typer.Option(callback=output_option,
                                             help="Write the results JSON here (else stdout).")] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Run without asking even when the estimated model "
                                      "calls exceed the confirmation threshold.")] = False,
) -> None:
    """Solve items with agentic patterns, grade them, report accuracy and cost."""
    from ifworld.config import NO_MODEL_HELP, load_settings
    from ifworld.limits import CONFIRM_CALLS, needs_confirmation
    from ifworld.runs import RunFailed
    from ifworld.rws import benchmark
    from ifworld.rws.dataset import load_items
    from ifworld.rws.records import RecordError, load_benchmark_record

    settings = load_settings()
    if not settings.enabled:
        typer.echo(NO_MODEL_HELP, err=True)
        raise typer.Exit(code=2)
    try:
        loaded = load_items(data)
    except InputError as exc:
        _fail(str(exc))
    for err in loaded.errors:
        typer.echo(f"{data}:{err.line}: skipped: {err.reason}", err=True)
    try:
        params = benchmark.benchmark_params(loaded.items, pattern, models=models, limit=limit, verify=verify,
                                            verifier_sees_grader=verifier_sees_grader, data_label=data.name)
    except ValueError as exc:
        _fail(str(exc))
    total = benchmark.total_tasks(params)
    lo, hi = benchmark.estimate_calls(len(params["items"]), params["patterns"], max(1, len(params["models"])))["total"]
    typer.echo(f"{total} tasks, about {lo}–{hi} model calls"
               + (" (+ 2 verifier calls per answer the grader does not call correct)" if verify else ""), err=True)
    if needs_confirmation(hi) and not yes:
        question = f"This run may make up to {hi} model calls (confirmation above {CONFIRM_CALLS}). Continue?"
        if not sys.stdin.isatty():
            _fail(f"this run may make up to {hi} model calls, above the confirmation threshold of "
                  f"{CONFIRM_CALLS}; pass --yes to run it")
        if not typer.confirm(question, default=False, err=True):
            typer.echo("not started", err=True)
            raise typer.Exit(code=1)
    from ifworld.llm import cli_preflight

    cli_preflight(settings, models=tuple(params["models"]) or None)  # seconds, naming cause and address
    try:
        record = benchmark.run_benchmark(params, settings=settings, on_event=_progress(total))
    except RunFailed as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(code=1) from exc
    try:
        s = load_benchmark_record(record).summary
    except RecordError as exc:  # cannot happen for a record this version wrote; named if it does
        _fail(str(exc))
    typer.echo(f"accuracy {s.accuracy} — by pattern {json.dumps(s.by_pattern)}", err=True)
    text = json.dumps(record, indent=2, default=str)  # the record as stored (the CLI contract)
    if out:
        out.write_text(text, encoding="utf-8")
        typer.echo(f"results written to {out}", err=True)
    else:
        typer.echo(text)


@app.command("patterns")
def patterns_cmd(as_json: bool = typer.Option(False, "--json", help="Print the patterns as JSON.")) -> None:
    """List the registered answer patterns (--pattern): name, label, roles, model calls per item, Table 2."""
    from ifworld.registry import listing

    typer.echo(listing("rws.patterns", as_json, lambda spec: {
        "roles": list(spec.roles), "calls_per_item": list(spec.calls_range()), "in_table2": spec.in_table2}))


@app.command("tables")
def tables_cmd(
    run_ids: Annotated[list[str], typer.Argument(help="Benchmark run ids (several datasets and/or models).")],
    model: Annotated[str | None, typer.Option(help="Table 2 for this model only.")] = None,
    regrade: Annotated[bool, typer.Option(help="Re-grade each run with the current grader first (no model "
                                          "calls; the re-graded record is saved).")] = False,
) -> None:
    """Print the paper's Table 1 (model × single-shot) and Table 2 (dataset × pattern, macro mean) as Markdown."""
    from ifworld.runs.store import get_store
    from ifworld.rws import benchmark
    from ifworld.rws.records import RecordError, load_benchmark_record
    from ifworld.rws.tables import tables_markdown

    store = get_store()
    records = []
    for run_id in run_ids:
        try:
            info = store.get_run(run_id)
        except KeyError:
            _fail(f"no such run: {run_id}")
        if info is None or not info.record or info.workflow != benchmark.WORKFLOW:
            _fail(f"{run_id} is not a finished RWS benchmark run")
        try:  # validated once here: a malformed stored record is named (run and field), not a traceback
            records.append(load_benchmark_record(benchmark.regrade(run_id, store=store) if regrade
                                                 else info.record, run_id))
        except RecordError as exc:
            _fail(str(exc))
    typer.echo(tables_markdown(records, model))
