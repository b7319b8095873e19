"""The facilitator's roster panel (optional roster mode, :mod:`ifworld.whatif.workshop_roster`): paste a class
list, make one personal code per student, print the sheet of cards, release a student's code for a new phone.

The plain codes exist once — in what :func:`ifworld.whatif.set_roster` returns — so this session keeps them
(``workshop_roster_codes``) to show and print; the store holds their hashes only. Another browser, or this one
after its session ended, sees who joined but no codes: it makes new ones. Every press goes to the engine with
this session's caller, which refuses anyone but the facilitator.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from ifworld import whatif
from ifworld.access import AccessDenied
from ifworld.toolkit import WorkshopError
from ui.common import show_error, store
from ui.identity import caller
from ui.roster_sheet import sheet_html

CODES = "workshop_roster_codes"
"""Session key: {"run_id", "codes": [{id, name, code}]} — the codes this session made, for the table and sheet."""
PERSONAL_PARAM = "personal"
"""The join link's query parameter carrying a personal code (the phone page fills its field with it)."""


def personal_link(join_link: str, code: str) -> str:
    return f"{join_link}&{urlencode({PERSONAL_PARAM: code})}"


def _make(run_id: str) -> None:
    names = str(st.session_state.get("workshop_roster_text") or "").splitlines()
    try:
        made = whatif.set_roster(run_id, caller(), names, store=store())
    except (WorkshopError, AccessDenied) as exc:
        st.session_state["workshop_roster_notice"] = str(exc)
        return
    st.session_state[CODES] = {"run_id": run_id, "codes": [c.model_dump() for c in made]}


def _release(run_id: str) -> None:
    who = st.session_state.get("workshop_roster_release")
    try:
        whatif.release_code(run_id, caller(), str(who or ""), store=store())
    except (WorkshopError, AccessDenied) as exc:
        st.session_state["workshop_roster_notice"] = str(exc)


def roster_panel(ws: whatif.Workshop, run_id: str, join_link: str, title: str) -> None:
    """The "Roster (optional)" expander under the join card."""
    with st.expander("📋 Roster (optional)" + (f" · {len(ws.roster)} names" if ws.is_roster else ""),
                     expanded=False):
        notice = st.session_state.pop("workshop_roster_notice", None)
        if notice:
            show_error(notice, st.warning)
        st.caption("Paste the class list, one name per line. Each student gets a personal code and a QR code to "
                   "hand out; the room then takes only those codes, one device each, and the names come from "
                   "this list. " + ("Making codes again replaces every code: old cards stop working."
                                    if ws.is_roster else "People who already joined keep their place."))
        if ws.status == "open":
            st.text_area("Class list", key="workshop_roster_text", height=150, placeholder="Ada Lovelace\nBo Chen")
            st.button("🔑 Make personal codes", key="workshop_roster_make", on_click=_make, args=(run_id,))
        kept = st.session_state.get(CODES) or {}
        codes = [whatif.RosterCode(**c) for c in kept.get("codes", [])] if kept.get("run_id") == run_id else []
        if ws.is_roster:
            _status(ws, run_id, codes, join_link, title)


def _status(ws: whatif.Workshop, run_id: str, codes: list[whatif.RosterCode], join_link: str, title: str) -> None:
    by_id = {c.id: c.code for c in codes}
    current = codes and all(e.id in by_id for e in ws.roster)  # this session made the roster in force
    table: dict[str, Any] = {"name": [e.name for e in ws.roster], "joined": ["✓" if e.joined else "—"
                                                                            for e in ws.roster]}
    if current:
        table["personal code"] = [by_id[e.id] for e in ws.roster]
        sheet = sheet_html(codes, lambda code: personal_link(join_link, code), room_code=ws.code, title=title)
        st.download_button("⬇️ Printable sheet of cards (HTML)", sheet, file_name=f"personal-codes-{ws.code}.html",
                           mime="text/html", key="workshop_roster_sheet",
                           help="One card per student: name, personal code and a QR code of their own join link.")
    else:
        st.caption("The codes are shown once, in the browser that made them; to print cards again, make new codes.")
    st.dataframe(pd.DataFrame(table), hide_index=True, key="workshop_roster_table")
    joined = [e.name for e in ws.roster if e.joined]
    if joined and ws.status == "open":
        with st.container(horizontal=True, vertical_alignment="bottom"):
            st.selectbox("A student's phone died? Release their code", joined, key="workshop_roster_release",
                         help="Signs out the device holding the code; the next device to use it is the same "
                              "participant (same name, prediction, votes and contributions).")
            st.button("Release", key="workshop_roster_release_go", on_click=_release, args=(run_id,))
