"""The printable roster sheet: one card per student with their name, personal code and a QR code of their link.

Pure (no streamlit), so a test parses exactly what the download button serves. A name is a student's text as
the facilitator pasted it: it enters the page through :func:`html.escape` only, as text — never as markup. The
page is self-contained (inline SVG, no script, no network) and prints one card per cell, never split across two
sheets of paper.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable
from typing import Protocol


class Card(Protocol):
    name: str
    code: str


QR_CM = 4.5
"""Printed size of each QR code: a phone held a forearm away from the paper reads it at once."""

_STYLE = f"""
* {{ box-sizing: border-box; }}
body {{ font-family: system-ui, sans-serif; margin: 1cm; color: #000; background: #fff; }}
h1 {{ font-size: 1.2rem; margin: 0 0 .3cm; }}
p.how {{ margin: 0 0 .5cm; font-size: .9rem; }}
.cards {{ display: grid; grid-template-columns: repeat(2, 1fr); gap: .5cm; }}
.card {{ border: 1px dashed #555; padding: .4cm; display: flex; gap: .4cm; align-items: center;
         break-inside: avoid; page-break-inside: avoid; }}
.qr svg {{ width: {QR_CM}cm; height: {QR_CM}cm; display: block; }}
.name {{ font-size: 1.3rem; font-weight: 700; overflow-wrap: anywhere; }}
.code {{ font-family: ui-monospace, monospace; font-size: 1.6rem; letter-spacing: .2rem; margin-top: .2cm; }}
.room {{ font-size: .8rem; margin-top: .2cm; }}
@media print {{ body {{ margin: .5cm; }} .card {{ border-color: #999; }} }}
"""


def qr_svg(url: str) -> str:
    """The link as an inline SVG QR code (``segno``; sized by the sheet's CSS, not by pixels)."""
    import segno

    return str(segno.make(url, error="m").svg_inline(scale=1, border=2, omitsize=True))


def sheet_html(cards: Iterable[Card], link_for: Callable[[str], str], *, room_code: str = "",
               title: str = "Workshop") -> str:
    """A printable HTML page of the cards. ``link_for(code)`` is the join link carrying that personal code."""
    e = html.escape  # names and the title are text: & < > " ' all escaped
    how = ("Scan your QR code with your phone's camera, or open the workshop's address on the projector"
           + (f", type the workshop code <b>{e(room_code)}</b>" if room_code else "")
           + " and then your personal code. Keep your code to yourself: it signs you in as you.")
    rows = []
    for c in cards:
        rows.append(
            f'<div class="card"><div class="qr" role="img" aria-label="QR code for {e(c.name)}">'
            f"{qr_svg(link_for(c.code))}</div>"
            f'<div><div class="name">{e(c.name)}</div><div class="code">{e(c.code)}</div>'
            + (f'<div class="room">Workshop code {e(room_code)}</div>' if room_code else "")
            + "</div></div>")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{e(title)} — personal codes</title><style>{_STYLE}</style></head><body>"
            f"<h1>{e(title)} — personal codes</h1><p class=\"how\">{how}</p>"
            f"<div class=\"cards\">{''.join(rows)}</div></body></html>\n")
