"""The sidebar's model connection survives a reload: the facilitator's Base URL and model name are saved in the
run store when they change (:mod:`ifworld.saved_connection`, which checks the role and never takes the key) and
fill the sidebar's empty fields when a new browser session starts."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import streamlit as st

from ifworld.access import AccessDenied
from ifworld.toolkit import ConfigError, StoreError, save_connection, saved_connection
from ui.identity import caller, is_facilitator

NOTICE = "conn_notice"


def restore(open_store: Callable[[], Any], where: str) -> None:
    """Once per browser session, for the facilitator: the saved values fill the fields left empty. ``where`` is
    the store's file or URL: a SQLite file that does not exist holds nothing, and is not created just to look."""
    ss = st.session_state
    if ss.get("conn_restored") or not is_facilitator():
        return
    ss["conn_restored"] = True
    if not where.startswith("postgresql") and not Path(where).exists():
        return
    try:
        saved = saved_connection(open_store())
    except StoreError:  # a store that cannot be read holds nothing to restore; the pages that use it say why
        return
    for field, value in (("conn_base_url", saved.base_url), ("conn_model", saved.model)):
        if value and not ss.get(field):
            ss[field] = value


def remember(open_store: Callable[[], Any]) -> None:
    """On a change of the Base URL or the model (a callback): save them; a refusal is shown, not raised."""
    ss = st.session_state
    try:
        save_connection(open_store(), caller(), str(ss.get("conn_base_url") or ""), str(ss.get("conn_model") or ""))
    except (ConfigError, AccessDenied) as exc:
        ss[NOTICE] = str(exc)
