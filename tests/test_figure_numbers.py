"""Numbers in a figure's words are rounded for people (issue #42 item 5b): "-0.316", not "-0.31586336219399974".

Before: ``describe`` rounded a series' range but wrote the place of its highest value (an x that is a number),
a radar's spoke and a causal edge's strength raw — a screen reader read out 17 digits."""

from __future__ import annotations

import re

import plotly.graph_objects as go
import pytest

from ifworld.beliefs import BeliefConfig, agent_figure, belief_heatmap_figure, metrics_figure, simulate
from ifworld.figure_words import describe, edge_sentences
from ifworld.toolkit import describe_figure

NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?(?:e-?\d+)?")
LONG = -0.31586336219399974


def significant(token: str) -> int:
    """Significant digits written in a number ("-0.316" → 3, "2.12" → 3); whole numbers count their digits
    without trailing zeros ("1,250" → 3, "20" → 1)."""
    mantissa = token.lstrip("-").split("e")[0].replace(",", "")
    digits = mantissa.replace(".", "").lstrip("0")
    return len(digits if "." in mantissa else digits.rstrip("0"))


def longest(text: str) -> int:
    return max((significant(t) for t in NUMBER.findall(text)), default=0)


FIGURES = {
    "line with number places": go.Figure(go.Scatter(x=[0.1, LONG, 0.7], y=[1.0, 2.123456789, 0.5], name="a")),
    "bar with number categories": go.Figure(go.Bar(x=[1 / 3, 2 / 3], y=[0.123456789, 0.987654321], name="b")),
    "radar with number spokes": go.Figure(go.Scatterpolar(r=[1 / 3, 2.5], theta=[1 / 7, 2 / 7], name="c")),
    "heatmap": go.Figure(go.Heatmap(z=[[LONG, 1 / 3], [2 / 3, 1.0]])),
}


@pytest.mark.parametrize("name", list(FIGURES))
def test_a_figure_in_words_writes_no_number_longer_than_people_read(name: str) -> None:
    text = describe_figure(FIGURES[name])
    assert longest(text) <= 4, text


def test_the_place_of_the_highest_value_is_rounded() -> None:
    fig = go.Figure(go.Scatter(x=[0.1, LONG, 0.7], y=[1.0, 2.5, 0.5], name="a"))
    assert "(highest at -0.316)" in describe(fig)


def test_edge_sentences_round_a_merged_strength() -> None:
    line = edge_sentences([{"source": "A", "target": "B", "sign": "+", "strength": 7 / 3}])[0]
    assert line == "A → B (+ increases, strength 2.33)"


def test_belief_figures_in_words_round_their_numbers() -> None:
    res = simulate(BeliefConfig(agents=8, facts=6, rounds=5), seed=4, runs=2, record=True)
    texts = [describe(agent_figure(res.recording, res.domain, 0, 2)),
             describe(belief_heatmap_figure(res.recording, res.domain, 0)),
             describe(metrics_figure(res.recording))]
    assert all(longest(t) <= 4 for t in texts), texts
