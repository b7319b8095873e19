"""Answers as people and models write them (issue #32): label sides, the imaginary unit, stated precision.

Runs in the grading worker, on text (before Math-Verify parses) and on Math-Verify's parsed sympy values:

* **equation sides** — a left side that only *labels* the asked quantity: function notation ``P(r) = …`` is
  the quantity ``P`` (:func:`call_label`, :func:`drop_calls`), and a ratio or fraction of names (``A_1:A_2``, ``BD:DC``,
  ``\\frac{AM}{MC}``) is a label for a bare value (:func:`is_ratio_label`);
* **the imaginary unit** — ``i`` stays a symbol (physics uses it as an index) unless the gold is a plain number
  and ``i`` is the answer's only symbol (``5 - 5*i**2`` for 10): then it can only be the imaginary unit;
* **stated precision** — a decimal answer for an exact number (``0.67`` for ``2/3``, a matrix of rounded
  decimals for exact fractions) is the exact value rounded at the precision the answer states: at least
  :data:`MIN_SIGNIFICANT` significant digits, the exact value within half a unit of its last digit, and within
  the RWS paper's 5 % numeric tolerance. An integer states no rounding (``3`` is not ``\\pi``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import sympy

from ifworld.rws.grading.constants import REL_TOLERANCE
from ifworld.rws.grading.latexnorm import TEXT_COMMANDS, fold_confusables

MIN_SIGNIFICANT = 2
"""A decimal answer must state at least this many significant digits to count as a rounding (``0.7`` does not
count for 2/3; ``0.67`` does)."""
_NAME = r"(?:\\[a-zA-Z]+|[a-zA-Z])(?:_\{[^{}]*\}|_\\?[a-zA-Z0-9]+)?"
_SEGMENT = r"(?:[A-Z]{1,3}|%s)" % _NAME
_RATIO = re.compile(r"\s*(%s)\s*:\s*(%s)\s*" % (_SEGMENT, _SEGMENT))
_FRACTION = re.compile(r"\s*\\frac\s*\{\s*(%s)\s*\}\s*\{\s*(%s)\s*\}\s*" % (_SEGMENT, _SEGMENT))
_NOT_NAMES = frozenset("sin cos tan cot sec csc log ln exp sqrt frac arcsin arccos arctan sinh cosh tanh "
                       "nabla partial det".split())
_CALL_LABEL = re.compile(r"^(\s*)(%s)\s*(?:\\left)?\(\s*(%s(?:\s*,\s*%s)*)\s*(?:\\right)?\)(\s*=(?!=))"
                         % (_NAME, _NAME, _NAME))
_DECIMAL = re.compile(r"(?<![\d.])\d*\.\d+(?![\d.])")


def is_ratio_label(lhs: str) -> bool:
    """``A_1:A_2``, ``BD:DC``, ``\\frac{AM}{MC}``, ``\\frac{a}{b}``: a ratio of names labels the asked value."""
    match = _RATIO.fullmatch(lhs) or _FRACTION.fullmatch(lhs)
    return match is not None and not any(part.strip("\\") in _NOT_NAMES for part in match.groups())


def call_label(text: str) -> tuple[str, str] | None:
    """(name, arguments) of function notation on an equation's left side (``P(r) = …`` → ("P", "r")), else None
    (``\\sin(x) = …`` is not a label)."""
    match = _CALL_LABEL.match(text)
    if match is None or match[2].strip("\\") in _NOT_NAMES:
        return None
    return match[2], re.sub(r"\s+", "", match[3])


def drop_calls(text: str, labels: set[tuple[str, str]]) -> str:
    """Every ``name(args)`` of a label written as the quantity's name, wherever it stands (``3 B_r(r,\\theta)``,
    ``… = B_r(r,\\theta)``), so both sides name the quantity the same way."""
    for name, args in labels:
        parts = [re.escape(arg) for arg in args.split(",")]
        pattern = re.escape(name) + r"\s*(?:\\left)?\(\s*" + r"\s*,\s*".join(parts) + r"\s*(?:\\right)?\)"
        text = re.sub(pattern, lambda _, name=name: name + " ", text)  # type: ignore[misc]
    return text


def imaginary(pred: Any, gold: Any) -> Any:
    """The answer with ``i`` read as the imaginary unit when the gold is a number and ``i`` is its only symbol."""
    if not (isinstance(pred, sympy.Expr) and isinstance(gold, sympy.Expr)) or gold.free_symbols:
        return None
    names = {s.name for s in pred.free_symbols}
    if names != {"i"}:
        return None
    return pred.xreplace({s: sympy.I for s in pred.free_symbols})


def _elements(value: Any) -> list | None:
    """The numbers of a value compared element by element (a number, a tuple, a matrix, an interval)."""
    if isinstance(value, sympy.MatrixBase):
        return list(value)
    if isinstance(value, sympy.Tuple):
        return list(value)
    if isinstance(value, sympy.Interval):
        return [value.start, value.end]
    if isinstance(value, sympy.Expr):
        return [value]
    return None


def _same_shape(pred: Any, gold: Any) -> bool:
    if isinstance(pred, sympy.MatrixBase) or isinstance(gold, sympy.MatrixBase):
        return isinstance(pred, sympy.MatrixBase) and isinstance(gold, sympy.MatrixBase) and pred.shape == gold.shape
    if isinstance(pred, sympy.Interval) or isinstance(gold, sympy.Interval):
        return isinstance(pred, sympy.Interval) and isinstance(gold, sympy.Interval) and \
            (pred.left_open, pred.right_open) == (gold.left_open, gold.right_open)
    return type(pred) is type(gold) or (isinstance(pred, sympy.Expr) and isinstance(gold, sympy.Expr)
                                        and not isinstance(pred, sympy.Tuple) and not isinstance(gold, sympy.Tuple))


def _decimals(literal: str) -> tuple[int, int]:
    """(decimal places, significant digits) of a decimal literal as written (``0.60`` → (2, 2))."""
    whole, _, frac = literal.lstrip("-+").partition(".")
    digits = (whole + frac).lstrip("0")
    return len(frac), len(digits)


def _one(literal: str | None, p: Any, g: Any) -> tuple[bool | None, str]:
    """One element: (True rounded right, None within tolerance but misrounded, False otherwise; its note)."""
    if not (isinstance(g, sympy.Expr) and g.is_number and not g.has(sympy.Float)):
        return False, ""
    if isinstance(p, sympy.Float):
        text = literal if literal is not None else str(p).rstrip("0")
        places, significant = _decimals(text)
    elif isinstance(p, (sympy.Integer, sympy.Rational)) and p == g:
        return True, ""
    else:
        return False, ""
    try:
        if sympy.Rational(text) == g:  # the decimal as written is the exact value (0.2 for 1/5): no rounding
            return True, f"{text} is exactly {sympy.latex(g)}"
        exact, given = sympy.N(g, 30), sympy.Float(p, 30)
        if exact.is_real is False or exact == 0:
            return False, ""
        error = abs(exact - given)
        within = error <= REL_TOLERANCE * abs(exact)
        rounded = error <= sympy.Rational(1, 2) * sympy.Rational(10) ** -places * (1 + sympy.Rational(1, 10**9))
    except (TypeError, ValueError):
        return False, ""
    shown = f"{sympy.latex(g)} ≈ {sympy.N(g, max(places + 2, 4))}"
    if rounded and within and significant >= MIN_SIGNIFICANT:
        return True, f"{text} is {shown} rounded to {places} decimal place{'s' * (places != 1)}"
    if within:
        return None, f"{text} is within the RWS {REL_TOLERANCE:.0%} tolerance of {shown} but is not it rounded " \
            f"to {places} decimal place{'s' * (places != 1)}" + (" (too few significant digits)" if rounded else "")
    return False, ""


def stated_precision(pred: Any, gold: Any, pred_text: str) -> tuple[bool | None, str]:
    """Decimals for exact numbers: (True, why) when every decimal is the exact value correctly rounded at its
    stated precision; (None, why) when within the RWS 5 % tolerance but not so rounded; (False, "") otherwise."""
    if not _same_shape(pred, gold):
        return False, ""
    ps, gs = _elements(pred), _elements(gold)
    if ps is None or gs is None or len(ps) != len(gs) or not any(isinstance(p, sympy.Float) for p in ps):
        return False, ""
    literals = _DECIMAL.findall(pred_text)
    floats = sum(isinstance(p, sympy.Float) for p in ps)
    use = iter(literals) if len(literals) == floats else None
    outcomes = []
    for p, g in zip(ps, gs, strict=True):
        literal = next(use) if use is not None and isinstance(p, sympy.Float) else None
        outcomes.append(_one(literal, p, g))
    notes = [note for _, note in outcomes if note]
    if all(ok for ok, _ in outcomes):
        return True, "; ".join(notes[:3]) + ("; …" if len(notes) > 3 else "")
    if all(ok is not False for ok, _ in outcomes):
        return None, next(note for ok, note in outcomes if ok is None)
    return False, ""


_TIMES_TEN = r"(?:\s*(?:\\times|×|\\cdot)\s*10\^(?:\{\s*[-−]?\d+\s*\}|[-−]?\d))?"
_PLAIN_NUMBER = r"[-+−]?(?:\d{1,3}(?:(?:,|\{,\}|\\,)\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)" + _TIMES_TEN
_LEAD_IN = r"(?:[^\d=$\\]*\b(?:is|are|was|equals|comes to|about|approximately|roughly)\s+)?"
"""Words before the number that name no other value ("The gap is about …")."""
_NUMBER_THEN_UNIT = re.compile(_LEAD_IN + r"\s*(%s)\s*(?:\\[,;!:]\s*|~)?([^\d\s=<>,;.][^=<>,;]*?)\s*\.?\s*"
                               % _PLAIN_NUMBER)
_BARE_GOLD = re.compile(r"\s*%s\s*" % _PLAIN_NUMBER)


_CONSTANTS = frozenset("elementary_charge speed_of_light electron_mass proton_mass neutron_mass standard_gravity "
                       "avogadro_number bohr_radius vacuum_permeability vacuum_permittivity hartree "
                       "impedance_of_free_space".split())
"""Physical constants pint can read as units (``2 e``, ``4 c``): after a number in a symbolic answer they are
factors (2·e, 4·c), never a unit. So is every ``…_constant`` (``k``, ``R``, ``hbar``)."""
_TEXT_WRAPPED = re.compile(r"\\(?:%s)\s*\{" % TEXT_COMMANDS)


@dataclass(frozen=True)
class GluedUnit:
    """A number with a unit after it, in an answer whose reference is a bare number."""

    number: str
    unit: str
    one_letter: bool
    """The unit is one letter written as maths (``2 m``, ``1,204.5m²``): metres, or the symbol m? Not decided."""


def unit_on_number(answer: str, gold: str) -> GluedUnit | None:
    """The number and its unit when the answer is a number followed by a unit (``1,204.5 km²``,
    ``37.5\\,\\text{m}^2``, ``88 miles``, "The gap is about 88 miles.") and the reference a bare number; else
    None. Words before the number are allowed only when they name no other value (no digit, no ``=``).

    A symbolic item's reference with no unit cannot say which unit is right, so the unit is not checked (as in
    a numeric item) — but only a unit the field's registry reads counts (``12 x`` stays a product), never a
    physical constant (``2 e`` is 2·e), and a lone letter outside ``\\text{}`` is marked as undecided.
    """
    match = _NUMBER_THEN_UNIT.fullmatch(answer)
    if match is None or not _BARE_GOLD.fullmatch(gold):
        return None
    from ifworld.rws.grading.units import UnitError, parse_unit  # pint: loaded only for such an answer

    try:
        unit = parse_unit(fold_confusables(match[2])[0])
    except UnitError:
        return None
    if unit is None or unit.dimensionless:
        return None
    names = set(getattr(unit, "_units", {}))
    if names & _CONSTANTS or any(name.endswith("_constant") for name in names):
        return None
    one_letter = len(re.findall(r"[A-Za-z]", match[2])) == 1 and not _TEXT_WRAPPED.search(match[2])
    number = re.sub(r"\{,\}|\\,", "", match[1])  # LaTeX's thousands spacing; a bare comma is left as written
    return GluedUnit(number, str(unit), one_letter)
