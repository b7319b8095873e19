"""The ids of a scenario's variants (V1, V2, …): what a workshop's predictions and the report's
``variant_probabilities`` are joined on (part of :mod:`ifworld.whatif.schemas`, kept apart for its size)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

VARIANT_ID_PREFIX = "V"


class _HasId(Protocol):
    id: str


def assign_variant_ids(variants: Sequence[_HasId]) -> None:
    """Give every variant a stable id, in place: an id already held (``V`` + a number, unique) is kept, the
    others get the next free number in order — so a record written before ids existed reads as V1, V2, … by
    position, and a variant added at the review never renumbers the ones people already predicted on."""
    held: set[str] = set()
    for v in variants:
        vid = v.id.strip().upper()
        ok = vid[:1] == VARIANT_ID_PREFIX and vid[1:].isdigit() and vid not in held
        v.id = vid if ok else ""
        held.add(v.id)
    n = 0
    for v in variants:
        if not v.id:
            n = next(k for k in range(n + 1, n + len(variants) + 2) if f"{VARIANT_ID_PREFIX}{k}" not in held)
            v.id = f"{VARIANT_ID_PREFIX}{n}"
            held.add(v.id)
