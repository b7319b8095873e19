"""The facilitator's model connection kept in the run store — the Base URL and the model name, never the key —
so it survives a reload of the page and reaches every app process on the store (issue #42 item 5).

Only the facilitator saves (the check is here, not only on the page). A Base URL is kept only as an
``http(s)://host…`` address without a user or password in it (those would be a secret in the store); anything
else is refused with :class:`~ifworld.errors.ConfigError`. The key stays in the browser session or the
environment: a saved Base URL that is not the configured one is, as ever, used without the configured key
(:func:`ifworld.config.load_settings`).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ValidationError

from ifworld.access import Caller, require_facilitator
from ifworld.errors import ConfigError

META_KEY = "saved_connection"
MAX_URL_CHARS = 500
MAX_MODEL_CHARS = 200


class SavedConnection(BaseModel):
    """What the facilitator set in the sidebar; empty strings mean "as configured"."""
    base_url: str = ""
    model: str = ""


def checked(base_url: str, model: str) -> SavedConnection:
    """The connection to save, or :class:`ConfigError` naming what is wrong with it."""
    base_url, model = base_url.strip(), model.strip()
    if len(base_url) > MAX_URL_CHARS or len(model) > MAX_MODEL_CHARS:
        raise ConfigError(f"a Base URL is at most {MAX_URL_CHARS} characters and a model name {MAX_MODEL_CHARS}")
    if any(ord(ch) < 32 for ch in base_url + model):
        raise ConfigError("the Base URL and the model name cannot contain control characters")
    if base_url:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError(f"not saved: {base_url[:80]!r} is not an http:// or https:// address")
        if parts.username or parts.password:
            raise ConfigError("not saved: the Base URL carries a user name or password; give the key in the API key "
                              "field instead (it is never stored)")
    return SavedConnection(base_url=base_url, model=model)


def save_connection(store: Any, caller: Caller | None, base_url: str, model: str) -> SavedConnection:
    """Keep the facilitator's Base URL and model name in ``store`` (both empty: forget them)."""
    require_facilitator(caller, "change the model connection")
    saved = checked(base_url, model)
    with store._tx(immediate=True, key=META_KEY) as c:
        c.execute("DELETE FROM ifw_meta WHERE key=?", (META_KEY,))
        if saved.base_url or saved.model:
            c.execute("INSERT INTO ifw_meta (key, value) VALUES (?, ?)", (META_KEY, saved.model_dump_json()))
    return saved


def saved_connection(store: Any) -> SavedConnection:
    """What was saved (empty when nothing was, or when the stored value is unreadable)."""
    with store._tx() as c:
        row = c.execute("SELECT value FROM ifw_meta WHERE key=?", (META_KEY,)).fetchone()
    if not row:
        return SavedConnection()
    try:
        return SavedConnection.model_validate(json.loads(row[0]))
    except (ValueError, ValidationError):
        return SavedConnection()
