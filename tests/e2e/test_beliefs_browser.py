"""Belief pages in a real browser: play the animation for a few rounds and pause; run a small sweep."""

import re
import time

from tests.e2e.conftest import open_page, shot, wait_idle


def _round(page) -> int:
    text = page.get_by_text(re.compile(r"Round \d+ of \d+")).first.inner_text()
    return int(re.search(r"Round (\d+) of", text).group(1))


def test_animation_plays_and_pauses(page) -> None:
    open_page(page, "beliefs", expect="Belief exchange")
    page.get_by_role("button", name="Run simulation").click()
    page.get_by_text(re.compile(r"Round 0 of \d+")).first.wait_for()
    wait_idle(page)
    page.get_by_role("button", name="Play").click()
    deadline = time.time() + 60
    while time.time() < deadline and _round(page) < 3:
        time.sleep(0.2)
    assert _round(page) >= 3
    page.get_by_role("button", name="Pause").click()
    page.get_by_role("button", name="Play").wait_for()
    wait_idle(page)
    paused_at = _round(page)
    time.sleep(2)
    assert _round(page) == paused_at
    assert page.locator(".js-plotly-plot").count() >= 3
    shot(page, "beliefs")


def test_sweep_page_runs_a_small_grid(page) -> None:
    open_page(page, "belief_sweep", expect="Belief sweep")
    page.get_by_role("button", name="Run sweep").click()
    page.get_by_text("rows from").first.wait_for(timeout=300_000)
    wait_idle(page, timeout_s=300)
    page.locator("[data-testid=stDataFrame]").first.wait_for()
    page.get_by_role("tab", name="Figure 1").click()
    page.locator(".js-plotly-plot").first.wait_for()
    wait_idle(page)
    shot(page, "belief_sweep")


def test_click_an_agent_opens_its_history(page) -> None:
    open_page(page, "beliefs", expect="Belief exchange")
    page.get_by_role("button", name="Run simulation").click()
    page.get_by_text(re.compile(r"Round 0 of \d+")).first.wait_for()
    wait_idle(page)
    page.get_by_role("button", name="End").click()
    wait_idle(page)
    nodes = page.locator(".js-plotly-plot").first.locator(".scatterlayer .trace").last.locator("path.point")
    nodes.nth(5).click(force=True)
    page.get_by_text(re.compile(r"Agent 5: confidence per fact")).first.wait_for(timeout=30_000)
    wait_idle(page)
    assert page.locator("[data-testid=stDataFrame]").count() >= 1  # its meetings table (canvas grid)
