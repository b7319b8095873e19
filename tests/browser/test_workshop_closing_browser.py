"""Closing the workshop while a participant is typing on the phone page: the box stays with their text in it, Send
goes off, and the page says it was not sent (issue #42 item 3); someone who opens the workshop's link afterwards
is told it is closed. The participant comes by the old Join page's link (``/join?w=…``, as on cards printed
before the phone page), which leads to the phone page. The text is typed and never sent, so only a real browser
holds it: the server sees a form's text only when Send is pressed.

Also :func:`room_between_rounds`, the run other browser tests start from."""

from __future__ import annotations

from urllib.parse import urlsplit

from ifworld.access import OPERATOR
from ifworld.config import load_settings
from ifworld.runs.store import RunStore
from ifworld.whatif import service
from ifworld.whatif.params import default_params
from ifworld.whatif.session import State, load_session
from ifworld.whatif.workshop import close_workshop, load_workshop, open_workshop
from tests.browser.conftest import KNOWN_KEY, SHOTS, e2e_db
from tests.browser.phone_steps import STAYED, join_by_name, phone

DRAFT = "Half-written: the ferry timetable would need"


def room_between_rounds(e2e_fake, tmp_path_factory):  # noqa: ANN001, ANN201
    """A run paused after round 1 with its workshop open, made by the engine on the e2e app's store and fake
    model: (store file, run id, workshop)."""
    db = e2e_db(tmp_path_factory)
    settings = load_settings({"base_url": e2e_fake.url, "model": "fake-model", "api_key": KNOWN_KEY, "db_path": db})
    params = default_params("What if the tides stopped for a month?", "ifworld", rounds=2,
                            review=True, pause_between_rounds=True)
    store = RunStore(db)
    try:
        run_id = service.run(params, settings=settings, store=store)["run_id"]
        service.continue_run(run_id, settings=settings, store=store)  # the review, unchanged: round 1, then a pause
        assert load_session(run_id, store).state == State.BETWEEN_ROUNDS
        return db, run_id, open_workshop(run_id, store=store)
    finally:
        store.close()


def test_closing_keeps_what_a_participant_was_typing(browser, app_url, e2e_fake, tmp_path_factory) -> None:  # noqa: ANN001
    db, run_id, room = room_between_rounds(e2e_fake, tmp_path_factory)
    store = RunStore(db)
    try:
        with phone(browser) as page:
            page.goto(f"{app_url}/join?w={room.token}", wait_until="commit")  # the old address leads to /p/
            join_by_name(page, "Ines")
            assert urlsplit(page.url).path == "/p/" and f"w={room.token}" in page.url, page.url
            box = page.get_by_label("Your contribution")
            box.fill(DRAFT)  # typed, never sent

            close_workshop(run_id, OPERATOR, store=store)
            page.get_by_text("what is in the box below was not sent").wait_for()  # the page moved on by itself
            page.get_by_text("the workshop is closed", exact=False).first.wait_for()
            assert box.input_value() == DRAFT
            assert page.get_by_role("button", name="Send").is_disabled()
            assert load_workshop(run_id, store=store).contributions == []
            assert page.evaluate(STAYED), "the page reloaded"
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / "workshop_participant_closed.png"), full_page=True)

        with phone(browser) as late:  # a newcomer with the link: nothing to join
            late.goto(f"{app_url}/join?w={room.token}", wait_until="commit")
            late.get_by_text("This workshop is closed").wait_for()
            assert late.get_by_label("Your display name").count() == 0
        assert [p.name for p in load_workshop(run_id, store=store).participants] == ["Ines"]
    finally:
        store.close()
