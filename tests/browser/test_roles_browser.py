"""Who is who in a real browser, with the app started the way docs/workshop.md tells a class: ``ifworld app
--address 0.0.0.0`` (network mode). Every browser below reaches it over 127.0.0.1 — and network mode trusts no
address, so that gives none of them the facilitator's role.

The facilitator signs in with the link ``ifworld app`` printed; three participants join on the phone page (``/p/``,
the room's only page) and, like a visitor, never reach a Streamlit page of the facilitator's: every page's
address, typed by hand, answers that it is for the facilitator — with no sidebar, no navigation and no control,
only a link to the phone page (which leads there) — and an unknown address answers "Page not found" with the same
link. A participant's reloads, second tabs and the old Join page's address (``/join?w=…``) stay the same person;
and the run they tried to move stays exactly as it was in the store. A second test points the facilitator's
sidebar at another server and checks that the configured key never reaches it.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from ifworld.runs.store import RunStore
from ifworld.whatif import load_workshop
from tests.browser.conftest import KNOWN_KEY, SHOTS, wait_idle
from tests.browser.phone_steps import join
from tests.fixtures.recording_server import recording_server

PAGES = ("", "whatif", "causal_map", "runs", "rws_browse", "rws_benchmark", "beliefs", "belief_sweep", "settings")
NOTICE = "This page is for the facilitator"




def _context(browser: Any, width: int = 1300) -> tuple[Any, Any]:
    ctx = browser.new_context(viewport={"width": width, "height": 1000})
    page = ctx.new_page()
    page.set_default_timeout(120_000)
    return ctx, page


def _go(page: Any, url: str, expect: str) -> None:
    page.goto(url, wait_until="commit")
    page.get_by_text(expect, exact=False).first.wait_for()
    wait_idle(page)


def _snapshot(db: Path, run_id: str) -> str:
    s = RunStore(db)
    try:
        info = s.get_run(run_id)
        return json.dumps([info.status, s.transitions(run_id), len(s.list_runs()), s.workshop_row(run_id=run_id)],
                          default=str, sort_keys=True)
    finally:
        s.close()


def _join_link(page: Any):  # noqa: ANN202
    return page.locator("[data-testid=stMain]").get_by_role("link", name="Join a workshop")


def _assert_room_only(page: Any, base: str) -> None:
    """Every page says it is for the facilitator, with no sidebar, navigation, control or store path — only the
    link to the phone page; an unknown address says so, with the same link."""
    for path in (*PAGES, "no_such_page"):
        _go(page, f"{base}/{path}", "Page not found" if path == "no_such_page" else NOTICE)
        assert page.locator("[data-testid=stSidebar]").count() == 0, f"/{path} draws a sidebar"
        assert page.locator("[data-testid=stSidebarNav]").count() == 0
        buttons = [t for t in page.locator("[data-testid=stMain] button").all_inner_texts() if t.strip()]
        assert not buttons, f"/{path} offers {buttons}"
        hrefs = [a.get_attribute("href") or "" for a in page.locator("[data-testid=stMain] a").all()]
        assert [h for h in hrefs if not h.startswith("#")] == ["/p/"], f"/{path} links to {hrefs}"  # (# : a heading's)
        html = page.content()
        assert "Model connection" not in html and "runs.sqlite" not in html and KNOWN_KEY not in html


def _follow_join_link(page: Any) -> Any:
    """Press the notice's "Join a workshop" (it may open a tab of its own): the page it leads to."""
    link = _join_link(page)
    if link.get_attribute("target") == "_blank":
        with page.context.expect_page() as opened:
            link.click()
        reached = opened.value
        reached.set_default_timeout(120_000)
    else:
        link.click()
        reached = page
    reached.get_by_label("Workshop code").wait_for()  # the phone page's first screen
    assert reached.url.split("?")[0].endswith("/p/"), reached.url
    return reached


def _sign_in(browser: Any, app: dict[str, Any]) -> tuple[Any, Any]:
    ctx, fac = _context(browser)
    fac.goto(app["signin"], wait_until="commit")
    fac.get_by_text("Model connection").first.wait_for()  # the facilitator's sidebar
    wait_idle(fac)
    assert "token" not in fac.url  # the token left the address bar: a projector never shows it
    return ctx, fac


def test_only_the_signed_in_facilitator_drives_and_everyone_else_reaches_the_phone_page(browser, network_app) -> None:  # noqa: ANN001
    app, base = network_app, network_app["url"]
    vctx, visitor = _context(browser, width=390)  # a phone
    _assert_room_only(visitor, base)
    _go(visitor, f"{base}/signin?token=not-the-token", "Sign-in refused")
    _go(visitor, f"{base}/whatif", NOTICE)
    SHOTS.mkdir(parents=True, exist_ok=True)
    visitor.screenshot(path=str(SHOTS / "roles_visitor_notice.png"))
    reached = _follow_join_link(visitor)  # the notice's link leads to the phone page
    assert reached.get_by_text("Model connection").count() == 0 and KNOWN_KEY not in reached.content()

    fctx, fac = _sign_in(browser, app)
    fac.reload(wait_until="commit")
    fac.get_by_text("Model connection").first.wait_for()  # a reload keeps the role (the cookie)
    _go(fac, f"{base}/whatif", "Proposition")
    fac.get_by_label("Rounds", exact=True).fill("2")
    fac.get_by_text("Pause for review after the refiner").click()
    fac.get_by_text("Pause between rounds for workshop input").click()
    fac.get_by_role("button", name="Start run").click()
    fac.get_by_text("Paused before any expert runs").first.wait_for()
    wait_idle(fac)
    fac.get_by_role("button", name="Open workshop").click()
    fac.get_by_text("Scan to join").first.wait_for()
    wait_idle(fac)
    run_id = fac.url.split("run=")[1].split("&")[0]
    room = load_workshop(run_id, store=RunStore(app["db"]))
    assert app["signin"].split("token=")[1] not in fac.content()
    fac.screenshot(path=str(SHOTS / "roles_facilitator_open.png"))
    before, calls = _snapshot(app["db"], run_id), app["fake"].count()

    people = []
    for name in ("Ada", "Bo", "Cy"):
        ctx, p = _context(browser, width=390)
        join(p, base, room.code, name)
        people.append((ctx, p))
    ada = people[0][1]
    ada.reload(wait_until="commit")  # a reload is the same person
    ada.get_by_text("You are Ada · ").wait_for()
    second = people[0][0].new_page()  # and so is a second tab, opened at the old Join page's address
    second.goto(f"{base}/join?w={room.token}", wait_until="commit")
    second.get_by_text("You are Ada · ").wait_for()
    assert second.url.split("?")[0].endswith("/p/"), second.url
    second.close()
    for _, p in people:
        for path in (f"whatif?run={run_id}", "runs", f"runs?run={run_id}", "settings", f"causal_map?run={run_id}"):
            _go(p, f"{base}/{path}", NOTICE)
            assert not [t for t in p.locator("[data-testid=stMain] button").all_inner_texts() if t.strip()]
    back = _follow_join_link(people[2][1])  # from a notice the link leads back to the phone page, where
    back.goto(f"{base}/p/?w={room.token}", wait_until="commit")  # the workshop's link still finds Cy
    back.get_by_text("You are Cy · ").wait_for()
    _assert_room_only(people[1][1], base)
    after = load_workshop(run_id, store=RunStore(app["db"]))
    assert sorted(p.name for p in after.participants) == ["Ada", "Bo", "Cy"]  # three people, whatever the tabs
    assert _snapshot(app["db"], run_id) == before  # nobody but the facilitator moved, edited or deleted the run
    assert app["fake"].count() == calls  # no participant or visitor reached the model
    for ctx in [vctx, fctx, *(c for c, _ in people)]:
        ctx.close()


def test_the_configured_key_never_reaches_a_server_typed_in_the_sidebar(browser, network_app) -> None:  # noqa: ANN001
    with recording_server() as (url, seen):
        ctx, fac = _sign_in(browser, network_app)
        fac.get_by_text("Model connection").first.click()  # the panel is folded while a model is configured
        fac.get_by_role("textbox", name="Base URL").fill(url)
        fac.get_by_role("textbox", name="Base URL").press("Enter")
        wait_idle(fac)
        fac.get_by_role("button", name="Test connection").click()
        deadline = time.time() + 60
        while not seen and time.time() < deadline:
            time.sleep(0.2)
        wait_idle(fac)
        assert seen, "the typed server was never called"
        assert all(KNOWN_KEY not in r for r in seen), "the configured key reached the typed server"
        assert KNOWN_KEY not in fac.content()
        ctx.close()
