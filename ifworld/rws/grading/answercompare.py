"""Compare two decided answers (:mod:`ifworld.rws.grading.kinds`) — runs inside the grading worker (imports sympy).

Rules, chosen so that a wrong answer is never "correct":

* leaves (expressions): identical after parsing, or their difference is *proven* zero by exact rewriting
  (expand / cancel / together / simplify, time-boxed) → correct; evaluation at random points that differs
  → incorrect; evaluation that agrees without an exact proof → not_sure (a structurally different answer
  that only sampling likes is for the verifier to judge);
* equations compare as equations: both sides, up to rearrangement and a non-zero constant factor, or after
  solving one for its lone symbol — never an equation against one of its sides (a bare expression for a
  gold equation is incorrect, or not_sure when it is exactly the gold's defined right-hand side);
* a chained equality ``x = 5+5+1 = 11`` is correct when one of its first-to-k links matches the gold and
  every link without free symbols is true;
* relations keep their direction and strictness; sets and several answers match element by element in any
  order; tuples in order with the same brackets; intervals by endpoints and closedness; matrices by shape
  and element.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

import sympy

from ifworld.errors import GradingError
from ifworld.rws.grading.kinds import Answer
from ifworld.rws.grading.symcompare import PARSERS, _simplify_zero, constant_ratio, implies, parse, same_value

Outcome = tuple[bool | None, str]


class ParseFail(GradingError):
    """A leaf that does not parse; `side` is "pred" or "gold"."""

    def __init__(self, side: str, message: str) -> None:
        super().__init__(message)
        self.side = side


@dataclass
class Ctx:
    """Parser in use, the item deadline and the placeholder symbols that stand for vectors."""

    parser: str
    deadline: float
    vectors: frozenset
    positive: bool = False
    """Second pass: every symbol is a positive quantity (how physics answers are written)."""

    def budget(self) -> float:
        return self.deadline - time.monotonic()


class NotForPositive(GradingError):
    """The positive-quantity pass does not apply (an absolute value, a sign or a vector is involved)."""


def _positive(expr: sympy.Expr, ctx: Ctx) -> sympy.Expr:
    if expr.has(sympy.Abs, sympy.sign) or any(s.name in ctx.vectors for s in expr.free_symbols):
        raise NotForPositive
    # x, y, z (and x_0 …) are coordinates or unknowns that may be negative: they keep no assumption
    return expr.xreplace({s: sympy.Symbol(s.name, positive=True) for s in expr.free_symbols
                          if isinstance(s, sympy.Symbol) and not re.fullmatch(r"[xyz](_.*)?", s.name)})


def _p(text: str, side: str, ctx: Ctx, whole_side: bool = False) -> sympy.Expr:
    try:
        expr = parse(text, ctx.parser, whole_side)
        return _positive(expr, ctx) if ctx.positive else expr
    except NotForPositive:
        raise
    except RecursionError as exc:
        raise ParseFail(side, "expression nested too deeply (recursion limit)") from exc
    except Exception as exc:  # noqa: BLE001 - any parser failure
        raise ParseFail(side, f"{type(exc).__name__}: {str(exc)[:120]}".rstrip(": ")) from exc


def _vector_product(expr: sympy.Expr, vectors: frozenset) -> bool:
    """True when a product multiplies two vector placeholders (order unknown: never compare it)."""
    for node in sympy.preorder_traversal(expr):
        if isinstance(node, sympy.Mul):
            count = sum(1 for f in node.args for s in f.free_symbols if s.name in vectors)
            if count >= 2:
                return True
    return False


DECIMAL_REL = 1e-6
"""Two constants one of which is a decimal literal (``1.41421356`` for ``\\sqrt{2}``) agree within this."""


def _decimal(p: sympy.Expr, g: sympy.Expr) -> Outcome:
    """Constants with a decimal literal: compare values, since the literal is itself rounded."""
    try:
        vp, vg = complex(sympy.N(p, 30)), complex(sympy.N(g, 30))
    except (TypeError, ValueError, OverflowError):
        return None, "could not evaluate the constants"
    if abs(vp - vg) <= DECIMAL_REL * max(abs(vp), abs(vg), 1e-300):
        return True, f"equal within {DECIMAL_REL:g} (a decimal literal)"
    return False, "different values"


def leaf(p: sympy.Expr, g: sympy.Expr, ctx: Ctx) -> Outcome:
    """Expression vs expression (see module docstring)."""
    if ctx.vectors and (_vector_product(p, ctx.vectors) or _vector_product(g, ctx.vectors)):
        return None, "a product of two vectors without an explicit cross or dot product"
    if p == g:
        return True, "identical after parsing"
    if not (p.free_symbols or g.free_symbols) and (p.has(sympy.Float) or g.has(sympy.Float)):
        return _decimal(p, g)
    zero = _simplify_zero(p - g, ctx.budget()) if ctx.budget() > 0.05 else None
    if zero:
        return True, "difference simplifies exactly to 0"
    if zero is False and not (p.free_symbols or g.free_symbols):
        return False, "different values"
    same = same_value(p, g)
    if same is False:
        return False, "not equivalent (differ at random points)"
    if same:
        return None, "agree at random points but not proven equal (structurally different)"
    return None, "inconclusive: could not evaluate or simplify"


def _leaf_text(p_text: str, g_text: str, ctx: Ctx) -> Outcome:
    """Parse (gold first, so an unparsable gold is reported as such) and compare two leaves."""
    g = _p(g_text, "gold", ctx)
    return leaf(_p(p_text, "pred", ctx), g, ctx)


def _lone(expr: sympy.Expr, other: sympy.Expr) -> bool:
    return isinstance(expr, sympy.Symbol) and expr not in other.free_symbols


def _solved(lhs: sympy.Expr, rhs: sympy.Expr) -> tuple[sympy.Symbol, sympy.Expr] | None:
    if _lone(lhs, rhs):
        return lhs, rhs
    if _lone(rhs, lhs):
        return rhs, lhs
    return None


def equation(p: tuple[sympy.Expr, sympy.Expr], g: tuple[sympy.Expr, sympy.Expr], ctx: Ctx) -> Outcome:
    """Equation vs equation, proven both ways; one-way implication or sampling-only agreement is not_sure."""
    fp, fg = p[0] - p[1], g[0] - g[1]
    if ctx.vectors and (_vector_product(fp, ctx.vectors) or _vector_product(fg, ctx.vectors)):
        return None, "a product of two vectors without an explicit cross or dot product"
    if fp == fg or fp == -fg or _simplify_zero(fp - fg, ctx.budget()) or _simplify_zero(fp + fg, ctx.budget()):
        return True, "equivalent equations (same sides, possibly swapped)"
    if fg != 0:
        try:
            ratio = sympy.cancel(sympy.together(fp / fg))
        except Exception:  # noqa: BLE001
            ratio = None
        if ratio is not None and not ratio.free_symbols and ratio.is_finite and ratio != 0:
            return True, f"equivalent equations (scaled by {ratio})"
    forward = implies(g, fp, ctx.budget()) if ctx.budget() > 0.05 else None
    backward = implies(p, fg, ctx.budget()) if ctx.budget() > 0.05 else None
    if forward is not None and backward is not None:
        return True, f"equivalent after solving for {backward}"
    if forward is not None and _simplify_zero(fp, ctx.budget()):  # only an identity can pass forward alone
        return False, "the answer is an identity (true for any values), not the gold relation"
    if forward is not None:
        return None, (f"the answer follows from the gold (solving for {forward}) but admits other solutions "
                      "(e.g. a squared form)")
    if backward is not None:
        return None, f"the gold follows from the answer (solving for {backward}) but not the reverse"
    scaled = constant_ratio(fp, fg)
    numeric_sub = any(solved is not None and same_value(other.xreplace({solved[0]: solved[1]}), sympy.Integer(0))
                      for solved, other in ((_solved(*g), fp), (_solved(*p), fg)))
    if scaled or numeric_sub:
        return None, "equations agree at random points but are not proven equivalent"
    if scaled is None:
        return None, "inconclusive: could not evaluate the equations"
    return False, "equations not equivalent"


def _sides(answer: Answer, side: str, ctx: Ctx) -> list[sympy.Expr]:
    return [_p(part, side, ctx, whole_side=True) for part in answer.parts]


def _chain_links_true(parts: list[sympy.Expr], ctx: Ctx) -> tuple[bool, str]:
    for a, b in zip(parts, parts[1:], strict=False):
        if not (a - b).free_symbols and _simplify_zero(a - b, ctx.budget()) is False:
            return False, f"the link {a} = {b} is false"
    return True, ""


def _eq_vs(pred: Answer, gold: Answer, ctx: Ctx) -> Outcome:
    """Every combination of equations and expressions."""
    if gold.kind == "eq" and pred.kind == "eq":
        gs = _sides(gold, "gold", ctx)
        ps = _sides(pred, "pred", ctx)
        ok, why = _chain_links_true(ps, ctx)
        if not ok:
            return False, why
        g_eq = (gs[0], gs[-1])
        outcomes = [equation((ps[0], ps[k]), g_eq, ctx) for k in range(len(ps) - 1, 0, -1)]
        if any(o[0] for o in outcomes):
            reason = next(o[1] for o in outcomes if o[0])
            return True, reason if len(ps) == 2 else f"chained equality: {reason}"
        unsure = [o for o in outcomes if o[0] is None]
        return (None, unsure[0][1]) if unsure else outcomes[0]
    if gold.kind == "eq":
        gs = _sides(gold, "gold", ctx)
        p = _p(pred.parts[0], "pred", ctx)
        if len(gs) == 2 and _lone(gs[0], gs[1]) and not gs[0].name.startswith("Upsilon"):
            same, why = leaf(p, gs[1], ctx)
            if same:
                return None, "the answer is only the right-hand side of the gold equation"
            return (False, "the answer is an expression, the gold an equation") if same is False else (None, why)
        return False, "the answer is an expression where the gold is an equation"
    # pred equation, gold expression: the answer names a quantity (``v_A = …``) — compare its value
    g = _p(gold.parts[0], "gold", ctx)
    ps = _sides(pred, "pred", ctx)
    ok, why = _chain_links_true(ps, ctx)
    if not ok:
        return False, why
    if not _lone(ps[0], ps[-1]):
        return False, "the answer is an equation where the gold is an expression"
    return leaf(ps[-1], g, ctx)


_FLIP = {">": "<", ">=": "<=", "<": "<", "<=": "<=", "!=": "!="}


def _normal_rel(lhs: sympy.Expr, op: str, rhs: sympy.Expr) -> tuple[sympy.Expr, str]:
    """``a > b`` → (b − a, "<"): every relation as ``f op 0`` with op in <, <=, !=."""
    if op in (">", ">="):
        return rhs - lhs, _FLIP[op]
    return lhs - rhs, op


def relation(pred: Answer, gold: Answer, ctx: Ctx) -> Outcome:
    """Relations link by link: same direction and strictness, sides up to a positive constant factor."""
    if len(pred.ops) != len(gold.ops):
        return False, "a different number of relations"
    gs = _sides(gold, "gold", ctx)
    ps = _sides(pred, "pred", ctx)
    unsure = None
    for index, (p_op, g_op) in enumerate(zip(pred.ops, gold.ops, strict=True)):
        fp, op_p = _normal_rel(ps[index], p_op, ps[index + 1])
        fg, op_g = _normal_rel(gs[index], g_op, gs[index + 1])
        if op_p != op_g:
            return False, f"relation {op_p} where the gold has {op_g}"
        if fp == fg:
            continue
        ratio = sympy.cancel(sympy.together(fp / fg)) if fg != 0 else None
        if ratio is not None and not ratio.free_symbols and ratio.is_positive:
            continue
        if op_p == "!=" and ratio is not None and not ratio.free_symbols and ratio.is_nonzero:
            continue
        scaled = constant_ratio(fp, fg)
        if scaled is False:
            return False, "the relations differ"
        unsure = "relations agree only at random points"
    return (None, unsure) if unsure else (True, "equivalent relations")


def _as_interval(answer: Answer) -> Answer | None:
    """``x \\le 5`` → the interval (−∞, 5] of x; None when the relation is not of that shape."""
    if answer.kind != "rel" or len(answer.ops) != 1 or answer.ops[0] == "!=":
        return None
    lhs, rhs = answer.parts
    op = answer.ops[0]
    if re.fullmatch(r"\s*(?:\\[a-zA-Z]+|[a-zA-Z])(?:_\{?[a-zA-Z0-9]+\}?)?\s*", rhs):
        lhs, rhs = rhs, lhs
        op = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}[op]
    elif not re.fullmatch(r"\s*(?:\\[a-zA-Z]+|[a-zA-Z])(?:_\{?[a-zA-Z0-9]+\}?)?\s*", lhs):
        return None
    if op in ("<", "<="):
        return Answer("interval", ("-\\infty", rhs), closed=(False, op == "<="), var=lhs.strip())
    return Answer("interval", (rhs, "\\infty"), closed=(op == ">=", False), var=lhs.strip())


def interval(pred: Answer, gold: Answer, ctx: Ctx) -> Outcome:
    if pred.var and gold.var and pred.var != gold.var:
        return False, f"interval of {pred.var} where the gold is about {gold.var}"
    if pred.closed != gold.closed:
        return False, "different endpoint brackets (open vs closed)"
    return _elementwise(list(pred.parts), list(gold.parts), ctx, "endpoint")


def _elementwise(ps: list, gs: list, ctx: Ctx, what: str) -> Outcome:
    if len(ps) != len(gs):
        return False, f"{len(ps)} {what}s where the gold has {len(gs)}"
    unsure = None
    for index, (p, g) in enumerate(zip(ps, gs, strict=True)):
        same, why = compare(p, g, ctx) if isinstance(p, Answer) else _leaf_text(p, g, ctx)
        if same is False:
            return False, f"{what} {index + 1}: {why}"
        if same is None:
            unsure = f"{what} {index + 1}: {why}"
    return (None, unsure) if unsure else (True, f"every {what} matches")


def _as_answers(answer: Answer) -> list[Answer]:
    return [p if isinstance(p, Answer) else Answer("expr", (p,)) for p in answer.parts]


def unordered(pred: Answer, gold: Answer, ctx: Ctx) -> Outcome:
    """Sets and several answers: a one-to-one match in any order."""
    ps, gs = _as_answers(pred), _as_answers(gold)
    if len(ps) != len(gs):
        return False, f"{len(ps)} answers where the gold has {len(gs)}"
    free = list(range(len(ps)))
    unsure = None
    for g in gs:
        found = None
        for index in free:
            same, why = compare(ps[index], g, ctx)
            if same:
                found = index
                break
            if same is None:
                unsure = why
        if found is None:
            return (None, f"no proven match for an element: {unsure}") if unsure else (False, "an element is missing")
        free.remove(found)
    return True, "the same answers (any order)"


def compare(pred: Answer, gold: Answer, ctx: Ctx) -> Outcome:
    """Dispatch on the two kinds."""
    kinds = {pred.kind, gold.kind}
    if kinds <= {"eq", "expr"}:
        if kinds == {"expr"}:
            return _leaf_text(pred.parts[0], gold.parts[0], ctx)
        return _eq_vs(pred, gold, ctx)
    if "rel" in kinds and "interval" in kinds:
        pred = _as_interval(pred) or pred
        gold = _as_interval(gold) or gold
    if pred.kind != gold.kind and kinds <= {"set", "list"}:
        return unordered(pred, gold, ctx)
    if pred.kind != gold.kind:
        return False, f"the answer is a {pred.kind}, the gold a {gold.kind}"
    if pred.kind == "rel":
        return relation(pred, gold, ctx)
    if pred.kind == "interval":
        return interval(pred, gold, ctx)
    if pred.kind in ("set", "list"):
        return unordered(pred, gold, ctx)
    if pred.kind == "tuple":
        if pred.ops != gold.ops:
            return False, f"brackets {pred.ops[0]} where the gold has {gold.ops[0]}"
        return _elementwise(list(pred.parts), list(gold.parts), ctx, "element")
    if pred.kind == "matrix":
        if [len(r) for r in pred.rows] != [len(r) for r in gold.rows]:
            return False, "matrices of different shape"
        flat_p = [c for row in pred.rows for c in row]
        flat_g = [c for row in gold.rows for c in row]
        return _elementwise(flat_p, flat_g, ctx, "matrix entry")
    return None, f"no comparison rule for {pred.kind}"


def render(answer: Answer, names: dict[str, str]) -> str:
    """Readable form of a cleaned answer, placeholders shown by what they stand for."""
    if answer.kind == "matrix":
        text = " ; ".join(", ".join(row) for row in answer.rows)
    elif answer.kind in ("list", "set", "tuple") and answer.parts and isinstance(answer.parts[0], Answer):
        text = ", ".join(render(p, names) for p in answer.parts)
    elif answer.kind == "rel":
        text = answer.parts[0] + "".join(f" {op} {part}" for op, part in zip(answer.ops, answer.parts[1:], strict=True))
    elif answer.kind == "interval":
        text = ("[" if answer.closed[0] else "(") + ", ".join(answer.parts) + ("]" if answer.closed[1] else ")")
        text = f"{answer.var} in {text}" if answer.var else text
    else:
        text = (" = " if answer.kind == "eq" else ", ").join(str(p) for p in answer.parts)
    text = re.sub(r"\\Upsilon_\{(\d+)\}", lambda m: names.get(m[0], m[0]), text)
    return " ".join(text.split())


def compare_answers(pred: Answer, gold: Answer, table: dict[str, str], budget_s: float) -> dict:
    """Compare with each parser in order until one parses both sides; a JSON-able reply for the parent."""
    names = {v: "{" + k + "}" for k, v in table.items()}
    vectors = frozenset("Upsilon_{%s}" % v.split("{")[1].rstrip("}") for k, v in table.items() if k.startswith("vec:"))
    deadline = time.monotonic() + max(0.1, budget_s * 0.8)
    failure: ParseFail | None = None
    for parser in PARSERS:
        try:
            same, reason = compare(pred, gold, Ctx(parser, deadline, vectors))
        except ParseFail as exc:
            if failure is None or exc.side == "pred":
                failure = exc
            continue
        except RecursionError:
            return {"verdict": "not_sure", "reason": "recursion limit reached while comparing",
                    "annotations": ["parse failure"]}
        if same is None and "vector" not in reason:
            # exact again with every symbol a positive quantity: \sqrt{k_B T/m} = \sqrt{k_B T}/\sqrt{m}
            try:
                again, why = compare(pred, gold, Ctx(parser, deadline, vectors, positive=True))
            except (NotForPositive, ParseFail, RecursionError):
                again = None
            if again:
                same, reason = True, f"{why} (assuming positive quantities)"
        verdict = {True: "correct", False: "incorrect", None: "not_sure"}[same]
        notes = [] if same is not None else ["needs LLM verifier"]
        if parser != PARSERS[0]:
            reason = f"{reason} (parsed by {parser})"
        return {"verdict": verdict, "reason": reason, "annotations": notes,
                "pred_norm": render(pred, names), "gt_norm": render(gold, names)}
    assert failure is not None
    if failure.side == "gold":
        return {"verdict": "not_sure", "reason": f"unscored gold: {failure}", "annotations": ["unscored gold"],
                "pred_norm": render(pred, names), "gt_norm": render(gold, names)}
    return {"verdict": "not_sure", "reason": f"parse failure: {failure}", "annotations": ["parse failure"],
            "pred_norm": render(pred, names), "gt_norm": render(gold, names)}
