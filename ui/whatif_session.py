"""The What-if page for an open run: one render function per session state, each drawing only its controls.

The run is driven by a background thread of the app (``ifworld.runs.start_background``), never inside a page
script, so a click never abandons it and nothing drawn for an earlier state stays on screen: every rerun reads
the session's state from the store (``ifworld.whatif.load_session``) and draws that state alone. A running
session refreshes itself (a fragment) and hands over to the next state's view when it pauses or ends.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from ifworld import runs, whatif
from ifworld.llm import call_counts
from ifworld.runs import RunInfo
from ifworld.whatif import RUNNING, Action, Session, SessionError, State
from ui import connection_view, whatif_view
from ui.common import current_settings, inert, set_current_run, show_error, show_run_link, store
from ui.identity import caller
from ui.live_view import LiveWhatIf
from ui.review_view import CANCEL, pause_form
from ui.workshop_facilitator import facilitator_panel

LIVE_REFRESH_S = 1.0
STATE_ICONS = {State.REFINING: "🔎", State.ROUND: "🧠", State.REPORTING: "📝", State.REVIEW: "⏸️",
               State.BETWEEN_ROUNDS: "⏸️", State.COMPLETED: "✅", State.CANCELLED: "⏹️", State.FAILED: "⚠️",
               State.INTERRUPTED: "⏯️", State.DRAFT: "📝"}
sst = inert()


# -- which run is open ----------------------------------------------------------------------------------
def open_run(run_id: str) -> None:
    """Look at ``run_id`` on this page (and on Runs / Causal map); the URL becomes the run's link."""
    st.session_state["whatif_run_id"] = run_id
    set_current_run(run_id)


def close_run() -> None:
    """Back to a new what-if (the run itself goes on in the background if it was running)."""
    st.session_state.pop("whatif_run_id", None)
    st.query_params.pop("run", None)


def requested_run() -> str | None:
    """The run this page should show: ``?run=ID`` (a shared link) first, then this browser session's run."""
    wanted = st.query_params.get("run")
    if wanted and wanted != st.session_state.get("whatif_run_id"):
        try:
            info = store().get_run(wanted)
        except KeyError:
            sst.warning(f"There is no saved run `{wanted[:80]}` in this run store; showing a new what-if instead.")
            st.query_params.pop("run", None)
            return st.session_state.get("whatif_run_id")
        if info.kind != "whatif":
            sst.warning(f"Run `{wanted[:80]}` is not a what-if run; open it on the Runs page.")
            st.query_params.pop("run", None)
            return st.session_state.get("whatif_run_id")
        open_run(wanted)
    return st.session_state.get("whatif_run_id")


DRAFT_KEYS = ("whatif_prop", "whatif_experts", "whatif_custom", "whatif_method", "whatif_language",
              "whatif_review", "whatif_pause_between_rounds", "whatif_price", "whatif_budget", "whatif_cache",
              "whatif_no_debate", "whatif_no_conflict", "whatif_no_shared_frame", "whatif_no_refine")
"""The new-run form's values (its widgets' keys), kept while a run is shown: see :func:`keep_draft`; the methods'
own parameters (``whatif_rounds`` …) are added from their specs."""


def keep_draft() -> None:
    """Keep the new-run form's values while the page shows a run instead of the form. Streamlit drops the state of
    widgets a run does not draw, so *➕ New what-if* came back with an empty expert panel and *Start run* failed
    with "The expert list is empty" (a reload fixed it). Re-setting each value marks it as the app's own."""
    for key in (*DRAFT_KEYS, *(f"whatif_{name}" for name in whatif.size_fields())):
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]


# -- actions: every one goes through the engine's session functions ---------------------------------------
def drive(run_id: str, action: Action, answer: Any = None) -> None:
    """Start, continue or resume in the background (the move is recorded before this returns); a dead endpoint
    is named in seconds instead (cause and address) and nothing starts."""
    if not connection_view.model_reachable(current_settings(), notice_key="whatif_notice"):
        return
    events = whatif.drive_session(run_id, source="page", caller=caller(), action=action, answer=answer, store=store(),
                                  settings=current_settings())
    runs.start_background(run_id, lambda: events)


def cancel(run_id: str) -> None:
    try:
        whatif.cancel_session(run_id, source="page", caller=caller(), store=store())
    except SessionError as exc:  # e.g. it finished a moment ago: say so, do nothing
        st.session_state["whatif_notice"] = str(exc)


# -- the views, one per state -----------------------------------------------------------------------------
def render(run_id: str, ready: bool) -> None:
    """The open run: a header, then exactly the view of its current state."""
    try:
        session = whatif.load_session(run_id, store())
        info = store().get_run(run_id)
    except KeyError:
        sst.warning(f"Run `{run_id}` is no longer in the run store (deleted?).")
        close_run()
        return
    _header(session, info)
    notice_slot = st.container()  # drawn even when empty: the fragments below keep their place and so their ids
    notice = st.session_state.pop("whatif_notice", None)
    if notice:
        with notice_slot:
            sst.info(notice)
    st.session_state["whatif_workshop_drives"] = facilitator_panel(run_id, session.state)
    # one block per state (keyed by it): what an earlier state drew is replaced as a whole, never left behind
    with st.container(key=f"whatif_state_{session.state.value}"):
        VIEWS[session.state](session, info, ready)


def _header(session: Session, info: RunInfo) -> None:
    sst.markdown(f"### {session.proposition}")
    left, right = st.columns([3, 1])
    if session.state not in RUNNING:  # a running session's label moves with it, inside its live panel
        left.markdown(state_line(session, info))
    else:
        left.caption(ran_line(session, info))
    right.button("➕ New what-if", key="whatif_new", on_click=close_run,
                 help="Pose another proposition; this run stays saved (and goes on if it is running).")
    with st.expander("🔗 Link to this run"):
        show_run_link(info.id, "whatif")


def state_line(session: Session, info: RunInfo) -> str:
    return f"{STATE_ICONS[session.state]} **{session.label}** · {ran_line(session, info)}"


def ran_line(session: Session, info: RunInfo) -> str:
    """What the run does, counting the panel as it stands (the refiner may add experts, a review change
    them): "IF-World: 5 expert(s)" when five ran, not the four it was started with."""
    params = {**info.params, "experts": session.panel} if session.panel else info.params
    return whatif.describe(params)


def _live(session: Session, info: RunInfo, ready: bool) -> None:
    _live_panel(info.id)


@st.fragment(run_every=LIVE_REFRESH_S)
def _live_panel(run_id: str) -> None:
    """Redrawn every second from the run's feed (this app drives it) or the store (driven elsewhere)."""
    session = whatif.load_session(run_id, store())
    if session.state not in RUNNING:
        st.rerun(scope="app")  # paused or ended: the page draws that state's view instead
    info = store().get_run(run_id)
    st.markdown(f"{STATE_ICONS[session.state]} **{session.label}**")
    st.button("⏹️ Cancel run", key="whatif_cancel", on_click=cancel, args=(run_id,),
              help="Stops at the next step; what finished is kept and the run can be resumed.")
    since = next((t.at for t in reversed(session.transitions) if t.source != "engine"), info.created)
    panel = session.panel  # as the refiner or a review left it
    view = LiveWhatIf(run_id, panel, info.params, since=since)
    feed = runs.live_feed(run_id)
    if feed is not None and feed.done.is_set() and feed.error and info.status != "running":
        show_error(f"The run could not continue: {feed.error}")  # e.g. another process still holds it
    for event in feed.snapshot() if feed is not None else []:
        view.handle(event)
    if feed is None:
        view.phase = session.label
    view.flush()
    connection_view.show_retry(feed.snapshot() if feed is not None else [])  # "waiting for the model — retry …"
    if feed is None:
        st.caption("This run is driven by another process (the CLI or another app); progress comes from the run "
                   "store.")


def _review(session: Session, info: RunInfo, ready: bool) -> None:
    asks, _ = whatif.paused_state(info.id, current_settings(), store())
    if not asks:
        st.info("The run is paused; its question could not be read. Cancel it and resume to ask again.")
        return
    ask = whatif.parse_ask(asks[0])
    if isinstance(ask, whatif.ReviewAsk):
        with st.expander("🗺️ The refined scenario", expanded=False):
            sst.markdown(whatif.scenario_markdown(ask.scenario, heading=""))
    _answer(info.id, asks[0], ready)


def _between_rounds(session: Session, info: RunInfo, ready: bool) -> None:
    asks, values = whatif.paused_state(info.id, current_settings(), store())
    _rounds_so_far(info.id, values)
    if st.session_state.get("whatif_workshop_drives"):
        st.caption("⏸️ Paused after round {}: the workshop's accepted contributions go into the next round "
                   "when you continue (above).".format(session.round or 1))
    elif asks:
        _answer(info.id, asks[0], ready)


def _answer(run_id: str, ask: dict[str, Any], ready: bool) -> None:
    answer = pause_form(ask, f"whatif_pause_{run_id}")
    if answer == CANCEL:
        cancel(run_id)
        st.rerun()
    if answer is None:
        return
    if not ready:
        st.warning("Connect a model to continue this run.")
        return
    action = Action.APPLY_EDITS if answer["action"] == "edit" else Action.CONTINUE
    try:
        drive(run_id, action, answer)
    except SessionError as exc:
        show_error(str(exc))
        return
    st.rerun()


def _rounds_so_far(run_id: str, values: dict[str, Any]) -> None:
    from ui.runs_view import whatif_state_view

    rec = whatif_state_view(values)
    if rec is not None and rec.rounds:
        whatif_view.render_rounds(rec, f"whatif_sofar_{run_id}", expanded=False)


@st.fragment(run_every=LIVE_REFRESH_S)
def _stopping(run_id: str) -> None:
    """A cancel was asked while a step was running: wait (no controls) until the driver has stopped."""
    if store().get_run(run_id).status != "running":
        st.rerun(scope="app")
    st.info("⏹️ Stopping at the next step… what finished is kept.")


def _stopped(session: Session, info: RunInfo, ready: bool) -> None:
    if info.status == "running":  # cancel asked, driver still finishing its step
        _stopping(info.id)
        return
    kept, total = call_counts(store().calls(info.id))
    reason = {State.CANCELLED: "it was cancelled", State.FAILED: f"it failed: {session.error or 'unknown error'}",
              State.INTERRUPTED: "the process driving it stopped (the app restarted or the tab's process ended)"}
    show_error(f"The run stopped: {reason[session.state]}", st.warning)
    st.caption(f"Kept {kept} finished model call(s) of {total}; finished steps are checkpointed, so "
               "resuming re-runs only what did not finish.")
    if st.button("🔁 Resume", key="whatif_resume", type="primary", disabled=not ready,
                 help="Continue from the last checkpoint (needs a model)."):
        try:
            drive(info.id, Action.RESUME)
        except SessionError as exc:
            show_error(str(exc))
            return
        st.rerun()


def _draft(session: Session, info: RunInfo, ready: bool) -> None:
    st.caption("This run was created but never started.")
    if st.button("▶️ Start", key="whatif_start_saved", type="primary", disabled=not ready):
        drive(info.id, Action.START)
        st.rerun()


def _completed(session: Session, info: RunInfo, ready: bool) -> None:
    whatif_view.render_whatif_record(info.record or {}, "whatif_rep", info.usage, heading=False)
    st.divider()
    judge_col, row = st.columns([2, 3.4])
    row = row.container(horizontal=True)  # the downloads wrap to a new line where a column would cut their text
    with judge_col:
        whatif_view.judge_panel(info.id, info.record or {}, "whatif", ready)
    row.download_button("⬇️ Markdown", runs.export_run(info.id, "md", caller=caller(), store=store()), f"{info.id}.md",
                        "text/markdown", key="whatif_dl_md", on_click="ignore")
    row.download_button("⬇️ JSON", runs.export_run(info.id, "json", caller=caller(), store=store()), f"{info.id}.json",
                        "application/json", key="whatif_dl_json", on_click="ignore")
    row.download_button("⬇️ HTML", runs.export_run(info.id, "html", caller=caller(), store=store()), f"{info.id}.html",
                        "text/html", key="whatif_dl_html", on_click="ignore",
                        help="One self-contained page (charts included) that opens and prints offline.")
    row.page_link("app_pages/causal_map.py", label="Explore the causal map", icon="🕸️",
                  query_params={"run": info.id})


VIEWS: dict[State, Callable[[Session, RunInfo, bool], None]] = {
    State.DRAFT: _draft, State.REFINING: _live, State.ROUND: _live, State.REPORTING: _live,
    State.REVIEW: _review, State.BETWEEN_ROUNDS: _between_rounds, State.COMPLETED: _completed,
    State.CANCELLED: _stopped, State.FAILED: _stopped, State.INTERRUPTED: _stopped,
}
