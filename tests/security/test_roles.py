"""Who is who, checked where actions are carried out: every mutating front door refuses a participant, a visitor
and an unidentified caller, and changes nothing in the store; a key never follows a typed endpoint; the pages
pass the session's caller to every guarded call (a page that forgot would silently act as the terminal user)."""

from __future__ import annotations

import ast
import json
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from ifworld import runs, whatif
from ifworld.access import OPERATOR, AccessDenied, Caller, Role, cookie_matches, cookie_value, is_loopback
from ifworld.config import load_settings
from ifworld.whatif import service
from ifworld.whatif.params import default_params
from ifworld.whatif.session import Action, State, load_session
from tests.fixtures.recording_server import recording_server
from tests.security.helpers import APP, FAKE_KEY, ROOT

PROP = "What if the Moon disappeared overnight?"
NOT_FACILITATOR = [Caller(role=Role.PARTICIPANT, participant="p1"), Caller(role=Role.VISITOR), None]
GUARDED = {"drive_session", "cancel_session", "start_session", "start_run", "stream_run", "export_run",
           "delete_run", "judge_record", "open_workshop", "decide", "hide_contribution", "close_workshop",
           "reveal_workshop", "continue_workshop", "start_benchmark", "load_settings", "add_custom_expert",
           "delete_custom_expert", "set_roster", "release_code"}
"""Front doors that act with the facilitator's powers: a page must name the caller on every call."""


def _snapshot(store: Any, run_id: str) -> str:
    info = store.get_run(run_id)
    return json.dumps([info.status, info.record, store.transitions(run_id), store.workshop_events(run_id),
                       store.workshop_row(run_id=run_id), store.custom_expert_rows()], default=str, sort_keys=True)


@pytest.fixture
def paused(fake_server, settings, store) -> Iterator[str]:  # noqa: ANN001
    params = default_params(PROP, experts=["physics", "economics"], rounds=2, review=True, pause_between_rounds=True)
    run_id = service.run(params, settings=settings, store=store, source="page")["run_id"]
    w = whatif.open_workshop(run_id, store=store)
    person, key = whatif.join_workshop(w.token, "Ada", device_key=secrets.token_urlsafe(16), store=store)
    whatif.contribute(run_id, person.id, key, "Tides stop", store=store)
    whatif.add_custom_expert("tide lore", "You reason from tide tables, harbour records and sailors' logs.",
                             store=store)
    yield run_id
    whatif.EXPERTS.unregister("tide_lore")


def _actions(run_id: str, store: Any, settings: Any) -> dict[str, Callable[[Caller | None], Any]]:
    cid = whatif.load_workshop(run_id, store=store).contributions[0].id

    def consume(events: Any) -> None:
        for _ in events or ():
            pass

    return {
        "start": lambda c: runs.start_run("whatif.ifworld", default_params(PROP), caller=c, store=store),
        "continue": lambda c: consume(whatif.drive_session(run_id, source="page", caller=c, action=Action.CONTINUE,
                                                           store=store, settings=settings)),
        "apply edits": lambda c: consume(whatif.drive_session(run_id, source="page", caller=c,
                                                              action=Action.APPLY_EDITS, answer={"panel": ["physics"]},
                                                              store=store, settings=settings)),
        "resume": lambda c: consume(runs.stream_run(run_id, caller=c, store=store, settings=settings)),
        "cancel": lambda c: whatif.cancel_session(run_id, source="page", caller=c, store=store),
        "delete": lambda c: runs.delete_run(run_id, caller=c, store=store),
        "export": lambda c: runs.export_run(run_id, "json", caller=c, store=store),
        "judge": lambda c: whatif.judge_record({"proposition": PROP, "report": {}}, settings, caller=c),
        "model connection": lambda c: load_settings({"base_url": "http://127.0.0.1:9/v1"}, caller=c),
        "open workshop": lambda c: whatif.open_workshop(run_id, caller=c, store=store),
        "decide": lambda c: whatif.decide(run_id, c, cid, "accept", store=store),
        "hide": lambda c: whatif.hide_contribution(run_id, c, cid, store=store),
        "close": lambda c: whatif.close_workshop(run_id, c, store=store),
        "set roster": lambda c: whatif.set_roster(run_id, c, ["Ada", "Bo"], store=store),
        "release code": lambda c: whatif.release_code(run_id, c, "Ada", store=store),
        "reveal": lambda c: whatif.reveal_workshop(run_id, c, store=store),
        "continue the workshop": lambda c: whatif.continue_workshop(run_id, c, store=store, settings=settings),
        "add expert": lambda c: whatif.add_custom_expert("harbour history", "You reason from harbour records and "
                                                         "old charts of the coast.", caller=c, store=store),
        "delete expert": lambda c: whatif.delete_custom_expert("tide lore", caller=c, store=store),
    }


@pytest.mark.parametrize("who", NOT_FACILITATOR, ids=["participant", "visitor", "nobody"])
def test_every_mutating_front_door_refuses_anyone_but_the_facilitator(paused, store, settings, fake_server,
                                                                      who) -> None:  # noqa: ANN001
    before, calls = _snapshot(store, paused), fake_server.count()
    runs_before = len(store.list_runs())
    for name, act in _actions(paused, store, settings).items():
        with pytest.raises(AccessDenied, match="only the facilitator"):
            act(who)
        assert _snapshot(store, paused) == before, f"{name} changed the store"
    assert len(store.list_runs()) == runs_before and fake_server.count() == calls  # no run, no model call


def test_the_facilitator_passes_the_same_doors(paused, store, settings) -> None:  # noqa: ANN001
    actions = _actions(paused, store, settings)
    assert json.loads(actions["export"](OPERATOR))["id"] == paused
    actions["decide"](OPERATOR)
    actions["continue"](OPERATOR)
    assert load_session(paused, store).state in (State.BETWEEN_ROUNDS, State.ROUND)
    try:
        actions["add expert"](OPERATOR)
        actions["delete expert"](OPERATOR)
        assert [r["name"] for r in store.custom_expert_rows()] == ["harbour_history"]
    finally:
        whatif.EXPERTS.unregister("harbour_history")


# -- a key stays with its endpoint -------------------------------------------------------------------------------
def test_a_typed_base_url_never_gets_the_configured_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IFWORLD_BASE_URL", "http://127.0.0.1:8000/v1")
    monkeypatch.setenv("IFWORLD_API_KEY", FAKE_KEY)
    assert load_settings().api_key.get_secret_value() == FAKE_KEY
    same = load_settings({"base_url": "http://127.0.0.1:8000/v1/"})
    assert same.api_key is not None and same.api_key.get_secret_value() == FAKE_KEY
    moved = load_settings({"base_url": "http://attacker.example:9000/v1"})
    assert moved.base_url == "http://attacker.example:9000/v1" and moved.api_key is None
    typed = load_settings({"base_url": "http://attacker.example:9000/v1", "api_key": "sk-typed-for-it-123456"})
    assert typed.api_key is not None and typed.api_key.get_secret_value() == "sk-typed-for-it-123456"
    monkeypatch.delenv("IFWORLD_BASE_URL")
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)  # OpenAI's key, OpenAI's endpoint: not a typed one either
    assert load_settings({"base_url": "http://127.0.0.1:9000/v1"}).api_key is None


@pytest.fixture
def listener() -> Iterator[tuple[str, list[str]]]:
    with recording_server() as found:
        yield found


def test_the_sidebar_test_button_never_sends_the_key_to_a_typed_server(fake_server, listener, monkeypatch) -> None:  # noqa: ANN001
    """The facilitator points the sidebar at another server and tests it: that server sees no key at all."""
    url, seen = listener
    monkeypatch.setenv("IFWORLD_BASE_URL", fake_server.url)
    monkeypatch.setenv("IFWORLD_API_KEY", FAKE_KEY)
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page("app_pages/settings.py")
    at.run()
    at.sidebar.text_input(key="conn_base_url").set_value(url)
    next(b for b in at.sidebar.button if b.label == "Test connection").click().run()
    assert seen, "the typed server was never called"
    assert all(FAKE_KEY not in r for r in seen)
    assert all(FAKE_KEY not in r.auth for r in fake_server.requests)  # nothing went to the configured one either


# -- who the app server trusts -----------------------------------------------------------------------------------
def test_loopback_addresses_and_cookies() -> None:
    assert all(is_loopback(a) for a in ("127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost"))
    assert not any(is_loopback(a) for a in ("0.0.0.0", "", None, "192.168.1.5", "::", "example.org"))
    token = secrets.token_urlsafe(16)
    assert cookie_matches(cookie_value(token), token) and token not in cookie_value(token)
    assert not cookie_matches(token, token) and not cookie_matches("", token) and not cookie_matches(None, token)


def test_a_forged_connection_in_a_visitors_session_is_ignored(fake_server, monkeypatch) -> None:  # noqa: ANN001
    """Widget state a visitor's browser forges for the sidebar's fields (which it is never drawn) changes
    nothing, on any page it opens by its address: only the facilitator's session carries a connection override."""
    monkeypatch.setenv("IFWORLD_REQUIRE_SIGNIN", "1")
    monkeypatch.setenv("IFWORLD_BASE_URL", fake_server.url)
    for page in ("app_pages/whatif.py", "app_pages/settings.py"):
        at = AppTest.from_file(APP, default_timeout=60)
        at.session_state["conn_base_url"] = "http://127.0.0.1:9/v1"
        at.switch_page(page)
        at.run()
        assert not at.exception and not at.sidebar.text_input and not at.sidebar.button
        assert not any("Model connection" in str(e.label) for e in at.sidebar.expander)
        assert "This page is for the facilitator" in " ".join(w.value for w in at.warning)
        assert load_settings().base_url == fake_server.url  # the forged field reached no one's settings


def _calls_without_caller(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            named = any(k.arg == "caller" for k in node.keywords) or any(
                isinstance(a, ast.Call) and getattr(a.func, "id", "") == "caller" for a in node.args)
            if name in GUARDED and not named:
                if name == "load_settings" and not node.args:
                    continue  # no overrides: nothing to authorise
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno} {name}()")
    return bad


def test_pages_name_the_caller_on_every_guarded_call() -> None:
    files = [*ROOT.joinpath("ui").glob("*.py"), *ROOT.joinpath("app_pages").glob("*.py"), ROOT / "app.py"]
    bad = [hit for f in files for hit in _calls_without_caller(f) if "ui/asgi.py" not in hit]
    assert not bad, "guarded calls without caller=: " + ", ".join(bad)
