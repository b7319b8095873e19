"""Runs: every workflow's runs started, streamed, stored, resumed, replayed, exported — one machinery for all.

Modules:

- :mod:`~ifworld.runs.registry` — named workflows (graph, initial state, final record, exports) that engines
  register; looked up by ``"<kind>.<name>"``.
- :mod:`~ifworld.runs.driver` — start, stream (typed events), resume, cancel and replay a run; the run's
  lease is held while it streams.
- :mod:`~ifworld.runs.background` — drive a run in a background thread; viewers read its live feed.
- :mod:`~ifworld.runs.steps` — replay steps (:class:`ReplayStep`): checkpoint history numbered from 1 and
  named in the user's words by the workflow's namer.
- :mod:`~ifworld.runs.export` — JSON, Markdown and self-contained HTML exports (secrets redacted, text inert).
- :mod:`~ifworld.runs.store` — the run store (runs, call log) with LangGraph's checkpointer: a SQLite file, or
  PostgreSQL (:mod:`~ifworld.runs.postgres`) for several app processes; tables in :mod:`~ifworld.runs.schema`
  (versioned), row helpers in :mod:`~ifworld.runs.rows`.
- :mod:`~ifworld.runs.copy` — copy runs between stores (SQLite ↔ PostgreSQL), verified by counts and a replay.
- :mod:`~ifworld.runs.lease` — liveness lease and heartbeat of the process driving a run.
- :mod:`~ifworld.runs.events` — typed progress events shared by pages, CLI and store.
- :mod:`~ifworld.runs.records` — the lenient base model of stored records and :class:`RecordError`.
- :mod:`~ifworld.runs.demo` — the smallest workflow, as an example of how an engine registers one.
"""

from __future__ import annotations

from ifworld.runs.background import LiveFeed, live_feed, start_background
from ifworld.runs.copy import copy_runs, verify_replay
from ifworld.runs.driver import (
    MAX_RECURSION_LIMIT,
    RECURSION_LIMIT,
    RunCancelled,
    RunFailed,
    delete_run,
    drive,
    execute,
    recursion_limit,
    replay,
    request_cancel,
    start_run,
    stream_run,
)
from ifworld.runs.events import Event, ExpertPartial, ProgressEvent, emit
from ifworld.runs.export import EXPORT_FORMATS, add_export_extra, export_run
from ifworld.runs.patience import store_patience
from ifworld.runs.records import LenientModel, RecordError, validate_record
from ifworld.runs.registry import UnknownWorkflow, Workflow, get_workflow, register
from ifworld.runs.steps import ReplayStep, StepContext, StepNamer, generic_label, state_markdown
from ifworld.runs.store import (
    KINDS,
    RESUMABLE,
    STATUSES,
    RunInfo,
    RunLive,
    RunNotFound,
    RunStore,
    StoreBusy,
    StoreError,
    get_store,
)

__all__ = [
    "EXPORT_FORMATS", "KINDS", "MAX_RECURSION_LIMIT", "RECURSION_LIMIT", "RESUMABLE", "STATUSES", "Event",
    "ExpertPartial", "LenientModel", "LiveFeed", "ProgressEvent", "RecordError", "ReplayStep", "RunCancelled",
    "RunFailed", "RunInfo",
    "RunLive", "RunNotFound", "RunStore", "StepContext", "StepNamer", "StoreBusy", "StoreError", "UnknownWorkflow",
    "Workflow",
    "add_export_extra", "copy_runs", "delete_run", "drive", "emit", "execute", "export_run", "generic_label",
    "get_store", "get_workflow",
    "live_feed", "recursion_limit", "register", "replay", "request_cancel", "start_background", "start_run",
    "state_markdown", "store_patience", "stream_run", "validate_record", "verify_replay",
]
