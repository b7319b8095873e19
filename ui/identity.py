"""Who this browser session is, as the server decides it (:mod:`ifworld.access`): facilitator, participant, visitor.

- **Loopback mode** (the app binds 127.0.0.1 / ::1 only, the default): a browser that reaches the app is on the
  same machine as the person who started it, so it is the facilitator — unless ``IFWORLD_REQUIRE_SIGNIN=1``
  (``ifworld app --require-signin``) asks for the credential there too (a shared computer). The app's server
  refuses any other ``Host`` in this mode, so a web page cannot reach it by DNS rebinding.
- **Network mode** (any other bind address, e.g. ``ifworld app --address 0.0.0.0``): no session is trusted by its
  address, not even a browser on the app's own machine. A session is the facilitator only when its browser
  holds the sign-in cookie (``/signin?token=…`` sets it), or — when the script is served without the app's
  server routes (``streamlit run app.py``) — when this session opened ``?token=…`` itself (then it lasts for
  the session only; the token is taken out of the address at once).
- Anyone else is a visitor here: participants take part on the phone page (:mod:`ui.phone_server`, ``/p/``),
  which the app's server serves beside this script and which checks their device cookie itself. On these
  pages a visitor reads only :func:`for_facilitator_only`.
"""

from __future__ import annotations

import os
import time

import streamlit as st

from ifworld import access
from ifworld.access import Caller, Role, edge, signin
from ifworld.toolkit import load_settings
from ui import phone_server

REQUIRE_SIGNIN_ENV = "IFWORLD_REQUIRE_SIGNIN"
_SESSION_SIGNIN = "_identity_signin"


def signin_required() -> bool:
    """Whether a browser must present the facilitator credential (network mode, or asked for locally)."""
    forced = os.environ.get(REQUIRE_SIGNIN_ENV, "").strip().lower() in ("1", "true", "yes")
    behind_proxy = bool(os.environ.get(edge.TRUSTED_PROXIES_ENV, "").strip())  # every request comes from the proxy
    return forced or behind_proxy or not access.is_loopback(st.get_option("server.address"))


_TOKEN_TTL_S = 2.0
_token_memo: dict[str, tuple[float, str | None]] = {}


def _token() -> str | None:
    """The facilitator token of the configured store, read at most every 2 s per process (every fragment redraw
    of a 30-person room asks; a changed token still signs everyone out within 2 s)."""
    key = os.environ.get("IFWORLD_DB", "") + "|" + os.environ.get(access.TOKEN_ENV, "")  # cheap; settings are not
    now = time.monotonic()
    at, token = _token_memo.get(key, (0.0, None))
    if now - at > _TOKEN_TTL_S:
        token = access.facilitator_token(load_settings().db_path)
        _token_memo[key] = (now, token)
    return token


def _cookie(name: str) -> str | None:
    try:
        value = st.context.cookies.get(name)
    except Exception:  # noqa: BLE001 — no request context (bare mode): no cookies
        return None
    return value if isinstance(value, str) else None


def _take_url_token(token: str | None) -> None:
    """A ``?token=`` in the address (served without ``/signin``): check it once, then drop it from the URL."""
    presented = st.query_params.get("token")
    if presented is None:
        return
    st.query_params.pop("token", None)
    if access.token_matches(presented, token):
        st.session_state[_SESSION_SIGNIN] = access.cookie_value(str(token))
    else:
        st.session_state["identity_notice"] = "That facilitator sign-in link is not valid."


def is_facilitator() -> bool:
    """Whether this browser session acts as the facilitator (see the module doc)."""
    if not signin_required():
        return True
    token = _token()
    _take_url_token(token)
    return _session_valid(_cookie(access.FACILITATOR_COOKIE)) or \
        access.cookie_matches(st.session_state.get(_SESSION_SIGNIN), token)


_session_memo: dict[str, tuple[float, bool]] = {}


def _session_valid(value: str | None) -> bool:
    """Whether the sign-in cookie names a live session (:mod:`ifworld.signin`), asked of the store at most every
    2 s per browser (a room's fragments redraw every second); a store that cannot be read signs nobody in."""
    if not value:
        return False
    now = time.monotonic()
    at, ok = _session_memo.get(value, (0.0, False))
    if now - at > _TOKEN_TTL_S:
        from ifworld.runs import get_store
        from ifworld.toolkit import IFWorldError

        try:
            ok = signin.session_valid(get_store(), value)
        except IFWorldError:
            ok = False
        if len(_session_memo) > 1000:
            _session_memo.clear()
        _session_memo[value] = (now, ok)
    return ok


def forget_session(value: str | None) -> None:
    """Drop a session from this process's memo at once (after "sign out")."""
    _session_memo.pop(value or "", None)


def caller() -> Caller:
    """This session as the engines' front doors see it."""
    if is_facilitator():
        return Caller(role=Role.FACILITATOR, via="browser")
    return access.VISITOR


def for_facilitator_only(page_title: str) -> None:
    """What every page says to a participant or visitor who opened it by its address: it is the facilitator's,
    and the room's own page is the phone page — linked when this app's server serves it (``ifworld app``)."""
    st.title(page_title)
    notice = st.session_state.pop("identity_notice", None)
    if notice:
        st.error(notice, icon="🔑")
    st.warning("**This page is for the facilitator.** Participants take part on the workshop's own page, with the "
               "code or link the facilitator shows.", icon="🔒")
    phone_page_link()


def phone_page_link() -> None:
    """A button to the phone page, where participants join — when this app's server serves it (``ifworld app``)."""
    if phone_server.SERVED:
        st.link_button("👥 Join a workshop", f"{phone_server.PREFIX}/", type="primary")
