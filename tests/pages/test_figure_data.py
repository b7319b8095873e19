"""Data one click away (issue #35): the tables read from a figure, and a causal map's edges as sentences; and the
popover ``ui.charts.show_chart`` puts them in, on a page (AppTest)."""

import plotly.graph_objects as go
from streamlit.testing.v1 import AppTest

from ifworld.figure_words import MAX_ROWS, edge_sentences, figure_tables


def test_line_series_become_one_long_table_with_axis_names() -> None:
    fig = go.Figure([go.Scatter(x=[1, 2], y=[0.5, 0.7], name="F1"),
                     go.Scatter(x=[1, 2, 2, 1], y=[0.4, 0.6, 0.8, 0.6], fill="toself", showlegend=False),  # band
                     go.Scatter(x=[1, 2], y=[0.1, 0.3], name="lock share")])
    fig.update_layout(xaxis_title="M_F / M_T", yaxis_title="share")
    [(caption, table)] = figure_tables(fig)
    assert caption == "Values"
    assert list(table.columns) == ["Series", "M_F / M_T", "share"]
    assert table.to_dict("records")[-1] == {"Series": "lock share", "M_F / M_T": 2, "share": 0.3}
    assert len(table) == 4  # the unnamed band is left out


def test_heatmaps_keep_their_grid_and_horizontal_bars_their_labels() -> None:
    heat = go.Figure([go.Heatmap(z=[[1, 2], [3, 4]], x=["fact 1", "fact 2"], y=["agent 0", "agent 1"])])
    [(_, grid)] = figure_tables(heat)
    assert grid.to_dict("records") == [{"Row": "agent 0", "fact 1": 1, "fact 2": 2},
                                       {"Row": "agent 1", "fact 1": 3, "fact 2": 4}]
    bars = go.Figure([go.Bar(y=["N = 10", "N = 20"], x=[0.35, 0.41], orientation="h", name="Agents N")])
    [(_, table)] = figure_tables(bars)
    assert table.to_dict("records")[0] == {"x": 0.35, "y": "N = 10"}


def test_long_series_are_cut_and_say_so_and_empty_figures_have_no_table() -> None:
    [(caption, table)] = figure_tables(go.Figure([go.Scatter(y=list(range(MAX_ROWS + 5)), name="s")]))
    assert len(table) == MAX_ROWS and f"of {MAX_ROWS + 5:,} rows" in caption
    assert figure_tables(go.Figure()) == []


def test_edges_in_words() -> None:
    rows = [{"source": "bridges closed", "target": "<b>traffic</b>", "sign": "+", "strength": 3,
             "mechanism": "detours"}, {"source": "a", "target": "b", "sign": "-", "strength": None, "mechanism": ""}]
    assert edge_sentences(rows) == ["bridges closed → traffic (+ increases, strength 3; because detours)",
                                    "a → b (− decreases)"]


def _page() -> None:
    import plotly.graph_objects as go

    from ui.charts import show_chart

    show_chart(go.Figure([go.Bar(x=["a", "b"], y=[1, 2], name="n")]), key="c",
               edges=[{"source": "x", "target": "[y](http://evil.example/)", "sign": "+", "mechanism": "m"}])


def test_show_chart_puts_the_data_and_the_edges_one_click_away() -> None:
    at = AppTest.from_function(_page).run()
    assert not at.exception
    texts = " ".join(m.value for m in at.markdown)
    assert "Edges, in words" in texts and "x → " in texts and "](http" not in texts  # the link stays inert
    assert len(at.table) == 1


def test_a_network_keeps_what_its_points_are_not_their_positions() -> None:
    fig = go.Figure([go.Scatter(x=[0.1, 0.9], y=[0.3, 0.2], text=["flood", "traffic"], name="transport"),
                     go.Scatter(x=[0.5], y=[0.5], name="edges", hovertext=["a → b"])])
    fig.update_layout(xaxis={"visible": False}, yaxis={"visible": False})
    [(_, table)] = figure_tables(fig)
    assert table.to_dict("records") == [{"Label": "flood"}, {"Label": "traffic"}]  # the edges: as sentences
