"""Items on a page: picker labels as plain Unicode, answers as LaTeX with upright units (our own cases)."""

from __future__ import annotations

import pytest

from ifworld.rws import answer_latex, item_label, plain_text


@pytest.mark.parametrize("latex,text", [
    (r"Take $V = 400$ km/s and $\Omega = 2.7 \times 10^{-6}$ rad/s.", "Take V = 400 km/s and Ω = 2.7 × 10⁻⁶ rad/s."),
    (r"$n = 5$ cm$^{-3}$ at $T = 10^5$ K", "n = 5 cm⁻³ at T = 10⁵ K"),
    (r"latitude $30^\circ$ with $B_0$ and $\mu_0$", "latitude 30° with B₀ and μ₀"),
    (r"speed $c_s = \sqrt{\gamma k_B T / m_p}$", "speed c_s = √(γ k_B T / m_p)"),
    ("no maths at all", "no maths at all"),
    ("grows by 50% a day & then stops", "grows by 50% a day & then stops"),  # prose, not a LaTeX comment
])
def test_plain_text(latex: str, text: str) -> None:
    assert plain_text(latex) == text


def test_item_label_is_plain_and_cut() -> None:
    label = item_label("x_1", "numeric", r"What is $\beta$ " + "very " * 30)
    assert label.startswith("x_1 · numeric · What is β ") and label.endswith("…") and "$" not in label
    assert len(label) <= len("x_1 · numeric · ") + 70


@pytest.mark.parametrize("final,kind,latex", [
    ("37.1 km s^{-1}", "numeric", r"37.1\,\mathrm{km\,s^{-1}}"),
    ("48.8 km/s", "numeric", r"48.8\,\mathrm{km/s}"),
    (r"2.5 \times 10^{-4} W m^{-2}", "numeric", r"2.5 \times 10^{-4}\,\mathrm{W\,m^{-2}}"),
    (r"45.3^\circ", "numeric", r"45.3^\circ"),
    ("8.2", "numeric", "8.2"),
    ("12 %", "numeric", r"12\,\mathrm{\%}"),
    ("10.2 R_E", "numeric", r"10.2\,\mathrm{R_E}"),
    (r"v_A = \frac{B}{\sqrt{\mu_0 n m_p}}", "symbolic", r"v_A = \frac{B}{\sqrt{\mu_0 n m_p}}"),
    ("the bow shock", "textual", None),
    ("about a day", "numeric", None),
])
def test_answer_latex_sets_units_upright(final: str, kind: str, latex: str | None) -> None:
    assert answer_latex(final, kind) == latex
