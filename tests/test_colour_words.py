"""Captions name the colours their figures draw (issue #42 item 5a): the causal map's and the belief network's
captions said "green / red / purple" after the figures had turned blue / vermillion. Each caption is read off
the page next to the figure it explains, and every colour word in it is checked against the colour that draws
that mark in the figure's own spec."""

from __future__ import annotations

import json
import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

from ifworld import whatif
from ifworld.figstyle import COLOUR_NAMES, colour_name
from ifworld.runs.store import get_store
from tests.whatif.records import sample_record

APP = str(Path(__file__).resolve().parents[1] / "app.py")
NAMES = "|".join(sorted({re.escape(n) for n in COLOUR_NAMES.values()}, key=len, reverse=True))


def _specs(at: AppTest) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def _caption(at: AppTest, words: str) -> str:
    return next(c.value for c in at.caption if words in c.value)


def test_colour_name_knows_every_palette_colour_and_refuses_a_guess() -> None:
    assert colour_name("#0072b2") == "blue" and colour_name("#D55E00") == "vermillion"
    try:
        colour_name("#123456")
    except KeyError:
        pass
    else:
        raise AssertionError("an unnamed colour must not get a guessed name")


def test_causal_map_caption_names_the_edge_and_halo_colours_drawn() -> None:
    rec = sample_record()
    run_id = get_store().create_run("whatif", "whatif.ifworld", rec["params"], "What-if: Moon")
    get_store().finish_run(run_id, rec, rec["usage"])
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page("app_pages/causal_map.py")
    at.run()
    assert not at.exception
    caption = _caption(at, "edge colour = sign")
    assert not re.search(r"\b(green|red)\b", caption)
    said = dict((sign, name) for name, sign in re.findall(rf"({NAMES}) ([+−]|mixed)", caption))
    fig, heat = _specs(at)
    signs = next(t for t in fig["data"] if t.get("name") == "edges")["text"]
    drawn = {s: colour_name(a["arrowcolor"]) for s, a in zip(signs, fig["layout"]["annotations"], strict=False)}
    assert drawn and all(said[s] == name for s, name in drawn.items()), (said, drawn)
    halo = dict((what, name) for name, what in re.findall(rf"({NAMES}) halo = ([\w -]+)", caption))
    for trace in fig["data"]:
        if trace.get("name") in ("cross-domain", "feedback loop"):
            assert halo[trace["name"]] == colour_name(trace["line"]["color"])
    assert halo.keys() == {"cross-domain", "feedback loop"}
    heat_caption = _caption(at, "Domain × domain")
    scale = heat["data"][0]["colorscale"]
    assert f"{colour_name(scale[-1][1])} = net amplifying" in heat_caption
    assert f"{colour_name(scale[0][1])} = net damping" in heat_caption


def test_causal_halos_are_named_from_the_figure() -> None:
    """The map's loop halo shows only with "highlight loops" on: drawn here through the front door."""
    graph = whatif.build_causal_graph(sample_record())
    fig = whatif.causal_figure(graph, highlight_cycles=True, highlight_cross_domain=True)
    halo = dict((what, name) for name, what in re.findall(rf"({NAMES}) halo = ([\w -]+)", whatif.causal_legend()))
    drawn = {t.name: colour_name(t.line.color) for t in fig.data if t.name in ("cross-domain", "feedback loop")}
    assert drawn == halo


def test_belief_caption_names_the_network_and_heatmap_colours_drawn() -> None:
    at = AppTest.from_file(APP, default_timeout=90)
    at.switch_page("app_pages/beliefs.py")
    at.run()
    next(b for b in at.button if b.label == "▶️ Run simulation").click()
    at.run()
    assert not at.exception
    caption = _caption(at, "Network:")
    assert not re.search(r"\b(green|red|purple)\b", caption)
    network, heatmap = _specs(at)[:2]
    lines = {t["line"]["dash"]: colour_name(t["line"]["color"]) for t in network["data"] if t.get("mode") == "lines"}
    for name, dash in re.findall(rf"({NAMES}) (solid|dashed|dotted) =", caption):
        assert lines[{"dashed": "dash", "dotted": "dot"}.get(dash, dash)] == name
    nodes = next(t for t in network["data"] if "markers" in t.get("mode", ""))["marker"]
    shapes = {s: colour_name(c) for s, c in zip(nodes["symbol"], nodes["color"], strict=True)}
    for name, shape in re.findall(rf"({NAMES}) (diamond|circle)s", caption):
        assert shapes.get(shape, name) == name
    assert "diamond" in shapes or "circle" in shapes
    cells = re.search(rf"({NAMES}) cells = never heard of", caption)
    assert cells and cells.group(1) == colour_name(heatmap["layout"]["plot_bgcolor"])


def test_agent_figure_title_names_its_line_colours() -> None:
    from ifworld.beliefs import BeliefConfig, agent_figure, simulate

    res = simulate(BeliefConfig(agents=8, facts=6, rounds=5), seed=4, record=True)
    fig = agent_figure(res.recording, res.domain, 0, 2)
    said = dict((dash, name) for name, dash in re.findall(rf"({NAMES}) (solid|dotted) =", fig.layout.title.text))
    drawn = {{"dot": "dotted"}.get(t.line.dash, t.line.dash): colour_name(t.line.color) for t in fig.data}
    assert drawn and all(said[dash] == name for dash, name in drawn.items()), (said, drawn)
