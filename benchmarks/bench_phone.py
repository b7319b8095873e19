"""The phone page's side of ``bench_workshop.py``: what a person does on /p/ (ui/phone_server.py,
ifworld/web/phone.js), step by step, and how the bytes a phone receives are counted there.

The page draws everything in its own DOM (no Streamlit, no shadow roots): the code form ``#find``, the join form
``#join``, then the room — the prediction form ``#predict``, the contribution form ``#send``, the room's list
``#room ol.rows li.row[data-id]`` and the reveal ``#reveal``. Its view arrives over server-sent events
(``/p/events``), which never end: their bytes are counted as Chromium receives them (DevTools'
``Network.dataReceived``, one event per chunk read from the stream), not when a response is complete.
"""

from __future__ import annotations

import time
from collections import Counter

# In the room: the prediction form is drawn (the figure "in the room" stops here, as it did on the Streamlit Join
# page, since removed, when the two were compared).
IN_ROOM = "#predict"
# "Sent": the box emptied and the status saying so — the press sets "Sending…" first (synchronously, in the
# submit handler), so an earlier Send's "✅ Sent" never counts for this one. Waited for inside the page.
SENT_JS = """() => {
  const box = document.getElementById("text"), said = document.getElementById("send-status");
  return box !== null && said !== null && box.value === "" && said.textContent.startsWith("✅ Sent to the facilitator");
}"""
NUMBERS_SET_JS = ("() => [...document.querySelectorAll('#predict input[type=number]')]"
                  ".some(i => parseFloat(i.value) > 0)")
VOTED = "you have +1'd it"  # a +1 button's title once the server has it (ui/workshop_rows.py)
WAITING = "The facilitator will reveal the predictions"
REVEALED = "#reveal table"


STEPS: dict[str, list[float]] = {}  # a join's steps -> the seconds each phone spent in it (where the time goes)


async def join(page, url: str, code: str, name: str) -> None:  # noqa: ANN001
    """The code, then the name, as a person types them; returns once the page is in the room. Each step's seconds
    go to STEPS: the code screen drawn, the workshop found (its join form drawn), then in the room."""
    marks = [time.perf_counter()]
    await page.goto(f"{url}/p/")
    await page.locator("#find #code").fill(code)
    marks.append(time.perf_counter())
    await page.get_by_role("button", name="Find the workshop").click()
    await page.locator("#join #given").fill(name)  # the page opened ?w=TOKEN: the join form
    marks.append(time.perf_counter())
    await page.get_by_role("button", name="Join", exact=True).click()
    await page.locator(IN_ROOM).wait_for()
    marks.append(time.perf_counter())
    for step, a, b in zip(("code screen", "found", "in the room"), marks, marks[1:], strict=False):
        STEPS.setdefault(step, []).append(b - a)


async def said(page) -> list[str]:  # noqa: ANN001
    """What the page's status lines say (logged when a press did nothing)."""
    return [t for t in await page.locator("[role=status]").all_inner_texts() if t.strip()]


def vote_button(page, cid: str):  # noqa: ANN001, ANN201
    return page.locator(f"#room li.row[data-id='{cid}'] .buttons button")


VIEWS: Counter = Counter()  # page -> the views (``event: patch``) its stream has brought


async def count_bytes(page, received: Counter) -> None:  # noqa: ANN001
    """Add the body bytes of every chunk the page receives to ``received[page]`` — the SSE stream's above all, as
    each chunk arrives — and count the views the stream brings in VIEWS[page]. ``dataLength`` (the body's bytes),
    not ``encodedDataLength``: Chromium reports the latter for a stream late and summed (a 13-byte keepalive came
    with 4.6 kB, the views before it), which would put a busy minute's bytes into the idle one. Body bytes, as
    the Streamlit pages' figure counts websocket payloads: headers and chunk framing are left out of both."""
    cdp = await page.context.new_cdp_session(page)

    def on_message(event: dict) -> None:
        if event.get("eventName") == "patch":
            VIEWS.update({page: 1})
    cdp.on("Network.dataReceived", lambda event: received.update({page: event.get("dataLength", 0)}))
    cdp.on("Network.eventSourceMessageReceived", on_message)
    await cdp.send("Network.enable")
