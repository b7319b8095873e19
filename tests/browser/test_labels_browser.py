"""Labels a teacher can read (issue #42 item 5), measured in Chromium on the served app.

* The causal map of a large run (18 nodes with long names in 7 domains, :func:`tests.whatif.records.large_record`)
  at the facilitator's 175 % (a 1280 × 720 projector: 731 × 411 CSS px at device scale 1.75) and at 100 %: no two
  node names, edge sign marks or a name and another node's marker overlap, and no name is cut by the chart's edge;
  the domain heatmap's tick labels and cell numbers do not collide either. The boxes are the ones Chromium drew
  (:mod:`tests.browser.labels`).
* Every page's buttons at 175 % (the phone page's first screen, ``/p/``, too): no button's text overflows its box
  or is cut with an ellipsis.

The causal map at 175 % is saved as docs/screenshots/causal_map_175.png with IFWORLD_UPDATE_SCREENSHOTS=1.
"""

from __future__ import annotations

import pytest

from ifworld.runs.store import RunStore
from tests.browser.conftest import SHOTS, e2e_db, wait_idle
from tests.browser.labels import BOXES, collisions, covered_markers, outside
from tests.whatif.records import large_record

PROJECTOR_175 = ({"width": 731, "height": 411}, 1.75)
DESKTOP_100 = ({"width": 1280, "height": 720}, 1.0)
PAGES = ("", "whatif", "causal_map", "runs", "beliefs", "belief_sweep", "rws_benchmark", "rws_browse", "settings")

CUT = r"""() => {
  const cut = [];
  for (const b of document.querySelectorAll('[data-testid=stApp] button, #app button')) {  // Streamlit's, the phone's
    if (!b.checkVisibility({opacityProperty: true, visibilityProperty: true})) continue;
    const text = (b.innerText || '').trim();
    const r = b.getBoundingClientRect();
    if (!text || r.width < 1 || r.height < 1) continue;  // an icon button, or not laid out
    // the button and what draws its text (elements of no size, such as a screen reader's copy, draw nothing)
    const parts = [b, ...b.querySelectorAll('*')].filter(e => { const q = e.getBoundingClientRect();
      return q.width >= 1 && q.height >= 1 && (e.innerText || '').trim(); });
    const over = parts.some(e => { const s = getComputedStyle(e), q = e.getBoundingClientRect();
      return (e.scrollWidth > e.clientWidth + 1 && s.overflowX !== 'visible')  // clipped, with or without "…"
        || q.right > r.right + 1 || q.left < r.left - 1; });  // or drawn past the button's edge
    if (over) cut.push(text.replace(/\s+/g, ' ').slice(0, 80));
  }
  return cut;
}"""


@pytest.fixture(scope="module")
def large_run(app_url, tmp_path_factory) -> str:  # noqa: ANN001
    rec = large_record()
    store = RunStore(e2e_db(tmp_path_factory))
    try:
        run_id = store.create_run("whatif", "whatif.ifworld", rec["params"], "What-if: fuel duty doubled")
        store.finish_run(run_id, rec, rec["usage"])
    finally:
        store.close()
    return run_id


def _page(browser, app_url: str, view: tuple[dict, float]):  # noqa: ANN001, ANN202
    ctx = browser.new_context(viewport=view[0], device_scale_factor=view[1])
    page = ctx.new_page()
    page.set_default_timeout(120_000)
    return ctx, page


def _charts(page) -> list[dict]:  # noqa: ANN001
    """The label boxes of the page's two charts once they have settled (two equal readings)."""
    last = None
    for _ in range(60):
        page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot svg.main-svg').length >= 2")
        page.evaluate("() => document.fonts.ready.then(() => document.fonts.status)")
        now = page.evaluate(f"() => [...document.querySelectorAll('.js-plotly-plot')].map({BOXES})")
        if now == last:
            return now
        last = now
        page.wait_for_timeout(300)  # the next reading, not a wait for a state: the state is "two readings agree"
    raise AssertionError("the charts kept changing")


@pytest.mark.parametrize("view", [PROJECTOR_175, DESKTOP_100], ids=["175%", "100%"])
def test_causal_map_and_heatmap_labels_do_not_collide(browser, app_url, large_run, view) -> None:  # noqa: ANN001
    ctx, page = _page(browser, app_url, view)
    try:
        page.goto(f"{app_url}/causal_map?run={large_run}")
        page.get_by_text("Cross-domain causal integration").first.wait_for()
        wait_idle(page)
        network, heat = _charts(page)
        names, signs, markers = network["nodes"], network["signs"], network["markers"]
        assert (len(names), len(signs)) == (18, 28)
        problems = {
            "name / name": collisions(names), "sign / name": collisions(signs, names),
            "sign / sign": collisions(signs), "sign / marker": collisions(signs, markers),
            "name / marker": covered_markers(network["nodes"], network["markers"]),
            "name cut": outside(network["nodes"], network["chart"]),
            "x ticks": collisions(heat["xticks"]), "y ticks": collisions(heat["yticks"]),
            "tick / cell": collisions(heat["ticks"], heat["cells"]), "cells": collisions(heat["cells"]),
            "tick cut": outside(heat["ticks"], heat["chart"])}
        assert {k: v for k, v in problems.items() if v} == {}
        if view is PROJECTOR_175:
            SHOTS.mkdir(parents=True, exist_ok=True)
            chart = page.locator(".js-plotly-plot").first  # the whole chart: a window as tall as it, as wide
            page.set_viewport_size({"width": view[0]["width"], "height": round(network["chart"]["b"] + 200)})
            wait_idle(page)
            chart.screenshot(path=str(SHOTS / "causal_map_175.png"))
    finally:
        ctx.close()


def _cut_buttons(page) -> list[str]:  # noqa: ANN001
    """:data:`CUT` once the page has settled: its web fonts loaded (a label measured in the fallback font is wider)
    and two equal readings (a button measured while Streamlit is still laying out its column can read as cut)."""
    last = None
    for _ in range(40):
        wait_idle(page)
        page.evaluate("() => document.fonts.ready.then(() => document.fonts.status)")
        now = page.evaluate(CUT)
        if now == last:
            return now
        last = now
        page.wait_for_timeout(250)  # the next reading, not a wait for a state: the state is "two readings agree"
    raise AssertionError("the page kept changing")


def test_no_button_text_is_cut_at_175_percent(browser, app_url, large_run) -> None:  # noqa: ANN001
    ctx, page = _page(browser, app_url, PROJECTOR_175)
    cut: dict[str, list[str]] = {}
    try:
        for path in (*PAGES, f"whatif?run={large_run}", f"runs?run={large_run}", "p/"):
            page.goto(f"{app_url}/{path}")
            page.locator("[data-testid=stMain] h1, #app form button").first.wait_for()  # the page has rendered
            wait_idle(page)
            found = _cut_buttons(page)
            opener = page.locator("[data-testid=stExpandSidebarButton], [data-testid=stSidebarCollapsedControl] button")
            if opener.count() and opener.first.is_visible():  # the sidebar's buttons too (collapsed at this width)
                opener.first.click()
                page.locator("[data-testid=stSidebar]").get_by_text("Model connection").first.wait_for()
                found += _cut_buttons(page)
            if found:
                cut[path or "home"] = found
    finally:
        ctx.close()
    assert cut == {}
