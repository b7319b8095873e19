"""The participant's page (phone or laptop): a small server-rendered page with server-sent events, on the app's
own server. It is the room's only page: the Streamlit Join page it replaced is gone, and its address (``/join``)
leads here.

Why not a Streamlit page for the room: each Streamlit page is 2.7 MB of script on a first visit (1.1 MB
compressed) and a rerun per redraw; with a class of 12 on one 2-core machine a phone waited 48–86 s (p95) to
be in the room (``benchmarks/bench_workshop.py``). This page is one HTML document, a 17 KB script and a style
sheet; the server reads each run's room once per change for all its phones (:class:`RunWatch`) and pushes each
phone what changed in its own :class:`ui.phone_view.PhoneView` (:class:`ui.phone_view.Patcher`) — nothing while
the room is idle.

Routes (under the app's path, ``/p``): ``GET /p/`` the page (``?w=TOKEN``: a workshop's link), ``GET
/p/events`` the stream, ``POST /p/find`` a workshop code, ``POST /p/join``, ``/p/predict``, ``/p/send``,
``/p/vote``; ``GET /join`` (the old Join page's address) leads to ``/p/``. Who a phone is: the device cookie the
app's server sets (:class:`ui.asgi.Identity`) — the engine checks it on every action (``whatif.predict``/
``contribute``/``vote``). A POST must carry :data:`ACTION_HEADER` (a page of another site cannot send it
without a CORS preflight, which this server never grants) and a same-origin ``Origin``; each device has an
action budget (:data:`ACTIONS_PER_S`) and a bounded number of streams.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from ifworld import access, whatif
from ifworld.runs import StoreError, get_store, store_patience
from ifworld.toolkit import IFWorldError, WorkshopError, load_settings
from ui.phone_view import Patcher, PhoneView, RunSnapshot, phone_view, read_run
from ui.room_list import ASSETS as ROOM_ASSETS

PREFIX = "/p"
SERVED = False
"""Set by ``ui/asgi.py`` when it mounts :data:`ROUTES`; without them (``streamlit run app.py``) the room has no page,
so the facilitator is not offered a workshop."""
ACTION_HEADER = "x-ifworld-phone"
POLL_S = 0.4  # how often a watched run's room is read while phones are connected (once per run, not per phone)
KEEPALIVE_S = 15.0  # a comment line on a quiet stream, so proxies and phones keep it open
KEEPALIVE = ": keepalive\n\n"
IDLE_WATCH_S = 30.0  # a run nobody watches is read no more after this
MAX_BODY = 16 * 1024
READ_WAIT_S = 1.5
"""How long a read for the phones waits for an unreachable store before they are told (the backend's own wait is
30 s: every phone of the run would show nothing that long while the server restarts)."""
PRESS_WAIT_S = 5.0
"""How long a press waits for the store: longer than a read, since a class's burst of Sends queues for the pool's
connections (8 per process), and shorter than a person waits before pressing again."""
UNREACHABLE = "The workshop cannot be reached just now; the page carries on by itself."
log = logging.getLogger(__name__)
ACTIONS_PER_S, ACTION_BURST = 4.0, 20  # one device's presses: a person taps far slower; a script is held here
MAX_STREAMS_PER_DEVICE, MAX_STREAMS = 4, 2000
ASSETS = ROOM_ASSETS  # ifworld/web, where the room list's files are


async def in_thread(wait_s: float, fn: Any, *args: Any, **kwargs: Any) -> Any:
    """``fn`` in the server's thread pool, its store calls waiting at most ``wait_s`` for the store
    (:func:`ifworld.runs.store_patience` is per thread, so it is set inside)."""
    def patient() -> Any:
        with store_patience(wait_s):
            return fn(*args, **kwargs)
    return await run_in_threadpool(patient)


# -- one reader per run ----------------------------------------------------------------------------------------
@dataclass
class RunWatch:
    """The latest snapshot of one run, read every :data:`POLL_S` while a phone watches it (or at once after an
    action), and the phones waiting for the next one."""
    run_id: str
    snapshot: RunSnapshot | None = None
    version: int = 0
    error: str = ""
    watchers: int = 0
    idle_since: float = field(default_factory=time.monotonic)
    fresh_since: float = 0.0  # when the latest good read of the room began (time.monotonic)
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    poke: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task | None = None

    async def run(self) -> None:
        stamp = ""
        while self.watchers or time.monotonic() - self.idle_since < IDLE_WATCH_S:
            began = time.monotonic()
            try:
                snap = await in_thread(READ_WAIT_S, lambda: read_run(self.run_id, get_store(), load_settings()))
                error, self.fresh_since = "", began
            except IFWorldError:  # an unreachable store: phones say so and keep what they hold; nothing is lost
                snap, error = None, UNREACHABLE
            except Exception:  # noqa: BLE001 — the reader must outlive one bad read, or every phone of the run hangs
                log.exception("reading run %s for its phones failed", self.run_id)
                snap, error = None, "The workshop cannot be read just now; the page carries on by itself."
            if snap is not None and snap.stamp() != stamp:
                stamp, self.snapshot = snap.stamp(), snap
                await self._publish(error)
            elif error != self.error:
                await self._publish(error)
            try:
                await asyncio.wait_for(self.poke.wait(), POLL_S)
            except asyncio.TimeoutError:
                pass
            self.poke.clear()
        _watches.pop(self.run_id, None)

    async def _publish(self, error: str) -> None:
        self.error = error
        async with self.changed:
            self.version += 1
            self.changed.notify_all()

    async def next(self, seen: int) -> int:
        """Wait for a version after ``seen`` (at most :data:`KEEPALIVE_S`); returns the version now."""
        async with self.changed:
            if self.version == seen:
                try:
                    await asyncio.wait_for(self.changed.wait(), KEEPALIVE_S)
                except asyncio.TimeoutError:
                    pass
            return self.version


_watches: dict[str, RunWatch] = {}


def watch(run_id: str) -> RunWatch:
    w = _watches.get(run_id)
    loop = asyncio.get_running_loop()  # one in a served app; a test's clients each run their own
    if w is None or w.task is None or w.task.done() or w.task.get_loop() is not loop:
        w = _watches[run_id] = RunWatch(run_id)
        w.task = asyncio.get_running_loop().create_task(w.run())
    return w


@contextmanager
def following(run_id: str) -> Iterator[RunWatch]:
    """The run's reader, counted as watched while a stream follows it (a phone's, or the facilitator's pulse):
    it reads the room while anyone follows, and for :data:`IDLE_WATCH_S` after the last one left."""
    w = watch(run_id)
    w.watchers += 1
    try:
        yield w
    finally:
        w.watchers -= 1
        w.idle_since = time.monotonic()


# -- who is asking -------------------------------------------------------------------------------------------
_budgets: dict[str, tuple[float, float]] = {}
_streams: dict[str, int] = {}


def _device(request: Request) -> str | None:
    value = request.cookies.get(access.DEVICE_COOKIE)
    return value if value and len(value) >= access.MIN_TOKEN_CHARS else None


def _spend(device: str) -> bool:
    """Take one action from ``device``'s budget (a token bucket); False when it is spent."""
    now = time.monotonic()
    tokens, at = _budgets.get(device, (float(ACTION_BURST), now))
    tokens = min(float(ACTION_BURST), tokens + (now - at) * ACTIONS_PER_S)
    if tokens < 1:
        _budgets[device] = (tokens, now)
        return False
    if len(_budgets) > 10_000:
        _budgets.clear()
    _budgets[device] = (tokens - 1, now)
    return True


def _same_origin(request: Request) -> bool:
    origin = request.headers.get("origin")
    return origin is None or urlsplit(origin).netloc == request.headers.get("host", "")


def _refusal(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"ok": False, "message": message}, status_code=status, headers={"cache-control": "no-store"})


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise WorkshopError("that is too much text to send at once")
    try:
        body = json.loads(raw or b"{}")
    except ValueError:
        raise WorkshopError("the page sent something unreadable; reload it") from None
    if not isinstance(body, dict):
        raise WorkshopError("the page sent something unreadable; reload it")
    return body


def _clients(request: Request, device: str) -> list[str]:
    address = (request.scope.get("client") or ("", 0))[0]
    return [f"device:{device}", *([f"ip:{address}"] if address else [])]


# -- the page --------------------------------------------------------------------------------------------------
_SHELL = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Join a workshop · IF-World</title>
<link rel="stylesheet" href="phone.css"></head><body>
<main id="app" aria-live="polite"><h1>👥 Join a workshop</h1><p>Loading…</p></main>
<noscript><p>This page needs JavaScript: turn it on in the browser's settings and reload.</p></noscript>
<script type="application/json" id="start">{start}</script>
<script src="phone.js"></script></body></html>"""


def _json_for_html(value: Any) -> str:
    """JSON inside a <script> element: no "</script>" or comment opener can end it early."""
    return json.dumps(value).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


async def page(request: Request) -> Response:
    """The page; its links are relative (``phone.js``), so the app's path prefix needs no telling. ``/p`` is sent
    to ``/p/`` for that."""
    if not request.url.path.endswith("/"):
        return _to_page(request, 307)
    token = request.query_params.get("w", "")[:100]
    start: dict[str, Any] = {"screen": "code"}
    device = _device(request)
    if token:
        try:
            start, run_id = await in_thread(READ_WAIT_S, _start_screen, token, device)
        except IFWorldError:  # the store is down: say so, and the page tries again by itself (ifworld/web/phone.js)
            start, run_id = {"screen": "retry", "message": UNREACHABLE}, None
        if run_id:  # read the room now, while the person types their name: the stream then starts at once
            watch(run_id)
    html = _SHELL.format(start=_json_for_html(start))
    return HTMLResponse(html, headers={"cache-control": "no-store"})


def _start_screen(token: str, device: str | None) -> tuple[dict[str, Any], str | None]:
    """What the page opens on — the room (this device joined before), the join form, or why not — and the run
    to watch (none for a closed or unknown workshop)."""
    store = get_store()
    try:
        ws = whatif.find_by_token(token, store=store)
    except WorkshopError as exc:
        return {"screen": "code", "error": str(exc)}, None
    known = whatif.participant_for(ws.run_id, device, store=store) if device else None
    if known is not None:
        return {"screen": "room", "token": ws.token}, ws.run_id
    if ws.status != "open":
        return {"screen": "closed", "message": "This workshop is closed; it accepts nothing more."}, None
    return {"screen": "join", "token": ws.token, "roster": ws.is_roster, "name_help": whatif.NAME_CHARS_HELP,
            "max_name": whatif.MAX_NAME_CHARS,
            "proposition": whatif.load_session(ws.run_id, store).proposition}, ws.run_id


async def asset(request: Request) -> Response:
    name = request.path_params["name"]
    kind = {"phone.js": "text/javascript", "phone.css": "text/css"}.get(name)
    if kind is None:
        return Response("Not found", status_code=404)
    return Response(ASSETS.joinpath(name).read_text(encoding="utf-8"), media_type=kind,
                    headers={"cache-control": "no-cache"})


# -- the stream ------------------------------------------------------------------------------------------------
def _participant(token: str, device: str | None) -> tuple[str, str]:
    """(run id, participant id) of this device in the workshop ``token``; refused when it has not joined."""
    store = get_store()
    ws = whatif.find_by_token(token, store=store)
    person = whatif.participant_for(ws.run_id, device, store=store) if device else None
    if person is None:
        raise WorkshopError("this device has not joined the workshop (or its code was released): join again")
    return ws.run_id, person.id


async def events(request: Request) -> Response:
    opened = time.monotonic()
    device = _device(request)
    try:
        run_id, pid = await in_thread(READ_WAIT_S, _participant, request.query_params.get("w", "")[:100], device)
    except WorkshopError as exc:
        return _refusal(str(exc), 403)
    except IFWorldError:  # never the store's own words (its address) to a phone; the page's stream tries again
        return _refusal(UNREACHABLE, 503)
    assert device is not None
    if _streams.get(device, 0) >= MAX_STREAMS_PER_DEVICE or sum(_streams.values()) >= MAX_STREAMS:
        return _refusal("Too many pages open from this device: close one.", 429)
    return StreamingResponse(_stream(run_id, pid, device, opened), media_type="text/event-stream",
                             headers={"cache-control": "no-store", "x-accel-buffering": "no"})


async def _stream(run_id: str, pid: str, device: str, opened: float) -> Any:
    """This phone's views. ``opened``: when it asked, having joined — the run's reader, already serving the
    phones that came first, may hold a snapshot from before this participant joined: the room is read again
    then, and only a read begun after ``opened`` without them says "gone"."""
    _streams[device] = _streams.get(device, 0) + 1
    patcher, seen, started, roster, told = Patcher(), -1, False, [""], ""
    try:
        with following(run_id) as w:
            yield "retry: 2000\n\n"
            while True:
                if w.snapshot is None and not w.error:
                    seen = await w.next(seen)
                    continue
                if seen != w.version or not started:
                    seen = w.version
                    if w.error != told:  # the store went away, or came back (the line is taken away again)
                        told = w.error
                        yield sse_event("status", {"error": w.error})
                    if w.snapshot is not None and w.snapshot.workshop.participant(pid) is None:
                        if w.fresh_since > opened:
                            yield sse_event("gone", {})
                            return
                        w.poke.set()  # a read from before this phone joined: read the room again, then decide
                    elif w.snapshot is not None and await _released(w.snapshot, run_id, device, roster):
                        yield sse_event("gone", {})  # the facilitator released this device's code: it is nobody now
                        return
                    elif w.snapshot is not None:
                        started = True
                        patch = patcher.patch(phone_view(w.snapshot, pid))
                        if patch:
                            yield sse_event("patch", patch)
                version = await w.next(seen)
                if version == seen:
                    yield KEEPALIVE
    finally:
        _streams[device] = _streams.get(device, 1) - 1
        if _streams[device] <= 0:
            _streams.pop(device, None)


async def _released(snap: RunSnapshot, run_id: str, device: str, roster: list[str]) -> bool:
    """Whether this device no longer holds its place — asked of the store only when the roster changed (a code
    released, a new roster), not at every change of the room. ``roster`` holds the roster this phone last saw."""
    now = json.dumps([r.model_dump() for r in snap.workshop.roster])
    if now == roster[0]:
        return False
    roster[0] = now
    try:
        return await in_thread(READ_WAIT_S, lambda: whatif.participant_for(run_id, device, store=get_store())) is None
    except IFWorldError:  # cannot tell now: the phone keeps its place, and the next change of the roster asks again
        roster[0] = ""
        return False


TOO_MANY_PRESSES = "Too many presses at once: wait a moment and try again."


def _spend_shared(device: str) -> bool:
    """The same budget counted in the store, for every process that serves the app: :func:`_spend` is per
    process, so behind a proxy with N of them a device would get N bursts. A fixed window of
    :data:`ACTION_BURST` presses per ``ACTION_BURST / ACTIONS_PER_S`` seconds (the bucket's burst and its rate);
    the in-memory bucket still turns a flood away before the store is asked."""
    window = ACTION_BURST / ACTIONS_PER_S if ACTIONS_PER_S > 0 else 3600.0
    return get_store().hit_rate(f"phone-press:{device}", limit=ACTION_BURST, window_s=window)


def sse_event(name: str, data: Any) -> str:
    return f"event: {name}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


# -- actions ---------------------------------------------------------------------------------------------------
async def act(request: Request) -> Response:
    """``POST /p/{action}``: checked here (header, origin, budget), then by the engine (the device's key)."""
    action = request.path_params["action"]
    if action not in _ACTIONS:
        return _refusal("There is no such action.", 404)
    if request.headers.get(ACTION_HEADER) != "1" or not _same_origin(request):
        return _refusal("This request did not come from the workshop page.", 403)
    device = _device(request)
    if device is None:
        return _refusal("This browser has no device cookie: reload the page.", 403)
    if not _spend(device):
        return _refusal(TOO_MANY_PRESSES, 429)
    try:
        if not await in_thread(PRESS_WAIT_S, _spend_shared, device):
            return _refusal(TOO_MANY_PRESSES, 429)
        body = await _body(request)
        result = await in_thread(PRESS_WAIT_S, _ACTIONS[action], body, device, _clients(request, device))
    except WorkshopError as exc:
        return _refusal(str(exc))
    except StoreError:
        return _refusal("The workshop could not be reached just now: nothing was lost — press again in a moment.",
                        503)
    if result.get("run_id") in _watches:
        _watches[result["run_id"]].poke.set()  # the room is read again now, not at the next poll
    return JSONResponse({"ok": True, **result}, headers={"cache-control": "no-store"})


def _str(body: dict[str, Any], key: str, limit: int = 20_000) -> str:
    value = body.get(key, "")
    if not isinstance(value, str):
        raise WorkshopError(f"{key} must be text")
    return value[:limit]


def _find(body: dict[str, Any], device: str, clients: list[str]) -> dict[str, Any]:
    ws = whatif.find_by_code(_str(body, "code", 40), clients, store=get_store())
    return {"token": ws.token}


def _join(body: dict[str, Any], device: str, clients: list[str]) -> dict[str, Any]:
    token = _str(body, "token", 100)
    joiner = whatif.join_with_code if body.get("roster") else whatif.join_workshop
    person, _ = joiner(token, _str(body, "given", 200), device_key=device, clients=clients, store=get_store())
    return {"token": token, "name": person.name}


def _predict(body: dict[str, Any], device: str, clients: list[str]) -> dict[str, Any]:
    run_id, pid = _participant(_str(body, "token", 100), device)
    probs, dirs = body.get("probabilities"), body.get("directions") or {}
    if not isinstance(probs, dict) or not isinstance(dirs, dict):
        raise WorkshopError("a prediction is a probability per branch")
    try:
        numbers = {str(k)[:200]: float(v) for k, v in list(probs.items())[:50]}
    except (TypeError, ValueError):
        raise WorkshopError("each probability must be a number from 0 to 100") from None
    directions = {str(k)[:200]: str(v)[:10] for k, v in list(dirs.items())[:50] if v}
    mine = whatif.predict(run_id, pid, device, numbers, directions, store=get_store())
    return {"run_id": run_id, "likely": mine.likely}


def _send(body: dict[str, Any], device: str, clients: list[str]) -> dict[str, Any]:
    """Store a contribution. The same text sent again (a reply that never reached the phone, which then sends
    it once more) is the same contribution: the engine gives back the stored one, never a twin."""
    run_id, pid = _participant(_str(body, "token", 100), device)
    said = whatif.contribute(run_id, pid, device, _str(body, "text"), _str(body, "kind", 20) or "claim",
                             _str(body, "tag", 200), store=get_store())
    return {"run_id": run_id, "id": said.id}


def _vote(body: dict[str, Any], device: str, clients: list[str]) -> dict[str, Any]:
    run_id, pid = _participant(_str(body, "token", 100), device)
    whatif.vote(run_id, pid, device, _str(body, "contribution_id", 64), store=get_store())
    return {"run_id": run_id}


_ACTIONS = {"find": _find, "join": _join, "predict": _predict, "send": _send, "vote": _vote}


async def old_join(request: Request) -> Response:
    """The address of the Streamlit Join page this page replaced (``/join?w=…&personal=…``): links and printed
    cards made before it lead here, their query kept."""
    return _to_page(request, 308)


def _to_page(request: Request, status: int) -> Response:
    """To ``p/`` relative to where the request was (so under the app's path prefix too), its query kept."""
    query = f"?{request.url.query}" if request.url.query else ""
    return RedirectResponse(f"{PREFIX.rsplit('/', 1)[-1]}/{query}", status_code=status)


ROUTES = [Route("/join", old_join, name="old_join"),
          Route(PREFIX, page, name="phone_bare"), Route(PREFIX + "/", page, name="phone"),
          Route(PREFIX + "/events", events, name="phone_events"),
          Route(PREFIX + "/{name:str}", asset, methods=["GET"], name="phone_asset"),
          Route(PREFIX + "/{action:str}", act, methods=["POST"], name="phone_act")]

__all__ = ["ROUTES", "PREFIX", "ACTION_HEADER", "PhoneView"]
