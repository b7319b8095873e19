"""Plotly figures whose text cannot fetch, link or restyle: every string in a figure is escaped as text.

Plotly renders a subset of HTML in every piece of text it draws (titles, axis and tick labels, hover labels,
annotations, legend entries, category names, ``text``/``customdata`` substituted into templates): ``<a
href>`` becomes a live ``<a xlink:href>`` and ``<span style="fill:url(http://host/x)">`` makes the browser
fetch the host when the chart is drawn. Model or user text reaches those places through many builders, so
instead of escaping at each label :func:`inert_figure` walks the whole figure (data, layout, frames) and
escapes every string — complete by construction, whoever built the figure. Only attribute-free formatting
tags survive (``<br>``, ``<b>``, ``<i>``, ``<sup>``, ``<sub>``, ``<em>``, ``<s>``, ``<u>`` and the hover
template's ``<extra>``): no tag with an attribute, so no link and no style. ``<``/``>`` become ``&lt;``/
``&gt;`` and a bare ``&`` becomes ``&amp;`` (plotly.js decodes these entities into plain text nodes), so the
chart shows the same characters; escaping twice changes nothing. Image sources (``layout.images``, image
traces, map styles and layers) are kept only as ``data:`` URIs. Pure function, no streamlit.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

# An allowed tag is matched whole and attribute-free; every other "<" or ">" is escaped.
_ALLOWED_TAG = r"</?(?:b|i|em|s|u|sub|sup|extra)>|<br\s*/?>"
_TEXT_RE = re.compile(rf"({_ALLOWED_TAG})|<|>|&(?!#?\w{{1,32}};)", re.I)
_ENTITIES = {"<": "&lt;", ">": "&gt;", "&": "&amp;"}
# Properties whose string is a resource the browser loads (not text): only inline data is kept.
_URL_KEYS = {"source", "style", "sourcelayer"}
_URL_RE = re.compile(r"^\s*(?:[a-z][a-z0-9+.\-]*:|//)", re.I)


def inert_text(text: str) -> str:
    """One string as Plotly text: attribute-free formatting tags kept, every other ``<``, ``>`` and bare
    ``&`` escaped as an entity. Idempotent."""
    return _TEXT_RE.sub(lambda m: m.group(1) or _ENTITIES[m.group(0)], text)


def _resource(value: str) -> str | None:
    return value if not _URL_RE.match(value) or value.lstrip().lower().startswith("data:") else None


def _walk(value: Any, key: str = "") -> Any:
    if isinstance(value, str):
        return _resource(value) if key in _URL_KEYS else inert_text(value)
    if isinstance(value, dict):
        return {k: _walk(v, str(k)) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_walk(v, key) for v in value]
    if isinstance(value, np.ndarray) and value.dtype.kind in "OUS":
        return np.array([_walk(v.decode() if isinstance(v, bytes) else v, key) for v in value.ravel()],
                        dtype=object).reshape(value.shape)
    return value


def inert_figure(fig: Any) -> Any:
    """A copy of the Plotly figure ``fig`` with all of its text made inert (see the module docstring).

    Apply it wherever a figure is shown or exported; it does not change how ordinary labels look.
    """
    import plotly.graph_objects as go

    if is_inert(fig):
        return fig
    out = go.Figure(_walk(fig.to_dict()))
    out._ifworld_inert = True  # plotly keeps attributes that start with "_"
    return out


def is_inert(fig: Any) -> bool:
    """Whether ``fig`` came from :func:`inert_figure` (and, by the callers' contract, was not changed since:
    figures kept in a cache are read-only). Lets a cached figure be escaped once, not on every rerun."""
    return bool(getattr(fig, "_ifworld_inert", False))
