"""Machine-readable recomputation of every numeric final in data/rws_sample.jsonl (id → pint quantity).

Each function rebuilds the answer from physical constants and the question's inputs, so the sample set
cannot drift from its physics.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import pint


def _c(reg: pint.UnitRegistry, name: str) -> pint.Quantity:
    """A physical constant from the registry as a quantity."""
    return reg.Quantity(1, name)


def _alfven(reg: pint.UnitRegistry) -> pint.Quantity:
    b, n = reg.Quantity(5, "nT"), reg.Quantity(5, "cm^-3")
    return (b / (_c(reg, "mu_0") * n * _c(reg, "m_p")) ** 0.5).to("km/s")


def _magnetopause(reg: pint.UnitRegistry) -> pint.Quantity:
    b0, n, v = reg.Quantity(31000, "nT"), reg.Quantity(5, "cm^-3"), reg.Quantity(400, "km/s")
    ratio = (2 * b0**2 / (_c(reg, "mu_0") * n * _c(reg, "m_p") * v**2)).to("dimensionless").magnitude
    return reg.Quantity(ratio ** (1 / 6), "earth_radius")


FORMULAS: dict[str, Callable[[pint.UnitRegistry], pint.Quantity]] = {
    "2025_IFW_1_b": lambda r: r.Quantity(math.degrees(math.atan(
        (r.Quantity(2.7e-6, "rad/s") * r.Quantity(1, "au") / r.Quantity(400, "km/s")).to("").magnitude)), "degree"),
    "2025_IFW_2_b": _alfven,
    "2025_IFW_2_c": lambda r: (r.Quantity(400, "km/s") / _alfven(r)).to("dimensionless"),
    "2025_IFW_3": lambda r: ((5 / 3 * _c(r, "k") * r.Quantity(1e5, "K") / _c(r, "m_p")) ** 0.5).to("km/s"),
    "2025_IFW_4": lambda r: (_c(r, "e") * r.Quantity(50000, "nT") / (2 * math.pi * _c(r, "m_e"))).to("MHz"),
    "2025_IFW_5": lambda r: (_c(r, "m_p") * r.Quantity(50, "km/s") / (_c(r, "e") * r.Quantity(5, "nT"))).to("km"),
    "2025_IFW_6": lambda r: (r.Quantity(5, "cm^-3") * _c(r, "k") * r.Quantity(1e5, "K")
                             / (r.Quantity(5, "nT") ** 2 / (2 * _c(r, "mu_0")))).to("dimensionless"),
    "2025_IFW_7": lambda r: ((_c(r, "epsilon_0") * _c(r, "k") * r.Quantity(1e5, "K")
                              / (r.Quantity(5, "cm^-3") * _c(r, "e") ** 2)) ** 0.5).to("m"),
    "2025_IFW_8": lambda r: ((r.Quantity(1e12, "m^-3") * _c(r, "e") ** 2 / (_c(r, "epsilon_0") * _c(r, "m_e"))) ** 0.5
                             / (2 * math.pi)).to("MHz"),
    "2025_IFW_9_b": _magnetopause,
    "2025_IFW_10_b": lambda r: (r.Quantity(31000, "nT") / 4**3),
    "2025_IFW_10_c": lambda r: r.Quantity(4 * math.cos(math.radians(30)) ** 2, "earth_radius"),
    "2025_IFW_11": lambda r: (r.Quantity(1, "au") ** 2 / r.Quantity(1e22, "cm^2/s")).to("s"),
    "2025_IFW_12": lambda r: (r.Quantity(1, "au") / r.Quantity(400, "km/s")).to("day"),
    "2025_IFW_13": lambda r: 2.5 * r.Quantity(1e-4, "W/m^2"),
    "2025_IFW_14": lambda r: (2 * math.pi * _c(r, "m_p") / (_c(r, "e") * r.Quantity(100, "nT"))).to("s"),
    "2025_IFW_15": lambda r: (_c(r, "k") * r.Quantity(1000, "K")
                              / (16 * _c(r, "u") * r.Quantity(9.0, "m/s^2"))).to("km"),
}
