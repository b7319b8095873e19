"""LangSmith tracing: whether prompts leave this machine, and a switch to stop it.

LangChain sends every prompt and reply to LangSmith when ``LANGSMITH_TRACING=true`` (or the older
``LANGCHAIN_TRACING_V2=true``) is set in the environment — nothing in IF-World turns it on. The About page
and the README say so; :func:`set_tracing` turns it off (or back on) for this whole process.
"""

from __future__ import annotations

import os
from typing import Any, cast

TRACING_VARS = ("LANGSMITH_TRACING", "LANGSMITH_TRACING_V2", "LANGCHAIN_TRACING_V2", "LANGCHAIN_TRACING")


def tracing_env() -> dict[str, str]:
    """The tracing variables set in the environment (name → value)."""
    return {k: os.environ[k] for k in TRACING_VARS if os.environ.get(k)}


def tracing_requested() -> bool:
    """True when the environment asks LangChain to trace to LangSmith."""
    return any(v.strip().lower() == "true" for v in tracing_env().values())


def tracing_active() -> bool:
    """True when model calls made now would be sent to LangSmith."""
    try:
        from langsmith.utils import get_env_var, tracing_is_enabled
    except ImportError:  # pragma: no cover - langsmith ships with langchain-core
        return False
    # langsmith caches environment reads (an lru_cache its overloads hide from the type); answer for the
    # environment as it is now
    cast(Any, get_env_var).cache_clear()
    return tracing_is_enabled() is True


def project() -> str:
    return os.environ.get("LANGSMITH_PROJECT") or os.environ.get("LANGCHAIN_PROJECT") or "default"


def set_tracing(enabled: bool) -> None:
    """Turn LangSmith tracing on or off for every later call in this process (all app sessions)."""
    import langsmith

    langsmith.configure(enabled=enabled)
