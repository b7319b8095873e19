"""Accounting of model calls: one :class:`CallRecord` per logical call, folded from LangChain callbacks.

:class:`UsageTracker` is a LangChain callback handler, so pages, the CLI and the run store all see the same
numbers whichever way a call was made (streamed or not, inside a graph or not).
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import asdict, dataclass
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import BaseMessage
from pydantic import BaseModel, ConfigDict

from ifworld.llm.reply import MAX_REPLY_CHARS, clean_text, cut_text, digest, unreadable_text
from ifworld.redact import safe_error


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
    """The reply as stored and shown: at most :data:`~ifworld.llm.reply.MAX_REPLY_CHARS` (head and tail)."""
    output_chars: int = 0
    """Characters of the whole reply (before any cut)."""
    output_sha256: str = ""
    """sha256 of the whole reply (before any cut), to match it against a copy."""
    # Timings of the last attempt: when it was sent and when its first token arrived (None: not streamed).
    attempt_start: float = 0.0
    first_token: float | None = None
    last_completion_tokens: int = 0
    finish_reason: str = ""
    method: str = ""
    max_tokens: int | None = None
    # Servers that stream without usage (llama-cpp-python ignores stream_options.include_usage): tokens are
    # then estimated and the record says so: completion = streamed chunks (one token each on llama.cpp),
    # prompt = characters / 4.
    inputs: dict[str, Any] | None = None
    """How the prompt was packed (:meth:`ifworld.llm.packing.PackReport.record`): the window, and per named input
    the share that reached the prompt; None for prompts built without the packer."""
    usage_estimated: bool = False
    prompt_chars: int = 0
    streamed_chunks: int = 0

    @property
    def latency_s(self) -> float:
        return max(0.0, self.end - self.start)

    @property
    def first_token_s(self) -> float | None:
        return None if self.first_token is None else max(0.0, self.first_token - self.attempt_start)

    @property
    def tokens_per_s(self) -> float | None:
        """Generation speed of the last attempt (completion tokens over the time after its first token)."""
        if self.first_token is None or self.end <= self.first_token or not self.last_completion_tokens:
            return None
        return self.last_completion_tokens / (self.end - self.first_token)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for key in ("attempt_start", "first_token", "last_completion_tokens", "prompt_chars", "streamed_chunks"):
            data.pop(key)
        tps, ftt = self.tokens_per_s, self.first_token_s
        return {**data, "latency_s": round(self.latency_s, 4),
                "first_token_s": None if ftt is None else round(ftt, 4),
                "tokens_per_s": None if tps is None else round(tps, 2)}


class UsageTracker(BaseCallbackHandler):
    """Callback that folds every chat-model attempt into :class:`CallRecord` s (thread-safe).

    ``sink`` (e.g. the run store) receives each record when its call ends, so usage survives a crash. A sink
    that fails (store locked past its retries, disk full) loses nothing: the record is kept in :attr:`lost`
    with the first error, :meth:`retry_lost` writes it later, and the caller reports what stays lost — once,
    instead of one LangChain "Error in callback" line per call.
    """

    raise_error = False

    def __init__(self, sink: Any = None) -> None:
        self.calls: dict[str, CallRecord] = {}
        self._runs: dict[Any, str] = {}
        self._lock = threading.Lock()
        self.sink = sink
        self.lost: dict[str, str] = {}
        """call id → why its record could not be handed to the sink (the first error, secrets masked)."""

    def on_chat_model_start(self, serialized: dict[str, Any], messages: list[list[BaseMessage]], *, run_id: Any,
                            metadata: dict[str, Any] | None = None, **kwargs: Any) -> None:
        meta = metadata or {}
        call_id = meta.get("ifworld_call") or str(run_id)
        now = time.time()
        with self._lock:
            self._runs[run_id] = call_id
            rec = self.calls.get(call_id)
            if rec is None:
                rec = self.calls[call_id] = CallRecord(
                    call_id, meta.get("ifworld_role", "unknown"), meta.get("ls_model_name", ""),
                    system=meta.get("ifworld_system", ""), round=meta.get("ifworld_round"), start=now,
                )
            else:
                rec.retries += 1
                rec.status = "retrying"
            rec.attempt_start, rec.first_token, rec.streamed_chunks = now, None, 0
            rec.prompt_chars = sum(len(str(getattr(m, "content", ""))) for batch in messages for m in batch)
            rec.method = meta.get("ifworld_method", rec.method)
            rec.max_tokens = meta.get("ifworld_max_tokens", rec.max_tokens)
            rec.inputs = meta.get("ifworld_inputs", rec.inputs)

    def on_llm_new_token(self, token: str | list[str | dict[str, Any]], *, run_id: Any, chunk: Any = None,
                         **kwargs: Any) -> None:
        rec = self.calls.get(self._runs.get(run_id, ""))
        if rec is None:
            return
        msg = getattr(chunk, "message", None)
        if token or getattr(msg, "tool_call_chunks", None):
            rec.streamed_chunks += 1  # one handler thread per run: no lock needed for its own record
            if rec.first_token is None:
                rec.first_token = time.time()

    def on_llm_end(self, response: Any, *, run_id: Any, **kwargs: Any) -> None:
        with self._lock:
            rec = self.calls.get(self._runs.pop(run_id, ""))
            if rec is None:
                return
            prompt, completion, text, finish = usage_of(response)
            if not prompt and not completion:  # no usage reported (an empty reply streams no chunks at all)
                prompt, completion, rec.usage_estimated = rec.prompt_chars // 4, rec.streamed_chunks, True
            rec.prompt_tokens += prompt
            rec.completion_tokens += completion
            rec.last_completion_tokens = completion
            rec.finish_reason = finish
            _set_output(rec, text)
            rec.end = time.time()
            rec.status = "truncated" if finish == "length" else "ok"
        self._emit(rec)

    def on_llm_error(self, error: BaseException, *, run_id: Any, **kwargs: Any) -> None:
        with self._lock:
            rec = self.calls.get(self._runs.pop(run_id, ""))
            if rec is None:
                return
            rec.end = time.time()
            _, _, text, _ = usage_of(kwargs.get("response"))
            if isinstance(error, GeneratorExit) and len(text) > MAX_REPLY_CHARS:
                # the model layer stopped reading a reply over the bound (see ifworld.llm.streaming)
                _set_output(rec, text)
                rec.status = "truncated"
                rec.error = (f"the server sent more than {MAX_REPLY_CHARS:,} characters, over the bound; "
                             "reading stopped there")
            else:
                rec.status = "error"
                # mask before cutting: half a key is still a leak
                rec.error = safe_error(unreadable_text(error) or error, 500)
        self._emit(rec)  # a failed attempt is logged too (a retry that succeeds replaces the row)

    def mark(self, call_id: str, status: str, error: str = "") -> None:
        """Set the final status of a call (e.g. ``repaired``, ``failed``, ``truncated``) and publish it."""
        with self._lock:
            rec = self.calls.get(call_id)
            if rec is None:
                return
            rec.status, rec.error = status, safe_error(error, 500) if error else rec.error
        self._emit(rec)

    def _emit(self, rec: CallRecord) -> None:
        if self.sink is None:
            return
        try:
            self.sink(rec)
        except Exception as exc:  # noqa: BLE001 — kept and reported by the caller, never dropped
            with self._lock:
                self.lost.setdefault(rec.call_id, safe_error(exc, 500))
        else:
            if rec.call_id in self.lost:
                with self._lock:
                    self.lost.pop(rec.call_id, None)

    def retry_lost(self) -> dict[str, str]:
        """Hand every record the sink refused to it again; returns those still lost (call id → error)."""
        for call_id in list(self.lost):
            rec = self.calls.get(call_id)
            if rec is not None:
                self._emit(rec)
        return dict(self.lost)

    def records(self) -> list[CallRecord]:
        with self._lock:
            return sorted(self.calls.values(), key=lambda r: r.start)

    def totals(self) -> dict[str, Any]:
        return usage_totals([r.to_dict() for r in self.records()])


def _set_output(rec: CallRecord, text: str) -> None:
    """Keep the reply's size and hash, and the text itself cut to what is stored and shown."""
    rec.output_chars, rec.output_sha256 = len(text), digest(text)
    rec.output = cut_text(clean_text(text))


class Usage(BaseModel):
    """A run's usage counters as pages show them (a stored ``usage`` dict read once, at the edge)."""

    model_config = ConfigDict(extra="ignore")

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    retries: int = 0
    failed: int = 0
    latency_s: float = 0.0

    @classmethod
    def of(cls, usage: dict[str, Any] | None) -> Usage:
        """Counters from a stored dict (older records said ``failures``; a list of calls counts its length)."""
        data = dict(usage or {})
        if "failed" not in data and "failures" in data:
            data["failed"] = data["failures"]
        if isinstance(data.get("calls"), list):
            data["calls"] = len(data["calls"])
        return cls.model_validate({k: v for k, v in data.items() if v is not None})


def call_counts(calls: list[dict[str, Any]]) -> tuple[int, int]:
    """(finished calls, all calls) of a run's call log: what a stopped run keeps."""
    return sum(1 for c in calls if c.get("status") in ("ok", "success", None)), len(calls)


def usage_totals(calls: list[dict[str, Any]]) -> dict[str, Any]:
    """Totals over call dicts: counts, tokens, retries, failures, summed latency."""
    return {
        "calls": len(calls),
        "prompt_tokens": sum(c.get("prompt_tokens", 0) for c in calls),
        "completion_tokens": sum(c.get("completion_tokens", 0) for c in calls),
        "retries": sum(c.get("retries", 0) for c in calls),
        "failed": sum(1 for c in calls if c.get("status") in ("error", "failed")),
        "latency_s": round(sum(c.get("latency_s", 0.0) for c in calls), 3),
    }


def usage_of(response: Any) -> tuple[int, int, str, str]:
    """(prompt tokens, completion tokens, text, finish reason) of an LLMResult."""
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
        meta = {**(getattr(msg, "response_metadata", None) or {}), **(gen.generation_info or {})}
        finish = str(meta.get("finish_reason") or "")
        return int(usage.get("input_tokens", 0)), int(usage.get("output_tokens", 0)), str(text), finish
    except (AttributeError, IndexError, TypeError):
        return 0, 0, "", ""
