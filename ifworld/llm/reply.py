"""What comes back from a model call: the errors a call raises, a reply's text, and the JSON read out of it.

Apart from :mod:`ifworld.llm`, which builds and calls models (and re-exports these names); nothing here
talks to an endpoint.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any, TypeVar

from langchain_core.messages import BaseMessage
from langchain_core.utils.json import parse_partial_json
from pydantic import BaseModel, ValidationError

from ifworld.errors import ModelError
from ifworld.llm.schema import missing_content
from ifworld.redact import safe_error

T = TypeVar("T", bound=BaseModel)

THINK_RE = re.compile(r"<think>.*?(</think>|$)", re.S | re.I)
FENCE_RE = re.compile(r"```(?:json)?\s*(.*?)```", re.S | re.I)
LONE_SURROGATE_RE = re.compile("[\ud800-\udfff]")
"""A surrogate code point left alone in a str (JSON's ``"\\ud800"`` decodes to one): no UTF-8 can hold it."""
MAX_REPLY_CHARS = 100_000
"""Most characters of one reply that are read, stored and shown. ``MAX_TOKENS_LIMIT`` (16,384 tokens) is about
65,000 characters of text; a server sending more ignores the bound (a 2 MB reply once made a 10-call what-if
store 181 MB). A longer reply keeps its head and tail with a note giving its size and sha256."""
MAX_FIELD_CHARS = 20_000
"""Longest text field kept from a structured reply that is over :data:`MAX_REPLY_CHARS` (head and tail)."""


class LLMError(ModelError, RuntimeError):
    """A model call failed; ``role`` names the agent so messages say who failed."""

    def __init__(self, role: str, message: str) -> None:
        # Endpoints may echo the key (or the Authorization header) in their error body.
        super().__init__(safe_error(f"[{role}] {message}"))
        self.role = role


class LLMNotConfigured(LLMError):
    """No model is connected (no endpoint or key set); the message says how to connect one."""


class LLMCallError(LLMError):
    """Transport failure after all retries (rate limit, server error, timeout, unreachable)."""


class StructuredOutputError(LLMError):
    """The reply was still not valid, non-empty JSON for the schema after the repair turn."""

    def __init__(self, role: str, message: str, raw: str = "") -> None:
        super().__init__(role, message)
        self.raw = cut_text(clean_text(raw))
        """The reply as stored and shown (callers keep it in traces): head and tail when it was too long."""


class TruncatedOutputError(StructuredOutputError):
    """The reply was cut at the generation bound even after one retry with a larger bound."""


class UnusableReplyError(StructuredOutputError):
    """Every attempt of a structured call got a reply that could not be read (see :class:`UnreadableReply`)."""


class ReplyFormatError(ModelError, ValueError):
    """A reply holds no usable JSON for its schema (no object, or no content); the repair turn is told why."""


class UnreadableReply(ModelError, ValueError):
    """The endpoint's reply could not be read at all (bytes that are not UTF-8, JSON nested beyond reach);
    the call is retried like a transport failure."""


def unreadable_text(exc: BaseException) -> str | None:
    """What was wrong with a reply the SDK could not read, in words (None: not such an error)."""
    if isinstance(exc, UnreadableReply):
        return str(exc)
    if isinstance(exc, UnicodeDecodeError):
        return (f"the endpoint sent a reply that is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at "
                f"position {exc.start:,})")
    if isinstance(exc, RecursionError):
        return "the endpoint sent JSON nested deeper than it can be read"
    if isinstance(exc, json.JSONDecodeError):
        return f"the endpoint sent a reply that is not valid JSON ({safe_error(exc, 200)})"
    return None


def clean_text(text: str) -> str:
    """``text`` with lone surrogates replaced by U+FFFD, so it can be encoded, stored and shown."""
    return LONE_SURROGATE_RE.sub("\ufffd", text) if LONE_SURROGATE_RE.search(text) else text


def clean_value(value: Any) -> Any:
    """:func:`clean_text` on every string of a parsed JSON value (keys too)."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {clean_text(k): clean_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clean_value(v) for v in value]
    return value


def digest(text: str) -> str:
    """sha256 of a reply's UTF-8 text (lone surrogates written as U+FFFD), as hex."""
    return hashlib.sha256(clean_text(text).encode()).hexdigest()


def cut_text(text: str, limit: int = MAX_REPLY_CHARS, what: str = "reply") -> str:
    """``text`` when it fits ``limit``; else its first three quarters and last quarter of ``limit`` around a
    note saying it was cut, with the whole text's size and sha256 (so a copy can still be matched)."""
    if len(text) <= limit:
        return text
    head, tail = limit * 3 // 4, limit // 4
    note = (f"\n… [{what} cut: {len(text):,} characters in all, sha256 {digest(text)}; kept the first {head:,} "
            f"and the last {tail:,}] …\n")
    return text[:head] + note + text[-tail:]


def cut_strings(value: Any, limit: int = MAX_FIELD_CHARS) -> Any:
    """:func:`cut_text` on every string of a parsed JSON value longer than ``limit``."""
    if isinstance(value, str):
        return cut_text(value, limit, "text")
    if isinstance(value, dict):
        return {k: cut_strings(v, limit) for k, v in value.items()}
    if isinstance(value, list):
        return [cut_strings(v, limit) for v in value]
    return value


def loads(text: str) -> Any:
    """``json.loads`` (lenient about raw control characters in strings) that reports JSON nested too deep
    for the parser (``[[[[…`` ×10⁶) as a :class:`ReplyFormatError` instead of a ``RecursionError``."""
    try:
        # strict=False: raw control characters inside strings (a newline a grammar-constrained llama.cpp model
        # writes unescaped) are read as text, not a reason to throw the reply away
        return json.loads(text, strict=False)
    except RecursionError:
        raise ReplyFormatError("the reply's JSON is nested deeper than it can be read") from None


def message_text(msg: BaseMessage) -> str:
    """A reply message's text: a forced tool call's arguments as JSON, else its content."""
    calls = getattr(msg, "tool_calls", None)  # only an AIMessage has them
    if calls:
        return json.dumps(calls[0].get("args", {}))
    content = msg.content
    if isinstance(content, list):
        return "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)
    return content or ""


def strip_think(text: str) -> str:
    """Drop reasoning models' <think>…</think> blocks (an unclosed one runs to the end)."""
    return THINK_RE.sub("", text or "").strip()


def extract_json(text: str) -> Any:
    """Parse the JSON object in a reply: whole text, a fenced block, or the outermost {...} span. Strings come
    back without lone surrogates; a reply over :data:`MAX_REPLY_CHARS` has its long strings cut
    (:func:`cut_strings`) and is refused when it is still too long."""
    text = strip_think(text)
    value = _first_json(text)
    if len(text) > MAX_REPLY_CHARS:
        value = cut_strings(value)
        size = len(json.dumps(value))
        if size > MAX_REPLY_CHARS:
            raise ReplyFormatError(f"the reply is {len(text):,} characters; with its long texts cut it is still "
                                   f"{size:,}, more than the {MAX_REPLY_CHARS:,} kept per reply")
    return clean_value(value)


def _first_json(text: str) -> Any:
    candidates = [text] + FENCE_RE.findall(text)
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    last_error: Exception | None = None
    for cand in candidates:
        try:
            return loads(cand.strip())
        except (json.JSONDecodeError, ReplyFormatError) as exc:
            last_error = exc
    raise ReplyFormatError(f"no JSON object found ({last_error})")


KEPT_NOTE = "kept the items it had finished"
"""Ends the error of a ``truncated`` call whose complete part was used (workflows list those as degraded)."""
SALVAGE_ATTEMPTS = 64


def complete_prefix_json(text: str) -> dict[str, Any] | None:
    """The object a reply cut at the token bound had finished: the text up to its last complete value (a
    closing bracket, or the comma after a value, outside strings) with the brackets still open closed by
    LangChain's partial-JSON parser, so a list keeps its complete items and loses the one being written.
    ``None`` when nothing complete came before the cut."""
    text = strip_think(text)
    start = text.find("{")
    if start < 0:
        return None
    body = text[start:]
    for end in reversed(_value_ends(body)[-SALVAGE_ATTEMPTS:]):
        try:
            value = parse_partial_json(body[:end], strict=False)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict):
            return value
    return None


def _value_ends(body: str) -> list[int]:
    """Prefix lengths of ``body`` that end right after a complete value, outside strings."""
    ends, in_string, escaped = [], False, False
    for i, ch in enumerate(body):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "}]":
            ends.append(i + 1)
        elif ch == ",":
            ends.append(i)
    return ends


def complete_part(schema: type[T], text: str) -> T | None:
    """A reply cut at the bound even after the larger-bound retry still carries every item it finished
    (a small model typically loops on list items until the bound): keep that part when it validates and
    has the content the schema needs. The call stays ``truncated`` and says so (:data:`KEPT_NOTE`), so the
    run reports the step as degraded instead of losing it."""
    data = complete_prefix_json(text)
    if data is None:
        return None
    data = clean_value(cut_strings(data))
    if missing_content(schema, data):
        return None
    try:
        return schema.model_validate(data)
    except ValidationError:
        return None
