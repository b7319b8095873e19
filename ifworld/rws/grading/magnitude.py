"""The number in a numeric answer: a tiny, bounded arithmetic reader (no eval, no sympy, no pint).

Reads the magnitude at the front of ``\\frac{\\pi}{4} rad``, ``3\\times10^{5} m``, ``\\sqrt{17}``,
``2.5e-3 T``, ``(1+2)/2`` and says where it ended, so the rest can be read as a unit. Why not pint's
parser: pint reads ``\\pi/4 rad`` as ``4 rad`` and evaluates anything; why not sympy: the numeric stage
must stay cheap. Exponents are capped and overflow is refused, so ``1e400`` is an error, not a crash.
"""

from __future__ import annotations

import math
import re

from ifworld.errors import GradingError

MAX_EXPONENT = 400
"""Decimal exponents beyond this are refused (a float cannot hold them anyway)."""
MAX_DEPTH = 40
"""Deeper nesting of brackets/fractions is refused."""

_SKIP = re.compile(r"(?:\s|\\[,;:! ]|~|\\left(?![a-zA-Z])|\\right(?![a-zA-Z])|\\displaystyle)+")
_NUM = re.compile(r"(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+−]?\d+)?")
_TIMES = re.compile(r"\\times(?![a-zA-Z])|\\cdot(?![a-zA-Z])|×|·|\*(?!\*)|x(?=\s*10\b)")
_STARTS = re.compile(r"[-+−]?\s*(?:\d|\.\d|\\pi(?![a-zA-Z])|π|\\sqrt|\\frac|\((?=\s*[-\d.\\π]))")


class MagnitudeError(GradingError, ValueError):
    """A magnitude we refuse (out of range, too deep) — reported, never a crash."""


class _Reader:
    """Recursive-descent reader over one string; `pos` advances as tokens are consumed."""

    def __init__(self, text: str, pos: int = 0) -> None:
        self.text = text
        self.pos = pos
        self.depth = 0
        self.numbers = 0

    # -- tokens ---------------------------------------------------------------------------------
    def _skip(self) -> None:
        match = _SKIP.match(self.text, self.pos)
        if match:
            self.pos = match.end()

    def _peek(self, pattern: str | re.Pattern) -> re.Match | None:
        self._skip()
        regex = re.compile(pattern) if isinstance(pattern, str) else pattern
        return regex.match(self.text, self.pos)

    def _take(self, pattern: str | re.Pattern) -> re.Match | None:
        match = self._peek(pattern)
        if match:
            self.pos = match.end()
        return match

    def _starts_primary(self) -> bool:
        return self._peek(r"\d|\.\d|\\pi(?![a-zA-Z])|π|\\sqrt|\\frac|\(|\{") is not None

    # -- grammar --------------------------------------------------------------------------------
    def expr(self) -> float:
        value = self.term()
        while True:
            save = self.pos
            op = self._take(r"\+|-(?!-)|−")
            if op is None:
                return value
            if not self._starts_primary():
                self.pos = save
                return value
            rhs = self.term()
            value = value + rhs if op.group(0) == "+" else value - rhs

    def term(self) -> float:
        value = self.unary()
        while True:
            save = self.pos
            op = self._take(_TIMES) or self._take(r"/")
            if op is not None:
                if not self._starts_primary() and self._peek(r"[-+−]") is None:
                    self.pos = save
                    return value
                rhs = self.unary()
                if op.group(0) == "/":
                    if rhs == 0:
                        raise MagnitudeError("division by zero")
                    value = value / rhs
                else:
                    value = value * rhs
                continue
            if self._peek(r"\\pi(?![a-zA-Z])|π|\\sqrt|\\frac|\(") is not None:  # implicit: 2\pi, 3\sqrt{2}
                value = value * self.unary()
                continue
            return value

    def unary(self) -> float:
        sign = self._take(r"[-+−]")
        value = self.unary() if sign else self.power()
        return -value if sign and sign.group(0) in "-−" else value

    def power(self) -> float:
        base = self.primary()
        save = self.pos
        if self._take(r"\^|\*\*") is None:
            return base
        try:
            exponent = self._group_body("}") if self._take(r"\{") else self.unary()
        except MagnitudeError as exc:
            if "out of range" in str(exc):
                raise
            self.pos = save  # ``45^\circ``: the caret belongs to the unit
            return base
        return _pow(base, exponent)

    def primary(self) -> float:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise MagnitudeError(f"nesting deeper than {MAX_DEPTH}")
        try:
            return self._primary()
        finally:
            self.depth -= 1

    def _primary(self) -> float:
        number = self._take(_NUM)
        if number:
            self.numbers += 1
            return _literal(number.group(0))
        if self._take(r"\\pi(?![a-zA-Z])|π"):
            self.numbers += 1
            return math.pi
        if self._take(r"\\sqrt"):
            if self._take(r"\["):
                degree = self._group_body("]")
                return _pow(self._braced(), 1.0 / degree) if degree else _fail("zeroth root")
            radicand = self._braced()
            if radicand < 0:
                raise MagnitudeError("square root of a negative number")
            return math.sqrt(radicand)
        if self._take(r"\\frac"):
            num, den = self._braced(), self._braced()
            if den == 0:
                raise MagnitudeError("division by zero")
            return num / den
        if self._take(r"\("):
            return self._group_body(")")
        if self._take(r"\{"):
            return self._group_body("}")
        raise MagnitudeError("expected a number")

    def _braced(self) -> float:
        if self._take(r"\{") is None:
            return self.primary()
        return self._group_body("}")

    def _group_body(self, close: str) -> float:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise MagnitudeError(f"nesting deeper than {MAX_DEPTH}")
        value = self.expr()
        if self._take(re.escape(close)) is None:
            raise MagnitudeError(f"missing {close!r}")
        self.depth -= 1
        return value


def _fail(message: str) -> float:
    raise MagnitudeError(message)


def _literal(text: str) -> float:
    """A decimal literal, refusing exponents beyond :data:`MAX_EXPONENT` before float() sees them."""
    text = text.replace("−", "-")
    match = re.search(r"[eE]([-+]?\d+)$", text)
    if match and abs(int(match.group(1))) > MAX_EXPONENT:
        raise MagnitudeError(f"exponent {match.group(1)} out of range")
    value = float(text)
    if not math.isfinite(value):
        raise MagnitudeError("number out of range")
    return value


def _pow(base: float, exponent: float) -> float:
    """base**exponent with the exponent capped and overflow reported (never OverflowError)."""
    if abs(exponent) > MAX_EXPONENT and abs(base) not in (0.0, 1.0):
        raise MagnitudeError(f"exponent {exponent:g} out of range")
    try:
        value = math.pow(base, exponent)
    except (OverflowError, ValueError) as exc:
        raise MagnitudeError(f"cannot compute {base:g}^{exponent:g}") from exc
    if not math.isfinite(value):
        raise MagnitudeError("number out of range")
    return value


def read_magnitude(text: str, start: int = 0) -> tuple[float, int]:
    """Read the arithmetic magnitude starting at `start`: (value, end). Raises MagnitudeError."""
    reader = _Reader(text, start)
    value = reader.expr()
    if reader.numbers == 0:
        raise MagnitudeError("expected a number")
    if not math.isfinite(value):
        raise MagnitudeError("number out of range")
    return value, reader.pos


def find_magnitude(text: str) -> tuple[float, int, int] | None:
    """The first readable magnitude in text (prose allowed before it): (value, start, end), or None.

    Raises MagnitudeError when the first number found is out of range (so the caller can say why).
    """
    for match in _STARTS.finditer(text):
        start = match.start()
        if start > 0 and re.match(r"[A-Za-z_^]", text[start - 1]) and text[start].isdigit():
            continue  # a digit glued to a word (``R2``, ``x_2``) is not a value
        if _EXPONENT_BEFORE.search(text, 0, start) or _inside_exponent(text, start):
            continue  # ``e^{100}``: a number in an exponent or subscript is not the value
        try:
            value, end = read_magnitude(text, start)
        except MagnitudeError as exc:
            if any(word in str(exc) for word in _FINAL_ERRORS):
                raise
            continue
        return value, start, end
    return None


_EXPONENT_BEFORE = re.compile(r"[\^_]\s*\{?\s*[-+−]?\s*\Z")
_FINAL_ERRORS = ("out of range", "cannot compute", "division by zero", "negative number", "zeroth root")
"""A number that starts a value but cannot be computed ends the search: ``1/0`` is not read as the ``0``."""


def _inside_exponent(text: str, start: int) -> bool:
    """True when `start` lies inside the braces of a ``^{…}`` or ``_{…}`` group."""
    depth_openers: list[bool] = []
    index = 0
    while index < start:
        char = text[index]
        if char == "{":
            depth_openers.append(bool(re.search(r"[\^_]\s*\Z", text[max(0, index - 3):index])))
        elif char == "}" and depth_openers:
            depth_openers.pop()
        index += 1
    return any(depth_openers)
