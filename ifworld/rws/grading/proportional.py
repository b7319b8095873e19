"""Proportionality answers (``n \\propto r^{-2}``), compared by their exponents — in the grading worker.

Math-Verify cannot parse ``\\propto``, so a gold written as a scaling law was "unscored". Two relations
``A \\propto f`` and ``B \\propto g`` say the same when they are about the same quantity (A is B) and f/g is a
non-zero constant once every symbol is a positive quantity: for power laws, when every variable has the same
exponent (``r^{-2}`` = ``1/r^{2}``, ``m^{-1/2}`` = ``1/\\sqrt{m}``). The constant itself is what ``\\propto`` leaves
out, so ``2 r^{-2}`` for ``r^{-2}`` is the same law.
"""

from __future__ import annotations

import re

import sympy

from ifworld.rws.grading import mathverify, notation
from ifworld.rws.grading.extract import strip_wrappers
from ifworld.rws.grading.result import ALGEBRA, READING, CheckResult, Verdict

PROPTO = re.compile(r"\\propto(?![a-zA-Z])|∝")


def _sides(text: str) -> tuple[str, str] | None:
    """(quantity, law) of one ``A \\propto f`` (the last math region holding it), or None."""
    regions = [r for r in notation.math_regions(text, whole=False) if PROPTO.search(r)] or [text]
    parts = PROPTO.split(strip_wrappers(regions[-1]))
    if len(parts) != 2 or not parts[0].strip() or not parts[1].strip():
        return None
    return parts[0].strip(), parts[1].strip().rstrip(".")


def _quantity(lhs: str) -> str:
    """The quantity's name without spaces or a call (``n(r)`` is n)."""
    return re.sub(r"\s+", "", re.sub(r"\([^()]*\)\s*$", "", notation.unicode_latex(lhs)))


def _exponents(expr: sympy.Expr) -> str:
    """``r^-2 T^5/2``: the power of each symbol, for the reason."""
    powers = sympy.powsimp(sympy.expand_power_base(expr, force=True), force=True).as_powers_dict()
    shown = [f"{base}^{exp}" for base, exp in powers.items() if base.free_symbols]
    return " ".join(sorted(shown)) or "no variable"


def check_proportional(answer: str, gold: str) -> CheckResult | None:
    """Grade two ``\\propto`` relations by their exponents; None when either side is not one (other stages then)."""
    pred_sides, gold_sides = _sides(answer), _sides(gold)
    if pred_sides is None or gold_sides is None:
        return None

    def result(verdict: Verdict, by: str, reason: str) -> CheckResult:
        return CheckResult(verdict=verdict, type="symbolic", stage="symbolic", decided_by=by, reason=reason,
                           pred_norm=" \\propto ".join(pred_sides), gt_norm=" \\propto ".join(gold_sides),
                           annotations=[] if verdict != "not_sure" else ["parse failure"])

    if _quantity(pred_sides[0]) != _quantity(gold_sides[0]):
        return result("incorrect", ALGEBRA, f"proportional to: the answer is about {pred_sides[0]}, the reference "
                      f"about {gold_sides[0]}")
    pred_law, gold_law, _ = notation.prepare(pred_sides[1], gold_sides[1], True, True)
    pred_r, gold_r = mathverify.read(f"${pred_law}$"), mathverify.read(f"${gold_law}$")
    if not isinstance(pred_r.value, sympy.Expr) or not isinstance(gold_r.value, sympy.Expr):
        return result("not_sure", READING, "parse failure: a side of the proportionality cannot be read")
    positive = {s: sympy.Symbol(s.name, positive=True) for s in pred_r.value.free_symbols | gold_r.value.free_symbols
                if isinstance(s, sympy.Symbol)}
    pred_v, gold_v = pred_r.value.xreplace(positive), gold_r.value.xreplace(positive)
    if gold_v == 0 or pred_v == 0:
        return result("not_sure", READING, "a proportionality to zero cannot be compared")
    ratio = sympy.simplify(sympy.powsimp(pred_v / gold_v, force=True))
    shown = f"{_exponents(pred_v)} vs {_exponents(gold_v)}"
    if not ratio.free_symbols and ratio.is_finite and ratio != 0:
        return result("correct", ALGEBRA, f"proportional to: the same exponents ({_exponents(gold_v)}), compared "
                      "as \\propto relations (Math-Verify cannot read \\propto)")
    return result("incorrect", ALGEBRA, f"proportional to: the exponents differ ({shown})")
