"""The room lists' pure parts: what a press from the browser is read as, and which presses are already done."""

from __future__ import annotations

import pytest

from ifworld.whatif import Contribution
from ifworld.whatif.workshop_models import Decision
from ui.room_list import MAX_ENTRIES, RoomRow, RowAction, pressed
from ui.workshop_rows import already_done


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
