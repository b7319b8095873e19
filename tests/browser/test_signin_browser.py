"""The sign-in link leaves no trace and signing out signs out (#40 item 6), in Chromium against ``ifworld app
--address 0.0.0.0``. Before: ``/signin?token=…`` stayed in the projecting browser's history, and the cookie was one
permanent value per token, so a copy of it worked after ``/signout``."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Error as PlaywrightError

from ifworld import access
from tests.browser.conftest import wait_idle

NOTICE = "This page is for the facilitator"


def test_the_token_never_stays_in_history_and_signout_ends_a_copied_cookie(browser, network_app) -> None:  # noqa: ANN001
    app, base = network_app, network_app["url"]
    token = app["signin"].split("token=")[1]
    ctx = browser.new_context(viewport={"width": 1300, "height": 1000})
    fac = ctx.new_page()
    fac.set_default_timeout(120_000)
    fac.goto(f"{base}/p/", wait_until="commit")  # something before, so "back" has somewhere to go
    fac.get_by_label("Workshop code").wait_for()  # the phone page (a visitor's Streamlit page would be a notice)
    fac.goto(app["signin"], wait_until="commit")
    fac.get_by_text("Model connection").first.wait_for()
    wait_idle(fac)
    assert token not in fac.url
    assert access.FACILITATOR_COOKIE not in fac.evaluate("document.cookie")  # HttpOnly
    seen: list[str] = []
    for _ in range(3):  # walk the whole session history back: no entry holds the token
        try:
            fac.go_back(wait_until="commit")
        except PlaywrightError as exc:  # the entry's own page navigated on (the sign-in exchange posts and moves
            # on), or the page was between documents when asked: the history step was still taken — read where it is
            if "ERR_ABORTED" not in str(exc) and "Not attached to an active page" not in str(exc):
                raise
            fac.wait_for_load_state("domcontentloaded")
        seen.append(fac.url)
    assert not any(token in url for url in seen), seen
    cookie: Any = next(c for c in ctx.cookies() if c["name"] == access.FACILITATOR_COOKIE)
    assert cookie["value"] != access.cookie_value(token)

    copy = browser.new_context(viewport={"width": 1300, "height": 1000})  # an onlooker's copy of the cookie
    copy.add_cookies([{k: cookie[k] for k in ("name", "value", "domain", "path")}])
    other = copy.new_page()
    other.set_default_timeout(120_000)
    other.goto(f"{base}/settings", wait_until="commit")
    other.get_by_text("Signed-in facilitator browsers").first.wait_for()  # the copy works while the session lives
    fac.goto(f"{base}/signout", wait_until="commit")
    fac.wait_for_timeout(2500)  # the server's 2 s memo of a session
    other.goto(f"{base}/settings", wait_until="commit")
    other.get_by_text(NOTICE).first.wait_for()  # ended for good: the copied cookie no longer signs anyone in
    ctx.close()
    copy.close()
