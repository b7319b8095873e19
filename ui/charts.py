"""The one place pages draw figures: :func:`show_chart` (``st.plotly_chart`` with the product's style and
``theme=None``, so Streamlit's theme does not restyle a figure and a chart on a page looks like the same chart
in an export or a paper)."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go
import streamlit as st

from ifworld.figstyle import styled
from ifworld.safe_figure import inert_figure
from ifworld.safe_text import inert_markdown
from ui.figure_text import describe

CHART_CONFIG = {"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2}}
"""Plotly's toolbar: no logo; its camera button saves a PNG at twice the screen size (for slides and papers)."""


def prepared(fig: go.Figure) -> go.Figure:
    """The figure as every page shows it: its text made inert (model and user text drawn as text, never as a
    link, a style or a fetched URL; a copy, unless the figure was made inert already, as cached ones are) and the
    product's style on it."""
    return styled(inert_figure(fig))


def show_chart(fig: go.Figure, *, container: Any = None, **kw: Any) -> Any:
    """Draw ``fig`` in ``container`` (default: the page) with ``st.plotly_chart(..., theme=None)``; keyword
    arguments (``key``, ``on_select``, ``selection_mode``, ``width`` …) pass through; returns what
    ``st.plotly_chart`` returns (the selection state when ``on_select`` is set)."""
    kw.setdefault("width", "stretch")
    kw.setdefault("config", CHART_CONFIG)
    shown = (container or st).plotly_chart(prepared(fig), theme=None, **kw)
    # Charts with words (issue #35): a screen reader gets nothing from the drawing, so every chart is followed by
    # what it shows and its key numbers, read from the figure itself (model text in it kept inert).
    (container or st).caption(inert_markdown(describe(fig)))
    return shown
