"""Chart text cannot fetch or link: :func:`ifworld.safe_figure.inert_figure` on every figure builder, fed
labels a hostile model writes (a Plotly ``<span style="fill:url(…)">``, an ``<a href>``, a Markdown image),
and the HTML export's charts. On the code before this module the export held 52 live ``<a href>`` labels."""

from __future__ import annotations

import json
import re
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import pytest

from ifworld import rws, whatif
from ifworld.safe_figure import inert_figure, inert_text
from ifworld.whatif.export import record_html
from tests.fixtures.scripts.whatif import hostile_label, poison_labels
from tests.whatif.records import sample_record

BEACON = "http://127.0.0.1:9"
ALLOWED = re.compile(r"</?(?:b|i|em|s|u|sub|sup|extra)>|<br\s*/?>", re.I)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in _strings(v)]
    if hasattr(value, "tolist"):
        return _strings(value.tolist())
    return []


def _live_tags(fig: go.Figure) -> list[str]:
    """Every tag in the figure's text that Plotly would render with attributes (or is not plain formatting)."""
    return [s for s in _strings(fig.to_dict()) if "<" in ALLOWED.sub("", s) or ">" in ALLOWED.sub("", s)]


@pytest.mark.parametrize(("text", "expected"), [
    ("plain", "plain"),
    ("a<br>b<b>c</b><sup>2</sup>", "a<br>b<b>c</b><sup>2</sup>"),
    ('<a href="http://h/">x</a>', '&lt;a href="http://h/"&gt;x&lt;/a&gt;'),
    ('<span style="fill:url(http://h/x)">s</span>', '&lt;span style="fill:url(http://h/x)"&gt;s&lt;/span&gt;'),
    ('<b style="fill:url(http://h/x)">s</b>', '&lt;b style="fill:url(http://h/x)"&gt;s</b>'),
    ("<BR/><A HREF=x>", "<BR/>&lt;A HREF=x&gt;"),
    ("R&D &amp; &#60;", "R&amp;D &amp; &#60;"),
    ("%{x}<extra></extra>", "%{x}<extra></extra>"),
])
def test_inert_text(text: str, expected: str) -> None:
    assert inert_text(text) == expected
    assert inert_text(expected) == expected  # escaping twice changes nothing


def _hostile_record() -> dict[str, Any]:
    return poison_labels(sample_record(), BEACON)


def _builders() -> list[tuple[str, go.Figure]]:
    rec = whatif.load_record(_hostile_record())
    graph = whatif.build_causal_graph(rec)
    edges = [e for r in rec.rounds for o in r.experts.values() for e in o.key_causal_edges]
    assert rec.report is not None
    scored = {hostile_label("method", BEACON): {"rigor_traceability": 50.0, "overall": 60.0}}
    return [("causal map", whatif.causal_figure(graph, highlight_cycles=True)),
            ("domain heatmap", whatif.domain_heatmap(edges, title=hostile_label("t", BEACON))),
            ("calibration", whatif.calibration_figure(rec.report.calibration_ranges)),
            ("scenarios", whatif.scenario_figure(rec.report.scenarios)),
            ("judge radar", whatif.judge_radar(scored)), ("judge bars", whatif.judge_bars(scored))]


def test_hostile_labels_reach_the_figures_and_are_escaped() -> None:
    for name, fig in _builders():
        if fig is None:
            continue
        assert _live_tags(fig), f"{name}: the hostile label did not reach the figure (test is not testing)"
        assert _live_tags(inert_figure(fig)) == [], name


def test_every_property_is_walked_and_resources_dropped() -> None:
    bad = hostile_label("x", BEACON)
    fig = go.Figure(go.Scatter(x=[bad, "ok"], y=[1, 2], text=[bad, bad], customdata=[[bad], [bad]], name=bad,
                               hovertemplate="%{x}<br>%{customdata[0]}<extra></extra>", ids=[bad, "b"]),
                    frames=[go.Frame(data=[go.Scatter(x=[bad])], name=bad, layout={"title": bad})])
    fig.update_layout(title=bad, legend_title_text=bad, annotations=[{"text": bad, "hovertext": bad}],
                      xaxis={"ticktext": [bad], "tickvals": [0], "title": {"text": bad}},
                      updatemenus=[{"buttons": [{"label": bad, "method": "animate", "args": [None]}]}],
                      sliders=[{"steps": [{"label": bad, "method": "animate", "args": [[bad]]}]}],
                      images=[{"source": f"{BEACON}/img.png"}, {"source": "data:image/png;base64,AAAA"}],
                      meta=[bad])
    fig.add_trace(go.Table(header={"values": [bad]}, cells={"values": [[bad]]}))
    clean = inert_figure(fig)
    assert _live_tags(clean) == []
    assert [im.source for im in clean.layout.images] == [None, "data:image/png;base64,AAAA"]
    assert clean.data[0].hovertemplate == "%{x}<br>%{customdata[0]}<extra></extra>"  # our own formatting kept
    assert _live_tags(inert_figure(clean)) == [] and inert_figure(clean).to_dict() == clean.to_dict()


def test_rws_and_belief_figures_are_walked_too() -> None:
    bad = hostile_label("p", BEACON)
    frame = pd.DataFrame({"pattern": [bad, "single"], "accuracy": [0.5, 0.25]})
    fig = go.Figure(go.Bar(x=frame["pattern"], y=frame["accuracy"]))  # a category axis from model-side names
    assert _live_tags(fig) and _live_tags(inert_figure(fig)) == []
    assert rws is not None


def _chart_payloads(html: str) -> list[Any]:
    """The (data, layout) JSON of every ``Plotly.newPlot("id", data, layout, config)`` call in a page."""
    decoder, out = json.JSONDecoder(), []
    for match in re.finditer(r"Plotly\.newPlot\(\s*\"[^\"]+\",\s*", html):
        data, end = decoder.raw_decode(html, match.end())
        layout, _ = decoder.raw_decode(html, html.index("{", end))
        out.append([data, layout])
    return out


def test_html_export_charts_hold_no_live_link_or_style() -> None:
    html = record_html(_hostile_record())
    payloads = _chart_payloads(html)
    assert len(payloads) >= 3, "charts missing from the export"
    strings = _strings(payloads)
    assert any("fill:url" in s for s in strings)  # the hostile text is there, as text
    assert [s for s in strings if "<" in ALLOWED.sub("", s)] == []
    assert "default-src 'none'" in html
