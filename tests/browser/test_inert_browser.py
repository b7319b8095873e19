"""Model output cannot make the browser call out or run script: a run whose proposition, report, title and
error carry a Markdown image pointing at a local beacon server and a <script> is opened on the Runs page in
Chromium; the beacon must see no request and the page must hold no such script or image."""

from __future__ import annotations

import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from ifworld.runs.store import RunStore
from tests.browser.conftest import open_page, wait_idle

pytestmark = pytest.mark.browser


class _Beacon(BaseHTTPRequestHandler):
    hits: list[str] = []

    def do_GET(self) -> None:  # noqa: N802
        type(self).hits.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        return


@pytest.fixture
def beacon():  # noqa: ANN201
    _Beacon.hits = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Beacon)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _e2e_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The e2e server's run store (IFWORLD_E2E_DB is hidden from tests by the autouse isolated_env)."""
    if os.environ.get("IFWORLD_E2E_DB"):
        return Path(os.environ["IFWORLD_E2E_DB"])
    return sorted(tmp_path_factory.getbasetemp().glob("e2e[0-9]*"))[-1] / "runs.sqlite"


def test_hostile_model_text_loads_nothing_and_runs_nothing(page, beacon: str,  # noqa: ANN001
                                                           tmp_path_factory: pytest.TempPathFactory) -> None:
    img = f"![x]({beacon}/beacon.png)"
    script = "<script>window.__pwned = 1</script><img src=" + beacon + "/raw.png>"
    hostile = f"What if {img} happened? {script} [link]({beacon}/link)"
    store = RunStore(_e2e_db(tmp_path_factory))
    run_id = store.create_run("whatif", "whatif.ifworld", {"proposition": "hostile"}, f"Hostile {img}")
    store.finish_run(run_id, {"proposition": hostile, "method": "ifworld", "report": {"markdown": hostile}})
    store.set_status(run_id, "failed", error=hostile)  # "Last error" box too
    store.close()

    open_page(page, "runs", expect="Runs")
    page.get_by_text("What if", exact=False).first.wait_for()  # the record is on screen
    page.get_by_text("Report as Markdown").first.click()  # expand: the report's Markdown is rendered
    wait_idle(page)
    page.wait_for_load_state("networkidle")
    assert _Beacon.hits == [], f"the browser called the beacon: {_Beacon.hits}"
    assert page.evaluate("() => window.__pwned") is None
    assert page.locator(f"img[src^='{beacon}']").count() == 0
    assert page.locator("script", has_text="__pwned").count() == 0
    assert page.locator(f"a[href^='{beacon}']").count() == 0  # links shown as text, not live
    assert page.get_by_text("image not loaded", exact=False).count() >= 1  # shown as text instead
    page.goto(f"{beacon}/control.png")  # the beacon does see a request when one is made
    assert "/control.png" in _Beacon.hits  # (the browser may also ask for /favicon.ico)
