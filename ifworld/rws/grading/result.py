"""The grader's small frozen result types, shared by every stage and by the CLI/pages."""

from __future__ import annotations

from typing import Literal

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

    def with_(self, **changes: object) -> CheckResult:
        """Return a copy with some fields replaced (the result itself is immutable)."""
        return self.model_copy(update=changes)


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


class GradeReport(BaseModel):
    """Accuracy over a set of items (not_sure counts as not correct), per type and per item."""

    model_config = ConfigDict(frozen=True)

    accuracy: float
    by_type: dict[str, float]
    counts: dict[str, int] = Field(default_factory=dict)
    items: list[ItemGrade]
