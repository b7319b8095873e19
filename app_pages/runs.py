"""Saved runs of every kind: list, open, resume, replay step by step, compare, export, delete."""


import streamlit as st

from ifworld import runs
from ifworld.runs import KINDS, RESUMABLE, STATUSES, ReplayStep
from ifworld.toolkit import inert_markdown
from ifworld.whatif import RecordError, load_record, record_steps
from ui import runs_view
from ui.common import (
    current_run,
    current_settings,
    follow_run_link,
    set_current_run,
    show_error,
    show_run_link,
    store,
)
from ui.identity import caller
from ui.live_view import follow_run
from ui.player import step_player

st.title("🗂️ Runs")
st.caption("Every run is saved with its checkpoints: reopen, resume, replay round by round "
           "(no model needed), compare, export or delete.")
follow_run_link()  # ?run=ID opens that run (an unknown id is reported, not followed)

f1, f2, f3 = st.columns([3, 1, 1])
search = f1.text_input("Search title or id", key="runs_search")
kind = f2.selectbox("Kind", ["all", *KINDS], key="runs_kind")
status = f3.selectbox("Status", ["all", *STATUSES], key="runs_status")
infos = store().list_runs(None if kind == "all" else kind, search or None)
infos = [i for i in infos if status == "all" or i.status == status]
looking_at = current_run()
if looking_at and looking_at not in {i.id for i in infos} and kind == status == "all" and not search:
    try:  # a linked run older than the listed ones is still opened
        infos.append(store().get_run(looking_at))
    except KeyError:
        pass
if not infos:
    st.info("No saved runs match. Start one on the What-if page (or any other tool) and it appears here.")
    st.stop()

table = st.dataframe(runs_view.runs_frame(infos), key="runs_table", on_select="rerun",
                     selection_mode="single-row", hide_index=True, width="stretch")
ids = [i.id for i in infos]
by_id = {i.id: i for i in infos}
picked = table.selection.rows if table and table.selection else []
if looking_at in ids:  # the run the user was looking at (here, on another page, or by a link) opens and replays
    fresh = looking_at != st.session_state.get("runs_followed")
    for widget in ("runs_open", "runs_replay_id"):
        if fresh or widget not in st.session_state:
            st.session_state[widget] = looking_at
if picked and picked[0] < len(ids) and st.session_state.get("runs_picked") != ids[picked[0]]:
    st.session_state["runs_picked"] = st.session_state["runs_open"] = ids[picked[0]]
if st.session_state.get("runs_open") not in ids:
    st.session_state["runs_open"] = ids[0]


def export_builder(run_id: str, fmt: str):  # noqa: ANN201 — a zero-argument callable for st.download_button
    """Built only when the button is clicked (on Streamlit's own thread), not on every rerun of the page."""
    run_store = store()

    def build() -> str:
        try:
            return runs.export_run(run_id, fmt, caller=caller(), store=run_store)
        except Exception:  # noqa: BLE001 — a broken renderer must not hide the run; JSON always works
            return runs.export_run(run_id, "json", caller=caller(), store=run_store)
    return build


def close_delete_dialog() -> None:
    st.session_state.pop("runs_delete_open", None)


# The open dialog is remembered in session state so it survives full reruns (and page tests); every way out
# — Yes, Cancel, the close button or Escape — clears it.
@st.dialog("Delete this run?", on_dismiss=close_delete_dialog)
def confirm_delete(run_id: str, running: bool) -> None:
    st.warning(f"Delete run `{run_id}` with its calls and checkpoints? This cannot be undone."
               + (" It is running: it stops at its next step." if running else ""))
    y, n = st.columns(2)
    if y.button("Yes, delete it", key="runs_delete_yes", type="primary"):
        runs.delete_run(run_id, caller=caller(), store=store())
        close_delete_dialog()
        st.session_state.pop("runs_open", None)
        st.toast(f"Deleted {run_id}")
        st.rerun()
    if n.button("Cancel", key="runs_delete_no"):
        close_delete_dialog()
        st.rerun()


def label(run_id: str) -> str:
    info = by_id[run_id]
    return f"{info.title[:70]} · {info.status} · {info.created_iso[:16]} · {run_id}"


tab_open, tab_replay, tab_compare = st.tabs(["📂 Open", "⏯️ Replay", "⚖️ Compare"])

with tab_open:
    run_id = st.selectbox("Run", ids, key="runs_open", format_func=label)
    st.session_state["runs_followed"] = run_id
    set_current_run(run_id)
    info = store().get_run(run_id)
    st.subheader(inert_markdown(info.title))
    st.caption(f"`{info.id}` · {info.kind} · {info.workflow} · {info.status} · created {info.created_iso}")
    show_run_link(run_id, "runs")
    if info.error:
        show_error(f"Last error: {info.error}", st.warning)
    row = st.container(horizontal=True)  # the buttons wrap to a new line where a column would cut their text
    row.download_button("⬇️ Markdown", export_builder(run_id, "md"), file_name=f"{run_id}.md",
                        mime="text/markdown", key="runs_dl_md", on_click="ignore")
    row.download_button("⬇️ JSON", export_builder(run_id, "json"), file_name=f"{run_id}.json",
                        mime="application/json", key="runs_dl_json", on_click="ignore")
    row.download_button("⬇️ HTML", export_builder(run_id, "html"), file_name=f"{run_id}.html",
                        mime="text/html", key="runs_dl_html", on_click="ignore",
                        help="Self-contained page: charts inline, opens offline.")
    resume = False
    if info.workflow.startswith("whatif."):  # a what-if session: its own page offers exactly what its state allows
        row.page_link("app_pages/whatif.py", label="Open in What-if", icon="🌋", query_params={"run": run_id},
                      help="Continue, answer a pause, cancel or resume it there.")
    else:
        resume = row.button("▶️ Resume", key="runs_resume", disabled=info.status not in RESUMABLE or
                            not current_settings().enabled,
                            help="Continue an interrupted or cancelled run from its last checkpoint (needs a model).")
        if info.status == "running" and row.button("⏹️ Cancel", key="runs_cancel",
                                                   help="Stop the live run at its next step; it can be resumed."):
            runs.request_cancel(run_id, store=store())
            st.toast(f"Cancel requested for {run_id}; it stops at its next step.")
    if row.button("🗑️ Delete", key="runs_delete"):
        st.session_state["runs_delete_open"] = run_id
    if st.session_state.get("runs_delete_open") == run_id:
        confirm_delete(run_id, info.status == "running")
    judged_here = info.kind == "whatif" and bool(info.record)
    with row:
        judge = judged_here and runs_view.judge_button(info, "runs_judge")
    if judge:
        runs_view.judge_runs([info], "runs_judge")
    if judged_here:  # the scores sit right under the button row, not at the end of the long record
        runs_view.render_judge(info, "runs_judge")
    if resume:
        if follow_run(run_id, resume=True) is not None:
            st.success("Resumed run finished.")
            info = store().get_run(run_id)
    runs_view.render_record(info.kind, runs_view.without_judge(info.record) if judged_here else info.record,
                            key="runs_rec", usage=info.usage, run_id=info.id)


def load_steps(run_id: str) -> tuple[list[ReplayStep], str]:
    """Checkpoint history if there is one, else steps rebuilt from the saved record (works offline)."""
    try:
        steps = runs.replay(run_id, store=store(), settings=current_settings())
    except Exception:  # noqa: BLE001 — an unknown workflow or pruned checkpoints fall back to the record
        steps = []
    if steps:
        return steps, "checkpoint history"
    info = store().get_run(run_id)
    if info.kind != "whatif":  # only a what-if record has rounds to rebuild a replay from
        return [], "Nothing to replay for this run yet."
    try:
        return record_steps(load_record(info.record, run_id)), "saved record"
    except RecordError as exc:
        return [], f"This run's saved record cannot be replayed: {exc}."


with tab_replay:
    rid = st.selectbox("Run to replay", ids, key="runs_replay_id", format_func=label)
    if st.session_state.get("runs_replay_loaded") != rid:
        st.session_state["runs_replay_steps"], st.session_state["runs_replay_source"] = load_steps(rid)
        st.session_state["runs_replay_loaded"] = rid
        st.session_state["runs_replay_pos"] = 1
        st.session_state["runs_replay_playing"] = False
    steps = st.session_state["runs_replay_steps"]
    if not steps:
        st.info(st.session_state["runs_replay_source"])
    else:
        st.caption(f"{len(steps)} steps from the {st.session_state['runs_replay_source']}.")

        def show_step(number: int) -> None:  # the slider shows step numbers, 1 … N
            runs_view.render_replay_state(by_id[rid].kind, steps[number - 1], len(steps),
                                          key=f"runs_replay_{number}")

        step_player("runs_replay", len(steps), show_step, pos_key="runs_replay_pos", controls="slider", first=1)

with tab_compare:
    done = [i.id for i in infos if i.kind == "whatif" and i.record and runs_view.is_whatif_record(i.record)]
    if len(done) < 2:
        st.info("Comparing needs two finished what-if runs "
                "(e.g. IF-World and debate on the same proposition).")
    else:
        a_col, b_col = st.columns(2)
        a = a_col.selectbox("Run A", done, key="runs_cmp_a", format_func=label)
        b = b_col.selectbox("Run B", [i for i in done if i != a], key="runs_cmp_b", format_func=label)
        runs_view.render_compare(store().get_run(a), store().get_run(b), key="runs_cmp")
