"""Streamlit's page assets held in memory and sent compressed: what 30 phones joining at once cost the server.

A phone's first visit loads 89 files, 2.7 MB (Streamlit's JavaScript, fonts and styles). Streamlit's server sends
each file from disk, uncompressed, every time: with 30 phones arriving within 10 seconds the one app process
spent its core sending 80 MB (``benchmarks/bench_workshop.py``: pages not drawn after 30 s), and a school's Wi-Fi
carries it all. The files Streamlit marks ``immutable`` (content-hashed names) cannot change while the server
runs, so :class:`AssetCache` keeps each one the first time Streamlit sends it — its status, its own headers and
its bytes, once gzip-compressed — and answers the next request for it from memory: compressed when the browser
accepts gzip, ``304 Not Modified`` when the browser names the same ETag. Anything else (pages, the websocket,
ranges, HEAD, files not marked immutable) goes to Streamlit untouched. Why not Starlette's ``GZipMiddleware``:
it compresses every response again for every request, which is the CPU this saves.

No streamlit here (the house rule); ``ui/asgi.py`` puts it innermost, so the other middleware's headers (the
CSP, the device cookie) are added to a cached answer as to any other.
"""

from __future__ import annotations

import gzip
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["MAX_CACHED_BYTES", "MAX_FILE_BYTES", "AssetCache"]

MAX_FILE_BYTES = 8 * 1024 * 1024
"""A larger file is never held (Streamlit's largest asset is under 1 MB)."""
MAX_CACHED_BYTES = 96 * 1024 * 1024
"""All held files together, plain and compressed (Streamlit's whole static folder is about 30 MB)."""
GZIP_LEVEL = 6  # once per file, so the level costs nothing per request; 9 saves ~1 % more
_DROPPED = (b"content-length", b"content-encoding", b"transfer-encoding", b"vary")

Send = Callable[[dict[str, Any]], Awaitable[None]]


@dataclass(frozen=True)
class _Held:
    status: int
    headers: list[tuple[bytes, bytes]]  # Streamlit's own, without the length and encoding
    plain: bytes
    packed: bytes
    etag: bytes


def _header(headers: list[tuple[bytes, bytes]], name: bytes) -> bytes:
    return next((v for k, v in headers if k.lower() == name), b"")


def _accepts_gzip(scope: dict[str, Any]) -> bool:
    value = _header(scope.get("headers", []), b"accept-encoding").lower()
    for part in value.split(b","):
        coding, _, params = part.strip().partition(b";")
        if coding.strip() in (b"gzip", b"*"):
            return params.replace(b" ", b"") not in (b"q=0", b"q=0.0", b"q=0.00", b"q=0.000")
    return False


class AssetCache:
    """ASGI middleware: answer repeated requests for immutable assets from memory, gzip-compressed when
    accepted (see the module doc). ``prefix`` is the path under which Streamlit serves its assets."""

    def __init__(self, app: Any, prefix: str = "/static/") -> None:
        self.app, self.prefix = app, prefix
        self.held: dict[str, _Held] = {}
        self.bytes_held = 0

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Send) -> None:
        if (scope["type"] != "http" or scope.get("method") != "GET" or not scope.get("path", "").startswith(
                self.prefix) or scope.get("query_string") or _header(scope.get("headers", []), b"range")):
            await self.app(scope, receive, send)
            return
        held = self.held.get(scope["path"])
        if held is None:
            await self._pass_and_keep(scope, receive, send)
            return
        await self._answer(held, scope, send)

    async def _answer(self, held: _Held, scope: dict[str, Any], send: Send) -> None:
        asked = _header(scope.get("headers", []), b"if-none-match")
        if held.etag and asked and held.etag in [t.strip().removeprefix(b"W/") for t in asked.split(b",")]:
            await send({"type": "http.response.start", "status": 304, "headers": [
                (k, v) for k, v in held.headers if k.lower() in (b"etag", b"cache-control", b"last-modified")]})
            await send({"type": "http.response.body", "body": b""})
            return
        body, headers = held.plain, list(held.headers)
        if _accepts_gzip(scope):
            body = held.packed
            headers.append((b"content-encoding", b"gzip"))
        headers += [(b"content-length", str(len(body)).encode()), (b"vary", b"accept-encoding")]
        await send({"type": "http.response.start", "status": held.status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    async def _pass_and_keep(self, scope: dict[str, Any], receive: Any, send: Send) -> None:
        """Let Streamlit answer, and keep the answer when it is a whole immutable file of a sane size."""
        start: dict[str, Any] = {}
        parts: list[bytes] = []
        keep = [True]

        async def watching(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
                headers = message.get("headers", [])
                keep[0] = (message.get("status") == 200 and b"immutable" in _header(headers, b"cache-control")
                           and not _header(headers, b"content-encoding"))
            elif message["type"] == "http.response.body" and keep[0]:
                parts.append(message.get("body", b""))
                if sum(map(len, parts)) > MAX_FILE_BYTES:
                    keep[0] = False
                    parts.clear()
                elif not message.get("more_body", False):
                    self._keep(scope["path"], start, b"".join(parts))
            await send(message)

        await self.app(scope, receive, watching)

    def _keep(self, path: str, start: dict[str, Any], plain: bytes) -> None:
        headers = start.get("headers", [])
        length = _header(headers, b"content-length")
        if (length and length != str(len(plain)).encode()) or path in self.held:
            return  # not the whole file (cut short), or held already by a request that ran beside this one
        packed = gzip.compress(plain, compresslevel=GZIP_LEVEL, mtime=0)
        if self.bytes_held + len(plain) + len(packed) > MAX_CACHED_BYTES:
            return
        self.held[path] = _Held(status=200, headers=[(k, v) for k, v in headers if k.lower() not in _DROPPED],
                                plain=plain, packed=packed, etag=_header(headers, b"etag"))
        self.bytes_held += len(plain) + len(packed)
