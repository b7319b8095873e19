"""Symbolic comparison, run only inside the sandbox worker (imports sympy; may be slow or hang).

Parse with sympy's LaTeX parser (antlr backend, strict), repair the parser's physics misreadings, then
decide equivalence: equations are equivalent when lhs−rhs of one is a non-zero constant multiple of the
other's or when substituting one's solved-for symbol zeroes the other; expressions when their difference
vanishes. Equivalence is decided by evaluating at seeded random points (fast, cannot hang on huge
exponents), with ``simplify`` only as a time-boxed fallback when evaluation is inconclusive.
"""

from __future__ import annotations

import random
import signal
from collections.abc import Callable
from functools import lru_cache

import sympy
from sympy.core.function import AppliedUndef
from sympy.parsing.latex import parse_latex

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


class _Timeout(Exception):
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


@lru_cache(maxsize=512)
def parse(text: str) -> sympy.Basic:
    """Parse cleaned LaTeX into a sympy expression or Eq (raises on failure or excess size)."""
    expr = parse_latex(text, strict=True, backend="antlr")
    if isinstance(expr, sympy.Eq):
        lhs = _fix_functions(expr.lhs, lhs=True)
        rhs = _fix_functions(expr.rhs, lhs=True)
        expr = sympy.Eq(_fix_constants(lhs), _fix_constants(rhs), evaluate=False)
    elif isinstance(expr, sympy.Expr):
        expr = _fix_constants(_fix_functions(expr))
    else:
        raise ValueError(f"unsupported relation {type(expr).__name__}")
    if sympy.count_ops(expr) > MAX_OPS:
        raise ValueError("expression too large")
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


def _with_alarm(func: Callable[[], object], seconds: float) -> object:
    """Run func under an inner SIGALRM time box (valid here: the worker's main thread)."""
    def handler(signum: int, frame: object) -> None:
        raise _Timeout

    old = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return func()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _simplify_zero(expr: sympy.Basic) -> bool | None:
    """simplify(expr) == 0 within SIMPLIFY_BUDGET_S; None when it runs out of time."""
    try:
        return bool(_with_alarm(lambda: sympy.simplify(expr) == 0, SIMPLIFY_BUDGET_S))
    except _Timeout:
        return None


def _solve_and_substitute(src: sympy.Eq, other: sympy.Basic) -> sympy.Symbol | None:
    """Solve src for one of its lhs symbols (time-boxed) and test whether that zeroes `other`."""
    candidates = [sym for sym in sorted(src.lhs.free_symbols, key=str) if sym in other.free_symbols]
    for sym in candidates[:MAX_SOLVE_SYMBOLS]:
        try:
            solutions = _with_alarm(lambda s=sym: sympy.solve(src.lhs - src.rhs, s), SIMPLIFY_BUDGET_S)
        except _Timeout:
            continue
        except Exception:  # noqa: BLE001 - solve raises NotImplementedError and friends
            continue
        for sol in list(solutions)[:4]:
            if same_value(other.xreplace({sym: sol}), sympy.Integer(0)):
                return sym
    return None


def _equations(p: sympy.Eq, g: sympy.Eq) -> tuple[bool | None, str]:
    """Equation vs equation: scaled forms, then solved-for substitution either way."""
    fp, fg = p.lhs - p.rhs, g.lhs - g.rhs
    scaled = constant_ratio(fp, fg)
    if scaled:
        return True, "equivalent equations (lhs−rhs differ by a constant factor)"
    for solved, other in ((_solved(g), fp), (_solved(p), fg)):
        if solved is not None:
            sym, val = solved
            zero = same_value(other.xreplace({sym: val}), sympy.Integer(0))
            if zero:
                return True, f"equivalent after solving for {sym}"
    for src, other in ((g, fp), (p, fg)):
        sym = _solve_and_substitute(src, other)
        if sym is not None:
            return True, f"equivalent after solving for {sym}"
    if scaled is None:
        return None, "inconclusive: could not evaluate the equations"
    return False, "equations not equivalent"


def _expressions(p: sympy.Basic, g: sympy.Basic) -> tuple[bool | None, str]:
    """Expression vs expression: numeric evaluation, simplify as fallback."""
    same = same_value(p, g)
    if same is not None:
        verdict = "equivalent (agree" if same else "not equivalent (differ"
        return same, f"{verdict} at random points)"
    zero = _simplify_zero(p - g)
    if zero is None:
        return None, "inconclusive: evaluation failed and simplify ran out of time"
    return zero, "simplified difference is 0" if zero else "simplified difference is not 0"


WARM_UP = (
    r"v_A = \frac{B}{\sqrt{\mu_0 n m_p}}", r"\tan\psi = \frac{\Omega r}{V}", r"r = L R_E \cos^2\lambda",
    r"x^{2} + 3 \cdot (y - z)^{1/6}", r"\sin^2\alpha_{lc} = \frac{B_{eq}}{B_m}",
)
"""Typical shapes parsed once at start-up so antlr's prediction caches are warm for real requests."""


def warm_up() -> None:
    """Exercise the parser and comparison on typical shapes (slow first parses happen here)."""
    for text in WARM_UP:
        compare(text, text)


def compare(pred_text: str, gold_text: str) -> dict:
    """Compare cleaned LaTeX strings; returns a JSON-able reply for the parent process."""
    try:
        gold = parse(gold_text)
    except Exception as exc:  # noqa: BLE001 - any parser failure means the gold is unscored
        return {"verdict": "not_sure", "reason": f"unscored gold: {type(exc).__name__}",
                "annotations": ["unscored gold"], "pred_norm": pred_text, "gt_norm": gold_text}
    try:
        pred = parse(pred_text)
    except Exception as exc:  # noqa: BLE001
        return {"verdict": "not_sure", "reason": f"parse failure: {type(exc).__name__}",
                "annotations": ["parse failure"], "pred_norm": pred_text, "gt_norm": str(gold)}
    if pred == gold:
        same, reason = True, "identical after parsing"
    elif isinstance(gold, sympy.Eq) and isinstance(pred, sympy.Eq):
        same, reason = _equations(pred, gold)
    elif isinstance(gold, sympy.Eq):
        same, reason = _expressions(pred, gold.rhs)
        reason = f"compared with the gold's right-hand side: {reason}"
    elif isinstance(pred, sympy.Eq):
        same, reason = _expressions(pred.rhs, gold)
        reason = f"compared the answer's right-hand side: {reason}"
    else:
        same, reason = _expressions(pred, gold)
    verdict = {True: "correct", False: "incorrect", None: "not_sure"}[same]
    notes = [] if same is not None else ["parse failure"]
    return {"verdict": verdict, "reason": reason, "annotations": notes, "pred_norm": str(pred),
            "gt_norm": str(gold)}
