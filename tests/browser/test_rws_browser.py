"""RWS pages in a real browser: grade a typed answer; run two patterns on three items."""

from tests.browser.conftest import KNOWN_KEY, open_page, shot, wait_idle


def test_browse_grades_a_typed_answer(page) -> None:
    open_page(page, "rws_browse", expect="Grade your own answer")
    page.get_by_label("Your answer").fill("definitely not the answer 12345 parsecs")
    page.get_by_label("Your answer").press("Enter")
    wait_idle(page)
    page.get_by_role("button", name="Grade").click()
    page.get_by_text("decided by").first.wait_for()
    wait_idle(page)
    shot(page, "rws_browse")
    assert page.get_by_text("incorrect").first.is_visible() or page.get_by_text("not_sure").first.is_visible()


def test_benchmark_runs_two_patterns_on_three_items(page) -> None:
    open_page(page, "rws_benchmark", expect="Patterns")
    limit = page.get_by_label("Items (limit)")
    limit.fill("3")
    limit.press("Enter")
    wait_idle(page)
    page.get_by_text("3 items × 2 patterns").first.wait_for()
    page.get_by_role("button", name="Run benchmark").click()
    page.get_by_role("button", name="Re-grade from saved outputs (no model calls)").wait_for(timeout=180_000)
    wait_idle(page, timeout_s=180)
    page.locator(".js-plotly-plot").first.wait_for()
    shot(page, "rws_benchmark")
    assert KNOWN_KEY not in page.content()
