"""The app served with a Content-Security-Policy header: ``streamlit run ui/asgi.py`` (what ``ifworld app`` runs).

Streamlit has no option for response headers, but since 1.5x it serves an ``st.App`` (its documented ASGI
entry: ``streamlit run`` finds the ``app = st.App(...)`` assignment and serves it on its own Starlette server)
with user middleware. :class:`ContentSecurityPolicy` adds :data:`APP_CSP` to every HTTP response, so the
browser itself refuses to load anything from another origin — a second line behind the escaping of model text
(:mod:`ifworld.safe_text`, :mod:`ifworld.safe_figure`): a chart label such as ``<span
style="fill:url(http://host/x)">`` that got through would be blocked by ``img-src`` (measured in Chromium:
"violates the following Content Security Policy directive: img-src 'self' data: blob:. The action has been
blocked"). Scripts and styles keep ``'unsafe-inline'``/``'unsafe-eval'`` because Streamlit's and Plotly's
bundles need them; the policy is about where the page may connect and what it may load, not about script.
``streamlit run app.py`` still works, without the header (the page tests and AppTest use the script directly).
One self-contained file: when ``streamlit run`` serves it, only the app's own directory is importable.

Who is who (:mod:`ifworld.access`) needs two more things that only the server can do:

- ``/signin?token=…`` checks the facilitator token and sets the facilitator cookie (HttpOnly, SameSite=Strict),
  then redirects to the app's address *without* the token; ``/signout`` clears it;
- :class:`Identity` gives every browser a random device cookie once (a participant's identity across reloads,
  tabs and restarts) and, when the app binds the loopback address only, refuses requests whose ``Host`` is
  not a loopback name — a web page cannot reach the local app by DNS rebinding and ride the trust a local
  browser gets there;
- it binds each Streamlit session to the browser that opened it. A reconnecting browser names its session by
  id (``Sec-WebSocket-Protocol: streamlit, <xsrf>, <session id>``), and Streamlit resumed *any* session so named
  (tests/browser/test_forged_wire.py: a participant's client with the facilitator's session id took it over and
  reran its room fragment, which skips ``app.py``'s role check — the engine still refused every action, but the
  room's facilitator view was drawn). The middleware sets :data:`BROWSER_HEADER` on every websocket (a digest of
  the device and facilitator cookies; a value the client sent is dropped) and maps it into Streamlit's user
  identity (``server.trustedUserHeaders``), which Streamlit compares before resuming: another browser gets a
  fresh session, the same browser its own.
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import streamlit as st
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route
from streamlit import config as st_config

from ifworld import access
from ifworld.access import AssetCache, edge, signin as signin_sessions
from ifworld.toolkit import load_settings

APP_SCRIPT = Path(__file__).resolve().parents[1] / "app.py"
if str(APP_SCRIPT.parent) not in sys.path:  # `streamlit run ui/asgi.py` puts only ui/ on the path, from any cwd
    sys.path.insert(0, str(APP_SCRIPT.parent))
from ui import phone_server, room_pulse  # noqa: E402 — importable only once the app's directory is on the path

# Same origin only: Streamlit's own bundle, websocket and media; inline data/blob images and fonts (charts,
# downloads); component iframes from srcdoc/blob; scripts from blob: because Streamlit loads an st.components.v2
# component's inline module from a blob URL (the workshop's room list; only a script already on the page can
# create one). Nothing from another host, no plugins, no <base> tricks.
APP_CSP = ("default-src 'self'; script-src 'self' 'unsafe-inline' 'unsafe-eval' blob:; "
           "style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; "
           "media-src 'self' data: blob:; "
           "frame-src 'self' data: blob:; worker-src 'self' blob:; object-src 'none'; base-uri 'self'; "
           "form-action 'self'")


class ContentSecurityPolicy:
    """ASGI middleware: add the ``Content-Security-Policy`` (and ``Referrer-Policy``) header to HTTP responses."""

    def __init__(self, app: Any, policy: str = APP_CSP) -> None:
        self.app, self.policy = app, policy.encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_policy(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"content-security-policy"]
                headers += [(b"content-security-policy", self.policy), (b"referrer-policy", b"no-referrer")]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_policy)


DEVICE_MAX_AGE_S = 400 * 24 * 3600  # browsers cap cookie lifetimes at 400 days
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
BROWSER_HEADER = "x-ifworld-browser"
BROWSER_USER_KEY = "ifworld_browser"


def _bound_to_loopback() -> bool:
    """Loopback mode: bound to this computer only and no proxy named in ``IFWORLD_TRUSTED_PROXIES`` (with one, the
    app is behind a proxy and trusts no browser by its address, as in network mode)."""
    return access.is_loopback(st.get_option("server.address")) and not edge.trusted_proxies()


def _host_allowed(host: str) -> bool:
    """In loopback mode only loopback names may be asked for (DNS-rebinding guard); in network mode any."""
    if not _bound_to_loopback():
        return True
    name = urlsplit(f"//{host}").hostname or ""
    return name in LOOPBACK_NAMES or name.endswith(".localhost") or access.is_loopback(name)


def _cookies(scope: dict[str, Any]) -> SimpleCookie:
    jar: SimpleCookie = SimpleCookie()
    for key, value in scope.get("headers", []):
        if key == b"cookie":
            try:
                jar.load(value.decode("latin-1"))
            except Exception:  # noqa: BLE001 — a malformed cookie header is ignored, not a server error
                pass
    return jar


def _header(scope: dict[str, Any], name: bytes) -> str:
    return next((v.decode("latin-1") for k, v in scope.get("headers", []) if k == name), "")


def _browser(jar: SimpleCookie) -> str:
    """Who this browser is for session binding: a digest of its device and facilitator cookies."""
    values = [jar[name].value if name in jar else "" for name in (access.DEVICE_COOKIE, access.FACILITATOR_COOKIE)]
    return hashlib.sha256("\0".join(values).encode("utf-8")).hexdigest()


def _bind_sessions_to_browsers() -> None:
    """Make :data:`BROWSER_HEADER` part of Streamlit's user identity (idempotent; read at every connect)."""
    mapping = st_config.get_option("server.trustedUserHeaders")
    mapping = dict(mapping) if isinstance(mapping, dict) else {}
    if mapping.get(BROWSER_HEADER) != BROWSER_USER_KEY:
        st_config.set_option("server.trustedUserHeaders", {**mapping, BROWSER_HEADER: BROWSER_USER_KEY}, "ui/asgi.py")


class Identity:
    """ASGI middleware: the loopback Host guard, the per-browser device cookie and the binding of each Streamlit
    session to its browser (see the module doc)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if not _host_allowed(_header(scope, b"host")):
            if scope["type"] == "http":
                await Response("This app answers only on its local address.", status_code=403)(scope, receive, send)
            else:
                await send({"type": "websocket.close", "code": 1008})
            return
        if scope["type"] == "websocket":
            _bind_sessions_to_browsers()
            headers = [(k, v) for k, v in scope.get("headers", []) if k.lower() != BROWSER_HEADER.encode()]
            scope = {**scope, "headers": [*headers, (BROWSER_HEADER.encode(), _browser(_cookies(scope)).encode())]}
            await self.app(scope, receive, send)
            return
        if access.DEVICE_COOKIE in _cookies(scope):
            await self.app(scope, receive, send)
            return
        cookie = (f"{access.DEVICE_COOKIE}={access.device_id()}; Path=/; Max-Age={DEVICE_MAX_AGE_S}; HttpOnly; "
                  "SameSite=Lax").encode()

        async def send_with_device(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), (b"set-cookie", cookie)]}
            await send(message)

        await self.app(scope, receive, send_with_device)


def _home(request: Request) -> str:
    """The app's own root, relative to this server (never built from the request's Host header)."""
    return _base_path() + "/"


def _base_path() -> str:
    """The app's path prefix on this server (``server.baseUrlPath``): ``""`` or ``"/class"``."""
    base = (st.get_option("server.baseUrlPath") or "").strip("/")
    return f"/{base}" if base else ""


_REFUSED = ("<h1>Sign-in refused</h1><p>This facilitator link is not valid (mistyped, or the token was changed). The "
            "person running the app prints the current link with <code>ifworld app signin-link</code>.</p>")
_EXCHANGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Signing in…</title></head><body>
<form id="f" method="post" action="{action}"><input type="hidden" name="token" id="t">
<noscript><p>Paste the token: <input name="token" type="password"></p><button>Sign in</button></noscript></form>
<script src="{action}/exchange.js"></script></body></html>"""
_EXCHANGE_JS = """(function () {
  var q = new URLSearchParams(location.search), f = document.getElementById("f");
  document.getElementById("t").value = q.get("token") || "";
  history.replaceState(null, "", location.pathname);  // the token leaves the address bar and this history entry
  f.submit();
})();"""


async def signin(request: Request) -> Response:
    """``GET /signin?token=…`` answers a page that takes the token out of the address (``history.replaceState``)
    and exchanges it by ``POST``: the token is never in a URL the server redirects to, a Referer, a log line or
    the history entry. ``POST /signin`` checks it and starts a sign-in session (:mod:`ifworld.signin`): its own
    random cookie, stored, expiring, revocable."""
    if request.method == "GET":
        return HTMLResponse(_EXCHANGE.format(action=_home(request).rstrip("/") + access.SIGNIN_PATH),
                            headers={"cache-control": "no-store"})
    form = await request.form(max_files=0, max_fields=4)
    token = access.facilitator_token(load_settings().db_path, create=False)
    if not access.token_matches(str(form.get("token") or ""), token):
        return HTMLResponse(_REFUSED, status_code=403, headers={"cache-control": "no-store"})
    value = signin_sessions.new_session(_run_store(), request.headers.get("user-agent", ""))
    response = RedirectResponse(_home(request), status_code=303)
    response.set_cookie(access.FACILITATOR_COOKIE, value, max_age=signin_sessions.SESSION_TTL_S, httponly=True,
                        samesite="strict", secure=request.url.scheme == "https", path="/")
    return response


async def exchange_js(request: Request) -> Response:
    return Response(_EXCHANGE_JS, media_type="text/javascript", headers={"cache-control": "no-store"})


async def signout(request: Request) -> Response:
    """End this browser's sign-in session for good (not only its cookie)."""
    signin_sessions.end_session(_run_store(), request.cookies.get(access.FACILITATOR_COOKIE))
    _session_memo.clear()
    response = RedirectResponse(_home(request), status_code=303)
    response.delete_cookie(access.FACILITATOR_COOKIE, path="/")
    return response


def _run_store() -> Any:
    from ifworld.runs import get_store

    return get_store()


_session_memo: dict[str, tuple[float, bool]] = {}


def session_valid(value: str | None) -> bool:
    """Whether a cookie names a live sign-in session, asked of the store at most every 2 s per value."""
    if not value:
        return False
    at, ok = _session_memo.get(value, (0.0, False))
    if time.monotonic() - at > 2.0:
        ok = signin_sessions.session_valid(_run_store(), value)
        if len(_session_memo) > 1000:
            _session_memo.clear()
        _session_memo[value] = (time.monotonic(), ok)
    return ok


# -- the edges: the client's real address, facilitator-only routes, bounded uploads, no outbound request ------
MAX_UPLOAD_BYTES = 50 * 1024 * 1024 + 64 * 1024
"""One upload request (``server.maxUploadSize`` = 50 MB, plus the multipart envelope)."""
MAX_SESSION_UPLOAD_BYTES = 200 * 1024 * 1024
"""What one Streamlit session may upload in all (Streamlit keeps uploads in memory until the session ends)."""
MAX_INFLIGHT_UPLOAD_BYTES = 120 * 1024 * 1024
"""Upload bytes being received at once, all sessions together."""
FACILITATOR_BACK_MSGS = frozenset({"clear_cache", "set_run_on_save", "debug_disconnect_websocket",
                                   "debug_shutdown_runtime", "load_git_info"})
"""Websocket requests that act on every user's server (caches, reruns) or on the server itself."""
_uploads: dict[str, int] = {}
_inflight = [0]


def _facilitator_request(scope: dict[str, Any]) -> bool:
    """Whether a request comes from the facilitator's browser (the same rule as :func:`ui.identity.is_facilitator`,
    from the request's cookies)."""
    forced = os.environ.get("IFWORLD_REQUIRE_SIGNIN", "").strip().lower() in ("1", "true", "yes")
    if _bound_to_loopback() and not forced:
        return True
    jar = _cookies(scope)
    return session_valid(jar[access.FACILITATOR_COOKIE].value if access.FACILITATOR_COOKIE in jar else None)


async def _refuse(scope: dict[str, Any], receive: Any, send: Any, status: int, text: str) -> None:
    if scope["type"] == "http":
        # "Connection: close": the server need not read (and discard) a refused 50 MB body first
        await Response(text, status_code=status, media_type="text/plain",
                       headers={"connection": "close"})(scope, receive, send)
    else:
        await send({"type": "websocket.close", "code": 1008})


class Edges:
    """ASGI middleware: decide the client's address once (:func:`ifworld.edge.client_address`, set as
    :data:`ifworld.edge.CLIENT_HEADER` and ``scope["client"]``); in loopback mode refuse forwarding headers (a
    proxy in front of loopback mode would make every student the facilitator); keep ``/_stcore/metrics``, uploads
    and the cache-clearing websocket requests to the facilitator; bound uploads per session and in total."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = scope.get("headers", [])
        forwarded = edge.forwarding_headers(headers)
        if forwarded and _bound_to_loopback():
            await _refuse(scope, receive, send, 400, "This app runs in loopback mode, which trusts every browser on "
                          "this computer; a proxy in front of it (this request carries " + ", ".join(forwarded) +
                          ") would make every visitor the facilitator. Start it with --address and set "
                          "IFWORLD_TRUSTED_PROXIES instead (docs/deploy.md).")
            return
        peer = (scope.get("client") or ("", 0))[0]
        address = edge.client_address(peer, _header(scope, b"x-forwarded-for") or None)
        headers = [(k, v) for k, v in headers if k.lower() != edge.CLIENT_HEADER.encode()]
        scope = {**scope, "client": (address, (scope.get("client") or ("", 0))[1]),
                 "headers": [*headers, (edge.CLIENT_HEADER.encode(), address.encode("latin-1", "replace"))]}
        path = scope.get("path", "")
        if path.endswith("/_stcore/metrics") and not _facilitator_request(scope):
            await _refuse(scope, receive, send, 403, "For the facilitator only.")
            return
        if "/_stcore/upload_file/" in path:
            await self._upload(scope, receive, send, path)
            return
        if scope["type"] == "websocket" and not _facilitator_request(scope):
            receive = _without_facilitator_requests(receive)
        await self.app(scope, receive, send)

    async def _upload(self, scope: dict[str, Any], receive: Any, send: Any, path: str) -> None:
        if not _facilitator_request(scope):
            await _refuse(scope, receive, send, 403, "Uploads are for the facilitator only.")
            return
        session = path.split("/_stcore/upload_file/", 1)[1].split("/")[0]
        if scope.get("method") != "PUT":
            await self.app(scope, receive, send)
            return
        try:
            size = int(_header(scope, b"content-length") or -1)
        except ValueError:
            size = -1
        if not 0 <= size <= MAX_UPLOAD_BYTES:
            await _refuse(scope, receive, send, 413, "An upload needs a length of at most 50 MB.")
            return
        over = _uploads.get(session, 0) + size > MAX_SESSION_UPLOAD_BYTES
        if over or _inflight[0] + size > MAX_INFLIGHT_UPLOAD_BYTES:
            await _refuse(scope, receive, send, 429, "Too much uploaded; reload the page or wait for the uploads.")
            return
        _inflight[0] += size
        try:
            await self.app(scope, _capped(receive, size), send)
            _uploads[session] = _uploads.get(session, 0) + size
        finally:
            _inflight[0] -= size


def _capped(receive: Any, limit: int) -> Any:
    """A body of at most ``limit`` bytes (what Content-Length said): more is cut off as a disconnect."""
    seen = [0]

    async def capped() -> dict[str, Any]:
        message = await receive()
        if message["type"] == "http.request":
            seen[0] += len(message.get("body", b""))
            if seen[0] > limit:
                return {"type": "http.disconnect"}
        return message
    return capped


def _without_facilitator_requests(receive: Any) -> Any:
    """A participant's websocket stream without the requests that act on everyone (:data:`FACILITATOR_BACK_MSGS`)."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    async def filtered() -> dict[str, Any]:
        while True:
            message = await receive()
            data = message.get("bytes") if message["type"] == "websocket.receive" else None
            if data:
                msg = BackMsg()
                try:
                    msg.ParseFromString(data)
                except Exception:  # noqa: BLE001 — not ours to judge; Streamlit refuses it itself
                    return message
                if msg.WhichOneof("type") in FACILITATOR_BACK_MSGS:
                    continue
            return message
    return filtered


def _no_outbound_requests() -> None:
    """Streamlit looks up the machine's external IP online (checkip.amazonaws.com) to print an "External URL" and
    when a websocket's Origin is not a local one; this app makes no request of its own to anywhere."""
    from streamlit import net_util

    net_util.get_external_ip = lambda: None  # type: ignore[assignment]


_no_outbound_requests()
edge.disable_uvicorn_proxy_headers()
edge.guard_connections()

app = st.App(APP_SCRIPT, middleware=[Middleware(Edges), Middleware(ContentSecurityPolicy), Middleware(Identity),
                                     # innermost: a cached asset gets the other layers' headers as any answer
                                     Middleware(AssetCache, prefix=_base_path() + "/static/")],
             routes=[Route(access.SIGNIN_PATH, signin, methods=["GET", "POST"], name="signin"),
                     Route(access.SIGNIN_PATH + "/exchange.js", exchange_js, name="signin_js"),
                     Route("/signout", signout, methods=["GET", "POST"], name="signout"),
                     room_pulse.route(_facilitator_request),  # before /p/{name}, which would take /p/pulse
                     *phone_server.ROUTES])
phone_server.SERVED = True  # the join card links to the phone page
