"""``ifworld rws run`` — run agentic answer patterns over an RWS dataset (mounted on the ``rws`` group).

``ifworld rws run --pattern single|hmaw|pace|phase|schema[,…] --data items.jsonl [--limit N] [--models a,b]
[--verify] [--out results.json] [--yes]``: the run id goes to stderr at start, progress lines to stderr, the
run record (results, summary, cost) to ``--out`` or stdout. Without a model the command exits 2 with the
connection help; bad input lines are listed on stderr and skipped. When the estimated calls (items ×
patterns × models, retry paths included) exceed ``ifworld.limits.CONFIRM_CALLS`` the command asks on a
terminal and otherwise refuses (exit 2) unless ``--yes`` is given.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from ifworld.config import load_settings
from ifworld.limits import CONFIRM_CALLS, needs_confirmation
from ifworld.llm import NO_MODEL_HELP
from ifworld.runs import RunFailed
from ifworld.runs.events import Event
from ifworld.rws import benchmark
from ifworld.rws.dataset import DatasetTooLarge, load_items
from ifworld.rws.patterns import PATTERNS
from ifworld.rws.records import RecordError, load_benchmark_record


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=2)


def _progress(total: int) -> Callable[[Event], None]:
    done = {"n": 0}

    def on_event(event: Event) -> None:
        for task in benchmark.progress_of(event):
            done["n"] += 1
            print(f"[{done['n']}/{total}] {task.pattern:<6} {task.item_id} {task.model}: {task.grade.verdict}"
                  f" ({task.calls} calls)", file=sys.stderr, flush=True)
        if event.type == "run_failed":
            print(f"run failed: {event.data.get('error', '')}", file=sys.stderr, flush=True)
    return on_event


def run_cmd(
    pattern: Annotated[str, typer.Option("--pattern", "-p",
                                         help=f"One or more of {', '.join(PATTERNS)}, comma-separated.")],
    data: Annotated[Path, typer.Option("--data", "-d", help="Items as JSONL (RWS schema).")],
    limit: Annotated[int | None, typer.Option(help="Only the first N items.")] = None,
    models: Annotated[str | None, typer.Option(help="Comma-separated model names (same endpoint).")] = None,
    verify: Annotated[bool, typer.Option(help="Ask the LLM verifier when the grader is not sure.")] = False,
    out: Annotated[Path | None, typer.Option(help="Write the results JSON here (else stdout).")] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Run without asking even when the estimated model "
                                      "calls exceed the confirmation threshold.")] = False,
) -> None:
    """Solve items with agentic patterns, grade them, report accuracy and cost."""
    settings = load_settings()
    if not settings.enabled:
        typer.echo(NO_MODEL_HELP, err=True)
        raise typer.Exit(code=2)
    if not data.is_file():
        _fail(f"no such file: {data}")
    try:
        loaded = load_items(data)
    except DatasetTooLarge as exc:
        _fail(str(exc))
    for err in loaded.errors:
        typer.echo(f"{data}:{err.line}: skipped: {err.reason}", err=True)
    try:
        params = benchmark.benchmark_params(loaded.items, pattern, models=models, limit=limit, verify=verify,
                                            data_label=data.name)
    except ValueError as exc:
        _fail(str(exc))
    total = benchmark.total_tasks(params)
    lo, hi = benchmark.estimate_calls(len(params["items"]), params["patterns"], max(1, len(params["models"])))["total"]
    typer.echo(f"{total} tasks, about {lo}–{hi} model calls", err=True)
    if needs_confirmation(hi) and not yes:
        question = f"This run may make up to {hi} model calls (confirmation above {CONFIRM_CALLS}). Continue?"
        if not sys.stdin.isatty():
            _fail(f"this run may make up to {hi} model calls, above the confirmation threshold of "
                  f"{CONFIRM_CALLS}; pass --yes to run it")
        if not typer.confirm(question, default=False, err=True):
            typer.echo("not started", err=True)
            raise typer.Exit(code=1)
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


def tables_cmd(
    run_ids: Annotated[list[str], typer.Argument(help="Benchmark run ids (several datasets and/or models).")],
    model: Annotated[str | None, typer.Option(help="Table 2 for this model only.")] = None,
    regrade: Annotated[bool, typer.Option(help="Re-grade each run with the current grader first (no model "
                                          "calls; the re-graded record is saved).")] = False,
) -> None:
    """Print the paper's Table 1 (model × single-shot) and Table 2 (dataset × pattern, macro mean) as Markdown."""
    from ifworld.runs.store import get_store
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


def register(app: typer.Typer) -> None:
    """Add the ``run`` and ``tables`` commands to the ``rws`` command group."""
    app.command("run")(run_cmd)
    app.command("tables")(tables_cmd)
