"""RWS programmatic grader: extract → parse → compare → a small frozen :class:`CheckResult`.

Public API (used by the CLI, the pages and the LLM verifier built on top):

* :func:`check` — one prediction against one ground truth of a given type.
* :func:`grade_item` — one :class:`~ifworld.rws.dataset.RWSItem`, with an optional ``verifier`` hook
  consulted only when the programmatic verdict is not "correct".
* :func:`grade_many` — a whole set, returning a :class:`GradeReport` (accuracy, by type, per item).

Verdicts are "correct", "incorrect" or "not_sure"; a gold answer that cannot be parsed is "not_sure"
("unscored gold"), never "incorrect". Symbolic checks run in a killable worker process with a hard
time limit (:mod:`ifworld.rws.sandbox`), so this module is safe to call from any thread.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from ifworld.rws.dataset import RWSItem
from ifworld.rws.extract import MAX_ANSWER_CHARS, MAX_INPUT_CHARS, extract_answer, strip_wrappers
from ifworld.rws.numeric import REL_TOLERANCE, check_numeric
from ifworld.rws.result import FORMAT_VIOLATION, CheckResult, GradeReport, ItemGrade
from ifworld.rws.sandbox import DEFAULT_TIMEOUT_S, warm_up_async
from ifworld.rws.symbolic import check_symbolic
from ifworld.rws.textual import check_textual

__all__ = [
    "CheckResult", "GradeReport", "ItemGrade", "Verifier", "REL_TOLERANCE", "DEFAULT_TIMEOUT_S",
    "MAX_INPUT_CHARS", "TYPES", "check", "grade_item", "grade_many", "normalise_type",
]

TYPES = ("numeric", "symbolic", "textual")
INPUT_TRUNCATED = "input truncated"

Verifier = Callable[[RWSItem, str, CheckResult], CheckResult | None]
"""Hook signature: (item, raw prediction, programmatic result) → a result with stage="verifier", or
None to keep the programmatic verdict. Called only when the programmatic verdict is not "correct"."""


def normalise_type(kind: str) -> str:
    """Map "text" → "textual" and validate; raises ValueError for an unknown type."""
    low = kind.strip().lower()
    low = {"text": "textual", "numerical": "numeric"}.get(low, low)
    if low not in TYPES:
        raise ValueError(f"unknown answer type {kind!r}; expected one of {', '.join(TYPES)}")
    return low


def check(pred: str, gt: str, type: str, units: str | None = None,  # noqa: A002 - contract name
          timeout_s: float = DEFAULT_TIMEOUT_S) -> CheckResult:
    """Grade free-form model output `pred` against ground truth `gt` of answer type `type`.

    `units` (numeric only) gives the expected unit when the gold has none; a bare predicted number is
    then read in that unit. `timeout_s` is the hard limit for a symbolic check (process is killed).
    Predictions longer than :data:`MAX_INPUT_CHARS` are cut to their tail (annotated "input truncated").
    """
    kind = normalise_type(type)
    extraction = extract_answer(pred)
    answer = extraction.answer
    notes = [INPUT_TRUNCATED] if extraction.truncated else []
    gold = strip_wrappers(gt)
    if len(answer) > MAX_ANSWER_CHARS:
        return CheckResult(verdict="incorrect", type=kind, stage="extract", gt_norm=gold,
                           reason=f"format violation: answer longer than {MAX_ANSWER_CHARS} characters",
                           pred_norm=answer[:80] + "…", annotations=[FORMAT_VIOLATION, *notes])
    if not answer.strip():
        return CheckResult(verdict="incorrect", type=kind, reason="format violation: empty answer",
                           pred_norm="", gt_norm=gold, stage="extract",
                           annotations=[FORMAT_VIOLATION, *notes])
    if kind == "numeric":
        result = check_numeric(answer, gold, units)
    elif kind == "symbolic":
        result = check_symbolic(answer, gold, timeout_s=timeout_s)
    else:
        result = check_textual(answer, gold)
    if notes:
        result = result.with_(annotations=[*result.annotations, *notes])
    return result


def grade_item(item: RWSItem, prediction: str, verifier: Verifier | None = None,
               timeout_s: float = DEFAULT_TIMEOUT_S) -> CheckResult:
    """Grade one item; if the programmatic verdict is not "correct" and a verifier is given, ask it."""
    result = check(prediction, item.final, item.type, timeout_s=timeout_s)
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


def grade_many(items: Iterable[RWSItem], predictions: Mapping[str, str], verifier: Verifier | None = None,
               timeout_s: float = DEFAULT_TIMEOUT_S) -> GradeReport:
    """Grade every item against `predictions` (id → raw model output); not_sure counts as not correct.

    The symbolic worker is warmed in the background first, so numeric and textual items grade while
    sympy imports.
    """
    items = list(items)
    if any(item.type == "symbolic" for item in items):
        warm_up_async()
    graded: dict[int, ItemGrade] = {}
    # symbolic items last: the worker finishes warming up while the others grade
    order = sorted(range(len(items)), key=lambda index: items[index].type == "symbolic")
    for index in order:
        item = items[index]
        prediction = predictions.get(item.id)
        result = _missing(item) if prediction is None else grade_item(item, prediction, verifier, timeout_s)
        graded[index] = ItemGrade(id=item.id, **result.model_dump(exclude={"type"}), type=item.type)
    return summarise([graded[index] for index in range(len(items))])


def summarise(graded: list[ItemGrade]) -> GradeReport:
    """Accuracy overall and per type (types absent from the set are left out), plus verdict counts."""
    def accuracy(rows: list[ItemGrade]) -> float:
        return sum(row.verdict == "correct" for row in rows) / len(rows) if rows else 0.0

    by_type = {kind: accuracy([g for g in graded if g.type == kind]) for kind in TYPES
               if any(g.type == kind for g in graded)}
    counts = {verdict: sum(g.verdict == verdict for g in graded)
              for verdict in ("correct", "incorrect", "not_sure")}
    return GradeReport(accuracy=accuracy(graded), by_type=by_type, counts=counts, items=graded)
