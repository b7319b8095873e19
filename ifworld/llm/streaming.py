"""Reading one reply: streamed token by token (or in one piece), bounded, with partial JSON for progress.

Split from :mod:`ifworld.llm.client` (which decides what to send, retries and accounts): this module only turns a
chat model's stream into one reply — the text or a forced tool call's arguments, the finish reason (a reply over
:data:`~ifworld.llm.reply.MAX_REPLY_CHARS` or at the token bound counts as cut), and throttled partial-JSON
dicts for a progress sink every :data:`PARTIAL_INTERVAL_S`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import openai
from langchain_core.language_models import LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.utils.json import parse_partial_json

from ifworld.config import MAX_TOKENS_LIMIT, Settings
from ifworld.llm.reply import MAX_REPLY_CHARS, UnreadableReply, clean_text, message_text, strip_think, unreadable_text

PartialSink = Callable[[dict[str, Any]], None]
ChatRunnable = Runnable[LanguageModelInput, AIMessage]
UNREADABLE = (UnicodeDecodeError, json.JSONDecodeError, RecursionError, openai.APIResponseValidationError)
PARTIAL_INTERVAL_S = 0.25


@dataclass
class Reply:
    text: str
    finish: str


class PartialFeed:
    """Turns streamed pieces into throttled partial-JSON dicts for a progress sink."""

    def __init__(self, sink: PartialSink | None) -> None:
        self.sink = sink
        self.parts: list[str] = []
        self.last_emit = 0.0
        self.last: dict[str, Any] | None = None

    def add(self, piece: str) -> None:
        if not piece or self.sink is None:
            return
        self.parts.append(piece)
        now = time.monotonic()
        if now - self.last_emit >= PARTIAL_INTERVAL_S:
            self.last_emit = now
            self._publish()

    def _publish(self) -> None:
        text = strip_think("".join(self.parts))
        start = text.find("{")
        try:
            value = parse_partial_json(text[start:]) if start >= 0 else None
        except (ValueError, RecursionError):  # progress only: an unreadable prefix shows nothing yet
            value = None
        if self.sink is not None and isinstance(value, dict) and value and value != self.last:
            self.last = value
            self.sink(value)

    def flush(self) -> None:
        if self.sink is not None and self.parts:
            self._publish()


def _stream(model: ChatRunnable, msgs: list[BaseMessage], cfg: RunnableConfig, feed: PartialFeed,
            bound: int) -> Reply:
    text: list[str] = []
    args: list[str] = []
    finish = ""
    pieces = size = 0
    try:
        for chunk in model.stream(msgs, config=cfg):
            if isinstance(chunk.content, str) and chunk.content:
                pieces += 1
                size += len(chunk.content)
                text.append(chunk.content)
                feed.add(chunk.content)
            for tc in getattr(chunk, "tool_call_chunks", None) or []:
                if tc.get("args") and tc.get("index", 0) in (0, None):
                    pieces += 1
                    size += len(tc["args"])
                    args.append(tc["args"])
                    feed.add(tc["args"])
            finish = (chunk.response_metadata or {}).get("finish_reason") or finish
            if size > MAX_REPLY_CHARS:
                # the server ignores the bound: stop reading (LangChain re-joins the chunks at every step, so
                # reading 2 MB took minutes of CPU) and treat the reply as cut at the bound
                finish = "length"
                break
    except openai.LengthFinishReasonError:
        finish = "length"  # the SDK's json_schema helper raises at the bound; we report it as truncation
    feed.flush()
    if pieces >= bound and finish != "length":
        # llama-cpp-python reports a forced tool call cut at max_tokens as "tool_calls"; it streams one token
        # per chunk, so a chunk count at the bound is the truncation it does not report.
        finish = "length"
    return Reply(clean_text("".join(args) if args else "".join(text)), finish)


def _send(model: ChatRunnable, msgs: list[BaseMessage], cfg: RunnableConfig, settings: Settings,
          feed: PartialFeed) -> Reply:
    if settings.stream:
        bound = int(cfg.get("metadata", {}).get("ifworld_max_tokens") or MAX_TOKENS_LIMIT)
        return _stream(model, msgs, cfg, feed, bound)
    try:
        msg = model.invoke(msgs, config=cfg)
    except openai.LengthFinishReasonError as exc:
        return Reply(clean_text(exc.completion.choices[0].message.content or ""), "length")
    return Reply(clean_text(message_text(msg)), (msg.response_metadata or {}).get("finish_reason") or "")


def read_reply(model: ChatRunnable, msgs: list[BaseMessage], cfg: RunnableConfig, settings: Settings,
          feed: PartialFeed) -> Reply:
    """:func:`_send`, with a reply the SDK cannot read raised as :class:`UnreadableReply` (retried)."""
    try:
        return _send(model, msgs, cfg, settings, feed)
    except UNREADABLE as exc:
        raise UnreadableReply(unreadable_text(exc)) from None
