"""Real phone pages among ``bench_phone_load.py``'s HTTP phones: a few Chromium pages (390×844), timed where a person
sees each moment, while the other phones make the class's load without a browser each.

Why a few and not all: on one 2-core machine a Chromium page costs Chromium and Playwright's driver 0.5–0.65 CPU
second to open blank and 1.2–1.3 s for the phone page's whole join (``bench_browser_cost.py``, 2026-11-29), so 30
of them arriving within 10 s ask the two cores for more than they have and the figure would be the browsers' own
queue.
A handful of real pages under the full class's load measures what a phone's owner sees: the page drawn, the
server's answer, the script's work — on the same two cores as the server.

Each page stamps (with the wall clock, in ``window.__seen`` and ``window.__revealed``) the moment a row's text
first appears in its room and the moment the reveal's table appears, as the facilitator's page does in
``bench_workshop.py``; a MutationObserver does it, so no poll of the benchmark's own is timed.
"""

from __future__ import annotations

import time

from benchmarks import bench_phone
from benchmarks.bench_workshop import WALL_MINUS_PERF

# Stamps, in the page: each row text when it first appears, and the reveal's table.
STAMP_JS = """() => {
  window.__seen = window.__seen || {};
  const look = () => {
    for (const t of document.querySelectorAll("#room li.row .text")) {
      if (!(t.textContent in window.__seen)) window.__seen[t.textContent] = Date.now();
    }
    if (!window.__revealed && document.querySelector("#reveal table")) window.__revealed = Date.now();
  };
  new MutationObserver(look).observe(document.body, { subtree: true, childList: true, characterData: true });
  look();
}"""
WAIT_MS = 180_000


class BrowserPhone:
    """One participant on the real phone page in Chromium; the same moments as ``bench_phone_load.Phone``."""

    def __init__(self, i: int, url: str, browser) -> None:  # noqa: ANN001
        self.i, self.url, self.browser, self.name = i, url, browser, f"Student {i}"
        self.page = None
        self.token = ""

    async def join(self, code: str) -> float:
        """Seconds from opening /p/ until the page is in the room (its prediction form drawn)."""
        ctx = await self.browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                                             extra_http_headers={"X-Forwarded-For": f"10.43.0.{self.i % 250 + 1}"})
        self.page = await ctx.new_page()
        self.page.set_default_timeout(WAIT_MS)
        began = time.perf_counter()
        await bench_phone.join(self.page, self.url, code, self.name)
        took = time.perf_counter() - began
        self.token = await self.page.evaluate("() => new URLSearchParams(location.search).get('w')")
        await self.page.evaluate(STAMP_JS)
        return took

    async def predict(self) -> None:
        await self.page.get_by_role("button", name="⚖️ Even split").click()
        await self.page.get_by_role("button", name="Save my prediction").click()
        await self.page.locator("#predict-status").filter(has_text="Saved").wait_for()

    async def contribute_form(self) -> None:
        await self.page.locator("#send").wait_for()

    async def send(self, text: str) -> tuple[float, float]:
        """Type and press Send; (when pressed, seconds until the page says "Sent" with the box emptied)."""
        await self.page.locator("#text").fill(text)
        began = time.perf_counter()
        await self.page.get_by_role("button", name="Send").click()
        await self.page.wait_for_function(bench_phone.SENT_JS, polling=50, timeout=WAIT_MS)
        return began, time.perf_counter() - began

    async def seen(self) -> dict[str, float]:
        """When each text first appeared in this page's room (perf_counter seconds)."""
        stamps = await self.page.evaluate("() => window.__seen || {}")
        return {text: ms / 1000 - WALL_MINUS_PERF for text, ms in stamps.items()}

    async def revealed(self) -> float:
        """When the reveal's table appeared (perf_counter seconds), waiting for it."""
        await self.page.locator(bench_phone.REVEALED).wait_for()
        return await self.page.evaluate("() => window.__revealed") / 1000 - WALL_MINUS_PERF

    async def close(self) -> None:
        if self.page is not None:
            await self.page.context.close()
