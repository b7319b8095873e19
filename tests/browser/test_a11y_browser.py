"""WCAG 2.1 AA in a real browser (issue #35): axe-core's WCAG 2 A/AA rules over every page the facilitator sees
and over what a participant sees (the Join page, on a laptop and on a phone, and the facilitator-only notice a
typed address answers with). Any serious or critical violation fails the test, with the rule, how many elements
and axe's own message (for colour contrast: the two colours and the ratio).

There is no allow-list: every page measured zero serious or critical violations after the fixes listed in
docs/accessibility.md. A violation Streamlit's own markup causes and we cannot avoid would be named here, one by
one, with its reason — never silently skipped.

axe-core is installed from npm by ``scripts/browser.sh`` (into ``.cache/axe``); the audit with all figures is
``python benchmarks/a11y_audit.py``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.browser.axe import AXE_JS, PAGES, axe_available, run_axe, settle
from tests.browser.conftest import ROOT, START_TIMEOUT_S, _free_port
from tests.fixtures.fake_openai import FakeOpenAI

PHONE = {"width": 390, "height": 844}
PARTICIPANT = [("join", "Workshop code"), ("whatif", "This page is for the facilitator")]  # path, text it shows


@pytest.fixture(autouse=True)
def _axe() -> None:
    if not axe_available():
        pytest.skip(f"axe-core is not installed at {AXE_JS} (scripts/browser.sh installs it from npm)")


def assert_no_blocking(page, where: str) -> None:
    found = run_axe(page)
    assert not found, f"{where}: serious/critical WCAG 2 A/AA violations:\n" + "\n".join(v.line() for v in found)


@pytest.mark.parametrize("path", list(PAGES), ids=[p or "home" for p in PAGES])
def test_facilitator_page_has_no_serious_violation(page, path: str) -> None:
    page.goto(f"{page.app_url}/{path}")
    page.get_by_role("link", name=PAGES[path]).first.wait_for()  # the navigation (and so the sidebar) is up
    settle(page)
    assert page.get_by_text("Page not found").count() == 0
    assert_no_blocking(page, f"/{path} (facilitator)")


@pytest.fixture(scope="module")
def participant_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``streamlit run app.py`` with sign-in required: every browser below is a participant or visitor."""
    home = tmp_path_factory.mktemp("a11y")
    port = _free_port()
    with FakeOpenAI(latency=0.02) as fake:
        env = {k: v for k, v in os.environ.items() if not k.startswith("IFWORLD_") and k != "OPENAI_API_KEY"}
        env.update({"IFWORLD_BASE_URL": fake.url, "IFWORLD_MODEL": "fake-model", "IFWORLD_API_KEY": "sk-a11y-fake",
                    "IFWORLD_DB": str(home / "runs.sqlite"), "IFWORLD_REQUIRE_SIGNIN": "1",
                    "PYTHONPATH": str(ROOT)})
        log = (home / "app.log").open("w")
        proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
                                 "--server.headless", "true"], cwd=ROOT, env=env, stdout=log,
                                stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        deadline = time.time() + START_TIMEOUT_S
        while time.time() < deadline:
            try:
                if httpx.get(f"{url}/_stcore/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.3)
        else:
            proc.kill()
            pytest.fail(f"streamlit did not start: {(home / 'app.log').read_text()[-2000:]}")
        yield url
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.mark.parametrize("viewport", [{"width": 1400, "height": 1000}, PHONE], ids=["laptop", "phone"])
@pytest.mark.parametrize(("path", "expect"), PARTICIPANT, ids=["join", "notice"])
def test_participant_view_has_no_serious_violation(browser, participant_url: str, path: str, expect: str,
                                                   viewport: dict[str, int]) -> None:
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        page.goto(f"{participant_url}/{path}")
        page.get_by_text(expect).first.wait_for()
        settle(page)
        assert page.locator("[data-testid=stSidebarNav]").count() == 0  # still a participant's view
        assert_no_blocking(page, f"/{path} (participant, {viewport['width']} px wide)")
    finally:
        context.close()
