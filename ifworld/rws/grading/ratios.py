"""Ratios of three or more parts (``5:3:11``), compared part by part — in the grading worker.

Math-Verify reads ``a:b:c`` as ``a/b/c``, a single number in which the order of ``b`` and ``c`` no longer shows:
``5:11:3`` and ``5:3:11`` both become 5/33 and were called equivalent. A ratio of several parts is a list of
proportions, so here two of them are the same when they have as many parts and every part of one is the same
non-zero multiple of the other's (``2:4:8`` is ``1:2:4``). Two-part ratios are left to Math-Verify: ``a:b`` as
``a/b`` loses nothing.
"""

from __future__ import annotations

import re

import sympy

from ifworld.rws.grading import mathverify, notation
from ifworld.rws.grading.extract import strip_wrappers
from ifworld.rws.grading.result import ALGEBRA, FORMAT, CheckResult, Verdict

_PART = r"[-+]?(?:\d+(?:\.\d+)?|[A-Za-z](?:_\{?\w+\}?)?|\\[a-zA-Z]+(?:_\{?\w+\}?)?)"
RATIO = re.compile(rf"(?<![\w:.]){_PART}(?:\s*:\s*{_PART}){{2,}}(?![\w:.])")
"""Three or more parts joined by ``:`` — numbers or single names (``a:b:c``, ``n_e:n_p:n_\\alpha``)."""


def _parts(text: str) -> list[str] | None:
    """The parts of the last several-part ratio in `text` (a label side ``A:B:C =`` set aside), or None."""
    found = RATIO.findall(strip_wrappers(text).replace("$", " "))
    return [part.strip() for part in found[-1].split(":")] if found else None


def check_ratio(answer: str, gold: str) -> CheckResult | None:
    """Grade a several-part ratio part by part; None when the gold is not one (the other stages then)."""
    gold_parts = _parts(gold)
    if gold_parts is None:
        return None
    pred_parts = _parts(answer)
    if pred_parts is None:
        return None

    def result(verdict: Verdict, by: str, reason: str) -> CheckResult:
        return CheckResult(verdict=verdict, type="symbolic", stage="symbolic", decided_by=by, reason=reason,
                           pred_norm=":".join(pred_parts), gt_norm=":".join(gold_parts))

    if len(pred_parts) != len(gold_parts):
        return result("incorrect", FORMAT, f"a ratio of {len(pred_parts)} parts where the reference has "
                      f"{len(gold_parts)}")
    values = []
    for part in (*pred_parts, *gold_parts):
        value = mathverify.read(f"${notation.unicode_latex(part)}$").value
        if not isinstance(value, sympy.Expr) or value == 0:
            return None  # a part we cannot read, or a zero part: Math-Verify's reading decides
        values.append(value)
    preds, golds = values[:len(pred_parts)], values[len(pred_parts):]
    scale = sympy.simplify(preds[0] / golds[0])
    for index, (p, g) in enumerate(zip(preds, golds, strict=True)):
        if sympy.simplify(p - scale * g) != 0:
            return result("incorrect", ALGEBRA, f"ratio compared part by part: part {index + 1} "
                          f"({pred_parts[index]}) does not match {gold_parts[index]} (Math-Verify reads a:b:c as "
                          "a/b/c, where the order of parts is lost)")
    same = "the same parts" if scale == 1 else f"the same proportions (scaled by {scale})"
    return result("correct", ALGEBRA, f"ratio compared part by part: {same}")
