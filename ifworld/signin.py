"""Facilitator sign-in sessions: one per signed-in browser, stored, expiring, revocable.

Before, the sign-in cookie was one permanent value per token (an HMAC of a constant): a copied cookie worked
until the token file was deleted and the app restarted, and ``/signout`` only asked the browser to forget it.
Now the sign-in page exchanges the token (by POST) for a **session**: a random 128-bit value in the browser's
HttpOnly cookie, whose SHA-256 is kept in the run store (``ifw_meta``, so every app process on the store sees it)
with when it was made, when it expires (:data:`SESSION_TTL_S`) and which browser it was. ``/signout`` deletes it
for good; the Settings page lists every session with *sign out this browser* and *sign out everyone*.

The token itself is refused when it is guessable: an ``IFWORLD_FACILITATOR_TOKEN`` must carry at least
:data:`MIN_TOKEN_BITS` bits by :func:`token_bits` (sixteen copies of one letter carry none).
"""

from __future__ import annotations

import hashlib
import json
import math
import secrets
import time
from collections import Counter
from typing import Any

from pydantic import BaseModel, ConfigDict

__all__ = ["MIN_TOKEN_BITS", "SESSION_TTL_S", "SigninSession", "end_all_sessions", "end_session", "list_sessions",
           "new_session", "session_id_of", "session_valid", "token_bits"]

SESSION_TTL_S = 12 * 3600
"""A facilitator's browser stays signed in for one long workshop day, then signs in again."""
MIN_TOKEN_BITS = 64.0
_PREFIX = "signin:"


class SigninSession(BaseModel):
    """A signed-in facilitator browser, as the Settings page lists it (never the cookie value)."""

    model_config = ConfigDict(frozen=True)

    id: str
    """The first 12 hex digits of the stored digest: enough to tell sessions apart and to end one."""
    created: float
    expires: float
    browser: str = ""


def token_bits(token: str) -> float:
    """An estimate of the guessing work in a token, in bits: its length times the Shannon entropy of its own
    characters — a random ``secrets.token_urlsafe(16)`` scores about 90, ``aaaaaaaaaaaaaaaa`` 0,
    ``abcabcabcabcabca`` 25."""
    if not token:
        return 0.0
    counts = Counter(token)
    per_char = -sum(n / len(token) * math.log2(n / len(token)) for n in counts.values())
    return per_char * len(token)


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8")).hexdigest()


def new_session(store: Any, browser: str = "") -> str:
    """Start a session; returns the value for the browser's cookie (only its digest is stored)."""
    value = secrets.token_urlsafe(16)
    now = time.time()
    data = json.dumps({"created": now, "expires": now + SESSION_TTL_S, "browser": browser[:120]})
    with store._tx(immediate=True, key="signin") as c:
        c.execute("INSERT INTO ifw_meta (key, value) VALUES (?, ?)", (_PREFIX + _digest(value), data))
    return value


def session_valid(store: Any, value: str | None) -> bool:
    """Whether ``value`` (a cookie) names a live session."""
    if not value or len(value) > 200:
        return False
    with store._tx() as c:
        row = c.execute("SELECT value FROM ifw_meta WHERE key=?", (_PREFIX + _digest(value),)).fetchone()
    if not row:
        return False
    try:
        return float(json.loads(row[0])["expires"]) > time.time()
    except (ValueError, KeyError, TypeError):
        return False


def session_id_of(value: str) -> str:
    """The listed id (:attr:`SigninSession.id`) of the session a cookie value names."""
    return _digest(value)[:12]


def end_session(store: Any, value: str | None = None, *, session_id: str = "") -> None:
    """End one session for good: the one a cookie ``value`` names, or the listed ``session_id``."""
    if value:
        key = _PREFIX + _digest(value)
    elif len(session_id) >= 12 and all(ch in "0123456789abcdef" for ch in session_id):
        key = _PREFIX + session_id + "%"
    else:
        return
    with store._tx(immediate=True, key="signin") as c:
        c.execute("DELETE FROM ifw_meta WHERE key LIKE ?", (key,))


def end_all_sessions(store: Any) -> int:
    """Sign every facilitator browser out; returns how many sessions there were."""
    with store._tx(immediate=True, key="signin") as c:
        n = len(c.execute("SELECT key FROM ifw_meta WHERE key LIKE ?", (_PREFIX + "%",)).fetchall())
        c.execute("DELETE FROM ifw_meta WHERE key LIKE ?", (_PREFIX + "%",))
    return n


def list_sessions(store: Any) -> list[SigninSession]:
    """Live sessions, newest first (expired ones are deleted on the way)."""
    now = time.time()
    out: list[SigninSession] = []
    stale: list[str] = []
    with store._tx() as c:
        rows = c.execute("SELECT key, value FROM ifw_meta WHERE key LIKE ?", (_PREFIX + "%",)).fetchall()
    for key, value in rows:
        try:
            data = json.loads(value)
            item = SigninSession(id=str(key)[len(_PREFIX):][:12], created=float(data["created"]),
                                 expires=float(data["expires"]), browser=str(data.get("browser", "")))
        except (ValueError, KeyError, TypeError):
            stale.append(key)
            continue
        if item.expires > now:
            out.append(item)
        else:
            stale.append(key)
    if stale:
        with store._tx(immediate=True, key="signin") as c:
            for key in stale:
                c.execute("DELETE FROM ifw_meta WHERE key=?", (key,))
    return sorted(out, key=lambda s: -s.created)
