"""Where the causal map puts its nodes, their names and the edges' sign marks so that no two labels overlap.

networkx's spring layout gives the map its shape (linked nodes near each other); this module then works in
screen pixels. Each node's *footprint* is its marker plus its name set above it (plotly's ``top center``), its
size taken from the name's own text: the width of each character in DejaVu Sans, the widest font of the
figure's font stack (Inter, system-ui, Roboto, Helvetica, Arial fall back to it on a bare Linux, and every other
one is narrower), so a name is never wider on screen than it is here. Overlapping footprints are then pushed apart
along the axis where they overlap least, repeatedly, inside a frame that grows in height until none overlap.

Written here rather than taken from a library: the ones that remove label overlaps either need a system
binary (Graphviz's ``neato -Goverlap=prism`` through pygraphviz or pydot) or draw with matplotlib (adjustText,
textalloc), and plotly itself places scatter text without looking at its neighbours.

The frame is laid out at :data:`DESIGN_WIDTH_PX`, the plot's width in the narrowest window the map is read in
(a 1280-px projector at 200 % zoom). The figure keeps these pixels as its axis ranges, so a wider chart only
stretches the gaps between names sideways: footprints apart at the design width stay apart at any width above it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

DESIGN_WIDTH_PX = 540
"""The plot area's width the map is laid out for: a 640-px window (1280 px at 200 %) less Streamlit's padding and
the figure's side margins."""
LABEL_WRAP = 18  # characters per line of a node name
LINE_PX = 1.3  # plotly's line spacing, in font sizes
PAD_PX = 15
"""Free space kept around every footprint: two footprints are at least twice this apart, room for an edge's sign
mark between them."""
MARKER_REACH, MARKER_LINE_PX = 0.7, 2
"""How far a marker reaches from its centre: plotly draws a diamond 1.3 and a star 1.4 times its radius, plus its
outline."""
SIGN_BOX_PX = (14, 22)  # an edge's sign mark: one character at the figure's text size
SIGN_STEP_PX = 2  # the places tried along an edge, from its middle outwards
SIGN_OFFSETS_PX = (0, 11, -11)  # beside an edge: the mark still touches its line
PAIR_GAP_PX = 12  # between the two arrows of a two-way pair: a sign mark (14 px wide) on one clears the other
MIN_PLOT_HEIGHT_PX = 420
MAX_ROUNDS, MAX_GROWTHS, GROWTH = 400, 12, 1.15
_WIDTH_EM = dict(zip(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,:;()-/%+?!'&",
    [0.61, 0.63, 0.55, 0.63, 0.62, 0.35, 0.63, 0.63, 0.28, 0.28, 0.58, 0.28, 0.97, 0.63, 0.61, 0.63, 0.63, 0.41,
     0.52, 0.39, 0.63, 0.59, 0.82, 0.59, 0.59, 0.52, 0.68, 0.69, 0.70, 0.77, 0.63, 0.58, 0.77, 0.75, 0.29, 0.29,
     0.66, 0.56, 0.86, 0.75, 0.79, 0.60, 0.79, 0.69, 0.63, 0.61, 0.73, 0.68, 0.99, 0.69, 0.61, 0.69,
     *[0.64] * 10, 0.32, 0.32, 0.32, 0.34, 0.34, 0.39, 0.39, 0.36, 0.34, 0.95, 0.84, 0.53, 0.40, 0.27, 0.78],
    strict=True))
"""Advance widths of DejaVu Sans in ems (read from its font file); any other character counts as
:data:`WIDE_EM`."""
WIDE_EM = 1.0


def text_width_px(text: str, size: float) -> float:
    """The width of one line of ``text`` at ``size`` px, at most what the figure's fonts draw."""
    return size * sum(_WIDTH_EM.get(c, WIDE_EM) for c in text)


def text_box_px(lines: list[str], size: float) -> tuple[float, float]:
    """Width and height of a label of several lines."""
    return max((text_width_px(line, size) for line in lines), default=0.0), LINE_PX * size * max(1, len(lines))


@dataclass(frozen=True)
class Placed:
    """The map in pixels: node centres, edge sign marks, and the plot's size (its axes' ranges)."""
    nodes: dict[str, tuple[float, float]]
    signs: dict[tuple[str, str], tuple[float, float]]
    width: float
    height: float


def _label_gap(diameter: float) -> float:
    """How far above a marker's centre plotly sets the bottom of a ``top center`` name (plotly.js puts it at
    the marker's radius / 0.8 + 1, measured from the centre), with a pixel to spare."""
    return diameter / 2 / 0.8 + 2


def footprints(sizes: Mapping[str, float], labels: Mapping[str, tuple[float, float]]) -> dict[str, np.ndarray]:
    """Each node's box relative to its marker's centre: ``[left, right, below, above]`` in px (y up)."""
    out = {}
    for n, d in sizes.items():
        w, h = labels[n]
        reach = MARKER_REACH * d + MARKER_LINE_PX  # a diamond or a star reaches past its nominal size
        half = max(w / 2, reach) + PAD_PX
        out[n] = np.array([-half, half, -reach - PAD_PX, max(reach, _label_gap(d) + h) + PAD_PX])
    return out


def _separate(xy: np.ndarray, box: np.ndarray, width: float, height: float) -> bool:
    """Push overlapping boxes apart in place (``box`` rows: left, right, below, above around ``xy``); True once
    none overlap."""
    n = len(xy)
    upper = np.triu(np.ones((n, n), dtype=bool), 1)
    for _ in range(MAX_ROUNDS):
        centre = np.column_stack([xy[:, 0] + (box[:, 0] + box[:, 1]) / 2, xy[:, 1] + (box[:, 2] + box[:, 3]) / 2])
        half = np.column_stack([(box[:, 1] - box[:, 0]) / 2, (box[:, 3] - box[:, 2]) / 2])
        gap = centre[:, None, :] - centre[None, :, :]
        over = half[:, None, :] + half[None, :, :] - np.abs(gap)
        hit = (over[..., 0] > 0) & (over[..., 1] > 0) & upper
        if not hit.any():
            return True
        axis = np.where(over[..., 0] / width < over[..., 1] / height, 0, 1)  # the cheaper way out, in frame shares
        push = np.zeros_like(xy)
        for i, j in zip(*np.nonzero(hit), strict=True):
            a = axis[i, j]
            side = np.sign(gap[i, j, a]) or (1.0 if i < j else -1.0)
            step = (over[i, j, a] / 2 + 0.5) * side
            push[i, a] += step
            push[j, a] -= step
        xy += push
        xy[:, 0] = np.clip(xy[:, 0], -box[:, 0], width - box[:, 1])
        xy[:, 1] = np.clip(xy[:, 1], -box[:, 2], height - box[:, 3])
    return False


def place_nodes(pos: Mapping[str, tuple[float, float]], sizes: Mapping[str, float],
                labels: Mapping[str, tuple[float, float]],
                width: float = DESIGN_WIDTH_PX) -> tuple[dict[str, tuple[float, float]], float]:
    """Node centres in px inside a ``width`` × height frame where no two footprints overlap, from the layout's
    ``pos`` (any units); the frame's height grows from the footprints' total area until they fit."""
    names = sorted(pos)
    if not names:
        return {}, float(MIN_PLOT_HEIGHT_PX)
    feet = footprints(sizes, labels)
    box = np.array([feet[n] for n in names])
    raw = np.array([pos[n] for n in names], dtype=float)
    span = raw.max(axis=0) - raw.min(axis=0)
    unit = (raw - raw.min(axis=0)) / np.where(span > 0, span, 1.0)
    area = float(((box[:, 1] - box[:, 0]) * (box[:, 3] - box[:, 2])).sum())
    height = max(float(MIN_PLOT_HEIGHT_PX), 2.0 * area / width, float((box[:, 3] - box[:, 2]).max()))
    xy = unit.copy()
    for _ in range(MAX_GROWTHS):
        xy = np.column_stack([-box[:, 0] + unit[:, 0] * (width - box[:, 1] + box[:, 0]),
                              -box[:, 2] + unit[:, 1] * (height - box[:, 3] + box[:, 2])])
        if _separate(xy, box, width, height):
            break
        height *= GROWTH
    return {n: (float(x), float(y)) for n, (x, y) in zip(names, xy, strict=True)}, height


def pair_shifts(nodes: Mapping[str, tuple[float, float]], edges: list[tuple[str, str]],
                gap: float = PAIR_GAP_PX) -> dict[tuple[str, str], tuple[float, float]]:
    """How far each edge of a two-way pair (``u → v`` and ``v → u`` both drawn) moves sideways: each to its own
    right, ``gap / 2``, so the two arrows run side by side instead of one over the other. Other edges: none."""
    drawn = set(edges)
    shifts = {}
    for u, v in edges:
        if (v, u) in drawn:
            (x0, y0), (x1, y1) = nodes[u], nodes[v]
            length = math.hypot(x1 - x0, y1 - y0) or 1.0
            shifts[(u, v)] = ((y1 - y0) / length * gap / 2, -(x1 - x0) / length * gap / 2)
    return shifts


def point_along(path: list[tuple[float, float]], distance: float) -> tuple[tuple[float, float], tuple[float, float]]:
    """The point ``distance`` px along a path of straight pieces, and the unit direction of the piece it is on."""
    for (x0, y0), (x1, y1) in zip(path, path[1:], strict=False):
        piece = math.hypot(x1 - x0, y1 - y0)
        if piece and distance <= piece:
            t = distance / piece
            return (x0 + t * (x1 - x0), y0 + t * (y1 - y0)), ((x1 - x0) / piece, (y1 - y0) / piece)
        distance -= piece
    (x0, y0), (x1, y1) = path[-2], path[-1]
    piece = math.hypot(x1 - x0, y1 - y0) or 1.0
    return path[-1], ((x1 - x0) / piece, (y1 - y0) / piece)


def place_signs(nodes: Mapping[str, tuple[float, float]], feet: Mapping[str, np.ndarray],
                edges: list[tuple[str, str]], shifts: Mapping[tuple[str, str], tuple[float, float]] | None = None,
                paths: Mapping[tuple[str, str], list[tuple[float, float]]] | None = None,
                ) -> dict[tuple[str, str], tuple[float, float]]:
    """A point on each edge for its sign mark, as near its middle as keeps the mark off every footprint and every
    mark placed before it (the middle when no point does). The edge is its path (``causal_routes.route``: bent
    around a third node), else the straight line between its nodes moved by its ``shifts`` (:func:`pair_shifts`)."""
    # a footprint less its padding: the marker and name themselves (the padding is where sign marks go)
    taken = [(x + f[0] + PAD_PX, x + f[1] - PAD_PX, y + f[2] + PAD_PX, y + f[3] - PAD_PX)
             for n, f in feet.items() for x, y in [nodes[n]]]
    w, h = SIGN_BOX_PX[0] / 2, SIGN_BOX_PX[1] / 2
    found = {}
    for u, v in edges:
        sx, sy = (shifts or {}).get((u, v), (0.0, 0.0))
        straight = [(nodes[u][0] + sx, nodes[u][1] + sy), (nodes[v][0] + sx, nodes[v][1] + sy)]
        path = (paths or {}).get((u, v)) or straight
        length = sum(math.hypot(x1 - x0, y1 - y0) for (x0, y0), (x1, y1) in zip(path, path[1:], strict=False)) or 1.0
        places = sorted((k * SIGN_STEP_PX for k in range(int(length / SIGN_STEP_PX) + 1)),
                        key=lambda d: abs(d - length / 2))
        # a two-way pair's mark stays on its arrow or goes outward (its right), never toward the other arrow
        offsets = [k for k in SIGN_OFFSETS_PX if k <= 0] if (u, v) in (shifts or {}) else SIGN_OFFSETS_PX
        spots = [(x + k * -dy, y + k * dx) for d in places for (x, y), (dx, dy) in [point_along(path, d)]
                 for k in offsets]
        free = [(x, y) for x, y in spots
                if not any(x + w > a and x - w < b and y + h > c and y - h < d for a, b, c, d in taken)]
        x, y = free[0] if free else spots[0]
        found[(u, v)] = (x, y)
        taken.append((x - w, x + w, y - h, y + h))
    return found


def exit_px(foot: np.ndarray, dx: float, dy: float) -> float:
    """How far from a node's centre a line heading ``(dx, dy)`` leaves its marker and name (the footprint less its
    padding): an arrow starts and ends there, so no edge is drawn across its own ends' names."""
    left, right, below, above = foot[0] + PAD_PX, foot[1] - PAD_PX, foot[2] + PAD_PX, foot[3] - PAD_PX
    length = math.hypot(dx, dy) or 1.0
    ux, uy = dx / length, dy / length
    found = [bound / u for u, bound in ((ux, right if ux > 0 else left), (uy, above if uy > 0 else below)) if u]
    return float(min(found, default=0.0))


def marker_diameter(weighted_degree: float) -> float:
    """A node marker's size in px: larger for nodes with more (and stronger) links."""
    return 14 + 4 * math.sqrt(weighted_degree)
