"""Approximate restatements in chained working (``y = \\frac{2}{7} \\approx 0.29``) — in the grading worker.

A model often ends an exact answer with its decimal value. Math-Verify and our notation pass read ``\\approx`` as
``=``, which makes the chain's last link false (2/7 is not 0.29) and the answer incorrect. Here each
``exact \\approx decimal`` link is checked at the precision the decimal states — the exact value rounded to that
many decimal places (``0.29``: two; ``1.4\\times10^{3}``: the mantissa's) — and, when it holds, removed before
grading, so the exact part is what is graded. A restatement outside its stated precision is a false link
(incorrect, the link named); a link whose left side is not a number is left to the other stages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sympy

from ifworld.rws.grading import mathverify

_APPROX = re.compile(r"\s*(?:\\approx|≈|\\simeq)(?![a-zA-Z])\s*(?P<num>[-+−]?\d+(?:\.\d+)?)"
                     r"(?:\s*(?:\\times|×|\\cdot)\s*10\^\{?(?P<exp>[-+−]?\d+)\}?)?(?![\d.])")
_LINK_START = re.compile(r"=|\$|\n|\\\(|\\\[|\\boxed\{|\\approx(?![a-zA-Z])|≈")


@dataclass(frozen=True)
class Link:
    """One ``exact \\approx decimal`` link: its texts, the span of its ``\\approx decimal`` part, whether it holds."""

    exact: str
    approx: str
    span: tuple[int, int]
    holds: bool | None
    """True within the stated precision, False outside it, None when the exact side is not a number."""


def _holds(exact: str, number: str, exponent: str | None) -> bool | None:
    """Is `exact` (LaTeX) the decimal ``number×10^exponent`` rounded at the decimal's own precision?"""
    value = mathverify.as_number(mathverify.read(f"${exact}$"))
    if value is None or abs(value.imag) > 1e-12:
        return None
    number = number.replace("−", "-")
    places = len(number.split(".")[1]) if "." in number else 0
    power = int(exponent.replace("−", "-")) if exponent else 0
    approx = sympy.Rational(number) * sympy.Integer(10) ** power
    half_unit = sympy.Rational(1, 2) * sympy.Integer(10) ** (power - places)
    return bool(abs(sympy.Float(value.real, 30) - approx) <= half_unit * (1 + sympy.Rational(1, 10**9)))


def links(text: str) -> list[Link]:
    """Every ``exact \\approx decimal`` link of a reply's answer, in written order."""
    found = []
    for match in _APPROX.finditer(text):
        before = text[:match.start()]
        starts = [m.end() for m in _LINK_START.finditer(before)]
        exact = before[starts[-1] if starts else 0:].strip()
        if not exact:
            continue
        approx = match.group(0).strip()
        found.append(Link(exact, approx, match.span(), _holds(exact, match["num"], match["exp"])))
    return found


def without(text: str, kept: list[Link]) -> str:
    """`text` with the ``\\approx decimal`` part of every link in `kept` removed."""
    for link in sorted(kept, key=lambda one: one.span[0], reverse=True):
        text = text[:link.span[0]] + text[link.span[1]:]
    return text
