"""Symbolic stage (in the grading worker): Math-Verify decides, our physics rules veto and complete it.

1. the answer: a ``Final Answer:`` line or JSON field we found, else Math-Verify's own extraction over the
   reply (boxed, "final answer is", the last LaTeX); plain-text maths (``tan(psi) = Omega*r/V``) is read by
   :mod:`ifworld.rws.grading.plaintext`; running prose with no maths is a format violation;
2. hostile input is refused and physics notation rewritten (:mod:`ifworld.rws.grading.notation`);
3. Math-Verify parses both sides and says whether they are equivalent (:mod:`ifworld.rws.grading.mathverify`);
4. :mod:`ifworld.rws.grading.physics` vetoes a false "correct" or proves what Math-Verify missed.

A gold answer that cannot be parsed is "unscored gold" (not_sure), never "incorrect".
"""

from __future__ import annotations

import re
import time
from typing import Any

import sympy

from ifworld.errors import GradingError
from ifworld.rws.grading import mathverify, notation, physics, plaintext
from ifworld.rws.grading.extract import Extraction, strip_wrappers
from ifworld.rws.grading.result import (
    FORMAT_VIOLATION,
    NEEDS_VERIFIER,
    PARSE_FAILURE,
    UNSCORED_GOLD,
    CheckResult,
    Verdict,
)

MAX_REPLY_MATH_CHARS = 4_000
"""Math-Verify's extraction reads only the last this-many characters of a reply (answers come last)."""
_DELIMITED = re.compile(r"\$|\\\(|\\\[|\\boxed")
_NUMBERISH = re.compile(r"\s*[-+−]?(?:\d{1,3}(?:[ ,]\d{3})+(?:\.\d+)?|\d+,\d+|\d+(?:\.\d+)?)\s*%?\s*")
"""One number in a format (``7,425,000``, ``1 000``, ``2,74``): Math-Verify reads it as text, not as LaTeX
(where ``1 000`` would be a product); a comma with a space after it separates answers (``3, 5``)."""
_MATH_WORDS = frozenset(
    "sin cos tan cot sec csc exp log sqrt frac cdot times and text arcsin arccos arctan sinh cosh tanh".split()
) | plaintext.GREEK


def equation_required(hint: str) -> bool:
    """The item's hint asks for an equation ("An equation …", "A PDE …")."""
    return hint.strip().lower().startswith(("an equation", "a pde", "an ode", "a differential equation"))


def prose(text: str) -> bool:
    """Running words outside LaTeX commands and math regions (``The radius is m v over q B``)."""
    bare = re.sub(r"\$[^$]*\$|\\[a-zA-Z]+|_\{[^{}]*\}|\{[^{}]*\}", " ", text)
    return len([w for w in re.findall(r"[A-Za-z]{3,}", bare) if w.lower() not in _MATH_WORDS]) >= 2


class _Verdict(GradingError):
    """A decided result before comparison (refused input, no answer)."""

    def __init__(self, verdict: str, reason: str, note: str) -> None:
        super().__init__(reason)
        self.verdict, self.reason, self.note = verdict, reason, note


def _source(reply: str, extraction: Extraction) -> tuple[str, bool]:
    """(text for Math-Verify, is it one bare maths expression to read as LaTeX)."""
    text = extraction.answer if extraction.how in ("final_line", "json") else reply[-MAX_REPLY_MATH_CHARS:]
    if _DELIMITED.search(text):
        for region in notation.math_regions(text, whole=False):
            notation.guard(region)
        return text, False
    text = strip_wrappers(text).replace("−", "-").replace("–", "-")
    notation.guard(text)
    if plaintext.looks_plain(text):
        try:
            return plaintext.to_latex(text), True
        except plaintext.NotPlainMaths:
            pass
    return text, not (prose(text) or _NUMBERISH.fullmatch(text))


def _gold_lhs(gold: str) -> str | None:
    """The left side of a gold equation (top level ``=``), or None."""
    depth = 0
    for index, char in enumerate(gold):
        depth += char in "({["
        depth -= char in ")}]"
        if char == "=" and depth == 0 and gold[index - 1:index] not in ("<", ">", "!", "\\"):
            return gold[:index]
    return None


def _vectors(names: notation.Placeholders) -> frozenset[str]:
    """Sympy names of the placeholders that stand for vectors."""
    return frozenset(names.sympy_name(value) for key, value in names.table.items() if key.startswith("vec:"))


def _veto(pred: Any, gold: Any, gold_text: str, hint: str, vectors: frozenset[str]) -> tuple[Verdict, str] | None:
    """A reason to overrule Math-Verify's "equivalent" (verdict, reason), or None."""
    if physics.vector_product(pred, vectors) or physics.vector_product(gold, vectors):
        return "not_sure", "a product of two vectors without an explicit cross or dot product"
    if physics.trivial_derivative(pred) or physics.trivial_derivative(gold):
        return "not_sure", "a derivative the grader could not name (it would read as 0)"
    bad = physics.false_link(pred)
    if bad:
        return "incorrect", f"chained equality: {bad}"
    gold_eq = isinstance(gold, (sympy.Eq, sympy.And)) and all(isinstance(x, sympy.Eq) for x in physics.links(gold))
    pred_eq = isinstance(pred, (sympy.Eq, sympy.And))
    if gold_eq and not pred_eq:
        lhs = _gold_lhs(gold_text) or ""
        if not physics.is_name(lhs):
            return "incorrect", f"the answer is an expression where the gold is an equation for {lhs.strip()}"
        if equation_required(hint):
            return "not_sure", "the right-hand side of the gold equation, but the hint asks for an equation"
    if isinstance(pred, sympy.FiniteSet) and len(pred) == 1 and not isinstance(gold, (sympy.Set, sympy.Tuple)):
        return "not_sure", "a set where a value is asked"
    return None


def check_symbolic(reply: str, extraction: Extraction, gold: str, hint: str = "",
                   deadline: float | None = None) -> CheckResult:
    """Grade a symbolic answer: Math-Verify's equivalence inside our physics rules (see module docstring)."""
    deadline = deadline if deadline is not None else time.monotonic() + 4.0
    gold_text = notation.clean(strip_wrappers(gold))

    def result(verdict: Verdict, reason: str, notes: list[str], p: str = "", g: str = gold_text) -> CheckResult:
        return CheckResult(verdict=verdict, type="symbolic", reason=reason, pred_norm=p or extraction.answer[:200],
                           gt_norm=g, stage="symbolic", annotations=notes)

    try:
        notation.guard(gold_text)
    except notation.RefusedInput as exc:
        return result("not_sure", f"unscored gold: {exc}", [UNSCORED_GOLD])
    try:
        source, whole = _source(reply, extraction)
        pred_text, gold_ready, names = notation.prepare(source, gold_text, whole, True)
    except notation.RefusedInput as exc:
        if getattr(exc, "side", "pred") == "gold":
            return result("not_sure", f"unscored gold: {exc}", [UNSCORED_GOLD])
        verdict: Verdict = "incorrect" if exc.kind == FORMAT_VIOLATION else "not_sure"
        return result(verdict, f"{exc.kind}: {exc}", [exc.kind])
    gold_r = mathverify.read(gold_ready if _NUMBERISH.fullmatch(gold_ready) else f"${gold_ready}$")
    if gold_r.value is None:
        return result("not_sure", "unscored gold: Math-Verify cannot parse it", [UNSCORED_GOLD])
    pred_r = mathverify.read(f"${pred_text}$" if whole else pred_text)
    shown_p, shown_g = names.render(pred_r.text) or extraction.answer[:200], names.render(gold_r.text)
    if pred_r.value is None:
        if not pred_r.text:
            return result("incorrect", "format violation: no maths found in the answer", [FORMAT_VIOLATION],
                          shown_p, shown_g)
        return result("not_sure", f"parse failure: Math-Verify cannot parse {pred_r.text[:80]!r}",
                      [PARSE_FAILURE], shown_p, shown_g)
    if physics.undefined(pred_r.value):
        return result("incorrect", "the answer is undefined (division by zero or 0/0)", [FORMAT_VIOLATION],
                      shown_p, shown_g)
    if (pred_r.value != gold_r.value and physics.clearly_different(pred_r.value, gold_r.value)
            and not physics.rounded_match(pred_r.value, gold_r.value)):
        return result("incorrect", "not equivalent (they differ at random points)", [], shown_p, shown_g)
    if mathverify.same(gold_r, pred_r):
        vetoed = _veto(pred_r.value, gold_r.value, gold_text, hint, _vectors(names))
        if vetoed is not None:
            verdict, reason = vetoed
            return result(verdict, f"{reason} (Math-Verify alone would accept it)",
                          [NEEDS_VERIFIER] if verdict == "not_sure" else [], shown_p, shown_g)
        return result("correct", "equivalent (Math-Verify)", [], shown_p, shown_g)
    signed = frozenset(names.sympy_name(value) for key, value in names.table.items()
                       if re.match(r"id:[xyz](?:_|$)", key))  # coordinates keep their sign
    same, why = physics.accept(pred_r.value, gold_r.value, deadline, signed)
    if same:
        vetoed = _veto(pred_r.value, gold_r.value, gold_text, hint, _vectors(names))
        if vetoed is not None:
            return result(vetoed[0], vetoed[1], [NEEDS_VERIFIER] if vetoed[0] == "not_sure" else [],
                          shown_p, shown_g)
        return result("correct", f"{why} (our physics rules; Math-Verify: not equivalent)", [], shown_p, shown_g)
    if same is None and "no further rule" not in why:
        return result("not_sure", f"{why}; Math-Verify: not equivalent", [NEEDS_VERIFIER], shown_p, shown_g)
    reason = why if same is False else "not equivalent"
    return result("incorrect", f"{reason} (Math-Verify)", [], shown_p, shown_g)
