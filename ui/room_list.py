"""What the room has said, as one element: a small ``st.components.v2`` component, a row per contribution with
its buttons (a participant's +1; the facilitator's accept, reject, hide, edit).

Why not Streamlit elements: both views redraw themselves every second, and with a container, a text and a button
per contribution a room of 30 with 60 contributions sent 5,400 elements a second through one Streamlit process —
py-spy showed the server saturated by per-element overhead, and the facilitator's 480-element list kept what was
said 6–12 s away from their screen (``benchmarks/bench_workshop.py``). This is one element whose data is the list.

The script sets every participant-typed string with ``textContent`` (never ``innerHTML``), so names and
contributions stay text. It updates rows in place, keyed by id, so a redraw never replaces a button under a
finger. A pressed button greys at once, and every press the data does not reflect yet is re-sent with the next
one: two presses inside one rerun coalesce into the newer trigger value, and the older would be lost. A press is
settled when its action is gone or disabled in the data, or when the server names it refused.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st
from pydantic import BaseModel, Field

ACT = "act"
MAX_ENTRIES = 200  # presses read from one trigger: far more than anyone presses between two redraws
_JS = """
export default function (component) {
  const { data, setTriggerValue, parentElement } = component;
  let list = parentElement.querySelector("ol.room");
  if (!list) {
    list = document.createElement("ol");
    list.className = "room";
    parentElement.appendChild(list);
    list.pending = new Set();
  }
  const rows = (data && data.rows) || [];
  // write only what changed: the list is redrawn every second in every browser in the room, and a write of an
  // unchanged text still costs the page a style and layout pass
  const put = (node, prop, value) => { if (node[prop] !== value) node[prop] = value; };
  (data && data.refused || []).forEach((entry) => list.pending.delete(entry));
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
      const buttons = document.createElement("div");
      buttons.className = "buttons";
      words.append(who, text);
      li.append(words, buttons);
    }
    li.classList.toggle("muted", !!row.muted);
    put(li.querySelector(".who"), "textContent", row.who);
    put(li.querySelector(".text"), "textContent", row.text);
    const buttons = li.querySelector(".buttons");
    const wanted = row.actions.map((a) => a.name + ":" + row.id);
    [...buttons.children].forEach((b) => { if (!wanted.includes(b.dataset.act)) b.remove(); });
    row.actions.forEach((action, j) => {
      const entry = action.name + ":" + row.id;
      let button = buttons.querySelector(`button[data-act="${CSS.escape(entry)}"]`);
      if (!button) {
        button = document.createElement("button");
        button.type = "button";
        button.dataset.act = entry;
        button.addEventListener("click", () => {
          button.disabled = true;
          list.pending.add(entry);
          setTriggerValue("act", [...list.pending].join(" "));
        });
      }
      if (!action.enabled) list.pending.delete(entry);
      put(button, "textContent", action.label);
      put(button, "disabled", !action.enabled || list.pending.has(entry));
      put(button, "title", action.title || "");
      put(button, "ariaLabel", action.label + " · " + row.who);
      if (buttons.children[j] !== button) buttons.insertBefore(button, buttons.children[j] || null);
    });
    if (list.children[i] !== li) list.insertBefore(li, list.children[i] || null);
    keep.add(row.id);
  });
  // a press whose button left the list (the row or the action went away) is settled
  const offered = new Set(rows.flatMap((row) => row.actions.map((a) => a.name + ":" + row.id)));
  [...list.pending].forEach((entry) => { if (!offered.has(entry)) list.pending.delete(entry); });
  [...list.children].forEach((li) => { if (!keep.has(li.dataset.id)) li.remove(); });
}
"""
_CSS = """
ol.room { list-style: none; margin: 0; padding: 0; font-family: var(--st-font, sans-serif);
          color: var(--st-text-color, #31333f); }
li.row { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem 0.75rem; margin-bottom: 0.5rem;
         border: 1px solid var(--st-border-color, #d6d6d9); border-radius: 0.5rem; padding: 0.6rem 0.8rem; }
li.row.muted { border-style: dashed; background: #f3f4f6; }  /* not faded: its text keeps >= 4.5:1 (WCAG 1.4.3) */
li.row.muted .words { font-style: italic; }
.words { flex: 1 1 20rem; min-width: 0; }
.who { font-size: 0.9rem; opacity: 0.8; overflow-wrap: anywhere; }
.text { font-size: 1rem; white-space: pre-wrap; overflow-wrap: anywhere; }
.buttons { display: flex; flex-wrap: wrap; gap: 0.4rem; flex: 0 1 auto; }
button { font: inherit; font-size: 1rem; min-width: 4.5rem; min-height: 2.5rem; padding: 0 0.7rem;
         border-radius: 0.5rem; border: 1px solid var(--st-border-color, #d6d6d9); cursor: pointer;
         background: var(--st-background-color, #fff); color: inherit; }
button:hover:enabled { border-color: var(--st-primary-color, #1f6feb); color: var(--st-primary-color, #1f6feb); }
button:disabled { cursor: default; opacity: 0.55; }
button:focus-visible { outline: 3px solid var(--st-primary-color, #1f6feb); outline-offset: 2px; }  /* WCAG 2.4.7 */
@media print { .buttons { display: none; } li.row { break-inside: avoid; } }
"""


class RowAction(BaseModel):
    """One button of a row: ``name`` is what the server is told (with the row's id), ``title`` its tooltip — why
    it is disabled, or what it does."""
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
        _component = st.components.v2.component("ifworld_room_list", js=_JS, css=_CSS)
    return _component


def pressed(value: object) -> list[tuple[str, str]]:
    """``(action, contribution id)`` pairs from a trigger value ("vote:ab12 accept:cd34"), in order, without
    repeats; anything malformed is dropped (the value comes from the browser)."""
    if not isinstance(value, str):
        return []
    pairs = (entry.partition(":") for entry in value.split()[:MAX_ENTRIES])
    return list(dict.fromkeys((name, cid) for name, sep, cid in pairs if sep and name.isalpha() and cid))


def room_list(rows: list[RoomRow], *, key: str, on_press: Callable[[list[tuple[str, str]]], list[str]]) -> None:
    """Draw ``rows``; presses call ``on_press([(action, contribution_id), …])`` before the fragment that holds
    the list reruns. The pairs are every press the list has not seen settled, so one may come again: skip what
    is already done. ``on_press`` returns the entries (``"action:id"``) it refused, so their buttons come back."""
    refused_key = f"{key}__refused"

    def on_change() -> None:
        st.session_state[refused_key] = on_press(pressed(getattr(st.session_state.get(key), ACT, None)))

    refused = st.session_state.pop(refused_key, [])
    _mount()(key=key, data={"rows": [r.model_dump() for r in rows], "refused": refused},
             on_act_change=on_change)
