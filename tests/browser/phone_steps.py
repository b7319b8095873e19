"""What a participant does on the phone page (``/p/``, ifworld/web/phone.js) in a real browser, as steps the
browser tests share: open a phone, join by code or by a workshop's link, predict an even split, send, +1 a row.
Each step waits for the page's own answer (a status line, a row, a button's title), never for a time.

The phone page is not Streamlit: there is no running indicator to wait for, and its room list is plain DOM
(``#room li.row`` with ``.who``, ``.text`` and its buttons), not a component in a shadow root.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from playwright.sync_api import expect

from ui.workshop_rows import VOTED

PHONE = {"width": 390, "height": 844}
WAIT_MS = 120_000  # a view is pushed within a poll (0.4 s); the margin is for a 2-core machine running other tests
STAY = "() => { window.__stayed = true; }"  # gone after any reload or navigation
STAYED = "() => window.__stayed === true"
FACILITATOR = ("Accept", "Reject", "Hide", "Close workshop", "Open workshop", "Continue unchanged",
               "Apply edits", "Cancel run", "Reveal predictions", "Continue with", "Edit or merge")
# Every control of the page inside the viewport's width, and no sideways scrolling (a phone, 200 % zoom).
FITS = """() => { const w = document.documentElement.clientWidth;
    const out = [...document.querySelectorAll('button, input, textarea, select, summary')].filter(e => {
        const r = e.getBoundingClientRect();
        return r.width > 0 && r.height > 0 && (r.left < -1 || r.right > w + 1); })
        .map(e => (e.getAttribute('aria-label') || e.innerText || e.id || e.tagName).slice(0, 40));
    return {scroll: document.documentElement.scrollWidth - w, outside: out}; }"""


@contextmanager
def phone(browser: Any, view: dict[str, int] = PHONE, scale: float = 1.0) -> Iterator[Any]:  # noqa: ANN401
    """A page in a browser context of its own (its own device cookie: one person), closed afterwards; ``scale``:
    the device's pixel ratio (1.75 for a projector at 175 %)."""
    ctx = browser.new_context(viewport=view, device_scale_factor=scale)
    page = ctx.new_page()
    page.set_default_timeout(WAIT_MS)
    try:
        yield page
    finally:
        ctx.close()


def join(page: Any, url: str, code: str, name: str) -> None:  # noqa: ANN401
    """Code, then name, as a participant does; the page is in the room after it (marked: no reload from here)."""
    page.goto(f"{url}/p/", wait_until="commit")  # on a loaded machine 'load' can take long; the form is waited for
    page.get_by_label("Workshop code").fill(code.lower())
    page.get_by_role("button", name="Find the workshop").click()
    join_by_name(page, name)


def join_by_name(page: Any, name: str) -> None:  # noqa: ANN401
    """On the join screen (a workshop's link, or after its code): the name, then Join; waits for the room."""
    page.get_by_label("Your display name").fill(name)
    page.evaluate(STAY)
    page.get_by_role("button", name="Join", exact=True).click()
    page.get_by_text(f"You are {name} · ").wait_for()


def predict_even(page: Any) -> None:  # noqa: ANN401
    """Even split, then Save; waits for the server's "Saved: …"."""
    page.get_by_text("Your prediction (before round 1)").wait_for()
    page.get_by_role("button", name="Even split").click()
    page.locator("#total").filter(has_text="Total: 100 of 100").wait_for()
    page.get_by_role("button", name="Save my prediction").click()
    page.locator("#predict-status").filter(has_text="Saved: ").wait_for()


def row(page: Any, text: str) -> Any:  # noqa: ANN401
    """The room's row whose text contains ``text``."""
    return page.locator("#room li.row").filter(has=page.locator(".text", has_text=text))


def send(page: Any, text: str) -> None:  # noqa: ANN401
    """Type ``text`` and Send; waits for the answer and for the row in the room, the box emptied."""
    page.get_by_label("Your contribution").fill(text)
    page.get_by_role("button", name="Send").click()
    page.locator("#send-status").filter(has_text="Sent to the facilitator").wait_for()
    row(page, text).wait_for()
    assert page.get_by_label("Your contribution").input_value() == ""


def vote(page: Any, text: str, timeout_ms: float = 30_000) -> None:  # noqa: ANN401
    """+1 the row of ``text`` with one press, then wait for the room to say so (the button's title): the press
    must land the first time, there is no second try."""
    button = page.locator(f"#room li.row[data-id='{row(page, text).get_attribute('data-id')}'] button")
    assert button.is_enabled(), f"+1 on {text!r} is disabled: {button.get_attribute('title')!r}"
    button.click()
    expect(button).to_have_attribute("title", VOTED, timeout=timeout_ms)


def no_facilitator_controls(page: Any) -> None:  # noqa: ANN401
    found = {t.strip() for t in page.locator("button").all_inner_texts() if any(f in t for f in FACILITATOR)}
    assert not found, f"a participant sees facilitator controls: {found}"


def inert(page: Any) -> None:  # noqa: ANN401
    """No markup a participant typed became an element (an image, a link, a script)."""
    assert page.locator("img[src='x'], img[src*='evil'], a[href*='evil'], script:not([src]):not([type])").count() == 0


def fits(page: Any, where: str, views: tuple[dict[str, int], ...]) -> None:  # noqa: ANN401
    """At each of ``views``: no sideways scrolling, no control cut off at the sides."""
    size = page.viewport_size
    for view in views:
        page.set_viewport_size(view)
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        got = page.evaluate(FITS)
        assert got["scroll"] <= 1, f"{where} at {view['width']} px scrolls sideways by {got['scroll']} px"
        assert not got["outside"], f"{where} at {view['width']} px: controls cut off: {got['outside']}"
    page.set_viewport_size(size)
