"""What Math-Verify does not decide the way physicists write answers — on its parsed sympy values.

Runs in the grading worker. Two jobs:

* **veto** a Math-Verify "equivalent" that would be a false "correct" here: a chained equality with a false
  numeric link (``x = 5+5+1 = 12``), a bare expression for a gold equation whose left side is not a name
  (``\\frac{\\Omega r}{V}`` for ``\\tan\\psi = \\frac{\\Omega r}{V}``, ``0`` for ``\\nabla\\cdot\\mathbf B = 0``),
  a one-element set where a value is asked, an undefined value (``1/0``);
* **accept** what it misses, with proofs only: equations rearranged or scaled by a constant, a solved-for form
  (``\\psi = \\arctan(\\Omega r/V)``), squared forms and roots of quotients when every symbol is a positive
  quantity (x, y and z keep their sign: they are coordinates or unknowns), inequalities scaled by a positive
  constant, a quantity named by a function call (``n(r)`` is n). Agreement found only by evaluating at random
  points is ``not_sure`` (the LLM verifier's case), never "correct".
"""

from __future__ import annotations

import random
import re
import signal
import threading
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import sympy
from sympy.core.function import AppliedUndef
from sympy.core.relational import Relational

from ifworld.errors import GradingError

Outcome = tuple[bool | None, str]

N_POINTS = 6
"""Random evaluation points per comparison."""
REL_EQ = 1e-8
"""Relative tolerance for two evaluations to count as equal."""
STEP_BUDGET_S = 1.0
"""Inner time box for one simplify/solve (the parent's kill is the hard limit)."""
MAX_SOLVE_SYMBOLS = 2
_NAME = re.compile(r"\s*(?:\\[a-zA-Z]+|[a-zA-Z])(?:_\{[^{}]*\}|_\\?[a-zA-Z0-9]+)?(?:\^\{?(?:\\prime|'|\*)\}?)?\s*")
_CALL_NAME = re.compile(r"%s\((?:%s,)*%s\)\s*" % (_NAME.pattern, _NAME.pattern, _NAME.pattern))
_TUPLE_NAME = re.compile(r"\s*\(\s*(?:%s,)+%s\)\s*" % (_NAME.pattern, _NAME.pattern))


def scalar(value: Any) -> bool:
    """A scalar sympy expression (not a matrix, set or relation)."""
    return isinstance(value, sympy.Expr) and not isinstance(value, (sympy.MatrixBase, sympy.MatrixExpr))


class _Timeout(GradingError):
    """Raised by the inner alarm in the worker's main thread."""


def _boxed(func: Callable[[], object], seconds: float) -> Any:
    """Run func under an inner SIGALRM box (the worker's main thread only; elsewhere the parent's kill holds)."""
    def handler(signum: int, frame: Any) -> None:
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


class Ctx:
    """The item deadline and whether symbols are taken as positive quantities (the second pass)."""

    def __init__(self, deadline: float, positive: bool = False, signed: frozenset[str] = frozenset()) -> None:
        self.deadline = deadline
        self.positive = positive
        self.signed = signed
        """Symbol names that keep their sign in the positive pass (placeholders of x_0, y_1 …)."""

    def budget(self) -> float:
        """Each exact step gets the same box, so a verdict does not depend on how long earlier steps took."""
        return STEP_BUDGET_S


def is_name(lhs_latex: str) -> bool:
    """True when an equation's left side only names what it defines (``v_A``, ``n(r)``, ``(p,q,r)``, ``AB``, and
    the length or magnitude of one: ``|AB|``, ``\\overline{AB}``, ``|\\mathbf{B}|``)."""
    s = lhs_latex.strip()
    inner = re.fullmatch(r"(?:\\lvert|\\vert|\|)(.+?)(?:\\rvert|\\vert|\|)|\\overline\s*\{([A-Z]{2,3})\}", s)
    if inner is not None:
        return is_name(inner[1] or inner[2])
    return bool(_NAME.fullmatch(s) or _CALL_NAME.fullmatch(s) or _TUPLE_NAME.fullmatch(s)
                or re.fullmatch(r"[A-Z]{2,3}", s))


def calls(value: Any) -> dict[str, set[tuple]]:
    """The applied undefined functions of a value: name → the argument tuples it is applied to."""
    found: dict[str, set[tuple]] = {}
    if isinstance(value, sympy.Basic):
        for node in value.atoms(AppliedUndef):
            found.setdefault(type(node).__name__, set()).add(node.args)
    return found


def distinct_calls(pred: Any, gold: Any) -> frozenset[str]:
    """Functions the two sides apply to different arguments (``g(t)`` and ``g(s)``): those calls are different
    quantities, never one name."""
    ours, theirs = calls(pred), calls(gold)
    return frozenset(name for name in ours.keys() & theirs.keys() if ours[name] != theirs[name])


def tidy(value: Any, distinct: frozenset[str] = frozenset()) -> Any:
    """Function calls of bare symbols name quantities (``n(r)`` → n), except those in `distinct` (each call its
    own symbol, ``g(t)`` ≠ ``g(s)``); ``e`` stays Euler's number."""
    if not isinstance(value, sympy.Basic):
        return value

    def repl(node: sympy.Basic) -> sympy.Basic:
        if type(node).__name__ in distinct:
            return sympy.Symbol(f"{type(node).__name__}({', '.join(map(str, node.args))})", real=True)
        name = sympy.Symbol(type(node).__name__, real=True)
        if all(isinstance(arg, sympy.Symbol) for arg in node.args) or len(node.args) > 1:
            return name
        return name * node.args[0]

    return value.replace(lambda node: isinstance(node, AppliedUndef), repl)


def links(value: Any) -> list:
    """The relations of a chain (``And`` of equalities in written order) or [value]."""
    if isinstance(value, sympy.And):
        return list(value._unsorted_args)  # noqa: SLF001 - the written order
    return [value]


def bad_link(value: Any) -> sympy.Eq | None:
    """The first link without symbols that is false (``5+5+1 = 12``), or None."""
    for link in links(value):
        if (isinstance(link, sympy.Eq) and all(scalar(side) for side in link.args)
                and not (link.lhs - link.rhs).free_symbols):
            if zero(link.lhs - link.rhs, Ctx(time.monotonic() + STEP_BUDGET_S)) is False:
                return link
    return None


def false_link(value: Any) -> str:
    """Describe a link without symbols that is false (``5+5+1 = 12``), or ""."""
    link = bad_link(value)
    return f"the link {link.lhs} = {link.rhs} is false" if link is not None else ""


def undefined(value: Any) -> bool:
    """True when the value contains a division by zero or an indeterminate form."""
    return isinstance(value, sympy.Basic) and value.has(sympy.zoo, sympy.nan)


def trivial_derivative(value: Any) -> bool:
    """A derivative of a plain symbol by another variable (sympy makes it 0: ``\\frac{d B}{d t}``)."""
    if not isinstance(value, sympy.Basic):
        return False
    return any(not (node.expr.free_symbols & set(node.variables)) for node in value.atoms(sympy.Derivative))


def vector_product(value: Any, vectors: frozenset[str]) -> bool:
    """A product of two vector placeholders (``\\mathbf v\\mathbf B``): its order is lost, never compare it."""
    if not vectors or not isinstance(value, sympy.Basic):
        return False
    for node in sympy.preorder_traversal(value):
        if isinstance(node, sympy.Mul):
            if sum(1 for factor in node.args for s in factor.free_symbols if s.name in vectors) >= 2:
                return True
    return False


def zero(expr: sympy.Expr, ctx: Ctx) -> bool | None:
    """Exact test that expr is 0: True proven, False when it simplifies to something non-zero, None unknown."""
    if expr == 0:
        return True

    def work() -> bool:
        for step in (sympy.expand, sympy.cancel, sympy.together):
            if step(expr) == 0:
                return True
        return sympy.simplify(expr) == 0

    try:
        return bool(_boxed(work, ctx.budget()))
    except Exception:  # noqa: BLE001 - _Timeout and sympy's zoo of errors alike
        return None


def _points(symbols: list, seed: int = 12345) -> list[dict]:
    rng = random.Random(seed)
    return [{s: sympy.Float(rng.uniform(0.3, 1.7), 30) for s in symbols} for _ in range(N_POINTS)]


def _value(expr: sympy.Expr, point: dict) -> complex | None:
    try:
        val = complex(expr.xreplace(point).evalf(25))
    except (TypeError, ValueError, ZeroDivisionError, OverflowError, AttributeError):
        return None
    return None if val != val or abs(val) == float("inf") else val


def _close(a: complex, b: complex) -> bool:
    return abs(a - b) <= REL_EQ * max(1.0, abs(a), abs(b))


def _symbols(*exprs: sympy.Expr) -> list:
    found: set = set()
    for expr in exprs:
        found |= expr.free_symbols
    return sorted(found, key=str)


def same_value(a: sympy.Expr, b: sympy.Expr) -> bool | None:
    """True/False when a == b at random points, None when evaluation is inconclusive."""
    agree = valid = 0
    for point in _points(_symbols(a, b)):
        va, vb = _value(a, point), _value(b, point)
        if va is None or vb is None:
            continue
        valid += 1
        agree += _close(va, vb)
    return None if valid < 3 else agree == valid


def constant_ratio(f: sympy.Expr, g: sympy.Expr) -> bool | None:
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


def juxtaposed(value: Any) -> bool:
    """A lone symbol or a product of symbols only (``ab``): Math-Verify may compare it as a name."""
    return isinstance(value, sympy.Symbol) or (isinstance(value, sympy.Mul)
                                               and all(isinstance(a, sympy.Symbol) for a in value.args))


def clearly_different(pred: Any, gold: Any) -> bool:
    """True when evaluation at random points already shows two answers differ (so no slow proof is tried).

    Only where that is sound: two expressions, or two definitions of the same lone symbol, without decimal
    literals (which Math-Verify compares rounded) and not a bare run of letters (``\\text{ab}`` vs ``ab``,
    which Math-Verify compares as names).
    """
    def plain(value: Any) -> bool:
        return scalar(value) and not value.has(sympy.Float)

    if isinstance(pred, sympy.Eq) and isinstance(gold, sympy.Eq):
        if not (isinstance(gold.lhs, sympy.Symbol) and pred.lhs == gold.lhs
                and gold.lhs not in gold.rhs.free_symbols | pred.rhs.free_symbols):
            return False
        pred, gold = pred.rhs, gold.rhs
    if not (plain(pred) and plain(gold)) or juxtaposed(pred) or juxtaposed(gold):
        return False
    return same_value(pred, gold) is False


def _positive(expr: sympy.Expr, signed: frozenset[str] = frozenset()) -> sympy.Expr:
    return expr.xreplace({s: sympy.Symbol(s.name, positive=True) for s in expr.free_symbols
                          if isinstance(s, sympy.Symbol) and not re.fullmatch(r"[xyz](_.*)?", s.name)
                          and s.name not in signed})


def leaf(p: sympy.Expr, g: sympy.Expr, ctx: Ctx) -> Outcome:
    """Expression vs expression: proven equal, different at random points, or not_sure."""
    if ctx.positive:
        if p.has(sympy.Abs, sympy.sign):
            return None, "an absolute value or sign: no positive-quantity pass"
        p, g = _positive(p, ctx.signed), _positive(g, ctx.signed)
    if p == g or zero(p - g, ctx):
        return True, "difference simplifies exactly to 0" + (" (positive quantities)" if ctx.positive else "")
    same = same_value(p, g)
    if same is False:
        return False, "not equivalent (differ at random points)"
    if same:
        return None, "agree at random points but not proven equal (structurally different)"
    return None, "inconclusive: could not evaluate or simplify"


def _implies(src: sympy.Eq, other: sympy.Expr, ctx: Ctx) -> sympy.Symbol | None:
    """A symbol s such that every solution of ``src`` for s makes ``other`` exactly zero (src ⇒ other)."""
    lhs, rhs = src.lhs, src.rhs
    for lone, value in ((lhs, rhs), (rhs, lhs)):
        if isinstance(lone, sympy.Symbol) and lone not in value.free_symbols:
            return lone if zero(other.xreplace({lone: value}), ctx) else None
    shared = sorted((lhs.free_symbols | rhs.free_symbols) & other.free_symbols, key=str)
    preferred = [s for s in shared if s in lhs.free_symbols] + [s for s in shared if s not in lhs.free_symbols]
    for sym in preferred[:MAX_SOLVE_SYMBOLS]:
        try:
            solutions: list = _boxed(partial(sympy.solve, lhs - rhs, sym), ctx.budget())
        except Exception:  # noqa: BLE001, S112 - solve raises NotImplementedError and friends
            continue
        if 0 < len(solutions) <= 4 and all(zero(other.xreplace({sym: sol}), ctx) for sol in solutions):
            return sym
    return None


def equation(p: sympy.Eq, g: sympy.Eq, ctx: Ctx) -> Outcome:
    """Equation vs equation, proven both ways; one-way implication or sampling-only agreement is not_sure."""
    if ctx.positive:
        p, g = _positive(p, ctx.signed), _positive(g, ctx.signed)
    fp, fg = p.lhs - p.rhs, g.lhs - g.rhs
    if zero(fp - fg, ctx) or zero(fp + fg, ctx):
        return True, "equivalent equations (rearranged)"
    if fg != 0:
        try:
            ratio = sympy.cancel(sympy.together(fp / fg))
        except Exception:  # noqa: BLE001
            ratio = None
        if ratio is not None and not ratio.free_symbols and ratio.is_finite and ratio != 0:
            return True, f"equivalent equations (scaled by {ratio})"
    forward = _implies(g, fp, ctx) if isinstance(g, sympy.Eq) else None
    backward = _implies(p, fg, ctx) if isinstance(p, sympy.Eq) else None
    if forward is not None and backward is not None:
        return True, f"equivalent after solving for {backward}" + (" (positive quantities)" if ctx.positive else "")
    if forward is not None and zero(fp, ctx):
        return False, "the answer is an identity (true for any values), not the gold relation"
    if forward is not None:
        return None, f"the answer follows from the gold (solving for {forward}) but admits other solutions"
    if backward is not None:
        return None, f"the gold follows from the answer (solving for {backward}) but not the reverse"
    scaled = constant_ratio(fp, fg)
    if scaled:
        return None, "equations agree at random points but are not proven equivalent"
    if scaled is None:
        return None, "inconclusive: could not evaluate the equations"
    return False, "equations not equivalent"


def relation(p: Relational, g: Relational) -> Outcome:
    """One inequality against another: same direction and strictness, sides up to a positive factor."""
    def normal(rel: Relational) -> tuple[sympy.Expr, str]:
        if rel.rel_op in (">", ">="):
            return rel.rhs - rel.lhs, {">": "<", ">=": "<="}[rel.rel_op]
        return rel.lhs - rel.rhs, rel.rel_op

    (fp, op_p), (fg, op_g) = normal(p), normal(g)
    if op_p != op_g:
        return False, f"relation {op_p} where the gold has {op_g}"
    ratio = sympy.cancel(sympy.together(fp / fg)) if fg != 0 else None
    if ratio is not None and not ratio.free_symbols and ratio.is_positive:
        return True, "equivalent relations (scaled by a positive constant)"
    return False, "the relations differ"


def _kind(value: Any) -> str:
    if any(isinstance(link, Relational) and not all(scalar(side) for side in link.args)
           for link in links(value)):
        return "other"
    if isinstance(value, sympy.Eq) or (isinstance(value, sympy.And) and all(isinstance(a, sympy.Eq) for a in
                                                                           value.args)):
        return "eq"
    if isinstance(value, Relational):
        return "rel"
    if scalar(value):
        return "expr"
    return "other"


def _ends(value: Any) -> sympy.Eq:
    """First left side = last right side of a chain."""
    chain = links(value)
    return sympy.Eq(chain[0].lhs, chain[-1].rhs, evaluate=False)


def _compare(pred: Any, gold: Any, ctx: Ctx) -> Outcome:
    kinds = (_kind(pred), _kind(gold))
    if rounded_match(pred, gold):
        return True, f"equal once the gold is rounded as the answer's decimals (≥ {MIN_ROUNDED_DIGITS} digits)"
    if kinds == ("expr", "expr"):
        return leaf(pred, gold, ctx)
    if kinds == ("eq", "eq"):
        chain = links(pred)
        g = _ends(gold)
        outcomes = [equation(sympy.Eq(chain[0].lhs, link.rhs, evaluate=False), g, ctx) for link in reversed(chain)]
        hit = next((o for o in outcomes if o[0]), None)
        if hit:
            return hit
        return next((o for o in outcomes if o[0] is None), outcomes[0])
    if kinds == ("eq", "expr"):
        first, last = links(pred)[0].lhs, links(pred)[-1].rhs
        if isinstance(first, sympy.Symbol) and first not in last.free_symbols:
            return leaf(last, gold, ctx)
        return False, "the answer is an equation where the gold is an expression"
    if kinds == ("rel", "rel"):
        return relation(pred, gold)
    return None, "no further rule for this kind of answer"


MIN_ROUNDED_DIGITS = 4
"""A decimal literal counts as the exact gold rounded when it has at least this many significant digits."""


def _rounded(p: Any, g: Any) -> bool:
    if isinstance(p, sympy.Float) and scalar(g) and g.is_number and not g.has(sympy.Float):
        mantissa = str(p).rstrip("0").lstrip("-")
        decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
        exact = (g * 10**decimals).is_integer
        if len(mantissa.replace(".", "").lstrip("0")) < MIN_ROUNDED_DIGITS and not exact:
            return False
        try:
            return abs(sympy.N(g, 30) - sympy.Float(p, 30)) <= sympy.Rational(1, 2) * sympy.Rational(10) ** -decimals
        except (TypeError, ValueError):
            return False
    return scalar(p) and p.is_number and p == g


def rounded_match(pred: Any, gold: Any) -> bool:
    """Numbers, intervals and tuples equal once the gold is rounded like the answer's decimal literals
    (``(0.6, 2.6667]`` for ``(\\frac{3}{5}, \\frac{8}{3}]``)."""
    if isinstance(pred, sympy.Interval) and isinstance(gold, sympy.Interval):
        return (pred.left_open, pred.right_open) == (gold.left_open, gold.right_open) and \
            _rounded(pred.start, gold.start) and _rounded(pred.end, gold.end)
    if isinstance(pred, sympy.Tuple) and isinstance(gold, sympy.Tuple) and len(pred) == len(gold):
        return all(_rounded(p, g) for p, g in zip(pred, gold, strict=True))
    return _rounded(pred, gold)


def accept(pred: Any, gold: Any, deadline: float, signed: frozenset[str] = frozenset()) -> Outcome:
    """Our own equivalence after Math-Verify said no: exact first, then with positive quantities (except x, y,
    z and the names in `signed`)."""
    distinct = distinct_calls(pred, gold)
    pred, gold = tidy(pred, distinct), tidy(gold, distinct)
    same, why = _compare(pred, gold, Ctx(deadline))
    if same is None and not (isinstance(pred, sympy.Basic) and pred.has(sympy.Abs, sympy.sign)):
        try:
            again, reason = _compare(pred, gold, Ctx(deadline, positive=True, signed=signed))
        except Exception:  # noqa: BLE001 - the positive pass is a bonus, never a failure
            again, reason = None, ""
        if again:
            return True, reason if "positive" in reason else f"{reason} (positive quantities)"
    return same, why
