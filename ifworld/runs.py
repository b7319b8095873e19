"""Start, stream, resume, replay and export runs of any registered workflow.

A *workflow* is a named recipe: how to build its LangGraph ``StateGraph`` from params, the initial state,
how to turn the final state into the run record, and how to render that record as Markdown. Engines
register theirs in a module named in :data:`WORKFLOW_MODULES`; this module needs no engine imports.
Resuming is LangGraph's own: stream ``None`` into the same thread id and only unfinished nodes run.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from langgraph.types import Command

from ifworld.config import Settings, load_settings
from ifworld.events import STREAM_MODES, Event, events_from_stream
from ifworld.llm import UsageTracker, usage_totals
from ifworld.store import RunInfo, RunStore, get_store

# Engines register their workflows on import; names are "<module key>.<workflow>".
WORKFLOW_MODULES = {
    "whatif": "ifworld.whatif.workflows",
    "rws": "ifworld.rws.workflows",
    "beliefs": "ifworld.beliefs.workflows",
    "demo": "ifworld.demo",
}
RECURSION_LIMIT = 200
# Graph worker threads beyond the model-call limit, so join/bookkeeping nodes never wait behind a full
# round of model calls (the llm layer's limiter still caps concurrent requests at max_concurrency).
NODE_HEADROOM = 2


@dataclass(frozen=True)
class Workflow:
    """How to run, finish and render one kind of run.

    ``build(params, settings)`` returns an uncompiled ``StateGraph``; ``initial(params)`` its input;
    ``finalize(state, params, calls)`` the final record; ``markdown(record)`` a human export.
    """

    name: str
    kind: str
    build: Callable[[dict[str, Any], Settings], Any]
    initial: Callable[[dict[str, Any]], dict[str, Any]]
    finalize: Callable[[dict[str, Any], dict[str, Any], list[dict]], dict[str, Any]]
    markdown: Callable[[dict[str, Any]], str] | None = None
    title: Callable[[dict[str, Any]], str] = lambda p: ""
    cache: bool = False


_REGISTRY: dict[str, Workflow] = {}


def register(workflow: Workflow) -> Workflow:
    _REGISTRY[workflow.name] = workflow
    return workflow


def get_workflow(name: str) -> Workflow:
    if name not in _REGISTRY:
        module = WORKFLOW_MODULES.get(name.split(".")[0])
        if module:
            importlib.import_module(module)
    if name not in _REGISTRY:
        raise KeyError(f"unknown workflow {name!r}")
    return _REGISTRY[name]


class RunFailed(RuntimeError):
    """A run stopped with an error; everything finished so far is kept and ``ifworld runs resume`` continues."""

    def __init__(self, run_id: str, message: str) -> None:
        super().__init__(f"run {run_id} failed: {message} — resume with `ifworld runs resume {run_id}`")
        self.run_id = run_id


def start_run(name: str, params: dict[str, Any], *, store: RunStore | None = None, title: str | None = None) -> str:
    """Create the run row (status pending) and return its id; nothing runs yet."""
    wf = get_workflow(name)
    store = store or get_store()
    return store.create_run(wf.kind, wf.name, params, title or wf.title(params))


def _graph(wf: Workflow, params: dict[str, Any], store: RunStore, settings: Settings) -> Any:
    return store.compile(wf.build(params, settings), cache=wf.cache or bool(params.get("cache")))


def stream_run(run_id: str, *, store: RunStore | None = None, settings: Settings | None = None,
               resume: bool | None = None, modes: tuple[str, ...] = STREAM_MODES,
               resume_value: Any = None) -> Iterator[Event]:
    """Run (or resume) a stored run, yielding events; the final record is saved to the store.

    ``resume=None`` resumes when a checkpoint exists. Errors become a ``run_failed`` event and a
    :class:`RunFailed` exception after the status is saved, so callers can show and resume it. A graph
    that pauses for a person (LangGraph ``interrupt``) ends the stream with a ``run_paused`` event carrying
    what it asks, and status "paused"; resuming with ``resume_value`` hands the person's answer back.
    """
    store = store or get_store()
    settings = settings or load_settings()
    info = store.get_run(run_id)
    wf = get_workflow(info.workflow)
    graph = _graph(wf, info.params, store, settings)
    resume = store.has_checkpoint(run_id) if resume is None else resume
    tracker = UsageTracker(sink=lambda rec: store.add_call(run_id, rec.to_dict()))
    config = {"configurable": {"thread_id": run_id}, "callbacks": [tracker], "recursion_limit": RECURSION_LIMIT,
              "max_concurrency": settings.max_concurrency + NODE_HEADROOM}
    store.set_status(run_id, "running")
    yield Event(type="run_started", run_id=run_id, data={"resumed": resume, "workflow": wf.name})
    try:
        start = Command(resume=resume_value) if resume_value is not None else (
            None if resume else wf.initial(info.params))
        chunks = graph.stream(start, config, stream_mode=list(modes))
        yield from events_from_stream(run_id, chunks)
        state = graph.get_state(config)
        asks = [i.value for task in state.tasks for i in (task.interrupts or ())]
        if asks:
            store.set_status(run_id, "paused")
            yield Event(type="run_paused", run_id=run_id, data={"asks": asks})
            return
        if state.next:
            raise RuntimeError(f"stopped before finishing (next: {', '.join(state.next)})")
        calls = store.calls(run_id)
        record = wf.finalize(dict(state.values), info.params, calls)
    except Exception as exc:  # noqa: BLE001 — any failure is stored and reported, never lost
        message = f"{type(exc).__name__}: {exc}"
        store.set_status(run_id, "interrupted", error=message[:2000])
        yield Event(type="run_failed", run_id=run_id, data={"error": message})
        raise RunFailed(run_id, message) from exc
    store.finish_run(run_id, record, usage_totals(calls))
    yield Event(type="run_finished", run_id=run_id, data={"record": record})


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
    return store.get_run(run_id).record or {}


def replay(run_id: str, *, store: RunStore | None = None, settings: Settings | None = None) -> list[dict[str, Any]]:
    """The run's successive states from its checkpoint history (oldest first), for step-by-step replay.

    Each item: ``{"step": n, "nodes": [names that wrote], "values": state}``.
    """
    store = store or get_store()
    settings = settings or load_settings()
    info = store.get_run(run_id)
    graph = _graph(get_workflow(info.workflow), info.params, store, settings)
    steps = []
    for snap in store.history(graph, run_id):
        writes = (snap.metadata or {}).get("writes") or {}
        nodes = sorted(writes) if writes else [t.name for t in snap.tasks if t.result is not None]
        steps.append({"step": (snap.metadata or {}).get("step", len(steps)), "nodes": nodes,
                      "values": dict(snap.values), "next": list(snap.next)})
    return steps


def export_run(run_id: str, fmt: str = "json", *, store: RunStore | None = None) -> str:
    """Markdown or JSON export of a run (params, status, record, calls); never contains secrets."""
    store = store or get_store()
    info = store.get_run(run_id)
    calls = store.calls(run_id)
    if fmt == "json":
        return json.dumps(export_payload(info, calls), indent=2, default=str)
    if fmt != "md":
        raise ValueError(f"unknown export format {fmt!r}; use md or json")
    body = ""
    try:
        wf = get_workflow(info.workflow)
        if wf.markdown and info.record:
            body = wf.markdown(info.record)
    except KeyError:
        pass
    return _markdown(info, calls, body)


def export_payload(info: RunInfo, calls: list[dict]) -> dict[str, Any]:
    return {"id": info.id, "kind": info.kind, "workflow": info.workflow, "title": info.title,
            "status": info.status, "created": info.created_iso, "params": info.params, "error": info.error,
            "record": info.record, "usage": info.usage or usage_totals(calls),
            "calls": [{k: v for k, v in c.items() if k != "output"} for c in calls]}


def _markdown(info: RunInfo, calls: list[dict], body: str) -> str:
    usage = info.usage or usage_totals(calls)
    lines = [f"# {info.title}", "", f"- Run: `{info.id}` ({info.kind}, {info.workflow})",
             f"- Status: {info.status}", f"- Created: {info.created_iso}",
             f"- Model calls: {usage.get('calls', 0)}, tokens in/out: {usage.get('prompt_tokens', 0)}"
             f"/{usage.get('completion_tokens', 0)}", "", "## Parameters", "", "```json",
             json.dumps(info.params, indent=2, default=str), "```", ""]
    if info.error:
        lines += ["## Error", "", info.error, ""]
    if body:
        lines += [body]
    elif info.record:
        lines += ["## Record", "", "```json", json.dumps(info.record, indent=2, default=str)[:200_000], "```"]
    return "\n".join(lines) + "\n"
