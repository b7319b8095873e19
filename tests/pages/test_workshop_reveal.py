"""Issue #42, item 1: with the demo model the reveal shows the room's and the panel's numbers side by side, joined
on the variant ids (V1, V2, …), on the facilitator's page (AppTest) and on a phone (the phone page's view, read
from its stream); every reveal state — before the reveal, a participant with no prediction, the export's workshop
section — shows "—" for a missing figure and never "None"."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from ifworld import whatif
from ifworld.runs.store import get_store
from ifworld.whatif import State
from ifworld.whatif.workshop_export import workshop_markdown, workshop_record
from tests.pages.test_phone_server import _view, post
from tests.pages.test_workshop_page import _button, _facilitator_at_review, _join
from tests.security.helpers import wait_for_session


@pytest.fixture(autouse=True)
def signin_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IFWORLD_REQUIRE_SIGNIN", "1")


def _shown(at: AppTest) -> str:
    """Every text the page draws, tables' cells included."""
    texts = [str(e.value) for kind in ("markdown", "caption", "text", "info", "warning", "success", "error")
             for e in getattr(at, kind)]
    tables = [df.value.to_csv(index=False) for df in at.dataframe]
    return "\n".join([*texts, *tables])


def _phone_table(view: dict) -> list[dict[str, str]]:
    reveal = view["reveal"]
    return [dict(zip(reveal["columns"], row, strict=True)) for row in reveal["rows"]]


def _table(at: AppTest) -> list[dict[str, str]]:
    [df] = [d for d in at.dataframe if "Panel (%)" in d.value.columns]  # the reveal's table
    return df.value.astype(str).to_dict("records")


def test_the_reveal_shows_room_and_panel_side_by_side_and_never_none(llm_env) -> None:  # noqa: ANN001
    fac, run_id = _facilitator_at_review()
    token = whatif.load_workshop(run_id, store=get_store()).token
    ada, bo = _join(token, "Ada"), _join(token, "Bo")
    branches = _view(ada, token)["branches"]
    assert post(ada, "predict", {"token": token, "probabilities": whatif.even_split(branches)}).json()["ok"]
    fac.run()
    _button(fac, "▶️ Continue unchanged").click().run()
    assert wait_for_session(fac).state == State.BETWEEN_ROUNDS
    fac.run()
    _button(fac, "▶️ Continue").click().run()
    assert wait_for_session(fac).state == State.COMPLETED

    fac.run()
    before = _view(ada, token)  # before the reveal: the phone says it will come, and shows no figure
    assert before["reveal"] == {"revealed": False, "columns": [], "rows": [], "predicted": False,
                                "note": whatif.NO_GROUND_TRUTH}
    assert "None" not in json.dumps(before)
    assert "None" not in _shown(fac)
    _button(fac, "🔍 Reveal predictions to the room").click().run()
    assert not fac.exception, fac.exception

    record = get_store().get_run(run_id).record
    ids = [v["id"] for v in record["scenario"]["variants"]]
    panel = {v["variant_id"]: v["probability_pct"] for v in record["report"]["variant_probabilities"]}
    assert ids and set(panel) == set(ids)
    room = [r for r in _table(fac) if r["Id"] in ids]
    assert sorted(r["Id"] for r in room) == sorted(ids)
    for r in room:  # numbers side by side for every variant the room predicted on
        assert float(r["Room (mean %)"]) > 0 and float(r["Panel (%)"]) == panel[r["Id"]]
        assert r["Gap (points)"] != "—"
    assert "None" not in _shown(fac)

    shown = _view(ada, token)
    assert shown["reveal"]["revealed"] and shown["reveal"]["predicted"]
    mine = [r for r in _phone_table(shown) if r["Id"] in ids]
    assert len(mine) == len(ids) and all(r["You (%)"] != "—" and r["Panel (%)"] != "—" for r in mine)
    for r in mine:  # the panel's own numbers, side by side with hers
        assert float(r["Panel (%)"]) == panel[r["Id"]] and float(r["You (%)"]) > 0
    assert "None" not in json.dumps(shown) and "null" not in json.dumps(shown["reveal"])  # no cell without text
    theirs = _view(bo, token)  # made no prediction: the panel's figures, "—" for his own
    assert theirs["reveal"]["revealed"] and not theirs["reveal"]["predicted"]
    assert _phone_table(theirs) and all(r["You (%)"] == "—" for r in _phone_table(theirs))
    assert all(r["Panel (%)"] != "—" for r in _phone_table(theirs) if r["Id"] in ids)
    assert "None" not in json.dumps(theirs) and "null" not in json.dumps(theirs["reveal"])

    for anonymise in (False, True):
        rec = workshop_record(run_id, store=get_store(), anonymise=anonymise)
        assert rec is not None
        md = workshop_markdown(rec)
        assert "### The room against the panel" in md and "None" not in md
        assert all(f"| {i} |" in md for i in ids)
