"""Who may do what: the facilitator, and everyone else — decided by the server, checked where actions happen.

Roles (:class:`Role`):

- **facilitator** — the person who runs the app: whoever types ``ifworld`` commands (:data:`OPERATOR`: they
  already hold the machine), or a browser session that presented the *facilitator credential*;
- **participant** — a browser that joined a workshop (its actions carry its own participant key);
- **visitor** — every other browser session.

Every mutating front door of the engines (start, continue, apply edits, cancel, resume, delete, export, judge,
the model connection, decisions on contributions) takes the :class:`Caller` and calls
:func:`require_facilitator` first, so a forged widget press or a typed URL from a participant's session is
refused by the engine itself (:class:`AccessDenied`), not only hidden by the page.

The credential is a 128-bit token kept in ``facilitator.token`` beside the run store (mode 0600, made on first
use) or given as ``IFWORLD_FACILITATOR_TOKEN`` (refused when guessable: :func:`weak_token_reason`). ``ifworld
app`` prints the sign-in link ``…/signin?token=…`` (``ifworld app signin-link`` prints it again, ``--rotate``
makes a new one); the app's ``/signin`` page takes the token out of the address and exchanges it by POST for a
sign-in *session* of that browser (:mod:`ifworld.signin`: a random HttpOnly cookie, stored, expiring,
revocable with ``/signout`` or on the Settings page). :func:`cookie_value` remains for the session-only
sign-in of ``streamlit run app.py`` served without the app's routes.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import os
import secrets
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from ifworld import edge, signin  # noqa: F401 — who-is-who's helpers, reached by the pages through this door
from ifworld.asset_cache import AssetCache  # noqa: F401 — the server's edge (ui/asgi.py), through this door
from ifworld.errors import IFWorldError
from ifworld.files import private_dir

TOKEN_ENV = "IFWORLD_FACILITATOR_TOKEN"
TOKEN_FILE = "facilitator.token"
TOKEN_BYTES = 16
"""128 random bits (``secrets.token_urlsafe``), like the workshop's join tokens."""
MIN_TOKEN_CHARS = 16
FACILITATOR_COOKIE = "ifworld_facilitator"
DEVICE_COOKIE = "ifworld_device"
"""A random per-browser id the app's server sets once: a participant's identity across reloads, tabs and an app
restart (their display name is not an identity)."""
SIGNIN_PATH = "/signin"
_COOKIE_CONTEXT = b"ifworld facilitator cookie v1"


class Role(StrEnum):
    FACILITATOR = "facilitator"
    PARTICIPANT = "participant"
    VISITOR = "visitor"


class Caller(BaseModel):
    """Who asks for an action: a role, and for a participant their id (``via`` says where they came from)."""

    model_config = ConfigDict(frozen=True)

    role: Role
    participant: str = ""
    via: str = ""

    @property
    def is_facilitator(self) -> bool:
        return self.role == Role.FACILITATOR


OPERATOR = Caller(role=Role.FACILITATOR, via="command line")
"""The person at the terminal: ``ifworld`` commands and library code act with the facilitator's powers."""
VISITOR = Caller(role=Role.VISITOR, via="browser")


class AccessDenied(IFWorldError, PermissionError):
    """The caller's role does not allow the action (the message names the action and who may do it)."""


def require_facilitator(caller: Caller | None, action: str) -> None:
    """Refuse ``action`` unless ``caller`` is the facilitator (an absent caller is nobody)."""
    if isinstance(caller, Caller) and caller.is_facilitator:
        return
    who = f"a {caller.role.value}" if isinstance(caller, Caller) else "not identified"
    raise AccessDenied(f"only the facilitator can {action} (this caller is {who}; the facilitator signs in "
                       "with the link that `ifworld app` prints)")


# -- the credential ------------------------------------------------------------------------------------------
def token_path(db_path: str | Path) -> Path:
    """Where the facilitator token is kept: beside the run store (or in ``~/.ifworld`` for a server URL)."""
    text = str(db_path)
    base = Path.home() / ".ifworld" if "://" in text else Path(text).expanduser().parent
    return base / TOKEN_FILE


def facilitator_token(db_path: str | Path, *, create: bool = True) -> str | None:
    """The facilitator token: ``IFWORLD_FACILITATOR_TOKEN``, else the token file (made when ``create``)."""
    env = os.environ.get(TOKEN_ENV, "").strip()
    if env:
        return env if weak_token_reason(env) is None else None  # a guessable token is refused: nobody signs in
    path = token_path(db_path)
    try:
        text = path.read_text(encoding="utf-8").strip()
        if len(text) >= MIN_TOKEN_CHARS:
            return text
    except OSError:
        pass
    if not create:
        return None
    token = secrets.token_urlsafe(TOKEN_BYTES)
    private_dir(path.parent)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(token + "\n")
    return token


def weak_token_reason(token: str) -> str | None:
    """Why a facilitator token given in the environment is refused (None when it is strong enough): judged by
    its entropy (:func:`ifworld.signin.token_bits`), not its length — sixteen copies of one letter are long
    enough and guessable at once."""
    bits = signin.token_bits(token)
    if len(token) < MIN_TOKEN_CHARS or bits < signin.MIN_TOKEN_BITS:
        return (f"{TOKEN_ENV} is too easy to guess (about {bits:.0f} bits; at least {signin.MIN_TOKEN_BITS:.0f} "
                "needed): "
                "make one with  python -c 'import secrets; print(secrets.token_urlsafe(24))'")
    return None


def cookie_value(token: str) -> str:
    """What the sign-in cookie holds: derived from the token, so the cookie jar never holds the token itself."""
    return hmac.new(token.encode("utf-8"), _COOKIE_CONTEXT, hashlib.sha256).hexdigest()


def token_matches(presented: str | None, token: str | None) -> bool:
    return bool(presented and token) and hmac.compare_digest(str(presented).encode(), str(token).encode())


def cookie_matches(presented: str | None, token: str | None) -> bool:
    return bool(presented and token) and hmac.compare_digest(str(presented).encode(),
                                                             cookie_value(str(token)).encode())


def is_loopback(address: str | None) -> bool:
    """Whether a bind address reaches this machine only (127.0.0.0/8, ::1, ``localhost``). An empty address is
    Streamlit's default, which binds every interface: not loopback."""
    text = (address or "").strip().strip("[]")
    if text == "localhost":
        return True
    try:
        return ipaddress.ip_address(text).is_loopback
    except ValueError:
        return False


def device_id() -> str:
    """A new per-browser id (the value of :data:`DEVICE_COOKIE`)."""
    return secrets.token_urlsafe(TOKEN_BYTES)
