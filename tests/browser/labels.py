"""Where a chart's labels sit on screen, measured in Chromium: the boxes of the causal map's node names, its
edges' sign marks and its nodes' markers, and of a heatmap's tick labels and cell numbers
(``getBoundingClientRect`` of the SVG text plotly drew), and which of them collide."""

from __future__ import annotations

SIGNS = ("+", "−", "±")

# For one .js-plotly-plot element: the label boxes of its traces and axes, by kind.
BOXES = r"""(el) => {
  const rect = (n) => { const r = n.getBoundingClientRect();
    return {s: (n.textContent || '').trim(), l: r.left, t: r.top, r: r.right, b: r.bottom}; };
  const shown = (r) => r.r - r.l > 0.5 && r.b - r.t > 0.5;
  const plot = el.querySelector('.nsewdrag') || el.querySelector('svg.main-svg');
  const texts = [...el.querySelectorAll('g.trace.scatter g.textpoint text')].map(rect).filter(shown);
  return {
    chart: rect(el.querySelector('svg.main-svg')), plot: rect(plot),
    nodes: texts.filter(t => !%SIGNS%.includes(t.s)),
    signs: texts.filter(t => %SIGNS%.includes(t.s)),
    markers: [...el.querySelectorAll('g.trace.scatter path.point')].map(rect).filter(shown)
      .filter(m => m.r - m.l > 14 && m.b - m.t > 14),  // node markers, not the edges' sign points
    ticks: [...el.querySelectorAll('g.xtick text, g.ytick text')].map(rect).filter(shown),
    xticks: [...el.querySelectorAll('g.xtick text')].map(rect).filter(shown),
    yticks: [...el.querySelectorAll('g.ytick text')].map(rect).filter(shown),
    cells: [...el.querySelectorAll('g.heatmaplayer text, g.hm text')].map(rect).filter(shown),
  };
}""".replace("%SIGNS%", repr(list(SIGNS)))


def overlap(a: dict, b: dict, slack: float = 0.5) -> bool:
    """Whether two screen boxes intersect by more than ``slack`` px both ways."""
    return min(a["r"], b["r"]) - max(a["l"], b["l"]) > slack and min(a["b"], b["b"]) - max(a["t"], b["t"]) > slack


def collisions(first: list[dict], second: list[dict] | None = None) -> list[str]:
    """Pairs of boxes that intersect: within ``first``, or between ``first`` and ``second``."""
    found = []
    for i, a in enumerate(first):
        for j, b in (enumerate(second) if second is not None else ((j, first[j]) for j in range(i + 1, len(first)))):
            if (second is not None or j > i) and overlap(a, b) and a is not b:
                found.append(f'"{a["s"]}" / "{b["s"]}"')
    return found


def outside(boxes: list[dict], frame: dict) -> list[str]:
    """Boxes not wholly inside ``frame`` (a label cut by the chart's edge)."""
    return [b["s"] for b in boxes
            if b["l"] < frame["l"] - 1 or b["r"] > frame["r"] + 1 or b["t"] < frame["t"] - 1 or b["b"] > frame["b"] + 1]


def covered_markers(labels: list[dict], markers: list[dict]) -> list[str]:
    """Node names that cover another node's marker (a name sits right above its own, centred on it: the marker
    centred under a name, nearest below it, is its own and may touch it)."""
    found = []
    for label in labels:
        mid = (label["l"] + label["r"]) / 2
        below = [m for m in markers if abs((m["l"] + m["r"]) / 2 - mid) < 1.5 and m["t"] >= label["t"]]
        own = min(below, key=lambda m: m["t"], default=None)
        found += [f'"{label["s"]}" / a marker' for m in markers if m is not own and overlap(label, m)]
    return found
