"""The facilitator's What-if page (AppTest) opens a workshop and runs it; participants take part on the phone page
(ui/phone_server.py, driven in-process with a TestClient as tests/pages/test_phone_server.py does).

Sign-in is required here (``IFWORLD_REQUIRE_SIGNIN=1``, as in network mode): the facilitator's session signs in
with the token once, every other session is a visitor. A participant's phone is offered no facilitator action —
its view's rows carry +1 only, and a forged facilitator press is refused by the server and by the engine; what a
participant types reaches every page as data (the phone draws it with ``textContent``, the facilitator's list as
text), never as Markdown.
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient
from streamlit.testing.v1 import AppTest

from ifworld import access, whatif
from ifworld.config import load_settings
from ifworld.runs.store import get_store
from ifworld.whatif import State
from ifworld.whatif.workshop import CODE_FAILURES
from tests.pages.room_lists import HEARTBEAT, all_rows, data, list_keys, press, rows
from tests.pages.test_phone_server import _view, phone, post, start_of
from tests.security.helpers import wait_for_session
from ui import phone_server
from ui.workshop_facilitator import STALL_S

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TIMEOUT = 60
HOSTILE = "<img src=x onerror=alert(1)> ![pic](http://evil.example/x.png) [click](http://evil.example/)"
FACILITATOR_ONLY = {"✅ Accept", "❌ Reject", "🙈 Hide", "🙈 Show", "✏️ Edit or merge", "🔒 Close workshop",
                    "🔍 Reveal predictions to the room", "👥 Open workshop"}
FORGED = ("accept", "reject", "hide", "show", "edit", "decide", "close", "reveal", "continue", "allow")
"""Facilitator actions a forged phone press might name: the phone server knows none of them."""


@pytest.fixture(autouse=True)
def signin_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IFWORLD_REQUIRE_SIGNIN", "1")
    phone_server._budgets.clear()


def _token() -> str:
    return str(access.facilitator_token(load_settings().db_path))


def _device() -> str:
    return secrets.token_urlsafe(16)


def _page(path: str, query: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.switch_page(path)
    for k, v in (query or {}).items():
        at.query_params[k] = v
    return at.run()


def _button(at: AppTest, label: str):  # noqa: ANN202
    return next(b for b in at.button if b.label.startswith(label))


def _labels(at: AppTest) -> set[str]:
    """Every button's label, the room lists' included."""
    return {b.label for b in at.button} | {a["label"] for row in all_rows(at) for a in row["actions"]}


def _facilitator_at_review() -> tuple[AppTest, str]:
    at = _page("app_pages/whatif.py", {"token": _token()})
    assert "token" not in at.query_params  # the sign-in token leaves the address bar at once
    for key in ("review", "pause_between_rounds"):
        at.toggle(key=f"whatif_{key}").set_value(True)
    _button(at, "▶️ Start run").click().run()
    assert wait_for_session(at).state == State.REVIEW
    _button(at, "👥 Open workshop").click().run()
    assert not at.exception, at.exception
    return at, at.session_state["whatif_run_id"]


def _facilitator_between_rounds() -> tuple[AppTest, str, str]:
    fac, run_id = _facilitator_at_review()
    _button(fac, "▶️ Continue unchanged").click().run()
    assert wait_for_session(fac).state == State.BETWEEN_ROUNDS
    return fac, run_id, whatif.load_workshop(run_id, store=get_store()).token


def _join(token: str, name: str) -> TestClient:
    """A phone that joined the workshop ``token`` as ``name`` (the phone page's join form)."""
    you = phone()
    joined = post(you, "join", {"token": token, "given": name})
    assert joined.json() == {"ok": True, "token": token, "name": name}, joined.text
    return you


def _pid(run_id: str, name: str) -> str:
    return next(p.id for p in whatif.load_workshop(run_id, store=get_store()).participants if p.name == name)


def _no_facilitator_action(view: dict) -> None:
    """The phone's view offers +1 only: no row carries a facilitator action, no text names one."""
    assert {a["name"] for r in view["rows"] for a in r["actions"]} <= {"vote"}
    shown = json.dumps(view, ensure_ascii=False)
    assert not [label for label in FACILITATOR_ONLY if label in shown]


def _forged_presses_refused(you: TestClient, token: str, cid: str) -> None:
    for action in FORGED:
        reply = post(you, action, {"token": token, "contribution_id": cid, "action": action})
        assert reply.status_code == 404 and not reply.json()["ok"], action


def test_open_join_predict_contribute_and_participants_never_see_facilitator_controls(llm_env) -> None:  # noqa: ANN001
    fac, run_id = _facilitator_at_review()
    room = whatif.load_workshop(run_id, store=get_store())
    assert any(room.code in m.value for m in fac.markdown)  # the big code
    assert any("alt='QR code of the join link'" in m.value for m in fac.markdown), "no QR code image with alt text"
    assert any(f"/p/?w={room.token}" in c.value for c in fac.code)  # the link leads to the phone page
    shown = " ".join(str(e.value) for kind in ("code", "markdown", "caption", "text") for e in getattr(fac, kind))
    assert _token() not in shown  # nothing on the projected panel signs anyone in

    with_markup = phone()
    refused = post(with_markup, "join", {"token": room.token, "given": HOSTILE[:40]})
    assert refused.status_code == 400 and "display name may use" in refused.json()["message"]
    you = _join(room.token, "Ada")
    view = _view(you, room.token)
    assert view["form"] == "predict" and view["branches"]
    _no_facilitator_action(view)
    even = whatif.even_split(view["branches"])
    assert post(you, "predict", {"token": room.token, "probabilities": even}).json()["ok"]
    me = _pid(run_id, "Ada")
    assert whatif.load_workshop(run_id, store=get_store()).prediction_of(me) is not None

    fac.run()
    _button(fac, "▶️ Continue unchanged").click().run()
    assert wait_for_session(fac).state == State.BETWEEN_ROUNDS
    sent = post(you, "send", {"token": room.token, "text": HOSTILE})
    assert sent.json()["ok"], sent.text
    view = _view(you, room.token)
    _no_facilitator_action(view)
    [mine] = view["rows"]  # what the phone draws, as data (textContent): the very text typed
    assert (mine["text"], mine["actions"]) == (HOSTILE, [{"name": "vote", "label": "+1 (0)", "enabled": False,
                                                          "title": "your own contribution"}])
    own = post(you, "vote", {"token": room.token, "contribution_id": mine["id"]})  # forged: the button is greyed
    assert own.status_code == 400 and "your own contribution" in own.json()["message"]
    _forged_presses_refused(you, room.token, mine["id"])
    assert not whatif.load_workshop(run_id, store=get_store()).votes
    assert whatif.load_workshop(run_id, store=get_store()).contributions[0].decision is None

    fac.run()
    [row] = all_rows(fac)
    assert row["text"] == HOSTILE and [a["name"] for a in row["actions"]] == ["accept", "reject", "hide", "edit"]
    assert "evil.example" not in " ".join(m.value for m in fac.markdown)
    press(fac, "workshop_list_claim", f"accept:{row['id']}", f"accept:{row['id']}")  # a re-sent press is skipped
    assert not fac.exception, fac.exception
    assert whatif.load_workshop(run_id, store=get_store()).pending()
    assert _view(you, room.token)["rows"][0]["who"].endswith("you · accepted · for the next round")  # told
    _button(fac, "▶️ Continue with 1 accepted").click().run()
    assert wait_for_session(fac).state == State.COMPLETED
    assert _view(you, room.token)["rows"][0]["who"].endswith("you · accepted · went into round 2")
    said = [p["text"] for p in get_store().get_run(run_id).record["participants"]]
    assert " ".join(HOSTILE.split()) in said

    # after the report no round can take a contribution: a late one can be hidden, not accepted
    late = post(you, "send", {"token": room.token, "text": "A late thought"}).json()
    assert late["ok"]
    fac.run()
    sent_row, unsent = rows(fac, "workshop_list_claim")
    assert (sent_row["actions"], [a["name"] for a in unsent["actions"]]) == ([], ["hide"])
    press(fac, "workshop_list_claim", f"accept:{late['id']}")
    assert not whatif.load_workshop(run_id, store=get_store()).pending()


def test_a_visitor_or_a_wrong_token_gets_no_facilitator_page_and_the_right_token_does(llm_env) -> None:  # noqa: ANN001
    fac, run_id = _facilitator_at_review()
    for query in ({"run": run_id}, {"run": run_id, "token": "x" * 22}):
        visitor = _page("app_pages/whatif.py", query)
        assert not visitor.exception
        assert not (_labels(visitor) & FACILITATOR_ONLY) and not visitor.sidebar.button
        assert "This page is for the facilitator" in " ".join(w.value for w in visitor.warning)
        assert "token" not in visitor.query_params
        assert ("sign-in link is not valid" in " ".join(e.value for e in visitor.error)) == ("token" in query)
    real = _page("app_pages/whatif.py", {"run": run_id, "token": _token()})
    assert "🔒 Close workshop" in _labels(real)
    assert "token" not in real.query_params  # the token leaves the address bar


def test_join_by_code_and_wrong_codes_are_limited(llm_env) -> None:  # noqa: ANN001
    """Wrong codes are counted per device and per address: past the limit the right code is refused too, from
    that device and from another device on the same connection; a device elsewhere finds the workshop."""
    fac, run_id = _facilitator_at_review()
    room = whatif.load_workshop(run_id, store=get_store())
    guesser = phone()
    for _ in range(CODE_FAILURES):
        wrong = post(guesser, "find", {"code": "AAAAAA"})
        assert wrong.status_code == 400 and "no workshop has this code" in wrong.json()["message"]
    for who in (guesser, phone()):
        limited = post(who, "find", {"code": room.code})
        assert limited.status_code == 400 and "too many wrong codes" in limited.json()["message"]
    elsewhere = TestClient(Starlette(routes=phone_server.ROUTES), base_url="http://class.example",
                           client=("198.51.100.7", 50000))
    elsewhere.cookies.set(access.DEVICE_COOKIE, _device())
    found = post(elsewhere, "find", {"code": room.code.lower()})
    assert found.json() == {"ok": True, "token": room.token}
    assert start_of(elsewhere.get(f"/p/?w={room.token}").text)["screen"] == "join"  # the name form comes next


def test_the_facilitator_edits_and_merges_and_a_refused_contribution_keeps_its_text(llm_env) -> None:  # noqa: ANN001
    fac, run_id, token = _facilitator_between_rounds()
    you = _join(token, "Ada")
    other, other_key = whatif.join_workshop(token, "Bo", device_key=_device(), store=get_store())
    assert post(you, "send", {"token": token, "text": "Tides stop"}).json()["ok"]
    whatif.contribute(run_id, other.id, other_key, "Harbours silt up", store=get_store())
    first, second = sorted(whatif.load_workshop(run_id, store=get_store()).contributions, key=lambda c: c.at)

    fac.run()
    assert not [t for t in fac.text_area if t.key.startswith("we_t_")]  # no editor until one is asked for
    press(fac, "workshop_list_claim", f"edit:{first.id}")
    assert [t.key for t in fac.text_area if t.key.startswith("we_t_")] == [f"we_t_{first.id}"]  # that row only
    fac.text_area(key=f"we_t_{first.id}").set_value("Tides stop, so harbours silt up")
    fac.multiselect(key=f"we_m_{first.id}").select(second.id)
    _button(fac, "💾 Save and accept").click().run()
    assert not fac.exception, fac.exception
    room = whatif.load_workshop(run_id, store=get_store())
    merged = {c.id: c for c in room.contributions}
    assert merged[first.id].final_text == "Tides stop, so harbours silt up" and merged[first.id].accepted
    assert merged[second.id].decision.merged_into == first.id and not merged[second.id].accepted
    assert [c.id for c in room.pending()] == [first.id]
    assert not [t for t in fac.text_area if t.key.startswith("we_t_")]  # the editor closed

    assert _view(you, token)["form"] == "contribute"
    _button(fac, "🔒 Close workshop").click().run()
    late = post(you, "send", {"token": token, "text": "A late thought"})  # pressed before the phone heard
    assert late.status_code == 400 and "closed" in late.json()["message"]  # the page shows it; the box keeps
    # its text (ifworld/web/phone.js clears the box on a stored Send only; tests/browser/test_phone_browser.py
    # test_closing_keeps_what_was_typed watches the box across the closing)
    assert _view(you, token)["form"] == "closed"  # the box stays, Send off
    assert len(whatif.load_workshop(run_id, store=get_store()).contributions) == 2


def test_accept_all_shown_and_a_main_button_that_says_what_it_does(llm_env) -> None:  # noqa: ANN001
    fac, run_id, token = _facilitator_between_rounds()
    fac.run()
    assert _button(fac, "▶️ Continue").label == "▶️ Continue with no room contributions"
    assert not [b for b in fac.button if b.label.startswith("✅ Accept all")]  # nothing to accept yet
    people = [whatif.join_workshop(token, name, device_key=_device(), store=get_store()) for name in "ABCD"]
    ids = [whatif.contribute(run_id, p.id, key, f"Point {i} about the harbour", store=get_store()).id
           for i, (p, key) in enumerate(people)]
    fac.run()
    press(fac, "workshop_list_claim", f"hide:{ids[0]}", f"reject:{ids[1]}")
    assert _button(fac, "✅ Accept all").label == "✅ Accept all 2 undecided shown"
    _button(fac, "✅ Accept all").click().run()
    room = {c.id: c for c in whatif.load_workshop(run_id, store=get_store()).contributions}
    assert [room[i].accepted for i in ids] == [False, False, True, True]  # hidden and rejected stay out
    assert _button(fac, "▶️ Continue").label == "▶️ Continue with 2 accepted contributions"
    assert not [b for b in fac.button if b.label.startswith("✅ Accept all")]
    view = _view(_join(token, "Eve"), token)  # a participant never sees it
    assert len(view["rows"]) == 3  # the hidden one is not the room's
    _no_facilitator_action(view)


def test_a_phone_in_review_is_offered_the_prediction_form_with_the_scenario_open(llm_env) -> None:  # noqa: ANN001
    """In review the phone's one form is the prediction over the refined scenario's branches (the page draws its
    form above the scenario: ifworld/web/phone.js ``room``), and the scenario is open to read beside it."""
    fac, run_id = _facilitator_at_review()
    token = whatif.load_workshop(run_id, store=get_store()).token
    view = _view(_join(token, "Ada"), token)
    assert view["form"] == "predict" and view["scenario_open"] and view["scenario"]
    assert view["branches"] == whatif.branches(whatif.scenario_of(run_id, store=get_store()))
    assert view["prediction"] is None


def test_list_presses_hide_show_reject_and_a_participant_cannot_press_the_facilitators_actions(llm_env) -> None:  # noqa: ANN001
    fac, run_id, token = _facilitator_between_rounds()
    you = _join(token, "Ada")
    bo, bo_key = whatif.join_workshop(token, "Bo", device_key=_device(), store=get_store())
    theirs = whatif.contribute(run_id, bo.id, bo_key, "Night fishing changes", "concern", store=get_store())

    # a phone only knows +1: a forged facilitator press is refused and changes nothing
    _forged_presses_refused(you, token, theirs.id)
    assert not whatif.load_workshop(run_id, store=get_store()).contributions[0].decision
    assert post(you, "vote", {"token": token, "contribution_id": theirs.id}).json()["ok"]
    again = post(you, "vote", {"token": token, "contribution_id": theirs.id})  # the same press re-sent: one vote
    assert again.status_code == 400 and "already voted" in again.json()["message"]
    assert len(whatif.load_workshop(run_id, store=get_store()).votes) == 1
    assert _view(you, token)["rows"][0]["actions"][0] == {"name": "vote", "label": "+1 (1)", "enabled": False,
                                                          "title": "you have +1'd it"}

    fac.run()
    assert list_keys(fac) == ["workshop_list_concern"]
    assert data(fac, HEARTBEAT)["watch"] == STALL_S and rows(fac, HEARTBEAT) == []  # the page watches itself
    press(fac, "workshop_list_concern", f"hide:{theirs.id}")
    [row] = rows(fac, "workshop_list_concern")
    assert row["muted"] and [a["name"] for a in row["actions"]] == ["accept", "reject", "show", "edit"]
    assert _view(you, token)["rows"] == []  # hidden from the room
    bo_phone = phone()
    bo_phone.cookies.set(access.DEVICE_COOKIE, bo_key)  # Bo's own device
    [own] = _view(bo_phone, token)["rows"]  # its author still sees it, and why
    assert own["muted"] and own["who"].endswith("you · hidden by the facilitator")
    press(fac, "workshop_list_concern", f"show:{theirs.id}", f"reject:{theirs.id}")
    [row] = rows(fac, "workshop_list_concern")
    assert "rejected" in row["who"] and row["muted"] and not row["actions"][1]["enabled"]
    room = whatif.load_workshop(run_id, store=get_store())
    assert not room.contributions[0].hidden and room.contributions[0].decision.decision == "reject"

    press(fac, "workshop_list_concern", "accept:nosuchid", "launch:" + theirs.id)  # unknown: refused, no effect
    assert not fac.exception, fac.exception
    assert whatif.load_workshop(run_id, store=get_store()).contributions[0].decision.decision == "reject"
    _button(fac, "🔒 Close workshop").click().run()
    assert all(not r["actions"] for r in rows(fac, "workshop_list_concern"))  # closed: nothing to press
