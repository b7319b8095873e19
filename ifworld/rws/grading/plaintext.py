"""Plain-text maths (``tan(psi) = Omega*r/V``, ``v = sqrt(2*G*M/r)``, ``x**2``) → LaTeX for Math-Verify.

Models often answer a symbolic item in calculator notation. We read it with sympy's ``parse_expr`` (its standard
transformations, implicit multiplication and ``^`` as power) and print it back as LaTeX, so it is compared
exactly like a LaTeX answer. ``parse_expr`` evaluates generated Python, so the text is checked first: only
digits, letters, ``_``, spaces and ``+-*/^().,=<>!`` pass, no dunder, no attribute access, no keyword, at most
:data:`MAX_PLAIN_CHARS` characters and :data:`MAX_NESTING` levels; names become symbols unless they are in our
whitelist of functions and constants, and the evaluation sees no builtins. Nothing is evaluated
(``evaluate=False``), so ``2**10**10`` stays a tree (and towers are refused earlier anyway).
"""

from __future__ import annotations

import keyword
import re
from typing import Any

from ifworld.errors import GradingError

MAX_PLAIN_CHARS = 300
MAX_NESTING = 20
GREEK = frozenset(
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon "
    "phi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega lamda".split())
"""``lamda`` is sympy's spelling of λ (``lambda`` is a Python keyword; :func:`_spelled` renames it)."""
FUNCTIONS = {"sin": "sin", "cos": "cos", "tan": "tan", "cot": "cot", "sec": "sec", "csc": "csc",
             "asin": "asin", "acos": "acos", "atan": "atan", "arcsin": "asin", "arccos": "acos",
             "arctan": "atan", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "exp": "exp", "log": "log",
             "ln": "log", "sqrt": "sqrt", "abs": "Abs"}
_BARE_CALL = re.compile(r"\b(%s)\s+([A-Za-z][A-Za-z0-9_]*|\d+(?:\.\d+)?)(?![A-Za-z0-9_(]|\s*(?:\*\*|\^))"
                        % "|".join(FUNCTIONS))
"""A function applied without brackets (``tan psi``, ``ln 2``): sympy's parser would read a product."""
_ALLOWED = re.compile(r"[A-Za-z0-9_ \t+\-*/^().,=<>!]+")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class NotPlainMaths(GradingError, ValueError):
    """The text is not plain-text maths we read (the caller tries LaTeX instead)."""


def looks_plain(text: str) -> bool:
    """True for calculator notation: no backslash, braces or dollars, an operator or a call, not prose."""
    s = text.strip()
    if not s or re.search(r"[\\{}$]", s) or not _ALLOWED.fullmatch(s):
        return False
    words = [w for w in re.findall(r"[A-Za-z]{3,}", s) if w not in GREEK and w not in FUNCTIONS]
    return bool(re.search(r"[*/^=+\-]|[A-Za-z]{2,}\s*\(", s)) and len(words) < 2


def _check(text: str) -> None:
    if len(text) > MAX_PLAIN_CHARS:
        raise NotPlainMaths(f"longer than {MAX_PLAIN_CHARS} characters")
    if not _ALLOWED.fullmatch(text):
        raise NotPlainMaths("characters outside plain maths")
    if "__" in text or re.search(r"(?<!\d)\.|\.(?!\d)", text):
        raise NotPlainMaths("attribute access or dunder")
    depth = deepest = 0
    for char in text:
        depth += char == "("
        depth -= char == ")"
        deepest = max(deepest, depth)
    if deepest > MAX_NESTING or depth != 0:
        raise NotPlainMaths("unbalanced or too deeply nested brackets")
    for word in _WORD.findall(text):
        if keyword.iskeyword(word) or word.startswith("_"):
            raise NotPlainMaths(f"{word!r} is not a maths name")


def _split_name(name: str) -> bool:
    """Split ``GM`` into G·M like LaTeX does; keep Greek names, functions and subscripted names whole."""
    return not (name in GREEK or name in FUNCTIONS or "_" in name or any(c.isdigit() for c in name))


def _parser() -> tuple[dict, tuple]:
    """The whitelisted names and the transformations (implicit products, ``^`` as power)."""
    import sympy
    from sympy.parsing.sympy_parser import (
        convert_xor,
        implicit_multiplication,
        split_symbols_custom,
        standard_transformations,
    )

    allowed = {"Symbol": sympy.Symbol, "Integer": sympy.Integer, "Float": sympy.Float, "Rational": sympy.Rational,
               "Function": sympy.Function, "Add": sympy.Add, "Mul": sympy.Mul, "Pow": sympy.Pow,
               "pi": sympy.pi, "__builtins__": {}}
    allowed.update({name: getattr(sympy, target) for name, target in FUNCTIONS.items()})
    return allowed, (*standard_transformations, split_symbols_custom(_split_name), implicit_multiplication,
                     convert_xor)


def _parse(side: str, local: dict | None = None) -> Any:
    from sympy.parsing.sympy_parser import parse_expr

    allowed, transformations = _parser()
    try:
        return parse_expr(side, local_dict=dict(local or {}), global_dict=allowed, transformations=transformations,
                          evaluate=False)
    except Exception as exc:  # noqa: BLE001 - any parser failure means "not plain maths"
        raise NotPlainMaths(f"{type(exc).__name__}") from exc


def _spelled(text: str) -> str:
    """``tan psi`` as ``tan(psi)`` and ``lambda`` as ``lamda`` — how people type them, as sympy reads them."""
    return _BARE_CALL.sub(r"\1(\2)", re.sub(r"\blambda\b", "lamda", text))


def to_latex(text: str) -> str:
    """Parse plain-text maths safely and print it as LaTeX (raises NotPlainMaths)."""
    import sympy

    s = _spelled(text.strip().rstrip("."))
    _check(s)
    sides = re.split(r"(?<![<>!=])=(?!=)", s)
    if len(sides) > 3:
        raise NotPlainMaths("too many '='")
    exprs = [_parse(side) for side in sides]
    if not all(isinstance(e, sympy.Expr) for e in exprs):
        raise NotPlainMaths("not an expression")
    return " = ".join(sympy.latex(e) for e in exprs)


ARITHMETIC = re.compile(r"[\d\s.+\-*/^()i]*\d[\d\s.+\-*/^()i]*")
"""Plain arithmetic on numbers, with ``i`` at most (``5 - 5*i**2``, ``2*10**3``)."""


def number(text: str) -> complex | None:
    """The value of plain arithmetic (``i`` is the imaginary unit: a numeric answer has no symbols), or None."""
    import sympy

    s = text.strip().rstrip(".")
    if not ARITHMETIC.fullmatch(s) or not re.search(r"\*|\^|(?<![a-z])i(?![a-z])", s):
        return None
    _check(s)
    expr = _parse(s, {"i": sympy.I})
    if not isinstance(expr, sympy.Expr) or expr.free_symbols:
        return None
    try:
        return complex(sympy.N(expr, 20))
    except (TypeError, ValueError, OverflowError, ZeroDivisionError):
        return None
