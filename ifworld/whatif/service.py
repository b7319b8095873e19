"""Running and loading IF-World runs for the CLI, the evaluation harness and pages.

The run store scrubs secret-looking keys from stored records, and its pattern also matches
``prompt_tokens``/``completion_tokens``; :func:`load_record` therefore rebuilds ``calls`` and ``usage`` from
the store's call log, and :func:`run` returns the record exactly as ``finalize`` built it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ifworld.config import Settings
from ifworld.llm import usage_totals
from ifworld.runs.events import Event
from ifworld.runs.store import RunStore, get_store
from ifworld.whatif import session
from ifworld.whatif.params import record_calls
from ifworld.whatif.propositions import workflow_name
from ifworld.whatif.session import paused_state, pending_asks  # noqa: F401 — re-exported for the CLI


def run(params: dict[str, Any], *, settings: Settings | None = None, store: RunStore | None = None,
        on_event: Callable[[Event], None] | None = None, run_id: str | None = None,
        answer: Any = None, source: str = "cli") -> dict[str, Any]:
    """Start (or, given ``run_id``, continue — with ``answer`` when it is paused — or resume) a what-if
    session and return its full record with ``run_id``; a run that pauses for a person returns
    ``{"run_id", "paused": [asks]}``. Every move is recorded as a session transition from ``source``.

    Raises :class:`ifworld.runs.RunFailed` (the run stays resumable) and
    :class:`~ifworld.whatif.session.SessionError` when the session's state does not allow continuing."""
    store = store or get_store()
    if run_id is None:
        run_id = session.start_session(workflow_name(params.get("method", "ifworld")), params, source=source,
                                       store=store)
    action = session.action_for(session.load_session(run_id, store), answer)
    record: dict[str, Any] = {}
    for event in session.drive_session(run_id, source=source, action=action, answer=answer, store=store,
                                       settings=settings):
        if event.type == "run_finished":
            record = dict(event.data.get("record") or {})
        elif event.type == "run_paused":
            record = {"paused": event.data["asks"]}
        if on_event:
            on_event(event)
    return {"run_id": run_id, **record}


def continue_run(run_id: str, *, answer: Any = None, source: str = "cli", settings: Settings | None = None,
                 store: RunStore | None = None, on_event: Callable[[Event], None] | None = None) -> dict[str, Any]:
    """Continue a saved session the way its state allows: answer a pause, resume a stop, start a draft."""
    return run({}, settings=settings, store=store, on_event=on_event, run_id=run_id, answer=answer, source=source)


def load_record(run_id: str, store: RunStore | None = None) -> dict[str, Any]:
    """A stored run's record with ``calls`` and ``usage`` rebuilt from the call log (token counts intact)."""
    store = store or get_store()
    info = store.get_run(run_id)
    calls = store.calls(run_id)
    record = dict(info.record or {})
    record.update(run_id=run_id, calls=record_calls(calls), usage=usage_totals(calls))
    return record
