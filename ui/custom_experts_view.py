"""'Add an expert' on the What-if page (facilitator only): a name and a persona in plain words, kept with the
run store and offered on the panel like a built-in expert. The engine checks the caller and the text
(:mod:`ifworld.whatif.custom_experts`); this view only collects it and shows the stored text as plain text."""

from __future__ import annotations

import streamlit as st

from ifworld import whatif
from ui.common import store
from ui.identity import caller, is_facilitator

PANEL_KEY = "whatif_experts"
NAME_KEY, PERSONA_KEY, PICK_KEY = "whatif_new_expert_name", "whatif_new_expert_persona", "whatif_delete_expert"
NOTE_KEY = "whatif_expert_note"


def sync() -> None:
    """Offer the store's custom experts (registered for this process) and drop deleted ones from the panel."""
    whatif.sync_custom_experts(store=store())
    known = set(whatif.known_experts())
    if PANEL_KEY in st.session_state:
        st.session_state[PANEL_KEY] = [d for d in st.session_state[PANEL_KEY] if d in known]


def _add() -> None:
    ss = st.session_state
    try:
        spec = whatif.add_custom_expert(ss.get(NAME_KEY, ""), ss.get(PERSONA_KEY, ""), caller=caller(),
                                        store=store())
    except (ValueError, PermissionError) as exc:  # CustomExpertError, AccessDenied: the message says why
        ss[NOTE_KEY] = ("error", str(exc))
        return
    panel = list(ss.get(PANEL_KEY, []))
    if spec.label not in panel and len(panel) < whatif.MAX_EXPERTS:
        ss[PANEL_KEY] = [*panel, spec.label]
    ss[NAME_KEY], ss[PERSONA_KEY] = "", ""
    ss[NOTE_KEY] = ("success", f"Added the {spec.label} expert (CLI name {spec.name}) and put it on the panel.")


def _delete() -> None:
    ss = st.session_state
    name = ss.get(PICK_KEY)
    if not name:
        return
    try:
        whatif.delete_custom_expert(name, caller=caller(), store=store())
    except (ValueError, PermissionError) as exc:
        ss[NOTE_KEY] = ("error", str(exc))
        return
    sync()
    ss[NOTE_KEY] = ("success", f"Deleted {name}. Runs that used it keep the persona they used.")


def render() -> None:
    """The 'Add an expert' expander (nothing for anyone but the facilitator)."""
    if not is_facilitator():
        return
    mine = whatif.custom_experts(store=store())
    with st.expander("✍️ Add an expert", expanded=bool(st.session_state.get(NOTE_KEY))):
        note = st.session_state.pop(NOTE_KEY, None)
        if note:
            (st.error if note[0] == "error" else st.success)(note[1])
        st.caption("Name a field and say in plain words how its expert reasons. The text reaches the model "
                   "quoted as data (no markup, links or instructions); each run keeps the persona it used.")
        with st.form("whatif_add_expert", clear_on_submit=False):
            st.text_input("Field of the expert", key=NAME_KEY, max_chars=whatif.MAX_EXPERT_NAME_CHARS,
                          placeholder="e.g. medieval history")
            st.text_area("How this expert reasons (persona)", key=PERSONA_KEY,
                         max_chars=whatif.MAX_CUSTOM_PERSONA_CHARS, height=80,
                         placeholder="e.g. You reason from archives, chronicles and how past societies recovered "
                                     "from crises.")
            st.form_submit_button("➕ Add expert", on_click=_add)
        for spec in mine:
            st.markdown(f"**{spec.label}** · `{spec.name}`")
            st.text(spec.persona)  # plain text: never rendered as Markdown or HTML
        c1, c2 = st.columns([3, 1])
        c1.selectbox("Your experts", [s.label for s in mine], index=None, key=PICK_KEY,
                     placeholder="Pick one of your experts to delete…" if mine else "No experts of your own yet")
        c2.button("🗑️ Delete expert", key="whatif_delete_expert_go", on_click=_delete, disabled=not mine)
