"""The Settings page's list of signed-in facilitator browsers, with "sign out this browser" and "sign out
everyone" (:mod:`ifworld.signin`)."""

from __future__ import annotations

import time

import streamlit as st

from ifworld import access
from ifworld.access import signin
from ui.common import store
from ui.identity import forget_session, is_facilitator


def _ago(t: float) -> str:
    minutes = int((time.time() - t) // 60)
    return f"{minutes // 60} h {minutes % 60} min ago" if minutes >= 60 else f"{minutes} min ago"


def signin_sessions_panel() -> None:
    """Every live sign-in session; this browser's is marked and can be ended, as can all of them."""
    st.subheader("Signed-in facilitator browsers")
    if not is_facilitator():
        return
    try:
        mine = st.context.cookies.get(access.FACILITATOR_COOKIE)
    except Exception:  # noqa: BLE001 — no request context (bare mode)
        mine = None
    mine = mine if isinstance(mine, str) else None
    current = signin.session_id_of(mine) if mine else ""
    sessions = signin.list_sessions(store())
    if not sessions:
        st.caption("No browser is signed in with the link (in loopback mode this computer's browsers need none).")
    else:
        st.dataframe([{"browser": s.browser or "—", "signed in": _ago(s.created),
                       "expires in": f"{max(0, int((s.expires - time.time()) // 3600))} h",
                       "this browser": "✓" if s.id == current else ""} for s in sessions], hide_index=True)
    left, right = st.columns(2)
    if current and left.button("Sign out this browser", key="settings_signout_me"):
        signin.end_session(store(), mine)
        forget_session(mine)
        st.rerun()
    if sessions and right.button("Sign out everyone", key="settings_signout_all", type="primary"):
        signin.end_all_sessions(store())
        forget_session(mine)
        st.rerun()
    st.caption("A session ends when it expires (12 h), with `/signout`, here, or for everyone with "
               "`ifworld app signin-link --rotate` (a new token; the old link stops working).")
