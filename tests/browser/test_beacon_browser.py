"""Hostile model output in charts fetches nothing (issue #22, items 1 and 2), in Chromium.

A what-if run is made through the real CLI against the fake server, whose script gives every causal-edge end,
mechanism, scenario name and calibration quantity a Plotly ``<span style="fill:url(BEACON…)">``, an ``<a
href=BEACON…>`` and a Markdown image (the proposition names the beacon, see tests/fixtures/scripts/whatif.py).
The Causal map, the Runs page and the What-if run view are opened on that run, and the run's HTML export is
opened from a file: a local beacon server counts every request, and must count 0; no chart holds a link.
On the code before this test (no inert_figure, the regex inert_markdown) the beacon counted requests."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ifworld import runs
from ifworld.runs.store import RunStore
from tests.browser.conftest import ROOT, Beacon, e2e_db, open_page, wait_idle

pytestmark = pytest.mark.browser


def _hostile_run(fake_url: str, db: Path, beacon: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("IFWORLD_") and k != "OPENAI_API_KEY"}
    env.update({"IFWORLD_BASE_URL": fake_url, "IFWORLD_MODEL": "fake-model", "IFWORLD_API_KEY": "sk-beacon-test",
                "IFWORLD_DB": str(db), "IFWORLD_MAX_RETRIES": "0", "PYTHONPATH": str(ROOT)})
    done = subprocess.run([sys.executable, "-m", "ifworld.cli", "whatif", "run",
                           f"What if a heatwave hit the grid? beacon {beacon}", "--experts", "physics,economics",
                           "--rounds", "1"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    found = re.search(r"run id: (\S+)", done.stderr)
    assert found, done.stderr[-2000:]
    return found.group(1)


def _quiet(page) -> None:  # noqa: ANN001
    """Wait until the page's network is idle (a page that keeps calling out never is: then go on and count)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_load_state("networkidle", timeout=15_000)
    except PlaywrightTimeout:
        pass


def _settle(page, charts: int = 1) -> None:  # noqa: ANN001
    page.locator(".js-plotly-plot").nth(charts - 1).wait_for()
    wait_idle(page)
    _quiet(page)


def _hover_charts(page) -> None:  # noqa: ANN001
    """Hover over every chart's drawing area, so hover labels (model text too) are drawn."""
    for plot in page.locator(".js-plotly-plot .nsewdrag").all()[:6]:
        box = plot.bounding_box()
        if box:
            for fx, fy in ((0.3, 0.3), (0.5, 0.5), (0.7, 0.6)):
                page.mouse.move(box["x"] + box["width"] * fx, box["y"] + box["height"] * fy)


def test_hostile_chart_labels_fetch_nothing(page, beacon: str, e2e_fake,  # noqa: ANN001
                                            tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> None:
    db = e2e_db(tmp_path_factory)
    run_id = _hostile_run(e2e_fake.url, db, beacon)
    links, hits = {}, {}
    for path, expect, charts in ((f"causal_map?run={run_id}", "Causal map", 1), (f"runs?run={run_id}", "Runs", 1),
                                 (f"whatif?run={run_id}", "Calibration ranges", 2)):
        open_page(page, path, expect=expect)
        _settle(page, charts)
        _hover_charts(page)
        _quiet(page)
        assert page.get_by_text("fill:url", exact=False).count() >= 1 or "fill:url" in page.content(), path
        links[path] = page.locator(f"svg a, a[href^='{beacon}']").count()
        hits[path] = len(Beacon.hits) - sum(hits.values())
    export = tmp_path / "export.html"
    store = RunStore(db)
    export.write_text(runs.export_run(run_id, "html", store=store), encoding="utf-8")
    store.close()
    page.goto(export.as_uri())
    page.locator(".js-plotly-plot").nth(2).wait_for()
    _hover_charts(page)
    _quiet(page)
    links["export"] = page.locator("svg a, a[href]").count()
    hits["export"] = len(Beacon.hits) - sum(hits.values())
    assert Beacon.hits == [], f"the browser called the beacon: {hits}, e.g. {Beacon.hits[:5]}"
    assert links == dict.fromkeys(links, 0), f"live links in charts or pages: {links}"
    page.goto(f"{beacon}/control")  # the beacon does see a request when one is made
    assert "/control" in Beacon.hits


@pytest.fixture(scope="module")
def csp_app_url(e2e_fake, tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN001, ANN201
    """The app as ``ifworld app`` serves it (``streamlit run ui/asgi.py``: the Content-Security-Policy header)."""
    import socket

    import httpx

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    home = tmp_path_factory.mktemp("csp")
    env = {k: v for k, v in os.environ.items() if not k.startswith("IFWORLD_") and k != "OPENAI_API_KEY"}
    env.update({"IFWORLD_BASE_URL": e2e_fake.url, "IFWORLD_MODEL": "fake-model", "IFWORLD_API_KEY": "sk-csp-test",
                "IFWORLD_DB": str(home / "runs.sqlite"), "PYTHONPATH": str(ROOT)})
    log = (home / "streamlit.log").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "ui/asgi.py", "--server.port", str(port),
                             "--server.headless", "true", "--server.address", "127.0.0.1",
                             "--browser.gatherUsageStats", "false"], cwd=ROOT, env=env, stdout=log,
                            stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):  # up to ~90 s, polling the health endpoint (a condition, not a fixed wait)
            try:
                if httpx.get(f"{url}/_stcore/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.3)  # polling the condition above
        else:
            pytest.fail(f"the CSP app did not start: {(home / 'streamlit.log').read_text()[-2000:]}")
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()


def test_the_served_app_sends_a_csp_the_browser_enforces(browser, csp_app_url: str, beacon: str) -> None:  # noqa: ANN001
    import httpx

    policy = httpx.get(csp_app_url, timeout=10).headers["content-security-policy"]  # (ui/asgi.py is not imported
    for directive in ("default-src 'self'", "img-src 'self' data: blob:", "connect-src 'self'", "object-src 'none'"):
        assert directive in policy  # here: importing it would build an st.App in the test process)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.app_url = csp_app_url
    violations: list[str] = []
    page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
    open_page(page, "beliefs", expect="Belief exchange")  # charts, no model needed
    page.get_by_role("button", name="Run simulation").click()
    page.locator(".js-plotly-plot").first.wait_for()
    wait_idle(page)
    _quiet(page)
    assert violations == [], f"the app itself breaks its policy: {violations[:3]}"
    # what got past the escaping would still be refused: the beacon sees nothing, the console says why
    with page.expect_console_message(lambda m: "img-src" in m.text, timeout=15_000):
        page.evaluate("url => document.body.insertAdjacentHTML('beforeend', `<svg><text style=\"fill:url(${url}"
                      "/f.svg#a)\">x</text></svg><img src=\"${url}/csp.png\">`)", beacon)
    _quiet(page)
    assert Beacon.hits == [], Beacon.hits
    page.close()
