"""The one number formatter for what-if output: page tables, charts, Markdown and HTML all call these.

A probability is stored once, as a percentage 0–100 (``probability_pct``); a confidence once, as a fraction
0–1. These functions only format — they never guess a scale — so the same value reads the same everywhere
("0.5 %" is never "0 %" in one place and "50 %" in another).
"""

from __future__ import annotations

import math
from typing import Any

SIGNIFICANT_DIGITS = 3
PLAIN_RANGE = (1e-3, 1e6)  # outside this, scientific notation


def _float(value: Any) -> float | None:
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def num(value: Any, sig: int = SIGNIFICANT_DIGITS) -> str:
    """A number with ``sig`` significant digits, thousands separators, no trailing zeros ("1,250", "0.125").

    Text that is not a number is returned unchanged (models write "2-6" where a number was asked for).
    """
    x = _float(value)
    if x is None:
        return "" if value is None else str(value)
    if x == 0:
        return "0"
    if not PLAIN_RANGE[0] <= abs(x) < PLAIN_RANGE[1]:
        mantissa, exponent = f"{x:.{sig - 1}e}".split("e")
        mantissa = mantissa.rstrip("0").rstrip(".") if "." in mantissa else mantissa
        return f"{mantissa}e{int(exponent)}"
    decimals = max(0, sig - 1 - math.floor(math.log10(abs(x))))
    text = f"{round(x, decimals):,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def pct(value: Any) -> str:
    """A percentage 0–100 as text with at most one decimal ("55 %", "99.5 %", "0.5 %", "33.3 %")."""
    x = _float(value)
    if x is None:
        return ""
    if 0 < abs(x) < 0.05:
        return "<0.1 %" if x > 0 else "-<0.1 %"
    text = f"{x:.1f}".rstrip("0").rstrip(".")  # one decimal at most: 99.5 % must not read as 100 %
    return f"{text} %"


def confidence(value: Any) -> str:
    """A confidence fraction 0–1 as a percentage ("0.8" → "80 %")."""
    x = _float(value)
    return "" if x is None else pct(100 * x)


def interval(pair: Any, unit: str = "") -> str:
    """``[low, high]`` as "low–high unit" (empty text for a missing or malformed pair)."""
    if not isinstance(pair, list | tuple) or len(pair) < 2:
        return ""
    text = f"{num(pair[0])}–{num(pair[1])}"
    return f"{text} {unit}".strip() if unit else text
