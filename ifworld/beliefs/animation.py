"""Animation builders over a :class:`Recording` (from ``simulate(..., record=True)``).

:func:`round_data` gives one round's drawable state (for a page stepping with ``st.fragment``);
the ``*_figure`` functions return plotly figures with one frame per round.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import plotly.graph_objects as go

from ifworld.beliefs.config import BOUNDED_SCALE
from ifworld.beliefs.domain import Domain
from ifworld.beliefs.recording import Recording
from ifworld.beliefs.rules import normalised

EDGE_TRUE, EDGE_FALSE, EDGE_NONE = "#2ca02c", "#d62728", "#bbbbbb"
FRAME_MS = 500


def fact_order(domain: Domain) -> np.ndarray:
    """Fact indices with true facts first, then false facts (heatmap column order)."""
    return np.concatenate([domain.true_facts, domain.false_facts])


def round_data(recording: Recording, domain: Domain, run: int = 0, t: int = 0) -> dict[str, Any]:
    """State of ``run`` after round ``t`` (0 = start): edges, belief matrix, scores, vote share.

    ``edges`` are (a, b, colour) with colour green when only true facts passed, red when a false
    fact passed, grey when nothing was sent. ``beliefs`` is agents × facts in :func:`fact_order`,
    normalised to [0, 1] (additive counts are shown per pair, bounded confidences as they are).
    """
    b = recording.beliefs[t, run]
    shown = b / BOUNDED_SCALE if recording.rule == "bounded" else normalised(b)
    edges: list[tuple[int, int, str]] = []
    vote_share = 0.0
    if t >= 1:
        partners = recording.partners[t - 1, run]
        sent, true = recording.messages[t - 1, run], recording.message_true[t - 1, run]
        for a, p in enumerate(partners):
            if p > a:
                passed = np.concatenate([sent[a], sent[p]]) >= 0
                flags = np.concatenate([true[a], true[p]])[passed]
                colour = EDGE_NONE if not passed.any() else (EDGE_TRUE if flags.all() else EDGE_FALSE)
                edges.append((a, int(p), colour))
        vote_share = float(recording.votes[t - 1, run].mean())
    return {
        "round": t, "edges": edges, "beliefs": shown[:, fact_order(domain)],
        "labels": [domain.labels[f] for f in fact_order(domain)], "true_count": domain.pairs,
        "precision": float(recording.precision[t, run]), "recall": float(recording.recall[t, run]),
        "f1": float(recording.f1[t, run]), "stop_share": vote_share,
    }


def _circle(n: int) -> tuple[np.ndarray, np.ndarray]:
    angle = 2 * np.pi * np.arange(n) / n
    return np.cos(angle), np.sin(angle)


def _network_traces(recording: Recording, domain: Domain, run: int, t: int) -> list[go.Scatter]:
    data = round_data(recording, domain, run, t)
    x, y = _circle(recording.beliefs.shape[2])
    traces = []
    for colour in (EDGE_TRUE, EDGE_FALSE, EDGE_NONE):
        ex, ey = [], []
        for a, b, c in data["edges"]:
            if c == colour:
                ex += [x[a], x[b], None]
                ey += [y[a], y[b], None]
        traces.append(go.Scatter(x=ex, y=ey, mode="lines", line={"color": colour, "width": 2},
                                 hoverinfo="skip", showlegend=False))
    liars = recording.liars[run]
    traces.append(go.Scatter(x=x, y=y, mode="markers+text", text=[str(i) for i in range(len(x))],
                             marker={"size": 14, "color": np.where(liars, "#9467bd", "#1f77b4")},
                             showlegend=False))
    return traces


def network_figure(recording: Recording, domain: Domain, run: int = 0) -> go.Figure:
    """Agents on a circle; per round, who talked to whom (green: true facts, red: a false one)."""
    frames = [go.Frame(data=_network_traces(recording, domain, run, t), name=str(t))
              for t in range(recording.rounds + 1)]
    fig = go.Figure(data=frames[0].data, frames=frames)
    fig.update_layout(title="Who talked to whom", xaxis={"visible": False}, yaxis={"visible": False},
                      **_player(recording.rounds))
    return fig


def belief_heatmap_figure(recording: Recording, domain: Domain, run: int = 0) -> go.Figure:
    """Agents × facts belief heatmap per round, true facts left of the dashed line, false right."""
    frames = []
    for t in range(recording.rounds + 1):
        data = round_data(recording, domain, run, t)
        frames.append(go.Frame(data=[go.Heatmap(z=data["beliefs"], x=data["labels"], zmin=0, zmax=1,
                                                colorscale="Viridis")], name=str(t)))
    fig = go.Figure(data=frames[0].data, frames=frames)
    fig.add_vline(x=domain.pairs - 0.5, line_dash="dash", line_color="white")
    fig.update_layout(title="Beliefs (true facts | false facts)", xaxis={"showticklabels": False},
                      yaxis_title="agent", **_player(recording.rounds))
    return fig


def metrics_figure(recording: Recording, run: int = 0) -> go.Figure:
    """Collective precision, recall and F1 per round, with the STOP-vote share."""
    t = np.arange(recording.rounds + 1)
    votes = np.concatenate([[0.0], recording.votes[:, run].mean(axis=1)])
    fig = go.Figure()
    for name in ("f1", "precision", "recall"):
        fig.add_trace(go.Scatter(x=t, y=getattr(recording, name)[:, run], name=name, mode="lines+markers"))
    fig.add_trace(go.Scatter(x=t, y=votes, name="STOP share", mode="lines", line={"dash": "dot"}))
    fig.update_layout(title="Collective knowledge over rounds", xaxis_title="round", yaxis_range=[0, 1.05])
    return fig


def _player(rounds: int) -> dict[str, Any]:
    """Play button and round slider shared by the animated figures."""
    steps = [{"args": [[str(t)], {"frame": {"duration": 0, "redraw": True}, "mode": "immediate"}],
              "label": str(t), "method": "animate"} for t in range(rounds + 1)]
    play = {"label": "Play", "method": "animate",
            "args": [None, {"frame": {"duration": FRAME_MS, "redraw": True}, "fromcurrent": True}]}
    return {"updatemenus": [{"type": "buttons", "buttons": [play], "x": 0, "y": -0.1}],
            "sliders": [{"steps": steps, "currentvalue": {"prefix": "round "}}]}
