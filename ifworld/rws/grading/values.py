"""The value of a numeric answer, read twice: by our unit path and by Math-Verify.

Our reader (:func:`ifworld.rws.grading.units.parse_scalar`) finds where the number ends so the rest can be
read as a unit. When the number is more than a decimal literal (``\\frac{\\pi}{4}``, ``\\sqrt{17}``, ``2,74``)
Math-Verify reads the same characters too; if the two values differ the verdict is not_sure with both
readings — never a silent "correct". When our reader finds no number at all (``e^{100}``, ``\\ln 2``) Math-Verify's
value is used, and a value neither can evaluate (``e^{e^{e^{42}}}``, ``1/0``) is never correct.
"""

from __future__ import annotations

import re

from ifworld.rws.grading.notation import RefusedInput, guard
from ifworld.rws.grading.units import Scalar, UnitError, parse_scalar, split_label

PLAIN_NUMBER = re.compile(r"[-+−]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+−]?\d+)?"
                          r"(?:\s*(?:\\times|\\cdot|×|·)\s*10\s*\^\s*\{?\s*[-+−]?\d+\s*\}?)?")
"""A decimal literal, possibly in scientific notation: both readers agree on it by construction."""
AGREE_REL = 1e-6
"""Two readings of one value agree within this relative difference."""


def _mathverify_number(text: str) -> tuple[complex | None, str]:
    """Math-Verify's value of `text` (None when it reads none) and what it read."""
    from ifworld.rws.grading import mathverify  # sympy: in the worker only, on first use

    try:
        guard(text)
    except RefusedInput as exc:
        raise UnitError(f"cannot evaluate: {exc}") from exc
    latex = bool(re.search(r"[\\{}^]", text))
    reading = mathverify.read(f"${text}$" if latex else text, latex)
    if reading.value is not None and getattr(reading.value, "has", None) is not None:
        import sympy

        if reading.value.has(sympy.zoo, sympy.nan):
            raise UnitError("undefined (division by zero)")
    return mathverify.as_number(reading), reading.text


def _arithmetic(segment: str) -> Scalar | None:
    """A value typed as plain arithmetic (``5 - 5*i**2``, ``2*10**3``): read by sympy's parser, no unit."""
    from ifworld.rws.grading import plaintext

    label, body = split_label(segment)
    if not plaintext.ARITHMETIC.fullmatch(body.strip()):
        return None
    try:
        guard(body)
        number = plaintext.number(body)
    except (RefusedInput, plaintext.NotPlainMaths) as exc:
        raise UnitError(f"cannot evaluate: {exc}") from exc
    if number is None:
        return None
    if abs(number.imag) > AGREE_REL * max(1.0, abs(number)):
        raise UnitError("not a real number")
    return Scalar(value=number.real, unit=None, label=re.sub(r"[\\{}\s$]", "", label)[:20], text=segment.strip())


def read_value(segment: str) -> Scalar:
    """One value with its unit; Math-Verify's reading when ours finds no number. Raises UnitError."""
    typed = _arithmetic(segment)
    if typed is not None:
        return typed
    try:
        return parse_scalar(segment)
    except UnitError as exc:
        if "no number found" not in str(exc):
            raise
    label, body = split_label(segment)
    number, shown = _mathverify_number(body.strip())
    if number is None:
        raise UnitError(f"no number found (Math-Verify read {shown!r} and cannot evaluate it)" if shown
                        else "no number found")
    if abs(number.imag) > AGREE_REL * max(1.0, abs(number)):
        raise UnitError("not a real number")
    return Scalar(value=number.real, unit=None, label=re.sub(r"[\\{}\s$]", "", label)[:20], text=segment.strip(),
                  number=body.strip())


def cross_check(scalar: Scalar) -> str:
    """"" when Math-Verify reads the same value from the number's text (or reads none), else both readings."""
    text = re.sub(r"\\[,;:! ]|~|\s+", " ", scalar.number).strip()
    if not text or PLAIN_NUMBER.fullmatch(text):
        return ""
    try:
        number, shown = _mathverify_number(text)
    except UnitError as exc:
        return f"Math-Verify cannot evaluate {text!r} ({exc}); our unit path read {scalar.value:.6g}"
    if number is None or abs(number.imag) > AGREE_REL * max(1.0, abs(number)):
        return ""
    if abs(number.real - scalar.value) <= AGREE_REL * max(abs(number.real), abs(scalar.value), 1e-300):
        return ""
    return (f"the readings disagree: Math-Verify reads {shown!r} as {number.real:.6g}, our unit path as "
            f"{scalar.value:.6g}")


_ARITHMETIC = re.compile(r"(?:[\d\s.+\-−*/()×·^{}]|\\(?:times|cdot|frac|dfrac|tfrac|sqrt|left|right)(?![a-zA-Z]))+")
"""A side of a link that is arithmetic on numbers only (``3 \\times 14``, ``\\frac{84}{2}``): it has a value."""
_OPERATOR = re.compile(r"[+\-−*/×·^]|\\(?:times|cdot|frac|dfrac|tfrac|sqrt)")


def _half_unit(literal: str) -> float:
    """Half a unit of the last digit a decimal literal writes (``44`` → 0.5, ``1.41`` → 0.005); 0 for others."""
    match = re.fullmatch(r"\s*[-+−]?\d+(?:\.(\d+))?(?:\s*(?:\\times|×|\\cdot)\s*10\^\{?([-+−]?\d+)\}?)?\s*", literal)
    if match is None:
        return 0.0
    places = len(match[1] or "")
    power = int((match[2] or "0").replace("−", "-"))
    return 0.5 * 10.0 ** (power - places)


def false_link(scalar: Scalar) -> str:
    """A link of chained working that is false, as written (``3 \\times 14 = 44``), or "".

    ``v = 3 \\times 14 = 44 m/s`` ends in the right value, but its working says 42 = 44. Each link whose left side
    is arithmetic on numbers must hold within half a unit of the right side's last written digit (or exactly,
    when the right side is itself arithmetic); links with names (``v = …``) are left alone.
    """
    parts = [part.strip() for part in re.split(r"(?<![<>!\\])=(?!=)", scalar.text.replace("$", " "))]
    if len(parts) < 2:
        return ""
    for index, (left, right) in enumerate(zip(parts, parts[1:], strict=False)):
        last = index == len(parts) - 2
        if not (_ARITHMETIC.fullmatch(left) and _OPERATOR.search(left)):
            continue
        if not last and not _ARITHMETIC.fullmatch(right):
            continue
        try:
            a, _ = _mathverify_number(left)
            b = complex(scalar.value) if last else _mathverify_number(right)[0]
        except UnitError:
            continue
        if a is None or b is None:
            continue
        written = scalar.number if last else right
        allowed = max(_half_unit(written), 1e-9 * max(abs(a), abs(b)))
        if abs(a - b) > allowed * (1 + 1e-9):
            shown = written if last else right
            return f"{left} = {shown}"
    return ""
