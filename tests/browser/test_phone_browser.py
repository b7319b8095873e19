"""The participant's phone page (ui/phone_server.py, ifworld/web/phone.js) in Chromium, on ``ifworld app`` (the
server that mounts its routes), at 390 × 844: a whole workshop from three phones, a Send whose answer is lost,
closing while someone types, axe-core and the keyboard alone. The facilitator's moves are engine calls from the
test (the Streamlit facilitator page has its own browser test); every phone's view moves on by itself over
server-sent events — a marker set on each page's window after it joined must still be there at the end.

Screenshots: phone_join.png, phone_room.png and phone_reveal.png (docs/screenshots with
IFWORLD_UPDATE_SCREENSHOTS=1).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from ifworld.access import OPERATOR
from ifworld.config import load_settings
from ifworld.runs.store import RunStore
from ifworld.whatif import service
from ifworld.whatif.params import default_params
from ifworld.whatif.session import State, load_session
from ifworld.whatif.workshop import (
    close_workshop,
    continue_workshop,
    decide,
    load_workshop,
    open_workshop,
    reveal_workshop,
)
from tests.browser.axe import AXE_JS, axe_available, run_axe
from tests.browser.conftest import KNOWN_KEY, SHOTS
from tests.browser.phone_steps import PHONE, STAY, STAYED, join, phone

PROJECTOR_175 = ({"width": 731, "height": 411}, 1.75)  # 1280 × 720 at 175 %
HOSTILE = "<img src=x onerror=alert(1)> ![pic](http://evil.example/x.png) [click](http://evil.example/)"
WAIT_MS = 60_000  # a view is pushed within a poll (0.4 s); the margin is for a machine shared with a CI run
FITS = "(s) => { const e = document.querySelector(s); return e.scrollWidth <= e.clientWidth; }"


@pytest.fixture
def app(network_app: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """``ifworld app --address 0.0.0.0`` (ui/asgi.py, which mounts the phone routes), with engine settings and a
    store on the same file for the facilitator's moves."""
    served = network_app
    store = RunStore(served["db"])
    settings = load_settings({"base_url": served["fake"].url, "model": "fake-model", "api_key": KNOWN_KEY,
                              "db_path": served["db"]})
    try:
        yield {**served, "store": store, "settings": settings}
    finally:
        store.close()


def _run_at_review(app: dict[str, Any], prop: str = "What if the tides stopped for a month?") -> tuple[str, Any]:
    """A two-round run paused at the refiner's review, its workshop open: (run id, workshop)."""
    params = default_params(prop, "ifworld", rounds=2, review=True, pause_between_rounds=True)
    run_id = service.run(params, settings=app["settings"], store=app["store"])["run_id"]
    assert load_session(run_id, app["store"]).state == State.REVIEW
    return run_id, open_workshop(run_id, store=app["store"])


def _to_round_1(app: dict[str, Any], run_id: str) -> None:
    """The review, unchanged: round 1 runs, then the run pauses for the room."""
    service.continue_run(run_id, settings=app["settings"], store=app["store"])
    assert load_session(run_id, app["store"]).state == State.BETWEEN_ROUNDS


def _row(page, text: str):  # noqa: ANN001, ANN202
    return page.locator("li.row").filter(has=page.locator(".text", has_text=text))


def _send(page, text: str) -> None:  # noqa: ANN001
    page.get_by_label("Your contribution").fill(text)
    page.get_by_role("button", name="Send").click()
    page.locator("#send-status").filter(has_text="Sent to the facilitator").wait_for()
    _row(page, text).wait_for()
    assert page.get_by_label("Your contribution").input_value() == ""


def _inert(page) -> None:  # noqa: ANN001
    assert page.locator("img[src='x'], img[src*='evil'], a[href*='evil'], script:not([src]):not([type])").count() == 0


def _wait_engine(page, done, what: str) -> None:  # noqa: ANN001
    """Wait for the store to say ``done()`` (the page's press reached the engine), polling on the page's clock."""
    for _ in range(WAIT_MS // 250):
        if done():
            return
        page.wait_for_timeout(250)
    raise AssertionError(f"{what}: not in the store after {WAIT_MS // 1000} s")


def _number(cell: str) -> bool:
    return re.fullmatch(r"-?\d+(\.\d+)?", cell.strip()) is not None


def test_three_phones_from_code_to_reveal(browser, app) -> None:  # noqa: ANN001
    run_id, ws = _run_at_review(app)
    store, url = app["store"], app["url"]
    with phone(browser) as ada, phone(browser) as bo, phone(browser) as cy:
        phones = {"Ada": ada, "Bo": bo, "Cy": cy}
        for name, page in phones.items():
            join(page, url, ws.code, name)
            page.get_by_text("Your prediction (before round 1)").wait_for()
            inputs = page.locator("#predict input[type=number]")
            if name == "Ada":
                page.get_by_role("button", name="Even split").click()
            else:  # the first branch most likely, the rest share what is left
                n = inputs.count()
                for i in range(n):
                    inputs.nth(i).fill(str(100 - 10 * (n - 1) if i == 0 else 10))
            page.locator("#total").filter(has_text="Total: 100 of 100").wait_for()
            page.get_by_role("button", name="Save my prediction").click()
            page.locator("#predict-status").filter(has_text="Saved: ").wait_for()
        assert len(load_workshop(run_id, store=store).predictions) == 3

        _to_round_1(app, run_id)  # the facilitator continues; every phone's form changes by itself
        for page in phones.values():
            page.get_by_text("Add to the deliberation").wait_for()
        texts = {"Ada": HOSTILE, "Bo": "Point 1: ferries need tide-free charts",
                 "Cy": "Point 2: harbour fees would [fall](http://evil.example/fees)"}
        for name, page in phones.items():
            _send(page, texts[name])
        for page in phones.values():  # everyone sees every row, as typed, as text
            for text in texts.values():
                _row(page, text).wait_for()
            _inert(page)
        room = load_workshop(run_id, store=store)
        assert sorted(c.text for c in room.contributions) == sorted(texts.values())
        by_text = {c.text: c for c in room.contributions}

        plus = _row(bo, texts["Cy"]).get_by_role("button", name=re.compile(r"^\+1 \(0\)"))
        plus.click()
        _row(bo, texts["Cy"]).get_by_role("button", name=re.compile(r"^\+1 \(1\)")).wait_for()
        assert _row(bo, texts["Cy"]).get_by_role("button").get_attribute("title")  # why it is grey now
        _row(cy, texts["Cy"]).get_by_role("button", name=re.compile(r"^\+1 \(1\)")).wait_for()  # its author sees it
        assert [(v.participant_id, v.contribution_id) for v in load_workshop(run_id, store=store).votes] == [
            (by_text[texts["Bo"]].participant_id, by_text[texts["Cy"]].id)]
        assert _row(cy, texts["Cy"]).get_by_role("button").is_disabled()  # one's own: no +1
        # between rounds every phone offers the frame the next round will see (read until the pause has one)
        bo.get_by_text("The panel's shared frame after round 1").wait_for(timeout=WAIT_MS)
        SHOTS.mkdir(parents=True, exist_ok=True)
        bo.screenshot(path=str(SHOTS / "phone_room.png"), full_page=True)

        for name in ("Bo", "Cy"):  # the facilitator accepts the two and continues
            decide(run_id, OPERATOR, by_text[texts[name]].id, "accept", store=store)
        bo.get_by_text("you · accepted").wait_for()
        for _ in continue_workshop(run_id, OPERATOR, store=store, settings=app["settings"], background=False) or []:
            pass
        assert load_session(run_id, store).state == State.COMPLETED
        for page in phones.values():
            page.get_by_text("The facilitator will reveal the predictions").wait_for()
            page.get_by_text("The panel's report").wait_for()  # the report, to open on the phone
            assert page.get_by_role("button", name="Send").count() == 0  # the run is over: no form
        reveal_workshop(run_id, OPERATOR, store=store)
        for name, page in phones.items():
            table = page.get_by_role("table", name="Your prediction beside the panel's")
            table.wait_for()
            heads = table.locator("th").all_inner_texts()
            assert "You (%)" in heads and "Panel (%)" in heads, heads
            you, panel = heads.index("You (%)"), heads.index("Panel (%)")
            rows = [r.locator("td").all_inner_texts() for r in table.locator("tbody tr").all()]
            ours = [r for r in rows if "the panel's own branch" not in " ".join(r)]  # the ones people predicted
            assert ours and all(_number(r[you]) for r in ours), (name, rows)
            assert all(all(cell.strip() for cell in r) for r in rows), (name, rows)  # "—" for none, never empty
            assert any(_number(r[you]) and _number(r[panel]) for r in rows), (name, rows)  # side by side
            assert page.evaluate(FITS, "#reveal .scroll"), f"{name}: the table scrolls sideways at 390 px"
            body = page.locator("body").inner_text()
            bad = re.search(r"\bNone\b|\bnull\b|undefined|NaN", body)
            assert not bad, (name, body[max(0, bad.start() - 300):bad.end() + 200])
            assert page.get_by_text("The panel's report").count() == 1
            _inert(page)
            assert page.evaluate(STAYED), f"{name}'s page reloaded"
            assert KNOWN_KEY not in page.content()
        ada.screenshot(path=str(SHOTS / "phone_reveal.png"), full_page=True)


def test_a_send_whose_answer_is_lost_is_stored_once(browser, app) -> None:  # noqa: ANN001
    run_id, ws = _run_at_review(app, "What if bridges charged tolls by weight?")
    _to_round_1(app, run_id)
    first, more = "Tolls would move freight onto rail", "and rail needs new sidings"
    reached: list[int] = []

    def lose_the_answer(route) -> None:  # noqa: ANN001
        reached.append(route.fetch().status)  # the server stores it ...
        route.abort("connectionreset")  # ... and the page never hears back

    with phone(browser) as page:
        join(page, app["url"], ws.code, "Dee")
        page.route("**/p/send", lose_the_answer)
        box = page.get_by_label("Your contribution")
        box.fill(first)
        page.get_by_role("button", name="Send").click()
        _wait_engine(page, lambda: reached == [200], "the Send")
        box.press("End")
        box.type(" " + more)  # still typing: the answer is lost (or the room shows it first)
        page.locator("#send-status").filter(has_text="it was stored").wait_for()
        _row(page, first).wait_for()
        page.wait_for_function("() => !document.querySelector('#send button[type=submit]').disabled")  # answered
        assert "it was stored" in page.locator("#send-status").inner_text()  # the lost answer did not undo it
        assert box.input_value().strip() == more  # the stored text left the box, what came after stayed
        page.unroute("**/p/send")
        page.get_by_role("button", name="Send").click()
        _row(page, more).wait_for()
        texts = [c.text for c in load_workshop(run_id, store=app["store"]).contributions]
        assert texts == [first, more], texts  # one of each: no twin, nothing merged
        assert page.evaluate(STAYED)


def test_closing_keeps_what_was_typed(browser, app) -> None:  # noqa: ANN001
    run_id, ws = _run_at_review(app, "What if every bus were free?")
    _to_round_1(app, run_id)
    draft = "Half-written: the depots would need"
    with phone(browser) as page:
        join(page, app["url"], ws.code, "Eli")
        box = page.get_by_label("Your contribution")
        box.fill(draft)
        close_workshop(run_id, OPERATOR, store=app["store"])
        page.get_by_text("what is in the box below was not sent").wait_for()  # the page moved on by itself
        page.get_by_text("the workshop is closed", exact=False).first.wait_for()
        assert page.get_by_label("Your contribution").input_value() == draft
        assert page.get_by_role("button", name="Send").is_disabled()
        assert load_workshop(run_id, store=app["store"]).contributions == []
        assert page.evaluate(STAYED)


def _no_blocking(page, where: str) -> None:  # noqa: ANN001
    found = run_axe(page)
    assert not found, f"{where}: serious/critical WCAG 2 A/AA violations:\n" + "\n".join(v.line() for v in found)


def _tab_to(page, selector: str, limit: int = 40) -> None:  # noqa: ANN001
    """Press Tab until the focused element matches ``selector``; its focus must be visible."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("(s) => document.activeElement && document.activeElement.matches(s)", selector):
            assert page.evaluate("() => document.activeElement.matches(':focus-visible')"), selector
            return
    raise AssertionError(f"Tab never reached {selector}")


def test_axe_and_the_keyboard_alone(browser, app) -> None:  # noqa: ANN001
    if not axe_available():
        pytest.skip(f"axe-core is not installed at {AXE_JS} (scripts/browser.sh installs it from npm)")
    run_id, ws = _run_at_review(app, "What if trains ran all night?")
    url = app["url"]
    for view, where in (((PHONE, 1.0), "phone"), (PROJECTOR_175, "175 %")):
        with phone(browser, *view) as page:
            page.goto(f"{url}/p/")
            page.get_by_label("Workshop code").wait_for()
            _no_blocking(page, f"code screen ({where})")
            page.goto(f"{url}/p/?w={ws.token}")
            page.get_by_label("Your display name").wait_for()
            _no_blocking(page, f"join screen ({where})")
            if where == "phone":
                SHOTS.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(SHOTS / "phone_join.png"), full_page=True)

    with phone(browser) as page, phone(browser, *PROJECTOR_175) as big:
        page.goto(f"{url}/p/")
        _tab_to(page, "#code")
        page.keyboard.type(ws.code)
        page.keyboard.press("Enter")
        page.get_by_label("Your display name").wait_for()
        assert page.evaluate("() => document.activeElement.id") == "given"  # the name box has the focus
        page.evaluate(STAY)
        page.keyboard.type("Kim")
        page.keyboard.press("Enter")
        page.get_by_text("Your prediction (before round 1)").wait_for()
        _no_blocking(page, "room, prediction (phone)")
        _tab_to(page, "#predict button[type=button]")  # Even split
        page.keyboard.press("Space")
        page.locator("#total").filter(has_text="Total: 100 of 100").wait_for()
        _tab_to(page, "#predict button[type=submit]")
        page.keyboard.press("Enter")
        page.locator("#predict-status").filter(has_text="Saved: ").wait_for()

        join(big, url, ws.code, "Lou")
        big.get_by_text("Your prediction (before round 1)").wait_for()
        _no_blocking(big, "room, prediction (175 %)")
        _to_round_1(app, run_id)
        page.get_by_text("Add to the deliberation").wait_for()
        _tab_to(page, "#text")
        page.keyboard.type("Night trains need quiet track work")
        _tab_to(page, "#send button[type=submit]")
        page.keyboard.press("Enter")
        _row(page, "Night trains need quiet track work").wait_for()
        big.get_by_text("Night trains need quiet track work").wait_for()
        _no_blocking(page, "room with a contribution (phone)")
        _no_blocking(big, "room with a contribution (175 %)")
        assert page.evaluate(STAYED)


def test_a_focused_plus_one_keeps_the_focus_while_the_room_changes(browser, app) -> None:  # noqa: ANN001
    """A keyboard user on someone's +1 stays on it while others send and vote (each a redraw of the room), and
    Enter then votes: the row's buttons are changed in place, never rebuilt (ifworld/web/phone.js drawButtons)."""
    from ifworld.whatif import contribute, join_workshop, vote

    run_id, ws = _run_at_review(app, "What if lifts were banned above ten floors?")
    _to_round_1(app, run_id)
    store = app["store"]
    bo, bo_key = join_workshop(ws.token, "Bo", device_key="bo-device-key-0123456789", store=store)
    cy, cy_key = join_workshop(ws.token, "Cy", device_key="cy-device-key-0123456789", store=store)
    target = contribute(run_id, bo.id, bo_key, "Stairs would decide who lives high up", store=store)
    with phone(browser) as page:
        join(page, app["url"], ws.code, "Ada")
        plus_one = _row(page, target.text).get_by_role("button", name=re.compile(r"^\+1 \(0\) · .*Bo$"))
        plus_one.focus()
        page.evaluate("() => { window.__aimed = document.activeElement; }")
        contribute(run_id, cy.id, cy_key, "Ground floors would cost the most", store=store)
        _row(page, "Ground floors would cost the most").wait_for()  # a new row: the list was redrawn
        vote(run_id, cy.id, cy_key, target.id, store=store)
        _row(page, target.text).get_by_role("button", name=re.compile(r"^\+1 \(1\) · ")).wait_for()  # relabelled
        assert page.evaluate("() => document.activeElement === window.__aimed"), "the redraw took the focus"
        page.keyboard.press("Enter")
        _wait_engine(page, lambda: next(c for c in load_workshop(run_id, store=store).contributions
                                        if c.id == target.id).votes == 2, "Ada's +1")
        assert page.evaluate(STAYED)


def test_a_page_opened_while_the_store_is_down_says_so_and_tries_again_by_itself(browser, app) -> None:  # noqa: ANN001
    """The start screen the server sends when the store cannot be read (ui/phone_server.py, screen "retry"):
    the phone reads the friendly line, no server detail, and the page loads itself again (then the room's form)."""
    from ui.phone_server import _SHELL, UNREACHABLE, _json_for_html

    _, ws = _run_at_review(app, "What if ferries ran all night?")
    down = _SHELL.format(start=_json_for_html({"screen": "retry", "message": UNREACHABLE}))
    served: list[str] = []

    def first_down(route) -> None:  # noqa: ANN001
        if not served:  # the store is down for the first load only
            served.append(route.request.url)
            route.fulfill(status=200, content_type="text/html", body=down)
        else:
            route.continue_()

    with phone(browser) as page:
        page.route(f"**/p/?w={ws.token}", first_down)
        page.goto(f"{app['url']}/p/?w={ws.token}")
        page.get_by_text(UNREACHABLE).wait_for()
        assert "postgres" not in page.content() and "Traceback" not in page.content()
        page.get_by_label("Your display name").wait_for()  # reloaded by itself: the join form of the workshop
        assert served == [f"{app['url']}/p/?w={ws.token}"]
