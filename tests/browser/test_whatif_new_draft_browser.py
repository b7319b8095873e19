"""Issue #33, in a real browser: after a run whose panel was edited at review, *➕ New what-if* opens a draft with
an expert panel, and *Start run* starts (it once came up empty and failed with "The expert list is empty")."""

from tests.browser.conftest import open_page, wait_idle, wait_run_completed


def _panel(page) -> list[str]:
    """The draft's experts: the panel's chips and the "More domains" text."""
    chips = page.locator(".st-key-whatif_experts .react-aria-ComboBox [data-tag]").all_inner_texts()
    custom = page.locator(".st-key-whatif_custom input").input_value()
    print("panel:", chips, repr(custom))
    return [*chips, *[d for d in custom.split(",") if d.strip()]]


def test_new_whatif_after_a_review_edit_has_a_panel(page) -> None:
    page.set_default_timeout(120_000)
    open_page(page, "whatif", expect="Proposition")
    page.get_by_role("button", name="Quick preset: 2 experts, 1 round").click()
    wait_idle(page)
    assert _panel(page), "the quick preset's draft has no panel (the locators are wrong)"
    page.get_by_text("Pause for review after the refiner").click()
    page.get_by_role("button", name="Start run").click()
    page.get_by_text("Paused before any expert runs").first.wait_for(timeout=180_000)
    wait_idle(page)
    extra = page.locator("[class*=_extra] input").first
    extra.fill("urban planning")
    page.get_by_role("button", name="Apply edits and continue").click()
    wait_run_completed(page)
    page.get_by_role("button", name="New what-if").click()
    page.get_by_text("Proposition").first.wait_for()
    wait_idle(page)
    assert _panel(page), "the new draft has no expert panel"
    page.get_by_role("button", name="Start run").click()
    wait_idle(page)
    assert page.get_by_text("The expert list is empty").count() == 0
