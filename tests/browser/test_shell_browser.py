"""The shell in a real browser: landing page, navigation, settings, no key in the page source."""

from tests.browser.conftest import KNOWN_KEY, open_page, shot, wait_idle


def test_landing_and_navigation(page) -> None:
    open_page(page, "", expect="IF-World Studio")
    for text in ("What-if scenarios", "Belief exchange", "Reasoning With a Star"):
        assert page.get_by_text(text).first.is_visible()
    shot(page, "home")
    page.get_by_role("link", name="About & settings").first.click()
    page.get_by_text("Environment variables").first.wait_for()
    wait_idle(page)
    assert "fake-model" in page.content()


def test_settings_test_connection(page) -> None:
    open_page(page, "settings", expect="Model connection")
    page.get_by_role("button", name="Test connection").last.click()
    page.get_by_text("structured output:").first.wait_for()
    shot(page, "settings")
    assert KNOWN_KEY not in page.content()
