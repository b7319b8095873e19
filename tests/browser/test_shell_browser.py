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


def test_an_unknown_address_says_page_not_found(page) -> None:
    page.goto(f"{page.app_url}/belief_exchange")
    main = page.locator("[data-testid=stMain]")
    main.get_by_text("There is no page at this address").first.wait_for()  # ours, not Streamlit's own dialog
    wait_idle(page)
    main.get_by_text("/belief_exchange").first.wait_for()  # the address, shown as text (a condition, not a count)
    page.keyboard.press("Escape")  # Streamlit's own "Page not found" dialog, when it shows one
    assert main.get_by_text("IF-World Studio", exact=True).count() == 0  # not Home in disguise
    shot(page, "page_not_found")
    main.get_by_role("link", name="Belief exchange").first.click()  # a link on the page leads to the real one
    main.get_by_text("Run simulation").first.wait_for()
    wait_idle(page)
    assert main.get_by_text("Page not found").count() == 0
    page.goto(f"{page.app_url}/whatif")  # and known addresses open as before
    main.get_by_text("What-if").first.wait_for()
    wait_idle(page)
    assert main.get_by_text("Page not found").count() == 0
