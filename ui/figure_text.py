"""A figure in words (issue #35): what a Plotly figure shows and its key numbers, for a screen reader.

:func:`describe` reads the figure itself (title, axis names, each trace's name and values), so every chart
drawn through ``ui.charts.show_chart`` gets its text alternative without a per-figure description to keep in
step with the figure.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

import plotly.graph_objects as go

MAX_TRACES = 8
"""Traces described one by one; the rest are counted."""

_TAG = re.compile(r"<[^>]+>")


def _plain(text: Any) -> str:
    return " ".join(_TAG.sub(" ", str(text or "")).split())


def _num(x: float) -> str:
    return f"{x:.3g}"


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
        r, theta = list(trace.r or ()), [_plain(t) for t in (trace.theta or ())]
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
        where = _plain(list(places)[best])
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
