"""What a what-if method is: a :class:`MethodSpec` in :data:`REGISTRY` (the ``whatif.methods`` point).

IF-World (the paper's method) and the single, tree and debate baselines are entries like any other, registered
by :mod:`ifworld.whatif.builtin_methods`. Everything that lists or switches on methods reads the registry:
``ifworld whatif run --method`` and its help, the evaluation's ``paper`` preset and its table order, call and
token estimates, matched token budgets, the What-if page's method picker and labels, the step labels of a live
run and of a replay, the judge's blinding of method names, and the docs table.

A spec's code hooks (graph builder, estimate, …) are callables, or ``"module:attr"`` strings resolved on first
use (:meth:`MethodSpec.hook`): the built-ins name theirs that way, so reading the registry — the CLI's help,
the page's picker — loads neither LangGraph nor the engines. A run of method ``m`` is the ``ifworld.runs``
workflow ``whatif.m``, built from the spec by :mod:`ifworld.whatif.workflows`.
"""

from ifworld.whatif import builtin_methods  # noqa: F401  (registers IF-World, single, tree, debate, in order)
from ifworld.whatif.method_spec import (
    DOC_COLUMNS,
    METHOD_REGISTRY,
    REGISTRY,
    Hook,
    MethodBudget,
    MethodSpec,
    check_method,
    paper_methods,
    reference_method,
)

__all__ = ["DOC_COLUMNS", "METHOD_REGISTRY", "REGISTRY", "Hook", "MethodBudget", "MethodSpec", "check_method",
           "paper_methods", "reference_method"]
