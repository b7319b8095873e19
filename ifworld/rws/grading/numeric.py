"""Numeric stage: compare values with units within a relative tolerance, element-wise for lists.

The prediction is converted into the ground truth's units before comparing, so ``0.0488 km/ms`` and
``48.8 km/s`` agree. A bare number against a gold value with units is "missing units" — except for
angles and percentages, where the bare number is read in the gold unit (models routinely drop the
degree sign when the question says "in degrees"), and when the caller passes ``units``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

import pint
from pint.facets.plain import PlainUnit

from ifworld.rws.grading.constants import REL_TOLERANCE  # shared with the parent process
from ifworld.rws.grading.latexnorm import decimal_commas, fold_confusables, inline_math, latex_shorthand, superscripts
from ifworld.rws.grading.result import (
    FORMAT_VIOLATION,
    MISSING_UNITS,
    NEEDS_VERIFIER,
    PARSE_FAILURE,
    READING,
    TOLERANCE_MISS,
    UNIT_MISMATCH,
    UNSCORED_GOLD,
    CheckResult,
    Verdict,
)
from ifworld.rws.grading.units import (
    Scalar,
    UnitError,
    convert,
    join_thousands,
    parse_scalar,
    parse_unit,
    registry,
)
from ifworld.rws.grading.values import cross_check, false_link, read_value

_NUMBER_LABEL = re.compile(r"[-+]?\d+(?:\.\d+)?")
"""A "label" that is itself a number (``5 = 6 m``): a chained equality whose link must hold."""
ABS_TOLERANCE_AT_ZERO = 1e-12
"""Absolute tolerance used only when the gold value is exactly zero."""

MAX_NUMERIC_CHARS = 500
"""A numeric answer longer than this is a format violation (it is prose, not a value)."""


def _result(verdict: Verdict, reason: str, pred: str, gold: str, notes: list[str] | None = None,
            rel: float | None = None) -> CheckResult:
    """Build a numeric-stage result."""
    return CheckResult(verdict=verdict, type="numeric", reason=reason, pred_norm=pred, gt_norm=gold,
                       stage="numeric", annotations=notes or [], rel_error=rel)


_LONE_DOLLAR = re.compile(r"(?<!\\)\$")


def _dollar_sign(text: str) -> str:
    """A single ``$`` glued to a number (``$9,015``, ``5,640.80$``) is the currency, written ``\\$`` from here on;
    a pair of them is a maths delimiter."""
    if len(_LONE_DOLLAR.findall(text)) != 1:
        return text
    return re.sub(r"(?<!\\)\$(?=\s?[-+]?\d)|(?<=\d)\$|(?<=\d\s)\$", lambda _: "\\$", text)


def split_values(text: str) -> list[str]:
    """Split ``a = 1 km/s, b = 2 nT`` or ``1, 2 and 3`` into value segments (braces respected)."""
    text = latex_shorthand(fold_confusables(superscripts(_dollar_sign(text)))[0])
    text = re.sub(r"(\\\$|[€£¥])\s*([-+]?\d[\d,]*(?:\.\d+)?)", r"\2\1", text)  # €3,870.25: the sign is the unit
    text = text.replace("\\$", " USD ")  # before the maths delimiters go: \$ is the currency, $ a delimiter
    text = decimal_commas(join_thousands(inline_math(text).strip()))
    text = re.sub(r"\\[,;!: ]", " ", text)
    text = re.sub(r"^\\?[\[(]|\\?[\])]$", "", text) if re.match(r"^\\?[\[(].*,.*\\?[\])]$", text) else text
    parts: list[str] = []
    depth = 0
    current = ""
    for char in text:
        depth += char in "{(["
        depth -= char in "})]"
        if depth <= 0 and char in ",;":
            parts.append(current)
            current = ""
            continue
        current += char
    parts.append(current)
    segments: list[str] = []
    for part in parts:
        segments.extend(re.split(r"\s+(?:and|or)\s+|\\quad|\\text\{\s*(?:and|or)\s*\}", part))
    return [seg.strip() for seg in segments if seg.strip() and re.search(r"\d|\\pi(?![a-zA-Z])|π", seg)]


_PLAIN = r"[-+−]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+−]?\d+)?(?:\s*(?:\\times|×|\\cdot)\s*10\^\{?[-+−]?\d+\}?)?"
_RANGE = re.compile(r"^\s*(?P<a>%s)\s*(?:–|—|--|\\text\{\s*(?:to|--|–)\s*\}|\bto\b|\\sim|\\ldots)\s*"
                    r"(?P<b>%s)(?P<rest>.*)$"
                    r"|^\s*(?P<a2>%s)-(?P<b2>\d[\d.eE]*(?:\s*(?:\\times|×)\s*10\^\{?[-+−]?\d+\}?)?)(?P<rest2>(?:\s|[A-Za-z\\%%°^$]).*|)$"
                    % (_PLAIN, _PLAIN, _PLAIN))


_BOUND = re.compile(r"(?:\b(?:less|more|greater|fewer|smaller|larger|higher|lower)\s+than|\bat\s+(?:least|most)|"
                    r"\bup\s+to|\bno\s+(?:more|less)\s+than|\bexceeds?|\bbelow|\babove|\bunder|\bover|"
                    r"\\(?:le|ge|leq|geq|lesssim|gtrsim|lt|gt)(?![a-zA-Z])|[<>≤≥≲≳])\s*\$?\s*[-+−]?\s*\.?\d", re.I)
"""An inequality qualifier: "less than 50 km/s" is a bound, not the value 50 km/s."""


_UNCERTAINTY = re.compile(r"(?<=[\d)}.])\s*(?:\\pm|±|\+/-)\s*(\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)")


def _strip_uncertainty(segment: str) -> tuple[str, float | None]:
    """``48.8 \\pm 0.5 km/s`` → ("48.8 km/s", 0.5): pint would read ``pm`` as picometre."""
    match = _UNCERTAINTY.search(segment)
    if match is None:
        return segment, None
    return segment[:match.start()] + segment[match.end():], float(match.group(1))


def _range_parts(segment: str) -> tuple[str, str] | None:
    """``300-800 km/s`` / ``300–800 km/s`` / ``300 to 800 km/s`` → ("300 km/s", "800 km/s"), else None."""
    match = _RANGE.match(segment)
    if match is None:
        return None
    a, b, rest = (match["a"], match["b"], match["rest"]) if match["a"] else (match["a2"], match["b2"], match["rest2"])
    return f"{a} {rest}".strip(), f"{b} {rest}".strip()


def _shape(segments: list[str]) -> tuple[list[str], list[bool]]:
    """Flatten ranges into their two ends; the flags say which original segments were ranges."""
    flat: list[str] = []
    flags: list[bool] = []
    for seg in segments:
        parts = _range_parts(seg)
        flags.append(parts is not None)
        flat.extend(parts if parts is not None else [seg])
    return flat, flags


def hint_unit(hint: str) -> str | None:
    """The unit an item's hint asks for (``"km/s, 3 significant figures."`` → ``"km/s"``), or None."""
    head = re.split(r"[,;(]|\.\s|\.$", hint.strip(), maxsplit=1)[0].strip()
    head = re.sub(r"^(?:in|units?:?|answer in)\s+", "", head, flags=re.I)
    if not head or len(head) > 40 or re.search(r"\d", re.sub(r"[\^{}]-?\d", "", head)):
        return None
    if head.lower() in {"dimensionless", "dimensionless number", "a number", "unitless"}:
        return None
    candidates = {head, head.lower(), re.sub(r"s$", "", head.lower()),
                  {"earth radii": "R_E", "solar radii": "R_sun", "degrees": "degree"}.get(head.lower(), head)}
    for candidate in candidates:
        try:
            if parse_unit(candidate) is not None:
                return candidate
        except UnitError:
            continue
    return None


def hint_dimensionless(hint: str) -> bool:
    """The item's hint says the answer has no unit ("Dimensionless, 2 significant figures."): a unit on the
    answer is then a unit mismatch, not a unit the gold did not write down."""
    head = re.split(r"[,;(]|\.\s|\.$", hint.strip(), maxsplit=1)[0].strip().lower()
    return head in {"dimensionless", "dimensionless number", "unitless", "a pure number", "pure number"}


def _fmt(scalar: Scalar) -> str:
    """Normalised display of a parsed value."""
    unit = f" {scalar.unit:~}" if scalar.unit is not None and str(scalar.unit) != "dimensionless" else ""
    label = f"{scalar.label} = " if scalar.label else ""
    return f"{label}{scalar.value:.6g}{unit}"


def _bare(pred: Scalar, gold: Scalar, gold_unit: PlainUnit,
          required: bool) -> tuple[Verdict, str, list[str], float | None]:
    """A number without units for a gold with units: exact as a pure number (0.69 for 69 %), else not_sure
    "no units given" when it matches in the gold's unit (incorrect when the item demands units)."""
    try:
        as_pure = _compare(pred.with_unit(registry().dimensionless), gold, None)
    except UnitError:
        as_pure = ("incorrect", "", [], None)
    if as_pure[0] == "correct":
        return "correct", f"a pure number equal to the gold ({as_pure[1]})", [], as_pure[3]
    verdict, reason, notes, rel = _compare(pred.with_unit(gold_unit), gold, None)
    unit = f"{gold_unit:~}" or str(gold_unit)
    if verdict == "correct" and str(gold_unit) == "percent" and not required:
        return "correct", f"units: percent convention — a bare {pred.value:g} is read as {pred.value:g} % (the " \
            f"reference is a percentage; the fraction {pred.value / 100:g} would count too); {reason}", [], rel
    if verdict != "correct":
        return "incorrect", f"no units given, and read in {unit} the value is wrong: {reason}", \
            [MISSING_UNITS, *notes], rel
    if required:
        return "incorrect", f"missing units: no units given, the item asks for {unit}", [MISSING_UNITS], rel
    return "not_sure", f"no units given (the value matches if read in {unit})", [MISSING_UNITS, NEEDS_VERIFIER], rel


def _compare(pred: Scalar, gold: Scalar, units: str | None,
             required: bool = False) -> tuple[Verdict, str, list[str], float | None]:
    """Compare two scalars: (verdict, reason, annotations, relative error)."""
    ureg = registry()
    gold_unit = gold.unit
    if gold_unit is None and units:
        gold_unit = parse_unit(units)
        if pred.unit is None:  # both bare, the unit given by the caller: the same convention on both sides
            pred = pred.with_unit(gold_unit)
    if pred.unit is None and gold_unit is not None:
        return _bare(pred, gold, gold_unit, required)
    if gold_unit is None and pred.unit is not None and not ureg.Quantity(1, pred.unit).dimensionless:
        verdict, reason, notes, rel = _compare(pred.with_unit(None), gold, None)
        return verdict, f"units: the reference gives no unit, so the answer's {pred.unit} is not checked; " \
            f"{reason}", notes, rel
    pred_unit = pred.unit
    try:
        pred_q = ureg.Quantity(pred.value, pred_unit if pred_unit is not None else "dimensionless")
        gold_q = ureg.Quantity(gold.value, gold_unit if gold_unit is not None else "dimensionless")
        converted = convert(pred_q, gold_q.units)
    except pint.DimensionalityError:
        return "incorrect", f"unit mismatch: {pred_unit} vs {gold_unit}", [UNIT_MISMATCH], None
    except (OverflowError, ZeroDivisionError, ValueError) as exc:
        raise UnitError(f"cannot convert: {type(exc).__name__}") from exc
    target = float(gold_q.magnitude)
    if target == 0:
        ok = abs(converted) <= ABS_TOLERANCE_AT_ZERO
        return ("correct", "equal to zero", [], None) if ok else (
            "incorrect", "gold is zero, prediction is not", [TOLERANCE_MISS], None)
    if not math.isfinite(converted) or not math.isfinite(target):
        raise UnitError("value out of range after unit conversion")
    rel = abs(float(converted) - target) / abs(target)
    if rel <= REL_TOLERANCE:
        return "correct", f"within the RWS {REL_TOLERANCE:.0%} tolerance (rel. error {rel:.2%})", [], rel
    shown = f"{rel:.2%}" if rel < 10 else f"{rel:.3g}×"
    return "incorrect", f"tolerance miss: rel. error {shown} > the RWS {REL_TOLERANCE:.0%} tolerance", \
        [TOLERANCE_MISS], rel


def _pair(preds: list[Scalar], golds: list[Scalar]) -> list[tuple[Scalar, Scalar]]:
    """Pair values by label when both sides label every value identically, else by position."""
    gold_labels = [g.label for g in golds]
    pred_labels = {p.label: p for p in preds}
    if all(gold_labels) and len(set(gold_labels)) == len(golds) and set(gold_labels) == set(pred_labels):
        return [(pred_labels[g.label], g) for g in golds]
    return list(zip(preds, golds, strict=True))


_AMBIGUOUS_COMMA = re.compile(r"(?<![\d.,])([1-9]\d{0,2}),(\d{3})(?![\d,]|\.\d)")
"""``2,375``: a thousands separator (2375) or a decimal comma (2.375) — the text alone cannot say which."""
_PROSE = re.compile(r"[A-Za-zÀ-ÿ]{3,}")


def check_numeric(pred: str, gold: str, units: str | None = None, required: str | None = None) -> CheckResult:
    """Grade a numeric answer (possibly several values) against the gold within :data:`REL_TOLERANCE`.

    `units` is the gold's unit when its text has none; `required` is the unit the item's format rule asks for
    (its hint): a bare number is then incorrect ("missing units"), otherwise not_sure ("no units given").
    A comma that may be a thousands separator or a decimal comma (``2,375``) is read as thousands; when only
    the decimal reading matches the gold the verdict is not_sure and the reason says the comma is ambiguous.
    """
    result = _check_values(pred, gold, units, required)
    return comma_readings(pred, gold, result, lambda decimal: _check_values(decimal, gold, units, required))


def comma_readings(pred: str, gold: str, result: CheckResult, regrade: Callable[[str], CheckResult]) -> CheckResult:
    """`result` (the answer's one ``2,375`` read as thousands) said as such, or not_sure when only the decimal
    reading — `regrade` of the answer with a decimal point there — matches the reference."""
    commas = _AMBIGUOUS_COMMA.findall(pred)
    if len(commas) != 1 or _AMBIGUOUS_COMMA.search(gold):
        return result
    whole, part = commas[0]
    if result.verdict == "correct":  # the usual reading, but the reason says which one was taken
        return result.with_(reason=f"{result.reason} ({whole},{part} read as {whole}{part}, a thousands separator; "
                            f"as a decimal comma it would be {whole}.{part})")
    if regrade(_AMBIGUOUS_COMMA.sub(r"\1.\2", pred)).verdict != "correct":
        return result
    reason = f"ambiguous comma: {whole},{part} is {whole}{part} with a thousands separator (not the reference) or " \
        f"{whole}.{part} with a decimal comma (the reference); the answer does not say which"
    return result.with_(verdict="not_sure", reason=reason, annotations=[NEEDS_VERIFIER], rel_error=None,
                        decided_by=READING)


def _check_values(pred: str, gold: str, units: str | None, required: str | None) -> CheckResult:
    """:func:`check_numeric` for one reading of the answer's commas."""
    units = units or required
    golds = _gold_values(pred, gold, units)
    if isinstance(golds, CheckResult):
        return golds
    gold_norm = ", ".join(_fmt(g) for g in golds[0])
    read = _read_answer(pred, gold, gold_norm)
    if isinstance(read, CheckResult):
        return read
    preds, pred_ranges = read
    pred_norm = ", ".join(_fmt(p) for p in preds)
    gold_ranges = golds[1]
    if pred_ranges != gold_ranges and (any(pred_ranges) or any(gold_ranges)):
        what = "the gold is a range, the answer is not" if any(gold_ranges) else \
            "a range where the gold is a single value"
        return _result("incorrect", f"format violation: {what}", pred_norm, gold_norm, [FORMAT_VIOLATION])
    if len(golds[0]) == 1 and len(preds) > 1 and not any(pred_ranges):
        return _sentence(pred, preds, golds[0][0], units, required, pred_norm, gold_norm)
    if len(preds) != len(golds[0]):
        what = "multiple answers" if len(golds[0]) == 1 else f"expected {len(golds[0])} values"
        return _result("incorrect", f"format violation: {what}, got {len(preds)}", pred_norm, gold_norm,
                       [FORMAT_VIOLATION])
    return _combine(_pair(preds, golds[0]), units, required, pred_norm, gold_norm)


def _kind(scalar: Scalar) -> object:
    """The dimension of a value (None for a bare number)."""
    return None if scalar.unit is None else registry().Quantity(1, scalar.unit).dimensionality


def _sentence(pred: str, preds: list[Scalar], gold: Scalar, units: str | None, required: str | None,
              pred_norm: str, gold_norm: str) -> CheckResult:
    """Several values for a one-value gold. A sentence that names given quantities and ends with the asked one
    ("With T = 1.5 MK and n = 2 cm^-3, the sound speed is about 180 km/s") is graded on its last value; a list,
    or an earlier value of the same kind as the last (which one is the answer?), is not."""
    if len(_PROSE.findall(re.sub(r"\\[a-zA-Z]+", " ", pred))) < 3:
        return _result("incorrect", f"format violation: multiple answers, got {len(preds)}", pred_norm, gold_norm,
                       [FORMAT_VIOLATION])
    last = preds[-1]
    if any(_kind(p) == _kind(last) for p in preds[:-1]):
        return _result("not_sure", f"the answer names {len(preds)} values, more than one of the asked value's kind "
                       "(which one is the answer?)", pred_norm, gold_norm, [NEEDS_VERIFIER])
    result = _combine([(last, gold)], units, required, _fmt(last), gold_norm)
    given = ", ".join(_fmt(p) for p in preds[:-1])
    return result.with_(reason=f"{result.reason} — the sentence ends with the asked value ({given} are given "
                        "values of other kinds)")


def _gold_values(pred: str, gold: str, units: str | None) -> tuple[list[Scalar], list[bool]] | CheckResult:
    """The gold's values and which were ranges, or the "unscored gold" result."""
    try:
        gold_segments, gold_ranges = _shape(split_values(gold))
        golds = [parse_scalar(_strip_uncertainty(seg)[0]) for seg in gold_segments]
        if units:
            parse_unit(units)
    except UnitError as exc:
        return _result("not_sure", f"unscored gold: {exc}", pred, gold, [UNSCORED_GOLD])
    if not golds:
        return _result("not_sure", "unscored gold: no number in the gold answer", pred, gold, [UNSCORED_GOLD])
    return golds, gold_ranges


def _read_answer(pred: str, gold: str, gold_norm: str) -> tuple[list[Scalar], list[bool]] | CheckResult:
    """The answer's values and which were ranges, or the result that refuses them (before any comparison)."""
    if len(pred) > MAX_NUMERIC_CHARS:
        return _result("incorrect", f"format violation: longer than {MAX_NUMERIC_CHARS} characters",
                       pred[:80] + "…", gold_norm, [FORMAT_VIOLATION])
    bound = _BOUND.search(pred)
    if bound and not _BOUND.search(gold):
        qualifier = bound.group(0).rstrip("0123456789.+-−$ ")
        return _result("not_sure", f"the answer gives a bound ({qualifier!r}), not a value", pred, gold_norm,
                       [NEEDS_VERIFIER])
    segments, pred_ranges = _shape(split_values(pred))
    if not segments:
        return _result("incorrect", "format violation: no number in the answer", pred, gold_norm,
                       [FORMAT_VIOLATION])
    stripped = [_strip_uncertainty(seg) for seg in segments]
    try:
        preds = [read_value(seg) for seg, _ in stripped]
    except UnitError as exc:
        if "division by zero" in str(exc) or "undefined" in str(exc):
            return _result("incorrect", f"safety checks: the answer is undefined ({exc})", pred, gold_norm,
                           [FORMAT_VIOLATION])
        return _result("not_sure", f"parse failure: {exc}", pred, gold_norm, [PARSE_FAILURE])
    refused = _refuse(pred, gold, gold_norm, preds, stripped)
    return refused if refused is not None else (preds, pred_ranges)


def _refuse(pred: str, gold: str, gold_norm: str, preds: list[Scalar],
            stripped: list[tuple[str, float | None]]) -> CheckResult | None:
    """Values that must not be compared: a false link, two readings, ±, a rival value, a wide uncertainty."""
    link = next((p for p in preds if _NUMBER_LABEL.fullmatch(p.label)
                 and abs(float(p.label) - p.value) > REL_TOLERANCE * abs(p.value)), None)
    if link is not None:
        return _result("incorrect", f"safety checks: chained equality: the link {link.label} = {link.value:g} is "
                       "false", pred, gold_norm, [FORMAT_VIOLATION])
    written = next((w for w in map(false_link, preds) if w), "")
    if written:
        return _result("incorrect", f"safety checks: chained equality: the link {written} is false", pred, gold_norm,
                       [FORMAT_VIOLATION])
    disagreement = next((d for d in map(cross_check, preds) if d), "")
    if disagreement:
        return _result("not_sure", disagreement, pred, gold_norm, [NEEDS_VERIFIER])
    if any(re.search(r"\\(?:pm|mp)(?![a-zA-Z])|[±∓]", seg) for seg, _ in stripped) and not re.search(r"\\pm|±", gold):
        return _result("incorrect", "format violation: ± gives two values", pred, gold_norm, [FORMAT_VIOLATION])
    rivals = [p.rival for p in preds if p.rival]
    if rivals:
        return _result("not_sure", f"the answer states another value of the same kind ({rivals[0]})", pred,
                       gold_norm, [NEEDS_VERIFIER])
    for scalar, (_, spread) in zip(preds, stripped, strict=True):
        if spread is not None and scalar.value and spread / abs(scalar.value) > REL_TOLERANCE:
            return _result("not_sure", f"the answer's uncertainty (±{spread:g}) is wider than the "
                           f"{REL_TOLERANCE:.0%} tolerance", pred, gold_norm, [NEEDS_VERIFIER])
    return None


def _combine(pairs: list[tuple[Scalar, Scalar]], units: str | None, required: str | None, pred_norm: str,
             gold_norm: str) -> CheckResult:
    """Compare value by value; correct only when every value is."""
    verdicts: list[Verdict] = []
    reasons: list[str] = []
    notes: list[str] = []
    rels: list[float | None] = []
    for p, g in pairs:
        try:
            verdict, reason, extra, rel = _compare(p, g, units, required is not None and g.unit is not None)
        except UnitError as exc:
            verdict, reason, extra, rel = ("not_sure", f"parse failure: {exc}", [PARSE_FAILURE], None)
        verdicts.append(verdict)
        reasons.append(reason)
        notes.extend(n for n in extra if n not in notes)
        rels.append(rel)
    worst = max((r for r in rels if r is not None), default=None)
    final: Verdict
    if all(v == "correct" for v in verdicts):
        final = "correct"
    else:
        final = "incorrect" if "incorrect" in verdicts else "not_sure"
    reason = reasons[0] if len(reasons) == 1 else "; ".join(f"#{i + 1}: {r}" for i, r in enumerate(reasons))
    return _result(final, reason, pred_norm, gold_norm, notes, worst)
