"""The RWS benchmark: run agentic patterns over items and models, watch progress, compare accuracy and cost,
open every role's trace; earlier runs open from the store without a model."""

import streamlit as st

from ifworld import rws
from ifworld.rws import PATTERN_REGISTRY, RecordError
from ifworld.toolkit import CONFIRM_CALLS, inert_markdown, needs_confirmation
from ui.common import current_settings, model_ready, show_error, store
from ui.connection_view import reachable_now
from ui.identity import caller
from ui.live_view import follow_run
from ui.rws_view import load_upload, show_results

st.title("📊 The RWS benchmark")
st.caption(f"{', '.join(PATTERN_REGISTRY.labels().values())} answer the same items; graded from saved outputs.")


def _follow(run_id: str) -> None:
    """Drive (or resume) a run with the app's one run follower; a stop leaves a Resume button."""
    record = follow_run(run_id)
    st.session_state["rwsb_failed"] = None if record is not None else run_id
    if record is not None:
        st.session_state["rwsb_pick"] = run_id  # the "Earlier runs" picker (rendered below) opens it


tab_new, tab_old = st.tabs(["New run", "Earlier runs"])
with tab_new:
    if model_ready("the RWS benchmark"):
        settings = current_settings()
        source = st.radio("Data", ["Sample set", "Upload JSONL"], horizontal=True, key="rwsb_source")
        items, label = [], "sample"
        if source == "Sample set":
            items = rws.load_sample()
        else:
            upload = st.file_uploader("Items (JSONL)", type=["jsonl", "json", "txt"], key="rwsb_upload")
            if upload is not None:
                loaded = load_upload(upload.getvalue(), upload.name)
                items, label = (loaded.items if loaded else []), upload.name
        patterns = st.multiselect("Patterns", PATTERN_REGISTRY.names(),
                                  default=[p.name for p in PATTERN_REGISTRY if p.preselected],
                                  format_func=lambda p: PATTERN_REGISTRY.get(p).label, key="rwsb_patterns")
        models_text = st.text_input("Models (comma-separated, same endpoint)", value=settings.model,
                                    key="rwsb_models")
        c1, c2 = st.columns(2)
        limit = c1.number_input("Items (limit)", min_value=1, max_value=max(1, len(items)),
                                value=min(5, max(1, len(items))), key="rwsb_limit")
        verify = c2.checkbox("LLM verifier (Parser + Judge) for non-correct verdicts", value=True, key="rwsb_verify",
                             help="On by default, as the paper's headline accuracy is measured.")
        sees_grader = c2.checkbox("…and show its Judge the grader's reason", key="rwsb_sees_grader",
                                  disabled=not verify, help="The paper's Judge sees only the two normalised "
                                  "answers and the type; this adds the programmatic grader's reason.")
        models = rws.parse_list(models_text) or [settings.model]
        n = min(int(limit), len(items))
        if patterns and n:
            est = rws.estimate_calls(n, patterns, len(models))
            lo, hi = est["total"]
            tasks = n * len(patterns) * len(models)
            st.caption(f"{n} items × {len(patterns)} patterns × {len(models)} models = {tasks}"
                       f" tasks; estimated model calls: {lo}–{hi}"
                       + (" (+ 2 verifier calls per answer the grader does not call correct)" if verify else "")
                       + " · " + ", ".join(f"{p}: {a}–{b}" for p, (a, b) in est.items() if p != "total"))
        confirmed = True
        if patterns and n and needs_confirmation(hi):
            confirmed = st.checkbox(f"Yes, run up to {hi} model calls (more than {CONFIRM_CALLS})",
                                    key="rwsb_confirm")
        run = st.button("Run benchmark", type="primary", key="rwsb_run", disabled=not (patterns and n and confirmed))
        if run and reachable_now():  # a dead endpoint: cause and address in seconds, and no run is created
            params = rws.benchmark_params(items, patterns, models=models, limit=n, verify=verify,
                                          verifier_sees_grader=sees_grader, data_label=label)
            run_id = rws.start_benchmark(params, caller=caller(), store=store())
            _follow(run_id)
        failed = st.session_state.get("rwsb_failed")
        if failed and st.button(f"Resume {failed}", key="rwsb_resume"):
            _follow(failed)

with tab_old:
    earlier = rws.list_benchmarks(store())
    if not earlier:
        st.info("No benchmark runs saved yet.")
    else:
        ids = [r.id for r in earlier]
        labels = {r.id: f"{r.created_iso} · {r.status} · {r.title}" for r in earlier}
        if st.session_state.get("rwsb_pick") not in ids:
            st.session_state["rwsb_pick"] = ids[0]
        st.selectbox("Open a run", ids, format_func=labels.get, key="rwsb_pick")

opened = st.session_state.get("rwsb_pick")
if opened:
    info = store().get_run(opened)
    st.divider()
    st.subheader(inert_markdown(info.title))
    if not info.record:
        st.warning(f"This run is {info.status} and has no results yet; resume it (`ifworld runs resume {opened}`).")
    else:
        if st.button("Re-grade from saved outputs (no model calls)", key="rwsb_regrade"):
            try:
                rws.regrade(opened, store=store())
                info = store().get_run(opened)
                st.success("Re-graded with the current grader.")
            except RecordError as exc:  # the results view below names the same problem and shows the record
                show_error(f"Cannot re-grade: {exc}.")
        show_results(info.record, opened, key="rwsb_res")
