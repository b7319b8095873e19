"""What-if flow in a real browser: a full IF-World run, the report and causal map; then the Runs page
reopens, replays and exports it."""

import time

import pytest

from tests.browser.conftest import KNOWN_KEY, open_page, shot, wait_idle, wait_run_completed


@pytest.fixture(scope="module")
def finished_run(browser, app_url) -> str:
    """Run one quick IF-World analysis through the UI; returns the run id (the page's URL names it)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(120_000)
    page.app_url = app_url
    open_page(page, "whatif", expect="Proposition")
    page.get_by_role("button", name="Quick preset: 2 experts, 1 round").click()
    wait_idle(page)
    page.get_by_role("button", name="Start run").click()
    wait_run_completed(page)
    assert page.get_by_text("Decision table").first.is_visible()
    assert page.get_by_text("Causal map").first.is_visible()
    _no_controls_of(page, "Cancel run")  # a finished run offers no Cancel (the running view's, gone once redrawn)
    shot(page, "whatif")
    run_id = page.url.split("run=")[1].split("&")[0]
    assert KNOWN_KEY not in page.content()
    context.close()
    return run_id


def test_whatif_report_visible(finished_run) -> None:
    assert finished_run.startswith("whatif-")


def test_causal_map_page_shows_the_run(page, finished_run) -> None:
    open_page(page, "causal_map", expect="Causal map")
    page.locator(".js-plotly-plot").first.wait_for()
    wait_idle(page)
    shot(page, "causal_map")
    assert page.locator(".js-plotly-plot").count() >= 1


def test_runs_page_reopens_replays_exports(page, finished_run) -> None:
    open_page(page, "runs", expect="Runs")
    # visible: the run list's grid carries the same words in hidden accessibility cells, first in the page
    page.get_by_text("What-if (ifworld)").filter(visible=True).first.wait_for()
    page.get_by_role("button", name="Markdown").first.wait_for()
    with page.expect_download() as download:
        page.get_by_role("button", name="Markdown").first.click()
    text = open(download.value.path(), encoding="utf-8").read()
    assert text.startswith("# What if") and "**Verdict.**" in text.split("\n## ")[0] and KNOWN_KEY not in text
    assert text.index("## Consistency checks") < text.index("## Run\n")  # run metadata at the end
    shot(page, "runs")
    page.get_by_role("tab", name="Replay").click()
    page.get_by_role("button", name="Play").click()
    page.get_by_role("button", name="Pause").wait_for()
    page.get_by_text("steps from the").first.wait_for()
    wait_idle(page, timeout_s=60)
    assert KNOWN_KEY not in page.content()


def _buttons(page) -> set[str]:
    """Labels of the buttons in the page's main area (the sidebar's are not the run's controls)."""
    return {t.strip() for t in page.locator("[data-testid=stMain] button").all_inner_texts() if t.strip()}


def _no_controls_of(page, *labels: str, timeout_s: float = 30) -> None:
    """No control of an earlier state on the page, once the page has drawn the new one: the report's heading can
    arrive a moment before the state's own redraw on a busy machine, so wait for the controls to go (a control
    that never goes still fails)."""
    deadline = time.time() + timeout_s
    while True:
        present = {b for b in _buttons(page) if any(label in b for label in labels)}
        if not present or time.time() > deadline:
            break
        time.sleep(0.2)
    assert not present, f"controls of an earlier state are still on the page: {present}"


def test_review_then_deliberation_round_by_round_with_a_participant(page) -> None:
    """The walk-through of a session's states: review → edit → continue → between rounds → contribution →
    continue → completed; after each step no control of an earlier state is on the page. Screenshots of each
    state go to docs/screenshots (IFWORLD_UPDATE_SCREENSHOTS=1)."""
    page.set_default_timeout(120_000)
    open_page(page, "whatif", expect="Proposition")
    shot(page, "whatif_state_draft")
    page.get_by_label("Rounds", exact=True).fill("2")
    page.get_by_text("Pause for review after the refiner").click()
    page.get_by_text("Pause between rounds for workshop input").click()
    page.get_by_role("button", name="Start run").click()
    page.get_by_text("Paused before any expert runs").first.wait_for()
    wait_idle(page)
    _no_controls_of(page, "Start run", "Apply and estimate", "Quick preset")
    shot(page, "whatif_state_review")
    page.get_by_label("Premises (one per line)").fill("the Moon vanishes at noon UTC")
    page.get_by_label("More domains (comma-separated, any field)").last.fill("urban planning")
    page.get_by_role("button", name="Apply edits and continue").click()
    page.get_by_text("Paused after round 1").first.wait_for()
    wait_idle(page)
    _no_controls_of(page, "Apply edits", "Continue unchanged", "Start run")
    assert page.get_by_text("Paused before any expert runs").count() == 0
    page.get_by_text("Round 1: experts and deliberation").first.click()
    for text in ("Deliberation after round 1", "Consensus", "Conditional branches", "Hard conflicts",
                 "Cross-domain causal integration"):
        page.get_by_text(text).first.wait_for(state="visible", timeout=30_000)  # the expander opens, then draws
    assert page.get_by_text("urban planning").count() >= 1
    shot(page, "whatif_state_between_rounds")
    shot(page, "whatif_deliberation")
    page.get_by_label("Who is speaking").fill("Year 9 class")
    page.get_by_label("The room's contribution").fill("The school gym can shelter 300 people.")
    page.get_by_role("button", name="▶️ Continue", exact=True).click()
    wait_run_completed(page)
    _no_controls_of(page, "Continue", "Apply edits", "Resume", "Cancel run")
    assert page.get_by_text("Paused after round 1").count() == 0
    for text in ("What changed since round 1", "Consistency checks", "Review edits", "The room's contributions"):
        assert page.get_by_text(text).first.is_visible(), text
    assert page.get_by_text("The school gym can shelter 300 people.").first.is_visible()  # the room's input shown
    assert page.get_by_text("Year 9 class").first.is_visible()
    shot(page, "whatif_state_completed")
    assert KNOWN_KEY not in page.content()


@pytest.fixture
def slow_model(e2e_fake):
    """Model calls slow enough (1.5 s each) to act while a run is in flight."""
    before = e2e_fake.latency
    e2e_fake.latency = 1.5
    yield e2e_fake
    e2e_fake.latency = before


def _start_quick_run(page) -> None:
    open_page(page, "whatif", expect="Proposition")
    page.get_by_role("button", name="Quick preset: 2 experts, 1 round").click()
    wait_idle(page)
    page.get_by_role("button", name="Start run").click()
    # the live panel's state line (experts are running); a hidden copy of the words may come first in the page
    page.get_by_text("Round 1 running").filter(visible=True).first.wait_for()


def test_cancel_a_running_run_then_resume_it(page, slow_model) -> None:
    page.set_default_timeout(120_000)
    _start_quick_run(page)
    assert _buttons(page) >= {"⏹️ Cancel run"} and "▶️ Start run" not in _buttons(page)
    shot(page, "whatif_state_running")
    page.get_by_role("button", name="Cancel run").click()
    page.get_by_role("button", name="Resume").wait_for()
    wait_idle(page)
    assert page.get_by_text("The run stopped: it was cancelled").first.is_visible()
    _no_controls_of(page, "Cancel run")
    shot(page, "whatif_state_cancelled")
    slow_model.latency = 0.05
    page.get_by_role("button", name="Resume").click()
    wait_run_completed(page)
    assert page.get_by_text("Consistency checks").first.is_visible()
    assert page.get_by_text("The run stopped").count() == 0  # the stopped panel did not survive the resume
    _no_controls_of(page, "Resume", "Cancel run")


@pytest.fixture
def held_experts(e2e_fake):
    """The experts' replies wait until the test releases them: the run is surely mid-round while the test acts
    (a 1.5 s latency let a loaded machine's page miss the round's whole window)."""
    e2e_fake.hold("whatif.expert")
    yield e2e_fake
    e2e_fake.release()


@pytest.mark.parametrize("come_back", ["same session", "a link in a new tab"])
def test_leaving_mid_run_loses_nothing(page, browser, held_experts, come_back) -> None:
    """The app drives the run, not the browser tab: leaving the page mid-run lets it finish; coming back
    (or opening its link elsewhere, e.g. on the projector) shows it."""
    page.set_default_timeout(120_000)
    _start_quick_run(page)
    link = page.url
    page.get_by_role("link", name="Home").first.click()  # leave while the experts run
    wait_idle(page)
    assert held_experts.held_requests() >= 1, "the experts were not running when the page was left"
    held_experts.release()
    if come_back == "same session":
        page.get_by_role("link", name="What-if").first.click()
        viewer = page
    else:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        viewer = context.new_page()
        viewer.set_default_timeout(120_000)
        viewer.goto(link)
    wait_run_completed(viewer)
    assert viewer.get_by_text("Decision table").first.is_visible()
    assert viewer.get_by_role("button", name="Resume").count() == 0
