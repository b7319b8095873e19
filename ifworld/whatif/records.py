"""Typed edges of the what-if engine: the run record, its rounds and frames, and the progress events.

Graph state and the stored record stay plain JSON (the checkpointer and the store need that); pages and
the CLI validate a record or event here, once, at the edge and then work with these objects — no ``.get``
chains, no guessing a record's shape. Every model ignores unknown keys and fills defaults, so records
saved by earlier versions still load.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeAlias

from pydantic import Field, SerializeAsAny, TypeAdapter, field_validator, model_validator

from ifworld.runs.events import ProgressEvent
from ifworld.runs.records import (
    RecordError as RecordError,  # re-exported: callers catch it from here
    validate_record,
)
from ifworld.whatif.budget import Budget
from ifworld.whatif.room import FACILITATOR_AUTHOR
from ifworld.whatif.run_params import RunParams, load_params
from ifworld.whatif.schemas import (
    ContentionPoint,
    DebateBrief,
    ExpertOutput,
    Report,
    Scenario,
    Synthesis,
    _Base,
)


class Frame(Synthesis):
    """The shared frame F_r after a round, as built by :func:`ifworld.whatif.frame.build_frame`: the
    resolver's synthesis plus the debate's points and the round's bookkeeping."""
    round: int = 0
    debate_points: list[ContentionPoint] = Field(default_factory=list)
    debate_summary: str = ""
    degraded: list[str] = Field(default_factory=list)
    has_synthesis: bool = False
    has_debate: bool = False
    text: str = ""


class FrameDiff(_Base):
    """What changed since the previous round (see :func:`ifworld.whatif.frame.frame_diff`)."""
    round: int = 0
    consensus_gained: list[str] = Field(default_factory=list)
    conflicts_resolved: list[str] = Field(default_factory=list)
    conflicts_opened: list[str] = Field(default_factory=list)
    branches_added: list[str] = Field(default_factory=list)
    branches_dropped: list[str] = Field(default_factory=list)
    branches_reweighted: list[str] = Field(default_factory=list)
    expert_notes: dict[str, list[str]] = Field(default_factory=dict)


class DebateRecord(_Base):
    pro: str = ""
    con: str = ""
    brief: DebateBrief | None = None


class RoomEntry(_Base):
    """A contribution of the room's that entered a round, as the run record keeps it: the fields of a
    :class:`~ifworld.whatif.room.RoomContribution` (runs saved before them carry ``name`` for the author)."""
    round: int
    after_round: int = 0
    author: str = FACILITATOR_AUTHOR
    kind: str = "note"
    tag: str = ""
    votes: int = 0
    edited: bool = False
    text: str

    @model_validator(mode="before")
    @classmethod
    def _older(cls, data: Any) -> Any:
        if isinstance(data, dict) and "author" not in data and data.get("name"):
            return {**data, "author": data["name"]}
        return data


class ReviewEdit(_Base):
    """One scenario field a person changed at the review pause (lines before → after)."""
    field: str
    label: str = ""
    before: list[str] = Field(default_factory=list)
    after: list[str] = Field(default_factory=list)


class RoundRecord(_Base):
    round: int
    experts: dict[str, ExpertOutput] = Field(default_factory=dict)
    failed: dict[str, str] = Field(default_factory=dict)
    frame: Frame | None = None
    debate: DebateRecord | None = None
    synthesis: Synthesis | None = None


class CallRecord(_Base):
    role: str = ""
    round: int | None = None
    start: float | None = None
    end: float | None = None
    prompt_tokens: int | None = 0
    completion_tokens: int | None = 0
    status: str | None = None
    latency_s: float | None = None
    retries: int | None = 0
    model: str | None = None
    error: str | None = None
    inputs: dict[str, Any] | None = None
    """What share of each named input reached the prompt (:mod:`ifworld.llm.packing`); None before 2026-11-28."""


class WhatIfRecord(_Base):
    """A what-if run record (DESIGN.md's CLI contract keys, plus what the pages show)."""
    proposition: str = ""
    method: str = "ifworld"
    scenario: Scenario | None = None
    rounds: list[RoundRecord] = Field(default_factory=list)
    report: Report | None = None
    calls: list[CallRecord] = Field(default_factory=list)
    usage: dict[str, Any] = Field(default_factory=dict)
    params: SerializeAsAny[RunParams] | None = None
    """The run's parameters, typed (:mod:`ifworld.whatif.run_params`; records saved before 2026-11-29 stored a
    plain dict: it loads as it was saved)."""
    degraded: list[str] = Field(default_factory=list)
    frame_diffs: list[FrameDiff] = Field(default_factory=list)
    judge: dict[str, Any] | None = None
    panel: list[str] = Field(default_factory=list)
    participants: list[RoomEntry] = Field(default_factory=list)
    review_notes: list[str] = Field(default_factory=list)
    review_edits: list[ReviewEdit] = Field(default_factory=list)
    budget: Budget | None = None  # a tree or debate run: its tokens against its target (matched budgets)

    @field_validator("rounds", mode="before")
    @classmethod
    def _number_rounds(cls, rounds: Any) -> Any:
        # Records saved before rounds carried their number: a round's number is its position (1-based).
        if not isinstance(rounds, list):
            return rounds
        return [{**r, "round": i + 1} if isinstance(r, dict) and r.get("round") is None else r
                for i, r in enumerate(rounds)]

    @field_validator("params", mode="plain")
    @classmethod
    def _typed_params(cls, params: Any) -> RunParams | None:
        return None if params is None or params == {} else load_params(params)

    def diff_of(self, round_no: int) -> FrameDiff | None:
        return next((d for d in self.frame_diffs if d.round == round_no), None)


class JudgeResult(_Base):
    """The judge's scores as stored in ``record["judge"]`` (flat, or under ``scores`` as the evaluation
    harness writes them); a dimension that is missing or not a number is ``None``."""
    rigor_traceability: float | None = None
    integration_causality: float | None = None
    feasibility_minimality: float | None = None
    uncertainty_adaptation: float | None = None
    decisionability: float | None = None
    overall: float | None = None
    rationale: str = ""

    @field_validator("rigor_traceability", "integration_causality", "feasibility_minimality",
                     "uncertainty_adaptation", "decisionability", "overall", mode="before")
    @classmethod
    def _number_or_none(cls, value: Any) -> float | None:
        try:
            return float(value)
        except (TypeError, ValueError):
            return None

    @classmethod
    def of(cls, judge: Any) -> JudgeResult | None:
        """The typed judgement of a record's ``judge`` entry (``None`` when the run is not judged)."""
        if not isinstance(judge, dict):
            return None
        scores = judge.get("scores")
        rationale = judge.get("rationale")
        return cls.model_validate({**(scores if isinstance(scores, dict) else judge),
                                   "rationale": rationale if isinstance(rationale, str) else ""})


def load_record(record: dict[str, Any] | WhatIfRecord | None, run_id: str | None = None) -> WhatIfRecord:
    """A stored record (dict) as a :class:`WhatIfRecord` (an empty one for ``None``): the one place a what-if
    record is validated. Records of earlier versions load (unknown keys ignored, missing ones defaulted,
    round numbers from position); one that cannot raises :class:`RecordError` naming ``run_id`` and the
    first offending field instead of failing later, deep inside a renderer."""
    return validate_record(WhatIfRecord, record, run_id=run_id, label="what-if")


# -- progress events ----------------------------------------------------------------------------------
class PhaseEvent(ProgressEvent):
    kind: Literal["phase"]
    phase: str = "working"
    part: str = ""
    violations: list[str] = Field(default_factory=list)


class ExpertStarted(ProgressEvent):
    kind: Literal["expert_started"]
    domain: str


class ExpertDone(ProgressEvent):
    kind: Literal["expert_done"]
    domain: str
    output: ExpertOutput


class BaselineStepDone(ProgressEvent):
    """A baseline's finished step (a tree-of-thought branch, a debate side): free text, not an
    :class:`ExpertOutput`, so it has its own kind rather than an ``expert_done`` without its output."""
    kind: Literal["baseline_step_done"]
    domain: str
    text: str = ""


class ExpertFailed(ProgressEvent):
    kind: Literal["expert_failed"]
    domain: str
    error: str = "failed"


class RoundDone(ProgressEvent):
    kind: Literal["round_done"]
    ok: int = 0
    failed: list[str] = Field(default_factory=list)


class FrameBuilt(ProgressEvent):
    kind: Literal["frame_built"]
    frame: Frame
    diff: FrameDiff


class ReportDone(ProgressEvent):
    kind: Literal["report_done"]


WhatIfProgress: TypeAlias = (PhaseEvent | ExpertStarted | ExpertDone | BaselineStepDone | ExpertFailed | RoundDone
                              | FrameBuilt | ReportDone)
_PROGRESS: TypeAdapter[WhatIfProgress] = TypeAdapter(Annotated[WhatIfProgress, Field(discriminator="kind")])
PROGRESS_KINDS = ("phase", "expert_started", "expert_done", "baseline_step_done", "expert_failed", "round_done",
                  "frame_built", "report_done")


def parse_progress(data: dict[str, Any]) -> Any:
    """The typed payload of a what-if ``progress`` event, or ``None`` for a kind this module does not own
    (other producers, e.g. token or partial-output events, are handled by their own consumers)."""
    if data.get("kind") not in PROGRESS_KINDS:
        return None
    return _PROGRESS.validate_python(data)


def has_content(record: dict[str, Any] | None) -> bool:
    """True for a stored what-if record with rounds or a report (what the Causal map can draw from)."""
    if not record:
        return False
    try:
        rec = load_record(record)
    except RecordError:
        return True  # a malformed record is listed, so the page can name what is wrong with it
    return bool(rec.rounds or rec.report)
