"""The facilitator's workshop panel on the What-if page: the code and QR to project, the room live, decisions.

Renders from the store inside a fragment that redraws as soon as the room changes (the room's pulse,
:mod:`ui.room_pulse`) and every second besides (:data:`REFRESH_S`), so two app processes on one store file show
the same room. Every action passes this session's caller (:func:`ui.identity.caller`) to the
engine, which refuses anyone but the facilitator; the page is drawn for the facilitator only, and nothing on it
signs anyone in (the projector shows the code, the join link and the QR code).
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from ifworld import whatif
from ifworld.access import AccessDenied
from ifworld.toolkit import WorkshopError
from ifworld.whatif import NO_GROUND_TRUTH, SessionError, State, Workshop
from ui import phone_server, room_pulse
from ui.common import current_settings, show_error, store
from ui.identity import caller
from ui.join_card import join_card, join_link
from ui.room_list import room_list
from ui.workshop_roster import roster_panel
from ui.workshop_rows import (
    AFTER_REPORT_ACTIONS,
    ENDED,
    FACILITATOR_ACTIONS,
    already_done,
    facilitator_rows,
    kind_heading,
)

REFRESH_S = 1.0  # the room redrawn on a timer too: the pulse's fallback (a proxy holding it back) and the heartbeat
STALL_S = 20.0  # no redraw of the room for this long (20 missed): the page reloads itself (ui/room_list.py)
PAGE_ROWS = 150
"""Rows per kind before "Show more": a class (30 people × a few contributions) sees all of theirs, and a flooded
room (thousands of contributions) stays one quick page."""


def _act(fn: Any, run_id: str, *args: Any, **kwargs: Any) -> None:
    """Run a facilitator action from a button, as this session's caller (the engine checks the role); a refusal
    is shown, not raised."""
    try:
        fn(run_id, caller(), *args, store=store(), **kwargs)
    except (WorkshopError, SessionError, AccessDenied) as exc:
        st.session_state["workshop_notice"] = str(exc)


# -- facilitator ---------------------------------------------------------------------------------------------
def facilitator_panel(run_id: str, state: State) -> bool:
    """The workshop part of the What-if page; True when the workshop drives the between-rounds continue (the
    page then hides its own one-person contribution form)."""
    if state == State.DRAFT:
        return False
    if not whatif.has_workshop(run_id, store=store()):
        if state in whatif.RUNNING | whatif.PAUSED and not phone_server.SERVED:  # no page the room could open
            st.caption("👥 A workshop lets the room join from their phones; their page is served by the app's own "
                       "server. Start the app with `ifworld app` (or `bash scripts/app.sh`) to open one.")
        elif state in whatif.RUNNING | whatif.PAUSED and st.button("👥 Open workshop", key="workshop_open",
                     help="Let the people in the room join from their phones: a link, a short code and a QR code."):
            try:
                whatif.open_workshop(run_id, caller=caller(), store=store())
            except (WorkshopError, AccessDenied) as exc:
                show_error(str(exc))
                return False
            st.rerun()
        return False
    ws = whatif.load_workshop(run_id, store=store())
    st.session_state["workshop_fac_seen"] = state.value
    with st.expander(f"👥 Workshop · code **{ws.code}** · {ws.status}", expanded=state != State.COMPLETED):
        join_card(ws, lambda: _act(whatif.close_workshop, run_id))
    roster_panel(ws, run_id, join_link(ws.token), f"Workshop {ws.code}")  # not nested: expanders cannot be
    _room(run_id)
    return ws.status == "open"


@st.fragment(run_every=REFRESH_S)
def _room(run_id: str) -> None:
    """The room, live: who joined, predictions, contributions by kind and votes with the facilitator's decisions.

    Every facilitator action is pressed inside this fragment, so it reruns the fragment alone: a full-app rerun
    (Streamlit's fast reruns stop the running script) would drop a click queued behind it. Each kind's rows are
    one element (:mod:`ui.room_list`) and the editor is drawn only while one row is edited: the fragment redraws
    every second for a room of 30 and more."""
    s = store()  # once per redraw: each call reads the settings
    ws = whatif.load_workshop(run_id, store=s)
    session = whatif.load_session(run_id, s)
    if st.session_state.get("workshop_fac_seen") != session.state.value:
        st.rerun(scope="app")  # the run moved on (continued, paused, finished): the page draws the new state
    # the heartbeat: an empty list that the page watches — a room left undrawn this long reloads the page — and
    # that redraws this fragment as soon as the room changes (ui/room_pulse.py), when the app's server serves it
    room_list([], key="workshop_watch", on_press=lambda pairs: [], watch=STALL_S,
              pulse=room_pulse.pulse_url(run_id) if phone_server.SERVED else None)
    notice = st.session_state.pop("workshop_notice", None)
    if notice:
        show_error(notice, st.warning)
    st.markdown(f"**{len(ws.participants)} participant(s)** · {len(ws.predictions)} prediction(s) · "
                f"{len(ws.contributions)} contribution(s) · {len(ws.votes)} vote(s)")
    names = ws.display_names()
    if ws.participants:
        st.text("Joined: " + ", ".join(names[p.id] for p in ws.participants))
    for group, people in ws.held_groups().items():
        st.warning(f"{len(people)} more people joined from one device or connection within a minute: their +1s "
                   "wait for you. Allow them if they are really different people.", icon="✋")
        st.text("Waiting: " + ", ".join(names[p.id] for p in people))
        st.button(f"Allow these {len(people)}", key=f"workshop_allow_{group}", on_click=_act,
                  args=(whatif.allow_participants, run_id, [p.id for p in people]))
    if session.state == State.COMPLETED:
        _reveal_panel(run_id, ws)
    contributions = ws.by_votes(include_hidden=True)
    rounds_left = session.state not in ENDED  # after the report, accepting would go nowhere
    undecided = [c for c in _shown(contributions) if not c.sent_round and not c.hidden and c.decision is None]
    with st.container(horizontal=True):
        if session.state == State.BETWEEN_ROUNDS and ws.status == "open":
            st.button(continue_label(len(ws.pending())), key="workshop_continue", type="primary",
                      on_click=_continue, args=(run_id,),
                      help="The accepted contributions enter the next round's shared frame, each with its author.")
        if rounds_left and ws.status == "open" and undecided:
            st.button(f"✅ Accept all {len(undecided)} undecided shown", key="workshop_accept_all",
                      on_click=_accept_all, args=(run_id, [c.id for c in undecided]),
                      help="Accepts every contribution listed below that has no decision yet (hidden ones stay out).")
    editing = st.session_state.get("workshop_editing") if rounds_left else None
    for kind in whatif.KINDS:
        mine = [c for c in contributions if c.kind == kind]
        if mine:
            st.markdown(f"#### {kind_heading(kind, len(mine))}")
            _kind_list(run_id, ws, kind, mine, editing, rounds_left)


def continue_label(accepted: int) -> str:
    """The main button says what it will do: the number it carries, or that it carries nothing from the room."""
    if accepted == 0:
        return "▶️ Continue with no room contributions"
    return f"▶️ Continue with {accepted} accepted contribution{'s' if accepted != 1 else ''}"


def _shown(contributions: list[whatif.Contribution]) -> list[whatif.Contribution]:
    """The rows each kind's list shows now (its first pages, :func:`_kind_list`)."""
    return [c for kind in whatif.KINDS
            for c in [c for c in contributions if c.kind == kind][:int(st.session_state.get(f"workshop_page_{kind}",
                                                                                             PAGE_ROWS))]]


def _accept_all(run_id: str, ids: list[str]) -> None:
    """Accept the shown undecided contributions one by one through the engine (each checked there); one refused
    (decided meanwhile, the workshop closed) stops nothing else and is named in the notice."""
    s = store()
    refused = []
    for cid in ids:
        try:
            whatif.decide(run_id, caller(), cid, "accept", store=s)
        except (WorkshopError, SessionError, AccessDenied) as exc:
            refused.append(str(exc))
    if refused:
        st.session_state["workshop_notice"] = f"{len(refused)} not accepted: {refused[0]}"


def _kind_list(run_id: str, ws: Workshop, kind: str, mine: list[whatif.Contribution], editing: str | None,
               rounds_left: bool) -> None:
    """One kind's rows, most voted first, :data:`PAGE_ROWS` at a time (a flooded room stays one quick page);
    the editor opens in place of the row being edited, between the rows above and below it."""
    shown = int(st.session_state.get(f"workshop_page_{kind}", PAGE_ROWS))
    page = mine[:shown]
    at = next((i for i, c in enumerate(page) if c.id == editing), None)
    parts = [(page, "")] if at is None else [(page[:at], ""), (page[at + 1:], "_below")]
    for n, (rows, suffix) in enumerate(parts):
        if rows:
            room_list(facilitator_rows(rows, ws, editing, rounds_left=rounds_left),
                      key=f"workshop_list_{kind}{suffix}",
                      on_press=lambda pairs: _facilitator_press(run_id, pairs, rounds_left))
        if n == 0 and at is not None:
            _editor(run_id, ws, page[at].id)
    if len(mine) > shown:
        st.button(f"Show {min(PAGE_ROWS, len(mine) - shown)} more of {len(mine) - shown} not shown",
                  key=f"workshop_more_{kind}", on_click=_more, args=(kind, shown + PAGE_ROWS))


def _more(kind: str, rows: int) -> None:
    st.session_state[f"workshop_page_{kind}"] = rows


def _facilitator_press(run_id: str, pairs: list[tuple[str, str]], rounds_left: bool) -> list[str]:
    """Carry out the facilitator's presses in a list (accept, reject, hide, show, edit), skipping those already
    in effect; returns the refused ones, whose reason is the notice. After the report only hide and show remain."""
    s = store()
    by_id = {c.id: c for c in whatif.load_workshop(run_id, store=s).contributions}
    refused = []
    for name, cid in pairs:
        c = by_id.get(cid)
        if c is None or name not in (FACILITATOR_ACTIONS if rounds_left else AFTER_REPORT_ACTIONS):
            refused.append(f"{name}:{cid}")
            continue
        if name == "edit":
            _start_editing(cid)
            continue
        if already_done(c, name):
            continue
        try:
            if name in ("hide", "show"):
                whatif.hide_contribution(run_id, caller(), cid, name == "hide", store=s)
            else:
                whatif.decide(run_id, caller(), cid, name, store=s)
        except (WorkshopError, SessionError, AccessDenied) as exc:
            st.session_state["workshop_notice"] = str(exc)
            refused.append(f"{name}:{cid}")
    return refused


def _start_editing(contribution_id: str) -> None:
    st.session_state["workshop_editing"] = contribution_id


def _editor(run_id: str, ws: Workshop, contribution_id: str) -> None:
    """Edit one contribution's text, optionally merging others into it; saving accepts it. A form: what the
    facilitator types is kept through the fragment's redraws until they save or cancel."""
    c = next((c for c in ws.contributions if c.id == contribution_id and not c.sent_round), None)
    if c is None or ws.status != "open":  # it went into a round, or the workshop closed, meanwhile
        _stop_editing()
        return
    others = {o.id: o for o in ws.by_votes() if o.id != c.id and not o.sent_round}
    with st.container(border=True, key="workshop_editor"):
        st.markdown("**✏️ Editing a contribution**")
        st.text(f"{c.name}: {c.text}")
        with st.form(f"workshop_edit_{c.id}", border=False):
            st.text_area("Text the panel will see", c.final_text, key=f"we_t_{c.id}",
                         max_chars=whatif.MAX_ROOM_TEXT_CHARS)
            st.multiselect("Merge these into it (optional; each stays in the record, marked merged)", list(others),
                           key=f"we_m_{c.id}", format_func=lambda oid: _short(others[oid]))
            with st.container(horizontal=True):
                st.form_submit_button("💾 Save and accept", type="primary", on_click=_save_edit,
                                      args=(run_id, c.id))
                st.form_submit_button("Cancel", on_click=_stop_editing)


def _short(c: whatif.Contribution) -> str:
    return f"+{c.votes} {c.name}: {c.final_text[:70]}"


def _save_edit(run_id: str, contribution_id: str) -> None:
    text = st.session_state.get(f"we_t_{contribution_id}", "")
    merge_with = list(st.session_state.get(f"we_m_{contribution_id}") or [])
    _act(whatif.decide, run_id, contribution_id, "merge" if merge_with else "edit", text=text,
         merge_with=merge_with)
    if "workshop_notice" not in st.session_state:
        _stop_editing()


def _stop_editing() -> None:
    st.session_state.pop("workshop_editing", None)


def _continue(run_id: str) -> None:
    """Ask the engine to continue (it checks the role and the contributions, then drives the run itself)."""
    try:
        whatif.continue_workshop(run_id, caller(), store=store(), settings=current_settings())
    except (WorkshopError, SessionError, AccessDenied) as exc:
        st.session_state["workshop_notice"] = str(exc)


def _reveal_panel(run_id: str, ws: Workshop) -> None:
    st.info(f"🔍 {NO_GROUND_TRUTH}")
    if not ws.revealed:
        st.button("🔍 Reveal predictions to the room", key="workshop_reveal", on_click=_act,
                  args=(whatif.reveal_workshop, run_id))
    record = store().get_run(run_id).record or {}
    rows = whatif.compare_room(ws, record.get("report"), record.get("scenario"))
    if rows:
        st.markdown("**The room against the panel** (largest gap first)")
        st.dataframe(whatif.reveal_table(rows), hide_index=True)
        st.caption("Variants are matched by id (V1, V2, … fixed at the review). — : no figure (nobody predicted "
                   "on the panel's own branch, or the panel gave a variant none).")


