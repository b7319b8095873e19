"""The asset cache (ifworld/asset_cache.py) against a stand-in for Streamlit's static handler: what it keeps,
what it answers from memory, and everything it must leave to Streamlit."""

from __future__ import annotations

import asyncio
import gzip
import os
from typing import Any

import pytest

from ifworld.asset_cache import MAX_FILE_BYTES, AssetCache

IMMUTABLE = b"public, immutable, max-age=31536000"
SCRIPT = b"function draw(){return 'room';}\n" * 4000  # 132 KB of JavaScript-like text


class Static:
    """Streamlit's static files as an ASGI app: counts what it is asked, answers like Starlette's FileResponse
    (in 64 KB chunks, its own headers)."""

    def __init__(self, files: dict[str, tuple[bytes, bytes]]) -> None:
        self.files, self.asked = files, []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        self.asked.append(scope["path"])
        body, cache = self.files.get(scope["path"], (b"not found", b"no-cache"))
        status = 200 if scope["path"] in self.files else 404
        await send({"type": "http.response.start", "status": status, "headers": [
            (b"content-type", b"application/javascript"), (b"content-length", str(len(body)).encode()),
            (b"etag", b'"e-' + str(len(body)).encode() + b'"'), (b"cache-control", cache)]})
        chunks = [body[i:i + 65536] for i in range(0, len(body), 65536)] or [b""]
        for n, chunk in enumerate(chunks):
            await send({"type": "http.response.body", "body": chunk, "more_body": n < len(chunks) - 1})


def get(app: Any, path: str, *headers: tuple[bytes, bytes], method: str = "GET",
        query: bytes = b"") -> tuple[int, dict[bytes, bytes], bytes]:
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    scope = {"type": "http", "method": method, "path": path, "query_string": query, "headers": list(headers)}
    asyncio.run(app(scope, receive, send))
    start = sent[0]
    return start["status"], dict(start["headers"]), b"".join(m.get("body", b"") for m in sent[1:])


GZIP = (b"accept-encoding", b"gzip, deflate, br")


@pytest.fixture
def served() -> tuple[Static, AssetCache]:
    static = Static({"/static/js/index.abc123.js": (SCRIPT, IMMUTABLE),
                     "/static/manifest.json": (b'{"name": "app"}', b"no-cache"),
                     "/static/js/huge.js": (os.urandom(MAX_FILE_BYTES + 1), IMMUTABLE)})
    return static, AssetCache(static)


def test_an_immutable_asset_is_asked_of_streamlit_once_then_sent_compressed(served) -> None:  # noqa: ANN001
    static, cache = served
    first = get(cache, "/static/js/index.abc123.js", GZIP)
    assert first[0] == 200 and first[2] == SCRIPT  # the first answer is Streamlit's own
    for _ in range(5):
        status, headers, body = get(cache, "/static/js/index.abc123.js", GZIP)
        assert status == 200 and headers[b"content-encoding"] == b"gzip"
        assert gzip.decompress(body) == SCRIPT and int(headers[b"content-length"]) == len(body)
        assert len(body) < len(SCRIPT) / 10
        assert headers[b"cache-control"] == IMMUTABLE and headers[b"content-type"] == b"application/javascript"
        assert headers[b"vary"] == b"accept-encoding"
    assert static.asked == ["/static/js/index.abc123.js"]


@pytest.mark.parametrize("accept", [b"", b"identity", b"br", b"gzip;q=0", b"gzip; q=0.0, br"])
def test_a_browser_that_does_not_accept_gzip_gets_the_plain_bytes(served, accept: bytes) -> None:  # noqa: ANN001
    _, cache = served
    get(cache, "/static/js/index.abc123.js")
    status, headers, body = get(cache, "/static/js/index.abc123.js", (b"accept-encoding", accept))
    assert status == 200 and body == SCRIPT and b"content-encoding" not in headers
    assert int(headers[b"content-length"]) == len(SCRIPT)


def test_the_same_etag_gets_not_modified(served) -> None:  # noqa: ANN001
    _, cache = served
    _, headers, _ = get(cache, "/static/js/index.abc123.js", GZIP)
    for named in (headers[b"etag"], b"W/" + headers[b"etag"], b'"other", ' + headers[b"etag"]):
        status, got, body = get(cache, "/static/js/index.abc123.js", GZIP, (b"if-none-match", named))
        assert (status, body) == (304, b"") and got[b"etag"] == headers[b"etag"]
    assert get(cache, "/static/js/index.abc123.js", (b"if-none-match", b'"other"'))[0] == 200


@pytest.mark.parametrize("case", ["not immutable", "not found", "too large", "range", "head", "query", "outside"])
def test_everything_else_is_left_to_streamlit(served, case: str) -> None:  # noqa: ANN001
    static, cache = served
    path, headers, method, query = {
        "not immutable": ("/static/manifest.json", (), "GET", b""),
        "not found": ("/static/js/gone.js", (), "GET", b""),
        "too large": ("/static/js/huge.js", (), "GET", b""),
        "range": ("/static/js/index.abc123.js", ((b"range", b"bytes=0-99"),), "GET", b""),
        "head": ("/static/js/index.abc123.js", (), "HEAD", b""),
        "query": ("/static/js/index.abc123.js", (), "GET", b"v=2"),
        "outside": ("/whatif", (), "GET", b""),
    }[case]
    for _ in range(3):
        status, got, _ = get(cache, path, *headers, GZIP, method=method, query=query)
        assert b"content-encoding" not in got
    assert static.asked == [path] * 3 and cache.held == {}


def test_a_cut_answer_is_never_held() -> None:
    class Cut(Static):
        async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
            self.asked.append(scope["path"])
            await send({"type": "http.response.start", "status": 200, "headers": [
                (b"content-length", b"1000"), (b"cache-control", IMMUTABLE)]})
            await send({"type": "http.response.body", "body": b"x" * 10})  # the file shrank under Streamlit

    static = Cut({})
    cache = AssetCache(static)
    get(cache, "/static/a.js")
    get(cache, "/static/a.js")
    assert static.asked == ["/static/a.js"] * 2 and cache.held == {}


def test_a_base_path_prefix() -> None:
    static = Static({"/class/static/js/a.js": (SCRIPT, IMMUTABLE), "/static/js/a.js": (SCRIPT, IMMUTABLE)})
    cache = AssetCache(static, prefix="/class/static/")
    for _ in range(2):
        get(cache, "/class/static/js/a.js", GZIP)
        get(cache, "/static/js/a.js", GZIP)
    assert static.asked == ["/class/static/js/a.js", "/static/js/a.js", "/static/js/a.js"]
