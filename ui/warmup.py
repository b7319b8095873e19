"""Import what the pages need in the background once the server process starts.

A page's first visit in a fresh server process paid its imports — pandas, Plotly, LangGraph, the engines and
their views: 5–8 s of the Runs page's 8.3 s on the 2-core machine, against 0.17 s once imported. Python
imports a module once per process, so one background thread started at the first session imports the page
modules while the visitor reads Home; the import lock makes a page that needs a module mid-import wait for
it rather than import it twice. Only under a Streamlit server, and not with ``IFWORLD_WARMUP=0`` (the tests set
it: AppTest runs pages inside the test process, where an import thread would only compete with the next test).
"""

from __future__ import annotations

import importlib
import os
import threading

import streamlit as st

PAGE_MODULES = (
    "pandas", "plotly.graph_objects", "networkx",
    "ifworld.whatif", "ifworld.beliefs", "ifworld.rws", "ifworld.runs",
    "ui.runs_view", "ui.whatif_view", "ui.whatif_session", "ui.deliberation_view", "ui.live_view",
    "ui.beliefs_view", "ui.rws_view",
)
"""Roughly in the order a visit needs them; the heavy libraries first, so every later module finds them loaded."""


def warm_imports(modules: tuple[str, ...] = PAGE_MODULES) -> list[str]:
    """Import ``modules``; returns those that failed (an optional extra missing is not this thread's problem:
    the page that needs it reports it)."""
    failed = []
    for name in modules:
        try:
            module = importlib.import_module(name)
            for attr in getattr(module, "__all__", ()):  # lazy front doors: load what they point to as well
                getattr(module, attr)
        except Exception:  # noqa: BLE001 — a warm-up must never break the app
            failed.append(name)
    return failed


@st.cache_resource(show_spinner=False)
def start_warmup() -> threading.Thread | None:
    """Once per server process: the import thread (daemon, so it never holds the server at shutdown); None
    when ``IFWORLD_WARMUP=0`` or when no Streamlit server runs the script."""
    if os.environ.get("IFWORLD_WARMUP", "1") == "0" or not st.runtime.exists():  # no server: nobody to warm for
        return None
    thread = threading.Thread(target=warm_imports, name="ifworld-warmup", daemon=True)
    thread.start()
    return thread
