"""Where the causal map draws its edges: straight, or bent around a third node's marker and name.

:mod:`ifworld.whatif.causal_layout` keeps names and markers apart; an edge's straight line can still pass through
the name of a node between its two ends, which then reads as crossed out on a projector. Such an edge is drawn as
the gentlest quadratic curve that misses every other node: its middle is pulled to one side or the other in steps
of :data:`BEND_STEP_PX`, and the first curve that clears every third node (by :data:`CLEARANCE_PX`) and stays in
the frame is taken. When none does within :data:`MAX_BENDS` steps the straight line stays (:func:`crossings` counts
what is left). Written here because plotly draws only straight arrows and Graphviz's spline router needs its
system binary.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from ifworld.whatif.causal_layout import PAD_PX, exit_px

Point = tuple[float, float]
Edge = tuple[str, str]

CLEARANCE_PX = 8
"""How far an edge keeps from a third node's marker and name: a two-way pair's arrows run 6 px beside the centre
line (``causal_layout.PAIR_GAP_PX``) and the widest arrow is 3.5 px wide."""
BEND_STEP_PX, MAX_BENDS = 14, 14
S_BENDS = 6
"""An S-curve's control points go up to this many double steps to either side."""
CURVE_POINTS = 25
"""Points a curved edge is drawn through (about 8 px apart on a 200-px edge: smooth at any zoom)."""


def inner_box(xy: Point, foot: np.ndarray, margin: float = 0.0) -> tuple[float, float, float, float]:
    """A node's marker and name (its footprint less the padding) around ``xy``, grown by ``margin``:
    (left, right, below, above)."""
    x, y = xy
    return (x + foot[0] + PAD_PX - margin, x + foot[1] - PAD_PX + margin,
            y + foot[2] + PAD_PX - margin, y + foot[3] - PAD_PX + margin)


def _hit_counts(curves: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """How many of the boxes (M × [left, right, below, above]) each curve (K × P points × 2) passes through:
    Liang–Barsky clipping of every piece of every curve against every box at once (a map tries about a hundred
    curves for each of its crossing edges)."""
    if not len(boxes):
        return np.zeros(len(curves), dtype=int)
    start = curves[:, :-1, None, :]
    step = (curves[:, 1:] - curves[:, :-1])[:, :, None, :]
    low = np.zeros(start.shape[:2] + (len(boxes),))
    high = np.ones_like(low)
    with np.errstate(divide="ignore", invalid="ignore"):
        for axis in (0, 1):
            lo, hi = boxes[None, None, :, 2 * axis], boxes[None, None, :, 2 * axis + 1]
            s, d = start[..., axis], step[..., axis]
            flat = np.abs(d) < 1e-12
            safe = np.where(flat, 1.0, d)
            t0, t1 = (lo - s) / safe, (hi - s) / safe
            inside = (s > lo) & (s < hi)
            low = np.maximum(low, np.where(flat, np.where(inside, -np.inf, np.inf), np.minimum(t0, t1)))
            high = np.minimum(high, np.where(flat, np.where(inside, np.inf, -np.inf), np.maximum(t0, t1)))
    return (low < high).any(axis=1).sum(axis=1)


def _hits(path: list[Point], boxes: list[tuple[float, float, float, float]]) -> bool:
    return bool(_hit_counts(np.asarray([path], dtype=float), np.asarray(boxes, dtype=float).reshape(-1, 4))[0])


def _bends(paired: bool) -> tuple[np.ndarray, np.ndarray]:
    """The curves tried, least bent first, as (first, second) control offsets in px to the right of the line: a
    quadratic curve is the cubic whose two offsets are equal, an S-curve has them on opposite sides. One arrow of a
    two-way pair (``paired``) bends only to its own right."""
    steps = [k * BEND_STEP_PX / 0.75 for k in range(1, MAX_BENDS + 1)]  # the middle moves 3/4 of equal offsets
    single = [(b, b) for k in steps for b in ((k,) if paired else (k, -k))]
    doubled = [k * BEND_STEP_PX * 2 for k in range(-S_BENDS, S_BENDS + 1)]
    twisted = [] if paired else sorted(((a, b) for a in doubled for b in doubled if a * b < 0),
                                       key=lambda ab: abs(ab[0]) + abs(ab[1]))
    offsets = np.array(single + twisted, dtype=float)
    return offsets[:, 0], offsets[:, 1]


def _curves(p: Point, q: Point, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Cubic curves from p to q (K × :data:`CURVE_POINTS` × 2) whose control points lie ``first`` and ``second``
    px to the right of the points a third and two thirds along the line. With equal offsets the middle moves by
    three quarters of them, as a bend; with opposite ones the curve passes one node on each side."""
    p_, q_ = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    d = q_ - p_
    normal = np.array([d[1], -d[0]]) / (float(np.hypot(*d)) or 1.0)
    c1 = p_ + d / 3 + first[:, None] * normal
    c2 = p_ + 2 * d / 3 + second[:, None] * normal
    t = np.linspace(0.0, 1.0, CURVE_POINTS)[None, :, None]
    return ((1 - t) ** 3 * p_ + 3 * (1 - t) ** 2 * t * c1[:, None, :] + 3 * (1 - t) * t ** 2 * c2[:, None, :]
            + t ** 3 * q_)


def route(nodes: Mapping[str, Point], feet: Mapping[str, np.ndarray], edges: list[Edge],
          shifts: Mapping[Edge, Point], width: float, height: float) -> dict[Edge, list[Point]]:
    """Each edge's path between its nodes' centres (moved by its ``shifts``): two points when straight, or
    :data:`CURVE_POINTS` when bent around a third node (see the module docstring)."""
    names = list(feet)
    near = np.array([inner_box(nodes[n], feet[n], CLEARANCE_PX) for n in names]).reshape(-1, 4)
    touching = np.array([inner_box(nodes[n], feet[n]) for n in names]).reshape(-1, 4)
    bends = {paired: _bends(paired) for paired in (False, True)}
    paths = {}
    for u, v in edges:
        sx, sy = shifts.get((u, v), (0.0, 0.0))
        p, q = (nodes[u][0] + sx, nodes[u][1] + sy), (nodes[v][0] + sx, nodes[v][1] + sy)
        others = np.array([n not in (u, v) for n in names], dtype=bool)
        paths[(u, v)] = _gentlest(p, q, near[others], touching[others], bends[(u, v) in shifts], width, height)
    return paths


def _gentlest(p: Point, q: Point, near: np.ndarray, touching: np.ndarray, bends: tuple[np.ndarray, np.ndarray],
              width: float, height: float) -> list[Point]:
    """The straight line p→q if it misses every other node by :data:`CLEARANCE_PX` (``near``); else the least bent
    curve that does — or, failing that, that misses them at all (``touching``), or that crosses the fewest (the
    straight line on a tie)."""
    straight = np.asarray([[p, q]], dtype=float)
    if not _hit_counts(straight, near)[0]:
        return [p, q]
    curves = _curves(p, q, *bends)
    inside = (curves[..., 0] >= 0) & (curves[..., 0] <= width) & (curves[..., 1] >= 0) & (curves[..., 1] <= height)
    framed = np.asarray(inside.all(axis=1), dtype=bool)
    (left, below), (right, above) = curves.min(axis=(0, 1)), curves.max(axis=(0, 1))
    reach = (near[:, 1] > left) & (near[:, 0] < right) & (near[:, 3] > below) & (near[:, 2] < above)
    near, touching = near[reach], touching[reach]  # only the nodes some curve could pass: a tall map has many
    touched = _hit_counts(curves, touching)
    for clear in (framed & (_hit_counts(curves, near) == 0), framed & (touched == 0)):
        if clear.any():
            return [(float(x), float(y)) for x, y in curves[int(np.argmax(clear))]]
    best = int(np.argmin(np.where(framed, touched, np.iinfo(int).max)))
    if not bool(framed[best]) or int(touched[best]) >= int(_hit_counts(straight, touching)[0]):
        return [p, q]
    return [(float(x), float(y)) for x, y in curves[best]]


def crossings(nodes: Mapping[str, Point], feet: Mapping[str, np.ndarray],
              paths: Mapping[Edge, list[Point]], margin: float = 0.0) -> list[tuple[Edge, str]]:
    """(edge, node) for every edge whose path passes through a third node's marker or name (grown by ``margin``)."""
    return [((u, v), n) for (u, v), path in paths.items() for n, foot in feet.items()
            if n not in (u, v) and _hits(path, [inner_box(nodes[n], foot, margin)])]


def _inside(point: Point, box: tuple[float, float, float, float]) -> bool:
    return box[0] < point[0] < box[1] and box[2] < point[1] < box[3]


def _edge_of(inside: Point, outside: Point, box: tuple[float, float, float, float]) -> Point:
    """Where the segment from a point inside ``box`` to one outside it leaves the box (bisection, to 0.1 px)."""
    a, b = inside, outside
    for _ in range(20):
        mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
        a, b = (mid, b) if _inside(mid, box) else (a, mid)
    return b


def outside_ends(path: list[Point], start: tuple[float, float, float, float],
                 end: tuple[float, float, float, float]) -> list[Point]:
    """The part of a path outside its two end nodes' markers and names (``start``, ``end`` boxes): what is drawn."""
    first = next((i for i, point in enumerate(path) if not _inside(point, start)), len(path))
    last = next((i for i in range(len(path) - 1, -1, -1) if not _inside(path[i], end)), -1)
    if first > last:
        return [path[0], path[-1]]
    kept = path[first:last + 1]
    head = [_edge_of(path[first - 1], path[first], start)] if first > 0 else []
    tail = [_edge_of(path[last + 1], path[last], end)] if last < len(path) - 1 else []
    return head + kept + tail


def visible(path: list[Point], foot_u: np.ndarray, foot_v: np.ndarray, at_u: Point, at_v: Point) -> list[Point]:
    """The part of an edge's path that is drawn: outside its two nodes' markers and names (at ``at_u``, ``at_v``)."""
    if len(path) == 2:  # a straight line: where it leaves each footprint, exactly (causal_layout.exit_px)
        (x0, y0), (x1, y1) = path
        length = math.hypot(x1 - x0, y1 - y0) or 1.0
        start, end = exit_px(foot_u, x1 - x0, y1 - y0) / length, 1 - exit_px(foot_v, x0 - x1, y0 - y1) / length
        return [(x0 + start * (x1 - x0), y0 + start * (y1 - y0)), (x0 + end * (x1 - x0), y0 + end * (y1 - y0))]
    return outside_ends(path, inner_box(at_u, foot_u), inner_box(at_v, foot_v))
