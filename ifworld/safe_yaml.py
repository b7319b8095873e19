"""YAML from users (sweep grids) parsed without alias bombs and with a size cap.

A "billion laughs" grid of a few hundred bytes expands to gigabytes through anchors and aliases (measured:
366 bytes → 20 s, 2.2 GB and a 452 MB error message). No legitimate grid needs them, so an anchor or alias
is refused when the parser meets it, before anything is expanded; input over ``max_bytes`` is refused
before parsing, and error text is capped.
"""

from __future__ import annotations

from typing import Any

import yaml

from ifworld.errors import InputError
from ifworld.limits import MAX_YAML_BYTES, cap_text

ERROR_CHARS = 500


class AliasRefused(InputError, yaml.YAMLError):
    """The YAML used an anchor or alias."""


class NoAliasLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that raises on the first anchor (``&a``) or alias (``*a``)."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            mark = event.start_mark
            raise AliasRefused(f"anchors and aliases (&{event.anchor} / *{event.anchor}) are not allowed "
                                 f"(line {mark.line + 1}, column {mark.column + 1}); write the values out")
        return super().compose_node(parent, index)


def load_yaml(source: str | bytes, *, max_bytes: int = MAX_YAML_BYTES, what: str = "YAML",
              limit_name: str = "MAX_YAML_BYTES") -> Any:
    """Parse one YAML document safely; every problem is a short ``ValueError`` naming ``what``."""
    raw = source.encode("utf-8", "surrogatepass") if isinstance(source, str) else bytes(source)
    if len(raw) > max_bytes:
        raise InputError(f"{what} is {len(raw):,} bytes; the limit is {max_bytes:,} ({limit_name})")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{what} is not UTF-8 text (byte {exc.start})") from None
    try:
        return yaml.load(text, Loader=NoAliasLoader)  # noqa: S506 — a SafeLoader subclass
    except AliasRefused as exc:
        raise InputError(f"{what}: {exc}") from None
    except yaml.YAMLError as exc:
        raise InputError(cap_text(f"{what} is not valid YAML: {exc}", ERROR_CHARS)) from None
