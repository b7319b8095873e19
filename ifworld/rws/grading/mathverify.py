"""Math-Verify through its public API — answer extraction and general mathematical equivalence.

Runs only inside the grading worker (imports sympy and latex2sympy2_extended). Math-Verify's own time limits
(``parsing_timeout``, ``timeout_seconds``) use ``signal.alarm``, which fails off the main thread (Streamlit
runs scripts off it), so both are None here and the worker's kill is the limit. Parsing is deterministic, so
readings are cached per text for the life of the worker.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import sympy
from math_verify import ExprExtractionConfig, LatexExtractionConfig, LatexNormalizationConfig, parse, verify

from ifworld.rws.grading.notation import RefusedInput

logging.getLogger("math_verify").setLevel(logging.ERROR)  # "timeout disabled" is by design here

LATEX = LatexExtractionConfig(normalization_config=LatexNormalizationConfig(
    basic_latex=True, units=False, malformed_operators=True, nits=True, boxed="all", equations=False))
"""Math-Verify's LaTeX target (boxed / final-answer / last LaTeX) with its defaults except ``units``: its unit
removal deletes trailing letters such as ``m`` (``F = a m`` → ``F =``) and ``g h``, which are quantities in
physics; units after a maths answer are removed by :mod:`ifworld.rws.grading.notation` instead."""
LATEX_AND_EXPR = (LATEX, ExprExtractionConfig())
"""LaTeX, then plain numbers and arithmetic (Math-Verify's default pair of targets)."""
EXPR_ONLY = (ExprExtractionConfig(),)
"""Plain numbers (thousands separators, decimal commas, percent) and arithmetic, no LaTeX."""
MAX_OPS = 400
"""A parsed answer with more operations than this is refused (comparison could explode)."""


@dataclass(frozen=True)
class Reading:
    """What Math-Verify extracted: the parsed value (None when nothing parsed) and the text it read."""

    value: Any
    text: str

    @property
    def parsed(self) -> list:
        """The form :func:`verify` takes (the parsed value first, the text as its fallback)."""
        return [self.value, self.text] if self.value is not None else ([self.text] if self.text else [])


@lru_cache(maxsize=1024)
def read(text: str, latex: bool = True) -> Reading:
    """Extract and parse the answer in `text` (LaTeX and plain expressions, or plain ones only)."""
    found = parse(text, extraction_config=LATEX_AND_EXPR if latex else EXPR_ONLY, parsing_timeout=None)
    value = next((item for item in found if not isinstance(item, str)), None)
    shown = next((item for item in found if isinstance(item, str)), "")
    if isinstance(value, sympy.Basic) and sympy.count_ops(value) > MAX_OPS:
        raise RefusedInput("expression too large")
    return Reading(value, shown)


def same(gold: Reading, pred: Reading) -> bool:
    """Math-Verify's verdict: is `pred` equivalent to `gold` (sets, intervals, relations, equations …)?"""
    if gold.value is None or pred.value is None:
        return False
    return bool(verify(gold.parsed, pred.parsed, timeout_seconds=None, allow_set_relation_comp=True))


def as_number(reading: Reading) -> complex | None:
    """The value as a number when it is one (finite, no free symbols), else None."""
    value = reading.value
    if not isinstance(value, sympy.Expr) or value.free_symbols or value.has(sympy.zoo, sympy.nan, sympy.oo):
        return None
    try:
        number = complex(sympy.N(value, 20))
    except (TypeError, ValueError, OverflowError, ZeroDivisionError):
        return None
    if number != number or abs(number) == float("inf"):
        return None
    return number
