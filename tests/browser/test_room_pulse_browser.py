"""The facilitator's room redraws when the room changes, not only on its timer (ui/room_pulse.py): with the page's
timed redraws switched off, contributions made through the engine still appear in the room, brought by the
pulse; and the pulse's stream is closed when the facilitator goes to another page.

Streamlit's ``run_every`` is a ``setInterval`` in the page that asks the server to rerun the fragment
(``sendUpdateWidgetsMessage``); a script run before the page's own drops those intervals and counts them, so the
test knows the timer was really off (a Streamlit that times it another way fails the count, not the claim)."""

from __future__ import annotations

import pytest

from ifworld.runs.store import RunStore
from ifworld.whatif.workshop import contribute, join_workshop
from tests.browser.test_workshop_closing_browser import room_between_rounds

pytestmark = pytest.mark.browser
PULSE = "() => { const p = window.__ifwPulse; return p && p.source ? [p.source.readyState, p.source.url] : null; }"
NO_TIMED_REDRAWS = """() => { window.__timedRedrawsDropped = 0; const setInterval = window.setInterval;
    window.setInterval = function (fn, ...rest) {
        if (String(fn).includes('sendUpdateWidgetsMessage')) { window.__timedRedrawsDropped += 1; return 0; }
        return setInterval.call(this, fn, ...rest); }; }"""
ROW_TEXTS = """() => [...document.querySelectorAll('[data-testid=stMain] *')].flatMap(h => h.shadowRoot
    ? [...h.shadowRoot.querySelectorAll('li.row .text')].map(t => t.textContent) : [])"""


def test_contributions_reach_the_facilitator_with_no_timed_redraw(browser, app_url, e2e_fake,  # noqa: ANN001
                                                                  tmp_path_factory) -> None:
    db, run_id, room = room_between_rounds(e2e_fake, tmp_path_factory)
    store = RunStore(db)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.set_default_timeout(120_000)
    try:
        page.add_init_script(f"({NO_TIMED_REDRAWS})()")
        page.goto(f"{app_url}/whatif?run={run_id}")
        page.get_by_text("Scan to join").first.wait_for()
        page.wait_for_function(f"() => ({PULSE})() && ({PULSE})()[0] === 1")  # EventSource.OPEN
        assert page.evaluate(PULSE)[1].endswith(f"/p/pulse?run={run_id}")
        ada, key = join_workshop(room.token, "Ada", device_key="pulse-test-device", store=store)
        for kind, text in [("claim", "Harbours: the biggest ships only come in on the flood."),
                           ("concern", "Shellfish beds dry out within days.")]:
            contribute(run_id, ada.id, key, text, kind, store=store)
            page.wait_for_function(f"(t) => ({ROW_TEXTS})().includes(t)", arg=text)
        assert page.evaluate("() => window.__timedRedrawsDropped") >= 1, "the room was not on a timer to switch off"

        page.get_by_role("link", name="Runs").first.click()  # another page of the app: the stream is let go
        page.wait_for_function(f"() => ({PULSE})()[0] === 2")  # EventSource.CLOSED
    finally:
        page.close()
        store.close()

