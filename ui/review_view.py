"""The forms of a paused what-if run: review the refined scenario and panel, or add a workshop participant's
contribution between rounds. They only collect the person's answer; :mod:`ifworld.whatif.review` checks and
applies it inside the run."""

from __future__ import annotations

from typing import Any

import streamlit as st

from ifworld.whatif import (
    EDITABLE,
    FACILITATOR_AUTHOR,
    FIELD_LABELS,
    MAX_ROOM_TEXT_CHARS,
    BetweenRoundsAsk,
    ReviewAsk,
    ReviewError,
    check_answer,
    field_lines,
    known_experts,
    parse_ask,
)

CANCEL = "cancel"


FIELD_HINTS = {"timescales": "short: … / medium: … / long: …, one per line",
               "variants": "name | description, one per line", "indicators": "name | unit | threshold, one per line"}


def _review_form(ask: ReviewAsk, key: str) -> tuple[str | None, dict[str, Any]]:
    scen, panel = ask.scenario.model_dump(mode="json"), list(ask.panel)
    st.info("⏸️ Paused before any expert runs: check the refined scenario and the panel, edit what is wrong, "
            "then continue. Only what you change is recorded as an edit. The run waits in its checkpoint; you can "
            "leave and come back.")
    fields: dict[str, str] = {}
    with st.form(f"{key}_review"):
        columns = st.columns(2)
        for i, field in enumerate(EDITABLE):
            hint = FIELD_HINTS.get(field, "one per line")
            fields[field] = columns[i % 2].text_area(f"{FIELD_LABELS[field]} ({hint})",
                                                     "\n".join(field_lines(field, scen[field])), key=f"{key}_{field}")
        offered = known_experts()
        known = [d for d in panel if d in offered]
        chosen = st.multiselect("Expert panel", offered, known, key=f"{key}_panel")
        extra = st.text_input("More domains (comma-separated, any field)",
                              ", ".join(d for d in panel if d not in offered), key=f"{key}_extra")
        if ask.suggested_experts:  # the refiner's plan: a suggestion, never added without the person (A.2)
            st.caption("The refiner's plan also names: " + ", ".join(ask.suggested_experts) + " — add any you want "
                       "to the panel above; the panel stays exactly as chosen otherwise.")
        b1, b2, b3 = st.columns(3)
        go_on = b1.form_submit_button("▶️ Continue unchanged")
        edit = b2.form_submit_button("✏️ Apply edits and continue", type="primary")
        stop = b3.form_submit_button("⏹️ Cancel run")
    answer = {"action": "edit", "scenario": fields,
              "panel": [*chosen, *[d.strip() for d in extra.split(",") if d.strip()]]}
    return ("continue" if go_on else "edit" if edit else CANCEL if stop else None), answer


def _between_form(ask: BetweenRoundsAsk, key: str) -> tuple[str | None, dict[str, Any]]:
    st.info(f"⏸️ Paused after round {ask.round}: add the room's own input before the next round, or "
            "continue. A contribution is shown to the next round's experts with the shared frame, weighed by "
            "the resolver like an expert's output and listed in the report.")
    with st.expander("The shared frame the next round will see"):
        st.text(ask.frame)
    with st.form(f"{key}_between"):
        name = st.text_input("Who is speaking", FACILITATOR_AUTHOR, key=f"{key}_who", max_chars=60)
        text = st.text_area("The room's contribution", key=f"{key}_text", max_chars=MAX_ROOM_TEXT_CHARS,
                            placeholder="e.g. Our town's ferry can carry 400 people a day if the bridges fail.")
        b1, b2 = st.columns(2)
        go_on = b1.form_submit_button("▶️ Continue", type="primary")
        stop = b2.form_submit_button("⏹️ Cancel run")
    return ("continue" if go_on else CANCEL if stop else None), {"action": "continue", "contribution": text,
                                                                  "name": name}


def pause_form(ask: dict[str, Any], key: str) -> Any:
    """Show the form for ``ask`` (the interrupt's plain JSON, typed here); return the checked answer,
    :data:`CANCEL`, or None (nothing submitted)."""
    typed = parse_ask(ask)
    if typed.error:
        st.warning(f"The previous answer was not used: {typed.error}")
    if isinstance(typed, ReviewAsk):
        choice, answer = _review_form(typed, key)
    else:
        choice, answer = _between_form(typed, key)
    if choice in (None, CANCEL):
        return choice
    if choice == "continue" and isinstance(typed, ReviewAsk):
        return {"action": "continue"}
    try:
        check_answer(ask, answer)
    except ReviewError as exc:
        st.error(f"That cannot be used: {exc}")
        return None
    return answer
