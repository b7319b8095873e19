"""AppTest: the facilitator opens a workshop on the What-if page; participants join on the Join page.

Sign-in is required here (``IFWORLD_REQUIRE_SIGNIN=1``, as in network mode): the facilitator's session signs in
with the token once, every other session is a participant or a visitor. A participant's session never draws a
facilitator control, and the engine refuses a forged one; what a participant types is shown as plain text
(``st.text``), never as Markdown.
"""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ifworld import access, whatif
from ifworld.config import load_settings
from ifworld.runs.store import get_store
from ifworld.whatif import State
from ifworld.whatif.workshop import CODE_FAILURES
from tests.pages.room_lists import HEARTBEAT, all_rows, data, list_keys, press, rows
from tests.security.helpers import wait_for_session
from ui.workshop_facilitator import STALL_S

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TIMEOUT = 60
HOSTILE = "<img src=x onerror=alert(1)> ![pic](http://evil.example/x.png) [click](http://evil.example/)"
FACILITATOR_ONLY = {"✅ Accept", "❌ Reject", "🙈 Hide", "🙈 Show", "✏️ Edit or merge", "🔒 Close workshop",
                    "🔍 Reveal predictions to the room", "👥 Open workshop"}


@pytest.fixture(autouse=True)
def signin_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IFWORLD_REQUIRE_SIGNIN", "1")


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


def _join(token: str, name: str) -> AppTest:
    at = _page("app_pages/join.py", {"w": token})
    at.text_input(key="join_name_text").set_value(name)
    _button(at, "Join").click().run()
    assert not at.exception, at.exception
    return at


def test_open_join_predict_contribute_and_participants_never_see_facilitator_controls(llm_env) -> None:  # noqa: ANN001
    fac, run_id = _facilitator_at_review()
    room = whatif.load_workshop(run_id, store=get_store())
    assert any(room.code in m.value for m in fac.markdown)  # the big code
    assert any("alt='QR code of the join link'" in m.value for m in fac.markdown), "no QR code image with alt text"
    assert any(f"/join?w={room.token}" in c.value for c in fac.code)
    shown = " ".join(str(e.value) for kind in ("code", "markdown", "caption", "text") for e in getattr(fac, kind))
    assert _token() not in shown  # nothing on the projected panel signs anyone in

    with_markup = _page("app_pages/join.py", {"w": room.token})
    with_markup.text_input(key="join_name_text").set_value(HOSTILE[:40])
    _button(with_markup, "Join").click().run()
    assert any("display name may use" in e.value for e in with_markup.error)
    you = _join(room.token, "Ada")
    assert not (_labels(you) & FACILITATOR_ONLY)
    _button(you, "⚖️ Even split").click().run()
    _button(you, "Save my prediction").click().run()
    assert not you.exception, you.exception
    me = you.session_state["join_me"]
    assert whatif.load_workshop(run_id, store=get_store()).prediction_of(me["id"]) is not None

    fac.run()
    _button(fac, "▶️ Continue unchanged").click().run()
    assert wait_for_session(fac).state == State.BETWEEN_ROUNDS
    you.run()
    you.text_area(key="join_text").set_value(HOSTILE)
    _button(you, "Send").click().run()
    assert not you.exception, you.exception
    assert not (_labels(you) & FACILITATOR_ONLY)
    me = you.session_state["join_me"]
    [mine] = rows(you, "join_room")  # what the room list draws
    assert (mine["text"], mine["actions"]) == (HOSTILE, [{"name": "vote", "label": "+1 (0)", "enabled": False,
                                                          "title": "your own contribution"}])
    everything = " ".join(m.value for m in [*you.markdown, *you.caption, *you.info, *you.warning, *you.error])
    assert "evil.example" not in everything and "<img" not in everything
    press(you, "join_room", f"vote:{mine['id']}")  # forged: the button is greyed, and the engine refuses it too
    assert any("your own contribution" in w.value for w in you.warning)
    assert not whatif.load_workshop(run_id, store=get_store()).votes

    fac.run()
    [row] = all_rows(fac)
    assert row["text"] == HOSTILE and [a["name"] for a in row["actions"]] == ["accept", "reject", "hide", "edit"]
    assert "evil.example" not in " ".join(m.value for m in fac.markdown)
    press(fac, "workshop_list_claim", f"accept:{row['id']}", f"accept:{row['id']}")  # a re-sent press is skipped
    assert not fac.exception, fac.exception
    assert whatif.load_workshop(run_id, store=get_store()).pending()
    you.run()
    assert rows(you, "join_room")[0]["who"].endswith("you · accepted · for the next round")  # the author is told
    _button(fac, "▶️ Continue with 1 accepted").click().run()
    assert wait_for_session(fac).state == State.COMPLETED
    you.run()
    assert rows(you, "join_room")[0]["who"].endswith("you · accepted · went into round 2")
    said = [p["text"] for p in get_store().get_run(run_id).record["participants"]]
    assert " ".join(HOSTILE.split()) in said

    # after the report no round can take a contribution: a late one can be hidden, not accepted
    late = whatif.contribute(run_id, me["id"], you.session_state["join_me"]["key"], "A late thought", store=get_store())
    fac.run()
    sent, unsent = rows(fac, "workshop_list_claim")
    assert (sent["actions"], [a["name"] for a in unsent["actions"]]) == ([], ["hide"])
    press(fac, "workshop_list_claim", f"accept:{late.id}")
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
    fac, run_id = _facilitator_at_review()
    code = whatif.load_workshop(run_id, store=get_store()).code
    at = _page("app_pages/join.py")
    for _ in range(CODE_FAILURES):
        at.text_input(key="join_code_text").set_value("AAAAAA")
        _button(at, "Find the workshop").click().run()
        assert any("no workshop has this code" in e.value for e in at.error)
    at.text_input(key="join_code_text").set_value(code)
    _button(at, "Find the workshop").click().run()
    assert any("too many wrong codes" in e.value for e in at.error)
    fresh = _page("app_pages/join.py")
    fresh.text_input(key="join_code_text").set_value(code.lower())
    _button(fresh, "Find the workshop").click().run()
    assert fresh.text_input(key="join_name_text") is not None and not fresh.error


def test_the_facilitator_edits_and_merges_and_a_refused_contribution_keeps_its_text(llm_env) -> None:  # noqa: ANN001
    fac, run_id, token = _facilitator_between_rounds()
    you = _join(token, "Ada")
    other, other_key = whatif.join_workshop(token, "Bo", device_key=_device(), store=get_store())
    you.text_area(key="join_text").set_value("Tides stop")
    _button(you, "Send").click().run()
    assert you.text_area(key="join_text").value == ""  # emptied once stored
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

    you.run()
    you.text_area(key="join_text").set_value("A late thought")
    _button(fac, "🔒 Close workshop").click().run()
    _button(you, "Send").click().run()
    assert any("closed" in e.value for e in you.error)
    assert you.text_area(key="join_text").value == "A late thought"  # what they typed is still in the box
    assert _button(you, "Send").disabled and any("was not sent" in w.value for w in you.warning)
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
    you = _join(token, "Eve")
    assert not [b for b in you.button if "Accept" in b.label]  # a participant never sees it


def _in_order(node) -> list[str]:  # noqa: ANN001
    """The page's texts and expander labels in document order."""
    out = [str(getattr(node, "value", None) or getattr(node, "label", ""))]
    for child in getattr(node, "children", {}).values():
        out += _in_order(child)
    return [t for t in out if t]


def test_a_phone_in_review_sees_the_prediction_form_before_the_scenario(llm_env) -> None:  # noqa: ANN001
    fac, run_id = _facilitator_at_review()
    you = _join(whatif.load_workshop(run_id, store=get_store()).token, "Ada")
    texts = _in_order(you.main)
    form = next(i for i, t in enumerate(texts) if "Your prediction" in t)
    scenario = next(i for i, t in enumerate(texts) if "The refined scenario" in t)
    assert form < scenario, texts[:12]


def test_closing_the_workshop_keeps_the_box_and_says_it_was_not_sent(llm_env) -> None:  # noqa: ANN001
    fac, run_id, token = _facilitator_between_rounds()
    you = _join(token, "Ada")
    # AppTest holds a form's typed text until Send, as the browser does; that the browser keeps it in the box
    # across the closing is tests/browser/test_workshop_browser.py's check: here, the same box stays, Send off
    _button(fac, "🔒 Close workshop").click().run()
    you.run()
    assert you.text_area(key="join_text") is not None and _button(you, "Send").disabled
    assert [w.value for w in you.warning if "not sent" in w.value] == [
        "The workshop is closed: what is in the box below was not sent. Copy it if you want to keep it."]
    _button(you, "Done, take the box away").click().run()
    assert not [t for t in you.text_area if t.key == "join_text"] and not you.exception
    assert whatif.load_workshop(run_id, store=get_store()).contributions == []


def test_a_send_the_page_never_confirmed_is_not_merged_into_the_next(llm_env) -> None:  # noqa: ANN001
    """The reply that empties the box is lost (a redraw the browser never got): the box still shows the stored
    text and the participant types on. The next Send stores only what was typed after it; the same text sent
    again is shown as sent and stored once."""
    fac, run_id, token = _facilitator_between_rounds()
    you = _join(token, "Ada")
    you.text_area(key="join_text").set_value("Ferries need new charts")
    _button(you, "Send").click().run()
    you.text_area(key="join_text").set_value("Ferries need new charts")  # what the browser still showed
    _button(you, "Send").click().run()
    assert any("Sent to the facilitator" in c.value for c in you.caption)
    you.text_area(key="join_text").set_value("Ferries need new charts and pilots who know the new shoals")
    _button(you, "Send").click().run()
    texts = [c.text for c in sorted(whatif.load_workshop(run_id, store=get_store()).contributions,
                                    key=lambda c: c.at)]
    assert texts == ["Ferries need new charts", "and pilots who know the new shoals"]
    you.text_area(key="join_text").set_value("Ferries need new charts too, said twice on purpose")
    _button(you, "Send").click().run()
    assert len(whatif.load_workshop(run_id, store=get_store()).contributions) == 3


def test_list_presses_hide_show_reject_and_a_participant_cannot_press_the_facilitators_actions(llm_env) -> None:  # noqa: ANN001
    fac, run_id, token = _facilitator_between_rounds()
    you = _join(token, "Ada")
    bo, bo_key = whatif.join_workshop(token, "Bo", device_key=_device(), store=get_store())
    theirs = whatif.contribute(run_id, bo.id, bo_key, "Night fishing changes", "concern", store=get_store())

    # a participant's list only knows +1: a forged facilitator press is refused and changes nothing
    you.run()
    press(you, "join_room", f"accept:{theirs.id}", f"hide:{theirs.id}")
    assert any("only +1" in w.value for w in you.warning)
    assert not whatif.load_workshop(run_id, store=get_store()).contributions[0].decision
    press(you, "join_room", f"vote:{theirs.id}", f"vote:{theirs.id}")  # the same press re-sent: one vote
    press(you, "join_room", f"vote:{theirs.id}")
    assert len(whatif.load_workshop(run_id, store=get_store()).votes) == 1
    assert rows(you, "join_room")[0]["actions"][0] == {"name": "vote", "label": "+1 (1)", "enabled": False,
                                                        "title": "you have +1'd it"}

    fac.run()
    assert list_keys(fac) == ["workshop_list_concern"]
    assert data(fac, HEARTBEAT)["watch"] == STALL_S and rows(fac, HEARTBEAT) == []  # the page watches itself
    press(fac, "workshop_list_concern", f"hide:{theirs.id}")
    [row] = rows(fac, "workshop_list_concern")
    assert row["muted"] and [a["name"] for a in row["actions"]] == ["accept", "reject", "show", "edit"]
    you.run()
    assert rows(you, "join_room") == []  # hidden from the room
    bo_view = _page("app_pages/join.py", {"w": token})
    bo_view.session_state["join_me"] = {"run_id": run_id, "token": token, "id": bo.id, "key": bo_key, "name": "Bo"}
    bo_view.run()
    [own] = rows(bo_view, "join_room")  # its author still sees it, and why
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
