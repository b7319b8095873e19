"""Quantities with units: LaTeX-ish text → (magnitude, pint unit), with a private registry.

pint 0.25 has traps for heliophysics text, measured on this machine: ``AU`` parses as the absorbance
unit, ``Rs`` as a ronnasecond, ``Re`` as a ronna-elementary-charge, ``R_E`` is undefined and ``G``
(gauss) converts to tesla only inside pint's Gaussian context. We fix these by rewriting unit tokens
before pint sees them and by defining the missing units in our own ``UnitRegistry`` (never pint's
global one). Numbers are parsed here, not by pint, so ``10**10**10`` can never reach pint's evaluator.
"""

from __future__ import annotations

import math
import re
import threading
from dataclasses import dataclass

import pint
from pint.facets.plain import PlainUnit

from ifworld.errors import GradingError
from ifworld.rws.grading.constants import REL_TOLERANCE
from ifworld.rws.grading.latexnorm import TEXT_COMMANDS, decimal_commas, fold_confusables
from ifworld.rws.grading.magnitude import MagnitudeError, find_magnitude

MAX_UNIT_POWER = 12
"""Unit powers beyond this (``m^99``) are refused rather than handed to pint."""
MAX_UNIT_CHARS = 80
MAX_UNIT_TOKENS = 8
"""Only this many words after a number are tried as its unit."""

_DEFINITIONS = (
    "earth_radius = 6371 km = R_E = R_earth",
    "solar_radius = 695700 km = R_sun = R_sol",
    "jupiter_radius = 71492 km = R_J",
    "gauss_si = 1e-4 tesla",
    "solar_mass = 1.98847e30 kg = M_sun",
    "earth_mass = 5.9722e24 kg = M_E",
    "euro = [currency_euro] = EUR",
    "pound_sterling = [currency_pound] = GBP",
    "yen = [currency_yen] = JPY",
    "dollar = [currency_dollar] = USD",
)
CURRENCY_SIGNS = {"€": "EUR", "£": "GBP", "¥": "JPY"}  # \$ is read in numeric.split_values ($ is a delimiter)
"""A currency sign glued to a number (``2,450.75€``) is its unit; each currency is its own dimension."""
_CONTEXTS = ("boltzmann",)
"""pint contexts tried when dimensions differ: temperature <-> energy through k_B (eV <-> K)."""
_GAUSS_PREFIX = re.compile(r"\b(k|M|m|u|n)(?:G|gauss|Gauss)\b")
_DROP_TOKENS = re.compile(r"\b(?:(?:square|sq\.?|cubic)\s+units?|units?|arbitrary units|a\.u\.)(?=\W|$)", re.I)
"""Words that say "no unit" (pint would read ``units`` as micro-nit)."""
_TOKEN_MAP = {
    "AU": "astronomical_unit", "au": "astronomical_unit", "ua": "astronomical_unit",
    "Rs": "solar_radius", "R_s": "solar_radius", "R_S": "solar_radius", "Rsun": "solar_radius",
    "R_sun": "solar_radius", "R_odot": "solar_radius", "Rsol": "solar_radius",
    "Re": "earth_radius", "RE": "earth_radius", "R_e": "earth_radius", "R_E": "earth_radius",
    "R_oplus": "earth_radius", "R_earth": "earth_radius", "R_Earth": "earth_radius",
    "G": "gauss_si", "gauss": "gauss_si", "Gauss": "gauss_si", "gamma": "nanotesla",
    "deg": "degree", "degrees": "degree", "circ": "degree", "percent": "percent",
    "amu": "unified_atomic_mass_unit", "days": "day", "hours": "hour", "hrs": "hour", "hr": "hour",
    "sec": "second", "secs": "second", "yrs": "year", "Ang": "angstrom", "AA": "angstrom",
    "pct": "percent", "percents": "percent", "M_odot": "solar_mass", "M_sol": "solar_mass", "Msun": "solar_mass",
    "M_Sun": "solar_mass", "M_oplus": "earth_mass", "M_earth": "earth_mass", "cc": "centimeter^3",
    "R_Sun": "solar_radius", "R_J": "jupiter_radius", "meters": "meter", "metres": "meter", "metre": "meter",
    "kilometres": "kilometer", "kilometers": "kilometer", "seconds": "second", "minutes": "minute",
    "mins": "minute", "min": "minute", "years": "year", "yr": "year", "radians": "radian",
    "kelvin": "kelvin", "Kelvin": "kelvin", "nanotesla": "nanotesla", "tesla": "tesla",
}
_LATEX_WRAPPERS = re.compile(r"\\(?:%s|mathit|operatorname|unit|si)\s*\{([^{}]*)\}" % TEXT_COMMANDS)
_PROSE_WORDS = frozenset(
    "at in for of and or the with which is are near about from to on by as if so this that it its be "
    "approximately roughly around inside outside above below".split()
)
_REGISTRY: pint.UnitRegistry | None = None
_REGISTRY_LOCK = threading.Lock()


class UnitError(GradingError, ValueError):
    """A unit string we refuse or pint cannot read."""


@dataclass(frozen=True)
class Scalar:
    """One parsed value: magnitude, unit (None when absent), label (e.g. "v_A") and the source text."""

    value: float
    unit: PlainUnit | None
    label: str
    text: str
    rival: str = ""
    """Another value of the same dimension later in the text (``not 48.8 km/s but 53 km/s``), if any."""
    number: str = ""
    """The characters read as the magnitude (``\\frac{\\pi}{4}``, ``3\\times10^{5}``)."""

    def with_unit(self, unit: PlainUnit | None) -> Scalar:
        """The same value read in `unit`."""
        return Scalar(self.value, unit, self.label, self.text, self.rival, self.number)


def convert(quantity: pint.Quantity, unit: PlainUnit) -> float:
    """Magnitude of quantity in unit, through the field's contexts when the dimensions differ.

    Raises pint.DimensionalityError when no context relates them.
    """
    try:
        return float(quantity.to(unit).magnitude)
    except pint.DimensionalityError:
        for name in _CONTEXTS:
            try:
                return float(quantity.to(unit, name).magnitude)
            except pint.DimensionalityError:
                continue
        raise


def registry() -> pint.UnitRegistry:
    """Return the grader's private pint registry, created once (thread-safe)."""
    global _REGISTRY
    with _REGISTRY_LOCK:
        if _REGISTRY is None:
            reg: pint.UnitRegistry
            try:  # pint's own definitions cache cuts registry start-up from ~0.6 s to ~0.05 s
                reg = pint.UnitRegistry(autoconvert_offset_to_baseunit=True, on_redefinition="ignore",
                                        cache_folder=":auto:")
            except OSError:
                reg = pint.UnitRegistry(autoconvert_offset_to_baseunit=True, on_redefinition="ignore")
            for line in _DEFINITIONS:
                reg.define(line)
            _REGISTRY = reg
        return _REGISTRY


_SI_PREFIXES = {"yocto": "y", "zepto": "z", "atto": "a", "femto": "f", "pico": "p", "nano": "n", "micro": "u",
                "milli": "m", "centi": "c", "deci": "d", "kilo": "k", "mega": "M", "giga": "G", "tera": "T"}
_SI_UNITS = {"meter": "m", "metre": "m", "second": "s", "gram": "g", "kilogram": "kg", "tesla": "T", "gauss": "G",
             "kelvin": "K", "electronvolt": "eV", "hertz": "Hz", "joule": "J", "watt": "W", "volt": "V",
             "ampere": "A", "coulomb": "C", "pascal": "Pa", "newton": "N", "radian": "rad", "degree": "degree",
             "percent": "percent", "astronomicalunit": "AU", "parsec": "pc", "day": "d", "hour": "h",
             "minute": "min", "erg": "erg", "liter": "L", "litre": "L", "mole": "mol", "ohm": "ohm"}


def _siunitx(text: str) -> str:
    """siunitx macros (``\\kilo\\meter\\per\\second``, ``\\squared``) → plain unit text."""
    if not re.search(r"\\(?:per|squared|cubed|%s|%s)(?![a-zA-Z])" % ("|".join(_SI_PREFIXES), "|".join(_SI_UNITS)),
                     text):
        return text
    s = re.sub(r"\\per(?![a-zA-Z])", " / ", text)
    s = re.sub(r"\\(%s)(?![a-zA-Z])" % "|".join(_SI_PREFIXES), lambda m: " " + _SI_PREFIXES[m[1]] + "\x00", s)
    s = re.sub(r"\\(%s)(?![a-zA-Z])" % "|".join(_SI_UNITS), lambda m: _SI_UNITS[m[1]] + " ", s)
    s = s.replace("\x00 ", "").replace("\x00", "")
    return re.sub(r"\s*\\squared(?![a-zA-Z])", "^2 ", re.sub(r"\s*\\cubed(?![a-zA-Z])", "^3 ", s))


def _latex_units_to_plain(text: str) -> str:
    """Turn LaTeX unit markup (``\\mathrm{km}\\,s^{-1}``, ``^\\circ``, ``\\%``) into pint syntax."""
    s = _siunitx(text)
    s = re.sub(r"\s*\*\*\s*", "^", s)
    s = re.sub(r"\^\s*\{\s*([-+−]?\s*\d+)\s*\}", r"^\1", s)
    for _ in range(3):
        s = _LATEX_WRAPPERS.sub(r" \1 ", s)
    s = re.sub("[€£¥]", lambda m: f" {CURRENCY_SIGNS[m.group(0)]} ", s)
    s = s.replace("$", " ").replace("\\%", " percent ").replace("%", " percent ").replace("°", " degree ")
    s = re.sub(r"\^\s*\{?\s*\\circ\s*\}?", " degree ", s)
    s = re.sub(r"\\(odot|oplus|odot)", r"\1", s).replace("⊙", "odot").replace("⊕", "oplus")
    s = re.sub(r"\\(?:,|;|:|!|quad|qquad| )", " ", s).replace("~", " ")
    s = re.sub(r"\\(?:cdot|times)|·|×", "*", s)
    s = re.sub(r"\\mu\s*|μ|µ", "u", s)
    s = s.replace("\\AA", "angstrom").replace("Å", "angstrom").replace("Ω", "ohm").replace("\\Omega", "ohm")
    s = re.sub(r"[{}]", " ", s).replace("\\", " ")
    s = re.sub(r"\b(?:per\s*cent(?:age)?s?|percentages?|percent)(?:\s+points?)?\b", " percent ", s)  # words
    s = re.sub(r"\bper\b", "/", s)
    s = re.sub(r"([A-Za-z])\s*\^\s*([-+−]?)\s*(\d+)", r"\1^\2\3", s)
    s = re.sub(r"([A-Za-z])(-\d+)\b", r"\1^\2", s)  # km s-1 → km s^-1
    s = s.replace("−", "-")
    s = re.sub(r"_\s+", "_", s)
    return " ".join(s.split())


def _rewrite_tokens(text: str) -> str:
    """Map unit names pint misreads (AU, Rs, R_E, G, gamma, …) onto our definitions."""
    text = _GAUSS_PREFIX.sub(lambda m: {"k": "kilo", "M": "mega", "m": "milli", "u": "micro",
                                         "n": "nano"}[m.group(1)] + "gauss_si", text)
    return re.sub(r"[A-Za-z_]+", lambda m: _TOKEN_MAP.get(m.group(0), m.group(0)), text)


def parse_unit(text: str) -> PlainUnit | None:
    """Parse a unit string (LaTeX or plain) into a pint unit; None for an empty string.

    Raises :class:`UnitError` for anything suspicious (huge powers, numbers, over-long) or unknown.
    """
    plain = _rewrite_tokens(_latex_units_to_plain(_DROP_TOKENS.sub(" ", text))).strip(" .;,")
    if not plain:
        return None
    if plain.startswith("/"):  # "5 /cc", "3 per cm^3"
        plain = "1 " + plain
    if len(plain) > MAX_UNIT_CHARS:
        raise UnitError("unit string too long")
    if not re.fullmatch(r"[A-Za-z_ */^()0-9.\-]+", plain):
        raise UnitError(f"unexpected characters in unit {plain!r}")
    for power in re.findall(r"(?:\^|\*\*)\s*\(?\s*-?\s*(\d+)", plain):
        if int(power) > MAX_UNIT_POWER:
            raise UnitError(f"unit power {power} too large")
    if re.search(r"(\^|\*\*)[^A-Za-z]*(\^|\*\*)", plain):
        raise UnitError("chained powers in unit")
    if re.search(r"(?<![\^\-*(/])\b\d", re.sub(r"\b1\s*/", "/", plain)):
        raise UnitError(f"stray number in unit {plain!r}")
    try:
        quantity = registry().parse_expression(plain)
    except Exception as exc:  # pint raises a zoo of exception types
        raise UnitError(f"unknown unit {text.strip()!r}") from exc
    if not isinstance(quantity, pint.Quantity) or not math.isclose(float(quantity.magnitude), 1.0):
        raise UnitError(f"not a unit: {text.strip()!r}")
    return quantity.units


def find_number(text: str) -> tuple[float, int, int] | None:
    """Locate the first value (``4.9e4``, ``3\\times10^{5}``, ``\\frac{\\pi}{4}``, ``\\sqrt{17}``): (value, start, end).

    Raises :class:`UnitError` for an out-of-range number (``1e400``) so the caller reports it.
    """
    try:
        return find_magnitude(text)
    except MagnitudeError as exc:
        raise UnitError(str(exc)) from exc


def _best_unit_prefix(rest: str) -> PlainUnit | None:
    """Parse the longest leading run of tokens in `rest` that is a unit (``km/s at 1 AU`` → km/s)."""
    return _unit_and_tail(rest)[0]


def _unit_and_tail(rest: str) -> tuple[PlainUnit | None, str]:
    """The longest leading unit in `rest` and the text after it (raises UnitError when none parses)."""
    all_tokens = rest.split()
    tokens = all_tokens[:MAX_UNIT_TOKENS]
    for index, token in enumerate(tokens):
        if token.lower().strip(",.;()") in _PROSE_WORDS:
            tokens = tokens[:index]
            break
    last_error: UnitError | None = None
    for size in range(len(tokens), 0, -1):
        try:
            return parse_unit(" ".join(tokens[:size])), " ".join(all_tokens[size:])
        except UnitError as exc:
            last_error = last_error or exc
    if last_error is not None:
        raise last_error
    return None, rest


def parse_scalar(text: str) -> Scalar:
    """Parse one labelled or bare value with optional unit, e.g. ``v_A \\approx 4.9\\times10^{1} km/s``."""
    folded, _ = fold_confusables(text)
    label, body = split_label(decimal_commas(join_thousands(folded)))
    found = find_number(body)
    if found is None:
        raise UnitError("no number found")
    value, start, end = found
    rest = body[end:].strip()
    rest = re.sub(r"^\)\s*", "", rest).strip(" .")
    unit, tail = _unit_and_tail(rest) if rest else (None, "")
    return Scalar(value=value, unit=unit, label=label, text=text.strip(), rival=_rival(tail, unit, value),
                  number=body[start:end].strip())


MAX_RIVALS = 5


def _rival(tail: str, unit: PlainUnit | None, value: float) -> str:
    """A later value of the first one's dimension that disagrees with it by more than 5 % ("" when none).

    ``48.8 km/s at 1 AU`` has no rival (a length), nor has ``48.8 km/s (175,700 km/h)`` (the same value);
    ``not 48.8 km/s but 53 km/s`` has one.
    """
    if unit is None:
        return ""
    dims = registry().Quantity(1, unit).dimensionality
    position = 0
    for _ in range(MAX_RIVALS):
        try:
            found = find_magnitude(tail[position:])
        except MagnitudeError:
            return ""
        if found is None:
            return ""
        other_value, start, end = found
        after = tail[position + end:].strip()
        try:
            other, _ = _unit_and_tail(after) if after else (None, "")
        except UnitError:
            other = None
        if other is not None and registry().Quantity(1, other).dimensionality == dims:
            same = convert(registry().Quantity(other_value, other), unit)
            if not value or abs(same - value) > REL_TOLERANCE * abs(value):  # disagrees beyond the grading tolerance
                return tail[position + start:position + end].strip() + " " + str(other)
        position += max(end, 1)
    return ""


def join_thousands(text: str) -> str:
    """Join digit groups split by thin spaces or spaces (``31\\,000`` and ``31 000`` → ``31000``); ``0,428`` is a
    decimal comma (no thousands group starts after a lone 0)."""
    text = re.sub(r"(?<![\d.,(\[])0,(?=\d{3}(?![\d,]))", "0.", text)
    return re.sub(r"(?<=\d)(?:,\s*\\!\s*|\\,|\\ |\s|\{,\}|,)(?=\d{3}(?!\d))", "", text)


def split_label(text: str) -> tuple[str, str]:
    """Split ``label = value`` (also ≈, \\approx, \\sim, :) into (label, value); label may be empty."""
    parts = re.split(r"\\approx|≈|\\simeq|\\sim(?![a-z])|~(?=\s*[-+−]?\.?\d)|(?<![<>!])=(?!=)|:(?!\d)", text)
    if len(parts) == 1:
        return "", text
    label = parts[-2].strip() if len(parts) >= 2 else ""
    label = re.sub(r"[\\{}\s$]", "", label)
    return (label if len(label) <= 20 else ""), parts[-1]
