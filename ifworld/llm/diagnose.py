"""Why a model call failed, in words, with the address: the one classifier behind the Settings page, the
sidebar's status, ``ifworld model check``, the preflight before long jobs and every failed call's message.

:func:`classify` turns an exception from the SDK (or httpx) into a :class:`Failure` of one :data:`KINDS`:
nothing listening at ``host:port``, a name not resolved, connected but no answer within N s, key refused
(401/403), model not found (404, with the models the server lists), TLS, an answer that is not
OpenAI-compatible, the server busy or broken (429/5xx). :func:`preflight` is the short, cheap check a job
makes before it starts (``GET /models``, and a one-token request only when the model is not listed).
The connection's state (ok / failing since … / untested) lives in :mod:`ifworld.llm.status`.
"""

from __future__ import annotations

import json
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ifworld.config import Settings
from ifworld.llm.reply import LLMCallError
from ifworld.redact import safe_error

__all__ = ["KINDS", "Failure", "ModelUnreachable", "address", "classify", "list_models", "on_retry",
           "preflight", "retry_note"]

KINDS = ("refused", "dns", "timeout", "auth", "model", "tls", "protocol", "busy", "other")
"""Failure kinds, in the order ``ifworld model check`` gives them exit codes (3 + index)."""
PREFLIGHT_TIMEOUT_S = 10.0
"""Longest wait of the preflight's ``GET /models`` (a live server lists its models in milliseconds)."""
CONNECT_TIMEOUT_S = 5.0
PREFLIGHT_TTL_S = 60.0
"""A preflight that passed is not repeated for this long (an evaluation starts many runs)."""
MAX_LISTED = 12
MODEL_WORDS = ("model", "does not exist", "not found")


@dataclass(frozen=True)
class Failure:
    """One failure told in words: ``kind`` (:data:`KINDS`), the ``address`` (host:port) and the ``message``."""

    kind: str
    address: str
    message: str
    status: int | None = None
    models: tuple[str, ...] = field(default_factory=tuple)

    @property
    def short(self) -> str:
        """A few words for a progress line: "connection refused at 127.0.0.1:8749"."""
        return {
            "refused": f"connection refused at {self.address}",
            "dns": f"name not resolved: {self.address}",
            "timeout": f"no answer from {self.address}",
            "auth": f"key refused by {self.address} (HTTP {self.status})",
            "model": f"model not found at {self.address}",
            "tls": f"TLS failed with {self.address}",
            "protocol": f"not an OpenAI-compatible answer from {self.address}",
            "busy": f"HTTP {self.status} from {self.address}",
        }.get(self.kind, f"failed at {self.address}")


class ModelUnreachable(LLMCallError):
    """The preflight found the endpoint unusable: the job did not start. ``failure`` says why."""

    def __init__(self, failure: Failure) -> None:
        super().__init__("model check", failure.message)
        self.failure = failure
        self.args = (safe_error(f"model check failed: {failure.message}"),)

    def __str__(self) -> str:
        return str(self.args[0])


def address(settings: Settings) -> str:
    """``host:port`` of the endpoint (credentials in the URL dropped; default ports filled in)."""
    parts = urlsplit(settings.base_url or "https://api.openai.com/v1")
    host = parts.hostname or "?"
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return host
    return f"{host}:{port}"


def _api_url(settings: Settings, path: str) -> str:
    return (settings.base_url or "https://api.openai.com/v1").rstrip("/") + path


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        yield cur
        cur = cur.__cause__ or cur.__context__


def _body_text(exc: BaseException) -> str:
    body = getattr(exc, "body", None)
    text = json.dumps(body) if body is not None else ""
    response = getattr(exc, "response", None)
    if not text and response is not None:
        try:
            text = response.text[:500]
        except Exception:  # noqa: BLE001 - a streamed body not read: the status says enough
            text = ""
    return f"{getattr(exc, 'message', '') or exc} {text}"


def classify(exc: BaseException, settings: Settings, *, model: str | None = None,
             timeout_s: float | None = None, fetch_models: bool = True) -> Failure:
    """The failure ``exc`` stands for, told with the endpoint's address (never raises, never shows a key).

    ``timeout_s`` is the wait that ran out (default ``settings.timeout_s``); ``fetch_models`` lets a 404 on
    the model ask the server which models it has (one short ``GET /models``).
    """
    import httpx
    import openai

    addr, model = address(settings), model or settings.model
    wait = timeout_s if timeout_s is not None else settings.timeout_s
    chain = list(_chain(exc))
    status = next((getattr(e, "status_code", None) for e in chain if isinstance(e, openai.APIStatusError)), None)
    if status is None:
        status = next((e.response.status_code for e in chain if isinstance(e, httpx.HTTPStatusError)), None)
    if status is not None:
        return _from_status(status, next(e for e in chain if getattr(e, "status_code", None) == status
                                         or isinstance(e, httpx.HTTPStatusError)), settings, model, fetch_models)
    text = " ".join(str(e) for e in chain)
    if any(isinstance(e, ssl.SSLError) for e in chain) or "CERTIFICATE_VERIFY" in text or "SSL" in text:
        hint = " (is it plain http?)" if (settings.base_url or "").startswith("https") else ""
        return Failure("tls", addr, f"TLS handshake with {addr} failed{hint}: {_tail(chain)}")
    if any(isinstance(e, socket.gaierror) for e in chain) or _any(text, (
            "Name or service not known", "nodename nor servname", "name resolution", "getaddrinfo")):
        host = addr.rsplit(":", 1)[0]
        return Failure("dns", addr, f"the name {host!r} could not be resolved (base URL "
                                    f"{settings.endpoint_label}); check IFWORLD_BASE_URL for a typo")
    if any(isinstance(e, ConnectionRefusedError) for e in chain) or "Connection refused" in text \
            or "Errno 111" in text:
        return Failure("refused", addr, f"nothing is listening at {addr} (connection refused): is the model "
                                        f"server running, and is IFWORLD_BASE_URL ({settings.endpoint_label}) right?")
    if any(isinstance(e, httpx.ConnectTimeout) for e in chain):
        return Failure("timeout", addr, f"could not connect to {addr} within {min(wait, CONNECT_TIMEOUT_S * 2):g} s "
                                        "(host down, or a firewall drops the connection)")
    if any(isinstance(e, openai.APITimeoutError | httpx.TimeoutException | TimeoutError) for e in chain):
        hint = ("The timeout counts from the last token received; for a slow local model raise IFWORLD_TIMEOUT_S "
                "(sidebar: Timeout)" if wait == settings.timeout_s else "Is it still loading the model?")
        return Failure("timeout", addr, f"connected to {addr} but no answer within {wait:g} s: the server is hung "
                                        f"or busy. {hint}")
    if any(isinstance(e, httpx.RemoteProtocolError | json.JSONDecodeError | UnicodeDecodeError
                      | openai.APIResponseValidationError) for e in chain) or "not OpenAI-compatible" in text:
        return Failure("protocol", addr, f"the answer from {addr} is not OpenAI-compatible ({_tail(chain)}); "
                                         "is IFWORLD_BASE_URL the server's /v1 address?")
    if any(isinstance(e, openai.APIConnectionError | httpx.TransportError) for e in chain):
        return Failure("refused", addr, f"no connection to {addr}: {_tail(chain)}")
    return Failure("other", addr, f"{addr}: {safe_error(exc, 300)}")


def _any(text: str, words: tuple[str, ...]) -> bool:
    return any(w in text for w in words)


def _tail(chain: list[BaseException]) -> str:
    """The innermost cause's text (the SDK's outer message is a bare "Connection error.")."""
    inner = chain[-1]
    return safe_error(str(inner) or type(inner).__name__, 200)


def _from_status(status: int, exc: BaseException, settings: Settings, model: str, fetch: bool) -> Failure:
    addr, text = address(settings), safe_error(_body_text(exc), 200)
    if status in (401, 403):
        key = "no key is set" if settings.api_key is None else "check IFWORLD_API_KEY (or the sidebar's key)"
        return Failure("auth", addr, f"the server at {addr} refused the API key (HTTP {status}): {key}",
                       status=status)
    if status == 404 and _any(text.lower(), MODEL_WORDS[:2]) or status == 404 and "model_not_found" in text:
        models = tuple(list_models(settings)[:MAX_LISTED]) if fetch else ()
        listed = f"; it lists: {', '.join(models)}" if models else ""
        return Failure("model", addr, f"the server at {addr} has no model {model!r} (HTTP 404){listed}. Set "
                                      "IFWORLD_MODEL (or the sidebar's Model) to one it serves", status=404,
                       models=models)
    if status in (404, 405):
        return Failure("protocol", addr, f"{settings.endpoint_label} is not an OpenAI-compatible API (HTTP {status} "
                                         f"on its chat endpoint); the base URL usually ends in /v1", status=status)
    if status == 429 or status >= 500:
        what = "is busy (rate limit)" if status == 429 else "failed"
        return Failure("busy", addr, f"the server at {addr} {what}: HTTP {status}: {text}", status=status)
    return Failure("other", addr, f"the server at {addr} refused the request: HTTP {status}: {text}", status=status)


def _client(settings: Settings, timeout_s: float) -> Any:
    import httpx

    headers = {"Authorization": f"Bearer {settings.api_key.get_secret_value()}"} if settings.api_key else {}
    return httpx.Client(timeout=httpx.Timeout(timeout_s, connect=min(CONNECT_TIMEOUT_S, timeout_s)),
                        headers=headers)


def list_models(settings: Settings, timeout_s: float = PREFLIGHT_TIMEOUT_S) -> list[str]:
    """The model ids the server lists (``GET /models``); empty when it lists none or cannot be asked."""
    try:
        with _client(settings, timeout_s) as http:
            reply = http.get(_api_url(settings, "/models"))
            reply.raise_for_status()
            data = reply.json().get("data") or []
    except Exception:  # noqa: BLE001 - a list for a message: best effort
        return []
    return [str(m.get("id")) for m in data if isinstance(m, dict) and m.get("id")]


def probe_models(settings: Settings, timeout_s: float = PREFLIGHT_TIMEOUT_S) -> list[str] | None:
    """``GET /models``: the listed ids, or None when the server has no such route (404/405); other failures
    raise (httpx errors, an ``HTTPStatusError`` for 401/403/5xx, ``ValueError`` for a body that is not JSON)."""
    import httpx

    with _client(settings, timeout_s) as http:
        reply = http.get(_api_url(settings, "/models"))
        if reply.status_code in (404, 405):
            return None
        reply.raise_for_status()
        try:
            data = reply.json()
        except ValueError as exc:
            raise httpx.RemoteProtocolError("GET /models did not answer JSON (not OpenAI-compatible)") from exc
    return [str(m.get("id")) for m in (data.get("data") or []) if isinstance(m, dict)] if isinstance(data, dict) \
        else []


def ping(settings: Settings, model: str, timeout_s: float) -> None:
    """One non-streamed request for one token (the model answers at all); raises like :func:`probe_models`.
    A 400 (the server speaks the API but dislikes a parameter) counts as an answer."""
    import httpx

    body = {"model": model, "messages": [{"role": "user", "content": "ping"}], "max_tokens": 1}
    with _client(settings, timeout_s) as http:
        reply = http.post(_api_url(settings, "/chat/completions"), json=body)
        if reply.status_code in (400, 422):
            return
        reply.raise_for_status()
        try:
            reply.json()
        except ValueError as exc:
            raise httpx.RemoteProtocolError("the chat endpoint did not answer JSON (not OpenAI-compatible)") from exc


_passed: dict[tuple[str, str, int], float] = {}
_passed_lock = threading.Lock()


def _models_of(settings: Settings, roles: tuple[str, ...] | None, models: tuple[str, ...] | None) -> list[str]:
    if models:
        names = list(models)
    else:
        names = [settings.model_for(r) for r in roles] if roles else [settings.model, *settings.role_models.values()]
    return list(dict.fromkeys(names))


def preflight(settings: Settings, roles: tuple[str, ...] | None = None, *, models: tuple[str, ...] | None = None,
              force: bool = False) -> None:
    """Check the endpoint before a long job, in seconds: raises :class:`ModelUnreachable` naming the cause and
    the address. Checks each model the job's ``roles`` use (default: the default model and every per-role one),
    or the ``models`` it names (a benchmark over several models).

    Cheap: ``GET /models``; a one-token request only for a model the server does not list. A check that
    passed is remembered for :data:`PREFLIGHT_TTL_S`. The outcome updates the connection status.
    """
    from ifworld.llm.status import record_failure, record_ok

    key_id = hash(settings.api_key.get_secret_value()) if settings.api_key else 0
    wait = min(PREFLIGHT_TIMEOUT_S, settings.timeout_s)
    for model in _models_of(settings, roles, models):
        key = (settings.base_url or "", model, key_id)
        with _passed_lock:
            if not force and time.monotonic() - _passed.get(key, -PREFLIGHT_TTL_S) < PREFLIGHT_TTL_S:
                continue
        try:
            listed = probe_models(settings, wait)
            if listed is None or model not in listed:
                ping(settings, model, settings.timeout_s if listed is not None else wait)
        except Exception as exc:  # noqa: BLE001 - every failure is classified and raised as ModelUnreachable
            failure = classify(exc, settings, model=model, timeout_s=wait)
            record_failure(settings, failure)
            raise ModelUnreachable(failure) from None
        with _passed_lock:
            _passed[key] = time.monotonic()
    record_ok(settings, "preflight passed")


preflight.__dict__["__test__"] = False

RetryListener = Callable[[str], None]
_listeners: list[RetryListener] = []


def on_retry(listener: RetryListener) -> Callable[[], None]:
    """Call ``listener(text)`` whenever a call of this process waits to retry; returns the unsubscribe."""
    _listeners.append(listener)
    return lambda: _listeners.remove(listener) if listener in _listeners else None


def retry_note(exc: BaseException, settings: Settings, attempt: int) -> str:
    """Say that a call waits for the model, and why: published to the run's progress stream (page) and to
    the :func:`on_retry` listeners (CLI). Returns the text, e.g. "waiting for the model — retry 2 of 3:
    connection refused at 127.0.0.1:8749"."""
    failure = classify(exc, settings, fetch_models=False)
    text = f"waiting for the model — retry {attempt} of {settings.max_retries}: {failure.short}"
    try:
        from langgraph.config import get_stream_writer

        get_stream_writer()({"kind": "model_retry", "text": text, "attempt": attempt,
                             "retries": settings.max_retries, "cause": failure.kind})
    except (RuntimeError, ImportError, KeyError):
        pass
    for listener in list(_listeners):
        try:
            listener(text)
        except Exception:  # noqa: BLE001, S110 - a progress display must not break a call
            pass
    return text
