"""What the room has said, as one element: a small ``st.components.v2`` component, a row per contribution with
its buttons (a participant's +1; the facilitator's accept, reject, hide, edit).

Why not Streamlit elements: both views redraw themselves every second, and with a container, a text and a button
per contribution a room of 30 with 60 contributions sent 5,400 elements a second through one Streamlit process —
py-spy showed the server saturated by per-element overhead, and the facilitator's 480-element list kept what was
said 6–12 s away from their screen (``benchmarks/bench_workshop.py``). This is one element whose data is the list.

The list's width decides its layout, in its style (a container query, no flag from the page): on a phone a box
per contribution with the whole text and buttons in words; from 34rem (a projector at 175 % zoom: 731×411 CSS px)
a row each, who and text on one line cut to two lines — a toggle, a click on the text, or the keyboard's focus on
one of the row's buttons opens it whole — and icon buttons of 2rem, so 8 and more rows fit one screen
(``tests/browser/test_room_rows_browser.py``).

The script sets every participant-typed string with ``textContent`` (never ``innerHTML``), so names and
contributions stay text. It updates rows in place, keyed by id, so a redraw never replaces a button under a
finger. A pressed button greys at once, and every press the data does not reflect yet is re-sent with the next
one: two presses inside one rerun coalesce into the newer trigger value, and the older would be lost. A press is
settled when its action is gone or disabled in the data, or when the server names it refused.

What a redraw costs a phone (``benchmarks/bench_workshop.py``, idle bytes per minute): the script and style are
files in ``ifworld/web`` that Streamlit serves (declared in pyproject.toml's ``[tool.streamlit.component]``), so a
redraw names them instead of carrying 4.6 KB; and the rows go only when they differ from the last ones sent to
this session — otherwise their digest alone. A list that does not hold the digest it is told (drawn afresh, a
delta lost on the way) asks for the rows (the ``need`` trigger) and gets them with the next redraw.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from importlib.resources import files
from typing import Any

import streamlit as st
from pydantic import BaseModel, Field
from streamlit.errors import StreamlitAPIException

ACT = "act"
NEED = "need"  # the list asks for the rows: it does not hold the digest it was sent (drawn afresh, a lost delta)
MAX_ENTRIES = 200  # presses read from one trigger: far more than anyone presses between two redraws
ASSETS = files("ifworld") / "web"  # room_list.js and room_list.css, declared in pyproject.toml
MANIFEST_NAME = "ifworld.room_list"  # the name pyproject.toml's [tool.streamlit.component] gives it


class RowAction(BaseModel):
    """One button of a row: ``name`` is what the server is told (with the row's id), ``title`` its tooltip — why
    it is disabled, or what it does. A ``label`` that starts with symbols and a space ("✅ Accept") has them as its
    icon: where the list is of middling width the button shows the icon alone (its name and tooltip keep the
    words); "+1 (3)" starts with a digit and keeps its words everywhere."""
    name: str = Field(pattern=r"^[a-z]+$")
    label: str
    enabled: bool = True
    title: str = ""


class RoomRow(BaseModel):
    """One contribution as a list shows it."""
    id: str
    who: str  # the line above the text: kind, name, tag (and for the facilitator votes and standing)
    text: str
    actions: list[RowAction] = []
    muted: bool = False  # hidden or set aside: drawn dashed and in italics (not faded: contrast stays)


_component: Any = None


def _mount() -> Any:
    global _component  # registered once per process, on first use (pages that never show a room never pay it)
    if _component is None:
        try:  # served as files (/_stcore/bidi-components/…): a redraw then carries their names, not their 4.6 KB
            _component = st.components.v2.component(MANIFEST_NAME, js="room_list.js", css="room_list.css")
        except StreamlitAPIException:  # not found as an installed package (a wheel without pyproject, AppTest)
            _component = st.components.v2.component("ifworld_room_list", js=_asset("room_list.js"),
                                                    css=_asset("room_list.css"))
    return _component


def _asset(name: str) -> str:
    return ASSETS.joinpath(name).read_text(encoding="utf-8")


def digest(rows: list[dict[str, Any]]) -> str:
    """What identifies a list's rows (the browser keeps the digest of the rows it holds)."""
    return hashlib.blake2b(json.dumps(rows, sort_keys=True).encode(), digest_size=12).hexdigest()


def pressed(value: object) -> list[tuple[str, str]]:
    """``(action, contribution id)`` pairs from a trigger value ("vote:ab12 accept:cd34"), in order, without
    repeats; anything malformed is dropped (the value comes from the browser)."""
    if not isinstance(value, str):
        return []
    pairs = (entry.partition(":") for entry in value.split()[:MAX_ENTRIES])
    return list(dict.fromkeys((name, cid) for name, sep, cid in pairs if sep and name.isalpha() and cid))


def room_list(rows: list[RoomRow], *, key: str, on_press: Callable[[list[tuple[str, str]]], list[str]],
              watch: float | None = None, pulse: str | None = None) -> None:
    """Draw ``rows``; presses call ``on_press([(action, contribution_id), …])`` before the fragment that holds
    the list reruns. The pairs are every press the list has not seen settled, so one may come again: skip what
    is already done. ``on_press`` returns the entries (``"action:id"``) it refused, so their buttons come back.
    ``watch`` (seconds; in a fragment that redraws itself well within it): the page reloads itself when no
    redraw has come for that long and the server is up (room_list.js). ``pulse`` (an address,
    :func:`ui.room_pulse.pulse_url`): the list listens there and redraws its fragment whenever the room changes,
    one redraw at a time (a burst of changes is one or two redraws, not one each)."""
    refused_key, sent_key, redraw_key = f"{key}__refused", f"{key}__sent", f"{key}__redraw"

    def on_change() -> None:
        st.session_state[refused_key] = on_press(pressed(getattr(st.session_state.get(key), ACT, None)))

    def on_need() -> None:
        st.session_state.pop(sent_key, None)  # this redraw sends the rows

    refused = st.session_state.pop(refused_key, [])
    dumped = [r.model_dump() for r in rows]
    # "redraw" numbers this session's redraws: Streamlit calls the list's script only when its data changed, and
    # a list that missed its rows (a delta that never arrived: the benchmark's facilitator never saw the last
    # contributions of a class of 12) would otherwise be told the same digest again, unchanged, and never ask
    redraw = st.session_state[redraw_key] = st.session_state.get(redraw_key, 0) + 1
    data: dict[str, Any] = {"digest": digest(dumped), "refused": refused, "redraw": redraw}
    if watch:
        data["watch"] = watch
    if pulse:
        data["pulse"] = pulse
    # Idle redraws of an unchanged room send the digest alone (bytes a phone pulls each minute over the school's
    # Wi-Fi: benchmarks/bench_workshop.py). A refused press needs the rows: its button comes back from them.
    if refused or st.session_state.get(sent_key) != data["digest"]:
        data["rows"] = dumped
        st.session_state[sent_key] = data["digest"]
    _mount()(key=key, data=data, on_act_change=on_change, on_need_change=on_need,  # ACT, NEED and the pulse
             on_pulse_change=_nothing)


def _nothing() -> None:
    """A pulse asks for nothing but the redraw its trigger already causes."""
