"""The scenario of the blank page (issue #42 item 3): a class of phones sends while the facilitator reviews, the
facilitator accepts what was sent and presses "Continue with N accepted", and more arrives while the round runs.

In the tour, 1 run in 8 (10 phones) left the facilitator's page blank after that press, with the server healthy,
until a manual reload. Here 30 phones (the engine's own calls, as the phone page makes them: the facilitator's
page only reads the store) send at once, the facilitator accepts all and continues, and 30 more send during the
round. The page must draw the round and then the report — and it must do so without the heartbeat's reload
(``room_list.js`` writes each heal to ``sessionStorage['ifw-healed']``): a heal here would be the blank page
reproduced, healed or not, and the test says so. Kept as the guard for that defect; it has not failed in this
form (``test_page_heals_browser.py`` covers the healing itself).
"""

from __future__ import annotations

import json
import re
import secrets
from concurrent.futures import ThreadPoolExecutor

from ifworld.runs.store import RunStore
from ifworld.whatif.session import load_session
from ifworld.whatif.workshop import contribute, join_workshop, load_workshop
from tests.browser.conftest import shot, wait_idle
from tests.browser.test_workshop_closing_browser import room_between_rounds

PHONES = 30


def _send_all(db: str, run_id: str, people: list, round_name: str) -> None:
    """Every phone sends one contribution at the same moment (one store connection each, as separate requests)."""
    def one(index_person: tuple) -> None:
        index, (person, key) = index_person
        store = RunStore(db)
        try:
            contribute(run_id, person.id, key, f"{round_name}, phone {index}: the ferries need new charts",
                       store=store)
        finally:
            store.close()

    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(one, enumerate(people)))


def test_many_phones_then_continue_with_accepted_draws_the_round_and_the_report(browser, app_url, e2e_fake,  # noqa: ANN001
                                                                                tmp_path_factory) -> None:
    db, run_id, room = room_between_rounds(e2e_fake, tmp_path_factory)
    store = RunStore(db)
    try:
        people = [join_workshop(room.token, f"Phone {i}", device_key=secrets.token_urlsafe(16), store=store)
                  for i in range(PHONES)]
    finally:
        store.close()
    ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    page = ctx.new_page()
    page.set_default_timeout(120_000)
    try:
        page.goto(f"{app_url}/whatif?run={run_id}")
        page.get_by_text(f"{PHONES} participant(s)").first.wait_for()
        _send_all(db, run_id, people, "Between rounds")
        accept_all = page.get_by_role("button", name=re.compile(r"Accept all \d+ undecided shown"))
        accept_all.wait_for()
        wait_idle(page)
        accept_all.click()
        proceed = page.get_by_role("button", name=re.compile(r"Continue with \d+ accepted"))
        proceed.wait_for()
        wait_idle(page)
        accepted = int(re.search(r"Continue with (\d+)", proceed.inner_text())[1])
        assert accepted >= 8, accepted  # the room list shows at least 8 rows, all accepted at once
        proceed.click()
        page.get_by_text(re.compile(r"Round 2")).first.wait_for()
        _send_all(db, run_id, people, "While round 2 runs")
        page.get_by_text("Calibration ranges").first.wait_for(timeout=240_000)  # the report, drawn
        wait_idle(page)
        healed = json.loads(page.evaluate("() => sessionStorage.getItem('ifw-healed') || '[]'"))
        assert healed == [], f"the blank page happened ({len(healed)} heal(s)): the heartbeat reloaded the page"
        shot(page, "workshop_many_phones_report")
    finally:
        ctx.close()
    store = RunStore(db)
    try:
        room_now = load_workshop(run_id, store=store)
        assert len(room_now.contributions) == 2 * PHONES
        assert sum(1 for c in room_now.contributions if c.accepted) >= accepted
        assert load_session(run_id, store).state.value == "completed"
    finally:
        store.close()
