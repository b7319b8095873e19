"""What comes back from a model call: the errors a call raises, a reply's text, and the JSON read out of it.

Apart from :mod:`ifworld.llm`, which builds and calls models (and re-exports these names); nothing here
talks to an endpoint.
"""

from __future__ import annotations

import json
import re
from typing import Any

from langchain_core.messages import BaseMessage

from ifworld.redact import safe_error

THINK_RE = re.compile(r"<think>.*?(</think>|$)", re.S | re.I)
FENCE_RE = re.compile(r"```(?:json)?\s*(.*?)```", re.S | re.I)


class LLMError(RuntimeError):
    """A model call failed; ``role`` names the agent so messages say who failed."""

    def __init__(self, role: str, message: str) -> None:
        # Endpoints may echo the key (or the Authorization header) in their error body.
        super().__init__(safe_error(f"[{role}] {message}"))
        self.role = role


class LLMNotConfigured(LLMError):
    pass


class LLMCallError(LLMError):
    """Transport failure after all retries (rate limit, server error, timeout, unreachable)."""


class StructuredOutputError(LLMError):
    """The reply was still not valid, non-empty JSON for the schema after the repair turn."""

    def __init__(self, role: str, message: str, raw: str = "") -> None:
        super().__init__(role, message)
        self.raw = raw


class TruncatedOutputError(StructuredOutputError):
    """The reply was cut at the generation bound even after one retry with a larger bound."""


def message_text(msg: BaseMessage) -> str:
    """A reply message's text: a forced tool call's arguments as JSON, else its content."""
    if getattr(msg, "tool_calls", None):
        return json.dumps(msg.tool_calls[0].get("args", {}))
    content = msg.content
    if isinstance(content, list):
        return "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)
    return content or ""


def strip_think(text: str) -> str:
    """Drop reasoning models' <think>…</think> blocks (an unclosed one runs to the end)."""
    return THINK_RE.sub("", text or "").strip()


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
            # strict=False: raw control characters inside strings (a newline a grammar-constrained llama.cpp
            # model writes unescaped) are read as text, not a reason to throw the reply away
            return json.loads(cand.strip(), strict=False)
        except json.JSONDecodeError as exc:
            last_error = exc
    raise ValueError(f"no JSON object found ({last_error})")
