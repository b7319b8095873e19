"""The causal map's label layout in pixels (the browser check is tests/browser/test_labels_browser.py)."""

from __future__ import annotations

import numpy as np
import pytest

from ifworld.figstyle import FONT_SIZE, wrap_label
from ifworld.whatif import causal, causal_layout as cl
from tests.whatif.records import large_record, sample_record


def _laid_out(record: dict, seed: int = 0):  # noqa: ANN202
    g = causal.build_causal_graph(record)
    sizes = {n: cl.marker_diameter(g.degree(n, weight="weight")) for n in g.nodes}
    boxes = {n: cl.text_box_px(wrap_label(g.nodes[n]["label"], cl.LABEL_WRAP).split("<br>"), FONT_SIZE)
             for n in g.nodes}
    pos, height = cl.place_nodes(causal.layout(g, seed), sizes, boxes)
    return g, pos, height, cl.footprints(sizes, boxes)


def _box(pos: dict, feet: dict, n: str) -> tuple[float, float, float, float]:
    (x, y), f = pos[n], feet[n]
    return x + f[0], x + f[1], y + f[2], y + f[3]


@pytest.mark.parametrize("seed", [0, 1, 7])
@pytest.mark.parametrize("record", [large_record(), sample_record()], ids=["18 nodes", "sample"])
def test_no_two_footprints_overlap_and_all_fit_the_frame(record: dict, seed: int) -> None:
    _, pos, height, feet = _laid_out(record, seed)
    boxes = {n: _box(pos, feet, n) for n in pos}
    names = sorted(boxes)
    for i, a in enumerate(names):
        left, right, below, above = boxes[a]
        assert left >= -0.01 and right <= cl.DESIGN_WIDTH_PX + 0.01 and below >= -0.01 and above <= height + 0.01
        for b in names[i + 1:]:
            l2, r2, b2, a2 = boxes[b]
            assert min(right, r2) - max(left, l2) <= 1e-6 or min(above, a2) - max(below, b2) <= 1e-6, (a, b)


def test_every_sign_mark_finds_a_free_place_on_the_large_map() -> None:
    g, pos, _, feet = _laid_out(large_record())
    edges = sorted((u, v) for u, v in g.edges if u != v)
    marks = cl.place_signs(pos, feet, edges, cl.pair_shifts(pos, edges))  # as the figure places them
    w, h = cl.SIGN_BOX_PX[0] / 2, cl.SIGN_BOX_PX[1] / 2
    for (u, v), (x, y) in marks.items():
        for n in pos:
            left, right, below, above = (a + s * cl.PAD_PX for a, s in zip(_box(pos, feet, n), (1, -1, 1, -1),
                                                                           strict=True))
            assert not (x + w > left and x - w < right and y + h > below and y - h < above), (u, v, n)


def test_a_line_leaves_a_node_at_its_name_or_its_marker() -> None:
    foot = np.array([-50.0, 50.0, -20.0, 60.0])
    assert cl.exit_px(foot, 0, 1) == pytest.approx(60 - cl.PAD_PX)  # straight up: through the name
    assert cl.exit_px(foot, 1, 0) == pytest.approx(50 - cl.PAD_PX)
    assert cl.exit_px(foot, 0, -1) == pytest.approx(20 - cl.PAD_PX)


def test_text_widths_are_an_upper_bound_of_the_font_stack() -> None:
    assert cl.text_width_px("mmmm", 16) > cl.text_width_px("iiii", 16)
    assert cl.text_width_px("Household disposable income", 16) == pytest.approx(16 * 15.26, rel=0.05)
    assert cl.text_width_px("日本", 16) == 32  # unknown characters count a full em


def test_the_figure_keeps_the_laid_out_pixels_as_its_axes() -> None:
    fig = causal.causal_figure(causal.build_causal_graph(large_record()))
    assert list(fig.layout.xaxis.range) == [0, cl.DESIGN_WIDTH_PX]
    assert fig.layout.margin.autoexpand is False
    assert fig.layout.height > fig.layout.yaxis.range[1]  # the plot plus the fixed margins


def test_a_two_way_pair_is_drawn_side_by_side_not_one_over_the_other() -> None:
    """Income → policy rate and policy rate → income, and the map's three other two-way pairs (#42 item 5): two
    arrows a gap apart, each sign mark on or outside its own arrow — nearer its own line than the other's —
    where both used to lie on one line."""
    from tests.whatif.records import edge

    record = large_record()
    macro = record["rounds"][0]["experts"]["macroeconomics"]
    there = macro["key_causal_edges"][0]
    macro["key_causal_edges"].append(edge(there["target"], there["source"], "-", 3, ["macroeconomics"],
                                          "a higher rate cools incomes"))
    g = causal.build_causal_graph(record)
    pair = [(u, v) for u, v in g.edges if g.has_edge(v, u) and u != v]  # the map had three pairs already
    assert ("central bank policy rate", "household disposable income") in pair and len(pair) == 8
    fig = causal.causal_figure(g)
    arrows = [((a.ax, a.ay), (a.x, a.y)) for a in fig.layout.annotations]
    assert len(arrows) == sum(1 for u, v in g.edges if u != v)

    def gap(one: tuple, other: tuple) -> float:  # distance from ``other``'s middle to ``one``'s line
        (x0, y0), (x1, y1) = one
        mx, my = (other[0][0] + other[1][0]) / 2, (other[0][1] + other[1][1]) / 2
        return abs((x1 - x0) * (y0 - my) - (x0 - mx) * (y1 - y0)) / float(np.hypot(x1 - x0, y1 - y0))

    def parallel(a: tuple, b: tuple) -> bool:
        (ax, ay), (bx, by) = (np.subtract(a[1], a[0]), np.subtract(b[1], b[0]))
        return abs(ax * by - ay * bx) <= 1e-6 * float(np.hypot(ax, ay) * np.hypot(bx, by))

    from ifworld.whatif import causal_routes as cr

    _, pos, height, feet = _laid_out(record)
    shifts = cl.pair_shifts(pos, pair)
    paths = cr.route(pos, feet, pair, shifts, cl.DESIGN_WIDTH_PX, height)
    straight = [(u, v) for u, v in pair if len(paths[u, v]) == 2 and len(paths[v, u]) == 2 and u < v]
    lined_up = [(a, b) for i, a in enumerate(arrows) for b in arrows[i + 1:] if parallel(a, b)]
    assert len(lined_up) >= len(straight)  # the pairs drawn straight
    for a, b in lined_up:  # no arrow lies over another: parallel ones keep the pair's gap
        assert gap(a, b) >= cl.PAIR_GAP_PX - 1e-6, (a, b)
    for u, v in pair:  # a bent arrow bends away from its partner: never nearer it than the pair's gap
        if len(paths[u, v]) > 2:
            partner = paths[v, u] if len(paths[v, u]) == 2 else _straight(pos, shifts, [(v, u)])[v, u]
            assert min(gap(partner, (point, point)) for point in paths[u, v]) >= cl.PAIR_GAP_PX - 1e-6
    marks = cl.place_signs(pos, feet, pair, shifts)
    for (u, v), (x, y) in marks.items():
        own, other = ((pos[u][0] + shifts[u, v][0], pos[u][1] + shifts[u, v][1]),
                      (pos[v][0] + shifts[u, v][0], pos[v][1] + shifts[u, v][1])), \
                     ((pos[v][0] + shifts[v, u][0], pos[v][1] + shifts[v, u][1]),
                      (pos[u][0] + shifts[v, u][0], pos[u][1] + shifts[v, u][1]))
        point = ((x, y), (x, y))
        assert gap(own, point) < gap(other, point), (u, v)


def _straight(pos: dict, shifts: dict, edges: list) -> dict:
    return {(u, v): [(pos[u][0] + shifts.get((u, v), (0, 0))[0], pos[u][1] + shifts.get((u, v), (0, 0))[1]),
                     (pos[v][0] + shifts.get((u, v), (0, 0))[0], pos[v][1] + shifts.get((u, v), (0, 0))[1])]
            for u, v in edges}


def test_an_edge_bends_around_a_name_in_its_way_and_stays_straight_otherwise() -> None:
    """Three nodes in a row, the outer two linked: the line would cross the middle one's name (#42 item 5)."""
    from ifworld.whatif import causal_routes as cr

    feet = {n: np.array([-60.0, 60.0, -25.0, 55.0]) for n in "abc"}
    pos = {"a": (80.0, 200.0), "c": (270.0, 200.0), "b": (460.0, 200.0)}
    straight = _straight(pos, {}, [("a", "b"), ("a", "c")])
    assert len(cr.crossings(pos, feet, straight)) == 1
    paths = cr.route(pos, feet, [("a", "b"), ("a", "c")], {}, 540, 420)
    assert len(paths["a", "c"]) == 2  # nothing between a and c
    assert len(paths["a", "b"]) == cr.CURVE_POINTS and not cr.crossings(pos, feet, paths, margin=cr.CLEARANCE_PX)
    assert all(0 <= x <= 540 and 0 <= y <= 420 for x, y in paths["a", "b"])
    shown = cr.visible(paths["a", "b"], feet["a"], feet["b"], pos["a"], pos["b"])
    for end, at in ((shown[0], pos["a"]), (shown[-1], pos["b"])):  # drawn from the edge of each end's name
        box = cr.inner_box(at, feet["a"])
        assert box[0] - 0.5 <= end[0] <= box[1] + 0.5 and box[2] - 0.5 <= end[1] <= box[3] + 0.5
        assert not (box[0] + 0.5 < end[0] < box[1] - 0.5 and box[2] + 0.5 < end[1] < box[3] - 0.5)


@pytest.mark.parametrize("seed", range(10))
def test_edges_cross_far_fewer_names_on_the_large_map(seed: int) -> None:
    from ifworld.whatif import causal_routes as cr

    g, pos, height, feet = _laid_out(large_record(), seed)
    edges = sorted((u, v) for u, v in g.edges if u != v)
    shifts = cl.pair_shifts(pos, edges)
    before = len(cr.crossings(pos, feet, _straight(pos, shifts, edges)))
    after = len(cr.crossings(pos, feet, cr.route(pos, feet, edges, shifts, cl.DESIGN_WIDTH_PX, height)))
    assert before >= 4 and after <= before // 2, (before, after)  # 186 → 25 over seeds 0–19 (docs/whatif.md)


def test_a_bent_edge_is_drawn_as_a_line_with_its_arrowhead_and_its_sign_on_it() -> None:
    from ifworld.whatif import causal_routes as cr

    g = causal.build_causal_graph(large_record())
    fig = causal.causal_figure(g, highlight_cross_domain=False)
    bodies = [t for t in fig.data if t.name == "edges" and t.mode == "lines"]
    assert bodies and all(len(t.x) > 2 for t in bodies)
    assert len(fig.layout.annotations) == sum(1 for u, v in g.edges if u != v)  # one arrowhead per edge still
    signs = next(t for t in fig.data if t.name == "edges" and t.mode == "markers+text")
    for body in bodies:
        line = list(zip(body.x, body.y, strict=True))
        near = min(float(np.min([np.hypot(x - a, y - b) for a, b in line])) for x, y in zip(signs.x, signs.y,
                                                                                                strict=True))
        assert near <= max(cl.SIGN_OFFSETS_PX) + 8  # some sign mark sits on every bent line
    assert cr.CURVE_POINTS > 2
