"""The product's one figure style and its human names for table columns (no streamlit).

Every figure builder ends with :func:`styled`, which sets :data:`TEMPLATE` on the figure itself. The template is
never taken from ``plotly.io.templates.default``: Streamlit replaces that default with its own theme when it
is imported (narrow margins, no automargin, placeholder colours its front end swaps), so a figure built inside
the app would otherwise differ from the same figure built by the CLI — and an HTML export made in the app
would cut its labels. With the template set explicitly, a figure and an export look the same wherever they
are made; ``ui.charts.show_chart`` draws them with ``theme=None`` so Streamlit does not restyle them either.

The style is sized for a projector and for paper: no text under :data:`MIN_TEXT_PX` (16 px; a figure's own
smaller sizes are raised by :func:`styled`, see docs/accessibility.md for the derivation), margins that grow to
fit their labels (``automargin`` on every axis and on the title), the title set below the chart toolbar, colour
bars slim and outside the plot, a legend on a white background.

Colours are colour-blind-safe (issue #35): series take Okabe & Ito's palette (:data:`SERIES_COLOURS`), signs and
truth :data:`POSITIVE` / :data:`NEGATIVE` / :data:`MIXED`, and successive line series also differ by marker and
dash, successive bars by fill pattern, so no meaning rests on colour alone. ``tests/browser/
test_colour_vision_browser.py`` checks rendered figures under simulated deuteranopia, protanopia and tritanopia.

:data:`COLUMN_LABELS` and :func:`human_columns` give tables word headers (``prompt_tokens`` → "Prompt
tokens", ``latency_s`` → "Latency (s)", ``f1_lo`` → "F1 (95 % low)").
"""

from __future__ import annotations

import re
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

TEMPLATE_NAME = "ifworld"
FONT_FAMILY = "Inter, system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif"
MIN_TEXT_PX = 16
"""The smallest text a figure may draw, in CSS px: projected at the 175 % zoom docs/accessibility.md names for a
1280 × 720 projector it is 28 projected px, whose capitals subtend 16 arcmin at six image heights."""
FONT_SIZE = 16
TICK_SIZE = MIN_TEXT_PX
TITLE_SIZE = 19
SERIES_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
"""Okabe & Ito's colour-universal-design palette (yellow left out: too light on white), in series order."""
POSITIVE, NEGATIVE, MIXED = "#0072B2", "#D55E00", "#6b7280"
"""Sign and truth colours (+ / true: blue; − / false: vermillion; mixed or none: grey) — never red against green."""
NOTHING, NEVER_SEEN = "#bbbbbb", "#d9d9d9"
"""Light greys for "nothing happened" (a link that passed nothing) and "no value" (a cell never heard of)."""
AMBER_HALO, PURPLE_HALO = "rgba(255, 179, 0, 0.45)", "rgba(123, 31, 162, 0.45)"
PURPLE = "#7b1fa2"
"""Highlight colours drawn under or around marks (a cross-domain link, a feedback loop), never a series' colour."""
COLOUR_NAMES: dict[str, str] = {
    "#0072B2": "blue", "#D55E00": "vermillion", "#009E73": "green", "#CC79A7": "pink", "#E69F00": "orange",
    "#56B4E9": "sky blue", "#000000": "black", MIXED: "grey", NOTHING: "grey", NEVER_SEEN: "light grey",
    AMBER_HALO: "amber", PURPLE_HALO: "purple", PURPLE: "purple",
}
"""The word a caption uses for each colour a figure draws (Okabe & Ito's own names): captions call
:func:`colour_name` on the colour that draws the mark, so the words change with the palette, never apart from it."""
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "star", "triangle-down")
DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot", "solid")
PATTERNS = ("", "/", ".", "x", "\\", "+", "-")
TEXT_COLOUR = "#1f2933"
TOOLBAR_PX = 30
"""Height of plotly's toolbar (shown on hover at the top right): titles sit below it, never under it."""
COLOUR_BAR: dict[str, Any] = {"thickness": 14, "outlinewidth": 0, "ticks": "outside", "ticklen": 3,
                              "tickfont": {"size": MIN_TEXT_PX},
                              "title": {"side": "right", "font": {"size": MIN_TEXT_PX}}}


def colour_name(colour: str) -> str:
    """The human name of a colour of :data:`COLOUR_NAMES` (a colour without one is an error: a caption must not
    guess a colour's name)."""
    key = str(colour).strip()
    for known, name in COLOUR_NAMES.items():
        if known.upper() == key.upper():
            return name
    raise KeyError(f"no human name for the figure colour {colour!r}: add it to figstyle.COLOUR_NAMES")


def _template() -> go.layout.Template:
    base = go.layout.Template(pio.templates["plotly_white"])
    axis = {"automargin": True, "title": {"font": {"size": FONT_SIZE}, "standoff": 10},
            "tickfont": {"size": TICK_SIZE}, "ticks": "outside", "ticklen": 4, "tickcolor": "#9aa5b1",
            "linecolor": "#9aa5b1", "showline": True}
    base.layout.update(
        font={"family": FONT_FAMILY, "size": FONT_SIZE, "color": TEXT_COLOUR},
        title={"font": {"size": TITLE_SIZE}, "x": 0, "xref": "paper", "xanchor": "left", "y": 1, "yref": "container",
               "yanchor": "top", "pad": {"t": TOOLBAR_PX + 4, "b": 8}, "automargin": True},
        margin={"l": 16, "r": 32, "t": TOOLBAR_PX + 8, "b": 16, "autoexpand": True},
        legend={"font": {"size": TICK_SIZE}, "title": {"font": {"size": TICK_SIZE}},
                "bgcolor": "rgba(255,255,255,0.9)", "tracegroupgap": 4},
        hoverlabel={"font": {"size": TICK_SIZE}}, xaxis=axis, yaxis=axis,
        polar={"angularaxis": {"tickfont": {"size": TICK_SIZE}}, "radialaxis": {"tickfont": {"size": MIN_TEXT_PX}}},
        annotationdefaults={"font": {"size": TICK_SIZE}}, coloraxis={"colorbar": COLOUR_BAR},
        colorway=list(SERIES_COLOURS),
    )
    # successive series of one kind differ by more than colour: plotly cycles through these per trace type
    base.data.scatter = [go.Scatter(marker={"symbol": m}, line={"dash": d}) for m, d in zip(SYMBOLS, DASHES,
                                                                                             strict=True)]
    base.data.scatterpolar = [go.Scatterpolar(marker={"symbol": m}, line={"dash": d})
                              for m, d in zip(SYMBOLS, DASHES, strict=True)]
    base.data.bar = [go.Bar(marker={"pattern": {"shape": p, "fillmode": "overlay", "size": 8, "solidity": 0.25}})
                     for p in PATTERNS]
    for kind in ("heatmap", "histogram2d", "contour"):
        for trace in base.data[kind]:
            trace.update(colorbar=COLOUR_BAR)
    return base


TEMPLATE = _template()
pio.templates[TEMPLATE_NAME] = TEMPLATE  # registered by name too, for `template="ifworld"` in notebooks


def styled(fig: go.Figure) -> go.Figure:
    """Put the product's style on ``fig`` (in place; returned for chaining). A figure that has it already is not
    touched (pages may share cached figures between sessions: they must stay read-only)."""
    if not is_styled(fig):
        fig.update_layout(template=TEMPLATE)
        legible(fig)
    return fig


def legible(fig: go.Figure, minimum: int = MIN_TEXT_PX) -> go.Figure:
    """Raise every font size ``fig`` sets below ``minimum`` to it (annotations, trace text, colour bars, sliders,
    in every animation frame too); transparent text (a hidden label layer) is left alone."""
    owners: list[Any] = [fig.layout, *fig.data, *(t for f in fig.frames or () for t in f.data or ())]
    for owner in owners:
        spec = owner.to_plotly_json()
        spec.pop("template", None)
        for path in _small_fonts(spec, minimum):
            node = owner
            for step in path:
                node = node[step]
            node.size = minimum
    return fig


def _small_fonts(spec: Any, minimum: int, path: tuple = ()) -> list[tuple]:
    """Paths (keys and list indices) to the font dicts in ``spec`` whose size is below ``minimum``."""
    found: list[tuple] = []
    items = spec.items() if isinstance(spec, dict) else enumerate(spec) if isinstance(spec, (list, tuple)) else ()
    for key, value in items:
        if isinstance(value, (dict, list, tuple)):
            if isinstance(key, str) and key.endswith("font") and isinstance(value, dict):
                size = value.get("size")
                hidden = str(value.get("color", "")).replace(" ", "") in ("rgba(0,0,0,0)", "transparent")
                if isinstance(size, (int, float)) and size < minimum and not hidden:
                    found.append((*path, key))
            found += _small_fonts(value, minimum, (*path, key))
    return found


def is_styled(fig: go.Figure) -> bool:
    """Whether ``fig`` carries the product's template (checked by its font, which no other template uses)."""
    font = fig.layout.template.layout.font
    return font.family == FONT_FAMILY and font.size == FONT_SIZE


def wrap_label(text: str, width: int = 16) -> str:
    """Break a long tick or legend label into lines of about ``width`` characters (plotly's ``<br>``), so
    category labels stay horizontal instead of being rotated and cut. A line may also end after a slash or a
    hyphen inside a word ("heuristic-<br>additive")."""
    pieces: list[tuple[str, bool]] = []  # (piece, glued to the piece before it)
    for word in str(text).split():
        pieces += [(part, k > 0) for k, part in enumerate(p for p in re.split(r"(?<=[/-])(?=\w)", word) if p)]
    lines: list[str] = []
    line = ""
    for part, glued in pieces:
        joined = line + part if glued else f"{line} {part}".strip()
        if line and len(joined) > width:
            lines.append(line)
            line = part
        else:
            line = joined
    return "<br>".join([*lines, line]) if line else str(text)


COLUMN_LABELS: dict[str, str] = {
    "prompt_tokens": "Prompt tokens", "completion_tokens": "Completion tokens", "total_tokens": "Total tokens",
    "latency_s": "Latency (s)", "calls": "Model calls", "retries": "Retries", "failures": "Failures",
    "role": "Role", "round": "Round", "model": "Model", "status": "Status", "start": "Start", "end": "End",
    "out_strength": "Drive (strength out)", "in_strength": "Driven (strength in)", "pagerank": "PageRank",
    "out_degree": "Links out", "in_degree": "Links in", "label": "Node", "domain": "Domain",
    "mentions": "Mentions", "source": "Cause", "target": "Effect", "sign": "Sign", "strength": "Strength",
    "cross_domain": "Cross-domain", "domains": "Domains", "count": "Mentioned by (count)", "sources": "Sources",
    "mechanism": "Mechanism", "f1": "F1", "precision": "Precision", "recall": "Recall", "ratio": "M_F / M_T",
    "m_false": "M_F (false facts each)", "m_true": "M_T (true facts each)", "runs": "Runs", "rule": "Rule",
    "lock_share": "Any false fact accepted (share)", "false_majority": "Falsehood majority (share)",
    "rounds_used": "Rounds used", "converged": "Stopped by vote", "condition": "Condition", "seed": "Seed",
    "agents": "Agents", "facts": "Facts", "bandwidth": "Bandwidth", "strategy": "Strategy", "group": "Group",
}
_SUFFIXES = (("_lo", " (95 % low)"), ("_hi", " (95 % high)"), ("_std", " (std)"), ("_mean", " (mean)"),
             ("_pct", " (%)"), ("_s", " (s)"), ("_ms", " (ms)"))


def column_label(name: Any) -> str:
    """The word header of a table column: :data:`COLUMN_LABELS`, else the snake-case name in words with its
    unit or statistic suffix spelled out (``f1_lo`` → "F1 (95 % low)")."""
    key = str(name)
    if key in COLUMN_LABELS:
        return COLUMN_LABELS[key]
    for suffix, words in _SUFFIXES:
        if key.endswith(suffix) and len(key) > len(suffix):
            return column_label(key[: -len(suffix)]) + words
    if not re.fullmatch(r"[a-z0-9_]+", key):  # already written for people
        return key
    text = key.replace("_", " ").strip()
    return text[:1].upper() + text[1:]


def human_columns(frame: pd.DataFrame | list[dict[str, Any]]) -> pd.DataFrame:
    """``frame`` (or rows) with word headers from :func:`column_label`; the values are unchanged."""
    table = frame if isinstance(frame, pd.DataFrame) else pd.DataFrame(frame)
    return table.rename(columns={c: column_label(c) for c in table.columns})
