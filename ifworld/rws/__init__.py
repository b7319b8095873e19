"""Reasoning With a Star: heliophysics Q&A items, a programmatic grader, an LLM verifier, agentic patterns.

Front door: pages, ``ui/`` and the CLI import only the names in ``__all__`` (listed with their types in
``__init__.pyi``; loaded on first use). Two halves:

- ``grading/`` needs no model: Math-Verify for answer extraction and mathematical equivalence, our numbers with
  units (pint), physics notation and plain-text maths, text — all in killable worker processes;
  ``grading.grader`` has ``check``, ``grade_item``, ``grade_many`` (docs/grading.md says what comes from where).
- ``display`` — items on a page: plain Unicode picker labels, answers as LaTeX with upright units.
- ``dataset`` — the item schema and a forgiving JSONL/JSON loader; ``convert`` — other datasets into it.
- The LLM half: ``verifier`` (Parser + Judge for what the grader leaves ``not_sure``), ``patterns/`` (the answer
  patterns' registry, ``PATTERN_REGISTRY``, each pattern a LangGraph state machine), ``benchmark`` (items ×
  patterns × models as one resumable run), ``workflows`` (registration with ``ifworld.runs``), ``records``
  (typed stored results), ``tables`` (the paper's tables from saved records).
- ``cli`` — ``ifworld rws …``.
"""

import lazy_loader as _lazy

from ifworld.llm.demo_answers import add_source as _add_demo_source, spec_answers as _spec_answers

__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)


def _pattern_demo_answers() -> list[tuple[str, object]]:
    from ifworld.rws.patterns.spec import REGISTRY

    return [row for spec in REGISTRY for row in _spec_answers(f"rws.{spec.name}", spec.demo_answer)]


# The model layer imports no engine: this package hands the demo model the answers its patterns declare
# (``PatternSpec.demo_answer``), asked per request so patterns registered later are seen.
_add_demo_source(_pattern_demo_answers)
