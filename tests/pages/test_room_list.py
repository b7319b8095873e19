"""The room lists' pure parts: what a press from the browser is read as, and which presses are already done."""

from __future__ import annotations

import pytest

from ifworld.whatif import Contribution
from ifworld.whatif.workshop_models import Decision
from ui.room_list import MAX_ENTRIES, RoomRow, RowAction, pressed
from ui.workshop_rows import already_done, fate_of


@pytest.mark.parametrize(("value", "expected"), [
    ("vote:a1 accept:b2", [("vote", "a1"), ("accept", "b2")]),
    ("vote:a1 vote:a1  vote:a1", [("vote", "a1")]),  # re-sent presses count once
    ("vote accept: :b2 <img>:x vote:a1", [("vote", "a1")]),  # no id, no action, markup as action: dropped
    ("", []), (None, []), (42, []), (["vote:a1"], []),
])
def test_a_trigger_value_is_read_as_action_id_pairs_and_junk_is_dropped(value, expected) -> None:  # noqa: ANN001
    assert pressed(value) == expected


def test_a_flood_of_presses_is_cut() -> None:
    assert len(pressed(" ".join(f"vote:{i}" for i in range(10 * MAX_ENTRIES)))) == MAX_ENTRIES


def test_an_action_name_is_a_word() -> None:
    with pytest.raises(ValueError, match="pattern"):
        RowAction(name="x:y", label="x")
    assert RoomRow(id="a", who="w", text="t", actions=[RowAction(name="vote", label="+1")]).actions[0].enabled


def _contribution(**kw) -> Contribution:  # noqa: ANN003
    return Contribution.model_validate({"id": "c1", "participant_id": "p1", "name": "Ada", "text": "t",
                                        "after_round": 1, "kind": "claim", **kw})


def test_already_done_follows_the_standing_decision() -> None:
    fresh = _contribution()
    assert not any(already_done(fresh, a) for a in ("accept", "reject", "hide", "edit"))
    assert already_done(fresh, "show")  # not hidden: nothing to show
    accepted = _contribution(decision=Decision(contribution_id="c1", decision="accept"))
    assert already_done(accepted, "accept") and not already_done(accepted, "reject")
    merged_away = _contribution(decision=Decision(contribution_id="c1", decision="merge", merged_into="c2"))
    assert not already_done(merged_away, "accept")  # merged into another: accepting it is a change
    assert already_done(_contribution(hidden=True), "hide")


def _room_app() -> None:
    import streamlit as st

    from ui.room_list import RoomRow, RowAction, room_list

    texts = st.session_state.setdefault("texts", ["Ferries first"])
    refuse = st.session_state.get("refuse", [])
    room_list([RoomRow(id=f"c{i}", who="Ada", text=t, actions=[RowAction(name="vote", label="+1")])
               for i, t in enumerate(texts)], key="room", on_press=lambda pairs: list(refuse))


def test_an_unchanged_list_is_sent_its_digest_alone_and_its_rows_when_they_change_or_are_asked_for() -> None:
    from streamlit.testing.v1 import AppTest

    from tests.pages.room_lists import data, press, trigger

    at = AppTest.from_function(_room_app, default_timeout=60).run()
    first = data(at, "room")
    assert [r["text"] for r in first["rows"]] == ["Ferries first"]
    at.run()
    idle = data(at, "room")  # an idle redraw: no rows, no code; numbered, so the browser's list looks each time
    assert idle == {"digest": first["digest"], "refused": [], "redraw": first["redraw"] + 1}
    trigger(at, "room", "need", first["digest"])  # a list that does not hold them asks once
    assert data(at, "room")["rows"] == first["rows"]
    at.session_state["texts"] = ["Ferries first", "<b>Bridges</b> next"]
    at.run()
    changed = data(at, "room")
    assert changed["digest"] != first["digest"] and [r["text"] for r in changed["rows"]][1] == "<b>Bridges</b> next"
    at.session_state["refuse"] = ["vote:c1"]
    at.run()  # the press runs the callback the last run registered
    press(at, "room", "vote:c1")  # a refused press needs the rows even unchanged: its button comes back from them
    refused = data(at, "room")
    assert refused["refused"] == ["vote:c1"] and refused["rows"] == changed["rows"]


@pytest.mark.parametrize(("decision", "sent", "running", "ended"), [
    (None, None, "waiting for the facilitator", "not taken up: the run ended first"),
    ("accept", None, "accepted · for the next round", "accepted · no round was left to take it"),
    ("accept", 2, "accepted · went into round 2", "accepted · went into round 2"),
    ("reject", None, "not taken this time", "not taken this time"),
])
def test_an_author_is_told_what_became_of_their_text_once_the_run_has_ended(decision, sent, running, ended) -> None:
    """After the report, "waiting for the facilitator" and "for the next round" would promise what cannot come."""
    c = Contribution(id="c1", participant_id="p1", name="Ada", after_round=1, kind="claim", text="t", sent_round=sent,
                     decision=Decision(contribution_id="c1", decision=decision) if decision else None)
    assert (fate_of(c), fate_of(c, ended=True)) == (running, ended)
