"""Start, stream, resume, replay and export runs of any registered workflow.

A *workflow* is a named recipe: how to build its LangGraph ``StateGraph`` from params, the initial state,
how to turn the final state into the run record, and how to render that record as Markdown. Engines
register theirs in a module named in :data:`WORKFLOW_MODULES`; this module needs no engine imports.
Resuming is LangGraph's own: stream ``None`` into the same thread id and only unfinished nodes run.

A driver holds the run's lease (:mod:`ifworld.runs.lease`) for as long as it streams: a second driver is refused
with :class:`~ifworld.runs.store.RunLive`, and a driver that stops (error, closed generator, process gone) leaves
the run ``interrupted``. :func:`request_cancel` stops a live run at its next step boundary (``cancelled``,
resumable). Events, errors and exports pass through :func:`ifworld.redact.redact`.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from langgraph.types import Command

from ifworld.access import OPERATOR, Caller, require_facilitator
from ifworld.config import Settings, load_settings
from ifworld.errors import StepFailed, WorkflowError
from ifworld.llm.usage import UsageTracker, usage_totals
from ifworld.redact import known_secrets, redact, safe_error
from ifworld.runs.events import STREAM_MODES, Event, events_from_stream
from ifworld.runs.lease import Lease
from ifworld.runs.registry import Workflow, get_workflow
from ifworld.runs.steps import ReplayStep, history_steps
from ifworld.runs.store import RunStore, get_store

__all__ = ["RunCancelled", "RunFailed", "delete_run", "drive", "execute", "replay", "request_cancel", "start_run",
           "stream_run"]

RECURSION_LIMIT = 200
"""Floor of a run's LangGraph recursion limit (supersteps per invocation)."""
MAX_RECURSION_LIMIT = 100_000
CANCEL_POLL_S = 0.2
"""Between step updates, the cancel flag is read at most this often (token chunks arrive far faster)."""
# Graph worker threads beyond the model-call limit, so join/bookkeeping nodes never wait behind a full
# round of model calls (the llm layer's limiter still caps concurrent requests at max_concurrency).
NODE_HEADROOM = 2


class RunFailed(WorkflowError, RuntimeError):
    """A run stopped with an error; everything finished so far is kept and ``ifworld runs resume`` continues."""

    def __init__(self, run_id: str, message: str) -> None:
        super().__init__(f"run {run_id} failed: {safe_error(message)} — resume with `ifworld runs resume {run_id}`")
        self.run_id = run_id


class RunCancelled(RunFailed):
    """The run stopped because a cancel was requested; it is resumable."""

    def __init__(self, run_id: str) -> None:
        RuntimeError.__init__(self, f"run {run_id} was cancelled — resume with `ifworld runs resume {run_id}`")
        self.run_id = run_id


def start_run(name: str, params: dict[str, Any], *, caller: Caller = OPERATOR, store: RunStore | None = None,
              title: str | None = None) -> str:
    """Create the run row (status pending) and return its id; nothing runs yet. The facilitator's alone."""
    require_facilitator(caller, "start a run")
    wf = get_workflow(name)
    store = store or get_store()
    return store.create_run(wf.kind, wf.name, params, title or wf.title(params))


def _graph(wf: Workflow, params: dict[str, Any], store: RunStore, settings: Settings) -> Any:
    return store.compile(wf.build(params, settings), cache=wf.cache or bool(params.get("cache")))


def loop_count(params: Any, paths: Iterable[str]) -> int:
    """Sum of the positive integers at the workflow's declared loop params (:attr:`Workflow.loop_params`, dotted
    paths into nested configs); a path the params lack counts 0."""
    total = 0
    for path in paths:
        value = params
        for key in path.split("."):
            value = value.get(key) if isinstance(value, dict) else None
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            total += value
    return total


def recursion_limit(wf: Workflow, params: dict[str, Any], graph: Any) -> int:
    """The run's recursion limit, derived from the configured graph: every node may run once per loop
    iteration, so ``nodes × (1 + loop parameters)`` supersteps, doubled for gates' bounded retries. The loop
    parameters are the ones the workflow declares (:attr:`Workflow.loop_params`): the long configured runs they
    allow are not cut short."""
    if wf.max_steps is not None:
        steps = int(wf.max_steps(params))
    else:
        nodes = max(1, len(getattr(graph, "nodes", {}) or {}))
        steps = 2 * nodes * (1 + loop_count(params, wf.loop_params))
    return max(RECURSION_LIMIT, min(MAX_RECURSION_LIMIT, steps + RECURSION_LIMIT // 4))


def request_cancel(run_id: str, *, store: RunStore | None = None) -> bool:
    """Ask a live run to stop at its next step boundary (it becomes ``cancelled``, resumable).

    Returns True when the run is live (a driver will see the request), False otherwise.
    """
    return (store or get_store()).request_cancel(run_id)


def _watch(chunks: Iterable[tuple[str, Any]], store: RunStore, run_id: str,
           stop: dict[str, str]) -> Iterator[tuple[str, Any]]:
    """Pass chunks through; stop at a step boundary when the run is cancelled or deleted."""
    last = 0.0
    for mode, payload in chunks:
        yield mode, payload
        now = time.monotonic()
        if mode == "updates" or now - last > CANCEL_POLL_S:
            last = now
            flag = store.cancel_requested(run_id)
            if flag is None or flag:
                stop["why"] = "deleted" if flag is None else "cancelled"
                return


def stream_run(run_id: str, *, caller: Caller = OPERATOR, store: RunStore | None = None,
               settings: Settings | None = None, resume: bool | None = None, modes: tuple[str, ...] = STREAM_MODES,
               resume_value: Any = None) -> Iterator[Event]:
    """Run (or resume) a stored run, yielding events; the final record is saved to the store.

    ``resume=None`` resumes when a checkpoint exists. Raises :class:`RunLive` (before any event) when
    another driver holds the run. Errors become a ``run_failed`` event and a :class:`RunFailed` exception
    after the status is saved, so callers can show and resume it; a cancel ends with ``run_cancelled``. A
    graph that pauses for a person (LangGraph ``interrupt``) ends the stream with a ``run_paused`` event
    carrying what it asks, and status "paused"; resuming with ``resume_value`` hands the person's answer back.
    Only the facilitator drives a run (``caller``, checked before anything runs).
    """
    require_facilitator(caller, "run or resume a run")
    store = store or get_store()
    settings = settings or load_settings()
    info = store.get_run(run_id)
    wf = get_workflow(info.workflow)
    graph = _graph(wf, info.params, store, settings)
    tracker = UsageTracker(sink=lambda rec: store.add_call(run_id, rec.to_dict()))
    config = {"configurable": {"thread_id": run_id}, "callbacks": [tracker],
              "recursion_limit": recursion_limit(wf, info.params, graph),
              "max_concurrency": settings.max_concurrency + NODE_HEADROOM}
    lease = Lease(store, run_id, store.acquire_lease(run_id))
    lease.start()
    resume = store.has_checkpoint(run_id) if resume is None else resume
    stop: dict[str, str] = {}
    try:
        lease.idle()
        yield Event(type="run_started", run_id=run_id, data={"resumed": resume, "workflow": wf.name})
        lease.busy()
        start: Command[Any] | dict[str, Any] | None  # an answer to a pause, nothing (resume), or the input
        if resume_value is not None:
            start = Command(resume=resume_value)
        else:
            start = None if resume else wf.initial(info.params)
        chunks = graph.stream(start, config, stream_mode=list(modes))
        secrets = _Secrets()
        try:
            for event in events_from_stream(run_id, _watch(chunks, store, run_id, stop)):
                lease.idle()
                yield event.model_copy(update={"data": redact(event.data, secrets.now())})
                lease.busy()
        finally:
            chunks.close()  # stop the graph at this step boundary (cancel, delete, closed consumer)
        if stop.get("why") == "cancelled":
            store.release_lease(run_id, lease.token, "cancelled", error="cancelled by request")
            lease.idle()
            yield Event(type="run_cancelled", run_id=run_id, data={"resumable": True})
            return
        if stop.get("why") == "deleted":
            return
        state = graph.get_state(config)
        asks = [i.value for task in state.tasks for i in (task.interrupts or ())]
        if asks:
            store.release_lease(run_id, lease.token, "paused")
            lease.idle()
            yield Event(type="run_paused", run_id=run_id, data={"asks": redact(asks)})
            return
        if state.next:
            raise StepFailed(f"stopped before finishing (next: {', '.join(state.next)})")
        calls, warnings = _call_log(store, run_id, tracker)
        record = wf.finalize(dict(state.values), info.params, calls)
        if warnings:
            record = {**record, "warnings": [*record.get("warnings", []), *warnings]}
        store.finish_run(run_id, record, usage_totals(calls))
    except Exception as exc:  # noqa: BLE001 — any failure is stored and reported, never lost
        message = safe_error(exc)
        store.release_lease(run_id, lease.token, "failed", error=message)
        lease.idle()
        yield Event(type="run_failed", run_id=run_id, data={"error": message})
        raise RunFailed(run_id, message) from None
    finally:
        lease.stop()
        _after_drive(store, run_id, lease, tracker)
    lease.idle()
    yield Event(type="run_finished", run_id=run_id,
                data={"record": redact(record), "warnings": record.get("warnings", [])})


class _Secrets:
    """The secrets to mask in a run's events, looked up again at most every :data:`SECRETS_REFRESH_S`: a reply
    streams as one event per token (250,000 for a 2 MB reply), and each lookup reads the environment and stats the
    secrets files. The run's own key is known before its first event; a key registered meanwhile (typed in a
    sidebar) is masked within the refresh."""

    def __init__(self) -> None:
        self._at = -SECRETS_REFRESH_S
        self._secrets: tuple[str, ...] = ()

    def now(self) -> tuple[str, ...]:
        if time.monotonic() - self._at >= SECRETS_REFRESH_S:
            self._at, self._secrets = time.monotonic(), known_secrets()
        return self._secrets


SECRETS_REFRESH_S = 0.5


def _call_log(store: RunStore, run_id: str, tracker: UsageTracker) -> tuple[list[dict[str, Any]], list[str]]:
    """The run's calls for its record: the stored call log, plus any call whose row could not be written
    (taken from memory) with a warning saying so — an answered call is never silently missing."""
    lost = tracker.retry_lost()
    calls = store.calls(run_id)
    if not lost:
        return calls, []
    stored = {c.get("call_id") for c in calls}
    kept = [r.to_dict() for r in tracker.records() if r.call_id in lost and r.call_id not in stored]
    reason = next(iter(lost.values()))
    warning = (f"{len(lost)} answered call(s) could not be written to the run store's call log ({reason}); the "
               "record's calls and usage include them from memory")
    return sorted([*calls, *kept], key=lambda c: c.get("start") or 0.0), [warning]


def _after_drive(store: RunStore, run_id: str, lease: Lease, tracker: UsageTracker) -> None:
    """However the driver ended: call records the store refused are tried once more, a still-running status
    becomes interrupted (e.g. the consumer closed the generator when its page was left), and a run deleted
    meanwhile loses the checkpoints written since."""
    try:
        tracker.retry_lost()
        store.release_lease(run_id, lease.token, "interrupted")
        if store.cancel_requested(run_id) is None:
            store.delete_checkpoints(run_id)
    except Exception:  # noqa: BLE001 — cleanup must not mask the driver's own outcome
        pass


def execute(name: str, params: dict[str, Any], *, store: RunStore | None = None, settings: Settings | None = None,
            on_event: Callable[[Event], None] | None = None, title: str | None = None) -> dict[str, Any]:
    """Start a run and drive it to the end; returns the final record (raises :class:`RunFailed`)."""
    store = store or get_store()
    run_id = start_run(name, params, store=store, title=title)
    print(f"run id: {run_id}", file=sys.stderr, flush=True)
    return drive(run_id, store=store, settings=settings, on_event=on_event)


def drive(run_id: str, *, store: RunStore | None = None, settings: Settings | None = None,
          on_event: Callable[[Event], None] | None = None, resume_value: Any = None) -> dict[str, Any]:
    """Consume :func:`stream_run` to the end (or to a pause) and return the stored record."""
    store = store or get_store()
    for event in stream_run(run_id, store=store, settings=settings, resume_value=resume_value):
        if on_event:
            on_event(event)
        if event.type == "run_cancelled":
            raise RunCancelled(run_id)
        for warning in event.data.get("warnings", []) if event.type == "run_finished" else []:
            print(f"warning: run {run_id}: {warning}", file=sys.stderr, flush=True)
    return store.get_run(run_id).record or {}


def delete_run(run_id: str, *, caller: Caller = OPERATOR, store: RunStore | None = None) -> None:
    """Delete a run with its calls, checkpoints and workshop (the facilitator's alone; see
    :meth:`RunStore.delete_run`)."""
    require_facilitator(caller, "delete a run")
    (store or get_store()).delete_run(run_id)


def replay(run_id: str, *, store: RunStore | None = None, settings: Settings | None = None) -> list[ReplayStep]:
    """The run's steps from its checkpoint history (oldest first), for step-by-step replay: numbered from 1
    without LangGraph's input pseudo-step, each with the state it produced and a name from the workflow's
    namer (:attr:`Workflow.step_label`, else the node names). See :func:`ifworld.runs.steps.history_steps`."""
    store = store or get_store()
    settings = settings or load_settings()
    info = store.get_run(run_id)
    wf = get_workflow(info.workflow)
    return history_steps(store.history(_graph(wf, info.params, store, settings), run_id), wf.step_label)
