"""The "page not found" view: an unknown address such as ``/belief_exchange`` would otherwise show Home without a
word (Streamlit's router falls back to the default page silently), so the user never learns the link was wrong."""

from __future__ import annotations

from urllib.parse import unquote, urlparse

import streamlit as st
from streamlit.navigation.page import StreamlitPage


def requested_path(url: str | None, base: str) -> str:
    """The page part of the browser's address (``st.context.url``, whose page part Streamlit already removed
    when it names a known page), without the server's base path; "" for the app's root."""
    path = unquote(urlparse(url or "").path).strip("/")
    base = base.strip("/")
    if base and (path == base or path.startswith(base + "/")):
        path = path[len(base):].strip("/")
    return path


def unknown_page(pages: dict[str, list[StreamlitPage]]) -> str | None:
    """The requested page's name when no page has that address, else None. Outside a Streamlit server — a bare
    run of the script, such as a worker process started with "spawn" re-running the parent's ``__main__``
    after a page test — there is no router and no address: None."""
    if not st.runtime.exists():
        return None
    path = requested_path(st.context.url, st.get_option("server.baseUrlPath") or "")
    known = {p.url_path for group in pages.values() for p in group}
    return path if path and path not in known else None


def show_not_found(path: str, pages: dict[str, list[StreamlitPage]]) -> None:
    st.title("Page not found")
    st.markdown("There is no page at this address:")
    st.code("/" + path, language=None)  # shown as text, whatever the address holds
    if pages:
        st.markdown("These are the app's pages:")
    for section, group in pages.items():
        if section:
            st.markdown(f"**{section}**")
        for page in group:
            st.page_link(page, label=page.title, icon=page.icon)
