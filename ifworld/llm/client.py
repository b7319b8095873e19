"""The one place that builds chat models and calls them.

Everything else asks for a model by *role* (``"whatif.expert"``, ``"rws.pace.critic"`` …). Calls go through
``ChatOpenAI(base_url=…)`` so any OpenAI-compatible endpoint works, including the local servers people run
(llama.cpp, Ollama, LM Studio, vLLM):

- Replies are streamed, and the timeout counts from the last token received (httpx's read timeout), so a
  slow CPU model that is producing tokens is never cut off; a silent one fails naming ``IFWORLD_TIMEOUT_S``.
- Every call carries ``max_tokens`` (``IFWORLD_MAX_TOKENS`` / per role); a reply cut at the bound is
  reported as truncated and retried once with twice the bound (up to ``MAX_TOKENS_LIMIT``).
- Structured output adapts to the endpoint (``json_schema``, forced ``function_calling``, ``json_mode``,
  ``prompt``). ``auto`` tries them in that order once per (endpoint, model) — a 4xx, or a 5xx whose body
  names the format, moves on without retrying the same request — and remembers the one that works in the
  run store, so the app and the CLI share it. A reply that is invalid or empty gets one repair turn.
- Transport failures (429, 5xx, timeouts, dropped connections) are retried with exponential backoff; every
  attempt is accounted by :class:`~ifworld.llm.usage.UsageTracker`, and each wait is announced
  (:func:`~ifworld.llm.diagnose.retry_note`). A failed call names its cause and address
  (:func:`~ifworld.llm.diagnose.classify`) and every outcome sets the connection status (:mod:`ifworld.llm.status`).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import re
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any, TypeVar

import httpx
import openai
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langchain_openai import ChatOpenAI
from pydantic import BaseModel, ValidationError

from ifworld import stopping
from ifworld.config import MAX_TOKENS_LIMIT, NO_MODEL_HELP, Settings, load_settings
from ifworld.errors import ModelError
from ifworld.llm.diagnose import classify, retry_note
from ifworld.llm.methods import _probe_locks, chain, endpoint_key, known_method, remember
from ifworld.llm.reply import (
    KEPT_NOTE,
    MAX_REPLY_CHARS,
    LLMCallError,
    LLMNotConfigured,
    ReplyFormatError,
    StructuredOutputError,
    TruncatedOutputError,
    UnreadableReply,
    UnusableReplyError,
    complete_part,
    cut_text,
    extract_json,
    message_text,
    strip_think,
)
from ifworld.llm.schema import missing_content, sent_schema, shown_schema
from ifworld.llm.status import record_failure, record_ok
from ifworld.llm.streaming import PARTIAL_INTERVAL_S, ChatRunnable, PartialFeed, PartialSink, Reply, read_reply
from ifworld.llm.usage import UsageTracker
from ifworld.llm.wire import ROLE_HEADER, call_name
from ifworld.redact import safe_error

__all__ = ["PARTIAL_INTERVAL_S", "acomplete", "astructured", "chat_model", "complete", "limiter", "structured"]

T = TypeVar("T", bound=BaseModel)
Messages = Sequence[BaseMessage | tuple[str, str]]
Callbacks = list[BaseCallbackHandler]
"""A chat model, or one bound to a structured-output method."""

FORMAT_WORDS_RE = re.compile(r"response_format|json_schema|json_object|tool_choice|\btools?\b|grammar", re.I)
RETRYABLE = (openai.RateLimitError, openai.APIConnectionError, openai.APITimeoutError, openai.InternalServerError,
             httpx.TransportError, UnreadableReply)
# What the SDK raises reading a hostile reply: bytes that are not UTF-8, a body that is not JSON, JSON nested
# beyond the parser's recursion limit. Retried, then reported as a failed call (not a bare exception name).
NOT_FORMAT_STATUSES = {401, 403, 404, 408, 429}  # auth, wrong URL/model, timeouts, rate limits: not the format
MAX_BACKOFF_S = 20.0
CONNECT_TIMEOUT_S = 10.0
"""At most one partial-JSON progress event per call per this many seconds (keeps streaming overhead low)."""
NOSTREAM_TAG = "nostream"  # LangGraph's public tag: keep a call's tokens out of the "messages" stream mode
REPAIR_INSTRUCTION = (
    "Your previous reply could not be used: {error}\n"
    "Reply again with ONLY one JSON object that matches the schema, with every field filled in. No prose, no "
    "code fences, no comments."
)


class _FormatRejected(ModelError):
    """The endpoint refused the structured-output method (not a transport failure)."""


# -- Models ----------------------------------------------------------------------------------------
_limiters: dict[int, threading.BoundedSemaphore] = {}
_limiters_lock = threading.Lock()


def limiter(max_concurrency: int) -> threading.BoundedSemaphore:
    """Process-wide semaphore shared by every session and thread, so the endpoint sees ≤ the limit."""
    with _limiters_lock:
        if max_concurrency not in _limiters:
            _limiters[max_concurrency] = threading.BoundedSemaphore(max_concurrency)
        return _limiters[max_concurrency]


def _timeout(seconds: float) -> httpx.Timeout:
    return httpx.Timeout(seconds, connect=min(CONNECT_TIMEOUT_S, seconds))


@lru_cache(maxsize=16)
def _http_client(timeout_s: float) -> httpx.Client:
    """One pooled HTTP client per timeout, shared by every model object (a new client per call would open a
    new connection per call; LangChain's own cache cannot key on an ``httpx.Timeout``)."""
    return httpx.Client(timeout=_timeout(timeout_s), limits=httpx.Limits(max_connections=64,
                                                                         max_keepalive_connections=32))


def chat_model(role: str, settings: Settings | None = None, *, variant: str = "", **overrides: Any) -> ChatOpenAI:
    """A ChatOpenAI for ``role`` (per-role model and bound apply). Retries are added by the callers.

    Every request it sends carries the role in the :data:`~ifworld.llm.wire.ROLE_HEADER` header (``variant``
    names one kind of call of the role: ``whatif.report#core``), so a server can tell who is asking without
    reading the prompt; servers that do not know the header ignore it."""
    settings = settings or load_settings()
    if not settings.enabled:
        raise LLMNotConfigured(role, NO_MODEL_HELP)
    key = settings.api_key.get_secret_value() if settings.api_key else "not-needed"
    params: dict[str, Any] = {
        "model": settings.model_for(role),
        "base_url": settings.base_url,
        "api_key": key,
        "temperature": settings.temperature,
        # read = the longest silence between two streamed tokens (or before the first one)
        "timeout": _timeout(settings.timeout_s),
        "http_client": _http_client(settings.timeout_s),
        "max_retries": 0,  # retries are ours so each attempt is accounted and format errors are not retried
        "stream_usage": True,
        # stream=False means one response: LangChain otherwise streams an invoke() whenever LangGraph's "messages"
        # mode listens, so a server that cannot stream failed and a 2 MB reply was read as 250,000 chunks (minutes
        # of CPU, past the reply bound that only the streaming reader enforces)
        "disable_streaming": not settings.stream,
        "default_headers": {ROLE_HEADER: call_name(role, variant)},
    }
    bound = overrides.pop("max_tokens", settings.max_tokens_for(role))
    if settings.base_url:
        # LangChain sends OpenAI's newer ``max_completion_tokens``, which llama.cpp, Ollama and LM Studio do
        # not read: a local server would generate unbounded. They all read ``max_tokens``.
        params["extra_body"] = {"max_tokens": bound}
    else:
        params["max_tokens"] = bound
    params.update(overrides)
    return _cached_model(params)


_models: dict[str, ChatOpenAI] = {}
_models_lock = threading.Lock()
MODEL_CACHE_SIZE = 64


def _cached_model(params: dict[str, Any]) -> ChatOpenAI:
    """One ChatOpenAI per distinct parameters. Building one builds two httpx clients with fresh SSL contexts
    (≈0.1 s of CPU, holding the GIL): per call, that serialised a round's parallel experts. LangChain's
    own client cache does not apply because an ``httpx.Timeout`` is not hashable."""
    timeout = params["timeout"]
    key = hashlib.sha256(repr(sorted(
        {**params, "timeout": (timeout.connect, timeout.read, timeout.write, timeout.pool)}.items())).encode()
    ).hexdigest()
    with _models_lock:
        model = _models.get(key)
        if model is None:
            if len(_models) >= MODEL_CACHE_SIZE:
                _models.clear()
            model = _models[key] = ChatOpenAI(**params)
        return model


def _to_messages(messages: Messages) -> list[BaseMessage]:
    out: list[BaseMessage] = []
    for m in messages:
        if isinstance(m, BaseMessage):
            out.append(m)
        else:
            kind, text = m
            cls = {"system": SystemMessage, "ai": AIMessage, "assistant": AIMessage}.get(kind, HumanMessage)
            out.append(cls(text))
    return out


# -- One request: bounded, retried on transport failures (reading it: :mod:`ifworld.llm.streaming`) ----
def _names_format(exc: Exception) -> bool:
    body = getattr(exc, "body", None)
    text = f"{getattr(exc, 'message', '')} {json.dumps(body) if body is not None else ''}"
    return bool(FORMAT_WORDS_RE.search(text))


def _is_format_rejection(exc: Exception) -> bool:
    """A 4xx (other than auth / not found / rate limit), or a 5xx whose body names the output format."""
    if not isinstance(exc, openai.APIStatusError):
        return False
    status = exc.status_code
    if 400 <= status < 500:
        return status not in NOT_FORMAT_STATUSES
    return status >= 500 and _names_format(exc)


def _backoff(settings: Settings, attempt: int) -> float:
    base = settings.retry_backoff_s
    return min(MAX_BACKOFF_S, base * 2 ** attempt) + random.uniform(0, base) if base > 0 else 0.0


def _call(role: str, model: ChatRunnable, msgs: list[BaseMessage], settings: Settings, cfg: RunnableConfig,
          feed: PartialFeed, *, formatted: bool = False, structured: bool = False) -> Reply:
    """One logical request with transport retries. ``formatted``: a refused format raises _FormatRejected.
    ``structured``: replies unreadable to the last retry raise :class:`UnusableReplyError`, a
    :class:`StructuredOutputError`, so the callers' degrade path for bad replies applies."""
    last: Exception | None = None
    for attempt in range(settings.max_retries + 1):
        if attempt and last is not None:
            retry_note(last, settings, attempt)  # "waiting for the model — retry 1 of 2: connection refused at …"
            time.sleep(_backoff(settings, attempt - 1))
        try:
            with limiter(settings.max_concurrency):
                stopping.check()  # after the wait for a slot: a stopped process starts no request
                reply = read_reply(model, msgs, cfg, settings, feed)
            record_ok(settings)
            return reply
        except (openai.APIStatusError, *RETRYABLE) as exc:
            if formatted and _is_format_rejection(exc):
                raise _FormatRejected(_status_text(exc)) from exc
            if not isinstance(exc, RETRYABLE):
                raise _call_error(role, exc, settings, None) from exc
            last = exc
    if structured and isinstance(last, UnreadableReply):
        raise UnusableReplyError(role, _failure_text(last, settings)) from last
    raise _call_error(role, last, settings, settings.max_retries) from last


def _status_text(exc: Exception) -> str:
    if isinstance(exc, openai.APIStatusError):
        return safe_error(f"HTTP {exc.status_code}: {exc.message}", 500)  # mask before cutting
    return safe_error(exc, 500)


def _call_error(role: str, exc: Exception | None, settings: Settings, retries: int | None) -> LLMCallError:
    """The failed call in words (:func:`~ifworld.llm.diagnose.classify`: cause and address); the connection
    status turns to failing. The error carries the :class:`~ifworld.llm.diagnose.Failure` as ``failure``."""
    if exc is None:
        return LLMCallError(role, "failed")
    if isinstance(exc, UnreadableReply):
        return LLMCallError(role, _failure_text(exc, settings))
    failure = classify(exc, settings, model=settings.model_for(role))
    record_failure(settings, failure)
    after = f" (after {retries} retries)" if retries else ""
    error = LLMCallError(role, f"{failure.message}{after}")
    error.failure = failure  # type: ignore[attr-defined]
    return error


def _failure_text(exc: Exception | None, settings: Settings) -> str:
    retries = f"after {settings.max_retries} retries"
    if isinstance(exc, UnreadableReply):
        return f"{exc} ({retries}); the call counts as failed"
    return f"{_status_text(exc) if exc else 'failed'} {retries}"


def _config(role: str, call_id: str, meta: dict[str, Any] | None, callbacks: Callbacks | None, *,
            quiet: bool = False, **extra: Any) -> RunnableConfig:
    metadata = {"ifworld_role": role, "ifworld_call": call_id}
    for k, v in {**(meta or {}), **extra}.items():
        metadata[f"ifworld_{k}"] = v
    tags = [f"role:{role}"] + ([NOSTREAM_TAG] if quiet else [])
    cfg: RunnableConfig = {"metadata": metadata, "run_name": role, "tags": tags}
    if callbacks:
        cfg["callbacks"] = callbacks
    return cfg


def _bounded(role: str, settings: Settings, bound: int, send: Callable[[int], Reply]) -> tuple[Reply, int]:
    """Send with ``bound``; a reply cut at the bound is retried once with twice the bound when allowed."""
    reply = send(bound)
    if reply.finish == "length" and bound < MAX_TOKENS_LIMIT:
        bound = min(MAX_TOKENS_LIMIT, bound * 2)
        reply = send(bound)
    return reply, bound


def complete(role: str, messages: Messages, *, settings: Settings | None = None, meta: dict[str, Any] | None = None,
             callbacks: Callbacks | None = None, variant: str = "", **model_overrides: Any) -> str:
    """Plain text completion for ``role`` with retries; ``<think>`` blocks removed.

    ``variant`` names the kind of call when a role makes several (it goes on the wire with the role, see
    :mod:`ifworld.llm.wire`; records and settings use the role alone).
    ``meta`` (e.g. ``{"round": 2, "system": "whatif"}``) is attached to the call record. A reply cut at the
    bound is retried once with a larger bound; if it is cut again the text so far is returned and the call
    is recorded as ``truncated``.
    """
    settings = settings or load_settings()
    msgs = _to_messages(messages)
    call_id = uuid.uuid4().hex
    first = int(model_overrides.pop("max_tokens", settings.max_tokens_for(role)))

    def send(bound: int) -> Reply:
        model = chat_model(role, settings, variant=variant, max_tokens=bound, **model_overrides)
        cfg = _config(role, call_id, meta, callbacks, max_tokens=bound)
        return _call(role, model, msgs, settings, cfg, PartialFeed(None))

    reply, _ = _bounded(role, settings, first, send)
    return cut_text(strip_think(reply.text))


# -- Structured output -----------------------------------------------------------------------------
def schema_instruction(schema: type[BaseModel]) -> str:
    """The JSON schema as every structured call appends it to the system message (the packer counts it)."""
    compact = json.dumps(shown_schema(schema), separators=(",", ":"))
    return f"\n\nReply with one JSON object that conforms to this JSON schema (fill in every field):\n{compact}"


def _with_schema(msgs: list[BaseMessage], schema: type[BaseModel]) -> list[BaseMessage]:
    """Append the schema to the system message: every method shows it (servers that grammar-constrain a
    forced tool call do not show the tool to the model), and it sits in the prefix a round's calls share."""
    if msgs and isinstance(msgs[0], SystemMessage):
        return [SystemMessage(message_text(msgs[0]) + schema_instruction(schema)), *msgs[1:]]
    return [SystemMessage(schema_instruction(schema).strip()), *msgs]


def _format_kwargs(method: str, schema: type[BaseModel]) -> dict[str, Any]:
    name = re.sub(r"[^A-Za-z0-9_-]", "_", schema.__name__)[:64]
    if method == "json_schema":
        spec = {"name": name, "schema": sent_schema(schema), "strict": False}
        return {"response_format": {"type": "json_schema", "json_schema": spec}}
    if method == "function_calling":
        tool = {"type": "function", "function": {"name": name, "description": f"Record the {name} object.",
                                                 "parameters": sent_schema(schema)}}
        return {"tools": [tool], "tool_choice": {"type": "function", "function": {"name": name}}}
    if method == "json_mode":
        return {"response_format": {"type": "json_object"}}
    return {}


def _invoke_structured(role: str, msgs: list[BaseMessage], schema: type[BaseModel], settings: Settings,
                       call_id: str, meta: dict[str, Any] | None, callbacks: Callbacks | None,
                       sink: PartialSink | None, overrides: dict[str, Any]) -> Reply:
    """Send with the endpoint's method; under ``auto`` a refused method moves to the next, once."""
    key = endpoint_key(settings, role)
    probing = settings.structured_method == "auto" and known_method(settings, role) is None
    lock = _probe_locks.setdefault(key, threading.Lock()) if probing else None
    if lock:
        lock.acquire()  # the first call per (endpoint, model) probes; the others wait and reuse its answer
    try:
        chain_, refused = chain(settings, role), []
        for method in chain_:

            def send(bound: int, method: str = method) -> Reply:
                model = chat_model(role, settings, **{**overrides, "max_tokens": bound})  # carries the variant
                bound_model = model.bind(**_format_kwargs(method, schema))
                cfg = _config(role, call_id, meta, callbacks, quiet=True, method=method, max_tokens=bound)
                return _call(role, bound_model, msgs, settings, cfg, PartialFeed(sink), formatted=method != "prompt",
                             structured=True)

            try:
                reply, bound = _bounded(role, settings, settings.max_tokens_for(role), send)
            except _FormatRejected as exc:
                refused.append(f"{method}: {exc}")
                continue
            if settings.structured_method == "auto":
                remember(settings, role, method)
            if reply.finish == "length" and len(reply.text) > MAX_REPLY_CHARS:
                raise TruncatedOutputError(
                    role, f"the server sent more than {MAX_REPLY_CHARS:,} characters (it ignores the bound of "
                          f"{bound} tokens); reading stopped there", reply.text)
            if reply.finish == "length":
                raise TruncatedOutputError(
                    role, f"reply truncated at {bound} tokens even after a retry with a larger bound; raise "
                          f"{settings.max_tokens_setting(role)}", reply.text)
            return reply
        hint = "" if settings.structured_method == "auto" else " (set IFWORLD_STRUCTURED_METHOD=auto to adapt)"
        raise LLMCallError(role, f"the endpoint refused every structured-output method{hint}: {'; '.join(refused)}")
    finally:
        if lock:
            lock.release()


def _parse(schema: type[T], text: str) -> T:
    data = extract_json(text)
    value = schema.model_validate(data)
    empty = missing_content(schema, data)
    if empty:
        raise ReplyFormatError("the reply has no content: " + ", ".join(empty))
    return value


def structured(role: str, messages: Messages, schema: type[T], *, settings: Settings | None = None,
               meta: dict[str, Any] | None = None, callbacks: Callbacks | None = None,
               on_partial: PartialSink | None = None, variant: str = "",
               **model_overrides: Any) -> T:
    """A validated, non-empty ``schema`` instance from ``role``.

    The endpoint's structured-output method is used (see the module doc), ``<think>`` is stripped, and an
    invalid or empty reply gets one repair turn before :class:`StructuredOutputError`. ``on_partial``
    receives the partially parsed object while the reply streams (throttled to every
    :data:`PARTIAL_INTERVAL_S`). Structured calls are tagged ``nostream``: their JSON tokens do not flood
    LangGraph's "messages" stream; progress goes through ``on_partial`` instead. ``model_overrides`` (e.g.
    ``seed``, ``temperature``) go to the chat model; ``variant`` goes on the wire with the role (:func:`complete`).
    """
    settings = settings or load_settings()
    msgs = _with_schema(_to_messages(messages), schema)
    call_id = uuid.uuid4().hex
    tracker = _find_tracker(callbacks)
    if variant:
        model_overrides = {**model_overrides, "variant": variant}
    try:
        reply = _invoke_structured(role, msgs, schema, settings, call_id, meta, callbacks, on_partial, model_overrides)
        try:
            return _parse(schema, reply.text)
        except (ValueError, ValidationError) as exc:
            error = _short_error(exc)
        repair = msgs + [AIMessage(reply.text[:4000]), HumanMessage(REPAIR_INSTRUCTION.format(error=error))]
        reply = _invoke_structured(role, repair, schema, settings, call_id, meta, callbacks, on_partial,
                                   model_overrides)
        try:
            value = _parse(schema, reply.text)
        except (ValueError, ValidationError) as exc:
            if tracker:
                tracker.mark(call_id, "failed", f"invalid JSON after repair: {_short_error(exc)}")
            raise StructuredOutputError(role, f"reply was not valid JSON after one repair: {_short_error(exc)}",
                                        reply.text) from exc
    except TruncatedOutputError as exc:
        kept = complete_part(schema, exc.raw)
        if tracker:
            tracker.mark(call_id, "truncated", f"{exc}; {KEPT_NOTE}" if kept is not None else str(exc))
        if kept is None:
            raise
        return kept
    if tracker:
        tracker.mark(call_id, "repaired")
    return value


def _find_tracker(callbacks: Callbacks | None) -> UsageTracker | None:
    """The UsageTracker given explicitly, or the one on the enclosing LangGraph run's callbacks."""
    handlers = list(callbacks or [])
    if not handlers:
        try:
            from langgraph.config import get_config

            manager = get_config().get("callbacks")
        except (RuntimeError, ImportError):
            manager = None
        handlers = list(getattr(manager, "handlers", None) or (manager if isinstance(manager, list) else []))
    return next((h for h in handlers if isinstance(h, UsageTracker)), None)


def _short_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:5])
    return str(exc)[:300]


async def acomplete(role: str, messages: Messages, **kwargs: Any) -> str:
    """Async :func:`complete`; shares the process-wide concurrency limit."""
    return await asyncio.to_thread(lambda: complete(role, messages, **kwargs))


async def astructured(role: str, messages: Messages, schema: type[T], **kwargs: Any) -> T:
    """Async :func:`structured`; shares the process-wide concurrency limit."""
    return await asyncio.to_thread(lambda: structured(role, messages, schema, **kwargs))

