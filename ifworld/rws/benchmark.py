"""The RWS benchmark runner: items × patterns × models as one resumable run, graded from saved outputs.

A run is the ``rws.benchmark`` workflow (:mod:`ifworld.rws.workflows`): every (item, pattern, model) task is
a pattern subgraph under the run's checkpointer; model calls go through the shared limiter
(``settings.max_concurrency``); each finished task emits an ``item_done`` progress event. The record keeps
each task's raw output and the trace of every role, so :func:`regrade` re-scores a run without any model
call. Tables: :func:`table1` (accuracy, model × pattern) and :func:`table2` (accuracy, pattern × answer
type), :func:`cost_frame` (calls and tokens per pattern and model), :func:`results_frame` (one row per task).

The record is stored as plain JSON; every reader here takes it as stored or as a typed
:class:`~ifworld.rws.records.BenchmarkRecord` and validates it once (:func:`load_benchmark_record`), so a
malformed record is a :class:`~ifworld.runs.records.RecordError` naming the run and the field.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pandas as pd

from ifworld import resources, runs, safe_json
from ifworld.access import OPERATOR, Caller
from ifworld.config import Settings
from ifworld.errors import InputError
from ifworld.runs.events import Event
from ifworld.runs.store import RunStore, get_store
from ifworld.rws.dataset import RWSItem, load_items
from ifworld.rws.patterns import REGISTRY, check_pattern
from ifworld.rws.records import BenchmarkRecord, TaskResult, load_benchmark_record
from ifworld.rws.verifier import grade_output
from ifworld.safe_csv import write_csv

WORKFLOW = "rws.benchmark"
SAMPLE_PATH = resources.data_path("rws_sample.jsonl")
TYPES = ("numeric", "symbolic", "textual")
VERIFIER_GROUP = "verifier"


# -- planning ---------------------------------------------------------------------------------------
def load_sample() -> list[RWSItem]:
    """The bundled sample set (original heliophysics items)."""
    return load_items(SAMPLE_PATH).items


def parse_list(text: str | Iterable[str] | None) -> list[str]:
    """"a,b" or ["a", "b"] → ["a", "b"] (blanks dropped, order kept, duplicates removed)."""
    parts = text.split(",") if isinstance(text, str) else list(text or [])
    return list(dict.fromkeys(p.strip() for p in parts if p and p.strip()))


def benchmark_params(items: Iterable[RWSItem | dict], patterns: Iterable[str] | str, *,
                     models: Iterable[str] | str | None = None, limit: int | None = None, verify: bool = True,
                     verifier_sees_grader: bool = False, data_label: str = "sample") -> dict[str, Any]:
    """Validated run params; the items themselves are stored so the run is self-contained and resumable.

    ``verify`` (on by default, as in the paper's headline accuracy) asks the LLM verifier whenever the
    programmatic grader is not sure or says incorrect; ``verifier_sees_grader`` also shows its Judge the
    grader's reason (the paper's does not see it)."""
    chosen = [check_pattern(p) for p in parse_list(patterns)]
    if not chosen:
        raise InputError(f"choose at least one pattern from {REGISTRY.help_text(', ')}")
    rows = [i.model_dump() if isinstance(i, RWSItem) else RWSItem.model_validate(i).model_dump() for i in items]
    if limit is not None:
        rows = rows[: max(0, int(limit))]
    if not rows:
        raise InputError("no items to run: the data holds no usable item (or --limit is 0); check the file")
    return {"items": rows, "patterns": chosen, "models": parse_list(models), "verify": bool(verify),
            "verifier_sees_grader": bool(verify and verifier_sees_grader),
            "data": data_label, "limit": limit}


def estimate_calls(n_items: int, patterns: Iterable[str], n_models: int = 1) -> dict[str, tuple[int, int]]:
    """Model calls the run will cost: per pattern and ``"total"`` as (all accepted, all retried)."""
    out = {}
    for p in patterns:
        name = check_pattern(p)
        lo, hi = REGISTRY.get(name).calls_range()
        out[name] = (lo * n_items * n_models, hi * n_items * n_models)
    out["total"] = (sum(v[0] for v in out.values()), sum(v[1] for v in out.values()))
    return out


def title(params: dict[str, Any]) -> str:
    models = params.get("models") or []
    suffix = f" × {', '.join(models)}" if models else ""
    return (f"RWS benchmark: {', '.join(params.get('patterns', []))} × {len(params.get('items', []))} items"
            f" ({params.get('data', 'sample')}){suffix}")


# -- running ----------------------------------------------------------------------------------------
def start_benchmark(params: dict[str, Any], *, caller: Caller = OPERATOR, store: RunStore | None = None) -> str:
    """Create the run (status pending) and return its id (the facilitator's alone)."""
    return runs.start_run(WORKFLOW, params, caller=caller, store=store)


def stream_benchmark(run_id: str, *, store: RunStore | None = None,
                     settings: Settings | None = None) -> Iterator[Event]:
    """Run or resume a benchmark, yielding events (``progress`` events with kind ``item_done``)."""
    yield from runs.stream_run(run_id, store=store, settings=settings)


def run_benchmark(params: dict[str, Any], *, store: RunStore | None = None, settings: Settings | None = None,
                  on_event: Callable[[Event], None] | None = None) -> dict[str, Any]:
    """Start and drive a benchmark to the end; returns the record (raises ``runs.RunFailed``)."""
    return runs.execute(WORKFLOW, params, store=store, settings=settings, on_event=on_event)


def progress_of(event: Event) -> list[TaskResult]:
    """The tasks an event reports as finished, typed (a pattern node's update carries its result records)."""
    if event.type != "step_finished" or event.node not in REGISTRY:
        return []
    return [TaskResult.model_validate(r) for r in (event.data or {}).get("results") or []]


def total_tasks(params: dict[str, Any]) -> int:
    """Number of (item, pattern, model) tasks in a run."""
    return len(params.get("items", [])) * len(params.get("patterns", [])) * max(1, len(params.get("models") or []))


def list_benchmarks(store: RunStore | None = None) -> list[Any]:
    """Earlier benchmark runs, newest first."""
    return [r for r in (store or get_store()).list_runs(kind="rws") if r.workflow == WORKFLOW]


# -- records ----------------------------------------------------------------------------------------
def _order(params: dict[str, Any]) -> Callable[[TaskResult], tuple]:
    pos = {it["id"]: i for i, it in enumerate(params.get("items", []))}
    pats = {p: i for i, p in enumerate(params.get("patterns", []))}
    mods = {m: i for i, m in enumerate(params.get("models", []))}
    return lambda r: (pos.get(r.item_id, 1e9), pats.get(r.pattern, 99), mods.get(r.model, 99))


def _accuracy(rows: list[TaskResult]) -> float | None:
    return round(sum(r.grade.verdict == "correct" for r in rows) / len(rows), 4) if rows else None


def _group(rows: list[TaskResult], *keys: str) -> dict:
    groups: dict = defaultdict(list)
    for r in rows:
        groups[tuple(getattr(r, k) for k in keys) if len(keys) > 1 else getattr(r, keys[0])].append(r)
    return groups


def _typed(results: Iterable[TaskResult | dict]) -> list[TaskResult]:
    return [r if isinstance(r, TaskResult) else TaskResult.model_validate(r) for r in results]


def summarise(results: Iterable[TaskResult | dict]) -> dict[str, Any]:
    """Accuracy overall, by pattern, by type, by model, by pattern × type and model × pattern."""
    results = _typed(results)
    nested: defaultdict[str, dict[str, Any]] = defaultdict(dict)
    for (p, t), rows in _group(results, "pattern", "type").items():
        nested[p][t] = _accuracy(rows)
    by_model_pattern: defaultdict[str, dict[str, Any]] = defaultdict(dict)
    for (m, p), rows in _group(results, "model", "pattern").items():
        by_model_pattern[m][p] = _accuracy(rows)
    stages: defaultdict[str, int] = defaultdict(int)
    for r in results:
        stages[r.grade.stage] += 1
    return {
        "accuracy": _accuracy(results), "n": len(results),
        "by_pattern": {k: _accuracy(v) for k, v in _group(results, "pattern").items()},
        "by_type": {k: _accuracy(v) for k, v in _group(results, "type").items()},
        "by_model": {k: _accuracy(v) for k, v in _group(results, "model").items()},
        "by_pattern_type": dict(nested), "by_model_pattern": dict(by_model_pattern),
        "verdicts": {v: sum(r.grade.verdict == v for r in results) for v in ("correct", "incorrect", "not_sure")},
        "stages": dict(stages), "degraded": sum(r.degraded for r in results),
    }


def cost_rows(calls: list[dict], results: Iterable[TaskResult | dict]) -> list[dict]:
    """Calls and tokens per (pattern, model) from the call log, beside that group's accuracy.

    Token columns are ``*_tok``: the run store scrubs any key containing "token" from records.
    """
    results = _typed(results)
    groups: dict = defaultdict(lambda: {"calls": 0, "prompt_tok": 0, "completion_tok": 0, "failed": 0})
    for c in calls:
        parts = str(c.get("role") or "").split(".")
        pattern = parts[1] if len(parts) > 2 and parts[0] == "rws" else "other"
        g = groups[(pattern, c.get("model") or "")]
        g["calls"] += 1
        g["prompt_tok"] += int(c.get("prompt_tokens") or 0)
        g["completion_tok"] += int(c.get("completion_tokens") or 0)
        g["failed"] += c.get("status") in ("error", "failed")
    items_per = {k: len(v) for k, v in _group(results, "pattern", "model").items()}
    acc = {k: _accuracy(v) for k, v in _group(results, "pattern", "model").items()}
    rows = []
    rank = {p: i for i, p in enumerate(REGISTRY.names())}
    for (pattern, model), g in sorted(groups.items(), key=lambda kv: (rank.get(kv[0][0], 99), kv[0])):
        n = items_per.get((pattern, model)) or 0
        rows.append({"pattern": pattern, "model": model, **g, "total_tok": g["prompt_tok"] + g["completion_tok"],
                     "items": n, "calls_per_item": round(g["calls"] / n, 3) if n else None,
                     "accuracy": acc.get((pattern, model))})
    return rows


def build_record(results: list[dict], params: dict[str, Any], calls: list[dict]) -> dict[str, Any]:
    """The run's final record (stored form, plain JSON): ordered per-task results, summary and cost (called by
    the workflow)."""
    typed = _typed(results)
    order = sorted(range(len(results)), key=lambda i: _order(params)(typed[i]))
    ordered = [results[i] for i in order]
    return {"workflow": WORKFLOW, "data": params.get("data", ""), "patterns": params.get("patterns", []),
            "models": params.get("models", []), "n_items": len(params.get("items", [])),
            "verify": bool(params.get("verify")),
            "verifier_sees_grader": bool(params.get("verifier_sees_grader")),
            "summary": summarise(typed[i] for i in order),
            "cost": cost_rows(calls, [typed[i] for i in order]), "results": ordered}


def regrade_record(record: dict[str, Any], items: Iterable[RWSItem | dict], run_id: str | None = None,
                   ) -> dict[str, Any]:
    """Re-score every saved raw output with the current grader; saved verifier verdicts are reused, so no
    model is called. The record is validated first (:class:`RecordError` if it cannot be); the result is the
    stored form with grades, summary and cost accuracy replaced — keys this version does not model are kept."""
    rec = load_benchmark_record(record, run_id)
    by_id = {(i.id if isinstance(i, RWSItem) else i["id"]): i for i in items}
    raw_results, results = [], []
    for raw, r in zip(record.get("results") or [], rec.results, strict=True):
        item = by_id.get(r.item_id)
        if item is not None:
            raw = {**raw, "grade": grade_output(item, r.raw_output, saved=raw["grade"])}
            r = TaskResult.model_validate(raw)
        raw_results.append(raw)
        results.append(r)
    cost = [{**raw, "accuracy": _accuracy([x for x in results if x.pattern == c.pattern and x.model == c.model])}
            for raw, c in zip(record.get("cost") or [], rec.cost, strict=True)]
    return {**record, "results": raw_results, "summary": summarise(results), "cost": cost}


def regrade(run_id: str, *, store: RunStore | None = None, save: bool = True) -> dict[str, Any]:
    """Re-score a finished benchmark run from its saved raw outputs (no model call); optionally save it."""
    store = store or get_store()
    info = store.get_run(run_id)
    if not info.record:
        raise InputError(f"run {run_id} has no saved results yet (status {info.status}); resume it first")
    record = regrade_record(info.record, info.params.get("items", []), run_id)
    if save:
        store.finish_run(run_id, record, info.usage)
    return record


# -- frames and exports -----------------------------------------------------------------------------
Record = dict[str, Any] | BenchmarkRecord  # as stored, or already validated


def results_frame(record: Record) -> pd.DataFrame:
    """One row per (item, pattern, model): verdict, stage, answer, calls, annotations."""
    rows = [{"item": r.item_id, "pattern": r.pattern, "model": r.model, "type": r.type, "topic": r.topic,
             "verdict": r.grade.verdict, "stage": r.grade.stage, "answer": r.answer, "gold": r.gold,
             "reason": r.grade.reason, "calls": r.calls, "degraded": r.degraded,
             "annotations": "; ".join([*r.annotations, *r.grade.annotations])}
            for r in load_benchmark_record(record).results]
    return pd.DataFrame(rows, columns=["item", "pattern", "model", "type", "topic", "verdict", "stage", "answer",
                                       "gold", "reason", "calls", "degraded", "annotations"])


def _acc_pivot(df: pd.DataFrame, index: list[str], columns: str) -> pd.DataFrame:
    if df.empty:
        return pd.DataFrame()
    df = df.assign(correct=(df["verdict"] == "correct").astype(float))
    table = df.pivot_table(index=index, columns=columns, values="correct", aggfunc="mean")
    table["overall"] = df.groupby(index)["correct"].mean()
    return table.round(4)


def table1(record: Record) -> pd.DataFrame:
    """Accuracy by model (rows) and pattern (columns), plus each model's overall."""
    rec = load_benchmark_record(record)
    table = _acc_pivot(results_frame(rec), ["model"], "pattern")
    order = [p for p in rec.patterns if p in table.columns] + ["overall"]
    return table[order] if not table.empty else table


def table2(record: Record) -> pd.DataFrame:
    """Accuracy by pattern and model (rows) and answer type (columns), plus overall."""
    table = _acc_pivot(results_frame(record), ["pattern", "model"], "type")
    order = [t for t in TYPES if t in table.columns] + ["overall"]
    return table[order] if not table.empty else table


def cost_frame(record: Record) -> pd.DataFrame:
    """Calls and tokens per pattern and model beside accuracy (the cost of complexity)."""
    return pd.DataFrame([c.model_dump() for c in load_benchmark_record(record).cost])


def to_csv(record: Record) -> str:
    """The per-item results as CSV (formulas neutralised: :func:`~ifworld.safe_csv.write_csv`)."""
    return write_csv(results_frame(record)) or ""


def to_json(record: Record) -> str:
    """The record as JSON: a stored dict as it is (keys this version does not model included)."""
    data = record.model_dump(mode="json") if isinstance(record, BenchmarkRecord) else record
    return safe_json.dumps(data, indent=2, default=str)


def _md_table(df: pd.DataFrame, index: bool = True) -> str:
    """A DataFrame as a Markdown table (no optional dependency)."""
    if df.empty:
        return "(no results)"
    df = df.reset_index() if index else df
    head = [str(c) for c in df.columns]
    rows = [["" if v is None or (isinstance(v, float) and v != v) else str(v) for v in row]
            for row in df.itertuples(index=False)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])


def markdown(record: Record) -> str:
    """Markdown body for ``ifworld runs export --format md``."""
    rec = load_benchmark_record(record)
    lines = ["## RWS benchmark", "", f"- Data: {rec.data}, items: {rec.n_items}",
             f"- Accuracy: {rec.summary.accuracy}", "", "### Accuracy by model × pattern", "", _md_table(table1(rec)),
             "", "### Accuracy by pattern × type", "", _md_table(table2(rec)), "", "### Cost", "",
             _md_table(cost_frame(rec), index=False)]
    return "\n".join(lines) + "\n"
