"""IF-World Studio — entry point: a router over pages/ plus the shared sidebar."""

import streamlit as st

from ui.common import init_state, sidebar

st.set_page_config(page_title="IF-World Studio", page_icon="🌍", layout="wide")
init_state()

PAGES = {
    "": [st.Page("pages/home.py", title="Home", icon="🏠", default=True)],
    "What-if scenarios": [
        st.Page("pages/whatif.py", title="What-if", icon="🌋", url_path="whatif"),
        st.Page("pages/causal_map.py", title="Causal map", icon="🕸️", url_path="causal_map"),
        st.Page("pages/runs.py", title="Runs", icon="🗂️", url_path="runs"),
    ],
    "Reasoning With a Star": [
        st.Page("pages/rws_browse.py", title="RWS browse", icon="☀️", url_path="rws_browse"),
        st.Page("pages/rws_benchmark.py", title="RWS benchmark", icon="📊", url_path="rws_benchmark"),
    ],
    "Belief exchange": [
        st.Page("pages/beliefs.py", title="Belief exchange", icon="🗣️", url_path="beliefs"),
        st.Page("pages/belief_sweep.py", title="Belief sweep", icon="🧪", url_path="belief_sweep"),
    ],
    "Settings": [st.Page("pages/settings.py", title="About & settings", icon="⚙️", url_path="settings")],
}

sidebar()
page = st.navigation(PAGES)
page.run()
