"""IF-World Studio — entry point: a router over app_pages/ plus the shared sidebar.

The folder is not called ``pages/``: Streamlit would also serve those files on their own at direct links,
skipping this router and its sidebar.

Who is who is decided first (:mod:`ui.identity`): the facilitator gets every page and the sidebar (model
connection, run store); anyone else — a participant or a visitor — gets no sidebar and no navigation, and
every page's address answers that it is for the facilitator and draws nothing else (so no widget of it exists
in that session to be pressed). Participants take part on the phone page (``/p/``, :mod:`ui.phone_server`), which
the app's server serves beside this script.
"""

import streamlit as st

from ifworld.runs import StoreError
from ui.common import init_state, reconnecting, store_problem
from ui.connection_view import sidebar
from ui.identity import for_facilitator_only, is_facilitator, phone_page_link
from ui.not_found import show_not_found, unknown_page
from ui.warmup import start_warmup

st.set_page_config(page_title="IF-World Studio", page_icon="🌍", layout="wide")
# Captions carry the charts' words and most notes: Streamlit draws them at 14 px, under the 16 px that is 28 px on a
# projector zoomed to 175 % (docs/accessibility.md, "Legible on a projector"). A style-only block takes no space.
# A link shown as code (the join link, a run's link) wraps anywhere on a narrow screen: a box that scrolls sideways
# without a control in it cannot be scrolled from the keyboard (axe: scrollable-region-focusable).
st.html("<style>[data-testid='stCaptionContainer'] { font-size: 1rem; } "
        "[data-testid='stCode'] code { overflow-wrap: anywhere; }</style>")
start_warmup()
init_state()

PAGES = {
    "": [st.Page("app_pages/home.py", title="Home", icon="🏠", default=True)],
    "What-if scenarios": [
        st.Page("app_pages/whatif.py", title="What-if", icon="🌋", url_path="whatif"),
        st.Page("app_pages/causal_map.py", title="Causal map", icon="🕸️", url_path="causal_map"),
        st.Page("app_pages/runs.py", title="Runs", icon="🗂️", url_path="runs"),
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


def room_pages(pages: dict[str, list]) -> dict[str, list]:
    """The same addresses for a participant or visitor, each page (the home address too) replaced by a notice that
    it is for the facilitator, with a link to the phone page."""
    out: dict[str, list] = {}
    for section, items in pages.items():
        out[section] = []
        for page in items:
            title = page.title

            def notice(title: str = title) -> None:
                for_facilitator_only(title)
            notice.__name__ = f"facilitator_only_{page.url_path or 'home'}"
            home = not page.url_path  # the default page has the empty address
            out[section].append(st.Page(notice, title=title, icon=page.icon, url_path=page.url_path or "home",
                                        default=home))
    return out


if is_facilitator():
    sidebar()
    # One flat list: Streamlit's sectioned sidebar navigation puts section headers inside its <ul>, which screen
    # readers cannot follow (axe: list, listitem — docs/accessibility.md); the flat list has no such markup.
    page = st.navigation([p for section in PAGES.values() for p in section])
    missing = unknown_page(PAGES)
else:
    shown = room_pages(PAGES)
    page = st.navigation(shown, position="hidden")
    missing = unknown_page(shown)
try:
    if missing is not None:  # the router fell back to Home without a word: say the address was wrong
        show_not_found(missing, PAGES if is_facilitator() else {})
        if not is_facilitator():
            phone_page_link()
    else:
        page.run()
except StoreError as exc:  # disk full, read-only or corrupt store mid-page: say so, keep the app usable
    store_problem(exc) if is_facilitator() else reconnecting()  # never the store's address to the room
