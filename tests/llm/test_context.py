"""The context window and the token counter (:mod:`ifworld.llm.context`), against real HTTP servers on 127.0.0.1
that answer the way llama.cpp, vLLM, LM Studio, Ollama and llama-cpp-python do — and the way a broken or lying
server does."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from ifworld.config import MAX_CONTEXT_TOKENS, load_settings
from ifworld.llm import context
from ifworld.llm.context import (
    DEFAULT_CONTEXT_TOKENS,
    FOREIGN_MARGIN,
    MAX_CHARS_PER_TOKEN,
    OPENAI_CONTEXT_TOKENS,
    context_window,
    token_counter,
)

MODEL = "some-model"
Route = Any  # a JSON value, or (status, JSON value), or a callable(body) -> JSON value


@contextmanager
def server(routes: dict[str, Route], delay: float = 0.0, seen: list[str] | None = None) -> Iterator[str]:
    """A server whose ``METHOD path`` routes answer JSON (others 404); yields its ``/v1`` base URL. ``seen``
    collects ``METHOD path`` of every request."""
    class Handler(BaseHTTPRequestHandler):
        def _answer(self, method: str) -> None:
            if seen is not None:
                seen.append(f"{method} {self.path}")
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}") if length else {}
            route = routes.get(f"{method} {self.path}")
            time.sleep(delay)
            answer = route(body) if callable(route) else route
            status, value = (404, {"error": "no route"}) if route is None else \
                answer if isinstance(answer, tuple) else (200, answer)
            data = json.dumps(value).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up waiting (a probe's timeout)
                pass

        def do_GET(self) -> None:  # noqa: N802
            self._answer("GET")

        def do_POST(self) -> None:  # noqa: N802
            self._answer("POST")

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        httpd.shutdown()


@pytest.fixture(autouse=True)
def _fresh(monkeypatch):
    for name in ("IFWORLD_CONTEXT_TOKENS", "IFWORLD_CONTEXT_TOKENS_JUDGE", "IFWORLD_BASE_URL", "OPENAI_API_KEY",
                 "IFWORLD_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    context.clear_cache()
    yield
    context.clear_cache()


def _settings(url: str | None, **extra: Any):
    return load_settings({"base_url": url, "model": MODEL, **extra})


SERVERS = {
    "llama.cpp /props": {"GET /props": {"default_generation_settings": {"n_ctx": 4096}}},
    "vLLM /v1/models": {"GET /v1/models": {"data": [{"id": "other", "max_model_len": 999},
                                                    {"id": MODEL, "max_model_len": 32_000}]}},
    "LM Studio /api/v0/models": {f"GET /api/v0/models/{MODEL}": {"max_context_length": 12_288}},
    "Ollama /api/show": {"POST /api/show": {"model_info": {"gemma3.context_length": 131_072},
                                            "parameters": "temperature 0.7\nnum_ctx 16384"}},
}
EXPECTED = {"llama.cpp /props": 4096, "vLLM /v1/models": 32_000, "LM Studio /api/v0/models": 12_288,
            "Ollama /api/show": 16_384}  # Ollama serves the Modelfile's num_ctx, not the model's maximum


@pytest.mark.parametrize("kind", list(SERVERS))
def test_each_server_kind_says_its_window(kind):
    with server(SERVERS[kind]) as url:
        window = context_window(_settings(url), "whatif.expert")
    assert (window.tokens, window.source) == (EXPECTED[kind], f"server ({kind})")


def test_ollama_without_num_ctx_gives_the_models_length():
    with server({"POST /api/show": {"model_info": {"llama.context_length": 8192}}}) as url:
        assert context_window(_settings(url), "x").tokens == 8192


def test_a_setting_lowers_the_servers_window_but_never_raises_it(monkeypatch):
    with server(SERVERS["llama.cpp /props"]) as url:
        monkeypatch.setenv("IFWORLD_CONTEXT_TOKENS", "2048")
        low = context_window(_settings(url), "whatif.expert")
        context.clear_cache()
        monkeypatch.setenv("IFWORLD_CONTEXT_TOKENS", "65536")
        high = context_window(_settings(url), "whatif.expert")
    assert low.tokens == 2048 and "IFWORLD_CONTEXT_TOKENS" in low.source and "4,096" in low.source
    assert high.tokens == 4096 and high.source == "server (llama.cpp /props)"


def test_without_the_server_the_setting_then_the_default(monkeypatch):
    with server({}) as url:
        assert context_window(_settings(url), "whatif.judge").source.startswith("default")
        assert context_window(_settings(url), "whatif.judge").tokens == DEFAULT_CONTEXT_TOKENS
        monkeypatch.setenv("IFWORLD_CONTEXT_TOKENS_JUDGE", "100000")
        monkeypatch.setenv("IFWORLD_CONTEXT_TOKENS", "8192")
        context.clear_cache()
        judge, expert = (context_window(_settings(url), r) for r in ("whatif.judge", "whatif.expert"))
    assert (judge.tokens, judge.source) == (100_000, "IFWORLD_CONTEXT_TOKENS_JUDGE")
    assert (expert.tokens, expert.source) == (8192, "IFWORLD_CONTEXT_TOKENS")


def test_openais_endpoint_is_never_probed_and_has_its_window():
    window = context_window(load_settings({"api_key": "sk-test"}), "whatif.expert")
    assert (window.tokens, window.source) == (OPENAI_CONTEXT_TOKENS, "default for OpenAI's endpoint")


@pytest.mark.parametrize("value", [0, -5, True, "8k", 1.5e12, MAX_CONTEXT_TOKENS + 1, None, [4096], {"n": 1}])
def test_a_hostile_or_absurd_window_is_not_believed(value):
    with server({"GET /props": {"n_ctx": value}}) as url:
        window = context_window(_settings(url), "x")
    assert window.tokens == DEFAULT_CONTEXT_TOKENS


def test_a_bad_setting_is_refused_with_its_name(monkeypatch):
    from ifworld.errors import ConfigError

    monkeypatch.setenv("IFWORLD_CONTEXT_TOKENS_JUDGE", "lots")
    with pytest.raises(ConfigError, match="IFWORLD_CONTEXT_TOKENS_JUDGE must be a whole number"):
        load_settings()


def test_a_silent_server_is_asked_once_then_remembered(monkeypatch):
    """A server slower than the probe's timeout counts as not saying; the next ask does not probe again."""
    monkeypatch.setattr(context, "PROBE_TIMEOUT_S", 0.2)
    seen: list[str] = []
    with server(SERVERS["llama.cpp /props"], delay=1.0, seen=seen) as url:
        first = context_window(_settings(url), "x")
        probes = len(seen)
        again = context_window(_settings(url), "x")
    assert first.tokens == again.tokens == DEFAULT_CONTEXT_TOKENS
    assert probes == len(context.WINDOW_PROBES) and len(seen) == probes


# -- counting -------------------------------------------------------------------------------------------------
TEXT = "The tidal range falls by about 60 % within days; coastal fisheries adapt over a decade."


def test_the_servers_own_tokenizer_counts_first():
    llama = {"POST /tokenize": lambda body: {"tokens": list(range(len(body.get("content", "")) // 3))}}
    vllm = {"POST /tokenize": lambda body: {"count": len(body.get("prompt", "")) // 3, "max_model_len": 8192}}
    pyllama = {"POST /extras/tokenize/count": lambda body: {"count": len(body.get("input", "")) // 3}}
    for routes, name in ((llama, "llama.cpp /tokenize"), (vllm, "vLLM /tokenize"),
                         (pyllama, "llama-cpp-python /extras/tokenize/count")):
        with server(routes) as url:
            counter = token_counter(_settings(url), "x")
            assert counter.exact and counter.count(TEXT) == len(TEXT) // 3 and name in counter.name
        context.clear_cache()


def test_without_a_tokenizer_cl100k_counts_with_the_margin_and_exactly_for_openai():
    with server({}) as url:
        local = token_counter(_settings(url), "x")
    openai = token_counter(load_settings({"api_key": "sk-test"}), "x")
    assert openai.exact and not local.exact and "cl100k_base" in local.name
    assert local.count(TEXT) >= int(openai.count(TEXT) * FOREIGN_MARGIN)


def test_a_lying_or_dying_tokenizer_never_undercounts():
    state = {"alive": True}

    def tokenize(body: dict) -> Any:
        if not state["alive"]:
            return (500, {"error": "gone"})
        return {"tokens": [] if body.get("content") != "probe text" else [1, 2]}  # claims 0 tokens for all
    with server({"POST /tokenize": lambda body: tokenize(body)}) as url:
        counter = token_counter(_settings(url), "x")
        long = TEXT * 50
        assert counter.count(long) >= len(long) / MAX_CHARS_PER_TOKEN
        state["alive"] = False
        cl100k = len(context._cl100k().encode(long))
        assert counter.count(long) >= cl100k * FOREIGN_MARGIN  # fell back to cl100k × margin
