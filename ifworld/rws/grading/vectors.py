"""Vectors and operators stay non-commutative: ``\\mathbf B\\times\\mathbf v`` is not ``\\mathbf v\\times\\mathbf B``.

sympy's LaTeX parser reads ``\\times`` and ``\\cdot`` as ordinary (commutative) multiplication and ``\\nabla``
as a symbol, which makes ``-\\mathbf B\\times\\mathbf v`` "equal" to ``-\\mathbf v\\times\\mathbf B`` — a
false "correct". Before parsing we therefore replace each vector construct we understand by a placeholder
symbol shared between prediction and gold (the same mechanism as derivatives in :mod:`ifworld.rws.grading.symbolic`):

* ``A \\times B`` of two atoms → ``+X`` or ``-X`` where X names the *ordered* pair (anti-commutative);
* ``A \\cdot B`` of two atoms, one a vector → a symmetric placeholder (the dot product commutes);
* ``\\nabla\\times A``, ``\\nabla\\cdot A``, ``\\nabla^2 A``, ``\\nabla A``, ``(A\\cdot\\nabla) B`` → one
  placeholder per operator and operand;
* any other vector product or leftover ``\\nabla`` → :class:`OpaqueVector` (the caller answers not_sure:
  we cannot order it, and guessing could say "correct" wrongly).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ifworld.errors import GradingError

_MARKUP = re.compile(r"\\(?:mathbf|vec|boldsymbol|bm|overrightarrow|hat|mathbfit)\s*"
                     r"(?:\{([^{}]*)\}|(\\[a-zA-Z]+|[a-zA-Z]))")
_SUB = r"(?:_\{[^{}]*\}|_\\?[a-zA-Z0-9]+)?"
_VEC = r"\\vv\{[^{}]*\}" + _SUB
_ATOM = r"(?:%s|(?:\\(?!times|cdot|nabla|vv)[a-zA-Z]+|[a-zA-Z])%s)" % (_VEC, _SUB)
_GROUP = r"\((?:[^()]|\([^()]*\))*\)"
_OPERAND = r"(?:%s|%s)" % (_ATOM, _GROUP)


class OpaqueVector(GradingError, ValueError):
    """A vector/operator construct we cannot compare safely (answer not_sure)."""


def has_vectors(text: str) -> bool:
    """True when text uses vector markup, ``\\nabla`` or a ``\\times`` between letters (not ``3\\times10^5``)."""
    if _MARKUP.search(text) or re.search(r"\\nabla(?![a-zA-Z])|∇", text):
        return True
    return re.search(r"[a-zA-Z}]\s*(?:\\times|×)\s*\\?[a-zA-Z]", text) is not None


def _squash(text: str) -> str:
    return re.sub(r"[\s{}]|\\vv", "", text)


def mark_vectors(text: str) -> str:
    """Rewrite every vector markup to ``\\vv{X}`` so one pattern finds them (``\\hat z`` included)."""
    s = text.replace("∇", "\\nabla ").replace("×", "\\times ")
    return _MARKUP.sub(lambda m: "\\vv{" + (m.group(1) if m.group(1) is not None else m.group(2)).strip() + "}", s)


def replace_vectors(text: str, name: Callable[[str], str], vector_mode: bool) -> str:
    """Apply the placeholders described in the module docstring; `name(key)` returns a placeholder symbol.

    In `vector_mode` (either side used vector markup) every ``\\times`` between atoms is a cross product;
    otherwise ``a \\times b`` of plain letters stays a product.
    """
    s = mark_vectors(text)

    def ph(key: str) -> str:
        return " " + name(key) + " "

    s = re.sub(r"\(\s*(%s)\s*\\cdot\s*\\nabla\s*\)\s*(%s)" % (_ATOM, _OPERAND),
               lambda m: ph(f"advect:{_squash(m[1])}:{_squash(m[2])}"), s)
    s = re.sub(r"\\nabla\s*\\times\s*(%s)" % _OPERAND, lambda m: ph(f"curl:{_squash(m[1])}"), s)
    s = re.sub(r"\\nabla\s*\\cdot\s*(%s)" % _OPERAND, lambda m: ph(f"div:{_squash(m[1])}"), s)
    s = re.sub(r"\\nabla\s*\^\s*\{?2\}?\s*(%s)" % _OPERAND, lambda m: ph(f"lap:{_squash(m[1])}"), s)
    s = re.sub(r"\\nabla\s*(%s)" % _OPERAND, lambda m: ph(f"grad:{_squash(m[1])}"), s)
    if re.search(r"\\nabla(?![a-zA-Z])", s):
        raise OpaqueVector("an operator (\\nabla) we cannot order")

    def cross(m: re.Match) -> str:
        a, b = _squash(m[1]), _squash(m[2])
        if not vector_mode and "\\vv" not in m[0]:
            return m[0].replace("\\times", "\\cdot")
        if a == b:
            return " 0 "
        first, second = sorted((a, b))
        sign = "" if (a, b) == (first, second) else "-"
        return f" ({sign}" + name(f"cross:{first}:{second}") + ") "

    def dot(m: re.Match) -> str:
        if "\\vv" not in m[0]:
            return m[0]
        first, second = sorted((_squash(m[1]), _squash(m[2])))
        return ph(f"dot:{first}:{second}")

    for _ in range(3):  # left-to-right chains are refused below; one product per pass is enough here
        s = re.sub(r"(%s)\s*\\times\s*(%s)" % (_OPERAND, _OPERAND), cross, s, count=1) if "\\times" in s else s
    s = re.sub(r"(%s)\s*\\cdot\s*(%s)" % (_OPERAND, _OPERAND), dot, s)
    if re.search(r"\\times", s) and (vector_mode or "\\vv" in s):
        raise OpaqueVector("a cross product of compound terms we cannot order")
    if re.search(r"%s\s*\\cdot\s*%s" % (_VEC, _VEC), s):
        raise OpaqueVector("a dot product of compound terms")
    return re.sub(r"\\vv\{([^{}]*)\}", lambda m: ph("vec:" + m[1].strip()), s)
