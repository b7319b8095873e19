"""The phone page's side of ``bench_workshop.py --view phone``: what a person does on /p/ (ui/phone_server.py,
ifworld/web/phone.js), step by step, and how the bytes a phone receives are counted there.

The page draws everything in its own DOM (no Streamlit, no shadow roots): the code form ``#find``, the join form
``#join``, then the room — the prediction form ``#predict``, the contribution form ``#send``, the room's list
``#room ol.rows li.row[data-id]`` and the reveal ``#reveal``. Its view arrives over server-sent events
(``/p/events``), which never end: their bytes are counted as Chromium receives them (DevTools'
``Network.dataReceived``, one event per chunk read from the stream), not when a response is complete.
"""

from __future__ import annotations

from collections import Counter

# In the room: the prediction form is drawn (the figure "in the room" stops here, as on the Join page).
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


async def join(page, url: str, code: str, name: str) -> None:  # noqa: ANN001
    """The code, then the name, as a person types them; returns once the page is in the room."""
    await page.goto(f"{url}/p/")
    await page.locator("#find #code").fill(code)
    await page.get_by_role("button", name="Find the workshop").click()
    await page.locator("#join #given").fill(name)  # the page opened ?w=TOKEN: the join form
    await page.get_by_role("button", name="Join", exact=True).click()
    await page.locator(IN_ROOM).wait_for()


async def said(page) -> list[str]:  # noqa: ANN001
    """What the page's status lines say (logged when a press did nothing)."""
    return [t for t in await page.locator("[role=status]").all_inner_texts() if t.strip()]


def vote_button(page, cid: str):  # noqa: ANN001, ANN201
    return page.locator(f"#room li.row[data-id='{cid}'] .buttons button")


VIEWS: Counter = Counter()  # page -> the views (``event: view``) its stream has brought
LAST: dict = {}  # page -> the last view's data (debug)


async def count_bytes(page, received: Counter) -> None:  # noqa: ANN001
    """Add every chunk of every response the page receives to ``received[page]`` — the SSE stream's above all,
    as it arrives (bytes on the wire when Chromium knows them, else the decoded length) — and count the views
    the stream brings in VIEWS[page]."""
    cdp = await page.context.new_cdp_session(page)

    def on_data(event: dict) -> None:
        received.update({page: event.get("encodedDataLength") or event.get("dataLength", 0)})
        import os, sys, time
        if os.environ.get("BENCH_PHONE_DEBUG"):
            print("DATA", id(page) % 1000, round(time.time() % 1000, 1), event.get("requestId"), event.get("dataLength"), event.get("encodedDataLength"), file=sys.stderr)

    def on_message(event: dict) -> None:
        if event.get("eventName") == "view":
            VIEWS.update({page: 1})
            import os, sys, json, difflib
            if os.environ.get("BENCH_PHONE_DEBUG") and page in LAST:
                a = json.dumps(json.loads(LAST[page]), indent=1).splitlines()
                b = json.dumps(json.loads(event["data"]), indent=1).splitlines()
                print("VIEWDIFF", [l for l in difflib.unified_diff(a, b, n=0, lineterm="")][:12], file=sys.stderr)
            LAST[page] = event["data"]
    cdp.on("Network.dataReceived", on_data)
    cdp.on("Network.eventSourceMessageReceived", on_message)
    await cdp.send("Network.enable")
