"""IF-World Studio — entry point: a router over app_pages/ plus the shared sidebar.

The folder is not called ``pages/``: Streamlit would also serve those files on their own at direct links,
skipping this router and its sidebar.
"""

import streamlit as st

from ifworld.runs import StoreError
from ui.common import init_state, sidebar, store_problem
from ui.not_found import show_not_found, unknown_page
from ui.warmup import start_warmup

st.set_page_config(page_title="IF-World Studio", page_icon="🌍", layout="wide")
start_warmup()
init_state()

PAGES = {
    "": [st.Page("app_pages/home.py", title="Home", icon="🏠", default=True)],
    "What-if scenarios": [
        st.Page("app_pages/whatif.py", title="What-if", icon="🌋", url_path="whatif"),
        st.Page("app_pages/causal_map.py", title="Causal map", icon="🕸️", url_path="causal_map"),
        st.Page("app_pages/runs.py", title="Runs", icon="🗂️", url_path="runs"),
        st.Page("app_pages/join.py", title="Join a workshop", icon="👥", url_path="join"),
    ],
    "Reasoning With a Star": [
        st.Page("app_pages/rws_browse.py", title="RWS browse", icon="☀️", url_path="rws_browse"),
        st.Page("app_pages/rws_benchmark.py", title="RWS benchmark", icon="📊", url_path="rws_benchmark"),
    ],
    "Belief exchange": [
        st.Page("app_pages/beliefs.py", title="Belief exchange", icon="🗣️", url_path="beliefs"),
        st.Page("app_pages/belief_sweep.py", title="Belief sweep", icon="🧪", url_path="belief_sweep"),
    ],
    "Settings": [st.Page("app_pages/settings.py", title="About & settings", icon="⚙️", url_path="settings")],
}

sidebar()
page = st.navigation(PAGES)
missing = unknown_page(PAGES)
try:
    if missing is not None:  # the router fell back to Home without a word: say the address was wrong
        show_not_found(missing, PAGES)
    else:
        page.run()
except StoreError as exc:  # disk full, read-only or corrupt store mid-page: say so, keep the app usable
    store_problem(exc)
