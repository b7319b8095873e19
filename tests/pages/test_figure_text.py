"""Charts with words (issue #35): every chart drawn by ui.charts.show_chart is followed by its text alternative."""

import plotly.graph_objects as go

from ifworld.figure_words import describe


def test_a_bar_chart_in_words_names_its_title_axes_range_and_highest_bar() -> None:
    fig = go.Figure([go.Bar(x=["single", "hmaw", "pace"], y=[0.4, 0.72, 0.55], name="accuracy")])
    fig.update_layout(title="RWS <b>accuracy</b>", xaxis_title="pattern", yaxis_title="share correct")
    text = describe(fig)
    assert text.startswith("Figure: RWS accuracy. Axes: pattern across, share correct up.")
    assert "3 values of share correct, from 0.4 to 0.72 (highest at hmaw)" in text


def test_heatmaps_radars_and_empty_figures() -> None:
    assert "4 cells, values from -1 to 3" in describe(go.Figure([go.Heatmap(z=[[1, 2], [3, -1]])]))
    radar = describe(go.Figure([go.Scatterpolar(r=[4, 2], theta=["rigor", "feasibility"], name="ifworld")]))
    assert "ifworld: rigor 4, feasibility 2" in radar
    assert describe(go.Figure()) == "Figure."


def test_horizontal_bars_are_read_on_the_x_axis() -> None:
    fig = go.Figure([go.Bar(y=["N = 10", "N = 20"], x=[0.35, 0.41], orientation="h", name="Agents N")])
    fig.update_layout(title="Figure 2: effects", xaxis_title="mean F1", yaxis_title="parameter")
    text = describe(fig)
    assert text.startswith("Figure 2: effects. Axes:")
    assert "Agents N: 2 values of mean F1, from 0.35 to 0.41 (highest at N = 20)" in text
