"""The model connection's state as the facts last left it: ok, failing since …, or untested.

Set by the last connection test, preflight or model call of this process (per endpoint and model), read by the
sidebar and Settings (``ui/connection_view.py``) so a failed test or call can never leave a green light on.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Literal, Protocol

from ifworld.config import Settings
from ifworld.redact import safe_error

__all__ = ["ConnectionStatus", "connection_status", "record_failure", "record_ok", "reset"]

State = Literal["ok", "failing", "untested"]


class Failure(Protocol):
    """What :func:`record_failure` reads of a :class:`ifworld.llm.diagnose.Failure`."""

    @property
    def kind(self) -> str: ...

    @property
    def message(self) -> str: ...


@dataclass(frozen=True)
class ConnectionStatus:
    """``state`` of the endpoint+model; ``since`` (epoch s) the first failure of the current streak or the
    last success; ``message`` the last failure's words (or what succeeded); ``kind`` the failure kind."""

    state: State
    endpoint: str
    model: str
    since: float | None = None
    checked: float | None = None
    message: str = ""
    kind: str = ""

    def line(self) -> str:
        """One line for a status caption: "ok (checked 20:41:07)", "failing since 20:40:55: …", "untested"."""
        if self.state == "untested":
            return "untested — use Test connection"
        when = time.strftime("%H:%M:%S", time.localtime(self.since or 0))
        if self.state == "ok":
            return f"ok (last answer {time.strftime('%H:%M:%S', time.localtime(self.checked or 0))})"
        return f"failing since {when}: {self.message}"


_status: dict[tuple[str, str], ConnectionStatus] = {}
_lock = threading.Lock()


def _key(settings: Settings, model: str | None = None) -> tuple[str, str]:
    return settings.endpoint_label, model or settings.model


def connection_status(settings: Settings) -> ConnectionStatus:
    """The state of ``settings``' endpoint and default model in this process."""
    with _lock:
        found = _status.get(_key(settings))
    return found or ConnectionStatus("untested", settings.endpoint_label, settings.model)


def record_ok(settings: Settings, message: str = "", model: str | None = None) -> None:
    """A call or check answered: the connection is ok from now."""
    now = time.time()
    key = _key(settings, model)
    with _lock:
        prev = _status.get(key)
        since = prev.since if prev is not None and prev.state == "ok" else now
        _status[key] = ConnectionStatus("ok", key[0], key[1], since, now, safe_error(message, 300))


def record_failure(settings: Settings, failure: Failure, model: str | None = None) -> None:
    """A call or check failed: failing, since the first failure of this streak."""
    now = time.time()
    key = _key(settings, model)
    with _lock:
        prev = _status.get(key)
        since = prev.since if prev is not None and prev.state == "failing" else now
        _status[key] = ConnectionStatus("failing", key[0], key[1], since, now, safe_error(failure.message, 500),
                                        failure.kind)


def reset() -> None:
    """Forget every state (tests)."""
    with _lock:
        _status.clear()
