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
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import streamlit as st
from starlette.middleware import Middleware

APP_SCRIPT = Path(__file__).resolve().parents[1] / "app.py"
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


app = st.App(APP_SCRIPT, middleware=[Middleware(ContentSecurityPolicy)])
