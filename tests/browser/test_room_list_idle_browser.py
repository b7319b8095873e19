"""The facilitator's room list while nobody acts (issue #42 item 2): the room redraws itself every second (a
fragment), and each redraw names the list's script and style as files and carries its rows only when they
changed — otherwise their digest alone; a list that does not hold the rows it is told about asks for them. In a
real browser, because the list is a script: AppTest never runs it (tests/pages/test_room_list.py checks the
server's side). Participants' phones no longer draw this list (their page, ``/p/``, is pushed only what changed:
tests/pages/test_phone_server.py)."""

from __future__ import annotations

import json
import time
from pathlib import Path

from ifworld.runs.store import RunStore
from ifworld.whatif.workshop import contribute, join_workshop, load_workshop
from tests.browser.conftest import wait_idle
from tests.browser.test_workshop_closing_browser import room_between_rounds

TEXT = "Ferry timetables follow the new tides"
# The list's own DOM, inside the component's shadow root (isolate_styles).
ROOM_TEXTS = """() => [...document.querySelectorAll('[data-testid=stMain] *')].flatMap(h => h.shadowRoot
    ? [...h.shadowRoot.querySelectorAll('ol.room .text')].map(t => t.textContent) : [])"""


def test_an_idle_room_list_is_sent_neither_its_rows_nor_its_script(
        browser, app_url, e2e_fake, tmp_path_factory) -> None:  # noqa: ANN001
    db, run_id, room = room_between_rounds(e2e_fake, tmp_path_factory)
    store = RunStore(db)
    try:
        person, key = join_workshop(room.token, "Ines", device_key="ines-device-key-0123456789abcdef", store=store)
        contribute(run_id, person.id, key, TEXT, "claim", store=store)
        assert [c.text for c in load_workshop(run_id, store=store).contributions] == [TEXT]
    finally:
        store.close()
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    page.set_default_timeout(120_000)
    frames: list[bytes | str] = []
    said: list[str] = []  # the console and failed requests, named when the list does not draw
    page.on("console", lambda m: said.append(f"{m.type}: {m.text}"))
    page.on("requestfailed", lambda r: said.append(f"failed: {r.url}"))
    page.on("response", lambda r: said.append(f"{r.status}: {r.url}") if r.status >= 400 or "bidi" in r.url else None)
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(payload)))
    page.goto(f"{app_url}/whatif?run={run_id}", wait_until="commit")  # loopback: this browser is the facilitator
    page.get_by_text("Paused after round 1").first.wait_for()
    _wait_for_text(page, said)  # the rows came, with the code
    wait_idle(page)

    seen = len(frames)
    # three redraws of the unchanged room (the fragment redraws itself every second): each names the lists'
    # digests, never their rows nor their script
    _wait_for_redraws(page, frames, seen, 3)
    idle = [bytes(f) if isinstance(f, bytes) else f.encode() for f in frames[seen:]]
    lists = [f for f in idle if b"room_list" in f]
    assert len(lists) >= 3
    assert not any(b"Ferry timetables" in f or b"export default" in f or b"ol.room" in f for f in lists)
    assert page.evaluate(ROOM_TEXTS) == [TEXT]  # still drawn: the browser kept what it had

    ctx.close()


def _wait_for_redraws(page, frames: list, start: int, n: int) -> None:  # noqa: ANN001
    """Wait until ``n`` redraws of the room list arrived after frame ``start`` (a condition, not a time)."""
    def count() -> int:
        return sum(b"room_list" in (f if isinstance(f, bytes) else f.encode()) for f in frames[start:])
    deadline = time.monotonic() + 120
    while count() < n:
        assert time.monotonic() < deadline, f"{count()} of {n} redraws of the room list in 120 s"
        page.wait_for_timeout(200)  # lets Playwright deliver frames; the loop ends on the count


def _wait_for_text(page, said: list[str]) -> None:  # noqa: ANN001
    try:
        page.wait_for_function(f"() => ({ROOM_TEXTS})().includes({TEXT!r})", timeout=60_000)
    except Exception as exc:
        lists = page.evaluate("""() => [...document.querySelectorAll('[data-testid=stMain] *')].flatMap(h =>
            h.shadowRoot ? [h.shadowRoot.innerHTML.slice(0, 400)] : [])""")
        raise AssertionError(f"the room list never showed the contribution; the page said {said}; "
                             f"the lists hold {lists}") from exc


LIST_JS = Path(__file__).resolve().parents[2] / "ifworld/web/room_list.js"
HARNESS = """async (src) => {
    const mod = await import(URL.createObjectURL(new Blob([src], {type: 'text/javascript'})));
    const root = document.createElement('div');
    document.body.appendChild(root);
    window.asked = [];
    window.draw = (data) => mod.default({data, parentElement: root,
                                         setTriggerValue: (event, value) => window.asked.push([event, value])});
    window.texts = () => [...root.querySelectorAll('ol.room .text')].map(t => t.textContent);
    window.button = () => root.querySelector('button');
}"""
ROW = {"id": "c1", "who": "Ada", "text": "<b>Bridges</b> first", "actions": [{"name": "vote", "label": "+1",
                                                                               "enabled": True, "title": ""}]}


def test_the_list_keeps_its_rows_on_a_digest_it_holds_and_asks_for_one_it_does_not(browser) -> None:  # noqa: ANN001
    page = browser.new_page()
    page.evaluate(HARNESS, LIST_JS.read_text(encoding="utf-8"))
    page.evaluate("() => draw({digest: 'd1', refused: [], rows: %s})" % json.dumps([ROW]))
    assert page.evaluate("texts()") == ["<b>Bridges</b> first"]  # text, never markup
    page.evaluate("() => draw({digest: 'd1', refused: []})")  # an idle redraw: nothing to do, nothing asked
    assert page.evaluate("texts()") == ["<b>Bridges</b> first"] and page.evaluate("asked") == []
    page.evaluate("() => draw({digest: 'd2', refused: []})")  # rows it never got (a lost delta)
    assert page.evaluate("asked") == [["need", "d2"]]
    assert page.evaluate("texts()") == ["<b>Bridges</b> first"]  # what it had stays until they come
    page.evaluate("() => draw({digest: 'd2', refused: [], redraw: 7})")  # the rows asked for were lost too
    assert page.evaluate("asked") == [["need", "d2"], ["need", "d2"]]  # it asks again at the next redraw
    page.evaluate("() => button().click()")  # pressed: greyed at once, the press sent
    assert page.evaluate("button().disabled") and page.evaluate("asked")[-1] == ["act", "vote:c1"]
    page.evaluate("() => draw({digest: 'd2', refused: ['vote:c1'], rows: %s})" % json.dumps([ROW]))
    assert not page.evaluate("button().disabled")  # refused: the rows that came with the refusal bring it back
    page.close()
