"""Run control on the What-if page: cancel, answer a pause, resume a run left behind.

A run lives in the store, not in the browser session: leaving the page (or closing the tab) abandons the
stream, the run becomes ``interrupted`` at its next step and this panel offers to resume it; a run paused
for a person shows its form (and the rounds so far) whenever it is opened again.
"""

from __future__ import annotations

import time

import streamlit as st

from ifworld import runs, whatif
from ifworld.runs import RunInfo
from ifworld.whatif import load_record
from ui import whatif_view
from ui.common import current_settings, store
from ui.live_view import follow_run, show_failure
from ui.review_view import CANCEL, pause_form

RESUMABLE = ("interrupted", "failed", "cancelled")
CANCEL_WAIT_S = 30.0
CANCEL_POLL_S = 0.2
LIVE_POLL_S = 2.0


def cancel(run_id: str) -> None:
    """Stop a run: a live one at its next step boundary, a paused or stopped one at once (resumable)."""
    if not runs.request_cancel(run_id, store=store()):
        store().set_status(run_id, "cancelled")
    st.toast(f"Run {run_id} cancelled; you can resume it later.")


def live_cancel_button(run_id: str) -> None:
    """A Cancel button shown while this session follows the run: clicking it reruns the page, which
    abandons the stream, and the rerun asks the run to stop (see :func:`handle_live_cancel`)."""
    st.button("⏹️ Cancel run", key="whatif_cancel_live", help="Stops at the next step; the run stays resumable.")
    st.session_state["whatif_following"] = run_id


def handle_live_cancel() -> None:
    """On the rerun a live Cancel click caused: stop the run it was following, and wait (bounded) until its
    driver has stopped at the step boundary, so the page then offers Resume instead of "still running"."""
    run_id = st.session_state.pop("whatif_following", None)
    if run_id and st.session_state.get("whatif_cancel_live"):
        cancel(run_id)
        deadline = time.monotonic() + max(CANCEL_WAIT_S, current_settings().timeout_s)
        with st.spinner("Stopping at the next step…"):
            while store().get_run(run_id).status == "running" and time.monotonic() < deadline:
                time.sleep(CANCEL_POLL_S)


def _rounds_so_far(run_id: str, values: dict) -> None:
    from ui.runs_view import whatif_state_view

    rec = whatif_state_view(values)
    if rec is not None and rec.rounds:
        whatif_view.render_rounds(load_record(rec), f"whatif_paused_{run_id}", expanded=True)


def _paused(run_id: str, ready: bool) -> None:
    asks, values = whatif.paused_state(run_id, current_settings(), store())
    _rounds_so_far(run_id, values)
    if not asks:
        return
    answer = pause_form(asks[0], f"whatif_pause_{run_id}")
    if answer == CANCEL:
        cancel(run_id)
    elif answer is not None and ready:
        follow_run(run_id, resume_value=answer)
        if store().get_run(run_id).status == "paused":
            st.rerun()  # paused again (the next pause): show its form, not the answered one
    elif answer is not None:
        st.warning("Connect a model to continue this run.")


def unfinished_notice(key: str = "whatif_unfinished") -> None:
    """With no run open (e.g. a new browser tab after leaving mid-run): offer the newest unfinished run."""
    waiting = [i for i in store().list_runs("whatif") if i.status in (*RESUMABLE, "paused")]
    if not waiting:
        return
    newest = waiting[0]
    st.info(f"⏯️ {len(waiting)} what-if run(s) did not finish (left mid-run, cancelled, failed or paused); "
            f"the newest: {newest.title} · {newest.status}.")
    if st.button("Open the newest unfinished run", key=key):
        st.session_state["whatif_run_id"] = st.session_state["causal_run"] = newest.id
        st.rerun()


@st.fragment(run_every=LIVE_POLL_S)
def _watch_live(run_id: str) -> None:
    """A run live elsewhere (another tab, the CLI, or a stream this session just abandoned): checked every
    few seconds; when it stops being live the whole page reruns and shows its result or Resume."""
    if store().get_run(run_id).status != "running":
        st.rerun()
    st.info("This run is live in another session or process; this panel updates when it stops.")
    if st.button("⏹️ Cancel run", key="whatif_cancel_other"):
        cancel(run_id)


def run_panel(run_id: str, ready: bool) -> RunInfo | None:
    """Status-dependent controls for an opened run; returns its (fresh) info, None if it is gone."""
    try:
        info = store().get_run(run_id)
    except KeyError:
        return None
    if info.status == "paused":
        _paused(run_id, ready)
    elif info.status == "running":
        _watch_live(run_id)
    elif info.status in RESUMABLE:
        show_failure(run_id, info.error or info.status)
        if st.button("🔁 Resume", key="whatif_resume", disabled=not ready, type="primary",
                     help="Continue from the last checkpoint: finished steps are not re-run."):
            follow_run(run_id, resume=True, show_failures=False)
            if store().get_run(run_id).status == "paused":
                st.rerun()  # it reached a pause: show its form
    try:
        return store().get_run(run_id)
    except KeyError:
        return None
