"""Animation builders over a :class:`Recording` (from ``simulate(..., record=True)``).

:func:`round_data` gives one round's drawable state (for a page stepping with ``st.fragment``);
the ``*_figure`` functions return plotly figures with one frame per round.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import plotly.graph_objects as go

from ifworld.beliefs.config import BeliefConfig
from ifworld.beliefs.domain import Domain
from ifworld.beliefs.recording import Recording
from ifworld.beliefs.rules import UPDATE_RULES, get_rule, normalised
from ifworld.figstyle import NEGATIVE, NEVER_SEEN, NOTHING, POSITIVE, colour_name, styled

EDGE_TRUE, EDGE_FALSE, EDGE_NONE = POSITIVE, NEGATIVE, NOTHING  # colour-blind-safe (figstyle), never red/green
LIAR_COLOUR, HONEST_COLOUR = NEGATIVE, POSITIVE
EDGE_DASH = {EDGE_TRUE: "solid", EDGE_FALSE: "dash", EDGE_NONE: "dot"}  # and told apart without colour too
FRAME_MS = 500
MAX_STEP_LABELS = 31  # an animation slider writes each round under its tick up to this many rounds
MAX_DRAWN_AGENTS = 60  # larger populations: a fixed random sample of agents is drawn (no hairball)
NEVER_HEARD = NEVER_SEEN
CELL_LAYER = 1  # curve number of the click layer: it follows the heatmap trace in a still heatmap
MAX_CLICK_CELLS = 10_000  # one invisible SVG marker per cell; beyond this the inspector's select boxes remain


def fact_order(domain: Domain) -> np.ndarray:
    """Fact indices with true facts first, then false facts (heatmap column order)."""
    return np.concatenate([domain.true_facts, domain.false_facts])


def shown_beliefs(recording: Recording, b: np.ndarray) -> np.ndarray:
    """Beliefs (agents, 2K) as confidences in [0, 1], NaN where the agent never heard of the pair: the rule's
    ``shown`` hook when it has one (bounded, bayes), else b_f / (b_f + b_¬f); an LLM run's rule ``llm`` is
    not a registered rule and takes the default."""
    rule = None
    if recording.rule in UPDATE_RULES:  # the run's parameters that decide how units map to confidence
        rule = get_rule(recording.rule, BeliefConfig(rule=recording.rule, trust=recording.trust))
    hook = getattr(rule, "shown", None)
    if hook is not None:
        return np.asarray(hook(b))
    shown = normalised(b)
    unheard = (b[:, 0::2] + b[:, 1::2]) == 0  # a pair the agent never heard of is blank, not "disbelieved"
    shown[:, 0::2][unheard] = np.nan
    shown[:, 1::2][unheard] = np.nan
    return shown


def round_data(recording: Recording, domain: Domain, run: int = 0, t: int = 0) -> dict[str, Any]:
    """State of ``run`` after round ``t`` (0 = start): edges, belief matrix, scores, vote share.

    ``edges`` are (a, b, colour) with colour :data:`EDGE_TRUE` when only true facts passed, :data:`EDGE_FALSE` when
    a false fact passed, :data:`EDGE_NONE` when nothing was sent. ``beliefs`` is agents × facts in :func:`fact_order`,
    normalised to [0, 1] (additive counts are shown per pair, bounded confidences as they are), NaN
    where the agent never heard of the pair (0 = heard of it and disbelieves it).
    """
    shown = shown_beliefs(recording, recording.beliefs[t, run])
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


def drawn_agents(agents: int) -> np.ndarray:
    """The agents the network shows: all up to MAX_DRAWN_AGENTS, else a fixed random sample."""
    if agents <= MAX_DRAWN_AGENTS:
        return np.arange(agents)
    return np.sort(np.random.default_rng(0).choice(agents, MAX_DRAWN_AGENTS, replace=False))


def _network_traces(recording: Recording, domain: Domain, run: int, t: int) -> list[go.Scatter]:
    data = round_data(recording, domain, run, t)
    shown = drawn_agents(recording.beliefs.shape[2])
    pos = {int(a): i for i, a in enumerate(shown)}
    x, y = _circle(len(shown))
    traces = []
    for colour in (EDGE_TRUE, EDGE_FALSE, EDGE_NONE):
        ex, ey = [], []
        for a, b, c in data["edges"]:
            if c == colour and a in pos and b in pos:
                ex += [x[pos[a]], x[pos[b]], None]
                ey += [y[pos[a]], y[pos[b]], None]
        traces.append(go.Scatter(x=ex, y=ey, mode="lines", hoverinfo="skip", showlegend=False,
                                 line={"color": colour, "width": 2, "dash": EDGE_DASH[colour]}))
    liars = recording.liars[run][shown]
    believed = np.nan_to_num(data["beliefs"][shown][:, :data["true_count"]]) > 0.5
    hover = [f"agent {a}{' (liar)' if liars[i] else ''}: believes {int(believed[i].sum())} true facts"
             for i, a in enumerate(shown)]
    traces.append(go.Scatter(x=x, y=y, mode="markers+text", text=[str(a) for a in shown], hovertext=hover,
                             hoverinfo="text", marker={"size": 14 if len(shown) <= 30 else 9,
                                                       "color": np.where(liars, LIAR_COLOUR, HONEST_COLOUR),
                                                       "symbol": np.where(liars, "diamond", "circle")},
                             showlegend=False))
    return traces


def network_figure(recording: Recording, domain: Domain, run: int = 0) -> go.Figure:
    """Agents on a circle; per round, who talked to whom (colours and dashes as :func:`network_legend` says)."""
    frames = [go.Frame(data=_network_traces(recording, domain, run, t), name=str(t))
              for t in range(recording.rounds + 1)]
    fig = go.Figure(data=frames[0].data, frames=frames)
    n = recording.beliefs.shape[2]
    title = "Who talked to whom" if n <= MAX_DRAWN_AGENTS else f"Who talked to whom ({MAX_DRAWN_AGENTS} of {n} agents)"
    fig.update_layout(title=title, xaxis={"visible": False}, yaxis={"visible": False, "scaleanchor": "x"},
                      **_player(recording.rounds))
    return styled(fig)


def network_legend() -> str:
    """What :func:`network_figure` draws, in words named from the colours it draws with."""
    return (f"{colour_name(EDGE_TRUE)} solid = only true facts passed, {colour_name(EDGE_FALSE)} dashed = a false "
            f"fact passed, {colour_name(EDGE_NONE)} dotted = nothing sent; {colour_name(LIAR_COLOUR)} diamonds are "
            f"liars, {colour_name(HONEST_COLOUR)} circles honest agents")


def heatmap_legend() -> str:
    """What a cell of :func:`belief_heatmap_figure` without a value means, named from the colour behind it."""
    return f"{colour_name(NEVER_HEARD)} cells = never heard of (0 = heard of it and disbelieves it)"


def belief_heatmap_figure(recording: Recording, domain: Domain, run: int = 0) -> go.Figure:
    """Agents × facts belief heatmap per round, true facts left of the dashed line, false right."""
    frames = []
    for t in range(recording.rounds + 1):
        data = round_data(recording, domain, run, t)
        frames.append(go.Frame(data=[go.Heatmap(
            z=data["beliefs"], x=list(range(len(data["labels"]))), customdata=[data["labels"]] * len(data["beliefs"]),
            zmin=0, zmax=1, colorscale="Viridis", colorbar={"title": "confidence"},
            hovertemplate="agent %{y}<br>%{customdata}<br>confidence %{z:.2f}<extra></extra>")], name=str(t)))
    fig = go.Figure(data=frames[0].data, frames=frames)
    fig.add_vline(x=domain.pairs - 0.5, line_dash="dash", line_color="white")
    fig.update_layout(title="Beliefs: true facts | false facts",
                      xaxis={"showticklabels": False, "title": "fact (hover for the statement)"},
                      yaxis_title="agent", plot_bgcolor=NEVER_HEARD, **_player(recording.rounds))
    return styled(fig)


def add_cell_layer(fig: go.Figure) -> bool:
    """Make a still heatmap's cells clickable; False (figure unchanged) above :data:`MAX_CLICK_CELLS`.

    plotly.js cannot select heatmap cells (heatmaps have no point selection), so a click would never
    reach Streamlit's ``on_select``. One invisible marker per cell, trace :data:`CELL_LAYER`, row-major
    (point index = agent x columns + column), takes the click and the hover text; a selected cell is
    outlined."""
    heat = fig.data[0]
    z = np.asarray(heat.z, dtype=float)
    agents, cols = z.shape
    if agents * cols > MAX_CLICK_CELLS:
        return False
    labels = list(heat.customdata[0]) if heat.customdata is not None else [str(c) for c in range(cols)]
    custom = [[labels[c], "never heard of it" if np.isnan(z[a, c]) else f"confidence {z[a, c]:.2f}"]
              for a in range(agents) for c in range(cols)]
    heat.hoverinfo, heat.hovertemplate = "skip", None
    fig.add_trace(go.Scatter(
        x=np.tile(np.arange(cols), agents), y=np.repeat(np.arange(agents), cols), mode="markers",
        customdata=custom, showlegend=False,
        marker={"symbol": "square-open", "size": 10, "color": "white", "opacity": 0, "line": {"width": 2}},
        selected={"marker": {"opacity": 1}}, unselected={"marker": {"opacity": 0}},
        hovertemplate="agent %{y}<br>%{customdata[0]}<br>%{customdata[1]}<extra></extra>"))
    return True


def clicked_cell(points: list[dict[str, Any]], domain: Domain, agents: int) -> tuple[int, int] | None:
    """(fact index, agent) of the last clicked cell in a selection event's points (Streamlit's
    ``event.selection.points``), None when no point is on the click layer. The layer's column is the
    position in :func:`fact_order`, its row the agent."""
    order = fact_order(domain)
    cells = [p for p in points if p.get("curve_number") == CELL_LAYER
             and 0 <= int(p.get("point_index", -1)) < agents * len(order)]
    if not cells:
        return None
    agent, col = divmod(int(cells[-1]["point_index"]), len(order))
    return int(order[col]), agent


def metrics_figure(recording: Recording, run: int = 0) -> go.Figure:
    """Collective precision, recall and F1 per round, with the STOP-vote share."""
    t = np.arange(recording.rounds + 1)
    votes = np.concatenate([[0.0], recording.votes[:, run].mean(axis=1)])
    fig = go.Figure()
    for name in ("f1", "precision", "recall"):
        fig.add_trace(go.Scatter(x=t, y=getattr(recording, name)[:, run], name=name, mode="lines+markers"))
    fig.add_trace(go.Scatter(x=t, y=votes, name="STOP share", mode="lines", line={"dash": "dot"}))
    fig.update_layout(title="Collective knowledge over rounds", xaxis_title="round", yaxis_range=[0, 1.05],
                      yaxis_title="score / share")
    return styled(fig)


def agent_history(recording: Recording, domain: Domain, run: int, agent: int) -> list[dict[str, Any]]:
    """One row per round for one agent: partner, facts sent and received, STOP vote, believed facts."""
    rows = []
    label = lambda f: domain.labels[f]  # noqa: E731 - local shorthand
    for t in range(1, recording.rounds + 1):
        if not recording.active[t - 1, run]:
            break
        partner = int(recording.partners[t - 1, run, agent])
        sent = [label(f) for f in recording.messages[t - 1, run, agent] if f >= 0]
        got = [label(f) for f in recording.messages[t - 1, run, partner] if f >= 0] if partner >= 0 else []
        rows.append({"round": t, "met": "nobody" if partner < 0 else f"agent {partner}",
                     "sent": "; ".join(sent) or "—", "received": "; ".join(got) or "—",
                     "vote": "STOP" if recording.votes[t - 1, run, agent] else "continue",
                     "believes (true / false)": _believed_counts(recording, domain, run, agent, t)})
    return rows


def _believed_counts(recording: Recording, domain: Domain, run: int, agent: int, t: int) -> str:
    conf = np.nan_to_num(round_data(recording, domain, run, t)["beliefs"][agent]) > 0.5
    return f"{int(conf[:domain.pairs].sum())} / {int(conf[domain.pairs:].sum())}"


def agent_figure(recording: Recording, domain: Domain, run: int, agent: int) -> go.Figure:
    """One agent's confidence in every fact it ever heard of, over the rounds (true: solid, false: dotted)."""
    series = np.stack([round_data(recording, domain, run, t)["beliefs"][agent] for t in range(recording.rounds + 1)])
    order = fact_order(domain)
    fig = go.Figure()
    for col in np.flatnonzero(~np.isnan(series).all(axis=0)):
        true = col < domain.pairs
        fig.add_trace(go.Scatter(x=np.arange(len(series)), y=series[:, col], mode="lines",
                                 name=domain.labels[order[col]], line={"dash": "solid" if true else "dot",
                                                                       "color": EDGE_TRUE if true else EDGE_FALSE}))
    fig.update_layout(title=f"Agent {agent}: confidence per fact ({colour_name(EDGE_TRUE)} solid = true, "
                            f"{colour_name(EDGE_FALSE)} dotted = false)",
                      xaxis_title="round", yaxis_title="confidence", yaxis_range=[-0.02, 1.05], showlegend=False)
    return styled(fig)


def fact_holders(recording: Recording, domain: Domain, run: int, fact: int, t: int) -> dict[str, list[int]]:
    """Who believes ``fact`` after round ``t``, who believes its negation, who never heard of the pair."""
    b = recording.beliefs[t, run]
    data = round_data(recording, domain, run, t)["beliefs"]
    col = int(np.flatnonzero(fact_order(domain) == fact)[0])
    neg = int(np.flatnonzero(fact_order(domain) == (fact ^ 1))[0])
    heard = ~np.isnan(data[:, col])
    del b
    return {"believe it": [int(a) for a in np.flatnonzero(heard & (data[:, col] > 0.5))],
            "believe its negation": [int(a) for a in np.flatnonzero(heard & (data[:, neg] > 0.5))],
            "undecided": [int(a) for a in np.flatnonzero(heard & (data[:, col] == 0.5))],
            "never heard of it": [int(a) for a in np.flatnonzero(~heard)]}


def _player(rounds: int) -> dict[str, Any]:
    """Play button and round slider shared by the animated figures: the slider under the plot, the button left
    of it (never over it), the current round written above the slider's right end."""
    steps = [{"args": [[str(t)], {"frame": {"duration": 0, "redraw": True}, "mode": "immediate"}],
              "label": str(t), "method": "animate"} for t in range(rounds + 1)]
    many = rounds + 1 > MAX_STEP_LABELS  # the labels would run into each other: the current round alone is shown
    labels = {"size": 1, "color": "rgba(0,0,0,0)"} if many else {"size": 12}
    play = {"label": "▶ Play", "method": "animate",
            "args": [None, {"frame": {"duration": FRAME_MS, "redraw": True}, "fromcurrent": True}]}
    return {"updatemenus": [{"type": "buttons", "buttons": [play], "x": 0, "xanchor": "right", "y": 0,
                             "yanchor": "top", "pad": {"t": 62, "r": 12}}],
            "sliders": [{"steps": steps, "x": 0, "len": 1, "y": 0, "yanchor": "top", "pad": {"t": 50}, "font": labels,
                         "currentvalue": {"prefix": "round ", "xanchor": "right", "font": {"size": 13}}}]}
