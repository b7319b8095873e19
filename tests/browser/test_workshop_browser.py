"""A 3-participant workshop end to end in real browsers (one context per person): join by code, predict,
contribute (one of them hostile), vote, the facilitator accepts and continues, the report, the reveal.
Participants never see a facilitator control; their views update by themselves (no reload anywhere)."""

from __future__ import annotations

import time
from pathlib import Path

from ifworld.runs.store import RunStore
from ifworld.whatif import load_session, load_workshop
from tests.browser.conftest import KNOWN_KEY, e2e_db, open_page, shot, wait_idle

HOSTILE = "<img src=x onerror=alert(1)> ![pic](http://evil.example/x.png) [click](http://evil.example/)"
FACILITATOR = ("Accept", "Reject", "Hide", "Close workshop", "Open workshop", "Continue unchanged",
               "Apply edits", "Cancel run", "Reveal predictions", "Continue with")
EVEN_SPLIT_SHOWN = "() => [...document.querySelectorAll('input[type=number]')].some(i => parseFloat(i.value) > 0)"
VISIBLE_S = 2_000 + 3_000  # the 2 s promise plus a rerun's own time on a loaded 2-core machine


def _context(browser, app_url):  # noqa: ANN001, ANN202
    ctx = browser.new_context(viewport={"width": 1300, "height": 1000})
    page = ctx.new_page()
    page.set_default_timeout(240_000)
    page.app_url = app_url
    return ctx, page


def _buttons(page) -> set[str]:  # noqa: ANN001
    return {t.strip() for t in page.locator("[data-testid=stMain] button").all_inner_texts() if t.strip()}


def _no_facilitator_controls(page) -> None:  # noqa: ANN001
    found = {b for b in _buttons(page) if any(label in b for label in FACILITATOR)}
    assert not found, f"a participant sees facilitator controls: {found}"


def _inert(page) -> None:  # noqa: ANN001
    assert page.locator("img[src='x']").count() == 0
    assert page.locator("a[href*='evil.example']").count() == 0
    assert page.locator("img[src*='evil.example']").count() == 0


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


def test_a_three_participant_workshop_end_to_end(browser, app_url, tmp_path_factory) -> None:  # noqa: ANN001
    db = e2e_db(tmp_path_factory)
    fctx, fac = _context(browser, app_url)
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
    run_id = fac.url.split("run=")[1].split("&")[0]
    room = _room(run_id, db)
    assert fac.get_by_text(room.code, exact=True).first.is_visible()
    shot(fac, "workshop_facilitator_open")

    people = []
    for name in ("Ada", "Bo", "Cy"):
        ctx, p = _context(browser, app_url)
        p.goto(f"{app_url}/join", wait_until="commit")  # on a loaded machine 'load' can take minutes
        p.get_by_text("Join a workshop").first.wait_for()
        wait_idle(p)
        p.get_by_label("Workshop code").fill(room.code.lower())
        p.get_by_role("button", name="Find the workshop").click()
        p.get_by_label("Your display name").fill(name)
        p.get_by_role("button", name="Join", exact=True).click()
        p.get_by_text("Your prediction (before round 1)").first.wait_for()
        wait_idle(p)
        p.get_by_role("button", name="Even split").click()
        p.wait_for_function(EVEN_SPLIT_SHOWN)
        wait_idle(p)
        p.get_by_role("button", name="Save my prediction").click()
        p.get_by_text("Saved: ").first.wait_for()
        _no_facilitator_controls(p)
        people.append((ctx, p))
    assert people[2][1].get_by_text("You are Cy").first.is_visible()
    shot(people[0][1], "workshop_participant_predict")
    fac.get_by_text("3 participant(s)").first.wait_for(timeout=VISIBLE_S)  # no reload: the room refreshes itself
    shot(fac, "workshop_facilitator_predictions")

    fac.get_by_role("button", name="Continue unchanged").click()
    fac.get_by_text("Paused after round 1").first.wait_for()
    for i, (_, p) in enumerate(people):  # each participant's view moves on by itself
        p.get_by_text("Add to the deliberation").first.wait_for()
        wait_idle(p)
        text = HOSTILE if i == 0 else f"Point {i}: ferries need tide-free charts"
        p.get_by_label("Your contribution").fill(text)
        p.get_by_role("button", name="Send").click()
        p.locator("li.row .text").filter(has_text=text).first.wait_for()  # in the room's list
        wait_idle(p)
    room = _room(run_id, db)
    assert len(room.contributions) == 3
    for _, p in people:  # +1 the others' contributions (own ones are disabled)
        for c in room.contributions:
            button = p.locator(f"[data-act='vote:{c.id}']")
            button.wait_for(timeout=VISIBLE_S)
            if button.is_enabled():
                # the redraw's word, not the grey the press itself gives the button
                _click_until(p, button, lambda b=button: b.get_attribute("title") == "you have +1'd it")
        _no_facilitator_controls(p)
        _inert(p)
    assert len(_room(run_id, db).votes) == 6
    assert people[1][1].locator("li.row .text").filter(has_text=HOSTILE).first.is_visible()  # as typed
    shot(people[1][1], "workshop_participant_between_rounds")

    hostile = next(c for c in room.contributions if c.text == HOSTILE)
    for c in room.contributions:
        fac.locator(f"li.row[data-id='{c.id}']").wait_for(timeout=VISIBLE_S)
    _inert(fac)
    wait_idle(fac)
    _click_until(fac, fac.locator(f"[data-act='hide:{hostile.id}']"),
                 lambda: next(c for c in _room(run_id, db).contributions if c.id == hostile.id).hidden)
    for c in room.contributions:
        if c.id != hostile.id:
            _click_until(fac, fac.locator(f"[data-act='accept:{c.id}']"),
                         lambda cid=c.id: next(x for x in _room(run_id, db).contributions if x.id == cid).accepted)
    people[1][1].locator(f"[data-act='vote:{hostile.id}']").wait_for(state="detached", timeout=VISIBLE_S)
    people[0][1].get_by_text("you · hidden by the facilitator").first.wait_for(timeout=VISIBLE_S)  # its author
    shot(fac, "workshop_facilitator_between_rounds")
    _click_until(fac, fac.get_by_role("button", name="Continue with 2 accepted contributions"),
                 lambda: _state(run_id, db) != "between_rounds")
    fac.get_by_text("Calibration ranges").first.wait_for(timeout=180_000)
    wait_idle(fac)
    assert fac.get_by_text("ferries need tide-free charts").first.is_visible()  # in the report's contributions
    _click_until(fac, fac.get_by_role("button", name="Reveal predictions to the room"),
                 lambda: _room(run_id, db).revealed)
    fac.get_by_text("The room against the panel").first.wait_for()
    wait_idle(fac)
    shot(fac, "workshop_facilitator_reveal")
    for _, p in people:
        p.get_by_text("Your prediction beside the panel's").first.wait_for(timeout=VISIBLE_S + 5_000)
        assert p.get_by_text("no ground truth").first.is_visible()
        _no_facilitator_controls(p)
        _inert(p)
    wait_idle(people[0][1])
    shot(people[0][1], "workshop_participant_reveal")
    for page in [fac, *(p for _, p in people)]:
        assert KNOWN_KEY not in page.content()
    for ctx in [fctx, *(c for c, _ in people)]:
        ctx.close()
