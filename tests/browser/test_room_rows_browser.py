"""The facilitator's room on a projector (issue #42 item 4): at 1280×720 and 175 % zoom (731×411 CSS px) the
room list shows at least 8 contributions on one screen — a row each, text cut to two lines — and a cut text is
read whole with the keyboard alone; axe finds nothing serious there. The same room on a participant's phone page
(``/p/`` at 390×844, and at 200 % zoom) keeps a box per contribution with its whole text and an obvious, named +1.

The room is written here: 13 contributions of the lengths a class writes (one ~600 characters), made through the
engine's front doors on the e2e app's store; the browsers only look, as the facilitator and as one more
participant."""

from __future__ import annotations

from pathlib import Path

import pytest

from ifworld.access import OPERATOR
from ifworld.runs.store import RunStore
from ifworld.whatif.workshop import contribute, decide, join_workshop, load_workshop, vote
from tests.browser.axe import axe_available
from tests.browser.conftest import SHOTS, wait_idle
from tests.browser.keyboard import tab_to
from tests.browser.phone_steps import PHONE, fits, join_by_name, phone
from tests.browser.test_a11y_states_browser import ZOOM_200, check, fits as fits_app
from tests.browser.test_labels_browser import PROJECTOR_175
from tests.browser.test_workshop_closing_browser import room_between_rounds

LONG = ("Without tides for a month, the estuary ports lose the high-water windows that deep-draught ships rely on: "
        "at Hamburg, Antwerp and London the biggest container ships only come in on the flood. A month of water "
        "standing at about mean sea level leaves those channels two metres shallower than a spring high tide, so "
        "the largest ships either lighten their loads at sea or divert to deep-water ports such as Rotterdam. "
        "That pushes a month of cargo through a handful of terminals, and the queue, not the water, becomes the "
        "real limit. Supermarkets would notice fresh fruit first, then the car plants that run just in time.")
ROOM = [  # (who, kind, text): what a class said after round 1 of "What if the tides stopped for a month?"
    ("Ada", "claim", LONG),
    ("Bo", "claim", "Tidal power stations like La Rance and Sihwa would produce nothing for the whole month, so "
                    "France and Korea must cover that gap from gas or imports."),
    ("Cy", "claim", "Shellfish beds in the intertidal zone dry out or suffocate within days; mussel farms in "
                    "Galicia would lose most of a season."),
    ("Dana", "claim", "Surfers lose nothing: waves come from the wind, not from tides."),
    ("Emeka", "claim", "Storm surges get more dangerous, not less: today a surge that arrives at low tide often does "
                       "little harm, but with the sea parked at mean level every surge starts half a metre higher."),
    ("Fatima", "claim", "Rivers back up less at their mouths, so Gloucester would see no Severn bore and fewer "
                        "tidal floods."),
    ("Grace", "claim", "Sewage outfalls rely on the ebb to carry effluent offshore; a month of slack water means "
                       "beaches near outfalls close for swimming."),
    ("Ada", "claim", "Ferry timetables in the Channel Islands get simpler: no sailing waits for the tide."),
    ("Bo", "claim", "Charts and tide tables are wrong for a month: every harbour master re-issues depth notices, "
                    "and small boats run aground where they never did before."),
    ("Cy", "concern", "Our school trip to the rock pools in March would find nothing living there. Do we know how "
                      "fast those ecosystems recover afterwards?"),
    ("Dana", "concern", "Fishermen who plan around slack water lose income; the panel has not said who pays them."),
    ("Emeka", "evidence", "The 1953 North Sea flood came with a spring tide; the Delta Works were designed for tide "
                          "plus surge, so engineers already have numbers for a surge alone."),
    ("Fatima", "question", "Does the Moon stop too, or only the tides? The answer changes everything."),
]
ROWS = """() => [...document.querySelectorAll('[data-testid=stMain] *')].flatMap(h => h.shadowRoot
    ? [...h.shadowRoot.querySelectorAll('li.row')] : [])"""
# What the projector shows: the part of the window below Streamlit's header (opaque once it holds a button).
VISIBLE_TOP = """() => { const h = document.querySelector('[data-testid=stHeader]');
    return h && getComputedStyle(h).backgroundColor !== 'rgba(0, 0, 0, 0)' ? h.getBoundingClientRect().bottom : 0; }"""
TO_TOP = "async () => { const rows = (" + ROWS + ")(), top = (" + VISIBLE_TOP + """)();
    let s = rows[0].getRootNode().host;  // the scrolling block around the list
    while (s && !(s.scrollHeight > s.clientHeight + 1 && /auto|scroll/.test(getComputedStyle(s).overflowY)))
        s = s.parentElement;
    (s || document.scrollingElement).scrollTop += rows[0].getBoundingClientRect().top - top;
    await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
    const boxes = rows.map(li => li.getBoundingClientRect());
    return {top, height: innerHeight, first: boxes[0].top, ids: rows.map(li => li.dataset.id),
            inside: boxes.filter(b => b.top >= top - 0.5 && b.bottom <= innerHeight + 0.5).length,
            heights: boxes.slice(0, 10).map(b => Math.round(b.height * 10) / 10)}; }"""
ROW_STATE = "(id) => { const li = (" + ROWS + """)().find(li => li.dataset.id === id);
    const w = li.querySelector('.words'), b = w.getBoundingClientRect();
    return {cut: w.scrollHeight > w.clientHeight + 1, expanded: li.querySelector('button.more')
            .getAttribute('aria-expanded'), top: b.top, bottom: b.bottom, text: w.querySelector('.text').textContent,
            long: li.classList.contains('long')}; }"""
PLUS_ONES = """() => [...document.querySelectorAll('#room li.row')].map(li => {
    const b = li.querySelector('.buttons button'), r = b.getBoundingClientRect(), t = li.querySelector('.text');
    const box = li.getBoundingClientRect();
    return {id: li.dataset.id, text: b.innerText.trim(), name: b.getAttribute('aria-label'), width: r.width,
            height: r.height, left: r.left, right: r.right, shown: b.checkVisibility({visibilityProperty: true}),
            whole: t.scrollHeight <= t.clientHeight + 1 && t.scrollWidth <= t.clientWidth + 1,
            said: t.textContent, boxed: getComputedStyle(li).borderTopStyle !== 'none', boxLeft: box.left,
            boxRight: box.right}; })"""


@pytest.fixture(scope="module")
def room(app_url, e2e_fake, tmp_path_factory) -> tuple[Path, str, list, str]:  # noqa: ANN001
    """A run paused after round 1 whose room said :data:`ROOM`, with votes and two decisions."""
    db, run_id, ws = room_between_rounds(e2e_fake, tmp_path_factory)
    s = RunStore(db)
    try:
        people = {name: join_workshop(ws.token, name, device_key=f"{name.lower()}-device-key-0123456789", store=s)
                  for name in dict.fromkeys(n for n, _, _ in ROOM)}
        made = [contribute(run_id, people[n][0].id, people[n][1], text, kind, store=s) for n, kind, text in ROOM]
        for voter, picks in (("Bo", (0, 2, 4)), ("Cy", (0, 4)), ("Grace", (0, 1, 9)), ("Dana", (4, 8))):
            for i in picks:
                vote(run_id, people[voter][0].id, people[voter][1], made[i].id, store=s)
        decide(run_id, OPERATOR, made[1].id, "accept", store=s)
        decide(run_id, OPERATOR, made[3].id, "reject", store=s)
    finally:
        s.close()
    return db, run_id, made, ws.token


def test_the_projector_shows_eight_rows_and_a_cut_text_whole_by_keyboard(browser, app_url, room) -> None:  # noqa: ANN001
    _, run_id, made, _ = room
    ctx = browser.new_context(viewport=PROJECTOR_175[0], device_scale_factor=PROJECTOR_175[1])
    fac = ctx.new_page()
    fac.set_default_timeout(120_000)
    try:
        fac.goto(f"{app_url}/whatif?run={run_id}")
        fac.get_by_text("Paused after round 1").first.wait_for()
        for c in made:
            fac.locator(f"li.row[data-id='{c.id}']").wait_for()
        wait_idle(fac)
        fac.evaluate("() => document.fonts.ready.then(() => document.fonts.status)")
        seen = fac.evaluate(TO_TOP)
        print(f"\nrows fully inside the 731×411 window at 175 % (below the header, {seen['top']:.0f} px): "
              f"{seen['inside']}; row heights {seen['heights']}")
        assert abs(seen["first"] - seen["top"]) <= 1, seen
        assert seen["inside"] >= 8, seen
        SHOTS.mkdir(parents=True, exist_ok=True)
        fac.screenshot(path=str(SHOTS / "workshop_room_175.png"))  # what the projector shows

        long_id = made[0].id
        before = fac.evaluate(ROW_STATE, long_id)
        assert before["cut"] and before["long"] and before["expanded"] == "false", before
        fac.evaluate("() => document.activeElement && document.activeElement.blur()")  # the keyboard starts afresh
        tab_to(fac, lambda e: e["id"] == f"more-{long_id}", limit=300)
        fac.keyboard.press("Enter")
        fac.wait_for_function("(id) => (" + ROWS + ")().find(li => li.dataset.id === id).classList.contains('open')",
                              arg=long_id)
        after = fac.evaluate(ROW_STATE, long_id)
        top = fac.evaluate(VISIBLE_TOP)
        assert not after["cut"] and after["expanded"] == "true", after  # the whole text, nothing clipped
        assert after["text"] == LONG
        assert top - 0.5 <= after["top"] and after["bottom"] <= PROJECTOR_175[0]["height"] + 0.5, (top, after)
        if axe_available():
            check(fac, "the facilitator's room at 175 %, a long contribution opened")
        fits_app(fac, "the facilitator's room at 175 %", (PROJECTOR_175[0],))
        fac.keyboard.press("Enter")  # and closed again
        fac.wait_for_function("(id) => !(" + ROWS + ")().find(li => li.dataset.id === id).classList.contains('open')",
                              arg=long_id)
        assert fac.evaluate(ROW_STATE, long_id)["cut"]
    finally:
        ctx.close()


def test_the_phone_keeps_whole_texts_and_a_named_plus_one_on_each(browser, app_url, room) -> None:  # noqa: ANN001
    db, run_id, made, token = room
    s = RunStore(db)
    try:
        by_id = {c.id: c for c in load_workshop(run_id, store=s).contributions}  # with their votes
    finally:
        s.close()
    with phone(browser) as page:
        page.goto(f"{app_url}/p/?w={token}", wait_until="commit")
        join_by_name(page, "Hana")
        for c in made:
            page.locator(f"#room li.row[data-id='{c.id}']").wait_for()
        shown = page.evaluate(PLUS_ONES)
        assert sorted(r["id"] for r in shown) == sorted(by_id)
        for r in shown:
            c = by_id[r["id"]]
            assert r["shown"] and r["text"] == f"+1 ({c.votes})", r  # in words, not an icon
            assert r["name"].startswith(r["text"]) and c.name in r["name"], r  # its name says whose
            assert r["width"] >= 44 and r["height"] >= 40, r  # an easy target on a phone
            assert 0 <= r["left"] and r["right"] <= PHONE["width"], r
            assert r["boxed"] and 0 <= r["boxLeft"] and r["boxRight"] <= PHONE["width"], r  # a box each
            assert r["whole"] and r["said"] == c.text, r  # a phone shows the whole text, nothing cut
        fits(page, "the participant's room", (PHONE, ZOOM_200))
