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
from collections.abc import Iterator, Mapping

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


def segment_hits_box(p: Point, q: Point, box: tuple[float, float, float, float]) -> bool:
    """Does the segment p→q pass through the box (left, right, below, above)? (Liang–Barsky clipping.)"""
    low, high = 0.0, 1.0
    for step, start, lo, hi in ((q[0] - p[0], p[0], box[0], box[1]), (q[1] - p[1], p[1], box[2], box[3])):
        if abs(step) < 1e-12:
            if start <= lo or start >= hi:
                return False
            continue
        t0, t1 = sorted(((lo - start) / step, (hi - start) / step))
        low, high = max(low, t0), min(high, t1)
        if low >= high:
            return False
    return True


def _hits(path: list[Point], boxes: list[tuple[float, float, float, float]]) -> bool:
    """Does any piece of the path pass through any of the boxes? (:func:`segment_hits_box` for all pieces and
    boxes at once: a curve is tried against every node, many times, while a map is drawn.)"""
    if not boxes or len(path) < 2:
        return False
    points, box = np.asarray(path, dtype=float), np.asarray(boxes, dtype=float)
    start, step = points[:-1, None, :], (points[1:] - points[:-1])[:, None, :]
    low, high = np.zeros((len(points) - 1, len(box))), np.ones((len(points) - 1, len(box)))
    with np.errstate(divide="ignore", invalid="ignore"):
        for axis in (0, 1):
            lo, hi = box[None, :, 2 * axis], box[None, :, 2 * axis + 1]
            s, d = start[..., axis], step[..., axis]
            flat = np.abs(d) < 1e-12
            t0, t1 = (lo - s) / np.where(flat, 1.0, d), (hi - s) / np.where(flat, 1.0, d)
            inside = (s > lo) & (s < hi)
            low = np.maximum(low, np.where(flat, np.where(inside, -np.inf, np.inf), np.minimum(t0, t1)))
            high = np.minimum(high, np.where(flat, np.where(inside, np.inf, -np.inf), np.maximum(t0, t1)))
    return bool((low < high).any())


def _curve(p: Point, q: Point, bend: float) -> list[Point]:
    """A quadratic curve from p to q whose middle lies ``bend`` px to the right of the straight line's middle."""
    (x0, y0), (x1, y1) = p, q
    length = math.hypot(x1 - x0, y1 - y0) or 1.0
    nx, ny = (y1 - y0) / length, -(x1 - x0) / length
    cx, cy = (x0 + x1) / 2 + 2 * bend * nx, (y0 + y1) / 2 + 2 * bend * ny  # the curve reaches half its control
    ts = np.linspace(0.0, 1.0, CURVE_POINTS)
    xs = (1 - ts) ** 2 * x0 + 2 * (1 - ts) * ts * cx + ts ** 2 * x1
    ys = (1 - ts) ** 2 * y0 + 2 * (1 - ts) * ts * cy + ts ** 2 * y1
    return [(float(x), float(y)) for x, y in zip(xs, ys, strict=True)]


def _s_curve(p: Point, q: Point, first: float, second: float) -> list[Point]:
    """A cubic curve from p to q whose control points lie ``first`` and ``second`` px to the right of the points a
    third and two thirds along the straight line: it can pass one node on one side and the next on the other."""
    (x0, y0), (x1, y1) = p, q
    length = math.hypot(x1 - x0, y1 - y0) or 1.0
    nx, ny = (y1 - y0) / length, -(x1 - x0) / length
    c1 = (x0 + (x1 - x0) / 3 + first * nx, y0 + (y1 - y0) / 3 + first * ny)
    c2 = (x0 + 2 * (x1 - x0) / 3 + second * nx, y0 + 2 * (y1 - y0) / 3 + second * ny)
    ts = np.linspace(0.0, 1.0, CURVE_POINTS)
    xs = (1 - ts) ** 3 * x0 + 3 * (1 - ts) ** 2 * ts * c1[0] + 3 * (1 - ts) * ts ** 2 * c2[0] + ts ** 3 * x1
    ys = (1 - ts) ** 3 * y0 + 3 * (1 - ts) ** 2 * ts * c1[1] + 3 * (1 - ts) * ts ** 2 * c2[1] + ts ** 3 * y1
    return [(float(x), float(y)) for x, y in zip(xs, ys, strict=True)]


def route(nodes: Mapping[str, Point], feet: Mapping[str, np.ndarray], edges: list[Edge],
          shifts: Mapping[Edge, Point], width: float, height: float) -> dict[Edge, list[Point]]:
    """Each edge's path between its nodes' centres (moved by its ``shifts``): two points when straight, or
    :data:`CURVE_POINTS` when bent around a third node (see the module docstring)."""
    paths = {}
    for u, v in edges:
        sx, sy = shifts.get((u, v), (0.0, 0.0))
        p, q = (nodes[u][0] + sx, nodes[u][1] + sy), (nodes[v][0] + sx, nodes[v][1] + sy)
        others = [(nodes[n], foot) for n, foot in feet.items() if n not in (u, v)]
        paths[(u, v)] = _gentlest(p, q, others, width, height, (u, v) in shifts)
    return paths


def _gentlest(p: Point, q: Point, others: list[tuple[Point, np.ndarray]], width: float, height: float,
              paired: bool) -> list[Point]:
    """The straight line p→q if it misses every other node by :data:`CLEARANCE_PX`; else the least bent curve that
    does — or, failing that, that misses them at all, or that crosses the fewest (the straight line on a tie). One
    arrow of a two-way pair (``paired``) bends only to its own side, away from the other arrow."""
    near = [inner_box(at, foot, CLEARANCE_PX) for at, foot in others]
    if not _hits([p, q], near):
        return [p, q]
    touching = [inner_box(at, foot) for at, foot in others]
    steps = [k * BEND_STEP_PX * 2 for k in range(-S_BENDS, S_BENDS + 1)]
    s_bends = sorted(((a, b) for a in steps for b in steps if a * b < 0), key=lambda ab: abs(ab[0]) + abs(ab[1]))

    def curves() -> Iterator[list[Point]]:  # the least bent first; made only as far as they are needed
        for step in range(1, MAX_BENDS + 1):
            for sign in (1,) if paired else (1, -1):
                yield _curve(p, q, sign * step * BEND_STEP_PX)
        for first, second in () if paired else s_bends:
            yield _s_curve(p, q, first, second)

    def framed(curve: list[Point]) -> bool:
        return all(0 <= x <= width and 0 <= y <= height for x, y in curve)

    for boxes in (near, touching):
        clear = next((c for c in curves() if framed(c) and not _hits(c, boxes)), None)
        if clear is not None:
            return clear
    return min([[p, q], *(c for c in curves() if framed(c))], key=lambda c: sum(_hits(c, [box]) for box in touching))


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
