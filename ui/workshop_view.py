"""The participant's view of a workshop, on the Join page: the run's state, the scenario, their prediction or
contribution form, what became of their own contributions, and the room.

Renders from the store (``ifworld.whatif.load_workshop``) inside fragments that rerun themselves every 1.5 s,
so two app processes on one store file show the same room and nobody presses refresh. Everything a participant
typed is drawn with ``st.text`` or, in the room list (:mod:`ui.room_list`, rows from :mod:`ui.workshop_rows`), set
with ``textContent`` (never Markdown or HTML). Every action carries the participant's own key (their device
credential), which the engine checks; the facilitator's panel is :mod:`ui.workshop_facilitator`.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from ifworld import whatif
from ifworld.runs import StoreError, store_patience
from ifworld.toolkit import WorkshopError
from ifworld.whatif import MAX_TAG_CHARS, NO_GROUND_TRUTH, State, Workshop
from ui.common import PARTICIPANT_WAIT_S, current_settings, inert, reconnects, show_error, store
from ui.room_list import room_list
from ui.workshop_rows import ENDED, KIND_ICONS, participant_rows

# A participant's view redraws less often than the facilitator's: each redraw costs a browser about 25 ms of CPU
# whatever changed (Streamlit's own handling of a rerun), and a class is 30 browsers on one server. With the
# benchmark's 30 on the server's 2 cores, 1 s gave p95 1.79 and 3.18 s (submit to the facilitator's screen),
# 1.5 s gave 1.15 and 1.36 s. 1.5 s still shows a change within the 2 s promised.
PARTICIPANT_REFRESH_S = 1.5
STALL_S = 30.0  # no redraw of the room for this long (20 missed): the page reloads itself (ui/room_list.py)
sst = inert()


# -- participant ---------------------------------------------------------------------------------------------
def participant_view(run_id: str, me: dict[str, str]) -> None:
    """What a participant sees: the state, the scenario, their prediction or contribution form, the room.

    Each part has a fixed slot created first, so the fragments below always sit at the same place: Streamlit
    names a fragment by its position, and a click sent to a fragment whose name moved in a full rerun is dropped.
    The forms and +1 buttons are fragments too: a participant's action reruns its own part, never the app."""
    session = whatif.load_session(run_id, store())
    ws = whatif.load_workshop(run_id, store=store())
    st.session_state["join_seen_state"] = (session.state.value, session.round, ws.status, ws.revealed)
    # the form first: on a phone in review, the scenario above it pushed the prediction two screens down
    head, action_slot, scenario_slot, deliberation_slot, reveal_slot, room_slot = (st.container() for _ in range(6))
    with head:
        sst.markdown(f"### {session.proposition}")
        st.text(f"You are {me['name']} · {session.label}" +
                (" · the workshop is closed" if ws.status != "open" else ""))
        person = ws.participant(me["id"])
        if person is not None and person.held:
            st.caption("✋ Several people joined from this connection at once: your +1s count once the facilitator "
                       "lets them in.")
    scenario = whatif.Scenario.model_validate(_scenario(run_id, session.state.value, session.round))
    if scenario.variants or scenario.restated:
        with scenario_slot, st.expander("🗺️ The refined scenario", expanded=session.state == State.REVIEW):
            sst.markdown(whatif.scenario_markdown(scenario, heading=""))
    with action_slot:
        if ws.status == "open" and session.state in (State.REFINING, State.REVIEW):
            _prediction_form(run_id, me, whatif.branches(scenario), whatif.indicator_names(scenario))
        elif ws.status == "open" and session.state not in ENDED:
            st.session_state["join_had_form"] = True
            _contribution_form(run_id, me)
        elif session.state not in ENDED and st.session_state.get("join_had_form"):
            _closed_form()  # the workshop closed mid-run: keep the box (at the end, the reveal comes first)
        else:
            _unsent()
    with deliberation_slot:
        _deliberation(run_id, session)
    if session.state == State.COMPLETED:
        with reveal_slot:
            _my_reveal(run_id, me, ws)
    with room_slot:
        _participant_room(run_id, me["id"], me["key"])


def _deliberation(run_id: str, session: whatif.Session) -> None:
    """The deliberation so far, read-only: the shared frame at a pause between rounds, the report at the end."""
    if session.state == State.BETWEEN_ROUNDS:
        frame = _frame(run_id, session.round)
        if frame:
            with st.expander(f"🧭 The panel's shared frame after round {session.round}", expanded=False):
                sst.markdown(frame)
    elif session.state == State.COMPLETED:
        from ui.whatif_view import render_whatif_record

        with st.expander("📝 The panel's report", expanded=False):
            render_whatif_record(store().get_run(run_id).record or {}, f"join_rep_{run_id}", heading=False)


@st.cache_data(ttl=30, max_entries=64, show_spinner=False)
def _frame(run_id: str, round_no: int | None) -> str:
    """The frame the next round will see (what the between-rounds pause shows), read once per pause."""
    asks, _ = whatif.paused_state(run_id, current_settings(), store())
    ask = whatif.parse_ask(asks[0]) if asks else None
    return ask.frame if isinstance(ask, whatif.BetweenRoundsAsk) else ""


@st.cache_data(ttl=30, max_entries=64, show_spinner=False)
def _scenario(run_id: str, state: str, round_no: int | None) -> dict[str, Any]:
    """The refined scenario, read once per state of the run (not on every participant's rerun)."""
    return whatif.scenario_of(run_id, store=store(), settings=current_settings()).model_dump(mode="json")


@st.fragment
@reconnects
def _prediction_form(run_id: str, me: dict[str, str], names: list[str], indicators: list[str]) -> None:
    if not names:
        st.info("The refiner is writing the scenario; its branches appear here for your prediction.")
        return
    mine = whatif.load_workshop(run_id, store=store()).prediction_of(me["id"])
    st.markdown("#### 🎯 Your prediction (before round 1)")
    st.caption("How likely is each branch? The numbers must add up to 100. Predictions lock when round 1 starts.")
    st.button("⚖️ Even split", key="join_even", on_click=_even_split, args=(names,))
    with st.form("join_predict"):
        probs = {}
        for b in names:
            st.session_state.setdefault(f"join_p_{b}", mine.probabilities.get(b, 0.0) if mine else 0.0)
            probs[b] = st.number_input(b, 0.0, 100.0, step=5.0, key=f"join_p_{b}")
        dirs = {}
        if indicators:
            st.caption("Optional: which way will each indicator move?")
            for name in indicators:
                dirs[name] = st.radio(name, ["", *whatif.DIRECTIONS], horizontal=True, key=f"join_d_{name}",
                                      format_func=lambda d: d or "no view")
        saved = st.form_submit_button("Save my prediction", type="primary")
    if saved:
        try:
            mine = whatif.predict(run_id, me["id"], me["key"], probs, dirs, store=store())
        except WorkshopError as exc:
            show_error(str(exc))
    if mine:
        st.success(f"Saved: most likely {mine.likely}." if mine.likely else
                   "Saved: no single branch is most likely in your prediction.")


def _even_split(names: list[str]) -> None:
    for b, v in whatif.even_split(names).items():
        st.session_state[f"join_p_{b}"] = v


@st.fragment
@reconnects
def _contribution_form(run_id: str, me: dict[str, str]) -> None:
    """Send a contribution. The box is emptied only once the contribution is stored: a refused one (closed
    workshop, the per-round bound) keeps what the participant typed, with the reason."""
    st.markdown("#### ✍️ Add to the deliberation")
    with st.form("join_contribute"):
        _contribution_fields()
        st.form_submit_button("Send", type="primary", on_click=_send, args=(run_id, me))
    outcome = st.session_state.pop("join_sent", None)
    if outcome == "sent":
        st.caption("✅ Sent to the facilitator.")
    elif outcome:
        show_error(outcome)


def _contribution_fields() -> None:
    """One definition for the open and the closed form: the same keys at the same place keep the typed text."""
    st.radio("Kind", whatif.KINDS, horizontal=True, key="join_kind", format_func=lambda k: f"{KIND_ICONS[k]} {k}")
    st.text_area("Your contribution", key="join_text", max_chars=whatif.MAX_CONTRIBUTION_CHARS)
    st.text_input("Domain (optional)", key="join_tag", max_chars=MAX_TAG_CHARS)


def _closed_form() -> None:
    """The contribution form once the workshop is closed, drawn at the same place
    with the same keys so the browser keeps whatever was being typed, with Send off and the reason: nothing a
    participant typed disappears with the form. A Send refused meanwhile says why. "Done" takes the form away."""
    outcome = st.session_state.pop("join_sent", None)
    if outcome and outcome != "sent":
        show_error(outcome)
    st.markdown("#### ✍️ Add to the deliberation")
    st.warning("The workshop is closed: what is in the box below was not sent. Copy it if you want to keep it.")
    with st.form("join_contribute"):
        _contribution_fields()
        st.form_submit_button("Send", type="primary", disabled=True)
    st.button("Done, take the box away", key="join_closed_done", on_click=st.session_state.pop,
              args=("join_had_form", None))


def _unsent() -> None:
    """A Send refused because the run ended meanwhile: say so and show what was typed, so it can be copied."""
    outcome = st.session_state.pop("join_sent", None)
    if outcome and outcome != "sent":
        show_error(outcome)
        st.text("What you typed (not sent):\n" + st.session_state.get("join_text", ""))


def _send(run_id: str, me: dict[str, str]) -> None:
    """Store the box's text. The box is emptied by the reply to this press; when that reply never reaches the
    browser (a redraw lost on a busy server), the box still shows the stored text and the participant types on.
    The next Send then carries the stored text again: it is recognised (this session's last stored text, kept
    server-side) and only what was typed after it is sent, so the room never gets a merged duplicate."""
    ss = st.session_state
    typed, last = ss.get("join_text", ""), ss.get("join_last_sent", "")
    text = typed
    if last and typed.strip() == last.strip():
        ss["join_sent"], ss["join_text"], ss["join_tag"] = "sent", "", ""  # stored already: say so now
        return
    if last and typed.startswith(last):
        text = typed[len(last):].strip()
    try:
        with store_patience(PARTICIPANT_WAIT_S):  # a callback: outside the page's participant_store
            whatif.contribute(run_id, me["id"], me["key"], text, ss.get("join_kind", "claim"),
                              ss.get("join_tag", ""), store=store())
    except WorkshopError as exc:
        ss["join_sent"] = str(exc)
        return
    except StoreError:
        ss["join_sent"] = "The workshop could not be reached just now: nothing was sent and your text is kept — " \
                          "press Send again in a moment."
        return
    ss["join_sent"], ss["join_text"], ss["join_tag"], ss["join_last_sent"] = "sent", "", "", typed


def _my_reveal(run_id: str, me: dict[str, str], ws: Workshop) -> None:
    if not ws.revealed:
        st.info("The report is written. The facilitator will reveal the predictions.")
        return
    st.markdown("#### 🔍 Your prediction beside the panel's")
    st.info(NO_GROUND_TRUTH)
    mine = ws.prediction_of(me["id"])
    record = store().get_run(run_id).record or {}
    if mine is None:
        st.caption("You made no prediction.")
    mine_only = ws.model_copy(update={"predictions": [mine] if mine else []})
    rows = whatif.compare_room(mine_only, record.get("report"), record.get("scenario"))  # joined as for the room
    st.dataframe(whatif.reveal_table(rows, room="You (%)"), hide_index=True)


@st.fragment(run_every=PARTICIPANT_REFRESH_S)
@reconnects
def _participant_room(run_id: str, participant_id: str, key: str) -> None:
    """What the room has said (hidden ones left out), with +1 buttons; hands over to the page when the run's
    state changes. The list is one element (:mod:`ui.room_list`): every participant's fragment redraws each
    second."""
    s = store()  # once per redraw: each call reads the settings
    session = whatif.load_session(run_id, s)
    ws = whatif.load_workshop(run_id, store=s)
    if st.session_state.get("join_seen_state") != (session.state.value, session.round, ws.status, ws.revealed):
        st.rerun(scope="app")
    notice = st.session_state.pop("join_notice", None)
    if notice:
        show_error(notice, st.warning)
    rows = participant_rows(ws, participant_id, ended=session.state in ENDED)
    total = sum(not c.hidden for c in ws.contributions)
    st.markdown(f"#### 🗣️ What the room has said ({len(rows)}, oldest first)" if len(rows) >= total else
                f"#### 🗣️ What the room has said (the latest {len(rows)} of {total}, and yours; oldest first)")
    room_list(rows, key="join_room", on_press=lambda pairs: _vote(run_id, participant_id, key, pairs),
              watch=STALL_S)


def _vote(run_id: str, participant_id: str, key: str, pairs: list[tuple[str, str]]) -> list[str]:
    """Record the +1s not recorded yet (the list re-sends presses it has not seen settled); returns the refused."""
    s = store()
    room = whatif.load_workshop(run_id, store=s)
    done = {v.contribution_id for v in room.votes if v.participant_id == participant_id}
    refused = []
    for name, cid in pairs:
        if name == "vote" and cid in done:
            continue
        try:
            if name != "vote":
                raise WorkshopError("a participant can only +1")
            whatif.vote(run_id, participant_id, key, cid, store=s)
        except WorkshopError as exc:
            st.session_state["join_notice"] = str(exc)
            refused.append(f"{name}:{cid}")
    return refused
