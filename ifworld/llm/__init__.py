"""The model layer: the one place that builds chat models and calls them (any OpenAI-compatible endpoint).

Everything else asks for a model by *role* (``"whatif.expert"``, ``"rws.pace.critic"`` …) through this front
door. Modules:

- :mod:`~ifworld.llm.client` — ``complete`` / ``structured`` (and async twins) over ``ChatOpenAI``: streaming,
  bounds, retries, the process-wide concurrency limit.
- :mod:`~ifworld.llm.methods` — which structured-output method an endpoint takes (``auto`` probes once per
  endpoint and model and remembers it beside the run store).
- :mod:`~ifworld.llm.reply` — reply text, ``<think>`` stripping, JSON extraction, the model-layer errors.
- :mod:`~ifworld.llm.schema` — the JSON schema sent to a model (standard keywords, bounds, required content).
- :mod:`~ifworld.llm.usage` — per-call accounting (role, round, tokens, latency, retries, status).
- :mod:`~ifworld.llm.connection` — the connection test shown on Settings.
- :mod:`~ifworld.llm.tracing` — optional LangSmith tracing switch.
"""

from __future__ import annotations

from ifworld.config import NO_MODEL_HELP
from ifworld.llm.client import PARTIAL_INTERVAL_S, acomplete, astructured, chat_model, complete, structured
from ifworld.llm.connection import ConnectionReport, test_connection
from ifworld.llm.methods import endpoint_key, known_method
from ifworld.llm.reply import (
    KEPT_NOTE,
    LLMCallError,
    LLMError,
    LLMNotConfigured,
    ReplyFormatError,
    StructuredOutputError,
    TruncatedOutputError,
    extract_json,
    strip_think,
)
from ifworld.llm.tracing import project, set_tracing, tracing_active, tracing_env, tracing_requested
from ifworld.llm.usage import CallRecord, UsageTracker, usage_totals

__all__ = [
    "KEPT_NOTE", "NO_MODEL_HELP", "PARTIAL_INTERVAL_S", "CallRecord", "ConnectionReport", "LLMCallError", "LLMError",
    "LLMNotConfigured", "ReplyFormatError", "StructuredOutputError", "TruncatedOutputError", "UsageTracker",
    "acomplete", "astructured", "chat_model", "complete", "endpoint_key", "extract_json", "known_method",
    "strip_think", "structured",
    "test_connection", "usage_totals", "project", "set_tracing", "tracing_active", "tracing_env", "tracing_requested",
]
