"""A 3-participant workshop end to end in real browsers: the facilitator on the Streamlit page, each participant on
the phone page (``/p/``, a browser context each): join by code, predict, contribute (one of them hostile), vote,
the facilitator accepts, hides and continues, the report, the reveal. Participants never see a facilitator
control; their views and the facilitator's room update by themselves (no reload anywhere: a marker set on each
phone's window when it joined is still there at the end).

Screenshots: workshop_facilitator_*.png and workshop_participant_*.png (docs/screenshots with
IFWORLD_UPDATE_SCREENSHOTS=1)."""

from __future__ import annotations

import time
from contextlib import ExitStack
from pathlib import Path

from ifworld.runs.store import RunStore
from ifworld.whatif import load_session, load_workshop
from tests.browser.conftest import KNOWN_KEY, SHOTS, e2e_db, open_page, shot, wait_idle
from tests.browser.phone_steps import (
    STAYED,
    inert,
    join,
    no_facilitator_controls,
    phone,
    predict_even,
    row,
    send,
    vote,
)

HOSTILE = "<img src=x onerror=alert(1)> ![pic](http://evil.example/x.png) [click](http://evil.example/)"
VISIBLE_S = 2_000 + 3_000  # the 2 s promise plus a rerun's own time on a loaded 2-core machine


def _context(browser, app_url):  # noqa: ANN001, ANN202
    ctx = browser.new_context(viewport={"width": 1300, "height": 1000})
    page = ctx.new_page()
    page.set_default_timeout(240_000)
    page.app_url = app_url
    return ctx, page


def _click_until(page, button, done, wait_s: float = 30) -> None:  # noqa: ANN001
    """Click ``button`` once and wait for ``done()``: every click must land the first time (a click Streamlit
    dropped while a self-refreshing fragment redrew was issue #19's defect), so there is no second try."""
    if done():
        return
    wait_idle(page)
    button.click(timeout=15_000)
    deadline = time.time() + wait_s
    while not done():
        assert time.time() < deadline, f"clicking {button} did not take effect within {wait_s:.0f} s"
        time.sleep(0.25)


def _state(run_id: str, db: Path) -> str:
    s = RunStore(db)
    try:
        return load_session(run_id, s).state.value
    finally:
        s.close()


def _room(run_id: str, db: Path):  # noqa: ANN202
    s = RunStore(db)
    try:
        return load_workshop(run_id, store=s)
    finally:
        s.close()


def _inert_facilitator(page) -> None:  # noqa: ANN001
    """The facilitator's rows are in the room list's shadow root, which CSS locators pierce."""
    assert page.locator("img[src='x'], img[src*='evil.example'], a[href*='evil.example']").count() == 0


def _phone_shot(page, name: str) -> None:  # noqa: ANN001
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def _open_room(fac) -> str:  # noqa: ANN001
    """The facilitator starts a two-round run that pauses for review and between rounds, and opens its workshop;
    returns the run's id."""
    open_page(fac, "whatif", expect="Proposition")
    fac.get_by_label("Rounds", exact=True).fill("2")
    fac.get_by_text("Pause for review after the refiner").click()
    fac.get_by_text("Pause between rounds for workshop input").click()
    fac.get_by_role("button", name="Start run").click()
    fac.get_by_text("Paused before any expert runs").first.wait_for()
    wait_idle(fac)
    fac.get_by_role("button", name="Open workshop").click()
    fac.get_by_text("Scan to join").first.wait_for()
    wait_idle(fac)
    return fac.url.split("run=")[1].split("&")[0]


def test_a_three_participant_workshop_end_to_end(browser, app_url, tmp_path_factory) -> None:  # noqa: ANN001
    db = e2e_db(tmp_path_factory)
    with ExitStack() as stack:
        fctx, fac = _context(browser, app_url)
        stack.callback(fctx.close)
        run_id = _open_room(fac)
        room = _room(run_id, db)
        assert fac.get_by_text(room.code, exact=True).first.is_visible()
        shot(fac, "workshop_facilitator_open")

        people = {name: stack.enter_context(phone(browser)) for name in ("Ada", "Bo", "Cy")}
        for name, p in people.items():
            join(p, app_url, room.code, name)
            predict_even(p)
            no_facilitator_controls(p)
        _phone_shot(people["Ada"], "workshop_participant_predict")
        fac.get_by_text("3 participant(s)").first.wait_for(timeout=VISIBLE_S)  # no reload: the room refreshes itself
        assert len(_room(run_id, db).predictions) == 3
        shot(fac, "workshop_facilitator_predictions")

        fac.get_by_role("button", name="Continue unchanged").click()
        fac.get_by_text("Paused after round 1").first.wait_for()
        texts = {"Ada": HOSTILE, "Bo": "Point 1: ferries need tide-free charts",
                 "Cy": "Point 2: ferries need tide-free charts"}
        for name, p in people.items():  # each participant's view moves on by itself
            p.get_by_text("Add to the deliberation").wait_for()
            send(p, texts[name])
        room = _room(run_id, db)
        assert sorted(c.text for c in room.contributions) == sorted(texts.values())
        for name, p in people.items():  # +1 the others' contributions (one's own is disabled)
            for author, text in texts.items():
                row(p, text).wait_for(timeout=VISIBLE_S)
                if author == name:
                    assert row(p, text).get_by_role("button").is_disabled()
                else:
                    vote(p, text)
            no_facilitator_controls(p)
            inert(p)
        assert len(_room(run_id, db).votes) == 6
        assert row(people["Bo"], HOSTILE).locator(".text").inner_text() == HOSTILE  # as typed, as text
        _phone_shot(people["Bo"], "workshop_participant_between_rounds")

        hostile = next(c for c in room.contributions if c.text == HOSTILE)
        for c in room.contributions:
            fac.locator(f"li.row[data-id='{c.id}']").wait_for(timeout=VISIBLE_S)
        _inert_facilitator(fac)
        wait_idle(fac)
        _click_until(fac, fac.locator(f"[data-act='hide:{hostile.id}']"),
                     lambda: next(c for c in _room(run_id, db).contributions if c.id == hostile.id).hidden)
        for c in room.contributions:
            if c.id != hostile.id:
                _click_until(fac, fac.locator(f"[data-act='accept:{c.id}']"),
                             lambda cid=c.id: next(x for x in _room(run_id, db).contributions if x.id == cid).accepted)
        row(people["Bo"], HOSTILE).wait_for(state="detached", timeout=VISIBLE_S)  # off the others' screens
        row(people["Ada"], HOSTILE).get_by_text("you · hidden by the facilitator").wait_for(timeout=VISIBLE_S)
        row(people["Bo"], texts["Bo"]).get_by_text("you · accepted").wait_for(timeout=VISIBLE_S)  # told its fate
        shot(fac, "workshop_facilitator_between_rounds")
        _click_until(fac, fac.get_by_role("button", name="Continue with 2 accepted contributions"),
                     lambda: _state(run_id, db) != "between_rounds")
        fac.get_by_text("Calibration ranges").first.wait_for(timeout=180_000)
        wait_idle(fac)
        assert fac.get_by_text("ferries need tide-free charts").first.is_visible()  # in the report's contributions
        for p in people.values():  # the run is over: no form, the report to read, the reveal announced
            p.get_by_text("The facilitator will reveal the predictions").wait_for()
            assert p.get_by_role("button", name="Send").count() == 0
        _click_until(fac, fac.get_by_role("button", name="Reveal predictions to the room"),
                     lambda: _room(run_id, db).revealed)
        fac.get_by_text("The room against the panel").first.wait_for()
        wait_idle(fac)
        shot(fac, "workshop_facilitator_reveal")
        for name, p in people.items():
            table = p.get_by_role("table", name="Your prediction beside the panel's")
            table.wait_for(timeout=VISIBLE_S + 5_000)
            assert "You (%)" in table.locator("th").all_inner_texts()
            assert p.get_by_text("no ground truth").first.is_visible()
            no_facilitator_controls(p)
            inert(p)
            assert p.evaluate(STAYED), f"{name}'s page reloaded"
        _phone_shot(people["Ada"], "workshop_participant_reveal")
        for page in [fac, *people.values()]:
            assert KNOWN_KEY not in page.content()
