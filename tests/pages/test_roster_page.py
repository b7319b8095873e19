"""AppTest of roster mode (#40): the facilitator makes personal codes from a pasted class list; a student joins
with their card's link (the code fills the field and leaves the address bar), under the roster's name; a second
device with the same code is refused until the facilitator releases it. No participant page shows a code."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from ifworld import access, whatif
from ifworld.config import load_settings
from ifworld.runs.store import get_store
from ifworld.whatif import State
from tests.pages.test_workshop_page import _button, _page
from tests.security.helpers import wait_for_session


@pytest.fixture(autouse=True)
def signin_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IFWORLD_REQUIRE_SIGNIN", "1")


def _shown(at: AppTest) -> str:
    kinds = ("markdown", "caption", "text", "code", "info", "warning", "error", "text_input")
    return " ".join(str(e.value) for kind in kinds for e in getattr(at, kind))


def test_the_facilitator_makes_codes_and_a_student_joins_with_one(llm_env) -> None:  # noqa: ANN001
    fac = _page("app_pages/whatif.py", {"token": str(access.facilitator_token(load_settings().db_path))})
    fac.toggle(key="whatif_review").set_value(True)
    _button(fac, "▶️ Start run").click().run()
    assert wait_for_session(fac).state == State.REVIEW
    _button(fac, "👥 Open workshop").click().run()
    run_id = fac.session_state["whatif_run_id"]
    room = whatif.load_workshop(run_id, store=get_store())

    fac.text_area(key="workshop_roster_text").set_value("Ada\n<img src=x onerror=alert(1)>\n")
    _button(fac, "🔑 Make personal codes").click().run()
    assert any("line 2" in w.value for w in fac.warning) and not whatif.load_workshop(run_id, store=get_store()).roster
    fac.text_area(key="workshop_roster_text").set_value("Ada Lovelace\n\nBo_\nAda Lovelace\n")
    _button(fac, "🔑 Make personal codes").click().run()
    assert not fac.exception, fac.exception
    codes = {c["name"]: c["code"] for c in fac.session_state["workshop_roster_codes"]["codes"]}
    assert list(codes) == ["Ada Lovelace", "Bo_", "Ada Lovelace (2)"]
    table = next(d.value for d in fac.dataframe if "personal code" in d.value.columns)
    assert list(table["name"]) == list(codes) and list(table["personal code"]) == list(codes.values())
    assert fac.get("download_button"), "no printable sheet"

    you = _page("app_pages/join.py", {"w": room.token, "personal": codes["Bo_"]})
    assert "personal" not in you.query_params  # the code leaves the address bar
    assert you.text_input(key="join_personal_text").value == codes["Bo_"]
    assert not [t for t in you.text_input if t.key == "join_name_text"]  # a roster room asks no name
    _button(you, "Join").click().run()
    assert not you.exception, you.exception
    assert you.session_state["join_me"]["name"] == "Bo_"
    assert any("You are Bo_" in t.value for t in you.text)
    assert not any(code in _shown(you) for code in codes.values())  # no participant page shows a code

    thief = _page("app_pages/join.py", {"w": room.token})
    thief.text_input(key="join_personal_text").set_value(codes["Bo_"])
    _button(thief, "Join").click().run()
    assert any("already in use on another device" in e.value for e in thief.error)

    fac.run()
    fac.selectbox(key="workshop_roster_release").set_value("Bo_")
    _button(fac, "Release").click().run()
    assert not fac.exception, fac.exception
    assert not any(e.joined for e in whatif.load_workshop(run_id, store=get_store()).roster)
    _button(thief, "Join").click().run()  # the new phone: the same participant
    assert thief.session_state["join_me"]["id"] == you.session_state["join_me"]["id"]
    you.run()  # the released device is nobody now: back to the code form
    assert "join_me" not in you.session_state and you.text_input(key="join_personal_text") is not None
