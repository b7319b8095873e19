"""A facilitator's page that stops drawing heals itself (issue #42 item 3).

The blank page seen with a class of 10 (the server healthy, the page drawing nothing more until a reload) could
not be made to happen on demand; what it comes to for the page is that the server's updates stop reaching it
while its connection stays open. That is made here: the test sits between the page and the server
(Playwright's websocket routing) and, once the room is drawn, drops everything the server sends on that
connection. The page's heartbeat (ui/room_list.py ``watch``) then sees no redraw for STALL_S and reloads; the
new connection passes untouched and the room is drawn again. Going to another page of the app disarms it."""

from __future__ import annotations

import re

from tests.browser.conftest import wait_idle
from tests.browser.test_workshop_closing_browser import room_between_rounds
from ui.workshop_facilitator import STALL_S

ARMED = "() => !!(window.__ifwWatch && window.__ifwWatch.href)"
DISARMED = "() => !!window.__ifwWatch && window.__ifwWatch.href === ''"


def test_a_page_whose_updates_stop_reloads_itself_and_draws_the_room(browser, app_url, e2e_fake,  # noqa: ANN001
                                                                     tmp_path_factory) -> None:
    db, run_id, room = room_between_rounds(e2e_fake, tmp_path_factory)
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = ctx.new_page()
    page.set_default_timeout(120_000)
    cut = {"on": False, "connections": 0}

    def route(ws) -> None:  # noqa: ANN001
        number = cut["connections"]
        cut["connections"] += 1
        server = ws.connect_to_server()
        server.on_message(lambda message: None if cut["on"] and number == 0 else ws.send(message))
        ws.on_message(server.send)

    try:
        page.route_web_socket(re.compile(r".*/_stcore/stream"), route)
        page.goto(f"{app_url}/whatif?run={run_id}")
        page.get_by_text(re.compile(r"\d+ participant\(s\)")).first.wait_for()
        page.wait_for_function(ARMED)
        page.evaluate("window.__before = 1")
        with page.expect_navigation(timeout=(STALL_S + 60) * 1000):  # the reload
            cut["on"] = True
        page.get_by_text(re.compile(r"\d+ participant\(s\)")).first.wait_for()
        assert page.evaluate("window.__before") is None and cut["connections"] >= 2
        assert len(page.evaluate("JSON.parse(sessionStorage.getItem('ifw-healed') || '[]')")) == 1
        page.wait_for_function(ARMED)
        wait_idle(page)
        page.evaluate("window.__before = 1")
        page.get_by_role("link", name="Home").first.click()  # another page of the app: not the room's to watch
        page.wait_for_function(DISARMED, timeout=30_000)
        assert page.evaluate("window.__before") == 1
    finally:
        ctx.close()
    del db, room
