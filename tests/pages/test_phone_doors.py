"""The ways to the phone page, and the app without it: the old Join address leads there with its query kept; a
visitor on any page of the app (or an unknown address) reads the facilitator-only notice and a link to it, and
no widget of the page; under plain ``streamlit run app.py`` (no phone page served) no workshop is offered."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient
from streamlit.testing.v1 import AppTest

from ifworld.whatif import State
from tests.security.helpers import wait_for_session
from ui import not_found, phone_server

APP = str(Path(__file__).resolve().parents[2] / "app.py")
PAGES = sorted(str(p.relative_to(Path(APP).parent)) for p in (Path(APP).parent / "app_pages").glob("*.py"))
NOTICE = "This page is for the facilitator"
WIDGETS = ("button", "text_input", "text_area", "number_input", "toggle", "checkbox", "radio", "selectbox",
           "multiselect", "slider", "select_slider", "date_input", "time_input", "color_picker", "chat_input")


def test_the_old_join_address_leads_to_the_phone_page_with_its_query() -> None:
    client = TestClient(Starlette(routes=phone_server.ROUTES), base_url="http://class.example")
    moved = client.get("/join?w=T0ken-_x&personal=C0DE12", follow_redirects=False)
    assert moved.status_code == 308 and moved.headers["location"] == "p/?w=T0ken-_x&personal=C0DE12"
    assert client.get("/join", follow_redirects=False).headers["location"] == "p/"
    landed = client.get("/join?w=T0ken-_x&personal=C0DE12")  # relative: under the app's path prefix too
    assert landed.status_code == 200 and str(landed.url) == "http://class.example/p/?w=T0ken-_x&personal=C0DE12"
    assert 'id="start"' in landed.text


def _visitor(page: str | None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    if page:
        at.switch_page(page)
    return at.run()


def _only_the_notice(at: AppTest) -> None:
    assert not at.exception, at.exception
    assert [b.proto.url for b in at.get("link_button")] == [f"{phone_server.PREFIX}/"]  # "👥 Join a workshop"
    for kind in WIDGETS:
        assert not list(getattr(at, kind)), kind
        assert not list(getattr(at.sidebar, kind)), f"sidebar {kind}"


@pytest.mark.parametrize("page", PAGES)
def test_a_visitor_on_any_page_reads_the_notice_and_a_link_to_the_phone_page(page, monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setenv("IFWORLD_REQUIRE_SIGNIN", "1")  # sessions are visitors until they sign in
    at = _visitor(page)
    assert NOTICE in " ".join(w.value for w in at.warning), page
    _only_the_notice(at)


def test_a_visitor_at_an_unknown_address_reads_page_not_found_and_a_link_to_the_phone_page(monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setenv("IFWORLD_REQUIRE_SIGNIN", "1")
    monkeypatch.setattr(not_found, "requested_path", lambda url, base: "no_such_page")  # AppTest has no address
    at = _visitor(None)
    assert [t.value for t in at.title] == ["Page not found"]
    assert [c.value for c in at.code] == ["/no_such_page"] and not at.get("page_link")  # no page named to him
    _only_the_notice(at)


def test_plain_streamlit_run_offers_no_workshop_and_says_how_to_get_one(llm_env, monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setattr(phone_server, "SERVED", False)  # `streamlit run app.py`: no phone page beside the script
    at = _visitor("app_pages/whatif.py")  # loopback: the facilitator
    at.toggle(key="whatif_review").set_value(True)
    next(b for b in at.button if b.label.startswith("▶️ Start run")).click().run()
    assert wait_for_session(at).state == State.REVIEW
    at.run()
    assert not at.exception, at.exception
    assert not [b for b in at.button if "Open workshop" in b.label]
    assert any("`ifworld app`" in c.value for c in at.caption)
