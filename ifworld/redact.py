"""Every known secret is masked in everything written or shown: store, exports, logs, stderr, pages.

Known secrets are the API keys in the environment (``IFWORLD_API_KEY``, ``OPENAI_API_KEY`` and any
variable named like a credential), in ``.streamlit/secrets.toml``, and keys typed in the sidebar, which
:func:`register_secret` adds for the life of the process. An endpoint that echoes the key in its error
body, or a model that repeats it, therefore leaves only ``[redacted]`` behind.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import threading
import tomllib
from functools import lru_cache
from pathlib import Path
from typing import Any, TextIO, TypeVar, cast

from ifworld.files import FileRefused, read_text_bounded
from ifworld.limits import MAX_ERROR_CHARS, MAX_SECRETS_BYTES, cap_text

MARKER = "[redacted]"
MIN_SECRET_CHARS = 8  # shorter "keys" (e.g. "none" for local servers) would redact ordinary words
# Names whose values are credentials (IFWORLD_API_KEY, LANGSMITH_API_KEY, GITHUB_TOKEN, DB_PASSWORD …).
SECRET_NAME_RE = re.compile(r"(api[_-]?key|secret|passw(or)?d|(^|[_-])token$|authorization)", re.I)
KEY_NAMES = ("IFWORLD_API_KEY", "OPENAI_API_KEY")

_registered: set[str] = set()
_lock = threading.Lock()


def register_secret(value: str | None) -> None:
    """Treat ``value`` as a secret from now on in this process (e.g. a key typed in the sidebar)."""
    if isinstance(value, str) and len(value.strip()) >= MIN_SECRET_CHARS:
        with _lock:
            _registered.add(value.strip())


SECRETS_FILES = (Path(".streamlit/secrets.toml"), Path.home() / ".streamlit" / "secrets.toml")
"""Streamlit secrets files read for settings (:mod:`ifworld.config`) and masked wherever text is written."""

def known_secrets() -> tuple[str, ...]:
    """Every secret to mask, longest first (so a key containing another is masked whole)."""
    env = tuple(sorted((k, v) for k, v in os.environ.items() if k in KEY_NAMES or SECRET_NAME_RE.search(k)))
    stamps = tuple(_stamp(p) for p in _secrets_files())
    with _lock:
        registered = tuple(sorted(_registered))
    return _collect(env, stamps, registered)


def _secrets_files() -> tuple[Path, ...]:
    return SECRETS_FILES  # read at call time: tests and the app point it elsewhere


def _stamp(path: Path) -> tuple[str, float | None]:
    # abspath, not resolve(): the key only tells files apart (a relative path names another file once the working
    # directory changes), and resolve()'s lstat of every path component was most of the cost of each redact()
    # (a 2 MB streamed reply is 250,000 token events, each masked: 232 s of 269 s in known_secrets).
    try:
        return os.path.abspath(path), path.stat().st_mtime
    except OSError:
        return str(path), None


@lru_cache(maxsize=32)
def _collect(env: tuple, stamps: tuple, registered: tuple) -> tuple[str, ...]:
    found = {v.strip() for _, v in env} | set(registered)
    for name, mtime in stamps:
        if mtime is None:
            continue
        try:
            data = tomllib.loads(read_text_bounded(name, MAX_SECRETS_BYTES, what="secrets file"))
        except (FileRefused, tomllib.TOMLDecodeError):
            continue
        found |= {str(v).strip() for k, v in _flatten(data) if k in KEY_NAMES or SECRET_NAME_RE.search(k)}
    return tuple(sorted((s for s in found if len(s) >= MIN_SECRET_CHARS), key=lambda s: (-len(s), s)))


def _flatten(data: dict, depth: int = 0) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for key, value in data.items():
        if isinstance(value, dict) and depth < 3:
            out += _flatten(value, depth + 1)
        elif isinstance(value, str | int | float):
            out.append((str(key), value))
    return out


V = TypeVar("V")


def redact(value: V, secrets: tuple[str, ...] | None = None) -> V:
    """``value`` with every known secret replaced by ``[redacted]``; dicts, lists and tuples recursively.

    Other objects are returned unchanged (call ``redact(str(obj))`` to mask their text).
    """
    secrets = known_secrets() if secrets is None else secrets
    return cast(V, _masked(value, secrets))  # a str, dict, list or tuple comes back as one


URL_PASSWORD_RE = re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://[^\s/?#@:]*:)[^\s/?#@]+(@)|([?&]password=)[^&\s#]+")
"""The password of a URL (``postgresql://user:password@host``, ``…?password=…``): masked wherever it appears."""


def redact_url(text: str) -> str:
    """``text`` with any URL's password replaced by ``[redacted]`` (for showing where a store is)."""
    return URL_PASSWORD_RE.sub(lambda m: f"{m[1]}{MARKER}{m[2]}" if m[1] else f"{m[3]}{MARKER}", text)


def _masked(value: Any, secrets: tuple[str, ...]) -> Any:
    if isinstance(value, str):
        if "://" in value or "password=" in value:
            value = redact_url(value)
        for secret in secrets:
            if secret in value:
                value = value.replace(secret, MARKER)
        return value
    if isinstance(value, dict):
        return {_masked(k, secrets): _masked(v, secrets) for k, v in value.items()}
    if isinstance(value, list | tuple):
        items = [_masked(v, secrets) for v in value]
        return items if isinstance(value, list) else tuple(items)
    return value


def redact_bytes(data: bytes, secrets: tuple[str, ...] | None = None) -> bytes:
    """Mask secrets in bytes with ``*`` of the same length, so length-prefixed formats (msgpack) stay valid."""
    for secret in known_secrets() if secrets is None else secrets:
        raw = secret.encode()
        if raw in data:
            data = data.replace(raw, b"*" * len(raw))
    return data


def safe_error(error: BaseException | str, limit: int = MAX_ERROR_CHARS) -> str:
    """Error text fit to store or show: secrets masked, at most ``limit`` characters.

    Exceptions are rendered ``Type: message``; the message is cut before masking would matter.
    """
    text = error if isinstance(error, str) else f"{type(error).__name__}: {error}"
    return cap_text(redact(text), limit)


class RedactFilter(logging.Filter):
    """Logging filter that masks secrets in the message, its arguments and any exception text."""

    def filter(self, record: logging.LogRecord) -> bool:
        _scrub_record(record)
        return True


def _scrub_record(record: logging.LogRecord) -> None:
    secrets = known_secrets()
    if not secrets:
        return
    try:
        message = record.getMessage()
    except Exception:  # noqa: BLE001 — a malformed log call must still be logged, just unformatted
        message = str(record.msg)
    record.msg, record.args = redact(message, secrets), ()
    if record.exc_info and not record.exc_text:
        record.exc_text = logging.Formatter().formatException(record.exc_info)
    if record.exc_text:
        record.exc_text = redact(record.exc_text, secrets)


_factory_installed = False


def install_logging() -> None:
    """Mask secrets in every log record of this process, whichever handler later writes it.

    A record factory (not only a handler filter) so records reaching handlers added later — pytest's,
    Streamlit's — are covered too. Idempotent.
    """
    global _factory_installed
    with _lock:
        if _factory_installed:
            return
        _factory_installed = True
    previous = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        _scrub_record(record)
        return record

    logging.setLogRecordFactory(factory)
    logging.getLogger().addFilter(RedactFilter())


class RedactingStream:
    """A text stream wrapper (stdout/stderr of the CLI) that masks secrets in everything written."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(redact(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def guard_std_streams() -> None:
    """Wrap ``sys.stdout`` and ``sys.stderr`` so nothing the CLI prints can carry a secret."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is not None and not isinstance(stream, RedactingStream):
            setattr(sys, name, RedactingStream(stream))
