"""An expert's answer while it is being written: the fields its streamed JSON has so far, as plain text.

Fed by ``expert_partial`` progress events (:class:`ifworld.runs.events.ExpertPartial`); the finished card
(``expert_done``) replaces it.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from ui.common import inert

PARTIAL_MAX_CHARS = 1_500
SHOWN_ITEMS = 4


def partial_text(partial: dict[str, Any]) -> str:
    """Markdown of the fields written so far (strings, and the first items of lists), newest last."""
    lines = []
    for key, value in partial.items():
        label = key.replace("_", " ")
        if isinstance(value, str) and value.strip():
            lines.append(f"**{label}:** {value.strip()}")
        elif isinstance(value, list) and value:
            items = [_short(v) for v in value[:SHOWN_ITEMS]]
            lines.append(f"**{label}:** " + "; ".join(i for i in items if i))
    text = "\n\n".join(lines)
    return text if len(text) <= PARTIAL_MAX_CHARS else "…" + text[-PARTIAL_MAX_CHARS:]


def _short(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(str(v) for v in value.values() if isinstance(v, str | int | float))[:160]
    return str(value)[:160]


def render_partial(slot: Any, domain: str, partial: dict[str, Any]) -> None:
    """Replace ``slot``'s content with the expert's text so far."""
    with slot.container():
        st.caption(f"✍️ {domain} is writing…")
        inert().markdown(partial_text(partial) or "…")  # streamed model text: no images, HTML or live links
