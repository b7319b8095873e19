"""The projector's join slide (issue #42 item 4): at 1280×720 and 175 % zoom (a 731×411 CSS-pixel screen at
device scale 1.75) the address, the code and the QR code all sit inside one screen, and the QR code is large."""

from __future__ import annotations

from tests.browser.conftest import SHOTS, wait_idle
from tests.browser.test_workshop_closing_browser import room_between_rounds

PROJECTOR = {"width": 731, "height": 411}  # 1280×720 at 175 %


def test_the_join_slide_fits_one_projector_screen(browser, app_url, e2e_fake, tmp_path_factory) -> None:  # noqa: ANN001
    _, run_id, room = room_between_rounds(e2e_fake, tmp_path_factory)
    ctx = browser.new_context(viewport=PROJECTOR, device_scale_factor=1.75)
    page = ctx.new_page()
    page.set_default_timeout(120_000)
    page.app_url = app_url
    page.goto(f"{app_url}/whatif?run={run_id}", wait_until="commit")
    line = page.get_by_text("To join, go to 127.0.0.1:").filter(visible=True).first
    line.wait_for()
    assert line.inner_text().endswith(f"/p/ and enter the code {room.code}")
    wait_idle(page)
    page.get_by_role("button", name="Show the join slide").click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_text(room.code, exact=True).wait_for()
    wait_idle(page)
    screen = {"x": 0, "y": 0, **PROJECTOR}
    for part in (dialog.get_by_text("Go to"), dialog.get_by_text(room.code, exact=True),
                 dialog.get_by_role("img", name="QR code of the join link")):
        box = part.bounding_box()
        assert box and box["y"] >= 0 and box["x"] >= 0, (part, box)
        assert box["y"] + box["height"] <= screen["height"] and box["x"] + box["width"] <= screen["width"], (part, box)
    qr = dialog.get_by_role("img", name="QR code of the join link").bounding_box()
    assert qr["height"] >= 0.45 * PROJECTOR["height"]  # large enough for the back row
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "workshop_join_slide_175.png"))  # the screen as the room sees it
    page.keyboard.press("Escape")
    dialog.wait_for(state="detached")
    ctx.close()
