"""Paper-style plotly figures from tidy sweep rows; builders return ``go.Figure`` and never show.

Readability rules: one colour per condition across every panel (:func:`condition_colours`), axis
titles on every panel, colour bars on heatmaps, categorical parameters on categorical axes, a
"not swept" note instead of an empty panel, violins clipped to [0, 1]. :func:`figure_image`
exports PNG / SVG for slides when the optional ``kaleido`` package is installed.
"""

from __future__ import annotations

import importlib.util
from typing import Any

import pandas as pd
import plotly.graph_objects as go
from plotly.colors import qualitative
from plotly.subplots import make_subplots

from ifworld.beliefs.tables import PARAMETERS, WORDS, varying_parameters
from ifworld.errors import ConfigError, InputError
from ifworld.figstyle import COLOUR_BAR, styled, wrap_label
from ifworld.safe_figure import inert_figure

FIGURE1_EFFECTS = (
    ("bandwidth", "Bandwidth"), ("agents", "Population"), ("rounds", "Max rounds"),
    ("threshold", "Threshold"), ("strategy", "Strategy"), ("true_facts", "Initial correct facts"),
)
FIGURE1_TITLES = tuple(t for _, t in FIGURE1_EFFECTS) + (
    "Best performance<br>(agents × bandwidth)", "Convergence by condition", "Precision vs recall",
    "Sensitivity (F1 range)", "Convergence speed", "Misinformation load M_F<br>(ours: the paper gives no data)",
)
PANEL_HEIGHT = 300
ROW_GAP_PX = 120  # between panel rows: the x ticks and title of one row, the panel titles of the next
COL_GAP = 0.09  # between panel columns (share of the width): the y ticks and title of the next column
PALETTE = qualitative.Plotly + qualitative.Dark24
HEAT_SCALE = "Viridis"
HAS_KALEIDO = importlib.util.find_spec("kaleido") is not None


def condition_colours(rows: pd.DataFrame) -> dict[str, str]:
    """One fixed colour per condition (sorted), shared by every panel and figure."""
    return {c: PALETTE[i % len(PALETTE)] for i, c in enumerate(sorted(rows["condition"].astype(str).unique()))}


def _categorical(rows: pd.DataFrame, param: str) -> bool:
    kind = rows[param].dtype
    return pd.api.types.is_bool_dtype(kind) or not pd.api.types.is_numeric_dtype(kind)


def _swept(rows: pd.DataFrame, param: str) -> bool:
    return param in rows and rows[param].nunique() > 1


def _not_swept(fig: go.Figure, rows: pd.DataFrame, param: str, r: int, c: int) -> bool:
    """Note "not swept (param = value)" in a panel whose parameter takes one value; True if so."""
    if param in rows and rows[param].nunique() > 1:
        return False
    value = rows[param].iloc[0] if param in rows and len(rows) else "—"
    fig.add_trace(go.Scatter(x=[0], y=[0], mode="text", text=[f"not swept<br>({param} = {value})"],
                             textfont={"size": 13, "color": "grey"}, showlegend=False, hoverinfo="skip"),
                  row=r, col=c)
    fig.update_xaxes(visible=False, row=r, col=c)
    fig.update_yaxes(visible=False, row=r, col=c)
    return True


def _note(fig: go.Figure, text: str, r: int, c: int) -> None:
    """A grey note in the middle of panel (r, c), in place of data that would leave it empty."""
    fig.add_annotation(text=text, xref="x domain", yref="y domain", x=0.5, y=0.5, showarrow=False,
                       font={"size": 12, "color": "grey"}, bgcolor="rgba(255,255,255,0.85)", row=r, col=c)


def _effect_traces(fig: go.Figure, rows: pd.DataFrame, param: str, r: int, c: int,
                   colours: dict[str, str], legend: bool, y_title: bool = True) -> None:
    if _not_swept(fig, rows, param, r, c):
        return
    for cond, part in rows.groupby("condition"):
        mean = part.groupby(param)["f1"].agg(["mean", "std"]).reset_index()
        x = mean[param].astype(str) if _categorical(rows, param) else mean[param]
        fig.add_trace(go.Scatter(x=x, y=mean["mean"], name=str(cond), legendgroup=str(cond), showlegend=legend,
                                 error_y={"type": "data", "array": mean["std"].fillna(0)},
                                 mode="lines+markers", line={"color": colours[str(cond)]}), row=r, col=c)
    fig.update_xaxes(title_text=WORDS.get(param, param), type="category" if _categorical(rows, param) else None,
                     row=r, col=c)
    if y_title:  # a title in the column gap sat on the error bars of the panel to its left
        fig.update_yaxes(title_text="mean F1 ± std", row=r, col=c)


def figure1(rows: pd.DataFrame) -> go.Figure:
    """Figure 1 (4×3): parameter effects on F1, best-performance heatmap, convergence, P vs R,
    sensitivity, convergence-speed distribution and misinformation load."""
    colours = condition_colours(rows)
    height = 4 * PANEL_HEIGHT + 3 * ROW_GAP_PX
    fig = make_subplots(rows=4, cols=3, subplot_titles=FIGURE1_TITLES, vertical_spacing=ROW_GAP_PX / height,
                        horizontal_spacing=COL_GAP)
    for i, (param, _) in enumerate(FIGURE1_EFFECTS):
        # a y title in the gap beside a swept panel sat on that panel's error bars: the row shares one title
        beside_data = i % 3 > 0 and _swept(rows, FIGURE1_EFFECTS[i - 1][0])
        _effect_traces(fig, rows, param, i // 3 + 1, i % 3 + 1, colours, legend=i == 0, y_title=not beside_data)
    if rows["agents"].nunique() > 1 or rows["bandwidth"].nunique() > 1:
        best = rows.pivot_table(index="agents", columns="bandwidth", values="f1", aggfunc="mean")
        fig.add_trace(go.Heatmap(z=best.to_numpy(), x=[str(c) for c in best.columns], y=[str(i) for i in best.index],
                                 colorscale=HEAT_SCALE, zmin=0, zmax=1, showscale=True,
                                 colorbar=_colour_bar(fig, 3, "mean F1 (best performance)")), row=3, col=1)
        fig.update_xaxes(title_text="Bandwidth C", type="category", row=3, col=1)
        fig.update_yaxes(title_text="Agents N", type="category", row=3, col=1)
    else:
        _not_swept(fig, rows, "agents", 3, 1)
    conv = rows.groupby("condition")["converged"].mean()
    fig.add_trace(go.Bar(x=conv.index.astype(str), y=conv.to_numpy(), showlegend=False,
                         marker_color=[colours[str(c)] for c in conv.index]), row=3, col=2)
    fig.update_xaxes(title_text="Condition", type="category", row=3, col=2)
    fig.update_yaxes(title_text="share stopped by vote", range=[0, 1.05], row=3, col=2)
    if not rows["converged"].any():
        for r, c in ((3, 2), (4, 2)):
            _note(fig, wrap_label(f"no run stopped by vote: all used {int(rows['rounds_used'].max())} rounds", 16),
                  r, c)
    for cond, part in rows.groupby("condition"):
        fig.add_trace(go.Scatter(x=part["recall"], y=part["precision"], mode="markers", opacity=0.4,
                                 marker={"size": 4, "color": colours[str(cond)]}, name=str(cond),
                                 legendgroup=str(cond), showlegend=False), row=3, col=3)
        fig.add_trace(go.Histogram(x=part["rounds_used"], marker_color=colours[str(cond)], opacity=0.6,
                                   name=str(cond), legendgroup=str(cond), showlegend=False), row=4, col=2)
    fig.update_xaxes(title_text="Recall", range=[0, 1.02], row=3, col=3)
    fig.update_yaxes(title_text="Precision", range=[0, 1.02], row=3, col=3)
    fig.update_xaxes(title_text="Rounds used", row=4, col=2)
    fig.update_yaxes(title_text="runs", row=4, col=2)
    sens = sensitivity(rows)
    if len(sens):
        fig.add_trace(go.Bar(y=[WORDS.get(p, p) for p in sens.index], x=sens.to_numpy(), showlegend=False,
                             marker_color="grey", orientation="h"), row=4, col=1)  # left column: its labels
        fig.update_yaxes(title_text="Parameter", type="category", autorange="reversed", row=4, col=1)  # get room
        fig.update_xaxes(title_text="F1 range (max − min)", row=4, col=1)
    else:
        _not_swept(fig, rows, "agents", 4, 1)
    _effect_traces(fig, rows, "false_facts", 4, 3, colours, legend=False)
    fig.update_layout(height=height, title="Figure 1: belief exchange, heuristic agents", barmode="overlay",
                      legend_title="Condition")
    return styled(fig)


def _colour_bar(fig: go.Figure, row: int, title: str) -> dict[str, Any]:
    """A colour bar at the figure's right edge, beside panel row ``row`` (never inside the grid)."""
    low, high = fig.get_subplot(row, 1).yaxis.domain
    return {**COLOUR_BAR, "title": {**COLOUR_BAR["title"], "text": title}, "x": 1.02, "xanchor": "left",
            "y": (low + high) / 2, "len": high - low, "yanchor": "middle"}


def sensitivity(rows: pd.DataFrame) -> pd.Series:
    """Range (max - min) of mean F1 across the values of each swept parameter."""
    out = {p: float(rows.groupby(p)["f1"].mean().pipe(lambda s: s.max() - s.min()))
           for p in varying_parameters(rows)}
    return pd.Series(out, dtype=float).sort_values(ascending=False)


def figure2(rows: pd.DataFrame) -> go.Figure:
    """Figure 2 (2×2): mean F1 by parameter value, F1 violin by condition, parameter×condition
    heatmap, convergence speed vs performance."""
    colours = condition_colours(rows)
    params = varying_parameters(rows) or [p for p in PARAMETERS if p in rows][:1]
    levels = sum(int(rows[p].nunique()) for p in params)
    top = max(PANEL_HEIGHT, 34 * levels)
    height = 2 * top + ROW_GAP_PX
    fig = make_subplots(rows=2, cols=2, subplot_titles=(  # short: at the 16 px minimum they must not meet
        "Mean F1 by parameter", "F1 by condition", "Parameter × condition", "Speed vs performance"),
        vertical_spacing=ROW_GAP_PX / height, horizontal_spacing=0.16)
    for p in params:
        mean = rows.groupby(p)["f1"].mean()
        fig.add_trace(go.Bar(y=[_level(p, v) for v in mean.index], x=mean.to_numpy(), name=WORDS.get(p, p),
                             showlegend=False, orientation="h"), row=1, col=1)
    fig.update_yaxes(title_text="parameter = value", type="category", autorange="reversed", row=1, col=1)
    fig.update_xaxes(title_text="mean F1", range=[0, 1], row=1, col=1)
    for cond, part in rows.groupby("condition"):
        fig.add_trace(go.Violin(y=part["f1"], name=wrap_label(str(cond).replace("_", " "), 12), box_visible=True,
                                showlegend=False, span=[0, 1],
                                spanmode="manual", line_color=colours[str(cond)]), row=1, col=2)
    fig.update_xaxes(title_text="Condition", type="category", row=1, col=2)
    fig.update_yaxes(title_text="F1 per run", range=[0, 1.02], row=1, col=2)
    cells = pd.concat([rows.assign(level=rows[p].map(lambda v, p=p: _level(p, v))) for p in params])
    heat = cells.pivot_table(index="level", columns="condition", values="f1", aggfunc="mean", sort=False)
    fig.add_trace(go.Heatmap(z=heat.to_numpy(), x=[wrap_label(str(c).replace("_", " "), 12) for c in heat.columns],
                             y=heat.index.astype(str), colorscale=HEAT_SCALE, zmin=0, zmax=1, showscale=True,
                             colorbar=_colour_bar(fig, 2, "mean F1")), row=2, col=1)
    fig.update_xaxes(title_text="Condition", type="category", row=2, col=1)
    fig.update_yaxes(title_text="parameter = value", type="category", autorange="reversed", row=2, col=1)
    keys = [p for p in PARAMETERS if p in rows] + ["condition"]
    per = rows.groupby(keys, dropna=False)[["rounds_used", "f1"]].mean().reset_index()
    for cond, part in per.groupby("condition"):
        fig.add_trace(go.Scatter(x=part["rounds_used"], y=part["f1"], mode="markers", name=str(cond),
                                 marker={"color": colours[str(cond)]}, legendgroup=str(cond)), row=2, col=2)
    fig.update_xaxes(title_text="mean rounds used<br>(per configuration)", row=2, col=2)
    fig.update_yaxes(title_text="mean F1", range=[0, 1.02], row=2, col=2)
    fig.update_xaxes(tickangle=0, row=1, col=2)
    fig.update_xaxes(tickangle=0, row=2, col=1)
    fig.update_layout(height=height, title="Figure 2: parameter and condition effects", legend_title="Condition")
    return styled(fig)


def _level(param: str, value: object) -> str:
    """A parameter level as people read it: "Agents = 20"."""
    return f"{WORDS.get(param, param)} = {value}"


def figure_image(fig: go.Figure, fmt: str = "png", width: int = 1400) -> bytes:
    """The figure as PNG or SVG bytes (needs the optional ``kaleido`` package and a Chromium)."""
    if fmt not in ("png", "svg"):
        raise InputError(f"format must be png or svg; got {fmt!r}")
    if not HAS_KALEIDO:
        raise ConfigError("image export needs the kaleido package: pip install 'ifworld[export]'")
    return inert_figure(fig).to_image(format=fmt, width=width, height=int(fig.layout.height or 800), scale=1)
