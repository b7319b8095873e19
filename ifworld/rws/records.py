"""Typed edge of the RWS benchmark: the stored run record, its per-task results, grades, traces and cost rows.

Graph state and the stored record stay plain JSON (the checkpointer and the store need that). Readers — the
tables, exports, the CLI and the pages — validate a record here, once, with :func:`load_benchmark_record`,
then work with these objects. The models are lenient on purpose: unknown keys are ignored, missing sections
and ``null`` values take their defaults, and grader stages, patterns and answer types are free strings, so a
record written by an earlier version (or naming a stage this version does not know) still loads. What cannot
be read — a result without ``item_id`` or ``grade``, a verdict outside correct / incorrect / not_sure, a list
where an object belongs — raises :class:`~ifworld.runs.records.RecordError` naming the run and the field.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from ifworld.runs.records import LenientModel, RecordError, validate_record
from ifworld.rws.grading.result import Verdict

__all__ = ["BenchmarkRecord", "CostRow", "Grade", "RecordError", "Summary", "TaskResult", "TraceEntry",
           "load_benchmark_record"]

Accuracy = float | None  # None: no task in that group


class TraceEntry(LenientModel):
    """One role call of a pattern or of the LLM verifier: the role's input and raw output."""
    role: str = "?"
    step: str = ""
    input: str = ""
    output: str = ""
    status: str = "ok"  # ok | degraded | code (a step computed without a model; ifworld.rws.patterns.base.TraceStatus)
    error: str = ""


class Grade(LenientModel):
    """A task's grade as stored (:class:`ifworld.rws.grading.result.CheckResult` plus the verifier's trace)."""
    verdict: Verdict
    type: str = ""
    reason: str = ""
    pred_norm: str = ""
    gt_norm: str = ""
    stage: str = ""  # a free string: a stage this version does not know must not fail a saved record
    annotations: list[str] = Field(default_factory=list)
    rel_error: float | None = None
    how: str = ""
    candidates: list[str] = Field(default_factory=list)
    verifier_trace: list[TraceEntry] = Field(default_factory=list)


class TaskResult(LenientModel):
    """One (item, pattern, model) task: what the pattern answered, how it was graded, every role's trace."""
    item_id: str
    pattern: str
    model: str = ""
    type: str = ""
    topic: str = ""
    source: str = ""
    question: str = ""
    gold: str = ""
    raw_output: str = ""
    answer: str = ""
    grade: Grade
    annotations: list[str] = Field(default_factory=list)
    trace: list[TraceEntry] = Field(default_factory=list)
    calls: int = 0
    degraded: bool = False


class CostRow(LenientModel):
    """Calls and tokens of one (pattern, model) beside its accuracy (``*_tok``: the store scrubs "token")."""
    pattern: str = ""
    model: str = ""
    calls: int = 0
    prompt_tok: int = 0
    completion_tok: int = 0
    failed: int = 0
    total_tok: int = 0
    items: int = 0
    calls_per_item: float | None = None
    accuracy: Accuracy = None


class Summary(LenientModel):
    """Accuracy overall and by pattern / type / model and their crossings; verdict and stage counts."""
    accuracy: Accuracy = None
    n: int = 0
    by_pattern: dict[str, Accuracy] = Field(default_factory=dict)
    by_type: dict[str, Accuracy] = Field(default_factory=dict)
    by_model: dict[str, Accuracy] = Field(default_factory=dict)
    by_pattern_type: dict[str, dict[str, Accuracy]] = Field(default_factory=dict)
    by_model_pattern: dict[str, dict[str, Accuracy]] = Field(default_factory=dict)
    verdicts: dict[str, int] = Field(default_factory=dict)
    stages: dict[str, int] = Field(default_factory=dict)
    degraded: int = 0


class BenchmarkRecord(LenientModel):
    """A finished ``rws.benchmark`` run (see :func:`ifworld.rws.benchmark.build_record`)."""
    workflow: str = ""
    data: str = ""
    patterns: list[str] = Field(default_factory=list)
    models: list[str] = Field(default_factory=list)
    n_items: int = 0
    verify: bool = False
    verifier_sees_grader: bool = False
    summary: Summary = Field(default_factory=Summary)
    cost: list[CostRow] = Field(default_factory=list)
    results: list[TaskResult] = Field(default_factory=list)


def load_benchmark_record(record: dict[str, Any] | BenchmarkRecord | None,
                          run_id: str | None = None) -> BenchmarkRecord:
    """A stored benchmark record (dict) as a :class:`BenchmarkRecord` (a typed one is returned as it is):
    the one place it is validated. Raises :class:`RecordError` naming ``run_id`` and the first bad field."""
    return validate_record(BenchmarkRecord, record, run_id=run_id, label="RWS benchmark")


def load_grade(grade: dict[str, Any] | Grade) -> Grade:
    """A grade as :func:`ifworld.rws.verifier.grade_output` returns it, typed."""
    return grade if isinstance(grade, Grade) else Grade.model_validate(grade)
