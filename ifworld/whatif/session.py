"""The what-if session: explicit states, the legal transitions defined once, every transition recorded.

A what-if run is a session that moves through these states (``docs/whatif.md`` has the diagram)::

    draft ─start→ refining ─→ review ─continue/apply_edits→ round k ─→ between_rounds ─continue→ round k+1
                      │                                        │                                    …
                      └──────────────(no review pause)─────────┘──→ reporting ─→ completed
    running or paused ─cancel→ cancelled;  running ─error→ failed;  running ─owner gone→ interrupted
    cancelled | failed | interrupted ─resume→ (where it stopped)

The page, the CLI, the resume path and the workshop views call the same functions here; an action that the
current state does not allow is refused with :class:`SessionError` (a message a person can act on), and
every transition — by a person (``start``, ``continue``, ``apply_edits``, ``cancel``, ``resume``) or by the
engine (a round starting, a pause, the end) — is written to the run store with its time and source.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict

from ifworld import runs
from ifworld.access import OPERATOR, Caller, require_facilitator
from ifworld.config import Settings, load_settings
from ifworld.errors import InputError, WorkflowError
from ifworld.runs import Event, RunInfo, RunStore, get_store
from ifworld.whatif.methods import REGISTRY as METHOD_REGISTRY
from ifworld.whatif.review import check_answer


class State(StrEnum):
    DRAFT = "draft"
    REFINING = "refining"
    REVIEW = "review"
    ROUND = "round"
    BETWEEN_ROUNDS = "between_rounds"
    REPORTING = "reporting"
    COMPLETED = "completed"
    CANCELLED = "cancelled"
    FAILED = "failed"
    INTERRUPTED = "interrupted"


class Action(StrEnum):
    """What a person can ask of a session (the engine's own moves are recorded as ``progress``)."""

    START = "start"
    CONTINUE = "continue"
    APPLY_EDITS = "apply_edits"
    CANCEL = "cancel"
    RESUME = "resume"


RUNNING = frozenset({State.REFINING, State.ROUND, State.REPORTING})
PAUSED = frozenset({State.REVIEW, State.BETWEEN_ROUNDS})
STOPPED = frozenset({State.CANCELLED, State.FAILED, State.INTERRUPTED})

# The one table of what a person may do in each state.
ALLOWED: dict[Action, frozenset[State]] = {
    Action.START: frozenset({State.DRAFT}),
    Action.CONTINUE: PAUSED,
    Action.APPLY_EDITS: frozenset({State.REVIEW}),
    Action.CANCEL: RUNNING | PAUSED,
    Action.RESUME: STOPPED,
}
SOURCES = ("page", "cli", "workshop", "engine")
PERSON_MOVES = frozenset({Action.START, Action.CONTINUE, Action.APPLY_EDITS, Action.RESUME})
STARTING_GRACE_S = 30.0
"""How long a person's start/continue/resume reads as running before its driver has taken the run's lease."""

LABELS: dict[State, str] = {
    State.DRAFT: "Not started", State.REFINING: "Refining the proposition", State.REVIEW: "Paused for review",
    State.ROUND: "Round {round} running", State.BETWEEN_ROUNDS: "Paused after round {round}",
    State.REPORTING: "Writing the report", State.COMPLETED: "Completed", State.CANCELLED: "Cancelled",
    State.FAILED: "Failed", State.INTERRUPTED: "Interrupted (its process stopped)",
}
_REFUSALS: dict[Action, str] = {
    Action.START: "it has already started", Action.CONTINUE: "it is not paused",
    Action.APPLY_EDITS: "it is not paused for review", Action.CANCEL: "nothing to cancel",
    Action.RESUME: "only a cancelled, failed or interrupted run can be resumed",
}


def report_nodes() -> tuple[str, ...]:
    """Prefixes of the nodes that write the final report (each method's spec: IF-World's report parts, the
    baselines' last step)."""
    return tuple(prefix for spec in METHOD_REGISTRY for prefix in spec.report_nodes)


STATUS_STATES = {"completed": State.COMPLETED, "cancelled": State.CANCELLED, "failed": State.FAILED,
                 "interrupted": State.INTERRUPTED, "pending": State.DRAFT}


class SessionError(WorkflowError, ValueError):
    """An action the session's current state does not allow (the message names the state)."""


class Transition(BaseModel):
    """One recorded move of a session."""

    model_config = ConfigDict(frozen=True)

    at: float
    from_state: str
    to_state: str
    action: str
    source: str
    round: int | None = None
    detail: str = ""


class Session(BaseModel):
    """A what-if run seen as a session: its state (and round), what a person may do now, its history."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    state: State
    round: int | None = None
    rounds: int = 0
    method: str = "ifworld"
    proposition: str = ""
    planned_panel: list[str] = []  # the panel the run was started with
    status: str = ""
    error: str = ""
    transitions: list[Transition] = []

    @property
    def panel(self) -> list[str]:
        """The expert panel as last set (the refiner may add experts; a review may change them)."""
        for t in reversed(self.transitions):
            if t.action == "panel":
                try:
                    return [str(d) for d in json.loads(t.detail)]
                except ValueError:  # a detail cut by the store's cap: fall back to the planned panel
                    break
        return list(self.planned_panel)

    @property
    def label(self) -> str:
        text = LABELS[self.state].format(round=self.round or 1)
        if self.state == State.ROUND and self.rounds > 1:
            text = text.replace("running", f"of {self.rounds} running")
        return text

    @property
    def allowed(self) -> frozenset[Action]:
        return frozenset(a for a, states in ALLOWED.items() if self.state in states)

    def check(self, action: Action) -> None:
        """Raise :class:`SessionError` unless ``action`` is legal now."""
        if self.state not in ALLOWED[action]:
            raise SessionError(f"run {self.run_id} is {self.state.value.replace('_', ' ')}; "
                               f"cannot {action.value.replace('_', ' ')}: {_REFUSALS[action]}")


def _state_of(info: RunInfo, last: Transition | None, store: RunStore) -> tuple[State, int | None]:
    """The session state from the store's status, refined by the last recorded transition."""
    if last is not None and last.action in PERSON_MOVES and last.to_state in RUNNING and info.status != "running" \
            and time.time() - last.at < STARTING_GRACE_S and info.status != "completed":
        return State(last.to_state), last.round  # a person's move whose driver is starting right now
    if last is not None and last.to_state == State.CANCELLED and info.status in ("running", "paused"):
        return State.CANCELLED, last.round  # cancel asked: the run stops at its next step
    if info.status in STATUS_STATES:
        return STATUS_STATES[info.status], last.round if last else None
    recorded = State(last.to_state) if last and last.to_state in State.__members__.values() else None
    if info.status == "paused":
        if recorded in PAUSED:
            return recorded, last.round if last else None
        asks = _pending_kinds(info, store)  # a run paused before sessions were recorded
        return (State.REVIEW, None) if "review" in asks else (State.BETWEEN_ROUNDS, None)
    if recorded in RUNNING:
        return recorded, last.round if last else None
    return State.REFINING, None


def _pending_kinds(info: RunInfo, store: RunStore) -> list[str]:
    try:
        return [str(a.get("kind", "")) for a in pending_asks(info.id, store=store)]
    except Exception:  # noqa: BLE001 — an unreadable checkpoint: show the between-rounds form, the safer one
        return []


def load_session(run_id: str, store: RunStore | None = None) -> Session:
    """The session of a stored what-if run (raises ``KeyError`` for an unknown id)."""
    store = store or get_store()
    info = store.get_run(run_id)
    history = [Transition.model_validate(t) for t in store.transitions(run_id)]
    state, rnd = _state_of(info, history[-1] if history else None, store)
    return Session(run_id=run_id, state=state, round=rnd, rounds=int(info.params.get("rounds") or 0),
                   method=str(info.params.get("method") or "ifworld"), status=info.status,
                   proposition=str(info.params.get("proposition") or info.title),
                   planned_panel=[str(d) for d in info.params.get("experts") or []],
                   error=info.error or "", transitions=history)


def record(store: RunStore, run_id: str, to: State, action: str, source: str, *, round_no: int | None = None,
           detail: str = "", before: State | None = None) -> None:
    """Write one transition (its ``from`` is the state before, read from the store unless given)."""
    if source not in SOURCES:
        raise InputError(f"unknown source {source!r}; use one of {', '.join(SOURCES)}")
    if before is None:
        last = store.transitions(run_id)
        before = State(last[-1]["to_state"]) if last else State.DRAFT
    store.add_transition(run_id, from_state=before.value, to_state=to.value, action=action, source=source,
                         round=round_no, detail=detail)


def start_session(workflow: str, params: dict[str, Any], *, source: str, caller: Caller = OPERATOR,
                  store: RunStore | None = None) -> str:
    """Create a session's run (draft → refining is recorded when it is driven); returns the run id.
    The facilitator's alone (``caller``)."""
    return runs.start_run(workflow, params, store=store or get_store(), caller=caller)


def cancel_session(run_id: str, *, source: str, caller: Caller = OPERATOR,
                   store: RunStore | None = None) -> Session:
    """Cancel a running or paused session (a running one stops at its next step; it stays resumable).
    The facilitator's alone (``caller``)."""
    require_facilitator(caller, "cancel a run")
    store = store or get_store()
    session = load_session(run_id, store)
    session.check(Action.CANCEL)
    live = runs.request_cancel(run_id, store=store)
    if not live:  # paused, or its driver is between steps: nothing will observe the flag, so stop it here
        store.set_status(run_id, "cancelled", error="cancelled by request")
    record(store, run_id, State.CANCELLED, Action.CANCEL, source, round_no=session.round, before=session.state)
    return load_session(run_id, store)


def paused_state(run_id: str, settings: Settings | None = None,
                 store: RunStore | None = None) -> tuple[list[dict], dict[str, Any]]:
    """(what a paused run is waiting for — empty when it is not paused, the state so far)."""
    store = store or get_store()
    info = store.get_run(run_id)
    graph = store.compile(runs.get_workflow(info.workflow).build(info.params, settings or load_settings()))
    state = graph.get_state({"configurable": {"thread_id": run_id}})
    return [i.value for task in state.tasks for i in (task.interrupts or ())], dict(state.values)


def pending_asks(run_id: str, settings: Settings | None = None, store: RunStore | None = None) -> list[dict]:
    """What a paused run is waiting for (empty when it is not paused)."""
    return paused_state(run_id, settings, store)[0]


def action_for(session: Session, answer: Any = None) -> Action:
    """The person's action that continues ``session`` with ``answer`` (what ``ifworld runs resume`` means)."""
    if session.state == State.DRAFT:
        return Action.START
    if session.state in STOPPED:
        return Action.RESUME
    if session.state == State.REVIEW and isinstance(answer, dict) and (
            answer.get("action") == "edit" or "scenario" in answer or "panel" in answer):
        return Action.APPLY_EDITS
    return Action.CONTINUE


def _answer_for(action: Action, answer: Any) -> Any:
    if action == Action.CONTINUE and answer is None:
        return {"action": "continue"}
    if action == Action.APPLY_EDITS:
        return {**(answer or {}), "action": "edit"}
    return answer


def checked_answer(run_id: str, action: Action, answer: Any = None, *, store: RunStore | None = None) -> Any:
    """The answer for a paused session, checked against what it asks: pages and the CLI call this before
    continuing, so a person sees the problem at once (raises SessionError / ReviewError)."""
    store = store or get_store()
    load_session(run_id, store).check(action)
    answer = _answer_for(action, answer)
    for ask in pending_asks(run_id, store=store):
        check_answer(ask, answer)
    return answer


def drive_session(run_id: str, *, source: str, caller: Caller = OPERATOR, action: Action = Action.START,
                  answer: Any = None, store: RunStore | None = None,
                  settings: Settings | None = None) -> Iterator[Event]:
    """Drive a session for ``action`` (start, continue / apply_edits with ``answer``, resume) and record the
    engine's moves as they happen; returns the run's events as an iterator.

    The action is checked and the person's move recorded at once, before the first event is asked for (a page
    that hands the iterator to a background thread re-renders in the new state straight away); an illegal
    action raises :class:`SessionError` and nothing runs. Only the facilitator drives a run (``caller``;
    :class:`~ifworld.access.AccessDenied` before anything is recorded).
    """
    require_facilitator(caller, f"{action.value.replace('_', ' ')} a run")
    store = store or get_store()
    session = load_session(run_id, store)
    session.check(action)
    answer = _answer_for(action, answer)  # an answer the run cannot use is asked again by the run, with why
    tracker = _Tracker(store, run_id, source, session.state, session.round)
    tracker.person(action)
    stream = runs.stream_run(run_id, caller=caller, store=store, settings=settings, resume_value=answer,
                             resume=False if action == Action.START else None)
    return _tracked(stream, tracker)


def _tracked(stream: Iterator[Event], tracker: _Tracker) -> Iterator[Event]:
    ended = False
    try:
        for event in stream:
            tracker.observe(event)
            ended = ended or event.type in ("run_finished", "run_paused", "run_cancelled", "run_failed")
            yield event
    finally:
        close = getattr(stream, "close", None)
        if close:
            close()
        if not ended:
            tracker.move(State.INTERRUPTED, "stopped", detail="the driver stopped before the run ended")


def _last_active(history: list[dict[str, Any]]) -> tuple[State, int | None]:
    """The last running state a session was in (where a resume continues), refining if none."""
    for t in reversed(history):
        if t["to_state"] in RUNNING:
            return State(t["to_state"]), t.get("round")
    return State.REFINING, 0


class _Tracker:
    """Turns a run's events into recorded session transitions (engine moves, source ``engine``)."""

    def __init__(self, store: RunStore, run_id: str, source: str, state: State, round_no: int | None) -> None:
        self.store, self.run_id, self.source = store, run_id, source
        self.state, self.round = state, round_no

    def move(self, to: State, action: str, *, source: str = "engine", round_no: int | None = None,
             detail: str = "") -> None:
        round_no = self.round if round_no is None else round_no
        if to == self.state and round_no == self.round and action == "progress":
            return
        record(self.store, self.run_id, to, action, source, round_no=round_no, detail=detail, before=self.state)
        self.state, self.round = to, round_no

    def person(self, action: Action) -> None:
        """The person's own move, recorded before the run continues."""
        if self.state == State.DRAFT:
            self.move(State.REFINING, action, source=self.source, round_no=0)
        elif self.state == State.BETWEEN_ROUNDS:
            self.move(State.ROUND, action, source=self.source, round_no=(self.round or 0) + 1)
        elif self.state == State.REVIEW:
            self.move(State.ROUND, action, source=self.source, round_no=1)
        else:  # resume: back to where it was when it stopped (a pause is asked again by the run itself)
            state, rnd = _last_active(self.store.transitions(self.run_id))
            self.move(state, action, source=self.source, round_no=rnd)

    def observe(self, event: Event) -> None:
        data = event.data or {}
        kind = data.get("kind")
        if event.type == "step_finished" and isinstance(data.get("panel"), list) and data["panel"]:
            record(self.store, self.run_id, self.state, "panel", "engine", round_no=self.round,
                   detail=json.dumps([str(d) for d in data["panel"]]), before=self.state)
        if event.type == "progress" and kind == "phase":
            phase, rnd = data.get("phase"), int(data.get("round") or 0)
            if phase == "refine":
                self.move(State.REFINING, "progress", round_no=0)
            elif phase in ("experts", "synthesis"):
                self.move(State.ROUND, "progress", round_no=max(1, rnd))
        elif event.type == "progress" and kind in ("expert_started", "round_done") and data.get("round"):
            if int(data["round"]) != self.round or self.state != State.ROUND:
                self.move(State.ROUND, "progress", round_no=int(data["round"]))
        elif event.type == "step_started" and (event.node or "").startswith(report_nodes()):
            self.move(State.REPORTING, "progress")
        elif event.type == "run_paused":
            asks = data.get("asks") or [{}]
            if asks[0].get("kind") == "review":
                self.move(State.REVIEW, "pause", round_no=0)
            else:
                self.move(State.BETWEEN_ROUNDS, "pause", round_no=int(asks[0].get("round") or self.round or 0))
        elif event.type == "run_finished":
            self.move(State.COMPLETED, "finish")
        elif event.type == "run_cancelled":
            last = self.store.transitions(self.run_id)[-1:]
            if not last or last[0]["to_state"] != State.CANCELLED:  # cancel() already recorded who asked
                self.move(State.CANCELLED, "cancelled")
        elif event.type == "run_failed":
            self.move(State.FAILED, "fail", detail=str(data.get("error", ""))[:500])
