"""Phase transition under misinformation load: F1 and lock-on-falsehood vs M_F / M_T.

A run *locks onto falsehood* when its collective accepts at least one false fact (for some pair the
population prefers ¬truth above the threshold). ``false_majority`` is the stricter event that the
collective accepts at least as many false facts as true ones. Bands are 95 % normal-approximation
confidence intervals of the mean over runs (Wilson intervals for shares).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ifworld.beliefs.config import BeliefConfig
from ifworld.beliefs.engine import simulate

Z95 = 1.959964
LOCK_LEVEL = 0.5


def phase_transition(
    base: BeliefConfig, false_counts: Iterable[int], runs: int = 200, seed: int = 0
) -> pd.DataFrame:
    """One row per M_F value: ratio M_F/M_T, mean F1/precision/recall with 95 % bands, lock shares.

    Each M_F value gets its own seed spawned from ``seed`` (independent streams).
    """
    counts = [int(m) for m in false_counts]
    if not counts:
        raise ValueError("false_counts must not be empty")
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
        events = (("lock_share", n_false > 0), ("false_majority", n_false >= np.maximum(n_true, 1)))
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


def phase_figure(curve: pd.DataFrame) -> go.Figure:
    """F1 and lock-on-falsehood share against M_F/M_T with 95 % bands and the critical ratio."""
    fig = go.Figure()
    for name, colour in (("f1", "#1f77b4"), ("lock_share", "#d62728"), ("false_majority", "#ff7f0e")):
        x = curve["ratio"]
        fig.add_trace(go.Scatter(
            x=list(x) + list(x[::-1]), y=list(curve[f"{name}_hi"]) + list(curve[f"{name}_lo"][::-1]),
            fill="toself", line={"width": 0}, fillcolor=colour, opacity=0.2, showlegend=False,
            hoverinfo="skip",
        ))
        fig.add_trace(go.Scatter(x=x, y=curve[name], mode="lines+markers", name=name, line={"color": colour}))
    crit = critical_ratio(curve)
    if crit is not None:
        fig.add_vline(x=crit, line_dash="dash", annotation_text=f"critical ≈ {crit:.2f}")
    fig.update_layout(title="Misinformation load: phase transition", xaxis_title="M_F / M_T",
                      yaxis_title="value", yaxis_range=[0, 1.05])
    return fig
