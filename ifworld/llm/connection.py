"""The sidebar's "Test connection" and ``ifworld model check``: is the endpoint up, how fast is it, which
structured method works.

First the preflight (:func:`ifworld.llm.diagnose.preflight`: reachable, key accepted, model present, in
seconds), then two small calls: a plain one (latency, time to first token, tokens/s) and a structured one, which under
``auto`` is the probe that finds and remembers the structured-output method for this (endpoint, model).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from pydantic import BaseModel

from ifworld.config import Settings, load_settings
from ifworld.llm import client as llm, status as status
from ifworld.llm.context import context_window, token_counter
from ifworld.llm.diagnose import ModelUnreachable, address, classify, preflight
from ifworld.llm.methods import known_method
from ifworld.llm.reply import LLMError
from ifworld.llm.usage import UsageTracker

ROLE = "connection"
PLAIN_PROMPT = "Count from 1 to 20, separated by spaces. Reply with the numbers only."
STRUCTURED_PROMPT = "Give the numbers 1, 2 and 3 in the list `numbers`, and the word pong in `word`."


class ConnectionCheck(BaseModel):
    numbers: list[int]
    word: str


@dataclass(frozen=True)
class ConnectionReport:
    ok: bool
    latency_s: float
    model: str
    message: str
    models: list[str] = field(default_factory=list)
    tokens_per_s: float | None = None
    first_token_s: float | None = None
    method: str | None = None
    structured_ok: bool = False
    kind: str = ""
    """The failure's kind (:data:`ifworld.llm.diagnose.KINDS`); empty when the endpoint answered."""
    address: str = ""
    context_tokens: int | None = None
    """The model's context window (:func:`~ifworld.llm.context.context_window`) and where that figure came from."""
    context_source: str = ""
    token_counter: str = ""
    """How prompt tokens are counted for it (the server's tokenizer, cl100k_base, or the estimate)."""


def test_connection(settings: Settings | None = None) -> ConnectionReport:
    """Check the endpoint with two tiny calls; never raises."""
    settings = (settings or load_settings()).model_copy(update={"max_retries": 0})
    model_name = settings.model_for(ROLE)
    tracker = UsageTracker()
    start = time.perf_counter()
    addr = address(settings)
    try:
        preflight(settings, (ROLE,), force=True)
        text = llm.complete(ROLE, [("user", PLAIN_PROMPT)], settings=settings, callbacks=[tracker], temperature=0)
    except ModelUnreachable as exc:
        return ConnectionReport(False, time.perf_counter() - start, model_name, exc.failure.message,
                                models=list(exc.failure.models), kind=exc.failure.kind, address=addr)
    except LLMError as exc:
        failure = getattr(exc, "failure", None) or classify(exc, settings, model=model_name)
        status.record_failure(settings, failure)
        return ConnectionReport(False, time.perf_counter() - start, model_name, failure.message,
                                kind=failure.kind, address=addr)
    latency = time.perf_counter() - start
    rec = tracker.records()[-1] if tracker.records() else None
    tps = rec.tokens_per_s if rec else None
    ftt = rec.first_token_s if rec else None
    speed = f", {tps:.1f} tokens/s" if tps else ""
    try:
        llm.structured(ROLE, [("user", STRUCTURED_PROMPT)], ConnectionCheck, callbacks=[tracker],
                       settings=settings.model_copy(update={"temperature": 0.0}), variant="structured")
        if tps is None:  # tiny models may answer the plain prompt with nothing; the structured reply has tokens
            tps = max((r.tokens_per_s or 0.0 for r in tracker.records()), default=0.0) or None
            speed = f", {tps:.1f} tokens/s" if tps else ""
        method, structured_ok, note = known_method(settings, ROLE), True, ""
    except LLMError as exc:
        method, structured_ok = known_method(settings, ROLE), False
        note = f"; structured output failed: {exc}"
    message = f"replied {text[:40]!r} in {latency:.1f} s{speed}; structured output: {method or 'none'}{note}"
    status.record_ok(settings, message)
    window = context_window(settings, ROLE)
    return ConnectionReport(True, latency, model_name, message, tokens_per_s=tps, first_token_s=ftt,
                            method=method, structured_ok=structured_ok, address=addr, context_tokens=window.tokens,
                            context_source=window.source, token_counter=token_counter(settings, ROLE).name)


test_connection.__dict__["__test__"] = False  # not a pytest test despite the name
