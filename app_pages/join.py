"""Join: take part in a workshop from a phone or laptop — by link (``?w=TOKEN``) or by the short code.

A participant is who their device is (:func:`ui.identity.device_key`): a reload, a second tab or an app restart
finds the same participant again from the join link, so one person keeps one name and one vote.
"""

import secrets
from collections.abc import Callable

import streamlit as st

from ifworld import whatif
from ifworld.toolkit import WorkshopError
from ui.common import participant_store, show_error, store
from ui.identity import JOINED, client_address, device_key
from ui.workshop_roster import PERSONAL_PARAM
from ui.workshop_view import participant_view

ss = st.session_state
ss.setdefault("join_client", secrets.token_hex(8))  # this browser session, for the wrong-code limit
if PERSONAL_PARAM in st.query_params:  # a card's QR link: the code fills the field, and leaves the address bar
    ss["join_personal_text"] = str(st.query_params.pop(PERSONAL_PARAM))[:20]


def clients() -> list[str]:
    """Keys the limits count under: this browser session and its address (:func:`ui.identity.client_address`)."""
    ip = client_address()
    return [f"session:{ss['join_client']}", *([f"ip:{ip}"] if ip else [])]


def find() -> whatif.Workshop | None:
    token = st.query_params.get("w")
    if token:
        try:
            return whatif.find_by_token(token, store=store())
        except WorkshopError as exc:
            show_error(str(exc))
            st.query_params.pop("w", None)
    with st.form("join_code"):
        code = st.text_input("Workshop code", max_chars=12, key="join_code_text", placeholder="e.g. K7QX3M")
        go = st.form_submit_button("Find the workshop", type="primary")
    if go:
        try:
            ws = whatif.find_by_code(code, clients(), store=store())
        except WorkshopError as exc:
            show_error(str(exc))
            return None
        st.query_params["w"] = ws.token
        return ws
    return None


def remember(ws: whatif.Workshop, person: whatif.Participant, key: str) -> None:
    ss[JOINED] = {"run_id": ws.run_id, "token": ws.token, "id": person.id, "key": key, "name": person.name}


def join(ws: whatif.Workshop, joiner: Callable[..., tuple[whatif.Participant, str]], given: str) -> None:
    """Join by a name (``whatif.join_workshop``) or a personal code (``whatif.join_with_code``) from this device;
    a refusal is shown and the form keeps what was typed."""
    try:
        person, key = joiner(ws.token, given, device_key=device_key(), clients=clients(), store=store())
    except WorkshopError as exc:
        show_error(str(exc))
    else:
        remember(ws, person, key)
        st.rerun()


def join_form(ws: whatif.Workshop) -> None:
    st.text(f"Workshop for: {whatif.load_session(ws.run_id, store()).proposition}")
    with st.form("join_name"):
        name = st.text_input("Your display name", max_chars=whatif.MAX_NAME_CHARS, key="join_name_text")
        st.caption(f"Use {whatif.NAME_CHARS_HELP}; the facilitator sees it beside what you send.")
        if st.form_submit_button("Join", type="primary"):
            join(ws, whatif.join_workshop, name)


def roster_form(ws: whatif.Workshop) -> None:
    """A roster room: the student gives their personal code, never a name (the roster's name is theirs)."""
    st.text(f"Workshop for: {whatif.load_session(ws.run_id, store()).proposition}")
    with st.form("join_personal"):
        code = st.text_input("Your personal code", max_chars=20, key="join_personal_text",
                             placeholder="the code on your card, e.g. K7QX3MPA")
        st.caption("This workshop uses the facilitator's class list: your code signs you in under your own name.")
        if st.form_submit_button("Join", type="primary"):
            join(ws, whatif.join_with_code, code)


with participant_store():  # an unreachable store: "reconnecting" within 2 s, never the server's details
    me = ss.get(JOINED)
    if me and whatif.participant_for(me["run_id"], me["key"], store=store()) is None:
        ss.pop(JOINED)  # the facilitator released this device's personal code, or made new codes
        me = None
    if me and st.query_params.get("w") in (None, me["token"]):
        participant_view(me["run_id"], me)
    else:
        st.title("👥 Join a workshop")
        st.caption("No account needed: give the code shown by the facilitator (or open their link), then a display "
                   "name.")
        ws = find()
        if ws is not None:
            key = device_key()
            known = whatif.participant_for(ws.run_id, key, store=store())
            if known is not None:  # this device joined before (a reload, another tab, an app restart)
                remember(ws, known, key)
                st.rerun()
            elif ws.status != "open":
                st.warning("This workshop is closed; it accepts nothing more.")
            elif ws.is_roster:
                roster_form(ws)
            else:
                join_form(ws)
