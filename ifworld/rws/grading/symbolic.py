"""Symbolic stage, parent side: clean LaTeX as text, refuse dangerous input, then ask the sandbox.

Everything here is string work (no sympy import, so the parent stays fast and nothing is evaluated).
The cleaned strings go to a killable worker process (:mod:`ifworld.rws.grading.sandbox`) that parses them with
sympy's LaTeX parser (antlr backend) and compares them (:mod:`ifworld.rws.grading.symcompare`).
Measured parser traps handled here: antlr reads ``\\beta_0 \\left(…\\right)`` as a function call and
chokes on ``\\text{km/s}``/``\\mathrm{nT}``; ``10^{10^{10}}`` or ``(x+1)^{99999999}`` would hang sympy.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ifworld.errors import GradingError
from ifworld.rws.grading.constants import DEFAULT_TIMEOUT_S
from ifworld.rws.grading.kinds import Answer, decide
from ifworld.rws.grading.latexnorm import normalise_answer
from ifworld.rws.grading.result import (
    FORMAT_VIOLATION,
    PARSE_FAILURE,
    UNSCORED_GOLD,
    CheckResult,
    Verdict,
)
from ifworld.rws.grading.units import UnitError, parse_unit
from ifworld.rws.grading.vectors import OpaqueVector, has_vectors, replace_vectors

NONCOMMUTATIVE = "non-commutative"

MAX_SYMBOLIC_CHARS = 2_000
"""Longer symbolic answers are refused before parsing."""
MAX_NESTING = 30
"""Deeper bracket nesting is refused before parsing."""
MAX_EXPONENT_DIGITS = 3
"""Integer exponents with more digits than this (``x^{99999999}``) are refused before parsing."""

_FORBIDDEN = re.compile(
    r"\\(?:def|edef|gdef|xdef|let|newcommand|renewcommand|providecommand|input|include|catcode|csname|"
    r"expandafter|write|immediate|openout|read|loop|repeat)(?![a-zA-Z])"
)
_DROP = re.compile(
    r"\\(?:left|right|bigl|bigr|Bigl|Bigr|biggl|biggr|big|Big|bigg|Bigg|displaystyle|textstyle|limits)"
    r"(?![a-zA-Z])|\\[,;:! ]|\\q?quad(?![a-zA-Z])|~"
)
_GREEK_VARIANTS = {"varepsilon": "epsilon", "varphi": "phi", "vartheta": "theta", "varrho": "rho",
                   "varsigma": "sigma", "varpi": "pi"}
_UNICODE = {"ψ": r"\psi ", "θ": r"\theta ", "λ": r"\lambda ", "μ": r"\mu ", "ρ": r"\rho ", "Ω": r"\Omega ",
            "ω": r"\omega ", "π": r"\pi ", "α": r"\alpha ", "β": r"\beta ", "γ": r"\gamma ", "κ": r"\kappa ",
            "ε": r"\epsilon ", "φ": r"\phi ", "σ": r"\sigma ", "τ": r"\tau ", "∂": r"\partial ",
            "·": r"\cdot ", "×": r"\times ", "−": "-", "–": "-", "≈": "=", "²": "^2", "³": "^3",
            "√": r"\sqrt "}
_WRAPPERS = re.compile(r"\\(?:mathbf|boldsymbol|vec|bm|mathrm|text|textrm|mathit|operatorname|mathcal)\s*"
                       r"\{([^{}]*)\}")
_MATH_WORDS = frozenset("sin cos tan cot sec csc exp log ln sinh cosh tanh arcsin arccos arctan max min "
                        "sqrt frac cdot".split())
_SYMBOL = r"(?:\\[a-zA-Z]+|[a-zA-Z])(?:_\{[^{}]*\}|_\\?[a-zA-Z0-9]+)?"


class SymbolicInputError(GradingError, ValueError):
    """Input refused before parsing; `kind` is an annotation (parse failure / format violation)."""

    side: str  # "gold" or "pred" once prepare() has seen which side was refused (unset before)

    def __init__(self, message: str, kind: str = PARSE_FAILURE) -> None:
        super().__init__(message)
        self.kind = kind


def _max_depth(text: str) -> int:
    """Deepest nesting of (), [], {} in text."""
    depth = deepest = 0
    for char in text:
        if char in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in ")]}":
            depth -= 1
    return deepest


def _guard(text: str) -> None:
    """Refuse input that could hang or abuse the parser; cheap string checks only."""
    if len(text) > MAX_SYMBOLIC_CHARS:
        raise SymbolicInputError(f"input longer than {MAX_SYMBOLIC_CHARS} characters")
    if re.search(r"\\Upsilon(?![a-zA-Z])", text):  # our placeholder symbol: typed in, it could match a derivative
        raise SymbolicInputError("\\Upsilon is reserved by the grader")
    if _FORBIDDEN.search(text):
        raise SymbolicInputError("TeX macro definitions and file commands are not accepted")
    if _max_depth(text) > MAX_NESTING:
        raise SymbolicInputError(f"nesting deeper than {MAX_NESTING}")
    if re.search(r"(?:\^|\*\*)\s*\{?\s*[-+]?\s*\d{%d,}" % (MAX_EXPONENT_DIGITS + 1), text):
        raise SymbolicInputError(f"integer exponent with more than {MAX_EXPONENT_DIGITS} digits")
    if re.search(r"(?:\^|\*\*)\s*\{[^{}]*\d[^{}]*(?:\^|\*\*)", text) and re.search(r"\d\s*(?:\^|\*\*)", text):
        raise SymbolicInputError("nested numeric exponents are not accepted")
    if re.search(r"__|\bimport\b|\blambda\s*:|\beval\b|\bexec\b|\bos\.", text):
        raise SymbolicInputError("looks like code, not mathematics", FORMAT_VIOLATION)


def _strip_trailing_unit(text: str) -> str:
    """Drop a trailing ``\\,\\mathrm{km/s}``/``\\text{ nT}`` unit (antlr chokes on them)."""
    match = re.search(r"(\\[,;]|~|\s)?\s*\\(?:text|mathrm|rm|textrm|mbox)\s*\{([^{}]*)\}\s*$", text)
    if match is None:
        return text
    content = match.group(2).strip()
    if len(re.findall(r"[a-zA-Z]", content)) >= 2 or (match.group(1) and _is_unit(content)):
        return text[:match.start()]
    return text


def _is_unit(text: str) -> bool:
    """True when text parses as a physical unit."""
    try:
        return parse_unit(text) is not None
    except UnitError:
        return False


def _prose(text: str) -> bool:
    """True when the answer has running words outside LaTeX commands (prose in a symbolic answer)."""
    bare = re.sub(r"\\[a-zA-Z]+|_\{[^{}]*\}|\{[^{}]*\}", " ", text)
    words = [w for w in re.findall(r"[A-Za-z]{3,}", bare) if w.lower() not in _MATH_WORDS]
    return len(words) >= 2


def _partial_key(order: str, func: str, var: str) -> str:
    """Canonical key for a partial derivative, so ∂_t n and \\frac{\\partial n}{\\partial t} agree."""
    def squash(text: str) -> str:
        return re.sub(r"[{}\s]", "", text)

    return f"d{order or '1'}:{squash(func)}/{squash(var)}"


def _placeholders(text: str, table: dict[str, str]) -> str:
    """Replace derivatives (and ∇) by placeholder symbols shared through `table` by pred and gold."""
    def name(key: str) -> str:
        return table.setdefault(key, f"\\Upsilon_{{{900 + len(table)}}}")

    frac = re.compile(r"\\frac\s*\{\s*\\?(partial|mathrm\{d\}|d)\s*(?:\^\s*\{?(\d)\}?)?\s*(%s)\s*\}\s*"
                      r"\{\s*\\?(?:partial|mathrm\{d\}|d)\s*(%s)\s*(?:\^\s*\{?\d\}?)?\s*\}"
                      % (_SYMBOL, _SYMBOL))
    text = frac.sub(lambda m: " " + name(_partial_key(m[2], m[3], m[4])) + " ", text)
    sub = re.compile(r"\\partial_\{?\s*(%s)\s*\}?\s*(%s)" % (_SYMBOL, _SYMBOL))
    text = sub.sub(lambda m: " " + name(_partial_key("", m[2], m[1])) + " ", text)
    return text


_FUNCTION_COMMANDS = frozenset(
    "sin cos tan cot sec csc sinh cosh tanh coth arcsin arccos arctan arccot exp log ln lg sqrt frac det "
    "max min operatorname mathrm text cdot times".split()
)
_CALL = re.compile(r"(?<![\\a-zA-Z])(%s)\s*\(" % _SYMBOL)


def _matching_paren(text: str, start: int) -> int:
    """Index of the ')' closing the '(' at start, or -1."""
    depth = 0
    for index in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[index], 0)
        if depth == 0:
            return index
    return -1


def _explicit_products(text: str) -> str:
    """Insert ``\\cdot`` in ``\\beta_0 (1+x)`` (antlr reads it as a function call of beta_0).

    Kept as calls (a named quantity such as ``n(r)``, ``n(r,\\theta)``): a single bare symbol or a
    comma list as argument; known functions (``\\sin(x)``) are never touched.
    """
    out, pos = [], 0
    for match in _CALL.finditer(text):
        head = match.group(1)
        command = re.match(r"\\([a-zA-Z]+)", head)  # a head starting with \ is always a command (_SYMBOL)
        if command is not None and command[1] in _FUNCTION_COMMANDS:
            continue
        open_at = match.end() - 1
        close_at = _matching_paren(text, open_at)
        inner = text[open_at + 1:close_at] if close_at > 0 else ""
        top_comma = "," in re.sub(r"\([^()]*\)|\{[^{}]*\}", "", inner)
        if top_comma or re.fullmatch(r"\s*%s\s*" % _SYMBOL, inner):
            continue
        out.append(text[pos:match.end(1)] + " \\cdot ")
        pos = match.end(1)
    out.append(text[pos:])
    return "".join(out)


def clean_latex(text: str, table: dict[str, str], vector_mode: bool = False) -> str:
    """Normalise one LaTeX leaf for the parser (see module docstring); raises SymbolicInputError."""
    _guard(text)
    s = normalise_answer(text.strip().strip("$").strip())
    for char, repl in _UNICODE.items():
        s = s.replace(char, repl)
    s = _strip_trailing_unit(s)
    s = re.sub(r"\\(?:dot|ddot)\s*(?:\{([^{}]*)\}|([a-zA-Z]))",
               lambda m: " " + _placeholder(table, _partial_key("", (m[1] or m[2]).strip(), "t")) + " ", s)
    try:
        s = replace_vectors(s, lambda key: _placeholder(table, key), vector_mode)
    except OpaqueVector as exc:
        raise SymbolicInputError(str(exc), NONCOMMUTATIVE) from exc
    s = _WRAPPERS.sub(r"\1", s)
    s = _DROP.sub(" ", s)
    s = re.sub(r"\\([a-zA-Z]+)", lambda m: "\\" + _GREEK_VARIANTS.get(m[1], m[1]), s)
    s = _placeholders(s, table)
    s = _explicit_products(s.strip())
    s = re.sub(r"[.,;]\s*$", "", s).strip()
    if not s:
        raise SymbolicInputError("empty after cleaning")
    return s


def _placeholder(table: dict[str, str], key: str) -> str:
    """The placeholder symbol for `key`, shared by prediction and gold through `table`."""
    return table.setdefault(key, f"\\Upsilon_{{{900 + len(table)}}}")


def _pre(text: str) -> str:
    """Answer-level normalisation before the kind is decided (no leaf cleaning yet)."""
    s = normalise_answer(text.strip().strip("$").strip())
    s = re.sub(r"\\(?:approx|simeq|equiv)(?![a-zA-Z])", "=", s)
    s = re.sub(r"\\(?:left|right)(?=[()\[\]|.]|\\[{}])", "", s)
    s = re.sub(r"\\right\.|\\left\.", "", s)
    return _strip_trailing_unit(s.replace("≈", "=").replace("≤", "\\le ").replace("≥", "\\ge ")).strip()


def _clean_answer(answer: Answer, table: dict[str, str], vector_mode: bool) -> Answer:
    """Clean every LaTeX leaf of a decided answer."""
    if answer.kind in ("list", "set") and answer.parts and isinstance(answer.parts[0], Answer):
        return replace(answer, parts=tuple(_clean_answer(p, table, vector_mode) for p in answer.parts))
    if answer.kind == "matrix":
        return replace(answer, rows=tuple(tuple(clean_latex(c, table, vector_mode) for c in row)
                                          for row in answer.rows))
    return replace(answer, parts=tuple(clean_latex(p, table, vector_mode) if isinstance(p, str) else p
                                       for p in answer.parts),
                   var=clean_latex(answer.var, table, vector_mode) if answer.var else "")


def prepare(pred: str, gold: str) -> tuple[Answer, Answer, dict[str, str]]:
    """Decide both answers' kinds and clean their leaves with one shared placeholder table.

    Raises SymbolicInputError (with ``.side`` = "gold" or "pred") when either is refused.
    """
    table: dict[str, str] = {}
    vector_mode = has_vectors(pred) or has_vectors(gold)
    answers = []
    for side, text in (("gold", gold), ("pred", pred)):
        try:
            _guard(text)
            pre = _pre(text)
            if _prose(re.sub(r"\\text\{\s*(?:or|and)\s*\}|\\in(?![a-zA-Z])", " ", pre)):
                raise SymbolicInputError("prose in a symbolic answer", FORMAT_VIOLATION)
            try:
                decided = decide(pre)
            except (ValueError, RecursionError) as exc:
                raise SymbolicInputError(str(exc) or type(exc).__name__) from exc
            answers.append(_clean_answer(decided, table, vector_mode))
        except SymbolicInputError as exc:
            exc.side = side
            raise
    return answers[1], answers[0], table


def check_symbolic(pred: str, gold: str, timeout_s: float = DEFAULT_TIMEOUT_S) -> CheckResult:
    """Grade a LaTeX answer for mathematical equivalence (runs inside the grading worker)."""
    def result(verdict: Verdict, reason: str, notes: list[str], p: str = pred, g: str = gold) -> CheckResult:
        return CheckResult(verdict=verdict, type="symbolic", reason=reason, pred_norm=p, gt_norm=g,
                           stage="symbolic", annotations=notes)

    try:
        pred_answer, gold_answer, table = prepare(pred, gold)
    except SymbolicInputError as exc:
        if getattr(exc, "side", "gold") == "gold":
            return result("not_sure", f"unscored gold: {exc}", [UNSCORED_GOLD])
        if exc.kind == NONCOMMUTATIVE:
            return result("not_sure", f"not compared: {exc}", [PARSE_FAILURE])
        verdict: Verdict = "incorrect" if exc.kind == FORMAT_VIOLATION else "not_sure"
        return result(verdict, f"{exc.kind}: {exc}", [exc.kind])
    from ifworld.rws.grading.answercompare import compare_answers  # sympy: imported in the worker only

    reply = compare_answers(pred_answer, gold_answer, table, budget_s=timeout_s)
    return result(reply["verdict"], reply["reason"], list(reply.get("annotations", [])),
                  reply.get("pred_norm", pred), reply.get("gt_norm", gold))
