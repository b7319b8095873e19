"""Accessibility audit: axe-core's WCAG 2 A/AA rules in Chromium over every page (issue #35).

Starts ``ifworld app`` twice against the fake model server — once as the app is run on one's own machine (the
facilitator: sidebar and navigation) and once with ``--require-signin`` (a participant or visitor: the phone page
``/p/``, the facilitator-only notice every Streamlit page answers with, and "Page not found") — opens every page
in a fresh tab, injects axe-core (``scripts/browser.sh`` installs it from npm into ``.cache/axe``) and prints, per
page, the serious and critical violations: rule id and how many elements. The phone page's later screens (the
room, the reveal) need a workshop: tests/browser/test_a11y_states_browser.py walks them.

    python benchmarks/a11y_audit.py [--all-impacts] [--verbose]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.browser.axe import (  # noqa: E402
    AXE_JS,
    PAGES,
    ROOM_PAGES,
    axe_available,
    fill_store,
    run_axe,
    settle,
    settle_phone,
    start_app,
    stop_app,
)
from tests.browser.conftest import BROWSER_ARGS, CHROMIUM  # noqa: E402
from tests.fixtures.fake_openai import FakeOpenAI  # noqa: E402


def audit_one(browser, address: str, title: str, all_impacts: bool, verbose: bool) -> int:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(90_000)
    page.goto(address)
    if "/p/" in address:
        settle_phone(page)  # the phone page: no Streamlit
    elif address.startswith("http"):
        settle(page)  # a Streamlit page; the HTML export is a plain file
    found = run_axe(page, blocking_only=not all_impacts)
    rules = ", ".join(f"{v.rule}×{v.count}" for v in found) or "none"
    print(f"  {title:<22} {len(found):>2} rules {sum(v.count for v in found):>3} elements   {rules}")
    if verbose:
        for v in found:
            print(f"      {v.line()}")
    context.close()
    return sum(v.count for v in found)


def audit(browser, url: str, paths: dict[str, str], all_impacts: bool, verbose: bool) -> int:
    return sum(audit_one(browser, f"{url}/{path}", title, all_impacts, verbose) for path, title in paths.items())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all-impacts", action="store_true", help="also minor and moderate violations")
    parser.add_argument("--verbose", action="store_true", help="print each rule's help and sample elements")
    parser.add_argument("--pages", help="comma-separated addresses to audit (default: every page; 'home' for Home)")
    parser.add_argument("--app", help="serve this entry file with streamlit run instead of ifworld app (to compare "
                                      "a layout; it has no phone page)")
    parser.add_argument("--filled", action="store_true",
                        help="fill the facilitator's store first (a what-if run, a belief simulation, a sweep) and "
                             "also audit the run's HTML export")
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
        room = {p: t for p, t in ROOM_PAGES.items() if not (args.app and p.startswith("p/"))}
        for who, participant, paths in (("facilitator", False, wanted), ("participant", True, room)):
            home = Path(tmp) / who
            home.mkdir()
            export = fill_store(home, fake.url) if args.filled and not participant else None
            proc, url = start_app(home, fake.url, participant, args.app)
            try:
                print(f"{who}{', filled store' if export else ''} (serious + critical WCAG 2 A/AA violations; "
                      "rule×elements)" if not args.all_impacts else f"{who} (all WCAG 2 A/AA violations)")
                total += audit(browser, url, paths, args.all_impacts, args.verbose)
                if export:
                    total += audit_one(browser, export.as_uri(), "HTML export", args.all_impacts, args.verbose)
            finally:
                stop_app(proc)
        browser.close()
    print(f"total elements in violation: {total}")


if __name__ == "__main__":
    main()
