"""RWS pages in a real browser: grade a typed answer on the first click and on Enter, plain-text picker labels
and an answer rendered as maths with upright units; run two patterns on three items, whose verdict heatmap
names its colours."""

from tests.browser.conftest import KNOWN_KEY, open_page, shot, wait_idle


def _verdicts(page) -> int:
    return page.get_by_text("decided by").count()


def test_browse_grades_on_the_first_click_and_on_enter(page) -> None:
    open_page(page, "rws_browse", expect="Grade your own answer")
    box = page.get_by_label("Your answer")
    box.fill("")
    box.press_sequentially("100 km")  # typed, never blurred: the click must still grade
    page.get_by_role("button", name="Grade").click()
    page.get_by_text("decided by").first.wait_for(timeout=30_000)
    wait_idle(page)
    assert _verdicts(page) == 1
    assert page.get_by_text("incorrect").first.is_visible() or page.get_by_text("not_sure").first.is_visible()
    box.fill("")
    box.press_sequentially("\\tan\\psi = \\frac{\\Omega r}{V}")  # the first item's reference
    box.press("Enter")
    page.get_by_text("**correct**").or_(page.locator("[data-testid=stAlertContentSuccess]")).first.wait_for(
        timeout=30_000)
    wait_idle(page)
    shot(page, "rws_browse")


def test_browse_picker_is_plain_text_and_answers_are_upright_maths(page) -> None:
    open_page(page, "rws_browse", expect="Grade your own answer")
    picker = page.get_by_role("combobox", name="Item")  # the first item's label: no raw LaTeX
    label = page.locator("[data-testid=stSelectbox]").filter(has=picker).inner_text()
    assert "$" not in label and "\\" not in label
    picker.click()
    page.keyboard.type("2025_IFW_3 ")
    page.keyboard.press("Enter")
    wait_idle(page)
    page.get_by_text("Show reference steps and answer").click()
    wait_idle(page)
    maths = page.locator(".katex-display .katex").last
    maths.wait_for()
    assert "37.1" in maths.inner_text()
    upright = maths.locator(".mord.mathrm")  # KaTeX's upright (roman) letters: the unit, not variables k·m·s
    assert "".join(upright.all_inner_texts()).replace("\u200b", "").startswith("km")
    shot(page, "rws_browse_answer")


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
    colour_bar = page.locator(".js-plotly-plot g.colorbar").first
    colour_bar.wait_for()
    # each verdict is named with its mark as well as its colour (never told by colour alone, #35)
    assert {"✗ incorrect", "? not sure", "✓ correct"} <= set(colour_bar.locator("text").all_text_contents())
    shot(page, "rws_benchmark")
    assert KNOWN_KEY not in page.content()
