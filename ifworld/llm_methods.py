"""Which structured-output method an endpoint takes, remembered per (endpoint, model).

``auto`` probes once (see :mod:`ifworld.llm`); the answer lives in this process and in the run store, so the
app and the CLI share it and a new process does not probe again.
"""

from __future__ import annotations

import sqlite3
import threading
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ifworld.config import STRUCTURED_METHODS, Settings

_methods: dict[tuple[str, str], str] = {}  # (endpoint, model) -> method that worked, mirrored in the store
_probe_locks: dict[tuple[str, str], threading.Lock] = {}


def endpoint_key(settings: Settings, role: str) -> tuple[str, str]:
    """(endpoint, model) the structured method is remembered for; credentials in the URL are dropped."""
    url = settings.base_url or "https://api.openai.com/v1"
    parts = urlsplit(url)
    netloc = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", "")), settings.model_for(role)


def known_method(settings: Settings, role: str) -> str | None:
    """The method ``auto`` settled on for this endpoint and role's model (None: not probed yet)."""
    if settings.structured_method != "auto":
        return settings.structured_method
    key = endpoint_key(settings, role)
    if key not in _methods:
        stored = _store_call(settings, "structured_method", *key)
        if stored in STRUCTURED_METHODS:
            _methods[key] = stored
    return _methods.get(key)


def remember(settings: Settings, role: str, method: str) -> None:
    key = endpoint_key(settings, role)
    if _methods.get(key) != method:
        _methods[key] = method
        _store_call(settings, "remember_structured_method", *key, method)


def _store_call(settings: Settings, name: str, *args: Any) -> Any:
    """The run store remembers methods across processes; an unusable store only costs a re-probe."""
    from ifworld.store import get_store  # the store imports settings only; imported late to stay light

    try:
        return getattr(get_store(settings.db_path), name)(*args)
    except (sqlite3.Error, OSError):
        return None


def chain(settings: Settings, role: str) -> list[str]:
    if settings.structured_method != "auto":
        return [settings.structured_method]
    start = known_method(settings, role)
    return list(STRUCTURED_METHODS[STRUCTURED_METHODS.index(start):] if start else STRUCTURED_METHODS)
