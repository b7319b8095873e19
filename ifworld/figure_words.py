"""A figure in words (issue #35: charts with words), for a screen reader and for the exports (no streamlit).

:func:`describe` says what a Plotly figure shows and its key numbers (title, axis names, each series' name, how many
values, their range and where the highest is); :func:`figure_tables` gives the data behind it as tables (each
series' values on its axes, a heatmap's grid, a polar chart's spokes); :func:`edge_sentences` turns a causal map's
edge rows (``whatif.edge_rows``) into "A → B (+ increases, strength 3; because …)" lines read in order.

All three read the figure itself, so every chart drawn through ``ui.charts.show_chart`` (and every chart of an HTML
export, ``ifworld.whatif.export``) gets its words and its data without a per-figure text or table to keep in step
with the drawing. Model and user text in a figure comes out as plain text; whoever renders it keeps it inert.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from ifworld.whatif.numbers import num

_TAG = re.compile(r"<[^>]+>")


def _plain(text: Any) -> str:
    """Text without markup; a line break after a hyphen or slash (``wrap_label``) joins the word again."""
    return " ".join(_TAG.sub(" ", re.sub(r"([/-])<br>", r"\1", str(text or ""))).split())


MAX_TRACES = 8
"""Traces described one by one; the rest are counted."""

def _num(x: float) -> str:
    return num(x)


def _label(value: Any) -> str:
    """A place on an axis in words: a number as people read it ("-0.316", not "-0.31586336219399974"), text plain."""
    return num(value) if isinstance(value, (int, float)) and not isinstance(value, bool) or \
        hasattr(value, "item") and isinstance(value.item(), (int, float)) else _plain(value)


def _numbers(values: Iterable[Any] | None) -> list[float]:
    out: list[float] = []
    for v in values if values is not None else ():
        if isinstance(v, (list, tuple)) or (hasattr(v, "__len__") and not isinstance(v, str)):
            out.extend(_numbers(v))
            continue
        try:
            f = float(v)
        except (TypeError, ValueError):
            continue
        if math.isfinite(f):
            out.append(f)
    return out


def _trace(trace: Any, x_name: str, y_name: str, *, alone: bool = False) -> str | None:
    """One trace in words: its name, how many values and their range, and where the largest one is. A trace
    without a name beside named ones (an error marker, a reference line, a highlight) is left out: read aloud
    as "scatter: 1 value" it is noise."""
    kind = trace.type
    name = _plain(getattr(trace, "name", None))
    if not name and not alone and kind not in ("heatmap", "contour"):
        return None
    name = name or kind
    if kind in ("heatmap", "contour"):
        z = _numbers(trace.z)
        return f"{name}: {len(z)} cells, values from {_num(min(z))} to {_num(max(z))}" if z else None
    if kind == "scatterpolar":
        r, theta = list(trace.r or ()), [_label(t) for t in (trace.theta or ())]
        pairs = [f"{t} {_num(float(v))}" for t, v in zip(theta, r, strict=False) if _numbers([v])]
        return f"{name}: {', '.join(pairs[:12])}" if pairs else None
    if kind not in ("scatter", "scattergl", "bar", "box", "violin", "histogram"):
        return None
    horizontal = kind == "bar" and getattr(trace, "orientation", None) == "h"
    values, places = (trace.x, trace.y) if horizontal else (trace.y, trace.x)
    y_name = x_name if horizontal else y_name  # the axis the values are read on
    ys = list(values) if values is not None else []
    nums = _numbers(ys)
    if not nums:
        return None
    text = f"{name}: {len(nums)} value{'s' if len(nums) != 1 else ''}" + (f" of {y_name}" if y_name else "")
    text += f", from {_num(min(nums))} to {_num(max(nums))}" if len(nums) > 1 else f", {_num(nums[0])}"
    if len(nums) > 1 and places is not None and len(list(places)) == len(ys):
        best = max(range(len(ys)), key=lambda i: _numbers([ys[i]])[0] if _numbers([ys[i]]) else -math.inf)
        where = _label(list(places)[best])
        text += f" (highest at {where})" if where else ""
    return text


def describe(fig: go.Figure) -> str:
    """The figure in one paragraph: its title, axes, and per trace the number of values and their range."""
    layout = fig.layout
    title = _plain(layout.title.text) if layout.title else ""
    x_name = _plain(layout.xaxis.title.text) if layout.xaxis and layout.xaxis.title else ""
    y_name = _plain(layout.yaxis.title.text) if layout.yaxis and layout.yaxis.title else ""
    head = (title if title.lower().startswith("figure") else f"Figure: {title}") + "." if title else "Figure."
    if x_name or y_name:
        head += f" Axes: {x_name or '—'} across, {y_name or '—'} up."
    alone = len(fig.data) == 1
    described = [t for t in (_trace(tr, x_name, y_name, alone=alone) for tr in fig.data[:MAX_TRACES]) if t]
    more = len(fig.data) - MAX_TRACES
    body = "; ".join(described) + (f"; and {more} more series" if more > 0 else "")
    return f"{head} {body}." if body else head


# -- the data behind a figure ------------------------------------------------------------------------------------
MAX_ROWS = 1_000
"""Rows a table shows at most (a larger series is cut, and the table says so)."""
SIGN_WORDS = {"+": "+ increases", "-": "− decreases", "−": "− decreases", "±": "± mixed"}

def _values(seq: Any) -> list[Any]:
    if seq is None:
        return []
    out: list[Any] = []
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
        parts = [sign] + ([f"strength {_label(row['strength'])}"] if row.get("strength") not in (None, "") else [])
        because = _plain(row.get("mechanism"))
        lines.append(f"{_plain(row.get('source'))} → {_plain(row.get('target'))} ({', '.join(parts)}"
                     + (f"; because {because})" if because else ")"))
    return lines
