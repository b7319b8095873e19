"""Who is who at the wire: a participant forges the facilitator's widget presses in Streamlit's own protocol.

Streamlit's browser and server talk over one websocket (``/_stcore/stream``): the browser sends ``BackMsg``
protobufs (a ``rerun_script`` carries the page's script hash, its query string and every widget's state), the
server answers with ``ForwardMsg`` protobufs (the elements it drew, each widget with its id). Element ids are
derived from keys and labels, so a participant who once saw a facilitator's traffic — or guessed — can name the
facilitator's buttons. This test takes the ids from a signed-in facilitator's real frames (``framereceived``),
then, as a participant who joined by code on the phone page (``/p/``: only their device cookie) and then opened
the What-if page's address in the same browser (where they are a visitor: the room has no Streamlit page),
presses every one of them in forged ``rerun_script`` messages with the What-if page's script hash and ``?run=ID``
— from the participant's own browser session (frames injected into its websocket with
``page.route_web_socket``) and from a raw ``websockets`` client speaking the protocol (plus reruns of the
facilitator's room fragment alone, a ``clear_cache``, the facilitator's Streamlit session id in the reconnect
header, Streamlit's HTTP agent API, and the facilitator's actions posted to the phone page's own action route
with the page's header, which has no such action). In review, between rounds and after the report: nothing moves
in the store, no request reaches the model or the attacker's server, and the participant receives only the "for
the facilitator" notice. (What the phone page's routes refuse — no header, another origin, no device cookie —
is tests/pages/test_phone_server.py::test_forged_presses_do_nothing.)

The control: the same raw client and the same forged frames with the facilitator's cookie do accept a
contribution, continue the run (twice), reveal, send a Test connection to the forged Base URL (without the
key), and resume the facilitator's own session by id — so the forging works and the refusals are the server's.

Found here and fixed (ui/asgi.py): Streamlit resumed whatever session a websocket named by id, so a participant's
client holding the facilitator's session id took that session over and reran its room fragment (the engine
refused the forged accept, but the facilitator's room was drawn to the participant). Sessions are now bound to
the browser that opened them.
"""
from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from streamlit.components.v2.bidi_component.main import _make_trigger_id
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.sync.client import connect

from ifworld import whatif
from ifworld.access import DEVICE_COOKIE, FACILITATOR_COOKIE
from ifworld.config import load_settings
from ifworld.runs.store import RunStore
from ifworld.whatif import State, service
from ifworld.whatif.params import default_params
from tests.browser.conftest import KNOWN_KEY, wait_idle
from tests.browser.phone_steps import join
from tests.fixtures.recording_server import recording_server
from tests.pages.room_lists import HEARTBEAT
from ui.phone_server import ACTION_HEADER

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PROP = "What if the Moon disappeared overnight?"
NOTICE = "This page is for the facilitator"
WAIT_S = 120


# -- the app, in network mode ----------------------------------------------------------------------------------


# -- reading the wire ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Widget:
    id: str
    kind: str  # the element type: button, text_input, text_area, bidi_component, …
    label: str


def parse(frames: list[Any]) -> list[ForwardMsg]:
    out = []
    for frame in list(frames):
        if isinstance(frame, (bytes, bytearray)):
            msg = ForwardMsg()
            msg.ParseFromString(bytes(frame))
            out.append(msg)
    return out


def widgets(msgs: list[ForwardMsg]) -> dict[str, Widget]:
    """Every element with an id that the messages drew (widgets: buttons, inputs, components)."""
    found: dict[str, Widget] = {}
    for msg in msgs:
        if msg.WhichOneof("type") != "delta" or msg.delta.WhichOneof("type") != "new_element":
            continue
        element = msg.delta.new_element
        kind = element.WhichOneof("type")
        proto = getattr(element, kind) if kind else None
        wid = getattr(proto, "id", "") if proto is not None else ""
        if wid:
            found[wid] = Widget(wid, kind, getattr(proto, "label", "") or getattr(proto, "component_name", ""))
    return found


def fragment_ids(msgs: list[ForwardMsg]) -> set[str]:
    return {m.delta.fragment_id for m in msgs if m.WhichOneof("type") == "delta" and m.delta.fragment_id}


def page_hash(msgs: list[ForwardMsg], url_path: str) -> str:
    for msg in reversed(msgs):
        if msg.WhichOneof("type") == "navigation":
            for p in msg.navigation.app_pages:
                if p.url_pathname == url_path:
                    return p.page_script_hash
    raise AssertionError(f"no page {url_path!r} in the navigation the facilitator received")


def session_of(msgs: list[ForwardMsg]) -> str:
    """The Streamlit session id the server gave these messages' connection."""
    return next(m.new_session.initialize.session_id for m in msgs if m.WhichOneof("type") == "new_session")


def finished(msg: ForwardMsg) -> bool:
    return msg.WhichOneof("type") == "script_finished" and msg.script_finished in (
        ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_WITH_COMPILE_ERROR)


def texts(msgs: list[ForwardMsg]) -> str:
    return "\n".join(str(m) for m in msgs)


def one(found: dict[str, Widget], label: str, kind: str = "button") -> Widget:
    # the facilitator's heartbeat is a room list too (empty: ui/workshop_facilitator.py), not a list to press
    hits = [w for w in found.values() if w.kind == kind and label in w.label and not w.id.endswith(HEARTBEAT)]
    assert len(hits) == 1, f"{label!r}: {hits} among {sorted({w.label for w in found.values()})}"
    return hits[0]


# -- forging ---------------------------------------------------------------------------------------------------
def rerun(query: str, script_hash: str, states: list[WidgetState] = (), fragment: str = "") -> bytes:
    """A ``rerun_script`` BackMsg as the browser sends it: page, query string, widget states (and a fragment)."""
    msg = BackMsg(rerun_script=ClientState(query_string=query, page_script_hash=script_hash, fragment_id=fragment))
    msg.rerun_script.widget_states.widgets.extend(states)
    return msg.SerializeToString()


def press(w: Widget, contribution_id: str = "", attacker: str = "") -> list[WidgetState]:
    """The widget states that press ``w``: a trigger for a button, a typed value for a text field, and for the
    room list (a ``components.v2`` element) its ``act`` event naming every facilitator action on a contribution."""
    if w.kind == "button":
        return [WidgetState(id=w.id, trigger_value=True)]
    if w.kind in ("text_input", "text_area"):
        return [WidgetState(id=w.id, string_value=attacker or "Forged by a participant")]
    if w.kind == "bidi_component":
        acts = " ".join(f"{a}:{contribution_id}" for a in ("accept", "reject", "hide", "edit"))
        return [WidgetState(id=_make_trigger_id(w.id, "events"),
                            json_trigger_value=json.dumps([{"event": "act", "value": acts}]))]
    return []


def forgeries(found: dict[str, Widget], contribution_id: str, attacker: str) -> list[list[WidgetState]]:
    """One forged press per facilitator button and room list, and every text field set to the attacker's URL
    together with every button (the sidebar's Base URL with *Test connection*)."""
    fields = [s for w in found.values() if w.kind in ("text_input", "text_area") for s in press(w, attacker=attacker)]
    singles = [press(w, contribution_id) for w in found.values() if w.kind in ("button", "bidi_component")]
    return [s for s in singles if s] + [fields + [s for w in found.values() if w.kind == "button" for s in press(w)]]


class RawClient:
    """A client of ``/_stcore/stream`` with given cookies: sends BackMsgs, collects the ForwardMsgs it gets. With
    ``session_id`` it asks to resume that Streamlit session, as a browser does when its websocket reconnects (the
    id rides in the ``Sec-WebSocket-Protocol`` header: ``streamlit, <xsrf token>, <session id>``)."""

    def __init__(self, base: str, cookies: dict[str, str], session_id: str = "") -> None:
        header = "; ".join(f"{k}={v}" for k, v in cookies.items())
        self.url = base.replace("http://", "ws://") + "/_stcore/stream"
        self.protocols = ["streamlit", "xsrf", session_id] if session_id else ["streamlit"]
        self.headers = {"Cookie": header}
        self.received: list[ForwardMsg] = []

    def __enter__(self) -> RawClient:
        self.ws = connect(self.url, subprotocols=self.protocols, additional_headers=self.headers, max_size=None,
                          open_timeout=60).__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.ws.__exit__(*exc)

    def send(self, data: bytes, *, wait: bool = True) -> list[ForwardMsg]:
        """Send one BackMsg; with ``wait``, read until the script run it asked for (and any rerun it made) ends."""
        start = len(self.received)
        self.ws.send(data)
        deadline = time.time() + WAIT_S
        while wait:
            msg = ForwardMsg()
            msg.ParseFromString(self.ws.recv(timeout=max(1.0, deadline - time.time())))
            self.received.append(msg)
            if finished(msg):
                break
        return self.received[start:]

    @property
    def session_ids(self) -> set[str]:
        return {m.new_session.initialize.session_id for m in self.received if m.WhichOneof("type") == "new_session"}


class BrowserForger:
    """A participant's own browser whose websocket we hold: frames the server sends are recorded and passed on,
    and forged BackMsgs go to the server through the browser's own connection (its own cookies)."""

    def __init__(self, page: Any) -> None:
        self.page, self.server, self.received = page, None, []
        page.route_web_socket(re.compile(r".*/_stcore/stream$"), self._route)

    def _route(self, ws: Any) -> None:
        server = ws.connect_to_server()

        def from_server(message: Any) -> None:
            self.received.append(message)
            ws.send(message)

        server.on_message(from_server)
        self.server = server

    def send(self, data: bytes) -> list[ForwardMsg]:
        start = len(self.received)
        self.server.send(data)
        return self.wait(lambda msgs: any(finished(m) for m in msgs), start)

    def wait(self, done: Callable[[list[ForwardMsg]], bool], start: int = 0) -> list[ForwardMsg]:
        deadline = time.time() + WAIT_S
        while time.time() < deadline:
            msgs = parse(self.received[start:])
            if done(msgs):
                return msgs
            self.page.wait_for_timeout(50)  # lets Playwright deliver the frames; the loop waits on them
        raise AssertionError("the server never finished the forged run")


# -- the store -------------------------------------------------------------------------------------------------
def snapshot(db: Path, run_id: str) -> str:
    s = RunStore(db)
    try:
        info = s.get_run(run_id)
        return json.dumps([info.status, info.record, s.transitions(run_id), s.workshop_events(run_id),
                           s.workshop_row(run_id=run_id), len(s.list_runs())], default=str, sort_keys=True)
    finally:
        s.close()


def wait_store(db: Path, test: Callable[[RunStore], bool], what: str) -> None:
    deadline = time.time() + WAIT_S
    while time.time() < deadline:
        s = RunStore(db)
        try:
            if test(s):
                return
        finally:
            s.close()
        time.sleep(0.1)
    raise AssertionError(f"the store never showed: {what}")


def state(s: RunStore, run_id: str) -> State:
    return whatif.load_session(run_id, s).state


def cookies_of(context: Any) -> dict[str, str]:
    return {c["name"]: c["value"] for c in context.cookies()}


# -- the people ------------------------------------------------------------------------------------------------
def new_page(browser: Any, width: int = 1300) -> tuple[Any, Any]:
    ctx = browser.new_context(viewport={"width": width, "height": 1000})
    page = ctx.new_page()
    page.set_default_timeout(WAIT_S * 1000)
    return ctx, page


def facilitator_sees(fctx: Any, base: str, run_id: str, labels: list[str]) -> list[ForwardMsg]:
    """Open ``/whatif?run=ID`` as the signed-in facilitator and return the frames received until every one of
    ``labels`` was drawn (the page is closed after: one app process serves everyone on two cores)."""
    page = fctx.new_page()
    frames: list[Any] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(payload)))
    page.goto(f"{base}/whatif?run={run_id}", wait_until="commit")
    deadline = time.time() + WAIT_S
    while time.time() < deadline:
        drawn = {w.label for w in widgets(parse(frames)).values()}
        if all(any(label in d for d in drawn) for label in labels):
            break
        page.wait_for_timeout(100)
    else:
        raise AssertionError(f"the facilitator's page never drew {labels}: {drawn}")
    wait_idle(page)
    msgs = parse(frames)
    page.close()
    return msgs


def join_by_code(browser: Any, base: str, code: str, name: str) -> tuple[Any, Any, BrowserForger]:
    """A phone that joined on the phone page; its Streamlit websocket (once it opens a Streamlit address) is ours."""
    ctx, page = new_page(browser, width=390)
    forger = BrowserForger(page)
    join(page, base, code, name)
    return ctx, page, forger


@pytest.fixture(scope="module")
def room(browser: Any, network_app: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """A what-if run paused in review with an open workshop (made through the engine), a contribution from Bo
    (joined through the engine), Ada joined in her phone's browser by code on the phone page, and the facilitator
    signed in."""
    app, base = network_app, network_app["url"]
    store = RunStore(app["db"])
    settings = load_settings({"base_url": app["fake"].url, "model": "fake-model", "max_retries": 0, "timeout_s": 20})
    params = default_params(PROP, experts=["physics", "economics"], rounds=2, review=True, pause_between_rounds=True)
    run_id = service.run(params, settings=settings, store=store, source="page")["run_id"]
    assert state(store, run_id) == State.REVIEW
    ws = whatif.open_workshop(run_id, store=store)
    bo, bo_key = whatif.join_workshop(ws.token, "Bo", device_key="bo-device-key-0123456789", store=store)
    whatif.contribute(run_id, bo.id, bo_key, "Tides would shrink to the Sun's third", store=store)
    contribution = whatif.load_workshop(run_id, store=store).contributions[0].id
    store.close()

    fctx, fac = new_page(browser)
    fac.goto(app["signin"], wait_until="commit")
    fac.get_by_text("Model connection").first.wait_for()
    wait_idle(fac)
    fac.close()
    pctx, ada, forger = join_by_code(browser, base, ws.code, "Ada")
    yield {"run_id": run_id, "token": ws.token, "contribution": contribution, "fctx": fctx, "pctx": pctx, "ada": ada,
           "forger": forger, "settings": settings}
    pctx.close()
    fctx.close()


def attack(app: dict[str, Any], room: dict[str, Any], seen: list[Any], attacker: str,
           labels: list[str]) -> tuple[dict[str, Widget], str, list[ForwardMsg]]:
    """Record the facilitator's page, then forge every press from Ada's browser and from a raw client holding
    Ada's cookies; assert nothing changed and Ada received nothing of the facilitator's. Returns what the control
    needs: the facilitator's widgets, the page hash and the facilitator's frames."""
    base, run_id, db = app["url"], room["run_id"], app["db"]
    fac_msgs = facilitator_sees(room["fctx"], base, run_id, labels)
    found = widgets(fac_msgs)
    script_hash = page_hash(fac_msgs, "whatif")
    frags = fragment_ids(fac_msgs)
    assert frags, "the facilitator's page drew no fragment (its room) to forge a rerun of"
    query = f"run={run_id}"
    forged = forgeries(found, room["contribution"], attacker)
    before, calls = snapshot(db, run_id), len(app["fake"].requests)

    ada, forger = room["ada"], room["forger"]
    ada.goto(f"{base}/whatif?{query}", wait_until="commit")  # a fresh session, at the facilitator's address
    ada.get_by_text(NOTICE).first.wait_for()  # she is a visitor here
    wait_idle(ada)
    start = len(forger.received)
    for states in forged:  # into Ada's own session (a visitor's), through her browser's own websocket
        forger.send(rerun(query, script_hash, states))
    got = forger.wait(lambda msgs: True, start)
    ada.get_by_text(NOTICE).first.wait_for()
    wait_idle(ada)
    assert not [t for t in ada.locator("[data-testid=stMain] button").all_inner_texts() if t.strip()]

    cookies = cookies_of(room["pctx"])
    assert DEVICE_COOKIE in cookies and FACILITATOR_COOKIE not in cookies
    with RawClient(base, cookies) as raw:
        # the first message, as the browser sends it: Ada's cookies make this a visitor's session
        assert NOTICE in texts(raw.send(rerun(query, script_hash)))
        for states in forged:
            got += raw.send(rerun(query, script_hash, states))
        for fragment in frags:  # a rerun of the facilitator's room fragment alone (it would skip the router)
            raw.send(rerun(query, script_hash, [s for f in forged for s in f], fragment), wait=False)
        raw.send(BackMsg(clear_cache=True).SerializeToString(), wait=False)
        got += raw.send(rerun(query, script_hash, forged[-1]))  # in order: the messages above were handled first

    # the facilitator's own Streamlit session, asked for by its id (seen in its traffic) with Ada's cookies: a
    # fragment rerun there would run the facilitator's room without the router's check
    with RawClient(base, cookies, session_id=session_of(fac_msgs)) as raw:
        for fragment in frags:
            raw.send(rerun(query, script_hash, [s for f in forged for s in f], fragment), wait=False)
        got += raw.send(rerun(query, script_hash, forged[-1]))
        assert session_of(fac_msgs) not in raw.session_ids, "Ada's client took over the facilitator's session"
    # Streamlit's HTTP agent API (another way in without a browser) is off: refused, whatever it is sent
    agent = httpx.post(f"{base}/_stcore/agent/interact", cookies=cookies, timeout=30,
                       json={"page": "whatif", "query": query, "widgets": [{"id": w, "value": True} for w in found]})
    assert agent.status_code >= 400, agent.text[:300]
    # the phone page's action route, from Ada's page with its header: it has no facilitator's action to name
    for action in ("decide", "accept", "continue", "reveal", "close"):
        reply = httpx.post(f"{base}/p/{action}", cookies=cookies, timeout=30, headers={ACTION_HEADER: "1"},
                           json={"token": room["token"], "contribution_id": room["contribution"], "action": "accept"})
        assert reply.status_code == 404, (action, reply.status_code, reply.text[:300])

    assert snapshot(db, run_id) == before, "a forged press changed the run or the workshop"
    assert len(app["fake"].requests) == calls, "a forged press reached the model"
    assert not seen, f"a forged Base URL made the app call the attacker: {seen}"
    leaked = set(widgets(got)) & set(found)
    assert not leaked, f"the participant was drawn facilitator widgets: {[found[w].label for w in leaked]}"
    assert NOTICE in texts(got) and KNOWN_KEY not in texts(got)
    assert not any(m.WhichOneof("type") == "delta" and m.delta.fragment_id in frags for m in got)
    return found, script_hash, fac_msgs


def control(app: dict[str, Any], room: dict[str, Any], script_hash: str, states: list[WidgetState],
            found: dict[str, Widget]) -> list[ForwardMsg]:
    """The same raw client and the same forged press with the facilitator's cookie."""
    cookies = cookies_of(room["fctx"])
    assert FACILITATOR_COOKIE in cookies
    with RawClient(app["url"], cookies) as raw:
        first = raw.send(rerun(f"run={room['run_id']}", script_hash))
        assert {s.id for s in states} - {_make_trigger_id(w, "events") for w in found} <= set(widgets(first)), \
            "the facilitator's raw session did not draw the widget the control presses"
        return raw.send(rerun(f"run={room['run_id']}", script_hash, states))


def test_forged_facilitator_presses_on_the_wire_do_nothing_but_the_same_frames_work_for_the_facilitator(
        room: dict[str, Any], network_app: dict[str, Any]) -> None:
    app, run_id, db, cid = network_app, room["run_id"], network_app["db"], room["contribution"]
    with recording_server() as (attacker, seen):
        # 1. paused in review: the review form, the room list (accept …), Close workshop, the sidebar
        found, script_hash, fac_msgs = attack(app, room, seen, attacker, [
            "Continue unchanged", "Apply edits and continue", "Cancel run", "Close workshop", "Base URL",
            "Test connection", "room_list"])
        # control: the facilitator's own browser (its cookies) still gets its session back by id, as on a reconnect
        with RawClient(app["url"], cookies_of(room["fctx"]), session_id=session_of(fac_msgs)) as raw:
            back = raw.send(rerun(f"run={run_id}", script_hash))
            assert raw.session_ids == {session_of(fac_msgs)} and one(widgets(back), "Continue unchanged")
        # control: the facilitator's cookie, the same forged accept and Continue unchanged
        accept = [WidgetState(id=_make_trigger_id(one(found, "room_list", "bidi_component").id, "events"),
                              json_trigger_value=json.dumps([{"event": "act", "value": f"accept:{cid}"}]))]
        control(app, room, script_hash, accept, found)
        wait_store(db, lambda s: any(e.get("kind") == "decide" for e in s.workshop_events(run_id)),
                   "the forged accept recorded")
        calls = len(app["fake"].requests)
        control(app, room, script_hash, press(one(found, "Continue unchanged")), found)
        wait_store(db, lambda s: state(s, run_id) == State.BETWEEN_ROUNDS, "the run continued to round 1's end")
        assert len(app["fake"].requests) > calls

        # 2. between rounds: the workshop's Continue with the accepted contribution
        found, script_hash, _ = attack(app, room, seen, attacker, ["accepted contribution"])
        control(app, room, script_hash, press(one(found, "accepted contribution")), found)
        wait_store(db, lambda s: state(s, run_id) == State.COMPLETED, "the run continued to its report")

        # 3. after the report: Reveal
        found, script_hash, _ = attack(app, room, seen, attacker, ["Reveal predictions"])
        control(app, room, script_hash, press(one(found, "Reveal predictions")), found)
        wait_store(db, lambda s: whatif.load_workshop(run_id, store=s).revealed, "the forged reveal recorded")

        # the forged Base URL with Test connection: the facilitator's session does call the typed server (the
        # forging of a text field works), and without the configured key
        found = widgets(facilitator_sees(room["fctx"], app["url"], run_id, ["Base URL", "Test connection"]))
        sidebar = press(one(found, "Base URL", "text_input"), attacker=attacker) + press(one(found, "Test connection"))
        control(app, room, script_hash, sidebar, found)
        assert seen, "the facilitator's forged Test connection never reached the typed server"
        assert all(KNOWN_KEY not in r for r in seen), "the configured key reached the typed server"

