"""The data behind a figure as tables, and a causal map's edges as sentences (issue #35: charts with words).

:func:`figure_tables` reads a Plotly figure itself — each series' values on its axes, a heatmap's grid, a polar
chart's spokes — so every chart drawn through ``ui.charts.show_chart`` has its numbers one click away without a
per-figure table to keep in step with the drawing. :func:`edge_sentences` turns a causal map's edge rows
(``whatif.edge_rows``) into "A → B (+, strength 3; because …)" lines a screen reader reads in order.
No streamlit here: ``ui.charts`` draws what these return.
"""

from __future__ import annotations

import math
import re
from typing import Any

import pandas as pd
import plotly.graph_objects as go

MAX_ROWS = 1_000
"""Rows a table shows at most (a larger series is cut, and the table says so)."""
SIGN_WORDS = {"+": "+ increases", "-": "− decreases", "−": "− decreases", "±": "± mixed"}

_TAG = re.compile(r"<[^>]+>")


def _plain(text: Any) -> str:
    return " ".join(_TAG.sub(" ", str(text if text is not None else "")).split())


def _values(seq: Any) -> list[Any]:
    if seq is None:
        return []
    out = []
    for v in list(seq):
        if isinstance(v, float) and not math.isfinite(v):
            out.append(None)
        elif hasattr(v, "item") and not isinstance(v, str):
            out.append(v.item())
        else:
            out.append(_plain(v) if isinstance(v, str) else v)
    return out


def _axis_title(fig: go.Figure, trace: Any, letter: str) -> str:
    ref = getattr(trace, f"{letter}axis", None) or letter
    axis = fig.layout[f"{letter}axis{ref[1:]}"] if len(ref) > 1 else fig.layout[f"{letter}axis"]
    title = _plain(axis.title.text) if axis is not None and axis.title is not None else ""
    return title or letter


def _series(fig: go.Figure, trace: Any, name: str) -> pd.DataFrame | None:
    x_name, y_name = _axis_title(fig, trace, "x"), _axis_title(fig, trace, "y")
    xs, ys = _values(trace.x), _values(trace.y)
    if not xs and not ys:
        return None
    n = max(len(xs), len(ys))
    xs = xs or list(range(1, n + 1))
    ys = ys or [None] * n
    if x_name == y_name:
        y_name = f"{y_name} (up)"
    frame = pd.DataFrame({"Series": [name] * min(len(xs), len(ys)), x_name: xs[:len(ys)], y_name: ys[:len(xs)]})
    text = _values(trace.text) if isinstance(trace.text, (list, tuple)) or hasattr(trace.text, "__len__") and \
        not isinstance(trace.text, str) else []
    if len(text) == len(frame):
        frame.insert(1, "Label", text)
    if _hidden_axes(fig, trace):  # a network's positions mean nothing: keep what the points are
        return frame.drop(columns=[x_name, y_name]) if "Label" in frame else None
    return frame.dropna(subset=[c for c in (x_name, y_name) if c in frame], how="all")


def _hidden_axes(fig: go.Figure, trace: Any) -> bool:
    refs = [getattr(trace, f"{a}axis", None) or a for a in ("x", "y")]
    axes = [fig.layout[f"{r[0]}axis{r[1:]}"] for r in refs]
    return all(axis is not None and axis.visible is False for axis in axes)


def _grid(trace: Any, name: str) -> pd.DataFrame | None:
    z = trace.z
    if z is None or not len(z):
        return None
    rows = [_values(r) for r in z]
    width = max(len(r) for r in rows)
    rows = [r + [None] * (width - len(r)) for r in rows]
    cols, index = _values(trace.x), _values(trace.y)  # labels that do not fit the grid are numbered instead
    cols = cols if len(cols) == width else list(range(1, width + 1))
    index = index if len(index) == len(rows) else list(range(1, len(rows) + 1))
    names: list[str] = []
    for c in cols:  # repeated labels stay apart (a table needs distinct headers)
        names.append(f"{c} ({names.count(str(c)) + 1})" if str(c) in names else str(c))
    frame = pd.DataFrame(rows, columns=names)
    frame.insert(0, name or "Row", [str(i) for i in index])
    return frame


def _polar(trace: Any, name: str) -> pd.DataFrame | None:
    r, theta = _values(trace.r), _values(trace.theta)
    if not r:
        return None
    return pd.DataFrame({"Series": [name] * len(r), "Axis": (theta or list(range(1, len(r) + 1)))[:len(r)],
                         "Value": r})


def figure_tables(fig: go.Figure) -> list[tuple[str, pd.DataFrame]]:
    """The figure's data as ``(caption, table)`` pairs: one table for all line / bar / point series (long form:
    series, x, y), one per heatmap (its grid) and one for polar series. Helper traces without a name beside named
    ones (bands, highlights, click layers) are left out, as in the figure's caption. Tables longer than
    :data:`MAX_ROWS` are cut (the caption says so)."""
    traces = list(fig.data)
    named = [t for t in traces if _plain(getattr(t, "name", None))]
    use = named if named else traces
    series, out = [], []
    for i, trace in enumerate(use, start=1):
        name = _plain(getattr(trace, "name", None)) or f"series {i}"
        if trace.type in ("heatmap", "contour"):
            grid = _grid(trace, "" if len(use) == 1 else name)
            if grid is not None:
                out.append((f"{name}: rows × columns" if named else "Rows × columns", grid))
        elif trace.type in ("scatterpolar", "barpolar"):
            frame = _polar(trace, name)
            if frame is not None:
                series.append(frame)
        elif trace.type in ("scatter", "scattergl", "bar", "box", "violin", "histogram"):
            frame = _series(fig, trace, name)
            if frame is not None and len(frame):
                series.append(frame)
    if series:
        table = pd.concat(series, ignore_index=True, sort=False)
        if table["Series"].nunique() == 1:
            table = table.drop(columns="Series")
        out.insert(0, ("Values", table))
    return [(cap + (f" (first {MAX_ROWS:,} of {len(t):,} rows)" if len(t) > MAX_ROWS else ""), t.head(MAX_ROWS))
            for cap, t in out]


def edge_sentences(rows: list[dict[str, Any]]) -> list[str]:
    """A causal map's edges in words, most mentioned first: "A → B (+ increases, strength 3; because …)"."""
    lines = []
    for row in rows:
        sign = SIGN_WORDS.get(str(row.get("sign") or "±"), str(row.get("sign") or ""))
        parts = [sign] + ([f"strength {row['strength']}"] if row.get("strength") not in (None, "") else [])
        because = _plain(row.get("mechanism"))
        lines.append(f"{_plain(row.get('source'))} → {_plain(row.get('target'))} ({', '.join(parts)}"
                     + (f"; because {because})" if because else ")"))
    return lines
