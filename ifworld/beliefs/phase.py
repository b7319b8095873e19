"""Phase transition under misinformation load: F1 and lock-on-falsehood vs M_F / M_T.

Two events per run, two curves (:data:`CURVES` explains each in one line):
- ``lock_share`` — the collective accepts *at least one* false fact (one pair of K where the
  population prefers the falsehood above the threshold). One unlucky pair is enough, so this curve
  crosses 0.5 early — below the paper's own default load M_F/M_T = 0.6.
- ``false_majority`` — the collective accepts *more* false facts than true ones: its knowledge base
  is mostly wrong. This is the transition a reader usually means. Bands are 95 % normal-approximation
confidence intervals of the mean over runs (Wilson intervals for shares).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ifworld.beliefs.config import BeliefConfig
from ifworld.beliefs.engine import simulate
from ifworld.beliefs.paper_numbers import PAPER_RULES
from ifworld.beliefs.rules import rule_names
from ifworld.errors import BeliefConfigError
from ifworld.figstyle import NEGATIVE, POSITIVE, SERIES_COLOURS, TEXT_COLOUR, styled

Z95 = 1.959964
LOCK_LEVEL = 0.5
CURVES = {
    "lock_share": "any false fact accepted — one pair of K going wrong is enough, so it crosses early",
    "false_majority": "falsehood majority — more false than true facts accepted; crosses near M_F/M_T = 1, "
                      "where falsehoods start out as widespread as truths",
}
CURVE_COLOURS = {"f1": POSITIVE, "lock_share": NEGATIVE, "false_majority": SERIES_COLOURS[3]}  # colour-blind-safe
DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
"""One dash style per rule, by the rule's place in the registry (the paper's additive solid, bounded dashed)."""


def rule_dash(rule: str) -> str:
    """The dash style of ``rule``'s curves (solid for a curve without a rule)."""
    names = rule_names()
    return DASHES[names.index(rule) % len(DASHES)] if rule in names else "solid"


def phase_transition(
    base: BeliefConfig, false_counts: Iterable[int], runs: int = 200, seed: int = 0
) -> pd.DataFrame:
    """One row per M_F value: ratio M_F/M_T, mean F1/precision/recall with 95 % bands, lock shares.

    Each M_F value gets its own seed spawned from ``seed`` (independent streams).
    """
    counts = [int(m) for m in false_counts]
    if not counts:
        raise BeliefConfigError("false_counts must not be empty: give at least one count of false facts to sweep")
    seeds = np.random.SeedSequence(seed).generate_state(len(counts))
    rows = []
    for m_false, s in zip(counts, seeds, strict=True):
        res = simulate(base.replace(false_facts=m_false), seed=int(s), runs=runs)
        n_false = (res.accepted & ~res.domain.truth).sum(axis=1)
        n_true = (res.accepted & res.domain.truth).sum(axis=1)
        row = {"m_false": m_false, "m_true": base.true_facts,
               "ratio": m_false / base.true_facts if base.true_facts else np.inf, "runs": runs}
        for name, values in (("f1", res.f1), ("precision", res.precision), ("recall", res.recall)):
            mean, half = float(values.mean()), Z95 * float(values.std(ddof=1) if runs > 1 else 0) / runs**0.5
            row.update({name: mean, f"{name}_lo": mean - half, f"{name}_hi": mean + half})
        events = (("lock_share", n_false > 0), ("false_majority", n_false > n_true))
        for name, flags in events:
            share = float(flags.mean())
            lo, hi = wilson(share, runs)
            row.update({name: share, f"{name}_lo": lo, f"{name}_hi": hi})
        rows.append(row)
    return pd.DataFrame(rows)


def wilson(share: float, n: int) -> tuple[float, float]:
    """95 % Wilson score interval of a proportion."""
    denom = 1 + Z95**2 / n
    centre = (share + Z95**2 / (2 * n)) / denom
    half = Z95 * np.sqrt(share * (1 - share) / n + Z95**2 / (4 * n * n)) / denom
    return float(centre - half), float(centre + half)


def critical_ratio(
    curve: pd.DataFrame, column: str = "lock_share", level: float = LOCK_LEVEL
) -> float | None:
    """Misinformation ratio where ``column`` first reaches ``level`` (linear interpolation), or None."""
    x, y = curve["ratio"].to_numpy(float), curve[column].to_numpy(float)
    for i in range(len(y)):
        if y[i] >= level:
            if i == 0:
                return float(x[0])
            return float(x[i - 1] + (level - y[i - 1]) * (x[i] - x[i - 1]) / (y[i] - y[i - 1]))
    return None


def crossings(curve: pd.DataFrame, level: float = LOCK_LEVEL) -> dict[str, float | None]:
    """Ratio where each curve of :data:`CURVES` first reaches ``level`` (None: not within the range)."""
    return {name: critical_ratio(curve, name, level) for name in CURVES}


def phase_both_rules(base: BeliefConfig, false_counts: Iterable[int], runs: int = 200, seed: int = 0,
                     rules: Iterable[str] = PAPER_RULES) -> pd.DataFrame:
    """:func:`phase_transition` for each rule (same seeds), stacked with a ``rule`` column."""
    counts = list(false_counts)
    return pd.concat([phase_transition(base.replace(rule=r), counts, runs=runs, seed=seed).assign(rule=r)
                      for r in rules], ignore_index=True)


def crossing_table(curves: pd.DataFrame) -> pd.DataFrame:
    """One row per rule and curve: the crossing ratio M_F/M_T at share 0.5 and what the curve means."""
    rows = []
    for rule, part in curves.groupby("rule", sort=False):
        for name, ratio in crossings(part).items():
            rows.append({"Rule": rule, "Curve": name.replace("_", " "),
                         "Crosses 0.5 at M_F/M_T": "not reached" if ratio is None else f"{ratio:.2f}",
                         "Meaning": CURVES[name]})
    return pd.DataFrame(rows)


def phase_figure(curve: pd.DataFrame) -> go.Figure:
    """F1 and both falsehood curves against M_F/M_T with 95 % bands and their crossings; one colour per
    curve, one dash style per rule (a curve without a ``rule`` column is drawn as one rule)."""
    fig = go.Figure()
    marks: list[tuple[float, str, str]] = []
    parts = curve.groupby("rule", sort=False) if "rule" in curve else [("", curve)]
    for rule, part in parts:
        x = part["ratio"].to_numpy()
        for name, colour in CURVE_COLOURS.items():
            fig.add_trace(go.Scatter(
                x=list(x) + list(x[::-1]), y=list(part[f"{name}_hi"]) + list(part[f"{name}_lo"][::-1]),
                fill="toself", line={"width": 0}, fillcolor=colour, opacity=0.15, showlegend=False,
                hoverinfo="skip"))
            label = {"f1": "F1", **{k: k.replace("_", " ") for k in CURVES}}[name]
            fig.add_trace(go.Scatter(x=x, y=part[name], mode="lines+markers",
                                     name=f"{label} ({rule})" if rule else label,
                                     line={"color": colour, "dash": rule_dash(rule)}))
        marks += [(ratio, name, rule) for name, ratio in crossings(part).items() if ratio is not None]
    for level, (ratio, name, rule) in enumerate(sorted(marks)):  # one row of labels each: they never overlap
        fig.add_vline(x=ratio, line_dash=rule_dash(rule) if rule else "dot", line_color=CURVE_COLOURS[name])
        fig.add_annotation(x=ratio, y=1 - 0.075 * level, xref="x", yref="paper", yanchor="top", showarrow=False,
                           xanchor="left", xshift=4, text=f"{name.replace('_', ' ')} {rule} ≈ {ratio:.2f}".strip(),
                           font={"color": TEXT_COLOUR}, bgcolor="rgba(255,255,255,0.8)")
    fig.update_layout(title="Misinformation load: phase transition", xaxis_title="misinformation load M_F / M_T",
                      yaxis_title="mean F1 / share of runs", yaxis_range=[0, 1.05], legend_title="curve (rule)",
                      height=520)
    return styled(fig)
