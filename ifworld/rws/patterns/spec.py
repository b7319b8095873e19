"""What an RWS answer pattern is: a :class:`PatternSpec` in :data:`REGISTRY` (the ``rws.patterns`` point).

A pattern module builds its LangGraph nodes in ``add_nodes(graph, settings) -> last node`` and registers one
spec at import (name, label, help, roles, calls per item). Everything that lists patterns reads the registry, in
registration order: the CLI's ``--pattern`` check, the benchmark page's picker and labels, the call estimates,
Table 2's columns (``in_table2``) and the docs table. Importing this module loads neither LangGraph nor the
model layer, so the CLI's help stays fast.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic import Field, model_validator

from ifworld.errors import InputError
from ifworld.registry import Registry, Spec

__all__ = ["DOC_COLUMNS", "PATTERN_REGISTRY", "REGISTRY", "PatternSpec", "check_pattern"]


class PatternSpec(Spec):
    """One agentic answer pattern: its roles, what an item costs, and the builder of its state machine."""

    roles: tuple[str, ...] = Field(min_length=1, description="role names: prompts/rws/<name>/<role>.yaml")
    calls: Mapping[str, Mapping[str, int]] = Field(
        description="model calls per role on each path: 'accept' (gates pass), optionally 'reject' (one retry)")
    call_bounds: tuple[int, int] | None = Field(
        default=None, description="(fewest, most) calls per item when a model's choice sets the count (SCHEMA)")
    add_nodes: Callable[..., str] = Field(
        description="add_nodes(graph, settings) -> the node that leads to 'finish' (LangGraph StateGraph)")
    in_table2: bool = Field(default=True, description="a column of Table 2 (accuracy by agent design pattern); "
                                                      "the single-shot baseline is Table 1's")
    preselected: bool = Field(default=False, description="picked by default on the benchmark page")
    demo_answer: Any = Field(
        default=None, description="what the demo model (and the tests' fake server) answers its roles with: "
        "{role: reply} (a role's retry is 'role#retry'; '' answers every role), or one reply for all; a reply is "
        "text, a JSON object or a callable(request body). None: the generic schema-valid answer")

    @model_validator(mode="after")
    def _accept_path(self) -> PatternSpec:
        if "accept" not in self.calls:
            raise InputError(f"pattern {self.name!r}: calls needs an 'accept' path")
        return self

    def calls_range(self) -> tuple[int, int]:
        """(fewest, most) model calls per item: ``call_bounds`` when stated, else the paths' totals."""
        if self.call_bounds is not None:
            return self.call_bounds
        totals = [sum(path.values()) for path in self.calls.values()]
        return min(totals), max(totals)


REGISTRY: Registry[PatternSpec] = Registry("rws.patterns", PatternSpec, noun="pattern",
                                           aliases={"single_shot": "single"})
"""The answer patterns, in benchmark order (built-ins are registered by :mod:`ifworld.rws.patterns`)."""
PATTERN_REGISTRY = REGISTRY
"""The same registry under the name the front door ``ifworld.rws`` exports."""

DOC_COLUMNS: dict[str, Callable[[PatternSpec], object]] = {
    "Name": lambda s: f"`{s.name}`",
    "Label": lambda s: s.label,
    "Roles": lambda s: s.roles,
    "Calls per item": lambda s: "{0}".format(*s.calls_range()) if len(set(s.calls_range())) == 1
    else "{0}–{1}".format(*s.calls_range()),
    "Table 2": lambda s: "yes" if s.in_table2 else "Table 1",
    "What it does": lambda s: s.help,
}
"""The docs table (``<!-- registry-table: rws.patterns -->``)."""


def check_pattern(name: str) -> str:
    """A registered pattern's name (read by the one rule of :func:`ifworld.registry.name_key`; ``single-shot``
    is an alias of ``single``); else ``UnknownEntry`` with the choices."""
    return REGISTRY.check(name)
