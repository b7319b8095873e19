"""The grader's small frozen result types, shared by every stage and by the CLI/pages."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

Verdict = Literal["correct", "incorrect", "not_sure"]
Stage = Literal["extract", "numeric", "symbolic", "textual", "verifier"]

# Failure annotations (a closed vocabulary so reports can be tallied).
UNIT_MISMATCH = "unit mismatch"
MISSING_UNITS = "missing units"
FORMAT_VIOLATION = "format violation"
PARSE_FAILURE = "parse failure"
TOLERANCE_MISS = "tolerance miss"
TIMEOUT = "timeout"
UNSCORED_GOLD = "unscored gold"
NEEDS_VERIFIER = "needs LLM verifier"

# The step that decided, in words a student understands (a closed vocabulary; the reason starts with it).
EXTRACTION = "extraction"
"""Finding the answer in the reply (nothing found, too long, empty)."""
FORMAT = "answer format"
"""The answer's form (± for one value, a range for a value, the wrong number of values)."""
READING = "reading the answer"
"""The answer could not be read as maths or as a value."""
GOLD = "reference answer"
"""The reference answer cannot be graded (unscored gold)."""
UNITS = "units"
TOLERANCE = "tolerance"
"""The RWS paper's numeric rule: within 5 % after unit conversion."""
PRECISION = "stated precision"
MATHVERIFY = "Math-Verify"
SIDES = "equation sides"
ALGEBRA = "algebra rules"
"""Our own exact proofs (rearranged or solved equations, positive quantities)."""
SAFETY = "safety checks"
"""Vetoes of a false "correct" (a false link in a chain, an undefined value, refused input)."""
TEXT = "text matching"
TIME_LIMIT = "time limit"
VERIFIER = "LLM verifier"
DECIDERS = (EXTRACTION, FORMAT, READING, GOLD, UNITS, TOLERANCE, PRECISION, MATHVERIFY, SIDES, ALGEBRA, SAFETY, TEXT,
            TIME_LIMIT, VERIFIER)


class CheckResult(BaseModel):
    """Outcome of grading one prediction against one ground truth.

    `stage` names the pipeline stage that decided, `annotations` lists failure kinds (see the module
    constants), `rel_error` is set for numeric comparisons.
    """

    model_config = ConfigDict(frozen=True)

    verdict: Verdict
    type: str
    reason: str
    pred_norm: str = ""
    gt_norm: str = ""
    stage: Stage
    annotations: list[str] = Field(default_factory=list)
    rel_error: float | None = None
    how: str = ""
    """How the answer was found in the reply: json, final_line, boxed, math, number, whole."""
    candidates: list[str] = Field(default_factory=list)
    """Every answer candidate the extraction stage saw, in order of preference (the trace)."""
    decided_by: str = ""
    """The step that decided, in a student's words (one of :data:`DECIDERS`); the reason starts with it."""

    DECIDERS: ClassVar[tuple[str, ...]] = DECIDERS

    def with_(self, **changes: object) -> CheckResult:
        """Return a copy with some fields replaced (the result itself is immutable)."""
        return self.model_copy(update=changes)

    @staticmethod
    def split_reason(reason: str) -> tuple[str, str]:
        """(deciding step, the rest) of a reason that starts with one (``"units: unit mismatch …"``), else
        ("", reason) — for saved grades, which keep only the reason."""
        head, sep, rest = reason.partition(": ")
        return (head, rest) if sep and head in DECIDERS else ("", reason)


def decider(stage: str, annotations: list[str], reason: str) -> str:
    """The deciding step of a result whose stage did not name it (from its stage, annotations and reason)."""
    notes = set(annotations)
    for note, step in ((UNSCORED_GOLD, GOLD), (TIMEOUT, TIME_LIMIT), (UNIT_MISMATCH, UNITS), (MISSING_UNITS, UNITS),
                       (TOLERANCE_MISS, TOLERANCE), (FORMAT_VIOLATION, FORMAT), (PARSE_FAILURE, READING)):
        if note in notes:
            return step
    if stage == "numeric":
        return TOLERANCE if ("within" in reason or "zero" in reason) else UNITS
    return {"textual": TEXT, "verifier": VERIFIER, "extract": EXTRACTION}.get(stage, MATHVERIFY)


def labelled(result: CheckResult, extracted: str = "") -> CheckResult:
    """The result with its deciding step named first in the reason (and how the answer was extracted, if it was)."""
    named = CheckResult.split_reason(result.reason)[0]  # a stage that wrote its step into the reason
    step = result.decided_by or named or decider(result.stage, result.annotations, result.reason)
    reason = result.reason if named == step else f"{step}: {result.reason}"
    if extracted:
        reason = f"{reason} (answer {extracted})"
    return result.with_(decided_by=step, reason=reason)


class ItemGrade(BaseModel):
    """One graded item inside a :class:`GradeReport`."""

    model_config = ConfigDict(frozen=True)

    id: str
    type: str
    verdict: Verdict
    reason: str
    stage: Stage
    annotations: list[str] = Field(default_factory=list)
    pred_norm: str = ""
    gt_norm: str = ""
    rel_error: float | None = None
    how: str = ""
    candidates: list[str] = Field(default_factory=list)
    decided_by: str = ""


class GradeReport(BaseModel):
    """Accuracy over a set of items (not_sure counts as not correct), per type and per item."""

    model_config = ConfigDict(frozen=True)

    accuracy: float
    by_type: dict[str, float]
    counts: dict[str, int] = Field(default_factory=dict)
    items: list[ItemGrade]
