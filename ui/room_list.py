"""What the room has said, as one element: a small ``st.components.v2`` component with a +1 button per row.

Why not Streamlit elements: a participant's view redraws itself every second, and with a container, a text and a
button per contribution a room of 30 with 60 contributions sent 5,400 elements a second through one Streamlit
process — py-spy showed the server saturated by per-element overhead (``benchmarks/bench_workshop.py``). This is
one element whose data is the list. The script sets every participant-typed string with ``textContent`` (never
``innerHTML``), so names and contributions stay text; it updates rows in place, keyed by id, so a redraw never
moves or replaces a button under a finger; it greys a +1 the moment it is pressed and re-sends every press the
data does not show yet with the next one (two presses in one rerun coalesce into the newer trigger value).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st
from pydantic import BaseModel

VOTE = "vote"
_JS = """
export default function (component) {
  const { data, setTriggerValue, parentElement } = component;
  let list = parentElement.querySelector("ol.room");
  if (!list) {
    list = document.createElement("ol");
    list.className = "room";
    parentElement.appendChild(list);
  }
  const rows = (data && data.rows) || [];
  // presses not yet reflected in the data: each trigger carries all of them, because two presses inside one
  // rerun coalesce into the newer trigger value and the older one would be lost
  list.pending = list.pending || new Set();
  const present = new Map([...list.children].map((li) => [li.dataset.id, li]));
  const keep = new Set();
  rows.forEach((row, i) => {
    let li = present.get(row.id);
    if (!li) {
      li = document.createElement("li");
      li.dataset.id = row.id;
      li.className = "row";
      const words = document.createElement("div");
      words.className = "words";
      const who = document.createElement("div");
      who.className = "who";
      const text = document.createElement("div");
      text.className = "text";
      words.append(who, text);
      const button = document.createElement("button");
      button.type = "button";
      button.dataset.vote = row.id;
      button.addEventListener("click", () => {
        button.disabled = true;
        list.pending.add(row.id);
        setTriggerValue("vote", [...list.pending].join(" "));
      });
      li.append(words, button);
    }
    li.querySelector(".who").textContent = row.who;
    li.querySelector(".text").textContent = row.text;
    const button = li.querySelector("button");
    button.textContent = "+1 (" + row.votes + ")";
    if (!row.can_vote) list.pending.delete(row.id);
    button.disabled = !row.can_vote || list.pending.has(row.id);
    button.title = row.why || "";
    button.setAttribute("aria-label", "+1 (" + row.votes + ") " + row.who);
    if (list.children[i] !== li) list.insertBefore(li, list.children[i] || null);
    keep.add(row.id);
  });
  [...list.children].forEach((li) => { if (!keep.has(li.dataset.id)) li.remove(); });
}
"""
_CSS = """
ol.room { list-style: none; margin: 0; padding: 0; font-family: var(--st-font, sans-serif);
          color: var(--st-text-color, #31333f); }
li.row { display: flex; align-items: center; gap: 0.75rem; border: 1px solid var(--st-border-color, #d6d6d9);
         border-radius: 0.5rem; padding: 0.6rem 0.8rem; margin-bottom: 0.5rem; }
.words { flex: 1 1 auto; min-width: 0; }
.who { font-size: 0.9rem; opacity: 0.8; }
.text { font-size: 1rem; white-space: pre-wrap; overflow-wrap: anywhere; }
button { flex: 0 0 auto; font: inherit; font-size: 1rem; min-width: 4.5rem; min-height: 2.5rem;
         border-radius: 0.5rem; border: 1px solid var(--st-border-color, #d6d6d9); cursor: pointer;
         background: var(--st-background-color, #fff); color: inherit; }
button:hover:enabled { border-color: var(--st-primary-color, #1f6feb); color: var(--st-primary-color, #1f6feb); }
button:disabled { cursor: default; opacity: 0.55; }
@media print { button { display: none; } }
"""


class RoomRow(BaseModel):
    """One contribution as the participant's list shows it."""
    id: str
    who: str
    text: str
    votes: int
    can_vote: bool
    why: str = ""  # why the +1 is greyed (yours, already voted, closed)


_component: Any = None


def _mount() -> Any:
    global _component  # registered once per process, on first use (pages that never show a room never pay it)
    if _component is None:
        _component = st.components.v2.component("ifworld_room_list", js=_JS, css=_CSS)
    return _component


def room_list(rows: list[RoomRow], *, key: str, on_vote: Callable[[list[str]], None]) -> None:
    """Draw ``rows``; +1 presses call ``on_vote(contribution_ids)`` before the fragment that holds it reruns. The
    ids are every press the list has not yet seen reflected, so one may come again: skip what is already voted."""

    def voted() -> None:
        value = getattr(st.session_state.get(key), VOTE, None)
        if isinstance(value, str) and value.strip():
            on_vote(value.split()[:100])

    _mount()(key=key, data={"rows": [r.model_dump() for r in rows]}, on_vote_change=voted)
