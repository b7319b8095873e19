"""RWS programmatic grader: extract → parse → compare → a small frozen :class:`CheckResult`.

Public API (used by the CLI, the pages and the LLM verifier built on top):

* :func:`check` — one prediction against one ground truth of a given type.
* :func:`grade_item` — one :class:`~ifworld.rws.dataset.RWSItem`, with an optional ``verifier`` hook
  consulted only when the programmatic verdict is not "correct".
* :func:`grade_many` — a whole set, returning a :class:`GradeReport` (accuracy, by type, per item).

Verdicts are "correct", "incorrect" or "not_sure"; a gold answer that cannot be parsed is "not_sure"
("unscored gold"), never "incorrect". Every stage of an item — Math-Verify included — runs in a killable
worker process under one time limit (:mod:`ifworld.rws.grading.sandbox`, :mod:`ifworld.rws.grading.chain`),
so this module is safe to call from any thread and no input can hang or crash the caller.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping

from ifworld.errors import InputError
from ifworld.rws.dataset import RWSItem
from ifworld.rws.grading.constants import (
    DEFAULT_TIMEOUT_S,
    INTERACTIVE_TIMEOUT_S,
    MAX_GOLD_CHARS,
    MAX_INPUT_CHARS,
    REL_TOLERANCE,
)
from ifworld.rws.grading.result import (
    GOLD,
    READING,
    TIME_LIMIT,
    TIMEOUT,
    UNSCORED_GOLD,
    CheckResult,
    GradeReport,
    ItemGrade,
    labelled,
)
from ifworld.rws.grading.sandbox import POOL_SIZE, run_check, warm_up_async, worker

__all__ = [
    "CheckResult", "GradeReport", "ItemGrade", "Verifier", "REL_TOLERANCE", "DEFAULT_TIMEOUT_S",
    "INTERACTIVE_TIMEOUT_S", "MAX_INPUT_CHARS", "TYPES", "check", "grade_item", "grade_many", "normalise_type",
]

TYPES = ("numeric", "symbolic", "textual")

Verifier = Callable[[RWSItem, str, CheckResult], CheckResult | None]
"""Hook signature: (item, raw prediction, programmatic result) → a result with stage="verifier", or
None to keep the programmatic verdict. Called only when the programmatic verdict is not "correct"."""


def normalise_type(kind: str) -> str:
    """Map "text" → "textual" and validate; raises ValueError for an unknown type."""
    low = kind.strip().lower()
    low = {"text": "textual", "numerical": "numeric"}.get(low, low)
    if low not in TYPES:
        raise InputError(f"unknown answer type {kind!r}; expected one of {', '.join(TYPES)}")
    return low


def check(pred: str, gt: str, type: str, units: str | None = None,  # noqa: A002 - contract name
          timeout_s: float = DEFAULT_TIMEOUT_S, hint: str | None = None, *, _worker: int = 0) -> CheckResult:
    """Grade free-form model output `pred` against ground truth `gt` of answer type `type`.

    Every stage runs in the killable grading worker under one limit `timeout_s` for the whole item.
    `units` (numeric only) gives the expected unit when the gold has none; `hint` is the item's hint —
    a unit it names is required (a bare number is then "missing units"), "An equation …" requires an equation.
    Inputs longer than :data:`MAX_INPUT_CHARS` are cut to their tail (annotated "input truncated").
    """
    kind = normalise_type(type)
    if len(gt) > MAX_GOLD_CHARS:
        return CheckResult(verdict="not_sure", type=kind, stage="extract", gt_norm=gt[:80] + "…",
                           reason=f"{GOLD}: unscored gold: too long (over {MAX_GOLD_CHARS} characters)",
                           annotations=[UNSCORED_GOLD], decided_by=GOLD)
    if len(pred) > MAX_INPUT_CHARS:  # cut here so a 1 MB reply never crosses the pipe
        pred = pred[-MAX_INPUT_CHARS - 1:]
    reply = run_check(pred, gt, kind, units, hint, timeout_s, worker_index=_worker)
    if reply is None:
        failure = worker(_worker).last_failure
        reason = f"timed out after {timeout_s:g} s" if failure in ("", "timeout") else f"grading failed: {failure}"
        return labelled(CheckResult(verdict="not_sure", type=kind, stage="extract", reason=reason,
                                    annotations=[TIMEOUT], gt_norm=gt[:200], decided_by=TIME_LIMIT))
    reply.pop("id", None)
    try:
        return CheckResult.model_validate({"type": kind, "stage": "extract", **reply})
    except ValueError:
        return labelled(CheckResult(verdict="not_sure", type=kind, stage="extract", annotations=["parse failure"],
                                    reason=str(reply.get("reason", "grader error"))[:200], decided_by=READING))


def grade_item(item: RWSItem, prediction: str, verifier: Verifier | None = None,
               timeout_s: float = DEFAULT_TIMEOUT_S) -> CheckResult:
    """Grade one item (its hint included); if not "correct" and a verifier is given, ask it.

    Never raises for a bad prediction or gold: a failure is this item's not_sure verdict with the reason.
    """
    return _consult(item, prediction, _programmatic(item, prediction, timeout_s), verifier)


def _programmatic(item: RWSItem, prediction: str, timeout_s: float, worker_index: int = 0) -> CheckResult:
    try:
        return check(prediction, item.final, item.type, timeout_s=timeout_s, hint=item.hint or None,
                     _worker=worker_index)
    except Exception as exc:  # noqa: BLE001 - one item's failure is that item's verdict, never the run's
        return CheckResult(verdict="not_sure", type=item.type, stage="extract", annotations=["parse failure"],
                           reason=f"grader error: {type(exc).__name__}: {str(exc)[:200]}")


def _consult(item: RWSItem, prediction: str, result: CheckResult, verifier: Verifier | None) -> CheckResult:
    """The verifier's verdict for a programmatic result that is not "correct" (when there is a verifier)."""
    if verifier is None or result.verdict == "correct":
        return result
    verdict = verifier(item, prediction, result)
    if verdict is None:
        return result
    return verdict if verdict.stage == "verifier" else verdict.with_(stage="verifier")


def _missing(item: RWSItem) -> CheckResult:
    """Result for an item that has no prediction."""
    return CheckResult(verdict="incorrect", type=item.type, reason="no prediction for this item",
                       gt_norm=item.final, stage="extract", annotations=["missing prediction"])


POOL_FROM_ITEMS = 24
"""A batch with at least this many symbolic items uses the whole worker pool. Below it a second worker's start-up
(sympy and Math-Verify imported again) costs more than it saves: measured on the 53-item sample (18 symbolic),
one worker grades it cold in 2.4–3.1 s, two in 3.2–3.7 s, on this 2-core machine under load ~3."""


def grade_many(items: Iterable[RWSItem], predictions: Mapping[str, str], verifier: Verifier | None = None,
               timeout_s: float = DEFAULT_TIMEOUT_S) -> GradeReport:
    """Grade every item against `predictions` (id → raw model output); not_sure counts as not correct.

    Workers start in the background first; textual items grade while they import sympy and Math-Verify, which
    numeric and symbolic items wait for (outside their own time limits). A large batch is graded by the
    whole worker pool in parallel (one worker per core); the verifier is then consulted item by item.
    """
    items = list(items)
    heavy = sum(item.type == "symbolic" for item in items)
    workers = POOL_SIZE if heavy >= POOL_FROM_ITEMS else 1
    warm_up_async(workers)
    rank = {"textual": 0, "numeric": 1, "symbolic": 2}
    order = sorted(range(len(items)), key=lambda index: rank.get(items[index].type, 1))
    results: dict[int, CheckResult] = {}

    def work(worker_index: int) -> None:
        for index in order[worker_index::workers]:  # a fixed share: re-grading hits the same worker's caches
            item = items[index]
            prediction = predictions.get(item.id)
            results[index] = _missing(item) if prediction is None else \
                _programmatic(item, prediction, timeout_s, worker_index)

    threads = [threading.Thread(target=work, args=(w,), name=f"ifworld-grade-{w}", daemon=True)
               for w in range(1, workers)]
    for thread in threads:
        thread.start()
    work(0)
    for thread in threads:
        thread.join()
    graded = []
    for index, item in enumerate(items):
        prediction = predictions.get(item.id)
        result = results[index] if prediction is None else _consult(item, prediction, results[index], verifier)
        graded.append(ItemGrade(id=item.id, **result.model_dump(exclude={"type"}), type=item.type))
    return summarise(graded)


def summarise(graded: list[ItemGrade]) -> GradeReport:
    """Accuracy overall and per type (types absent from the set are left out), plus verdict counts."""
    def accuracy(rows: list[ItemGrade]) -> float:
        return sum(row.verdict == "correct" for row in rows) / len(rows) if rows else 0.0

    by_type = {kind: accuracy([g for g in graded if g.type == kind]) for kind in TYPES
               if any(g.type == kind for g in graded)}
    counts = {verdict: sum(g.verdict == verdict for g in graded)
              for verdict in ("correct", "incorrect", "not_sure")}
    return GradeReport(accuracy=accuracy(graded), by_type=by_type, counts=counts, items=graded)
