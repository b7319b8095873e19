"""Roster mode (#40): the facilitator makes personal codes from a pasted class list (AppTest of the What-if page); a
student joins on the phone page with their card's link (``/join?w=…&personal=…`` leads to the phone page with the
code kept, which ifworld/web/phone.js puts in the field and takes out of the address), under the roster's name; a
second device with the same code is refused until the facilitator releases it. No phone's view shows a code."""

from __future__ import annotations

import json

import pytest

from ifworld import access, whatif
from ifworld.config import load_settings
from ifworld.runs.store import get_store
from ifworld.whatif import State
from tests.pages.test_phone_server import _view, phone, post, start_of
from tests.pages.test_workshop_page import _button, _page
from tests.security.helpers import wait_for_session


@pytest.fixture(autouse=True)
def signin_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IFWORLD_REQUIRE_SIGNIN", "1")


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

    you = phone()
    card = you.get(f"/join?w={room.token}&personal={codes['Bo_']}", follow_redirects=False)  # the card's QR link
    assert card.status_code == 308 and card.headers["location"] == f"p/?w={room.token}&personal={codes['Bo_']}"
    opened = you.get(f"/p/?w={room.token}&personal={codes['Bo_']}")
    assert start_of(opened.text)["roster"] is True  # a roster room asks the personal code, no name
    assert codes["Bo_"] not in start_of(opened.text).values()
    joined = post(you, "join", {"token": room.token, "given": codes["Bo_"], "roster": True})
    assert joined.json() == {"ok": True, "token": room.token, "name": "Bo_"}, joined.text
    view = _view(you, room.token)
    assert view["me"] == "Bo_" and view["status_line"].startswith("You are Bo_")
    assert not any(code in json.dumps(view) for code in codes.values())  # no participant page shows a code
    bo = whatif.participant_for(run_id, you.cookies[access.DEVICE_COOKIE], store=get_store())
    assert bo is not None and bo.name == "Bo_"

    thief = phone()
    stolen = post(thief, "join", {"token": room.token, "given": codes["Bo_"], "roster": True})
    assert stolen.status_code == 400 and "already in use on another device" in stolen.json()["message"]
    assert thief.get(f"/p/events?w={room.token}").status_code == 403  # and the thief is nobody in the room

    fac.run()
    fac.selectbox(key="workshop_roster_release").set_value("Bo_")
    _button(fac, "Release").click().run()
    assert not fac.exception, fac.exception
    assert not any(e.joined for e in whatif.load_workshop(run_id, store=get_store()).roster)
    again = post(thief, "join", {"token": room.token, "given": codes["Bo_"], "roster": True})  # the new phone
    assert again.json()["ok"], again.text
    assert whatif.participant_for(run_id, thief.cookies[access.DEVICE_COOKIE], store=get_store()).id == bo.id
    # the released device is nobody now: its page starts again at the join form (its stream says "gone":
    # tests/pages/test_phone_server.py test_a_phone_whose_code_is_released_is_told_it_left)
    assert start_of(you.get(f"/p/?w={room.token}").text)["screen"] == "join"
    assert you.get(f"/p/events?w={room.token}").status_code == 403
