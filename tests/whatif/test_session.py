"""The what-if session: legal transitions only, every move recorded with its source (fake server)."""

from __future__ import annotations

import pytest

from ifworld.whatif import service
from ifworld.whatif.params import default_params
from ifworld.whatif.session import (
    ALLOWED,
    Action,
    SessionError,
    State,
    cancel_session,
    drive_session,
    load_session,
    start_session,
)

PROP = "What if the Moon disappeared overnight?"
SMALL = ["physics", "economics"]


def _params(**overrides):  # noqa: ANN003, ANN202
    return default_params(PROP, experts=SMALL, **overrides)


def _moves(store, run_id):  # noqa: ANN001, ANN202
    return [(t["from_state"], t["to_state"], t["action"], t["source"], t["round"]) for t in store.transitions(run_id)]


def test_the_table_allows_cancel_only_from_running_or_paused_states() -> None:
    assert ALLOWED[Action.CANCEL] == {State.REFINING, State.ROUND, State.REPORTING, State.REVIEW,
                                      State.BETWEEN_ROUNDS}
    assert ALLOWED[Action.RESUME] == {State.CANCELLED, State.FAILED, State.INTERRUPTED}
    assert ALLOWED[Action.CONTINUE] == {State.REVIEW, State.BETWEEN_ROUNDS}
    assert ALLOWED[Action.APPLY_EDITS] == {State.REVIEW}


def test_a_paused_run_records_each_move_and_finishes(fake_server, wsettings, store) -> None:
    out = service.run(_params(rounds=2, review=True, pause_between_rounds=True), settings=wsettings, store=store,
                      source="page")
    run_id = out["run_id"]
    session = load_session(run_id, store)
    assert session.state == State.REVIEW and session.allowed == {Action.CONTINUE, Action.APPLY_EDITS, Action.CANCEL}
    service.run({}, settings=wsettings, store=store, run_id=run_id, answer={"panel": ["physics", "law"]},
                source="page")
    session = load_session(run_id, store)
    assert (session.state, session.round, session.label) == (State.BETWEEN_ROUNDS, 1, "Paused after round 1")
    assert session.panel == ["physics", "law"]  # the estimate and the live view count the edited panel
    assert session.planned_panel == SMALL and session.proposition == PROP
    service.run({}, settings=wsettings, store=store, run_id=run_id, answer={"contribution": "ferry"},
                source="workshop")
    assert load_session(run_id, store).state == State.COMPLETED
    moves = _moves(store, run_id)
    assert moves[0] == ("draft", "refining", "start", "page", 0)
    assert ("refining", "review", "pause", "engine", 0) in moves
    assert ("review", "round", "apply_edits", "page", 1) in moves
    assert ("round", "between_rounds", "pause", "engine", 1) in moves
    assert ("between_rounds", "round", "continue", "workshop", 2) in moves
    assert moves[-1][1:3] == ("completed", "finish")
    assert [m[1] for m in moves].index("reporting") > [m[1] for m in moves].index("between_rounds")


def test_a_completed_run_cannot_be_cancelled_and_stays_completed(fake_server, wsettings, store) -> None:
    out = service.run(_params(rounds=1), settings=wsettings, store=store)
    with pytest.raises(SessionError, match=r"is completed; cannot cancel: nothing to cancel"):
        cancel_session(out["run_id"], source="page", store=store)
    assert store.get_run(out["run_id"]).status == "completed"
    assert store.get_run(out["run_id"]).record["report"]


def test_cancel_a_paused_run_then_resume_it(fake_server, wsettings, store) -> None:
    out = service.run(_params(rounds=1, review=True), settings=wsettings, store=store)
    session = cancel_session(out["run_id"], source="cli", store=store)
    assert session.state == State.CANCELLED and store.get_run(out["run_id"]).status == "cancelled"
    assert _moves(store, out["run_id"])[-1] == ("review", "cancelled", "cancel", "cli", 0)
    with pytest.raises(SessionError, match="cannot continue: it is not paused"):
        drive_session(out["run_id"], source="page", action=Action.CONTINUE, store=store)
    again = service.run({}, settings=wsettings, store=store, run_id=out["run_id"])  # resume: asks again
    assert again["paused"][0]["kind"] == "review" and load_session(out["run_id"], store).state == State.REVIEW


def test_a_mid_run_cancel_is_recorded_as_cancelled(fake_server, wsettings, store) -> None:
    run_id = start_session("whatif.ifworld", _params(rounds=2), source="page", store=store)
    asked = False
    for event in drive_session(run_id, source="page", store=store, settings=wsettings):
        if event.type == "progress" and event.data.get("kind") == "expert_started" and not asked:
            cancel_session(run_id, source="page", store=store)
            asked = True
            with pytest.raises(SessionError, match="is cancelled; cannot cancel"):
                cancel_session(run_id, source="page", store=store)  # asked once; not twice
    assert store.get_run(run_id).status == "cancelled"
    assert load_session(run_id, store).state == State.CANCELLED
    assert [m for m in _moves(store, run_id) if m[1] == "cancelled"] == [("round", "cancelled", "cancel", "page", 1)]


def test_a_failed_run_reads_failed_and_resumes(fake_server, wsettings, store) -> None:
    fake_server.inject("500", times=1, role="whatif.refiner")
    with pytest.raises(Exception, match="refiner failed"):
        service.run(_params(rounds=1), settings=wsettings, store=store)
    run_id = store.list_runs()[0].id
    session = load_session(run_id, store)
    assert session.state == State.FAILED and session.allowed == {Action.RESUME}
    rec = service.run({}, settings=wsettings, store=store, run_id=run_id)
    assert rec["report"] and load_session(run_id, store).state == State.COMPLETED


def test_unknown_source_is_refused(store) -> None:
    from ifworld.whatif.session import record

    with pytest.raises(ValueError, match="unknown source"):
        record(store, "x", State.ROUND, "continue", "browser")
