"""Accessibility audit: axe-core's WCAG 2 A/AA rules in Chromium over every page (issue #35).

Starts ``streamlit run app.py`` twice against the fake model server — once as the app is run on one's own machine
(the facilitator: sidebar and navigation) and once with ``IFWORLD_REQUIRE_SIGNIN=1`` (a participant: the Join
page only) — opens every page in a fresh tab, injects axe-core (``scripts/browser.sh`` installs it from npm into
``.cache/axe``) and prints, per page, the serious and critical violations: rule id and how many elements.

    python benchmarks/a11y_audit.py [--all-impacts] [--verbose]
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.browser.axe import AXE_JS, PAGES, axe_available, run_axe, settle  # noqa: E402
from tests.browser.conftest import BROWSER_ARGS, CHROMIUM  # noqa: E402
from tests.fixtures.fake_openai import FakeOpenAI  # noqa: E402


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(home: Path, fake_url: str, participant: bool, app: str = "app.py") -> tuple[subprocess.Popen, str]:
    port = _port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("IFWORLD_") and k != "OPENAI_API_KEY"}
    env.update({"IFWORLD_BASE_URL": fake_url, "IFWORLD_MODEL": "fake-model", "IFWORLD_API_KEY": "sk-audit-fake",
                "IFWORLD_DB": str(home / "runs.sqlite"), "PYTHONPATH": str(ROOT)})
    if participant:
        env["IFWORLD_REQUIRE_SIGNIN"] = "1"
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", app, "--server.port", str(port),
                             "--server.headless", "true"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            if httpx.get(f"{url}/_stcore/health", timeout=2).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.3)
    proc.kill()
    raise SystemExit("streamlit did not start")


def audit(browser, url: str, paths: dict[str, str], all_impacts: bool, verbose: bool) -> int:
    total = 0
    for path, title in paths.items():
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        page.set_default_timeout(90_000)
        page.goto(f"{url}/{path}")
        settle(page)
        found = run_axe(page, blocking_only=not all_impacts)
        total += sum(v.count for v in found)
        rules = ", ".join(f"{v.rule}×{v.count}" for v in found) or "none"
        print(f"  {title:<22} {len(found):>2} rules {sum(v.count for v in found):>3} elements   {rules}")
        if verbose:
            for v in found:
                print(f"      {v.line()}")
        context.close()
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all-impacts", action="store_true", help="also minor and moderate violations")
    parser.add_argument("--verbose", action="store_true", help="print each rule's help and sample elements")
    parser.add_argument("--pages", help="comma-separated addresses to audit (default: every page; 'home' for Home)")
    parser.add_argument("--app", default="app.py", help="the entry file to serve (to compare a layout)")
    args = parser.parse_args()
    if not axe_available():
        raise SystemExit(f"axe-core missing at {AXE_JS}: run bash scripts/browser.sh")
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, FakeOpenAI(latency=0.02) as fake, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        total = 0
        wanted = PAGES
        if args.pages:
            keep = {"" if a == "home" else a for a in args.pages.split(",")}
            wanted = {path: title for path, title in PAGES.items() if path in keep}
        for who, participant, paths in (("facilitator", False, wanted), ("participant", True, {"join": PAGES["join"]})):
            home = Path(tmp) / who
            home.mkdir()
            proc, url = start_app(home, fake.url, participant, args.app)
            try:
                print(f"{who} (serious + critical WCAG 2 A/AA violations; rule×elements)"
                      if not args.all_impacts else f"{who} (all WCAG 2 A/AA violations)")
                total += audit(browser, url, paths, args.all_impacts, args.verbose)
            finally:
                proc.terminate()
                proc.wait(timeout=20)
        browser.close()
    print(f"total elements in violation: {total}")


if __name__ == "__main__":
    main()
