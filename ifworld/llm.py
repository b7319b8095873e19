"""The one place that builds chat models and calls them.

Everything else asks for a model by *role* (``"whatif.expert"``, ``"rws.pace.critic"`` …). Calls go through
``ChatOpenAI(base_url=…)`` so any OpenAI-compatible endpoint works. Transport failures (429, 5xx, timeouts,
connection errors) are retried by LangChain's ``with_retry`` with exponential backoff; structured output
gets one strict "JSON only" repair turn; every attempt is accounted by :class:`UsageTracker`, a LangChain
callback, so pages, the CLI and the run store all see the same numbers.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, TypeVar

import openai
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_openai import ChatOpenAI
from pydantic import BaseModel, ValidationError

from ifworld.config import NO_MODEL_HELP, Settings, load_settings

T = TypeVar("T", bound=BaseModel)
Messages = Sequence[BaseMessage | tuple[str, str]]

THINK_RE = re.compile(r"<think>.*?(</think>|$)", re.S | re.I)
FENCE_RE = re.compile(r"```(?:json)?\s*(.*?)```", re.S | re.I)
RETRYABLE = (openai.RateLimitError, openai.APIConnectionError, openai.APITimeoutError, openai.InternalServerError)
MAX_BACKOFF_S = 20.0
REPAIR_INSTRUCTION = (
    "Your previous reply could not be used: {error}\n"
    "Reply again with ONLY one JSON object that matches the schema. No prose, no code fences, no comments."
)


class LLMError(RuntimeError):
    """A model call failed; ``role`` names the agent so messages say who failed."""

    def __init__(self, role: str, message: str) -> None:
        super().__init__(f"[{role}] {message}")
        self.role = role


class LLMNotConfigured(LLMError):
    pass


class LLMCallError(LLMError):
    """Transport failure after all retries (rate limit, server error, timeout, unreachable)."""


class StructuredOutputError(LLMError):
    """The reply was still not valid JSON for the schema after the repair turn."""

    def __init__(self, role: str, message: str, raw: str = "") -> None:
        super().__init__(role, message)
        self.raw = raw


# ---------------------------------------------------------------------------------------------------
# Accounting
# ---------------------------------------------------------------------------------------------------
@dataclass
class CallRecord:
    """One logical model call (its retries folded in)."""

    call_id: str
    role: str
    model: str
    system: str = ""
    round: int | None = None
    start: float = 0.0
    end: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    retries: int = 0
    status: str = "running"
    error: str = ""
    output: str = ""

    @property
    def latency_s(self) -> float:
        return max(0.0, self.end - self.start)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "latency_s": round(self.latency_s, 4)}


class UsageTracker(BaseCallbackHandler):
    """Callback that folds every chat-model attempt into :class:`CallRecord` s (thread-safe).

    ``sink`` (e.g. the run store) receives each record when its call ends, so usage survives a crash.
    """

    raise_error = False

    def __init__(self, sink: Any = None) -> None:
        self.calls: dict[str, CallRecord] = {}
        self._runs: dict[Any, str] = {}
        self._lock = threading.Lock()
        self.sink = sink

    def on_chat_model_start(self, serialized: dict, messages: list, *, run_id: Any, metadata: dict | None = None,
                            **kwargs: Any) -> None:
        meta = metadata or {}
        call_id = meta.get("ifworld_call") or str(run_id)
        with self._lock:
            self._runs[run_id] = call_id
            rec = self.calls.get(call_id)
            if rec is None:
                self.calls[call_id] = CallRecord(
                    call_id, meta.get("ifworld_role", "unknown"), meta.get("ls_model_name", ""),
                    system=meta.get("ifworld_system", ""), round=meta.get("ifworld_round"), start=time.time(),
                )
            else:
                rec.retries += 1
                rec.status = "retrying"

    def on_llm_end(self, response: Any, *, run_id: Any, **kwargs: Any) -> None:
        with self._lock:
            rec = self.calls.get(self._runs.pop(run_id, ""))
            if rec is None:
                return
            prompt, completion, text = _usage_of(response)
            rec.prompt_tokens += prompt
            rec.completion_tokens += completion
            rec.output = text
            rec.end = time.time()
            rec.status = "ok"
        self._emit(rec)

    def on_llm_error(self, error: BaseException, *, run_id: Any, **kwargs: Any) -> None:
        with self._lock:
            rec = self.calls.get(self._runs.pop(run_id, ""))
            if rec is None:
                return
            rec.end = time.time()
            rec.status = "error"
            rec.error = f"{type(error).__name__}: {error}"[:500]

    def mark(self, call_id: str, status: str, error: str = "") -> None:
        """Set the final status of a call (e.g. ``repaired``, ``failed``) and publish it."""
        with self._lock:
            rec = self.calls.get(call_id)
            if rec is None:
                return
            rec.status, rec.error = status, error[:500] or rec.error
        self._emit(rec)

    def _emit(self, rec: CallRecord) -> None:
        if self.sink is not None:
            self.sink(rec)

    def records(self) -> list[CallRecord]:
        with self._lock:
            return sorted(self.calls.values(), key=lambda r: r.start)

    def totals(self) -> dict[str, Any]:
        recs = self.records()
        return usage_totals([r.to_dict() for r in recs])


def usage_totals(calls: list[dict]) -> dict[str, Any]:
    """Totals over call dicts: counts, tokens, retries, failures, summed latency."""
    return {
        "calls": len(calls),
        "prompt_tokens": sum(c.get("prompt_tokens", 0) for c in calls),
        "completion_tokens": sum(c.get("completion_tokens", 0) for c in calls),
        "retries": sum(c.get("retries", 0) for c in calls),
        "failed": sum(1 for c in calls if c.get("status") in ("error", "failed")),
        "latency_s": round(sum(c.get("latency_s", 0.0) for c in calls), 3),
    }


def _usage_of(response: Any) -> tuple[int, int, str]:
    try:
        gen = response.generations[0][0]
        msg = getattr(gen, "message", None)
        text = gen.text or (msg.content if msg is not None else "")
        usage = getattr(msg, "usage_metadata", None) or {}
        if not usage and response.llm_output:
            raw = response.llm_output.get("token_usage") or {}
            usage = {"input_tokens": raw.get("prompt_tokens", 0), "output_tokens": raw.get("completion_tokens", 0)}
        if not text and msg is not None and getattr(msg, "tool_calls", None):
            text = json.dumps(msg.tool_calls[0].get("args", {}))
        return int(usage.get("input_tokens", 0)), int(usage.get("output_tokens", 0)), str(text)
    except (AttributeError, IndexError, TypeError):
        return 0, 0, ""


# ---------------------------------------------------------------------------------------------------
# Models
# ---------------------------------------------------------------------------------------------------
_limiters: dict[int, threading.BoundedSemaphore] = {}
_limiters_lock = threading.Lock()
_method_fallback: dict[tuple[str | None, str], str] = {}


def limiter(max_concurrency: int) -> threading.BoundedSemaphore:
    """Process-wide semaphore shared by every session and thread, so the endpoint sees ≤ the limit."""
    with _limiters_lock:
        if max_concurrency not in _limiters:
            _limiters[max_concurrency] = threading.BoundedSemaphore(max_concurrency)
        return _limiters[max_concurrency]


def chat_model(role: str, settings: Settings | None = None, **overrides: Any) -> ChatOpenAI:
    """A ChatOpenAI for ``role`` (per-role model override applies). Retries are added by the callers."""
    settings = settings or load_settings()
    if not settings.enabled:
        raise LLMNotConfigured(role, NO_MODEL_HELP)
    key = settings.api_key.get_secret_value() if settings.api_key else "not-needed"
    params: dict[str, Any] = {
        "model": settings.model_for(role),
        "base_url": settings.base_url,
        "api_key": key,
        "temperature": settings.temperature,
        "timeout": settings.timeout_s,
        "max_retries": 0,  # retries are ours (with_retry) so each attempt is accounted
        "stream_usage": True,
    }
    params.update(overrides)
    return ChatOpenAI(**params)


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


def strip_think(text: str) -> str:
    """Drop reasoning models' <think>…</think> blocks (an unclosed one runs to the end)."""
    return THINK_RE.sub("", text or "").strip()


def _invoke(role: str, model: Any, messages: list[BaseMessage], settings: Settings, config: dict) -> AIMessage:
    runnable = model.with_retry(
        retry_if_exception_type=RETRYABLE,
        wait_exponential_jitter=settings.retry_backoff_s > 0,
        exponential_jitter_params={"multiplier": max(settings.retry_backoff_s, 0.01), "max": MAX_BACKOFF_S,
                                   "jitter": settings.retry_backoff_s},
        stop_after_attempt=settings.max_retries + 1,
    )
    with limiter(settings.max_concurrency):
        try:
            return runnable.invoke(messages, config=config)
        except RETRYABLE as exc:
            raise LLMCallError(role, f"{type(exc).__name__} after {settings.max_retries} retries: {exc}") from exc
        except openai.APIStatusError as exc:
            raise LLMCallError(role, f"HTTP {exc.status_code}: {exc.message}") from exc


def _config(role: str, call_id: str, meta: dict | None, callbacks: list | None) -> dict:
    metadata = {"ifworld_role": role, "ifworld_call": call_id}
    for k, v in (meta or {}).items():
        metadata[f"ifworld_{k}"] = v
    cfg: dict[str, Any] = {"metadata": metadata, "run_name": role, "tags": [f"role:{role}"]}
    if callbacks:
        cfg["callbacks"] = callbacks
    return cfg


def complete(role: str, messages: Messages, *, settings: Settings | None = None, meta: dict | None = None,
             callbacks: list | None = None, **model_overrides: Any) -> str:
    """Plain text completion for ``role`` with retries; ``<think>`` blocks removed.

    ``meta`` (e.g. ``{"round": 2, "system": "whatif"}``) is attached to the call record.
    """
    settings = settings or load_settings()
    model = chat_model(role, settings, **model_overrides)
    msg = _invoke(role, model, _to_messages(messages), settings, _config(role, uuid.uuid4().hex, meta, callbacks))
    return strip_think(_content(msg))


def _content(msg: BaseMessage) -> str:
    if getattr(msg, "tool_calls", None):
        return json.dumps(msg.tool_calls[0].get("args", {}))
    content = msg.content
    if isinstance(content, list):
        return "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)
    return content or ""


def extract_json(text: str) -> Any:
    """Parse the JSON object in a reply: whole text, a fenced block, or the outermost {...} span."""
    text = strip_think(text)
    candidates = [text] + FENCE_RE.findall(text)
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    last_error: Exception | None = None
    for cand in candidates:
        try:
            return json.loads(cand.strip())
        except json.JSONDecodeError as exc:
            last_error = exc
    raise ValueError(f"no JSON object found ({last_error})")


def _schema_instruction(schema: type[BaseModel]) -> str:
    compact = json.dumps(schema.model_json_schema(), separators=(",", ":"))
    return f"\n\nReply with one JSON object that conforms to this JSON schema:\n{compact}"


def _with_schema(msgs: list[BaseMessage], schema: type[BaseModel]) -> list[BaseMessage]:
    """Append the schema to the system message (local servers often ignore response_format)."""
    if msgs and isinstance(msgs[0], SystemMessage):
        return [SystemMessage(_content(msgs[0]) + _schema_instruction(schema)), *msgs[1:]]
    return [SystemMessage(_schema_instruction(schema).strip()), *msgs]


def _format_kwargs(method: str, schema: type[BaseModel]) -> dict[str, Any]:
    if method == "json_schema":
        spec = {"name": schema.__name__, "schema": schema.model_json_schema(), "strict": False}
        return {"response_format": {"type": "json_schema", "json_schema": spec}}
    if method == "json_mode":
        return {"response_format": {"type": "json_object"}}
    return {}


def _method_for(settings: Settings, role: str) -> str:
    if settings.structured_method != "auto":
        return settings.structured_method
    return _method_fallback.get((settings.base_url, settings.model_for(role)), "json_schema")


def _parse(schema: type[T], text: str) -> T:
    return schema.model_validate(extract_json(text))


def structured(role: str, messages: Messages, schema: type[T], *, settings: Settings | None = None,
               meta: dict | None = None, callbacks: list | None = None, **model_overrides: Any) -> T:
    """A validated ``schema`` instance from ``role``.

    Uses the endpoint's JSON-schema output where supported (falling back to JSON mode, then to a prompt-only
    request when the endpoint rejects the format), strips ``<think>``, and makes one repair turn with a strict
    JSON-only instruction before raising :class:`StructuredOutputError`.
    """
    settings = settings or load_settings()
    msgs = _with_schema(_to_messages(messages), schema)
    call_id = uuid.uuid4().hex
    cfg = _config(role, call_id, meta, callbacks)
    tracker = _find_tracker(callbacks)
    reply = _invoke_structured(role, msgs, schema, settings, cfg, model_overrides)
    try:
        return _parse(schema, reply)
    except (ValueError, ValidationError) as exc:
        error = _short_error(exc)
    repair = msgs + [AIMessage(reply[:4000]), HumanMessage(REPAIR_INSTRUCTION.format(error=error))]
    reply = _invoke_structured(role, repair, schema, settings, cfg, model_overrides)
    try:
        value = _parse(schema, reply)
    except (ValueError, ValidationError) as exc:
        if tracker:
            tracker.mark(call_id, "failed", f"invalid JSON after repair: {_short_error(exc)}")
        raise StructuredOutputError(role, f"reply was not valid JSON after one repair: {_short_error(exc)}",
                                    reply) from exc
    if tracker:
        tracker.mark(call_id, "repaired")
    return value


def _find_tracker(callbacks: list | None) -> UsageTracker | None:
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


def _invoke_structured(role: str, msgs: list[BaseMessage], schema: type[BaseModel], settings: Settings,
                       cfg: dict, model_overrides: dict[str, Any] | None = None) -> str:
    method = _method_for(settings, role)
    while True:
        model = chat_model(role, settings, **(model_overrides or {}))
        fmt = _format_kwargs(method, schema)
        if fmt:
            model = model.bind(**fmt)
        try:
            return _content(_invoke(role, model, msgs, settings, cfg))
        except LLMCallError as exc:
            rejected = isinstance(exc.__cause__, openai.BadRequestError | openai.UnprocessableEntityError)
            if not rejected or method == "prompt":
                raise
            method = "json_mode" if method == "json_schema" else "prompt"
            _method_fallback[(settings.base_url, settings.model_for(role))] = method


def _short_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:5])
    return str(exc)[:300]


async def acomplete(role: str, messages: Messages, **kwargs: Any) -> str:
    """Async :func:`complete`; shares the process-wide concurrency limit."""
    return await asyncio.to_thread(complete, role, messages, **kwargs)


async def astructured(role: str, messages: Messages, schema: type[T], **kwargs: Any) -> T:
    """Async :func:`structured`; shares the process-wide concurrency limit."""
    return await asyncio.to_thread(structured, role, messages, schema, **kwargs)


@dataclass(frozen=True)
class ConnectionReport:
    ok: bool
    latency_s: float
    model: str
    message: str
    models: list[str] = field(default_factory=list)


def test_connection(settings: Settings | None = None) -> ConnectionReport:
    """One tiny call to check the endpoint; never raises."""
    settings = settings or load_settings()
    model_name = settings.model_for("connection")
    start = time.perf_counter()
    try:
        quick = settings.model_copy(update={"max_retries": 0})
        text = complete("connection", [("user", "Reply with the single word: pong")], settings=quick,
                        max_tokens=5, temperature=0)
    except LLMError as exc:
        return ConnectionReport(False, time.perf_counter() - start, model_name, str(exc))
    return ConnectionReport(True, time.perf_counter() - start, model_name, f"replied {text[:40]!r}")


test_connection.__test__ = False  # not a pytest test despite the name
