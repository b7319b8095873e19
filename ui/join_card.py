"""The workshop's join card and the projector's join slide: how the room gets in — a short address, the code,
the link and its QR code — and nothing that signs anyone in.

The slide is for a projector at 1280×720 and 175 % zoom (a 731×411 CSS-pixel screen): one line "Go to ADDRESS",
the code, and the QR code beside them, sized by the screen's height so the whole slide fits one screen
(``tests/browser/test_join_slide_browser.py`` measures it there).
"""

from __future__ import annotations

import base64
import html
import io
import socket
from collections.abc import Callable
from urllib.parse import urlencode, urlsplit

import streamlit as st

from ifworld import access
from ifworld.whatif import Workshop
from ui.phone_server import PREFIX

QR_ALT = "QR code of the join link"
_SLIDE_CSS = """<style>
.ifw-slide { display: flex; flex-wrap: wrap; align-items: center; justify-content: center; gap: 1rem 2.5rem; }
.ifw-slide .ifw-words { flex: 1 1 16rem; min-width: 0; }
.ifw-slide .ifw-go { font-size: clamp(1.1rem, 4.5vh, 2rem); margin: 0 0 .5rem 0; overflow-wrap: anywhere; }
.ifw-slide .ifw-code { font-size: clamp(2.5rem, 14vh, 6rem); font-weight: 700; letter-spacing: .4rem;
                       line-height: 1.1; margin: 0; }
.ifw-slide img { height: min(52vh, 26rem); width: auto; aspect-ratio: 1; }
</style>"""


def app_origin() -> str:
    """``scheme://host:port`` of this app as the room reaches it (empty when unknown, e.g. in AppTest): the
    facilitator's own address, unless that is the loopback one while the app serves the network — then this
    machine's network address, since ``127.0.0.1`` on a phone is the phone."""
    parts = urlsplit(st.context.url or "")
    if not (parts.scheme and parts.netloc):
        return ""
    host = parts.hostname or ""
    if access.is_loopback(host) and not access.is_loopback(st.get_option("server.address")):
        lan = network_address()
        if lan:
            return f"{parts.scheme}://{lan}{f':{parts.port}' if parts.port else ''}"
    return f"{parts.scheme}://{parts.netloc}"


def network_address() -> str:
    """This machine's first IPv4 address that is not loopback (by its host name; no packet is sent), or ""."""
    try:
        found = {a[4][0] for a in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)}
    except OSError:
        return ""
    return next((str(a) for a in sorted(found) if not access.is_loopback(str(a))), "")


def join_link(token: str) -> str:
    """The link the room opens: the phone page (:mod:`ui.phone_server`), which this app's server serves."""
    return f"{app_origin()}{PREFIX}/?{urlencode({'w': token})}"


def qr_png(url: str) -> bytes:
    """The join link as a QR code PNG (``segno``), large enough to project (scale 12 ≈ 500 px wide)."""
    import segno

    buf = io.BytesIO()
    segno.make(url, error="m").save(buf, kind="png", scale=12, border=2)
    return buf.getvalue()


def join_address(link: str) -> str:
    """The short address people type: host, port and the phone page's path, without the scheme or the token."""
    parts = urlsplit(link)
    return f"{parts.netloc}{parts.path}" if parts.netloc else ""


def _qr_img(link: str, style: str = "") -> str:
    # Not st.image: Streamlit 1.67 draws it with no alt text (axe image-alt, critical; docs/accessibility.md).
    qr = base64.b64encode(qr_png(link)).decode("ascii")
    return f"<img src='data:image/png;base64,{qr}' alt='{QR_ALT}'{style}>"  # ours: a PNG we just made


def go_line(ws: Workshop, link: str) -> str:
    """"Go to ADDRESS and enter the code CODE", or the phone page's path when the address is not known."""
    address = join_address(link)
    where = f"go to {address}" if address else f"open {PREFIX}/ at this app's address"
    return f"To join, {where} and enter the code {ws.code}"


def join_card(ws: Workshop, close: Callable[[], None]) -> None:
    """The card on the facilitator's page: the one-line instruction, the code, the link, the QR code, the slide
    button, and Close while the workshop is open (``close`` carries it out through the engine)."""
    link = join_link(ws.token)
    st.text(go_line(ws, link))
    left, right = st.columns([3, 2])
    left.markdown(f"<div style='font-size:4rem;font-weight:700;letter-spacing:.5rem'>{ws.code}</div>",
                  unsafe_allow_html=True)  # the code is ours: letters and digits from CODE_ALPHABET only
    left.caption("…or open this link:")
    left.code(link, language=None, wrap_lines=True)  # wrapped (app.py), not a box that scrolls at 175 %
    if access.is_loopback(urlsplit(link).hostname) and not access.is_loopback(st.get_option("server.address")):
        left.caption("⚠️ This link names this computer itself; phones need its network address in its place "
                     "(this machine reports none).")
    with left.container(horizontal=True):
        if st.button("📽️ Show the join slide", key="workshop_slide",
                     help="The address, the code and the QR code on one screen, large enough for the back row."):
            join_slide(ws.code, link)
        if ws.status == "open":
            st.button("🔒 Close workshop", key="workshop_close", on_click=close,
                      help="It accepts nothing more after this.")
    right.markdown(_qr_img(link, " style='width:100%'"), unsafe_allow_html=True)
    right.caption("Scan to join")


@st.dialog("Join the workshop", width="large")


def join_slide(code: str, link: str) -> None:
    """The projector's slide: it fits one 1280×720 screen at 175 % (sizes follow the screen's height)."""
    address = join_address(link)
    go = (f"Go to <strong>{html.escape(address)}</strong><br>and enter the code" if address else
          f"Open <strong>{PREFIX}/</strong> at this app's address and enter the code")
    st.markdown(f"{_SLIDE_CSS}<div class='ifw-slide'><div class='ifw-words'><p class='ifw-go'>{go}</p>"
                f"<p class='ifw-code'>{html.escape(code)}</p></div>{_qr_img(link)}</div>",
                unsafe_allow_html=True)  # the address is escaped; the code is ours (CODE_ALPHABET)
