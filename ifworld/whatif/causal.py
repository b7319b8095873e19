"""The causal graph of a what-if run: every expert's causal edges plus the report's causal map, merged.

A node is a mechanism or quantity (labels merged case- and whitespace-insensitively) with the domain
that mentions it most; an edge keeps its sign, strength, the domains involved and *who* said it
(``"economics r1"``, ``"report"``) so the map stays traceable to the experts. Metrics (influence,
feedback loops), filtering, a deterministic layout and a plotly figure are built from that one graph.
The graph is built from a typed :class:`~ifworld.whatif.records.WhatIfRecord`; a stored dict is validated
once on the way in, so a malformed record fails there with the run and field named. No streamlit here:
the pages only call these functions.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np
import plotly.graph_objects as go

from ifworld.figstyle import (
    AMBER_HALO,
    FONT_SIZE,
    MIXED,
    NEGATIVE,
    POSITIVE,
    PURPLE,
    PURPLE_HALO,
    SERIES_COLOURS,
    SYMBOLS,
    TEXT_COLOUR,
    TOOLBAR_PX,
    colour_name,
    styled,
    wrap_label,
)
from ifworld.whatif.causal_layout import (
    DESIGN_WIDTH_PX,
    LABEL_WRAP,
    LINE_PX,
    exit_px,
    footprints,
    marker_diameter,
    pair_shifts,
    place_nodes,
    place_signs,
    point_along,
    text_box_px,
    text_width_px,
)
from ifworld.whatif.causal_routes import route, visible
from ifworld.whatif.records import WhatIfRecord, load_record
from ifworld.whatif.schemas import CausalEdge, CausalMap

MAX_CYCLE_LENGTH = 6
HEAT_WRAP, HEAT_ROW_PX = 20, 44  # the heatmap's domain names: characters per line, and the least row height
MAX_CYCLES = 50
PAGERANK_DAMPING = 0.85
PAGERANK_ITERATIONS = 100
UNKNOWN_DOMAIN = "unspecified"
SIGN_COLOURS = {"+": POSITIVE, "-": NEGATIVE, "±": MIXED}  # colour-blind-safe; each edge also shows its sign
CROSS_DOMAIN_COLOUR, CYCLE_COLOUR, CYCLE_NODE_COLOUR = AMBER_HALO, PURPLE_HALO, PURPLE
DOMAIN_PALETTE = SERIES_COLOURS  # Okabe & Ito; each domain also has its own marker shape (SYMBOLS)
_NEGATIVE_SIGNS = {"-", "−", "negative", "neg", "decrease", "decreases", "reduces", "inhibits", "down"}
_POSITIVE_SIGNS = {"+", "positive", "pos", "increase", "increases", "raises", "amplifies", "up"}


def normalise_label(label: Any) -> str:
    """Merge key for a node label: lower case, single spaces, no surrounding punctuation."""
    return re.sub(r"\s+", " ", str(label or "")).strip().strip(".;:,").strip().lower()


def _sign(value: Any) -> str:
    text = str(value or "+").strip().lower()
    if text in _NEGATIVE_SIGNS:
        return "-"
    if text in _POSITIVE_SIGNS:
        return "+"
    return "±" if text in ("±", "+/-", "mixed", "ambiguous") else "+"


def _strength(value: Any) -> int:
    try:
        return min(3, max(1, int(round(float(value)))))
    except (TypeError, ValueError):
        return 2


def _edge_domains(domains: Iterable[Any]) -> list[str]:
    return [str(d).strip() for d in domains if str(d).strip()]


@dataclass(frozen=True)
class EdgeMention:
    """One causal edge as someone stated it: its ends as labels (a report map's node ids resolved), who said
    it (``"economics r1"``, ``"report"``), the expert's domain, and the domains of the ends when the report's
    map names them."""
    edge: CausalEdge
    said_by: str
    domain: str | None = None
    source_domain: str | None = None
    target_domain: str | None = None


def _causal_map(rec: WhatIfRecord) -> CausalMap:
    return rec.report.causal_map if rec.report is not None else CausalMap()


def collect_edges(record: WhatIfRecord | dict[str, Any] | None) -> list[EdgeMention]:
    """All causal edges in a record (experts of every round first, then the report's causal map).

    A dict is validated here (:func:`ifworld.whatif.records.load_record`; :class:`RecordError` if it cannot be)."""
    rec = load_record(record)
    found = [EdgeMention(edge, f"{domain} r{rnd.round}", domain)
             for rnd in rec.rounds for domain, output in rnd.experts.items() for edge in output.key_causal_edges]
    cmap = _causal_map(rec)
    nodes = {node.id: node for node in cmap.nodes}
    for edge in cmap.edges:
        src, dst = nodes.get(edge.source), nodes.get(edge.target)
        ends = {end: node.label or node.id for end, node in (("source", src), ("target", dst)) if node}
        found.append(EdgeMention(edge.model_copy(update=ends), "report", None,
                                 (src.domain or None) if src else None, (dst.domain or None) if dst else None))
    return found


def build_causal_graph(record: WhatIfRecord | dict[str, Any] | None) -> nx.DiGraph:
    """Merge every expert's ``key_causal_edges`` (all rounds) and the report's ``causal_map``.

    A dict record is validated once (:func:`ifworld.whatif.records.load_record`), so a malformed one raises
    :class:`RecordError` naming the field. Node attributes: ``label``, ``domain`` (most frequent),
    ``domains`` (counts), ``mentions``. Edge attributes: ``sign`` (majority; ``±`` on a tie), ``strength``
    (rounded mean, 1–3), ``domains``, ``sources``, ``count``, ``mechanisms``, ``cross_domain``, ``weight``.
    """
    rec = load_record(record)
    graph = nx.DiGraph()
    node_domains: dict[str, Counter] = {}
    labels: dict[str, Counter] = {}
    edges: dict[tuple[str, str], dict[str, Any]] = {}
    for node in _causal_map(rec).nodes:
        key = normalise_label(node.label or node.id)
        if key:
            labels.setdefault(key, Counter())[str(node.label or node.id).strip()] += 1
            node_domains.setdefault(key, Counter())[node.domain or UNKNOWN_DOMAIN] += 1
    for mention in collect_edges(rec):
        edge, default_domain = mention.edge, mention.domain
        src, dst = normalise_label(edge.source), normalise_label(edge.target)
        if not src or not dst:
            continue
        doms = _edge_domains(edge.domains)
        first, last = (doms[0], doms[-1]) if doms else (default_domain, default_domain)
        ends = ((src, edge.source, mention.source_domain or first),
                (dst, edge.target, mention.target_domain or last))
        for key, raw, dom in ends:
            labels.setdefault(key, Counter())[re.sub(r"\s+", " ", raw).strip()] += 1
            node_domains.setdefault(key, Counter())[str(dom or UNKNOWN_DOMAIN)] += 1
        acc = edges.setdefault((src, dst), {"signs": Counter(), "strengths": [], "domains": set(),
                                            "sources": [], "mechanisms": []})
        acc["signs"][_sign(edge.sign)] += 1
        acc["strengths"].append(_strength(edge.strength))
        acc["domains"].update(doms or ([default_domain] if default_domain else []))
        acc["sources"].append(mention.said_by)
        mech = edge.mechanism.strip()
        if mech and mech not in acc["mechanisms"]:
            acc["mechanisms"].append(mech)
    for key, counts in labels.items():
        domains = node_domains.get(key, Counter())
        known = Counter({d: c for d, c in domains.items() if d != UNKNOWN_DOMAIN}) or domains
        graph.add_node(key, label=counts.most_common(1)[0][0], domain=_top(known) or UNKNOWN_DOMAIN,
                       domains=dict(domains), mentions=sum(counts.values()))
    for (src, dst), acc in edges.items():
        top = acc["signs"].most_common()
        sign = "±" if len(top) > 1 and top[0][1] == top[1][1] else top[0][0]
        strength = _strength(sum(acc["strengths"]) / len(acc["strengths"]))
        cross = graph.nodes[src]["domain"] != graph.nodes[dst]["domain"] or len(acc["domains"]) > 1
        graph.add_edge(src, dst, sign=sign, strength=strength, weight=float(strength),
                       domains=sorted(acc["domains"]), sources=acc["sources"], count=len(acc["sources"]),
                       mechanisms=acc["mechanisms"], cross_domain=bool(cross))
    return graph


def _top(counter: Counter) -> str | None:
    if not counter:
        return None
    best = max(counter.values())
    return sorted(k for k, v in counter.items() if v == best)[0]


def pagerank(graph: nx.DiGraph, damping: float = PAGERANK_DAMPING) -> dict[str, float]:
    """Strength-weighted PageRank by power iteration (numpy only; networkx's version needs scipy)."""
    nodes = list(graph.nodes)
    n = len(nodes)
    if n == 0:
        return {}
    index = {v: i for i, v in enumerate(nodes)}
    matrix = np.zeros((n, n))
    for u, v, data in graph.edges(data=True):
        matrix[index[v], index[u]] += float(data.get("weight", 1.0))
    out = matrix.sum(axis=0)
    dangling = out == 0
    matrix[:, ~dangling] /= out[~dangling]
    rank = np.full(n, 1.0 / n)
    for _ in range(PAGERANK_ITERATIONS):
        new = damping * (matrix @ rank + rank[dangling].sum() / n) + (1 - damping) / n
        if np.abs(new - rank).sum() < 1e-10:
            rank = new
            break
        rank = new
    return {v: float(rank[i]) for v, i in index.items()}


def influential_nodes(graph: nx.DiGraph, top: int = 10) -> list[dict[str, Any]]:
    """Nodes ranked by strength-weighted out-degree, then PageRank: what drives the most."""
    ranks = pagerank(graph)
    rows = [{"node": n, "label": d.get("label", n), "domain": d.get("domain", UNKNOWN_DOMAIN),
             "out_strength": float(graph.out_degree(n, weight="weight")),
             "in_strength": float(graph.in_degree(n, weight="weight")),
             "pagerank": round(ranks.get(n, 0.0), 4), "mentions": d.get("mentions", 0)}
            for n, d in graph.nodes(data=True)]
    rows.sort(key=lambda r: (-r["out_strength"], -r["pagerank"], r["label"]))
    return rows[:top]


def feedback_loops(graph: nx.DiGraph, max_length: int = MAX_CYCLE_LENGTH,
                   max_count: int = MAX_CYCLES) -> list[dict[str, Any]]:
    """Feedback loops (simple cycles up to ``max_length`` nodes, at most ``max_count``).

    A loop with an even number of ``-`` edges is *reinforcing*, an odd number *balancing*.
    """
    loops: list[dict[str, Any]] = []
    for found in nx.simple_cycles(graph, length_bound=max_length):
        # networkx starts a cycle at a node picked from a set (string-hash order, varies per process):
        # start at the smallest node so a loop reads the same in every run
        start = found.index(min(found))
        cycle = found[start:] + found[:start]
        pairs = list(zip(cycle, cycle[1:] + cycle[:1], strict=True))
        signs = [graph.edges[u, v].get("sign", "+") for u, v in pairs]
        kind = "mixed" if "±" in signs else ("balancing" if signs.count("-") % 2 else "reinforcing")
        loops.append({"nodes": list(cycle), "labels": [graph.nodes[n].get("label", n) for n in cycle],
                      "length": len(cycle), "kind": kind,
                      "strength": min(graph.edges[u, v].get("strength", 1) for u, v in pairs),
                      "cross_domain": len({graph.nodes[n].get("domain") for n in cycle}) > 1})
        if len(loops) >= max_count:
            break
    loops.sort(key=lambda c: (c["length"], -c["strength"], c["labels"]))
    return loops


def cycle_edges(loops: Iterable[dict[str, Any]]) -> set[tuple[str, str]]:
    """The edges that lie on any of the given loops."""
    found: set[tuple[str, str]] = set()
    for loop in loops:
        nodes = loop["nodes"]
        found.update(zip(nodes, nodes[1:] + nodes[:1], strict=True))
    return found


def domains_of(graph: nx.DiGraph) -> list[str]:
    return sorted({d.get("domain", UNKNOWN_DOMAIN) for _, d in graph.nodes(data=True)})


def filter_graph(graph: nx.DiGraph, domains: Iterable[str] | None = None, min_strength: int = 1,
                 cross_domain_only: bool = False) -> nx.DiGraph:
    """A copy keeping nodes of ``domains`` (None = all) and edges with strength ≥ ``min_strength``
    (only cross-domain ones if asked); nodes left without any edge by the edge filters are dropped."""
    keep_domains = set(domains) if domains is not None else None
    nodes = [n for n, d in graph.nodes(data=True)
             if keep_domains is None or d.get("domain", UNKNOWN_DOMAIN) in keep_domains]
    sub = graph.subgraph(nodes).copy()
    drop = [(u, v) for u, v, d in sub.edges(data=True)
            if d.get("strength", 1) < min_strength or (cross_domain_only and not d.get("cross_domain"))]
    sub.remove_edges_from(drop)
    if drop or cross_domain_only or min_strength > 1:
        sub.remove_nodes_from([n for n in list(sub.nodes) if sub.degree(n) == 0 and graph.degree(n) > 0])
    return sub


def layout(graph: nx.DiGraph, seed: int = 0) -> dict[str, tuple[float, float]]:
    """Deterministic node positions (spring layout with a fixed seed, nodes in sorted order)."""
    if graph.number_of_nodes() == 0:
        return {}
    ordered = nx.DiGraph()
    ordered.add_nodes_from(sorted(graph.nodes))
    edges = sorted((u, v, {"weight": d.get("weight", 1.0)}) for u, v, d in graph.edges(data=True))
    ordered.add_edges_from(edges)
    k = 2.0 / math.sqrt(max(1, graph.number_of_nodes()))
    pos = nx.spring_layout(ordered.to_undirected(), seed=seed, k=k, iterations=100)
    return {n: (float(x), float(y)) for n, (x, y) in pos.items()}


def domain_colours(domains: Iterable[str]) -> dict[str, str]:
    return {d: DOMAIN_PALETTE[i % len(DOMAIN_PALETTE)] for i, d in enumerate(sorted(set(domains)))}


def _edge_hover(graph: nx.DiGraph, u: str, v: str, data: dict[str, Any]) -> str:
    mech = "<br>".join(data.get("mechanisms", [])[:3]) or "—"
    return (f"<b>{graph.nodes[u].get('label', u)} → {graph.nodes[v].get('label', v)}</b><br>"
            f"sign {data.get('sign')} · strength {data.get('strength')}"
            f"{' · cross-domain' if data.get('cross_domain') else ''}<br>"
            f"domains: {', '.join(data.get('domains', [])) or '—'}<br>mentioned by ({data.get('count', 0)}): "
            f"{', '.join(data.get('sources', [])[:6])}<br>{mech}")


def causal_figure(graph: nx.DiGraph, highlight_cycles: bool = False, highlight_cross_domain: bool = True,
                  *, seed: int = 0, loops: list[dict[str, Any]] | None = None, height: int | None = None,
                  title: str | None = None) -> go.Figure:
    """Interactive network: nodes coloured by domain (size by influence), edges coloured by sign and
    as wide as their strength, arrows to the effect, hover with mechanism and sources; cross-domain
    edges get an amber halo and feedback loops a purple one. Names and sign marks never overlap
    (:mod:`ifworld.whatif.causal_layout`); the figure is as tall as they need (``height`` sets a minimum)."""
    sizes = {n: marker_diameter(graph.degree(n, weight="weight")) for n in graph.nodes}
    names = {n: wrap_label(graph.nodes[n].get("label", n), LABEL_WRAP) for n in graph.nodes}
    boxes = {n: text_box_px(names[n].split("<br>"), FONT_SIZE) for n in graph.nodes}
    pos, plot_px = place_nodes(layout(graph, seed), sizes, boxes)
    drawn = [(u, v, d) for u, v, d in sorted(graph.edges(data=True), key=lambda e: (e[0], e[1])) if u != v]
    edges = [(u, v) for u, v, _ in drawn]
    feet = footprints(sizes, boxes)
    shifts = pair_shifts(pos, edges)  # a two-way pair: side by side, not one over the other
    paths = route(pos, feet, edges, shifts, DESIGN_WIDTH_PX, plot_px)  # bent around a third node's name
    marks = place_signs(pos, feet, edges, shifts, paths)
    shown = {(u, v): visible(paths[u, v], feet[u], feet[v], pos[u], pos[v]) for u, v in edges}
    fig = go.Figure()
    on_cycle: set[tuple[str, str]] = set()
    if highlight_cycles:
        on_cycle = cycle_edges(loops if loops is not None else feedback_loops(graph))
    for edge in sorted(on_cycle & shown.keys()):
        _line(fig, shown[edge], CYCLE_COLOUR, 10, "feedback loop")
    if highlight_cross_domain:
        for u, v, d in drawn:
            if d.get("cross_domain"):
                _line(fig, shown[u, v], CROSS_DOMAIN_COLOUR, 7, "cross-domain", dash="dot")
    annotations: list[dict[str, Any]] = []
    for u, v, d in drawn:
        colour, width = SIGN_COLOURS.get(d.get("sign"), SIGN_COLOURS["±"]), 0.8 + 0.9 * d.get("strength", 1)
        (x0, y0), (x1, y1) = paths[u, v][0], paths[u, v][-1]
        standoff, start = exit_px(feet[v], x0 - x1, y0 - y1) + 2, exit_px(feet[u], x1 - x0, y1 - y0)
        if len(paths[u, v]) > 2:  # a curve: its body as a line, the arrow only on its last piece
            _line(fig, shown[u, v], colour, width, "edges")
            (x1, y1), ((x0, y0), _) = shown[u, v][-1], point_along(shown[u, v][::-1], HEAD_PX)
            standoff, start = 0, 0
        annotations.append(dict(x=x1, y=y1, ax=x0, ay=y0, xref="x", yref="y", axref="x", ayref="y", text="",
                                showarrow=True, arrowhead=2, arrowsize=1.1, standoff=standoff, startstandoff=start,
                                arrowwidth=width, arrowcolor=colour))
    # each edge's sign is written on it: the sign is never told by colour alone
    fig.add_trace(go.Scatter(x=[marks[u, v][0] for u, v, _ in drawn], y=[marks[u, v][1] for u, v, _ in drawn],
                             hovertext=[_edge_hover(graph, u, v, d) for u, v, d in drawn], mode="markers+text",
                             text=[{"+": "+", "-": "−"}.get(_sign(d.get("sign")), "±") for *_, d in drawn],
                             hoverinfo="text", showlegend=False, name="edges", textfont=dict(color=TEXT_COLOUR),
                             marker=dict(size=10, color="rgba(0,0,0,0)")))
    colours = domain_colours(domains_of(graph))
    cycle_nodes = {n for e in on_cycle for n in e}
    for k, (domain, colour) in enumerate(colours.items()):
        nodes = sorted(n for n, d in graph.nodes(data=True) if d.get("domain", UNKNOWN_DOMAIN) == domain)
        fig.add_trace(go.Scatter(
            x=[pos[n][0] for n in nodes], y=[pos[n][1] for n in nodes], mode="markers+text", name=domain,
            text=[names[n] for n in nodes], textposition="top center", textfont=dict(size=FONT_SIZE),
            hovertext=[_node_hover(graph, n) for n in nodes], hoverinfo="text",
            marker=dict(size=[sizes[n] for n in nodes], color=colour,
                        symbol=SYMBOLS[(k + k // len(DOMAIN_PALETTE)) % len(SYMBOLS)], line=dict(
                width=[4 if n in cycle_nodes else 1 for n in nodes],
                color=[CYCLE_NODE_COLOUR if n in cycle_nodes else "#ffffff" for n in nodes]))))
    top, bottom = TOOLBAR_PX + 16 + (40 if title else 0), _legend_px(list(colours))
    extra = max(0, (height or 0) - plot_px - top - bottom)
    fig.update_layout(annotations=annotations, height=round(plot_px + top + bottom + extra), title=title,
                      hovermode="closest", xaxis=dict(visible=False, range=[0, DESIGN_WIDTH_PX]),
                      yaxis=dict(visible=False, range=[-extra / 2, plot_px + extra / 2]),
                      # margins fixed, not grown by plotly: the plot keeps the height the names were laid out in
                      margin=dict(t=top, b=bottom, autoexpand=False), plot_bgcolor="white",
                      legend=dict(title=dict(text="domain", side="top"), orientation="h", x=0, y=0, yanchor="top",
                                  yref="paper"))  # title above: the rows wrap in width
    return styled(fig)


def _legend_px(domains: list[str]) -> float:
    """Room below the plot for the horizontal legend (its title and its rows as they wrap at the design width),
    counted generously: a plot shorter than laid out would bring names closer together."""
    x, rows = 0.0, 1
    for domain in domains:
        item = 48 + text_width_px(domain, FONT_SIZE)
        if x and x + item > DESIGN_WIDTH_PX:
            rows, x = rows + 1, 0.0
        x += item
    return 44 + 34 * rows + 16


def causal_legend() -> str:
    """What the colours of :func:`causal_figure` mean, in words named from the colours it draws with."""
    sign = ", ".join(f"{colour_name(SIGN_COLOURS[s])} {w}" for s, w in (("+", "+"), ("-", "−"), ("±", "mixed")))
    return (f"edge colour = sign ({sign}), width = strength; {colour_name(CROSS_DOMAIN_COLOUR)} halo = "
            f"cross-domain, {colour_name(CYCLE_COLOUR)} halo = feedback loop")


def heatmap_legend() -> str:
    """What the colours of :func:`domain_heatmap` mean, named from its colour scale's ends."""
    return f"{colour_name(SIGN_COLOURS['+'])} = net amplifying, {colour_name(SIGN_COLOURS['-'])} = net damping"


HEAD_PX = 14
"""A curved edge's arrowhead is drawn on its last this-many px (a shorter piece could point anywhere)."""


def _line(fig: go.Figure, points: list[tuple[float, float]], colour: str, width: float, name: str,
          dash: str = "solid") -> None:
    """A line through ``points`` (a halo, or the body of a curved edge), not hoverable."""
    fig.add_trace(go.Scatter(x=[x for x, _ in points], y=[y for _, y in points], mode="lines", hoverinfo="skip",
                             showlegend=False, name=name, line=dict(color=colour, width=width, dash=dash)))


def _node_hover(graph: nx.DiGraph, n: str) -> str:
    d = graph.nodes[n]
    doms = ", ".join(f"{k} ×{c}" for k, c in sorted(d.get("domains", {}).items()))
    return (f"<b>{d.get('label', n)}</b><br>domain: {d.get('domain')} ({doms})<br>"
            f"mentions: {d.get('mentions', 0)} · out {graph.out_degree(n)} · in {graph.in_degree(n)}")


def edge_rows(graph: nx.DiGraph) -> list[dict[str, Any]]:
    """Tidy rows of the edges (for tables and exports)."""
    return [{"source": graph.nodes[u].get("label", u), "target": graph.nodes[v].get("label", v),
             "sign": d.get("sign"), "strength": d.get("strength"), "cross_domain": d.get("cross_domain"),
             "domains": ", ".join(d.get("domains", [])), "count": d.get("count", 0),
             "sources": ", ".join(d.get("sources", [])), "mechanism": "; ".join(d.get("mechanisms", []))}
            for u, v, d in sorted(graph.edges(data=True), key=lambda e: (-e[2].get("count", 0), e[0], e[1]))]


def domain_matrix(edges: Iterable[CausalEdge | DomainLink]) -> tuple[list[str], np.ndarray, np.ndarray]:
    """The cross-domain causal integration matrix: ``(domains, net, count)`` where ``net[i, j]`` is the sum of
    sign × strength over edges whose first listed domain is ``domains[i]`` and last is ``domains[j]`` (an
    edge naming one domain sits on the diagonal) and ``count[i, j]`` how many edges that is."""
    cells: list[tuple[str, str, int]] = []
    for edge in edges:
        doms = _edge_domains(edge.domains)
        if doms:
            sign = _sign(edge.sign)
            cells.append((doms[0], doms[-1], 0 if sign == "±" else (1 if sign == "+" else -1) * _strength(
                edge.strength)))
    domains = sorted({d for a, b, _ in cells for d in (a, b)})
    index = {d: i for i, d in enumerate(domains)}
    net, count = np.zeros((len(domains),) * 2), np.zeros((len(domains),) * 2, dtype=int)
    for a, b, value in cells:
        net[index[a], index[b]] += value
        count[index[a], index[b]] += 1
    return domains, net, count


def domain_heatmap(edges: Iterable[CausalEdge | DomainLink], title: str = "") -> go.Figure | None:
    """Domain × domain heatmap of :func:`domain_matrix` (coloured as :func:`heatmap_legend` says)."""
    domains, net, count = domain_matrix(edges)
    if not domains:
        return None
    bound = max(1.0, float(np.abs(net).max()))
    text = [[f"{net[i, j]:+g} ({count[i, j]})" if count[i, j] else "" for j in range(len(domains))]
            for i in range(len(domains))]
    labels = [wrap_label(d, HEAT_WRAP) for d in domains]
    lines = [label.split("<br>") for label in labels]
    row_px = max(HEAT_ROW_PX, LINE_PX * FONT_SIZE * max(len(ls) for ls in lines) + 8)
    # plotly turns the column names upright when they do not fit side by side (autotickangles): keep room for that
    upright_px = max(text_width_px(line, FONT_SIZE) for ls in lines for line in ls)
    fig = go.Figure(go.Heatmap(
        z=net, x=labels, y=labels, text=text, texttemplate="%{text}", zmin=-bound, zmax=bound, zmid=0,
        colorscale=[[0, SIGN_COLOURS["-"]], [0.5, "#f5f5f5"], [1, SIGN_COLOURS["+"]]],
        colorbar=dict(title="net sign × strength"),
        customdata=[[[a, b] for b in domains] for a in domains],
        hovertemplate="%{customdata[0]} → %{customdata[1]}: %{z:+g}<extra></extra>"))
    fig.update_layout(title=title or None, height=round(200 + upright_px + row_px * len(domains)),
                      xaxis=dict(title="effect on (domain)", side="bottom", autotickangles=[0, 90]),
                      yaxis=dict(title="cause in (domain)", autorange="reversed"))
    return styled(fig)


@dataclass(frozen=True)
class DomainLink:
    """A merged graph edge seen from its ends' domains (cause domain first); its sign may be ``±``."""
    domains: tuple[str, str]
    sign: str
    strength: int


def graph_domain_edges(graph: nx.DiGraph) -> list[DomainLink]:
    """The merged graph's edges as (cause domain → effect domain, sign, strength), for :func:`domain_heatmap`
    (a node's domain is the one that mentions it most)."""
    return [DomainLink((graph.nodes[u]["domain"], graph.nodes[v]["domain"]), d["sign"], d["strength"])
            for u, v, d in graph.edges(data=True)]
