"""The one figure style: every builder sets it explicitly, so a figure (and an HTML export) made in a process
where Streamlit has replaced plotly's default template is the same as one made by the CLI."""

from __future__ import annotations

import json
import re

import pandas as pd
import plotly.io as pio
import pytest

from ifworld import figstyle
from ifworld.whatif.export import record_html

RECORD = {
    "proposition": "What if the Moon vanished?", "method": "ifworld",
    "report": {"markdown": "Verdict.", "calibration_ranges": [
        {"quantity": "tidal range", "unit": "m", "ci50": [0.6, 0.9], "ci80": [0.4, 1.1], "ci95": [0.3, 1.2]}],
        "scenarios": [{"id": "B1", "name": "cascade", "probability_pct": 40},
                      {"id": "B2", "name": "managed adaptation", "probability_pct": 60}]},
    "rounds": [{"experts": {"physics": {"key_causal_edges": [
        {"source": "tides", "target": "coasts", "sign": "+", "strength": 2, "domains": ["physics", "economics"]}]}}}],
}


@pytest.fixture
def foreign_default_template():
    """What importing streamlit does: another template becomes plotly's default (here a narrow-margin one)."""
    before = pio.templates.default
    pio.templates["narrow"] = {"layout": {"margin": {"l": 1, "r": 1, "t": 1, "b": 1}, "colorway": ["#000001"]}}
    pio.templates.default = "narrow"
    yield
    pio.templates.default = before


def _normalised(html: str) -> str:
    return re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "ID", html)


def test_export_is_the_same_whatever_the_default_template(foreign_default_template) -> None:
    inside_app = record_html(RECORD)
    pio.templates.default = "plotly"
    from_cli = record_html(RECORD)
    assert "#000001" not in inside_app
    assert _normalised(inside_app) == _normalised(from_cli)


def test_builders_carry_the_template(foreign_default_template) -> None:
    from ifworld.whatif.compare import judge_bars, judge_radar
    from ifworld.whatif.figures import calibration_figure, scenario_figure
    from ifworld.whatif.records import load_record

    rec = load_record(RECORD)
    scored = {"A": {"rigor_traceability": 20, "overall": 70}}
    for fig in (calibration_figure(rec.report.calibration_ranges), scenario_figure(rec.report.scenarios),
                judge_radar(scored), judge_bars(scored)):
        layout = json.loads(fig.to_json())["layout"]
        assert layout["template"]["layout"]["font"]["size"] == figstyle.FONT_SIZE
        assert layout["template"]["layout"]["xaxis"]["automargin"] is True


@pytest.mark.parametrize(("name", "label"), [
    ("prompt_tokens", "Prompt tokens"), ("latency_s", "Latency (s)"), ("out_strength", "Drive (strength out)"),
    ("f1_lo", "F1 (95 % low)"), ("lock_share_hi", "Any false fact accepted (share) (95 % high)"),
    ("some_new_count", "Some new count"), ("Already human", "Already human"),
])
def test_column_labels(name: str, label: str) -> None:
    assert figstyle.column_label(name) == label


def test_human_columns_keeps_the_values() -> None:
    table = figstyle.human_columns([{"prompt_tokens": 3, "latency_s": 0.5}])
    assert list(table.columns) == ["Prompt tokens", "Latency (s)"]
    assert table.iloc[0].tolist() == [3, 0.5]
    assert isinstance(figstyle.human_columns(pd.DataFrame({"f1": [1.0]})), pd.DataFrame)


def test_wrap_label_breaks_long_labels_only() -> None:
    assert figstyle.wrap_label("Feasibility & minimality", 12) == "Feasibility<br>& minimality"
    assert figstyle.wrap_label("biology/ecology", 10) == "biology/<br>ecology"
    assert figstyle.wrap_label("short", 12) == "short"
