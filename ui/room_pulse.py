"""The room's pulse: a server-sent event to the facilitator's page each time the room changes, so the page redraws
its room at once instead of at its next timed redraw.

Why: the facilitator's room is a Streamlit fragment, and Streamlit redraws a fragment only when the browser asks
(``run_every``, a timer in the page). On a timer of 1 s a Send waited for the next tick, and with the class's
phone pages taking the same two cores the ticks stretched to 1.4 s: after a burst of 60 Sends the facilitator's
screen missed #42's 2 s in 2 of 5 runs (``benchmarks/bench_phone_load.py --browsers 5 --facilitator``). The
pulse carries no room data — only a version number — and the page's room list (:mod:`ui.room_list`, drawn with
``pulse=``) asks its fragment to redraw when one comes; the timed redraw stays as the fallback, for a proxy that
holds the stream back.

The stream is the facilitator's alone: anyone else is refused (403) before anything is read, and the run must hold
a workshop. It follows the same per-run reader as the phones' streams (:func:`ui.phone_server.watch`), so a
class's change is read once for the phones and the facilitator together, also from another app process.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from ifworld import whatif
from ifworld.runs import get_store
from ifworld.toolkit import IFWorldError
from ui.phone_server import KEEPALIVE, PREFIX, READ_WAIT_S, following, in_thread, sse_event

PATH = PREFIX + "/pulse"
MAX_PULSES = 16
"""Pulses open in one process: a facilitator has a page or two open (a projector, a laptop); a script that opens
more is the facilitator's own browser misbehaving, and each holds a connection."""
RUN_ID = re.compile(r"^[A-Za-z0-9_-]{1,80}$")
_open = [0]


def pulse_url(run_id: str) -> str:
    """The address a page opens, relative to the page (the app may be served under a base path)."""
    return PATH.lstrip("/") + "?run=" + run_id


def route(is_facilitator: Callable[[dict[str, Any]], bool]) -> Route:
    """The pulse's route; ``is_facilitator(scope)`` decides who the request comes from (:mod:`ui.asgi`)."""

    async def pulse(request: Request) -> Response:
        if not is_facilitator(request.scope):
            return PlainTextResponse("For the facilitator only.", status_code=403)
        run_id = request.query_params.get("run", "")
        if not RUN_ID.match(run_id):
            return PlainTextResponse("No such run.", status_code=404)
        try:
            held = await in_thread(READ_WAIT_S, whatif.has_workshop, run_id, store=get_store())
        except IFWorldError:  # the page keeps its timed redraw; EventSource tries again after its retry
            return PlainTextResponse("The store cannot be reached just now.", status_code=503)
        if not held:
            return PlainTextResponse("This run has no workshop.", status_code=404)
        if _open[0] >= MAX_PULSES:
            return PlainTextResponse("Too many room pages open: close one.", status_code=429)
        return StreamingResponse(_beats(run_id), media_type="text/event-stream",
                                 headers={"cache-control": "no-store", "x-accel-buffering": "no"})

    return Route(PATH, pulse, methods=["GET"], name="room_pulse")


async def _beats(run_id: str) -> AsyncIterator[str]:
    """A ``changed`` event with the room's version each time the run's reader sees it change (its first read
    included: the page may have drawn before it); a comment line while nothing happens, so proxies keep it open."""
    _open[0] += 1
    seen = -1
    try:
        with following(run_id) as w:
            yield "retry: 3000\n\n"
            while True:
                version = await w.next(seen)
                if version == seen:
                    yield KEEPALIVE
                    continue
                seen = version
                if w.snapshot is not None:  # a read that failed changes the version too: nothing to redraw
                    yield sse_event("changed", version)
    finally:
        _open[0] -= 1
