"""Real-browser fixtures: the fake model server, `ifworld app` (the app as users start it, with its server's own
routes: the phone page, sign-in, device cookies), and Debian's Chromium via Playwright.

Streamlit renders over a websocket, so tests wait for real completion (expected text visible and the
running-status widget gone), never for a fixed time.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import IO, Any

import httpx
import pytest

from tests.fixtures.fake_openai import FakeOpenAI

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
BROWSER_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
KNOWN_KEY = "sk-e2e-KNOWN-FAKE-KEY-7d3a"
SHOTS = ROOT / ("docs/screenshots" if os.environ.get("IFWORLD_UPDATE_SCREENSHOTS") else "test-artifacts/screenshots")
START_TIMEOUT_S = 90


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "/browser/" in str(item.fspath):
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.slow)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
    """A browser test that fails leaves its evidence in test-artifacts/failures/: a screenshot of every page its
    browser holds and the end of the app's log — a failure on a loaded CI machine is seldom seen twice."""
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" and report.failed and "/browser/" in str(item.fspath):
        keep_evidence(item, report.longreprtext)


def keep_evidence(item: pytest.Item, error: str) -> None:
    where = ROOT / "test-artifacts" / "failures"
    where.mkdir(parents=True, exist_ok=True)
    stem = re.sub(r"[^\w.-]+", "_", item.name)[:80]
    (where / f"{stem}-error.txt").write_text(error[-20_000:])
    funcargs = getattr(item, "funcargs", {})
    browser = funcargs.get("browser")
    pages = [pg for ctx in getattr(browser, "contexts", []) for pg in ctx.pages]
    for i, pg in enumerate(pages):
        try:
            pg.screenshot(path=str(where / f"{stem}-{i}.png"), full_page=True, timeout=10_000)
            (where / f"{stem}-{i}.url").write_text(pg.url)
        except Exception:  # noqa: BLE001 — evidence is best effort: the page may be gone
            continue
    if APP_LOG[0] is not None and APP_LOG[0].is_file():
        (where / f"{stem}-app.log").write_text(APP_LOG[0].read_text(errors="replace")[-20_000:])


APP_LOG: list[Path | None] = [None]  # the e2e app's log (app_url), for keep_evidence


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def e2e_fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(latency=0.05) as fake:
        yield fake


@pytest.fixture(scope="session")
def app_url(e2e_fake: FakeOpenAI, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`ifworld app` (loopback mode: every browser here is the facilitator) on a free port, talking to the fake
    server with a known fake key."""
    port = _free_port()
    home = tmp_path_factory.mktemp("e2e")
    env = {k: v for k, v in os.environ.items() if not k.startswith("IFWORLD_") and k != "OPENAI_API_KEY"}
    env.update({"IFWORLD_BASE_URL": e2e_fake.url, "IFWORLD_MODEL": "fake-model", "IFWORLD_API_KEY": KNOWN_KEY,
                "IFWORLD_DB": str(home / "runs.sqlite"), "IFWORLD_MAX_RETRIES": "0", "IFWORLD_TIMEOUT_S": "20",
                "IFWORLD_MAX_CONCURRENCY": "8", "PYTHONPATH": str(ROOT)})
    log = (home / "app.log").open("w")
    proc = subprocess.Popen([str(Path(sys.executable).parent / "ifworld"), "app", "--port", str(port)],
                            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    wait_served(url, proc, home / "app.log", "ifworld app")
    APP_LOG[0] = home / "app.log"
    os.environ["IFWORLD_E2E_DB"] = env["IFWORLD_DB"]
    yield url
    stop_served(proc, log)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """Per module: Playwright's sync API keeps an event loop running while it is open, which would break
    later tests that call asyncio.run()."""
    if not Path(CHROMIUM).exists():
        pytest.skip("Chromium is not installed (scripts/browser.sh installs Debian's chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser, app_url: str) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    pg.set_default_timeout(60_000)
    pg.app_url = app_url
    yield pg
    context.close()


def wait_idle(page, timeout_s: float = 120) -> None:
    """Wait until Streamlit has finished running the script (status widget gone)."""
    deadline = time.time() + timeout_s
    time.sleep(0.3)
    while time.time() < deadline:
        if page.locator("[data-testid=stStatusWidget]").count() == 0:
            time.sleep(0.2)
            if page.locator("[data-testid=stStatusWidget]").count() == 0:
                return
        time.sleep(0.2)
    raise AssertionError("the app was still running after the timeout")


def wait_run_completed(page, timeout_s: float = 180) -> None:
    """Wait for a what-if run's completed view: the live panel shows the report as it arrives, and the completed
    state's own block (with no Cancel) replaces it a moment later, so the report's text alone is not the end."""
    page.locator(".st-key-whatif_state_completed").wait_for(timeout=timeout_s * 1000)
    page.get_by_text("Calibration ranges").first.wait_for(timeout=timeout_s * 1000)
    wait_idle(page, timeout_s=timeout_s)


def open_page(page, path: str = "", expect: str | None = None) -> None:
    page.goto(f"{page.app_url}/{path}")
    page.wait_for_selector("[data-testid=stApp]")
    if expect:
        page.get_by_text(expect, exact=False).first.wait_for()
    wait_idle(page)
    assert page.get_by_text("Page not found").count() == 0, f"/{path} is not a page the app knows"
    assert page.locator("[data-testid=stSidebar]").get_by_text("Model connection").count() == 1, "no router sidebar"


def shot(page, name: str, max_height: int = 4000) -> Path:
    """Screenshot the whole page: Streamlit scrolls inside its main block, so grow the viewport to fit it."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.get_by_role("link", name="Home").first.wait_for()  # our navigation is up
    wait_idle(page)
    height = page.evaluate("() => document.querySelector('[data-testid=stMain]')?.scrollHeight || 1000")
    size = page.viewport_size
    page.set_viewport_size({"width": size["width"], "height": min(max(height, 800), max_height)})
    wait_idle(page)
    page.screenshot(path=str(path))
    page.set_viewport_size(size)
    return path


class Beacon(BaseHTTPRequestHandler):
    """A local server standing for an attacker's host: it counts every request (``Beacon.hits``, the paths)."""

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
def beacon() -> Iterator[str]:
    """The beacon's URL, its count reset for each test."""
    Beacon.hits = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), Beacon)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def e2e_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The e2e server's run store: IFWORLD_E2E_DB (hidden from tests by the autouse isolated_env) or its home."""
    if os.environ.get("IFWORLD_E2E_DB"):
        return Path(os.environ["IFWORLD_E2E_DB"])
    found = sorted(tmp_path_factory.getbasetemp().glob("e2e[0-9]*"))  # the store file may not exist yet
    assert len(found) == 1, found
    return found[0] / "runs.sqlite"


def stop_served(proc: subprocess.Popen, log: IO[str]) -> None:
    """Stop an app started for a test (terminate, then kill if it lingers) and close its log."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


def wait_served(url: str, proc: subprocess.Popen, log: Path, what: str) -> None:
    """Wait until the app at ``url`` answers its health check; fail with the end of its log if it never does."""
    deadline = time.time() + START_TIMEOUT_S
    while time.time() < deadline:
        try:
            if httpx.get(f"{url}/_stcore/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.3)
    proc.kill()
    pytest.fail(f"{what} did not start: {log.read_text()[-2000:]}")


@pytest.fixture(scope="module")
def network_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """``ifworld app --address 0.0.0.0`` on a free port, with its own store and the fake model."""
    home = tmp_path_factory.mktemp("network")
    port = _free_port()
    with FakeOpenAI(latency=0.02) as fake:
        env = {k: v for k, v in os.environ.items() if not k.startswith("IFWORLD_") and k != "OPENAI_API_KEY"}
        env.update({"IFWORLD_BASE_URL": fake.url, "IFWORLD_MODEL": "fake-model", "IFWORLD_API_KEY": KNOWN_KEY,
                    "IFWORLD_DB": str(home / "runs.sqlite"), "IFWORLD_MAX_RETRIES": "0", "IFWORLD_TIMEOUT_S": "20"})
        log = (home / "app.log").open("w")
        proc = subprocess.Popen([str(Path(sys.executable).parent / "ifworld"), "app", "--address", "0.0.0.0",
                                 "--port", str(port)], cwd=home, env=env, stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        wait_served(url, proc, home / "app.log", "ifworld app")
        printed = re.search(r"(http://\S+/signin\?token=\S+)", (home / "app.log").read_text())
        assert printed, "ifworld app printed no sign-in link"
        yield {"url": url, "signin": printed.group(1), "db": home / "runs.sqlite", "fake": fake,
               "log": home / "app.log"}
        stop_served(proc, log)
