"""Paper-style plotly figures from tidy sweep rows; builders return ``go.Figure`` and never show."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ifworld.beliefs.tables import PARAMETERS, varying_parameters

FIGURE1_EFFECTS = (
    ("bandwidth", "Bandwidth"), ("agents", "Population"), ("rounds", "Max rounds"),
    ("threshold", "Threshold"), ("strategy", "Strategy"), ("true_facts", "Initial correct facts"),
)
FIGURE1_TITLES = tuple(t for _, t in FIGURE1_EFFECTS) + (
    "Best performance (agents × bandwidth)", "Convergence by condition", "Precision vs recall",
    "Convergence speed", "Sensitivity (F1 range)", "Misinformation load",
)
PANEL_HEIGHT = 280


def _effect_traces(fig: go.Figure, rows: pd.DataFrame, param: str, r: int, c: int) -> None:
    for cond, part in rows.groupby("condition"):
        mean = part.groupby(param)["f1"].agg(["mean", "std"]).reset_index()
        fig.add_trace(go.Scatter(x=mean[param].astype(str), y=mean["mean"], name=str(cond),
                                 error_y={"type": "data", "array": mean["std"].fillna(0)},
                                 mode="lines+markers", legendgroup=str(cond), showlegend=(r, c) == (1, 1)),
                      row=r, col=c)


def figure1(rows: pd.DataFrame) -> go.Figure:
    """Figure 1 (4×3): parameter effects on F1, best-performance heatmap, convergence, P vs R,
    convergence-speed distribution, sensitivity and misinformation load."""
    fig = make_subplots(rows=4, cols=3, subplot_titles=FIGURE1_TITLES)
    for i, (param, _) in enumerate(FIGURE1_EFFECTS):
        _effect_traces(fig, rows, param, i // 3 + 1, i % 3 + 1)
    best = rows.pivot_table(index="agents", columns="bandwidth", values="f1", aggfunc="mean")
    fig.add_trace(go.Heatmap(z=best.to_numpy(), x=[str(c) for c in best.columns],
                             y=[str(i) for i in best.index], colorscale="Viridis", showscale=False),
                  row=3, col=1)
    conv = rows.groupby("condition")["converged"].mean()
    fig.add_trace(go.Bar(x=conv.index.astype(str), y=conv.to_numpy(), showlegend=False), row=3, col=2)
    fig.add_trace(go.Scatter(x=rows["recall"], y=rows["precision"], mode="markers", opacity=0.4,
                             marker={"size": 4}, showlegend=False), row=3, col=3)
    fig.add_trace(go.Histogram(x=rows["rounds_used"], showlegend=False), row=4, col=1)
    sens = sensitivity(rows)
    fig.add_trace(go.Bar(x=sens.index.astype(str), y=sens.to_numpy(), showlegend=False), row=4, col=2)
    _effect_traces(fig, rows, "false_facts", 4, 3)
    fig.update_layout(height=4 * PANEL_HEIGHT, title="Figure 1: belief exchange, heuristic agents")
    return fig


def sensitivity(rows: pd.DataFrame) -> pd.Series:
    """Range (max - min) of mean F1 across the values of each swept parameter."""
    out = {p: float(rows.groupby(p)["f1"].mean().pipe(lambda s: s.max() - s.min()))
           for p in varying_parameters(rows)}
    return pd.Series(out, dtype=float).sort_values(ascending=False)


def figure2(rows: pd.DataFrame) -> go.Figure:
    """Figure 2 (2×2): mean F1 by parameter value, F1 violin by condition, parameter×condition
    heatmap, convergence speed vs performance."""
    fig = make_subplots(rows=2, cols=2, subplot_titles=(
        "Mean F1 by parameter", "F1 by condition", "Parameter × condition (mean F1)",
        "Convergence speed vs performance"))
    params = varying_parameters(rows) or [p for p in PARAMETERS if p in rows][:1]
    for p in params:
        mean = rows.groupby(p)["f1"].mean()
        fig.add_trace(go.Bar(x=[f"{p}={v}" for v in mean.index], y=mean.to_numpy(), name=p), row=1, col=1)
    for cond, part in rows.groupby("condition"):
        fig.add_trace(go.Violin(y=part["f1"], name=str(cond), box_visible=True, showlegend=False),
                      row=1, col=2)
    cells = pd.concat([rows.assign(level=rows[p].map(lambda v, p=p: f"{p}={v}")) for p in params])
    heat = cells.pivot_table(index="level", columns="condition", values="f1", aggfunc="mean")
    fig.add_trace(go.Heatmap(z=heat.to_numpy(), x=heat.columns.astype(str), y=heat.index.astype(str),
                             colorscale="Viridis", showscale=False), row=2, col=1)
    per = rows.groupby([p for p in PARAMETERS if p in rows])[["rounds_used", "f1"]].mean()
    fig.add_trace(go.Scatter(x=per["rounds_used"], y=per["f1"], mode="markers", showlegend=False),
                  row=2, col=2)
    fig.update_layout(height=2 * PANEL_HEIGHT + 200, title="Figure 2: parameter and condition effects")
    return fig
