"""WCAG 2.1 AA in a real browser (issue #35): axe-core's WCAG 2 A/AA rules over every page the facilitator sees
and over what a participant or visitor sees, on a laptop and on a phone: the phone page's code and join screens
(``/p/``, the room's only page), the facilitator-only notice a typed Streamlit address answers with, and the
"Page not found" an unknown address answers with. Any serious or critical violation fails the test, with the
rule, how many elements and axe's own message (for colour contrast: the two colours and the ratio).

A second app serves a store with a completed what-if run, a belief simulation and a sweep, so the pages that draw
run views, tables and figures are checked with them drawn, and so is the run's HTML export.

There is no allow-list: every page measured zero serious or critical violations after the fixes listed in
docs/accessibility.md. A violation Streamlit's own markup causes and we cannot avoid would be named here, one by
one, with its reason — never silently skipped.

axe-core is installed from npm by ``scripts/browser.sh`` (into ``.cache/axe``); the audit with all figures is
``python benchmarks/a11y_audit.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ifworld.config import load_settings
from ifworld.figstyle import MIN_TEXT_PX
from ifworld.runs.store import RunStore
from ifworld.whatif import open_workshop, service
from ifworld.whatif.params import default_params
from tests.browser.axe import (
    AXE_JS,
    PAGES,
    axe_available,
    fill_store,
    run_axe,
    settle,
    settle_phone,
    start_app,
    stop_app,
)
from tests.browser.keyboard import focused, named, press_on, tab_to
from tests.fixtures.fake_openai import FakeOpenAI

PHONE = {"width": 390, "height": 844}
FILLED = ["whatif", "causal_map", "runs", "beliefs", "belief_sweep"]  # pages that draw more once runs exist
NOTICE = "This page is for the facilitator"
# path ({token}: an open workshop's), text it shows; the first two are the phone page's screens
PARTICIPANT = [("p/", "Workshop code"), ("p/?w={token}", "Your display name"), ("whatif", NOTICE),
               ("no_such_page", "Page not found")]


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
    sizes = page.eval_on_selector_all("[data-testid=stCaptionContainer]",
                                      "els => els.map(e => parseFloat(getComputedStyle(e).fontSize))")
    assert all(px >= MIN_TEXT_PX for px in sizes), f"/{path}: captions at {sorted(set(sizes))} px"


@pytest.fixture(scope="module")
def participant_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """``ifworld app --require-signin``: every browser below is a participant or visitor. With a what-if run paused
    in review and its workshop open (made through the engine): (the app's address, the workshop's token)."""
    with FakeOpenAI(latency=0.02) as fake:
        home = tmp_path_factory.mktemp("a11y_room")
        proc, url = start_app(home, fake.url, participant=True)
        store = RunStore(home / "runs.sqlite")
        try:
            settings = load_settings({"base_url": fake.url, "model": "fake-model", "api_key": "sk-a11y-fake",
                                      "db_path": home / "runs.sqlite"})
            params = default_params("What if trains ran all night?", "ifworld", rounds=1, review=True)
            run_id = service.run(params, settings=settings, store=store)["run_id"]
            token = open_workshop(run_id, store=store).token
        finally:
            store.close()
        yield url, token
        stop_app(proc)


@pytest.fixture(scope="module")
def filled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The facilitator's app over a store with a completed what-if run, a belief simulation and a sweep (the
    pages then draw their tables, figures and run views), and that run's HTML export."""
    with FakeOpenAI(latency=0.02) as fake:
        home = tmp_path_factory.mktemp("a11y_filled")
        export = fill_store(home, fake.url)
        proc, url = start_app(home, fake.url)
        yield url, export
        stop_app(proc)


@pytest.mark.parametrize("path", FILLED, ids=FILLED)
def test_pages_over_a_filled_store_have_no_serious_violation(browser, filled, path: str) -> None:
    url, _ = filled
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(90_000)
    try:
        page.goto(f"{url}/{path}")
        page.get_by_role("link", name=PAGES[path]).first.wait_for()
        settle(page)
        assert_no_blocking(page, f"/{path} (facilitator, filled store)")
    finally:
        context.close()


def test_html_export_has_no_serious_violation(browser, filled) -> None:
    _, export = filled
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    try:
        page.goto(export.as_uri())
        assert page.locator("h1, h2").count() > 0
        assert_no_blocking(page, "the what-if run's HTML export")
    finally:
        context.close()


@pytest.mark.parametrize("viewport", [{"width": 1400, "height": 1000}, PHONE], ids=["laptop", "phone"])
@pytest.mark.parametrize(("path", "expect"), PARTICIPANT, ids=["code", "join", "notice", "not_found"])
def test_participant_view_has_no_serious_violation(browser, participant_url: tuple[str, str], path: str,
                                                   expect: str, viewport: dict[str, int]) -> None:
    url, token = participant_url
    path = path.format(token=token)
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        page.goto(f"{url}/{path}")
        page.get_by_text(expect).first.wait_for()
        if path.startswith("p/"):
            settle_phone(page)
        else:  # a Streamlit page: still a participant's view, with the way to the phone page
            settle(page)
            assert page.locator("[data-testid=stSidebarNav]").count() == 0
            assert page.get_by_role("link", name="Join a workshop").count() == 1
        assert_no_blocking(page, f"/{path} (participant, {viewport['width']} px wide)")
    finally:
        context.close()


def test_participant_path_by_keyboard_alone(browser, filled) -> None:
    """Join by code on the phone page, take the even split and save the prediction with the keyboard alone (Tab,
    typing, Enter), each control showing its focus; axe then finds no serious violation in the participant's
    room on a phone, nor in the facilitator's open workshop."""
    url, _ = filled
    fctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    fac = fctx.new_page()
    fac.set_default_timeout(120_000)
    pctx = browser.new_context(viewport=PHONE)
    p = pctx.new_page()
    p.set_default_timeout(120_000)
    try:
        fac.goto(f"{url}/whatif")
        fac.get_by_label("Rounds", exact=True).fill("1")
        fac.get_by_text("Pause for review after the refiner").click()
        fac.get_by_text("Pause between rounds for workshop input").click()
        fac.get_by_role("button", name="Start run").click()
        fac.get_by_text("Paused before any expert runs").first.wait_for()
        settle(fac)
        fac.get_by_role("button", name="Open workshop").click()
        fac.get_by_text("Scan to join").first.wait_for()
        settle(fac)
        assert_no_blocking(fac, "the facilitator's open workshop")
        code = fac.locator("text=/^[A-Z0-9]{6}$/").first.inner_text().strip()

        p.goto(f"{url}/p/")  # the phone page: the room's only page
        p.get_by_label("Workshop code").wait_for()
        tab_to(p, lambda e: e["tag"] == "INPUT" and "code" in e["name"].lower())
        p.keyboard.type(code.lower())
        p.keyboard.press("Enter")
        p.get_by_label("Your display name").wait_for()
        assert (focused(p) or {}).get("id") == "given"  # the name box has the focus: no Tab needed
        p.keyboard.type("Kim")
        press_on(p, named("Join"))
        p.get_by_text("Your prediction (before round 1)").wait_for()
        press_on(p, named("Even split"))
        p.locator("#total").filter(has_text="Total: 100 of 100").wait_for()
        press_on(p, named("Save my prediction"))
        p.locator("#predict-status").filter(has_text="Saved: ").wait_for()
        assert_no_blocking(p, "the participant's workshop view after the prediction (phone)")
    finally:
        pctx.close()
        fctx.close()
