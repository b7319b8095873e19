"""What the run store writes and reads, whichever backend holds it: a run's index row, and the scrubbing and
masking that keep secrets out of it (params, records, call logs and checkpoints)."""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from ifworld.redact import known_secrets, redact, redact_bytes

KINDS = ("whatif", "rws", "beliefs")
STATUSES = ("pending", "running", "interrupted", "cancelled", "failed", "completed", "paused")
RESUMABLE = ("pending", "interrupted", "cancelled", "failed")
"""Statuses the generic resume continues (a paused run waits for a person's answer instead)."""
# Key names that hold credentials ("access_token", "api_key"); usage counters like "prompt_tokens" are kept.
SECRET_KEY_RE = re.compile(r"(api[_-]?key|secret|passw(or)?d|authorization|bearer|(^|[_-])token$)", re.I)


def scrub(value: Any) -> Any:
    """Drop secret-looking keys from nested params before they are stored or exported."""
    if isinstance(value, dict):
        return {k: scrub(v) for k, v in value.items() if not SECRET_KEY_RE.search(str(k))}
    if isinstance(value, list | tuple):
        return [scrub(v) for v in value]
    return value


def configured_secret() -> str | None:
    """The longest known secret (kept for callers of the old single-key API)."""
    found = known_secrets()
    return found[0] if found else None


def dumps(value: Any) -> str:
    """JSON for the store: secret-named keys dropped, every known secret masked wherever it hides in text."""
    return redact(json.dumps(redact(scrub(value)), default=str))


class RedactingSerializer(JsonPlusSerializer):
    """Checkpoint serializer that masks every known secret, byte for byte, wherever it appears.

    Same-length masking keeps msgpack length prefixes valid, so checkpoints still load.
    """

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        kind, data = super().dumps_typed(obj)
        return kind, redact_bytes(data)


def new_run_id(kind: str) -> str:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    return f"{kind}-{stamp}-{secrets.token_hex(3)}"


@dataclass
class RunInfo:
    id: str
    kind: str
    workflow: str
    title: str
    status: str
    params: dict[str, Any]
    created: float
    updated: float
    finished: float | None = None
    record: dict[str, Any] | None = None
    usage: dict[str, Any] = field(default_factory=dict)
    error: str | None = None

    @property
    def created_iso(self) -> str:
        return datetime.fromtimestamp(self.created, timezone.utc).isoformat(timespec="seconds")

    def summary(self) -> dict[str, Any]:
        """The ``ifworld runs list --json`` row (a CLI contract)."""
        return {"id": self.id, "kind": self.kind, "status": self.status, "created": self.created_iso,
                "title": self.title}


def number(value: Any) -> float:
    return float(value) if isinstance(value, int | float) else 0.0
