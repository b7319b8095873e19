"""Model output cannot make the browser call out or run script: a run whose proposition, report, title and
error carry a Markdown image pointing at a local beacon server and a <script> is opened on the Runs page in
Chromium; the beacon must see no request and the page must hold no such script or image."""

from __future__ import annotations

import pytest

from ifworld.runs.store import RunStore
from tests.browser.conftest import Beacon, e2e_db, open_page, wait_idle

pytestmark = pytest.mark.browser


def test_hostile_model_text_loads_nothing_and_runs_nothing(page, beacon: str,  # noqa: ANN001
                                                           tmp_path_factory: pytest.TempPathFactory) -> None:
    img = f"![x]({beacon}/beacon.png)"
    script = "<script>window.__pwned = 1</script><img src=" + beacon + "/raw.png>"
    hostile = f"What if {img} happened? {script} [link]({beacon}/link)"
    store = RunStore(e2e_db(tmp_path_factory))
    run_id = store.create_run("whatif", "whatif.ifworld", {"proposition": "hostile"}, f"Hostile {img}")
    store.finish_run(run_id, {"proposition": hostile, "method": "ifworld", "report": {"markdown": hostile}})
    store.set_status(run_id, "failed", error=hostile)  # "Last error" box too
    store.close()

    open_page(page, "runs", expect="Runs")
    page.get_by_text("What if", exact=False).first.wait_for()  # the record is on screen
    page.get_by_text("Report as Markdown").first.click()  # expand: the report's Markdown is rendered
    wait_idle(page)
    page.wait_for_load_state("networkidle")
    assert Beacon.hits == [], f"the browser called the beacon: {Beacon.hits}"
    assert page.evaluate("() => window.__pwned") is None
    assert page.locator(f"img[src^='{beacon}']").count() == 0
    assert page.locator("script", has_text="__pwned").count() == 0
    assert page.locator(f"a[href^='{beacon}']").count() == 0  # links shown as text, not live
    assert page.get_by_text("image not loaded", exact=False).count() >= 1  # shown as text instead
    page.goto(f"{beacon}/control.png")  # the beacon does see a request when one is made
    assert "/control.png" in Beacon.hits  # (the browser may also ask for /favicon.ico)
