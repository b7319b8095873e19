"""Pure plotly figures of a what-if report (no streamlit): the page, the Runs page and the HTML export use
the same builders, and every number in them goes through :mod:`ifworld.whatif.numbers`."""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ifworld.figstyle import TOOLBAR_PX, styled, wrap_label
from ifworld.whatif.numbers import interval, pct
from ifworld.whatif.schemas import CalibrationRange, ScenarioAnalysis

CI_LEVELS = (("ci95", "95 % interval", "#bbdefb"), ("ci80", "80 % interval", "#64b5f6"),
             ("ci50", "50 % interval", "#1565c0"))
FLAT_MARKER = "line-ns-open"
ROW_PX, GAP_PX, EDGE_PX = 105, 95, 90
"""Calibration chart: pixels per quantity row, between rows (the x ticks and the next row's title fit in it)
and for the title and legend above plus the ticks below."""


def _pair(values: list[float]) -> tuple[float, float] | None:
    return (min(values[0], values[1]), max(values[0], values[1])) if len(values) == 2 else None


def calibration_figure(ranges: list[CalibrationRange]) -> go.Figure | None:
    """50/80/95 % interval bars per quantity (one row each, its own unit and x axis). A degenerate
    interval (low = high) is drawn as a tick mark, never as a bar on a 1e-9-wide axis."""
    rows = [r for r in ranges if any(_pair(getattr(r, k)) for k, _, _ in CI_LEVELS)]
    if not rows:
        return None
    plot_px = len(rows) * ROW_PX + (len(rows) - 1) * GAP_PX
    titles = [wrap_label(f"{r.quantity} ({r.unit})" if r.unit else r.quantity, 56) for r in rows]
    fig = make_subplots(rows=len(rows), cols=1, vertical_spacing=GAP_PX / plot_px if len(rows) > 1 else 0,
                        subplot_titles=titles)
    for i, row in enumerate(rows, start=1):
        ends = [v for k, _, _ in CI_LEVELS for v in (_pair(getattr(row, k)) or ())]
        low, high = min(ends), max(ends)
        pad = (high - low) * 0.05 or max(abs(low) * 0.1, 1.0)
        for key, label, colour in CI_LEVELS:
            iv = _pair(getattr(row, key))
            if not iv:
                continue
            hover = f"{label}: {interval(list(iv), row.unit)}<extra></extra>"
            common = dict(y=[label], name=label, showlegend=i == 1, legendgroup=label, hovertemplate=hover)
            if iv[1] > iv[0]:
                fig.add_trace(go.Bar(x=[iv[1] - iv[0]], base=[iv[0]], orientation="h", marker_color=colour,
                                     **common), row=i, col=1)
            else:
                fig.add_trace(go.Scatter(x=[iv[0]], mode="markers", marker=dict(symbol=FLAT_MARKER, size=18,
                                                                                 color=colour), **common),
                              row=i, col=1)
        fig.update_xaxes(range=[low - pad, high + pad], nticks=7, row=i, col=1)
    fig.update_yaxes(type="category", categoryorder="array", categoryarray=[lab for _, lab, _ in CI_LEVELS])
    top = TOOLBAR_PX + 8 + 22 * (titles[0].count("<br>") + 1)  # the first title sits in the top margin
    fig.update_layout(height=plot_px + 2 * EDGE_PX, barmode="overlay", legend_title="interval", margin_t=top)
    return styled(fig)


def scenario_figure(scenarios: list[ScenarioAnalysis]) -> go.Figure | None:
    """Probability per scenario branch (percent, labelled with the shared formatter)."""
    rows = [s for s in scenarios if s.name]
    if not rows:
        return None
    fig = go.Figure(go.Bar(x=[s.probability_pct for s in rows],
                           y=[wrap_label(f"{s.id} {s.name}".strip(), 28) for s in rows],
                           orientation="h", text=[pct(s.probability_pct) for s in rows], marker_color="#6a1b9a"))
    fig.update_layout(height=110 + 48 * len(rows), xaxis=dict(range=[0, 100], ticksuffix=" %", title="probability"),
                      yaxis=dict(autorange="reversed"))
    return styled(fig)
