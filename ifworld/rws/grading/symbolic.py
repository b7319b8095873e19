"""Symbolic stage (in the grading worker): Math-Verify decides, our physics rules veto and complete it.

1. the answer: a ``Final Answer:`` line or JSON field we found, else Math-Verify's own extraction over the
   reply (boxed, "final answer is", the last LaTeX); plain-text maths (``tan(psi) = Omega*r/V``) is read by
   :mod:`ifworld.rws.grading.plaintext`; running prose with no maths is a format violation;
2. hostile input is refused and physics notation rewritten (:mod:`ifworld.rws.grading.notation`);
3. Math-Verify parses both sides and says whether they are equivalent (:mod:`ifworld.rws.grading.mathverify`);
4. :mod:`ifworld.rws.grading.physics` vetoes a false "correct" or proves what Math-Verify missed;
   :mod:`ifworld.rws.grading.forms` reads label sides (``P(r) = …``, ``A_1:A_2 = 3:7``), ``i`` for a numeric gold
   and decimals at their stated precision; a percent sign on one side only is read by the percent convention.

Every result names the step that decided (``decided_by``: Math-Verify, equation sides, stated precision, …).

A gold answer that cannot be parsed is "unscored gold" (not_sure), never "incorrect".
"""

from __future__ import annotations

import re
import time
from dataclasses import replace
from typing import Any

import sympy

from ifworld.errors import GradingError
from ifworld.rws.grading import approx, forms, mathverify, notation, physics, plaintext, proportional, ratios
from ifworld.rws.grading.constants import REL_TOLERANCE
from ifworld.rws.grading.extract import Extraction, boxed_group, gold_parts, strip_wrappers
from ifworld.rws.grading.numeric import comma_readings
from ifworld.rws.grading.result import (
    ALGEBRA,
    EXTRACTION,
    FORMAT_VIOLATION,
    GOLD,
    MATHVERIFY,
    NEEDS_VERIFIER,
    PARSE_FAILURE,
    PRECISION,
    READING,
    SAFETY,
    SIDES,
    UNITS,
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
_NUMBER_PERCENT = re.compile(r"(\d)\s*(?:\\[,;!]\s*)?(?:\\%|%|(?:per\s?cent(?:age)?|pct)(?![A-Za-z])(?!\s*points?\b))")
"""A percent sign or word after a number: the percent convention looks for it, and inside a box it is dropped —
Math-Verify reads ``\\boxed{28\\%}`` and ``\\boxed{28 percent}`` as nothing at all (``28\\%`` elsewhere as 28)."""
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


def _answer_text(reply: str, extraction: Extraction, gold: str) -> str:
    """The part of the reply Math-Verify reads: the answer we found, the boxes that answer, or the reply's tail."""
    text = extraction.answer if extraction.how in ("final_line", "json", "phrase") else reply[-MAX_REPLY_MATH_CHARS:]
    if extraction.how == "boxed":  # the last box, the last run of boxes written as one list, or one box per part
        text = ", ".join("\\boxed{%s}" % _NUMBER_PERCENT.sub(r"\1", content)
                         for content in boxed_group(text, gold_parts(gold)))
    return text


def _source(text: str, labels: set[tuple[str, str]]) -> tuple[str, bool]:
    """(text for Math-Verify, is it one bare maths expression to read as LaTeX); function labels written as names."""
    if _DELIMITED.search(text):
        for region in notation.math_regions(text, whole=False):
            notation.guard(region)
        return notation.in_math(text, lambda region: forms.drop_calls(region, labels), False), False
    text = strip_wrappers(text).replace("−", "-").replace("–", "-")
    notation.guard(text)
    text = forms.drop_calls(text, labels)
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


def _written_link(answer: str, link: sympy.Eq) -> str:
    """A false link as the answer wrote it (``4+6+1 = 12``), found among its ``=``-separated parts; else as parsed."""
    parts = [part.strip() for part in re.split(r"(?<![<>!\\])=(?!=)", strip_wrappers(answer).replace("$", " "))]
    for left, right in zip(parts, parts[1:], strict=False):
        try:
            pair = mathverify.read(f"${left}$").value, mathverify.read(f"${right}$").value
        except notation.RefusedInput:
            continue
        if _same_side(pair[0], link.lhs) and _same_side(pair[1], link.rhs):
            return f"{left} = {right}"
    return f"{link.lhs} = {link.rhs}"


def _same_side(written: Any, parsed: Any) -> bool:
    """One side of a link as written and as parsed: unevaluated sums keep their order (``8 + 9 + 4`` is not
    ``4 + 8 + 9`` to ``==``), so numbers are compared by value."""
    if written == parsed:
        return True
    numbers = all(isinstance(x, sympy.Expr) and x.is_number for x in (written, parsed))
    return bool(numbers and sympy.simplify(written - parsed) == 0)


def _veto(pred: Any, gold: Any, gold_text: str, hint: str, vectors: frozenset[str],
          answer: str = "") -> tuple[Verdict, str, str] | None:
    """A reason to overrule Math-Verify's "equivalent" (verdict, reason, deciding step), or None."""
    if physics.vector_product(pred, vectors) or physics.vector_product(gold, vectors):
        return "not_sure", "a product of two vectors without an explicit cross or dot product", SAFETY
    if physics.trivial_derivative(pred) or physics.trivial_derivative(gold):
        return "not_sure", "a derivative the grader could not name (it would read as 0)", SAFETY
    bad = physics.bad_link(pred)
    if bad is not None:
        return "incorrect", f"chained equality: the link {_written_link(answer, bad)} is false", SAFETY
    gold_eq = isinstance(gold, (sympy.Eq, sympy.And)) and all(isinstance(x, sympy.Eq) for x in physics.links(gold))
    pred_eq = isinstance(pred, (sympy.Eq, sympy.And))
    lhs = _gold_lhs(gold_text)
    if gold_eq and not pred_eq and lhs is not None:  # a gold written as an equation (not ``x \in S``)
        if not (physics.is_name(lhs) or forms.is_ratio_label(lhs)):
            return "incorrect", f"the answer is an expression where the gold is an equation for {lhs.strip()}", SIDES
        if equation_required(hint):
            return "not_sure", "the right-hand side of the gold equation, but the hint asks for an equation", SIDES
    if isinstance(pred, sympy.FiniteSet) and len(pred) == 1 and not isinstance(gold, (sympy.Set, sympy.Tuple)):
        return "not_sure", "a set where a value is asked", SAFETY
    return None


def _labels(pred_text: str, gold_text: str) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """Function notation on the answer's or the gold's equation (``P(r) = …``): (labels of the quantity, those
    written on one side only — the ones worth saying in the reason)."""
    regions = notation.math_regions(pred_text, whole=not _DELIMITED.search(pred_text)) + [gold_text]
    found = {label for label in (forms.call_label(strip_wrappers(r)) for r in regions) if label is not None}
    clashing = {name for name, args in found if any(n == name and _clash(a, args) for n, a in found)}
    found = {label for label in found if label[0] not in clashing}
    both = {label for label in found if forms.drop_calls(pred_text, {label}) != pred_text
            and forms.drop_calls(gold_text, {label}) != gold_text}
    return found, found - both


def _clash(one: str, other: str) -> bool:
    """Calls of one name at other arguments — two quantities (``h(t)``, ``h(s)``; ``G(p,q)``, ``G(q,p)``), so
    neither is a mere label. A call with more arguments that include the other's in order names the same quantity
    (``n(r,\\theta)`` and ``n(r)``: the density, said to depend on θ too)."""
    short, long = sorted((one.split(","), other.split(",")), key=len)
    if len(short) == len(long):
        return short != long
    remaining = iter(long)
    return not all(arg in remaining for arg in short)


def _gold_text(gold: str, labels: set[tuple[str, str]]) -> str:
    """The gold as LaTeX (a CAS-style gold ``4*t**3`` read as plain-text maths), function labels as names."""
    text = forms.drop_calls(gold, labels)
    if "*" in text and plaintext.looks_plain(text):
        try:
            text = plaintext.to_latex(text)
        except plaintext.NotPlainMaths:
            pass
    return text


class _Ctx:
    """One item's parsed sides and how to word its results."""

    def __init__(self, extraction: Extraction, gold_text: str, notes: str) -> None:
        self.extraction, self.gold_text, self.notes = extraction, gold_text, notes
        self.shown_p, self.shown_g = extraction.answer[:200], gold_text

    def result(self, verdict: Verdict, by: str, reason: str, notes: list[str] | None = None) -> CheckResult:
        return CheckResult(verdict=verdict, type="symbolic", reason=reason + self.notes, pred_norm=self.shown_p,
                           gt_norm=self.shown_g, stage="symbolic", annotations=notes or [], decided_by=by)


def _read_sides(reply: str, extraction: Extraction, gold: str) -> tuple[_Ctx, Any, Any, Any] | CheckResult:
    """Guard, rewrite and parse both sides: (context, pred reading, gold reading, names) or a decided result."""
    gold_clean = notation.clean(strip_wrappers(gold))
    ctx = _Ctx(extraction, gold_clean, "")
    try:
        notation.guard(gold_clean)
    except notation.RefusedInput as exc:
        return ctx.result("not_sure", GOLD, f"unscored gold: {exc}", [UNSCORED_GOLD])
    try:
        answer = _answer_text(reply, extraction, gold)
        labels, one_sided = _labels(answer, gold_clean)
        ctx.gold_text = gold_text = _gold_text(gold_clean, labels)
        source, whole = _source(answer, labels)
        pred_text, gold_ready, names = notation.prepare(source, gold_text, whole, True)
    except notation.RefusedInput as exc:
        if getattr(exc, "side", "pred") == "gold":
            return ctx.result("not_sure", GOLD, f"unscored gold: {exc}", [UNSCORED_GOLD])
        verdict: Verdict = "incorrect" if exc.kind == FORMAT_VIOLATION else "not_sure"
        return ctx.result(verdict, SAFETY if verdict == "incorrect" else READING, f"{exc.kind}: {exc}", [exc.kind])
    shown = ", ".join(f"{name}({args})" for name, args in sorted(one_sided))
    ctx.notes = f"; {shown} only names the quantity" if shown else ""
    wrapped = strip_wrappers(gold).strip() != gold.strip() and not re.search(r"\d,\d{3}(?!\d)", gold_ready)
    numberish = _NUMBERISH.fullmatch(gold_ready) and not (wrapped and "," in gold_ready)
    gold_r = mathverify.read(gold_ready if numberish else f"${gold_ready}$")
    if gold_r.value is None:
        return ctx.result("not_sure", GOLD, "unscored gold: Math-Verify cannot parse it", [UNSCORED_GOLD])
    pred_r = mathverify.read(f"${pred_text}$" if whole else pred_text)
    ctx.shown_p, ctx.shown_g = names.render(pred_r.text) or extraction.answer[:200], names.render(gold_r.text)
    if pred_r.value is None:
        if not pred_r.text:
            return ctx.result("incorrect", EXTRACTION, "format violation: no maths found in the answer",
                              [FORMAT_VIOLATION])
        if _unbalanced(pred_r.text):  # never a verdict on a guess at what was meant; the verifier may read it
            return ctx.result("not_sure", READING, f"parse failure: malformed LaTeX (braces do not pair up) in "
                              f"{pred_r.text[:80]!r}", [PARSE_FAILURE])
        return ctx.result("not_sure", READING, f"parse failure: Math-Verify cannot parse {pred_r.text[:80]!r}",
                          [PARSE_FAILURE])
    return ctx, pred_r, gold_r, names


def _unbalanced(text: str) -> bool:
    """Brackets that do not pair up (``\\frac{1}{2``): malformed LaTeX is never read as an answer."""
    depth = 0
    for char in re.sub(r"\\[{}]", "", text):
        depth += char == "{"
        depth -= char == "}"
        if depth < 0:
            return True
    return depth != 0


def _precision(ctx: _Ctx, pred: Any, gold: Any) -> CheckResult | None:
    """A decimal answer for an exact number, judged by the precision it states (see :mod:`forms`)."""
    value = forms.imaginary(pred, gold)
    if value is not None and mathverify.same(mathverify.Reading(gold, ""), mathverify.Reading(value, "")):
        return ctx.result("correct", MATHVERIFY, "equivalent once i is read as the imaginary unit (the reference "
                          "is a number, so i cannot be an index)")
    same, why = forms.stated_precision(pred, gold, ctx.extraction.answer)
    if same:
        return ctx.result("correct", PRECISION, why + f" — within the RWS {REL_TOLERANCE:.0%} tolerance")
    if same is None:
        return ctx.result("not_sure", PRECISION, why, [NEEDS_VERIFIER])
    return None


def _percent(ctx: _Ctx, pred: Any, gold: Any) -> CheckResult | None:
    """One side has a percent sign, both are numbers: Math-Verify drops the sign (``35\\%`` reads 35), and a
    fraction for a percentage (0.35 for 35 %) is the same value. Either way the convention is said."""
    pred_pct, gold_pct = (bool(_NUMBER_PERCENT.search(text)) for text in (ctx.extraction.answer, ctx.gold_text))
    numbers = isinstance(pred, sympy.Expr) and isinstance(gold, sympy.Expr) and pred.is_number and gold.is_number
    if pred_pct == gold_pct or not numbers:
        return None
    try:
        p, g = float(pred), float(gold)
    except (TypeError, ValueError):
        return None
    scaled = p / 100 if pred_pct else g / 100
    other = g if pred_pct else p
    if abs(p - g) <= 1e-9 * max(abs(g), 1e-300):
        return ctx.result("correct", UNITS, f"percent convention: {max(p, g):g} % is read as {max(p, g):g}, as "
                          "the other side writes it (Math-Verify: equivalent)")
    if abs(scaled - other) <= 1e-9 * max(abs(other), 1e-300):
        return ctx.result("correct", UNITS, f"percent convention: {scaled * 100:g} % is the fraction {scaled:g}")
    return None


def _equivalent(ctx: _Ctx, pred: Any, gold: Any) -> CheckResult:
    """Math-Verify's "equivalent", saying when a label side was set aside to get there."""
    lhs = _gold_lhs(ctx.gold_text)
    if lhs is not None and isinstance(gold, sympy.Eq) and not isinstance(pred, (sympy.Eq, sympy.And)):
        return ctx.result("correct", SIDES, f"the reference's left side {lhs.strip()} only labels the asked value; "
                          "the answer equals its right side (Math-Verify)")
    if ctx.notes:
        return ctx.result("correct", SIDES, "the right sides are equivalent (Math-Verify)")
    return ctx.result("correct", MATHVERIFY, "equivalent")


def check_symbolic(reply: str, extraction: Extraction, gold: str, hint: str = "",
                   deadline: float | None = None) -> CheckResult:
    """Grade a symbolic answer: Math-Verify's equivalence inside our physics rules (see module docstring)."""
    deadline = deadline if deadline is not None else time.monotonic() + 4.0
    restated = _restatements(reply, extraction, gold)
    if isinstance(restated, CheckResult):
        return restated
    reply, extraction, note = restated
    glued = forms.unit_on_number(extraction.answer, strip_wrappers(gold))
    if glued is not None:  # a unit after a number, where the reference is a bare number: set aside, said
        reply = glued.number
        extraction = replace(extraction, answer=reply, how="final_line", body=reply)
        note += f"; the reference gives no unit, so the answer's {glued.unit} is not checked"
    result = _graded(reply, extraction, gold, hint, deadline)
    if glued is not None and glued.one_letter and result.verdict == "correct":
        return result.with_(verdict="not_sure", decided_by=READING, annotations=[NEEDS_VERIFIER],
                            reason=f"the number is the reference, but the one letter after it may be the unit "
                            f"{glued.unit} or a symbol multiplying it; the reference gives no unit to tell")
    result = result.with_(reason=result.reason + note) if note and result.verdict == "correct" else result
    if not (_NUMBERISH.fullmatch(extraction.answer) and _NUMBERISH.fullmatch(strip_wrappers(gold))):
        return result  # a comma between numbers in a tuple, set or call separates them
    return comma_readings(extraction.answer, strip_wrappers(gold), result, lambda decimal: _graded(
        decimal, replace(extraction, answer=decimal, how="final_line", body=decimal), gold, hint, deadline))


def _restatements(reply: str, extraction: Extraction, gold: str) -> tuple[str, Extraction, str] | CheckResult:
    """Approximate restatements (``y = 2/7 \\approx 0.29``) checked at their stated precision and removed (see
    :mod:`ifworld.rws.grading.approx`), or the result for a false one."""
    answer = _answer_text(reply, extraction, gold)
    if "approx" not in answer and "≈" not in answer and "simeq" not in answer:
        return reply, extraction, ""
    found = [link for link in approx.links(answer) if link.holds is not None]
    ctx = _Ctx(extraction, strip_wrappers(gold), "")
    for link in found:
        if not link.holds:
            return ctx.result("incorrect", SAFETY, f"chained working: the link {link.exact} {link.approx} is false at "
                              "the precision the decimal states")
    if not found:
        return reply, extraction, ""
    kept = approx.without(answer, found)
    shown = "; ".join(f"{link.exact} {link.approx}" for link in found)
    note = f"; the approximate restatement {shown} holds at its stated precision"
    return kept, replace(extraction, answer=strip_wrappers(kept), how="final_line", body=kept), note


def _graded(reply: str, extraction: Extraction, gold: str, hint: str, deadline: float) -> CheckResult:
    """:func:`check_symbolic` once approximate restatements are set aside."""
    law = proportional.check_proportional(_answer_text(reply, extraction, gold), gold) \
        if proportional.PROPTO.search(gold) else None
    if law is not None:
        return law
    ratio = ratios.check_ratio(_answer_text(reply, extraction, gold), gold) if ":" in gold else None
    if ratio is not None:
        return ratio
    read = _read_sides(reply, extraction, gold)
    if isinstance(read, CheckResult):
        return read
    ctx, pred_r, gold_r, names = read
    if physics.undefined(pred_r.value):
        return ctx.result("incorrect", SAFETY, "the answer is undefined (division by zero or 0/0)",
                          [FORMAT_VIOLATION])
    decided = _percent(ctx, pred_r.value, gold_r.value) or _precision(ctx, pred_r.value, gold_r.value)
    if decided is not None:
        return decided
    if (pred_r.value != gold_r.value and physics.clearly_different(pred_r.value, gold_r.value)
            and not physics.rounded_match(pred_r.value, gold_r.value)):
        return ctx.result("incorrect", MATHVERIFY, "not equivalent (they differ at random points)")
    vectors = _vectors(names)
    if mathverify.same(gold_r, pred_r):
        vetoed = _veto(pred_r.value, gold_r.value, ctx.gold_text, hint, vectors, ctx.extraction.answer)
        if vetoed is not None:
            verdict, reason, by = vetoed
            return ctx.result(verdict, by, f"{reason} (Math-Verify alone would accept it)",
                              [NEEDS_VERIFIER] if verdict == "not_sure" else [])
        return _equivalent(ctx, pred_r.value, gold_r.value)
    signed = frozenset(names.sympy_name(value) for key, value in names.table.items()
                       if re.match(r"id:[xyz](?:_|$)", key))  # coordinates keep their sign
    same, why = physics.accept(pred_r.value, gold_r.value, deadline, signed)
    if same:
        vetoed = _veto(pred_r.value, gold_r.value, ctx.gold_text, hint, vectors, ctx.extraction.answer)
        if vetoed is not None:
            return ctx.result(vetoed[0], vetoed[2], vetoed[1], [NEEDS_VERIFIER] if vetoed[0] == "not_sure" else [])
        return ctx.result("correct", ALGEBRA, f"{why} (our algebra rules; Math-Verify: not equivalent)")
    if same is None and "no further rule" not in why:
        return ctx.result("not_sure", ALGEBRA, f"{why}; Math-Verify: not equivalent", [NEEDS_VERIFIER])
    reason = why if same is False else "not equivalent"
    return ctx.result("incorrect", MATHVERIFY, reason)
