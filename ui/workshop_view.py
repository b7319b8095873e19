"""Workshop views: the facilitator's panel on the What-if page and the participant's view on the Join page.

Both render from the store (``ifworld.whatif.load_workshop``) inside fragments that rerun themselves (the
facilitator's every second, a participant's every 1.5 s), so two app processes on one store file show the same
room and nobody presses refresh. Everything a participant typed
is drawn with ``st.text`` or, in the room lists (:mod:`ui.room_list`, rows from :mod:`ui.workshop_rows`), set
with ``textContent`` (never Markdown or HTML). Facilitator actions pass the facilitator secret held in this
browser session to the engine, which checks it; a participant's session never holds it.
"""

from __future__ import annotations

import io
from typing import Any
from urllib.parse import urlencode, urlsplit

import streamlit as st

from ifworld import runs, whatif
from ifworld.errors import WorkshopError
from ifworld.whatif import MAX_TAG_CHARS, NO_GROUND_TRUTH, SessionError, State, Workshop
from ui.common import current_settings, inert, show_error, store
from ui.room_list import room_list
from ui.workshop_rows import (
    AFTER_REPORT_ACTIONS,
    FACILITATOR_ACTIONS,
    KIND_ICONS,
    already_done,
    facilitator_rows,
    participant_rows,
)

REFRESH_S = 1.0  # the facilitator's room: one page, and what the room says should reach it first
# A participant's view redraws less often: each redraw costs a browser about 25 ms of CPU whatever changed
# (Streamlit's own handling of a rerun), and a class is 30 browsers on one server. With the benchmark's 30 on the
# server's 2 cores, 1 s gave p95 1.79 and 3.18 s (submit to the facilitator's screen), 1.5 s gave 1.15 and
# 1.36 s. 1.5 s still shows a change within the 2 s promised.
PARTICIPANT_REFRESH_S = 1.5
SECRET_PARAM = "facilitator"
ENDED = frozenset({State.COMPLETED, State.CANCELLED, State.FAILED})  # no later round can take a contribution
sst = inert()


# -- links ------------------------------------------------------------------------------------------------
def app_origin() -> str:
    """``scheme://host:port`` of this app as the browser reached it (empty when unknown, e.g. in AppTest)."""
    parts = urlsplit(st.context.url or "")
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""


def join_link(token: str) -> str:
    return f"{app_origin()}/join?{urlencode({'w': token})}"


def recovery_link(run_id: str, secret: str) -> str:
    return f"{app_origin()}/whatif?{urlencode({'run': run_id, SECRET_PARAM: secret})}"


def qr_png(url: str) -> bytes:
    """The join link as a QR code PNG (``segno``), large enough to project (scale 12 ≈ 500 px wide)."""
    import segno

    buf = io.BytesIO()
    segno.make(url, error="m").save(buf, kind="png", scale=12, border=2)
    return buf.getvalue()


def _secret_key(run_id: str) -> str:
    return f"workshop_secret_{run_id}"


def facilitator_secret(run_id: str) -> str | None:
    """The facilitator secret of ``run_id`` held by this browser session; a recovery link's secret is checked
    by the engine, kept in the session and removed from the address bar."""
    given = st.query_params.get(SECRET_PARAM)
    if given:
        st.query_params.pop(SECRET_PARAM, None)
        if whatif.is_facilitator(run_id, given, store=store()):
            st.session_state[_secret_key(run_id)] = given
        else:
            st.session_state["whatif_notice"] = "That recovery link's facilitator secret is not this workshop's."
    return st.session_state.get(_secret_key(run_id))


def _act(fn: Any, *args: Any, **kwargs: Any) -> None:
    """Run an engine action from a button; a refusal is shown, not raised."""
    try:
        fn(*args, store=store(), **kwargs)
    except (WorkshopError, SessionError) as exc:
        st.session_state["workshop_notice"] = str(exc)


# -- facilitator ---------------------------------------------------------------------------------------------
def facilitator_panel(run_id: str, state: State) -> bool:
    """The workshop part of the What-if page; True when the workshop drives the between-rounds continue (the
    page then hides its own one-person contribution form)."""
    if state == State.DRAFT:
        return False
    if not whatif.has_workshop(run_id, store=store()):
        if state in whatif.RUNNING | whatif.PAUSED and st.button("👥 Open workshop", key="workshop_open",
                     help="Let the people in the room join from their phones: a link, a short code and a QR code."):
            _, secret = whatif.open_workshop(run_id, store=store())
            st.session_state[_secret_key(run_id)] = secret
            st.rerun()
        return False
    secret = facilitator_secret(run_id)
    if not secret:
        st.caption("👥 A workshop is open for this run. Its facilitator controls open with the recovery link.")
        return False
    ws = whatif.load_workshop(run_id, store=store())
    st.session_state["workshop_fac_seen"] = state.value
    with st.expander(f"👥 Workshop · code **{ws.code}** · {ws.status}", expanded=state != State.COMPLETED):
        _join_card(ws, run_id, secret)
    _room(run_id, secret)
    return ws.status == "open"


def _join_card(ws: Workshop, run_id: str, secret: str) -> None:
    left, right = st.columns([3, 2])
    link = join_link(ws.token)
    left.markdown("Join on the **Join** page with the code")
    left.markdown(f"<div style='font-size:4rem;font-weight:700;letter-spacing:.5rem'>{ws.code}</div>",
                  unsafe_allow_html=True)  # the code is ours: letters and digits from CODE_ALPHABET only
    left.caption("…or open this link:")
    left.code(link, language=None)
    left.caption("🔑 Recovery link (facilitator only — it carries the facilitator secret; do not project it):")
    left.code(recovery_link(run_id, secret), language=None)
    if ws.status == "open":
        left.button("🔒 Close workshop", key="workshop_close", on_click=_act,
                    args=(whatif.close_workshop, run_id, secret), help="It accepts nothing more after this.")
    right.image(qr_png(link), caption="Scan to join", width="stretch")


@st.fragment(run_every=REFRESH_S)
def _room(run_id: str, secret: str) -> None:
    """The room, live: who joined, predictions, contributions by kind and votes with the facilitator's decisions.

    Every facilitator action is pressed inside this fragment, so it reruns the fragment alone: a full-app rerun
    (Streamlit's fast reruns stop the running script) would drop a click queued behind it. Each kind's rows are
    one element (:mod:`ui.room_list`) and the editor is drawn only while one row is edited: the fragment redraws
    every second for a room of 30 and more."""
    s = store()  # once per redraw: each call reads the settings
    ws = whatif.load_workshop(run_id, store=s)
    session = whatif.load_session(run_id, s)
    if st.session_state.get("workshop_fac_seen") != session.state.value:
        st.rerun(scope="app")  # the run moved on (continued, paused, finished): the page draws the new state
    notice = st.session_state.pop("workshop_notice", None)
    if notice:
        show_error(notice, st.warning)
    st.markdown(f"**{len(ws.participants)} participant(s)** · {len(ws.predictions)} prediction(s) · "
                f"{len(ws.contributions)} contribution(s) · {len(ws.votes)} vote(s)")
    if ws.participants:
        st.text("Joined: " + ", ".join(p.name for p in ws.participants))
    if session.state == State.COMPLETED:
        _reveal_panel(run_id, secret, ws)
    contributions = ws.by_votes(include_hidden=True)
    if session.state == State.BETWEEN_ROUNDS and ws.status == "open":
        pending = ws.pending()
        st.button(f"▶️ Continue with {len(pending)} accepted contribution(s)", key="workshop_continue",
                  type="primary", on_click=_continue, args=(run_id, secret),
                  help="The accepted contributions enter the next round's shared frame, each with its author.")
    rounds_left = session.state not in ENDED  # after the report, accepting would go nowhere
    editing = st.session_state.get("workshop_editing") if rounds_left else None
    if editing:
        _editor(run_id, secret, ws, editing)
    for kind in whatif.KINDS:
        mine = [c for c in contributions if c.kind == kind]
        if mine:
            st.markdown(f"#### {KIND_ICONS[kind]} {kind.capitalize()}s")
            room_list(facilitator_rows(mine, ws, editing, rounds_left=rounds_left), key=f"workshop_list_{kind}",
                      on_press=lambda pairs: _facilitator_press(run_id, secret, pairs, rounds_left))


def _facilitator_press(run_id: str, secret: str, pairs: list[tuple[str, str]], rounds_left: bool) -> list[str]:
    """Carry out the facilitator's presses in a list (accept, reject, hide, show, edit), skipping those already
    in effect; returns the refused ones, whose reason is the notice. After the report only hide and show remain."""
    s = store()
    by_id = {c.id: c for c in whatif.load_workshop(run_id, store=s).contributions}
    refused = []
    for name, cid in pairs:
        c = by_id.get(cid)
        if c is None or name not in (FACILITATOR_ACTIONS if rounds_left else AFTER_REPORT_ACTIONS):
            refused.append(f"{name}:{cid}")
            continue
        if name == "edit":
            _start_editing(cid)
            continue
        if already_done(c, name):
            continue
        try:
            if name in ("hide", "show"):
                whatif.hide_contribution(run_id, secret, cid, name == "hide", store=s)
            else:
                whatif.decide(run_id, secret, cid, name, store=s)
        except (WorkshopError, SessionError) as exc:
            st.session_state["workshop_notice"] = str(exc)
            refused.append(f"{name}:{cid}")
    return refused


def _start_editing(contribution_id: str) -> None:
    st.session_state["workshop_editing"] = contribution_id


def _editor(run_id: str, secret: str, ws: Workshop, contribution_id: str) -> None:
    """Edit one contribution's text, optionally merging others into it; saving accepts it. A form: what the
    facilitator types is kept through the fragment's redraws until they save or cancel."""
    c = next((c for c in ws.contributions if c.id == contribution_id and not c.sent_round), None)
    if c is None or ws.status != "open":  # it went into a round, or the workshop closed, meanwhile
        _stop_editing()
        return
    others = {o.id: o for o in ws.by_votes() if o.id != c.id and not o.sent_round}
    with st.container(border=True, key="workshop_editor"):
        st.markdown("**✏️ Editing a contribution**")
        st.text(f"{c.name}: {c.text}")
        with st.form(f"workshop_edit_{c.id}", border=False):
            st.text_area("Text the panel will see", c.final_text, key=f"we_t_{c.id}",
                         max_chars=3 * whatif.MAX_CONTRIBUTION_CHARS)
            st.multiselect("Merge these into it (optional; each stays in the record, marked merged)", list(others),
                           key=f"we_m_{c.id}", format_func=lambda oid: _short(others[oid]))
            with st.container(horizontal=True):
                st.form_submit_button("💾 Save and accept", type="primary", on_click=_save_edit,
                                      args=(run_id, secret, c.id))
                st.form_submit_button("Cancel", on_click=_stop_editing)


def _short(c: whatif.Contribution) -> str:
    return f"+{c.votes} {c.name}: {c.final_text[:70]}"


def _save_edit(run_id: str, secret: str, contribution_id: str) -> None:
    text = st.session_state.get(f"we_t_{contribution_id}", "")
    merge_with = list(st.session_state.get(f"we_m_{contribution_id}") or [])
    _act(whatif.decide, run_id, secret, contribution_id, "merge" if merge_with else "edit", text=text,
         merge_with=merge_with)
    if "workshop_notice" not in st.session_state:
        _stop_editing()


def _stop_editing() -> None:
    st.session_state.pop("workshop_editing", None)


def _continue(run_id: str, secret: str) -> None:
    try:
        events = whatif.continue_workshop(run_id, secret, store=store(), settings=current_settings())
    except (WorkshopError, SessionError) as exc:
        st.session_state["workshop_notice"] = str(exc)
        return
    runs.start_background(run_id, lambda: events)


def _reveal_panel(run_id: str, secret: str, ws: Workshop) -> None:
    st.info(f"🔍 {NO_GROUND_TRUTH}")
    if not ws.revealed:
        st.button("🔍 Reveal predictions to the room", key="workshop_reveal", on_click=_act,
                  args=(whatif.reveal_workshop, run_id, secret))
    rows = whatif.compare_room(ws, whatif.panel_branches((store().get_run(run_id).record or {}).get("report")))
    if rows:
        st.markdown("**The room against the panel** (largest gap first)")
        st.dataframe([{"Branch": r.branch, "Room (mean %)": r.room_pct, "Panel (%)": r.panel_pct,
                       "Gap (points)": round(r.gap, 1)} for r in rows], hide_index=True)


# -- participant ---------------------------------------------------------------------------------------------
def participant_view(run_id: str, me: dict[str, str]) -> None:
    """What a participant sees: the state, the scenario, their prediction or contribution form, the room.

    Each part has a fixed slot created first, so the fragments below always sit at the same place: Streamlit
    names a fragment by its position, and a click sent to a fragment whose name moved in a full rerun is dropped.
    The forms and +1 buttons are fragments too: a participant's action reruns its own part, never the app."""
    session = whatif.load_session(run_id, store())
    ws = whatif.load_workshop(run_id, store=store())
    st.session_state["join_seen_state"] = (session.state.value, session.round, ws.status, ws.revealed)
    head, scenario_slot, action_slot, deliberation_slot, reveal_slot, room_slot = (st.container() for _ in range(6))
    with head:
        sst.markdown(f"### {session.proposition}")
        st.text(f"You are {me['name']} · {session.label}" +
                (" · the workshop is closed" if ws.status != "open" else ""))
    scenario = whatif.Scenario.model_validate(_scenario(run_id, session.state.value, session.round))
    if scenario.variants or scenario.restated:
        with scenario_slot, st.expander("🗺️ The refined scenario", expanded=session.state == State.REVIEW):
            sst.markdown(whatif.scenario_markdown(scenario, heading=""))
    with action_slot:
        if ws.status == "open" and session.state in (State.REFINING, State.REVIEW):
            _prediction_form(run_id, me, whatif.branches(scenario), [i.name for i in scenario.indicators])
        elif ws.status == "open" and session.state not in ENDED:
            _contribution_form(run_id, me)
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
        st.success(f"Saved: most likely {mine.likely}.")


def _even_split(names: list[str]) -> None:
    for b, v in whatif.even_split(names).items():
        st.session_state[f"join_p_{b}"] = v


@st.fragment
def _contribution_form(run_id: str, me: dict[str, str]) -> None:
    """Send a contribution. The box is emptied only once the contribution is stored: a refused one (closed
    workshop, the per-round bound) keeps what the participant typed, with the reason."""
    st.markdown("#### ✍️ Add to the deliberation")
    with st.form("join_contribute"):
        st.radio("Kind", whatif.KINDS, horizontal=True, key="join_kind", format_func=lambda k: f"{KIND_ICONS[k]} {k}")
        st.text_area("Your contribution", key="join_text", max_chars=whatif.MAX_CONTRIBUTION_CHARS)
        st.text_input("Domain (optional)", key="join_tag", max_chars=MAX_TAG_CHARS)
        st.form_submit_button("Send", type="primary", on_click=_send, args=(run_id, me))
    outcome = st.session_state.pop("join_sent", None)
    if outcome == "sent":
        st.caption("✅ Sent to the facilitator.")
    elif outcome:
        show_error(outcome)


def _unsent() -> None:
    """A Send refused because the form went away meanwhile (the workshop closed, the run ended): say so and
    show what was typed, so it can still be copied."""
    outcome = st.session_state.pop("join_sent", None)
    if outcome and outcome != "sent":
        show_error(outcome)
        st.text("What you typed (not sent):\n" + st.session_state.get("join_text", ""))


def _send(run_id: str, me: dict[str, str]) -> None:
    ss = st.session_state
    try:
        whatif.contribute(run_id, me["id"], me["key"], ss.get("join_text", ""), ss.get("join_kind", "claim"),
                          ss.get("join_tag", ""), store=store())
    except WorkshopError as exc:
        ss["join_sent"] = str(exc)
        return
    ss["join_sent"], ss["join_text"], ss["join_tag"] = "sent", "", ""


def _my_reveal(run_id: str, me: dict[str, str], ws: Workshop) -> None:
    if not ws.revealed:
        st.info("The report is written. The facilitator will reveal the predictions.")
        return
    st.markdown("#### 🔍 Your prediction beside the panel's")
    st.info(NO_GROUND_TRUTH)
    mine = ws.prediction_of(me["id"])
    panel = whatif.panel_branches((store().get_run(run_id).record or {}).get("report"))
    if mine is None:
        st.caption("You made no prediction.")
    mine_only = ws.model_copy(update={"predictions": [mine] if mine else []})
    rows = [{"Branch": r.branch, "You (%)": r.room_pct, "Panel (%)": r.panel_pct}  # matched as for the room
            for r in whatif.compare_room(mine_only, panel)]
    st.dataframe(rows, hide_index=True)


@st.fragment(run_every=PARTICIPANT_REFRESH_S)
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
    rows = participant_rows(ws, participant_id)
    st.markdown(f"#### 🗣️ What the room has said ({len(rows)}, oldest first)")
    room_list(rows, key="join_room", on_press=lambda pairs: _vote(run_id, participant_id, key, pairs))


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
