"""Clicking a heatmap cell: the click layer lines up with the heatmap and the event maps to (fact, agent)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ifworld.beliefs import animation
from ifworld.beliefs.config import BeliefConfig
from ifworld.beliefs.engine import simulate


def _still_heatmap(config: BeliefConfig, t: int = 3):
    result = simulate(config, seed=4, runs=1, record=True)
    fig = animation.belief_heatmap_figure(result.recording, result.domain)
    still = go.Figure(data=fig.frames[t].data, layout=fig.layout)
    return result, still


def _event_point(layer: go.Scatter, index: int, curve: int = animation.CELL_LAYER) -> dict:
    """A point as Streamlit reports it in ``event.selection.points``."""
    return {"curve_number": curve, "point_number": index, "point_index": index,
            "x": int(layer.x[index]), "y": int(layer.y[index])}


def test_click_layer_covers_every_cell_with_its_statement():
    result, still = _still_heatmap(BeliefConfig(agents=7, facts=5, rounds=6))
    z = np.asarray(still.data[0].z, dtype=float)
    assert animation.add_cell_layer(still)
    assert len(still.data) == animation.CELL_LAYER + 1 and still.data[0].hoverinfo == "skip"
    layer = still.data[animation.CELL_LAYER]
    assert len(layer.x) == z.size == 7 * 10
    order = animation.fact_order(result.domain)
    for i in range(z.size):
        agent, col = int(layer.y[i]), int(layer.x[i])
        label, conf = layer.customdata[i]
        assert label == result.domain.labels[order[col]]
        assert conf == ("never heard of it" if np.isnan(z[agent, col]) else f"confidence {z[agent, col]:.2f}")


def test_event_maps_to_the_clicked_fact_and_agent():
    result, still = _still_heatmap(BeliefConfig(agents=9, facts=6, rounds=8), t=5)
    animation.add_cell_layer(still)
    layer, domain, rec = still.data[animation.CELL_LAYER], result.domain, result.recording
    order = animation.fact_order(domain)
    shown = animation.round_data(rec, domain, t=5)["beliefs"]
    for index in (0, 11, 12 * 4 + 7, len(layer.x) - 1):
        fact, agent = animation.clicked_cell([_event_point(layer, index)], domain, 9)
        assert (int(np.flatnonzero(order == fact)[0]), agent) == (layer.x[index], layer.y[index])
        holders = animation.fact_holders(rec, domain, 0, fact, 5)  # the inspector's table puts the agent where
        conf = shown[agent, layer.x[index]]                          # the clicked cell's colour says
        group = ("never heard of it" if np.isnan(conf) else "believe it" if conf > 0.5 else
                 "undecided" if conf == 0.5 else None)
        assert sum(agent in v for v in holders.values()) == 1
        if group:
            assert agent in holders[group]


def test_only_points_on_the_layer_count_and_the_last_click_wins():
    result, still = _still_heatmap(BeliefConfig(agents=5, facts=4, rounds=4))
    animation.add_cell_layer(still)
    layer, domain = still.data[animation.CELL_LAYER], result.domain
    order = animation.fact_order(domain)
    assert animation.clicked_cell([], domain, 5) is None
    assert animation.clicked_cell([_event_point(layer, 3, curve=0)], domain, 5) is None  # the heatmap itself
    assert animation.clicked_cell([{"curve_number": 1, "point_index": 5 * 8}], domain, 5) is None  # out of range
    got = animation.clicked_cell([_event_point(layer, 2), _event_point(layer, 8 + 6)], domain, 5)
    assert got == (int(order[6]), 1)


def test_large_heatmap_keeps_the_select_boxes_only():
    _, still = _still_heatmap(BeliefConfig(agents=600, facts=10, rounds=2), t=1)
    assert 600 * 20 > animation.MAX_CLICK_CELLS
    assert not animation.add_cell_layer(still) and len(still.data) == 1


def test_a_selection_is_applied_once_so_a_select_box_choice_made_since_stands():
    """A chart keeps its selection over reruns; only a new click may move the inspector."""
    from ui.beliefs_view import _new_points

    click = {"selection": {"points": [{"curve_number": 1, "point_index": 4}]}}  # Streamlit's event is a dict
    other = {"selection": {"points": [{"curve_number": 1, "point_index": 9}]}}
    assert _new_points(click, "t_seen") == click["selection"]["points"]
    assert _new_points(click, "t_seen") == []  # the same selection on the next rerun
    assert _new_points(other, "t_seen") == other["selection"]["points"]
    assert _new_points({"selection": {"points": []}}, "t_seen") == []  # new round: the selection was reset
    assert _new_points(other, "t_seen") == other["selection"]["points"]  # the same cell clicked again counts
    assert _new_points(print, "t_seen") == []  # a chart drawn without on_select returns no event
