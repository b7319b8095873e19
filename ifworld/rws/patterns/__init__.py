"""The RWS agentic answer patterns: one registry (``rws.patterns``), each pattern an explicit LangGraph state
machine over one item.

Public API:

* :data:`REGISTRY` — the :class:`PatternSpec` entries in benchmark order (the built-ins below, then any
  registered later); :func:`check_pattern` validates a name; ``REGISTRY.get(name).calls`` — model calls per role
  on the accept path and on the reject (retry) path; ``.calls_range()`` — (fewest, most) calls per item.
* :data:`DOC_COLUMNS` — the columns of the docs table.
* :data:`GATE_CONFIDENCE` — the gates' confidence threshold.
* :mod:`ifworld.rws.patterns.run` — ``build_pattern_graph``, ``run_pattern``, ``initial_state`` (they load
  LangGraph; this package does not, so the CLI's help stays fast).

A new pattern is one module that registers a spec (plus its prompt files under ``prompts/rws/<name>/``);
docs/extending.md shows one.
"""

from __future__ import annotations

from ifworld.rws.patterns.base import GATE_CONFIDENCE
from ifworld.rws.patterns.spec import DOC_COLUMNS, REGISTRY, PatternSpec, check_pattern

# The built-in patterns register themselves on import, in benchmark order (explicit imports, the house rule;
# the order of these lines is the order of the picker and of Table 2's columns).
# isort: off
from ifworld.rws.patterns import single  # noqa: F401
from ifworld.rws.patterns import hmaw  # noqa: F401
from ifworld.rws.patterns import pace  # noqa: F401
from ifworld.rws.patterns import phase  # noqa: F401
from ifworld.rws.patterns import schema  # noqa: F401
# isort: on

__all__ = ["DOC_COLUMNS", "GATE_CONFIDENCE", "REGISTRY", "PatternSpec", "check_pattern"]
