"""JSON that every standard parser reads: non-finite numbers (NaN, ±Infinity) become ``null``, with a note.

Python's ``json.dumps`` writes a model's ``1e400`` (read as ``inf``) or a ``NaN`` as the bare tokens
``Infinity`` / ``NaN``, which JavaScript's ``JSON.parse``, ``jq`` and most other parsers refuse: one such
number made a whole export unreadable. :func:`dumps` writes ``null`` in their place and, when the top level
is an object, adds ``"non_finite_numbers": {"note": …, "paths": [...]}`` naming where they were (JSONPath-
style, ``$.record.report.scenarios[0].probability_pct``), so nothing is silently lost. Every JSON the
product writes for people or other programs (exports, ``--out`` files, ``--json`` output) goes through it.
"""

from __future__ import annotations

import json
import math
from typing import Any

NOTE_KEY = "non_finite_numbers"
NOTE = "these numbers were not finite (NaN or Infinity) and are written as null"


def finite(value: Any, path: str = "$") -> tuple[Any, list[str]]:
    """A copy of ``value`` with every non-finite float replaced by None, and the paths where that happened."""
    paths: list[str] = []

    def walk(v: Any, at: str) -> Any:
        if isinstance(v, float):
            if math.isfinite(v):
                return v
            paths.append(at)
            return None
        if isinstance(v, dict):
            return {k: walk(x, f"{at}.{k}") for k, x in v.items()}
        if isinstance(v, list | tuple):
            return [walk(x, f"{at}[{i}]") for i, x in enumerate(v)]
        return v

    return walk(value, path), paths


def non_finite_paths(value: Any) -> list[str]:
    """Where ``value`` holds NaN or ±Infinity (empty when every number is finite)."""
    return finite(value)[1]


def dumps(value: Any, **kwargs: Any) -> str:
    """``json.dumps`` that never writes ``NaN``/``Infinity``: they become null, listed under
    :data:`NOTE_KEY` when ``value`` is an object. Takes ``json.dumps``' keyword arguments."""
    clean, paths = finite(value)
    if paths and isinstance(clean, dict):
        clean = {**clean, NOTE_KEY: {"note": NOTE, "paths": paths}}
    default = kwargs.pop("default", None)
    if default is not None:  # objects turned into JSON by ``default`` are cleaned too
        kwargs["default"] = lambda obj: finite(default(obj))[0]
    return json.dumps(clean, allow_nan=False, **kwargs)
