"""Typed edge of the belief-exchange runs: the three stored record shapes and the LLM run's progress events.

The store keeps records as plain JSON. The Runs page and the belief pages validate one here, once
(:func:`load_belief_record`), and read typed objects:

* :class:`LLMBeliefRecord` — an LLM population run (``beliefs.llm``): per-round metrics, final metrics,
  per-agent models, counts and the animation snapshots;
* :class:`SimulationRecord` — a heuristic simulation (``beliefs.simulate``): summary over runs and tidy rows;
* :class:`SweepRecord` — a sweep (``beliefs.sweep``), finished or partial: where its table is and how many
  chunks are done.

Models are lenient (unknown keys ignored, ``null`` and missing values defaulted); a record that still cannot
be read raises :class:`~ifworld.runs.records.RecordError` naming the run and the field. The ``config`` of a record
is validated by :class:`~ifworld.beliefs.config.BeliefConfig` itself, since the animation rebuilds the
domain from it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter

from ifworld.beliefs.config import BeliefConfig
from ifworld.runs.events import ProgressEvent
from ifworld.runs.records import LenientModel, RecordError, validate_record

__all__ = ["AgentDone", "AgentStarted", "BeliefRoundDone", "FinalMetrics", "LLMBeliefRecord", "RecordError",
           "RoundMetrics", "SimulationRecord", "SimulationSummary", "Snapshots", "SweepRecord",
           "load_belief_record", "load_llm_record", "parse_llm_progress"]


class RoundMetrics(LenientModel):
    """One round of an LLM run: the collective's scores and the share of STOP votes."""
    round: int
    precision: float = 0.0
    recall: float = 0.0
    f1: float = 0.0
    stop_share: float = 0.0
    accepted: int = 0


class FinalMetrics(LenientModel):
    precision: float
    recall: float
    f1: float
    rounds_used: int
    converged: bool = False
    locked_false: bool = False
    n_accepted: int = 0


class Snapshots(LenientModel):
    """Per-round arrays (as nested lists) the animation is rebuilt from; shapes are checked by numpy there."""
    beliefs: list[Any]
    partners: list[Any]
    messages: list[Any]
    votes: list[Any]
    precision: list[float]
    recall: list[float]
    f1: list[float]


class LLMBeliefRecord(LenientModel):
    """A finished ``beliefs.llm`` run (see :func:`ifworld.beliefs.graph.finalize`)."""
    config: BeliefConfig
    seed: int = 0
    models: list[str] = Field(default_factory=list)
    shares: list[float] = Field(default_factory=list)
    agent_models: list[str] = Field(default_factory=list)
    condition: str = ""
    rounds: list[RoundMetrics] = Field(default_factory=list)
    final: FinalMetrics
    accepted: list[str] = Field(default_factory=list)
    accepted_ids: list[int] = Field(default_factory=list)
    counts: dict[str, int] = Field(default_factory=dict)
    snapshots: Snapshots
    liars: list[bool] = Field(default_factory=list)
    rows: list[dict[str, Any]] = Field(default_factory=list)
    calls: int = 0
    negation_hint: bool = False  # our options (see ifworld.beliefs.llm_agents.make_params)
    initial_confidence: float | None = None  # None: a run made before these options (it started at 0.8, paired)
    pair_negations: bool = False


class SimulationSummary(LenientModel):
    """Mean and spread over runs (:data:`ifworld.beliefs.metrics.SUMMARY_KEYS`)."""
    runs: int = 1
    f1: float
    f1_std: float = 0.0
    precision: float
    precision_std: float = 0.0
    recall: float
    recall_std: float = 0.0
    rounds_mean: float
    converged_rate: float


class SimulationRecord(LenientModel):
    """A heuristic simulation (see :func:`ifworld.beliefs.workflows.simulation_record`)."""
    config: BeliefConfig
    seed: int = 0
    runs: int = 1
    condition: str = ""
    summary: SimulationSummary
    path: str = ""  # "compiled kernel" or "numpy": which code computed the rounds ("" in older records)
    rows: list[dict[str, Any]] = Field(default_factory=list)
    rows_total: int = 0


class SweepRecord(LenientModel):
    """A sweep run's record; a partial one (saved after each chunk) has only ``out`` and the chunk counts."""
    spec: dict[str, Any] = Field(default_factory=dict)
    out: str
    rows: int = 0
    chunks_done: int | None = None
    chunks_total: int | None = None
    mean_f1: float | None = None
    table1: list[dict[str, Any]] = Field(default_factory=list)


BeliefRecord = LLMBeliefRecord | SimulationRecord | SweepRecord


def load_belief_record(record: dict[str, Any] | BeliefRecord | None, run_id: str | None = None,
                       ) -> BeliefRecord | None:
    """A stored belief record as its typed model, told apart by its keys (``snapshots``: LLM run;
    ``summary``: simulation; ``out``: sweep); ``None`` for a shape none of them has (shown as raw JSON).
    Raises :class:`RecordError` naming ``run_id`` and the field when a record of a known shape is malformed."""
    if isinstance(record, LLMBeliefRecord | SimulationRecord | SweepRecord) or record is None:
        return record
    if not isinstance(record, dict):
        return validate_record(SweepRecord, record, run_id=run_id, label="belief")  # names the wrong type
    if "snapshots" in record:
        return validate_record(LLMBeliefRecord, record, run_id=run_id, label="belief")
    if "summary" in record:
        return validate_record(SimulationRecord, record, run_id=run_id, label="belief")
    if "out" in record:
        return validate_record(SweepRecord, record, run_id=run_id, label="belief")
    return None


def load_llm_record(record: dict[str, Any] | LLMBeliefRecord, run_id: str | None = None) -> LLMBeliefRecord:
    """A stored LLM population run as :class:`LLMBeliefRecord` (:class:`RecordError` if it cannot be)."""
    return validate_record(LLMBeliefRecord, record, run_id=run_id, label="belief")


# -- progress events of an LLM run -------------------------------------------------------------------
class AgentStarted(ProgressEvent):
    kind: Literal["agent_started"]
    agent: int
    model: str = ""


class AgentDone(ProgressEvent):
    """One agent's reply applied: its vote, how many facts it shared, and its problem counts."""
    kind: Literal["agent_done"]
    agent: int
    model: str = ""
    vote: str = ""
    shared: int = 0
    unknown_facts: int = 0
    malformed: int = 0
    kept_beliefs: int = 0
    extra_shares: int = 0


class BeliefRoundDone(ProgressEvent):
    kind: Literal["round_done"]
    precision: float = 0.0
    recall: float = 0.0
    f1: float = 0.0
    stop_share: float = 0.0
    accepted: int = 0


_PROGRESS = TypeAdapter(Annotated[AgentStarted | AgentDone | BeliefRoundDone, Field(discriminator="kind")])
PROGRESS_KINDS = ("agent_started", "agent_done", "round_done")


def parse_llm_progress(data: dict[str, Any]) -> AgentStarted | AgentDone | BeliefRoundDone | None:
    """The typed payload of an LLM belief run's ``progress`` event (``None`` for another producer's kind)."""
    if data.get("kind") not in PROGRESS_KINDS:
        return None
    return _PROGRESS.validate_python(data)
