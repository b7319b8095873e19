"""Independent references for the grader's kind tables (issue #32): sympy's own parser and pint, used plainly.

* ``sympy_verdict(pred, gold)`` — ``parse_expr`` with the standard transformations, implicit multiplication
  (and application) and ``^`` as power, then ``simplify(pred - gold) == 0``; ``i`` is a plain symbol (as in
  Python and sympy), an equation compares ``lhs - rhs``. Text it cannot parse (LaTeX, prose) is ``None``.
* ``pint_verdict(pred, gold)`` — pint's default registry reads both as quantities after a minimal LaTeX
  clean-up (``\\text{…}``, ``\\%``, ``^\\circ``, ``\\frac{a}{b}``); equal when the dimensions match and the values
  agree within 5 % (the RWS rule). ``None`` when pint cannot read one side.

Both run in the benchmark's main thread under ``signal.alarm`` (valid there), one second per call.
"""

from __future__ import annotations

import re
import signal
from collections.abc import Callable
from typing import Any

TIME_S = 1


def _timed(func: Callable[[], Any]) -> Any:
    def stop(signum: int, frame: Any) -> None:
        raise TimeoutError

    old = signal.signal(signal.SIGALRM, stop)
    signal.alarm(TIME_S)
    try:
        return func()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _sympy(text: str) -> Any:
    from sympy.parsing.sympy_parser import (
        convert_xor,
        implicit_multiplication_application,
        parse_expr,
        standard_transformations,
    )

    transformations = (*standard_transformations, implicit_multiplication_application, convert_xor)
    sides = text.split("=")
    exprs = [parse_expr(side, transformations=transformations) for side in sides]
    return exprs[0] - exprs[-1] if len(exprs) == 2 else exprs[0]


def sympy_verdict(pred: str, gold: str) -> bool | None:
    """sympy's reading: True/False when both sides parse as plain maths, None when either does not."""
    import sympy

    if re.search(r"[\\{}$]", pred + gold) or len(pred) > 200 or len(gold) > 200:
        return None
    try:
        return bool(_timed(lambda: sympy.simplify(_sympy(pred) - _sympy(gold)) == 0))
    except Exception:  # noqa: BLE001 - any failure means "sympy cannot read it"
        return None


_REGISTRY: Any = None


def _quantity(text: str) -> Any:
    global _REGISTRY
    import pint

    if _REGISTRY is None:
        _REGISTRY = pint.UnitRegistry()
    s = re.sub(r"\\frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}", r"(\1)/(\2)", text)
    s = re.sub(r"\\text\s*\{([^{}]*)\}", r" \1 ", s)
    s = s.replace("\\%", " percent").replace("%", " percent").replace("^\\circ", " degree").replace("\\", "")
    return _REGISTRY.Quantity(s.strip())


def pint_verdict(pred: str, gold: str) -> bool | None:
    """pint's reading: True/False when both sides are quantities pint reads, None when either is not."""
    try:
        p, g = _quantity(pred), _quantity(gold)
        if p.dimensionality != g.dimensionality:
            return False
        target = float(g.to_base_units().magnitude)
        value = float(p.to(g.units).to_base_units().magnitude)
        return abs(value - target) <= 0.05 * abs(target) if target else value == 0
    except Exception:  # noqa: BLE001 - any failure means "pint cannot read it"
        return None
