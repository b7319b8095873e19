"""The one place pages draw figures: :func:`show_chart` (``st.plotly_chart`` with the product's style and
``theme=None``, so Streamlit's theme does not restyle a figure and a chart on a page looks like the same chart
in an export or a paper)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from ifworld.toolkit import describe_figure, edge_sentences, figure_tables, inert_figure, inert_markdown, styled

CHART_CONFIG = {"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2}}
"""Plotly's toolbar: no logo; its camera button saves a PNG at twice the screen size (for slides and papers)."""
TABLE_ROWS = 60
"""Data tables up to this many rows are HTML tables (``st.table``); longer ones are a scrolling grid."""


def prepared(fig: go.Figure) -> go.Figure:
    """The figure as every page shows it: its text made inert (model and user text drawn as text, never as a
    link, a style or a fetched URL; a copy, unless the figure was made inert already, as cached ones are) and the
    product's style on it."""
    return styled(inert_figure(fig))


def show_chart(fig: go.Figure, *, container: Any = None, edges: list[dict[str, Any]] | None = None,
               **kw: Any) -> Any:
    """Draw ``fig`` in ``container`` (default: the page) with ``st.plotly_chart(..., theme=None)``, then its words:
    a caption with what it shows and its key numbers, and its data one click away (:func:`show_data`); a causal
    map passes its ``edges`` (``whatif.edge_rows``) to list them as sentences too. Other keyword arguments
    (``key``, ``on_select``, ``selection_mode``, ``width`` …) pass through; returns what ``st.plotly_chart``
    returns (the selection state when ``on_select`` is set)."""
    kw.setdefault("width", "stretch")
    kw.setdefault("config", CHART_CONFIG)
    shown = (container or st).plotly_chart(prepared(fig), theme=None, **kw)
    # Charts with words (issue #35): a screen reader gets nothing from the drawing, so every chart is followed by
    # what it shows and its key numbers, read from the figure itself (model text in it kept inert).
    (container or st).caption(inert_markdown(describe_figure(fig)))
    show_data(fig, container=container, edges=edges, key=f"{kw['key']}_data" if kw.get("key") else None)
    return shown


def show_data(fig: go.Figure, *, container: Any = None, edges: list[dict[str, Any]] | None = None,
              key: str | None = None) -> None:
    """The data behind ``fig``, one click away (issue #35): a popover (it may sit inside an expander, where an
    expander may not) holding each table of :func:`ifworld.figure_words.figure_tables` — short ones as ``st.table``,
    real HTML table markup a screen reader walks cell by cell, long ones as a grid — and ``edges`` as a list of
    "cause → effect (because …)" sentences. Model and user text stays inert."""
    tables = figure_tables(fig)
    if not tables and not edges:
        return
    with (container or st).popover("🔢 Data behind this chart", width="content", key=key):
        if edges:
            st.markdown("**Edges, in words** (most mentioned first)")
            st.markdown(inert_markdown("\n".join(f"- {line}" for line in edge_sentences(edges))))
        for caption, table in tables:
            st.markdown(f"**{inert_markdown(caption)}**")
            if len(table) <= TABLE_ROWS:
                inert_table(table.set_index(table.columns[0]))
            else:
                st.dataframe(table, hide_index=True)


def inert_table(table: pd.DataFrame, **kw: Any) -> Any:
    """``st.table`` with every text made inert first: st.table renders Markdown in its cells, headers and index
    (an image in a model's cell would be fetched), so each string goes through ``inert_markdown``. The one way
    pages draw an HTML table."""
    def cell(value: Any) -> Any:
        return inert_markdown(value) if isinstance(value, str) else value

    cells = table.map(cell)
    cells.columns = [inert_markdown(str(c)) for c in cells.columns]
    cells.index = cells.index.map(cell)
    return st.table(cells, **kw)
