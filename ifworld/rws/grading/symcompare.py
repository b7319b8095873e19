"""Sympy side of the symbolic stage, run only inside the grading worker (imports sympy; may be slow).

Parsing of one LaTeX leaf (sympy's antlr grammar with our repairs of its physics misreadings, then
latex2sympy2_extended as the second parser), exact zero tests under an inner time box, seeded random-point
evaluation and solve-and-substitute. The rules that use them live in :mod:`ifworld.rws.grading.answercompare`.
"""

from __future__ import annotations

import os
import random
import signal
import threading
from collections.abc import Callable
from functools import lru_cache, partial
from typing import TypeVar

import sympy
from sympy.core.function import AppliedUndef
from sympy.parsing.latex import parse_latex

from ifworld.errors import ConfigError, GradingError
from ifworld.rws.grading.kinds import UnreadableAnswer

N_POINTS = 6
"""Random evaluation points per comparison."""
REL_EQ = 1e-8
"""Relative tolerance for two evaluations to count as equal."""
SIMPLIFY_BUDGET_S = 1.0
"""Inner time box for the simplify fallback (the parent's kill is the hard limit)."""
MAX_SOLVE_SYMBOLS = 2
"""How many symbols the solve-and-substitute fallback tries per equation."""
MAX_OPS = 400
"""Expressions with more operations than this are refused."""

R = TypeVar("R")


class _Timeout(GradingError):
    """Raised by the inner alarm in the worker's main thread."""


def _fix_functions(expr: sympy.Basic, lhs: bool = False) -> sympy.Basic:
    """Undo antlr misreadings: ``\\beta_0 (1+x)`` is a product, while ``n(r,θ)`` names a quantity n.

    A call whose arguments are all bare symbols (or that forms a whole side) becomes the symbol n.
    """
    if lhs and isinstance(expr, AppliedUndef):
        return sympy.Symbol(type(expr).__name__)

    def repl(node: sympy.Basic) -> sympy.Basic:
        name = sympy.Symbol(type(node).__name__)
        if len(node.args) > 1 or all(isinstance(arg, sympy.Symbol) for arg in node.args):
            return name
        return name * node.args[0]

    return expr.replace(lambda node: isinstance(node, AppliedUndef), repl)


def _fix_constants(expr: sympy.Basic) -> sympy.Basic:
    """Symbol pi → π; e^{non-number} → exp (``n e^2`` keeps e as the elementary charge)."""
    out = expr.xreplace({sympy.Symbol("pi"): sympy.pi})
    e = sympy.Symbol("e")
    return out.replace(lambda n: isinstance(n, sympy.Pow) and n.base == e and not n.exp.is_number,
                       lambda n: sympy.exp(n.exp))


def _parse_l2s(text: str) -> sympy.Basic:
    """latex2sympy2_extended (the parser Math-Verify uses), case kept, its own timeouts unused (optional)."""
    try:
        from latex2sympy2_extended.latex2sympy2 import ConversionConfig, latex2sympy
    except ImportError as exc:
        raise ConfigError("IFWORLD_RWS_PARSERS names latex2sympy2_extended, which is not installed: "
                          "pip install latex2sympy2_extended, or leave it out of IFWORLD_RWS_PARSERS") from exc

    config = ConversionConfig(lowercase_symbols=False, interpret_as_mixed_fractions=False,
                              interpret_simple_eq_as_assignment=False, interpret_contains_as_eq=False)
    return latex2sympy(text, normalization_config=None, conversion_config=config)


PARSERS = tuple(p for p in os.environ.get("IFWORLD_RWS_PARSERS", "antlr").split(",")
                if p in ("antlr", "latex2sympy2_extended")) or ("antlr",)
"""Parser order. sympy's antlr grammar (with our repairs) is the only default: on our case tables
latex2sympy2_extended — the parser Math-Verify uses — added no hit as a fallback and scored lower alone
(benchmarks/bench_grader.py). ``IFWORLD_RWS_PARSERS=antlr,latex2sympy2_extended`` (read by the worker at
start) adds it as a fallback when that optional package is installed. Both sides of one comparison always go
through the same parser (symbol naming differs between them)."""


@lru_cache(maxsize=1024)
def parse(text: str, parser: str = "antlr", side: bool = False) -> sympy.Basic:
    """Parse one cleaned LaTeX leaf into a sympy expression (raises on failure or excess size).

    `side` marks a whole side of an equation, where ``n(r)`` names the quantity n.
    """
    if parser == "antlr":
        expr = parse_latex(text, strict=True, backend="antlr")
    else:
        expr = _parse_l2s(text)
    if not isinstance(expr, sympy.Expr):
        raise UnreadableAnswer(f"unsupported result {type(expr).__name__}")
    expr = _fix_constants(_fix_functions(expr, lhs=side))
    if sympy.count_ops(expr) > MAX_OPS:
        raise UnreadableAnswer(f"expression too large (more than {MAX_OPS} operations)")
    return expr


def _points(symbols: list[sympy.Symbol], seed: int = 12345) -> list[dict]:
    """Seeded random positive values for every symbol (physics quantities are mostly positive)."""
    rng = random.Random(seed)
    return [{s: sympy.Float(rng.uniform(0.3, 1.7), 30) for s in symbols} for _ in range(N_POINTS)]


def _value(expr: sympy.Basic, point: dict) -> complex | None:
    """Numeric value of expr at point, None if undefined there."""
    try:
        val = complex(expr.xreplace(point).evalf(25))
    except (TypeError, ValueError, ZeroDivisionError, OverflowError):
        return None
    if val != val or abs(val) == float("inf"):
        return None
    return val


def _close(a: complex, b: complex) -> bool:
    """Equal within REL_EQ relative to the larger magnitude (absolute near zero)."""
    return abs(a - b) <= REL_EQ * max(1.0, abs(a), abs(b))


def _symbols(*exprs: sympy.Basic) -> list[sympy.Symbol]:
    """Sorted free symbols of several expressions."""
    found: set = set()
    for expr in exprs:
        found |= expr.free_symbols
    return sorted(found, key=str)


def same_value(a: sympy.Basic, b: sympy.Basic) -> bool | None:
    """True/False when a == b at random points, None when evaluation is inconclusive."""
    syms = _symbols(a, b)
    agree = valid = 0
    for point in _points(syms):
        va, vb = _value(a, point), _value(b, point)
        if va is None or vb is None:
            continue
        valid += 1
        agree += _close(va, vb)
    if valid < 3:
        return None
    return agree == valid


def constant_ratio(f: sympy.Basic, g: sympy.Basic) -> bool | None:
    """True when f = c·g for a non-zero constant c at random points; None if inconclusive."""
    ratios = []
    for point in _points(_symbols(f, g)):
        vf, vg = _value(f, point), _value(g, point)
        if vf is None or vg is None or abs(vg) < 1e-300:
            continue
        ratios.append(vf / vg)
    if len(ratios) < 3:
        return None
    return abs(ratios[0]) > 1e-12 and all(_close(r, ratios[0]) for r in ratios[1:])


def _solved(eq: sympy.Eq) -> tuple[sympy.Symbol, sympy.Basic] | None:
    """(symbol, value) when the equation is solved for a lone symbol on either side."""
    if isinstance(eq.lhs, sympy.Symbol) and eq.lhs not in eq.rhs.free_symbols:
        return eq.lhs, eq.rhs
    if isinstance(eq.rhs, sympy.Symbol) and eq.rhs not in eq.lhs.free_symbols:
        return eq.rhs, eq.lhs
    return None


def _with_alarm(func: Callable[[], R], seconds: float) -> R:
    """Run func under an inner SIGALRM time box (valid here: the worker's main thread).

    Off the main thread (the worker's warm-up thread) the box is skipped; the parent's kill still holds.
    """
    def handler(signum: int, frame: object) -> None:
        raise _Timeout

    if threading.current_thread() is not threading.main_thread():
        return func()
    if seconds <= 0:
        raise _Timeout
    old = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return func()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _simplify_zero(expr: sympy.Basic, budget: float = SIMPLIFY_BUDGET_S) -> bool | None:
    """Exact test: expr is identically 0 (cheap rewrites first, simplify last, all time-boxed).

    True when proven zero, False when simplify ends with something non-zero, None when out of time.
    """
    if expr == 0:
        return True

    def work() -> bool:
        for step in (sympy.expand, sympy.cancel, sympy.together):
            if step(expr) == 0:
                return True
        return sympy.simplify(expr) == 0

    try:
        return bool(_with_alarm(work, min(SIMPLIFY_BUDGET_S, budget)))
    except _Timeout:
        return None
    except Exception:  # noqa: BLE001 - sympy raises a zoo of errors on odd input
        return None


def implies(src: tuple[sympy.Expr, sympy.Expr], other: sympy.Expr, budget: float) -> sympy.Symbol | None:
    """A symbol s such that every solution of ``src`` for s makes ``other`` exactly zero (src ⇒ other).

    Tries a side that is a lone symbol first, then ``solve`` (time-boxed) for up to MAX_SOLVE_SYMBOLS of
    src's symbols shared with `other`. *Every* solution must zero `other`: ``x^2 = 4`` does not imply
    ``x = 2``, so a squared form is not taken for the solved one.
    """
    lhs, rhs = src
    for lone, value in ((lhs, rhs), (rhs, lhs)):
        if isinstance(lone, sympy.Symbol) and lone not in value.free_symbols:
            return lone if _simplify_zero(other.xreplace({lone: value}), budget) else None
    shared = sorted((lhs.free_symbols | rhs.free_symbols) & other.free_symbols, key=str)
    preferred = [sym for sym in shared if sym in lhs.free_symbols] + [sym for sym in shared
                                                                     if sym not in lhs.free_symbols]
    for sym in preferred[:MAX_SOLVE_SYMBOLS]:
        try:
            solutions = list(_with_alarm(partial(sympy.solve, lhs - rhs, sym), min(SIMPLIFY_BUDGET_S, budget)))
        except _Timeout:
            continue
        except Exception:  # noqa: BLE001, S112 - solve raises NotImplementedError and friends
            continue
        if 0 < len(solutions) <= 4 and all(_simplify_zero(other.xreplace({sym: sol}), budget) for sol in solutions):
            return sym
    return None
