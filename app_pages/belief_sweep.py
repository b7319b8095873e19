"""Belief sweep: define a parameter grid, estimate and run it (resumable), read Tables 1–6 and Figures 1/2,
trace the misinformation phase transition, reopen earlier sweeps."""

import importlib.util
import io
import os
import time
from pathlib import Path

import streamlit as st

from ifworld import beliefs
from ifworld.beliefs import (
    PAPER_BOTH,
    PAPER_RULES,
    BeliefConfig,
    SweepSpec,
    crossing_table,
    partial_rows,
    phase_both_rules,
    phase_figure,
    readable,
    sweep_cost,
    table1_by_condition,
)
from ifworld.toolkit import human_columns, write_csv
from ui.belief_sweep_view import grid_form, grid_yaml, load_rows, sweep_results
from ui.beliefs_view import reproduce_paper
from ui.charts import show_chart
from ui.common import show_error, store

EXAMPLE = {"base": {"facts": 20, "rounds": 20}, "grid": {"agents": [10, 20], "bandwidth": [1, 3],
           "strategy": ["highest_confidence", "strategic"]}, "seeds": [0, 1], "runs": 20, "chunk_size": 8}
HAS_DASK = importlib.util.find_spec("dask") is not None and importlib.util.find_spec("distributed") is not None
HAS_PARQUET = importlib.util.find_spec("pyarrow") is not None

st.title("🧪 Belief sweep")
st.caption("Every combination of the listed values × seeds × runs, simulated in chunks; finished chunks are saved, "
           "so an interrupted sweep resumes where it stopped.")


@st.cache_data(ttl=3600, max_entries=32, show_spinner="Timing two tasks for the estimate…")
def sweep_estimate(grid: dict, workers: int) -> beliefs.SweepEstimate:
    """Measured on this machine (lightest and heaviest configuration, each after a warm-up call)."""
    return beliefs.estimate_sweep(SweepSpec.from_dict(grid), workers)


@st.cache_data(ttl=3600, max_entries=16, show_spinner="Tracing the phase transition…")
def phase_curve(config: dict, m_false: tuple, runs: int, seed: int, rules: tuple):
    return phase_both_rules(BeliefConfig.from_dict(config), m_false, runs=runs, seed=seed, rules=rules)


def run_with_progress(run_id: str) -> bool:
    """Run (or resume) a sweep with a progress bar; True when it finished."""
    bar = st.progress(0.0, text="Starting…")
    live = st.empty()
    out = beliefs.sweep_out(run_id, store())

    def show(done: int, total: int) -> None:
        bar.progress(done / max(total, 1), text=f"chunks {done}/{total}")
        rows = partial_rows(out)
        if len(rows) and done < total:
            live.dataframe(readable(table1_by_condition(rows)), hide_index=True,
                           key=f"belief_sweep_live_{done}")

    try:
        beliefs.run_sweep_run(run_id, store=store(), progress=show)
    except (ValueError, OSError, RuntimeError) as exc:
        show_error(f"The sweep stopped: {exc}. Finished chunks are kept; resume it below.")
        return False
    live.empty()
    st.session_state["belief_sweep_open"] = run_id
    return True


with st.expander("📄 Reproduce the paper — its one-at-a-time sweep under each reading", expanded=False):
    reproduce_paper("belief_sweep")

st.subheader("1 · Define the grid")
source = st.radio("Define with", ["Form", "YAML"], horizontal=True, key="belief_sweep_source")
if source == "Form":
    _, grid = grid_form("belief_sweep")
else:
    _, grid = grid_yaml("belief_sweep", EXAMPLE)
spec = None
if isinstance(grid, str):
    show_error(f"Grid error: {grid}")
else:
    try:
        spec = SweepSpec.from_dict(grid)
    except ValueError as exc:
        show_error(f"Grid error: {exc}")

if spec is not None:
    st.subheader("2 · Estimate and run")
    b = st.columns([1, 1, 2])
    backend = b[0].radio("Backend", ["local", "dask"] if HAS_DASK else ["local"], key="belief_sweep_backend")
    workers = b[1].number_input("Workers", min_value=1, max_value=64, value=min(4, os.cpu_count() or 1),
                                key="belief_sweep_workers")
    scheduler = b[2].text_input("Dask scheduler address (empty = local cluster)", key="belief_sweep_scheduler",
                                disabled=backend != "dask")
    # hard bounds and an estimate from the parameters first: the measured estimate below times tasks of the grid
    try:
        cost = sweep_cost((BeliefConfig.from_dict(c) for c in spec.configs()), len(spec.seeds), spec.runs,
                          int(workers))
    except ValueError as exc:  # a task over the hard bounds (graph edges, cells): refused before anything runs
        show_error(f"Grid error: {exc}")
        cost = None
    confirmed = cost is not None and (not cost.needs_confirmation or st.checkbox(
        f"This sweep is estimated from its parameters at {cost.text()}: time it here and run it anyway",
        key="belief_sweep_confirm"))
    if confirmed:
        estimate = sweep_estimate(grid, int(workers))
        m = st.columns(4)
        m[0].metric("Configurations", spec.config_count())
        m[1].metric("Runs", estimate.tasks * spec.runs)
        m[2].metric("Chunks", len(spec.chunks()))
        m[3].metric("Estimated time", f"about {estimate.seconds:.1f} s",
                    help=f"Measured here: {estimate.fixed_s * 1e3:.0f} ms per task plus "
                         f"{estimate.per_unit_s * 1e9:.2f} ns per agent × fact × round × run, over {estimate.tasks} "
                         f"tasks on {estimate.workers} worker(s) at once. Runs that stop by vote finish sooner.")
        if st.button("🚀 Run sweep", type="primary", key="belief_sweep_run"):
            run_id = beliefs.start_sweep(grid, backend=backend, workers=int(workers), scheduler=scheduler or None,
                                           store=store())
            st.caption(f"Run `{run_id}`")
            started = time.perf_counter()
            if run_with_progress(run_id):
                st.session_state["belief_sweep_timing"] = (run_id, time.perf_counter() - started, estimate.seconds)

st.subheader("3 · Results")
sweeps = [i for i in store().list_runs(kind="beliefs") if i.workflow == "beliefs.sweep"]
if sweeps:
    ids = [i.id for i in sweeps]
    by_id = {i.id: i for i in sweeps}
    if st.session_state.get("belief_sweep_open") in ids:
        st.session_state["belief_sweep_pick"] = st.session_state["belief_sweep_open"]
    pick = st.selectbox("Sweep", ids, key="belief_sweep_pick",
                        format_func=lambda i: f"{by_id[i].title} · {by_id[i].status} · {by_id[i].created_iso[:16]}")
    info = by_id[pick]
    out = beliefs.sweep_out(pick, store())
    if info.status != "completed":
        rec = beliefs.load_belief_record(info.record, info.id) if info.record else None
        done, total = (rec.chunks_done, rec.chunks_total) if isinstance(rec, beliefs.SweepRecord) else (0, None)
        st.warning(f"This sweep is {info.status} ({done or 0}/{total or '?'} chunks finished).")
        if st.button("▶️ Resume sweep", key="belief_sweep_resume"):
            run_with_progress(pick)
            st.rerun()
    elif Path(out).exists():
        rows = load_rows(out, Path(out).stat().st_mtime)
        st.caption(f"{len(rows)} rows from `{out}`")
        timing = st.session_state.get("belief_sweep_timing")
        if timing and timing[0] == pick:
            st.caption(f"Took {timing[1]:.1f} s (estimated {timing[2]:.1f} s).")
        d = st.columns(2)
        d[0].download_button("⬇️ CSV", write_csv(rows), file_name=f"{pick}.csv", mime="text/csv",
                             key="belief_sweep_csv", on_click="ignore")
        if HAS_PARQUET:
            buf = io.BytesIO()
            rows.to_parquet(buf, index=False)
            d[1].download_button("⬇️ Parquet", buf.getvalue(), file_name=f"{pick}.parquet",
                                 mime="application/octet-stream", key="belief_sweep_parquet", on_click="ignore")
        sweep_results(rows, "belief_sweep")
    else:
        st.info(f"The table `{out}` is missing (moved or deleted).")
else:
    st.info("No sweeps yet: define a grid above and run it.")

st.subheader("4 · Phase transition under misinformation")
st.caption("Two curves per rule: **any false fact accepted** (one pair of K going wrong is enough, so it crosses "
           "early) and **falsehood majority** (more false than true facts accepted: the collective is mostly wrong).")
with st.form("belief_sweep_phase"):
    p = st.columns(6)
    m_true = p[0].number_input("M_T (true facts each)", min_value=1, max_value=100, value=5,
                               key="belief_sweep_phase_true")
    lo = p[1].number_input("M_F from", min_value=0, max_value=100, value=0, key="belief_sweep_phase_lo")
    hi = p[2].number_input("M_F to", min_value=0, max_value=100, value=10, key="belief_sweep_phase_hi")
    runs = p[3].number_input("Runs per point", min_value=2, max_value=5000, value=100, key="belief_sweep_phase_runs")
    seed = p[4].number_input("Seed", min_value=0, value=0, key="belief_sweep_phase_seed")
    rule = p[5].selectbox("Update rule", [PAPER_BOTH, *beliefs.rule_names()], key="belief_sweep_phase_rule",
                          help=f"{PAPER_BOTH} = {' and '.join(PAPER_RULES)} (the paper's two rules)")
    traced = st.form_submit_button("📉 Trace")
if traced:
    if hi < lo:
        st.error("M_F to must be at least M_F from.")
    else:
        try:
            base = BeliefConfig(true_facts=int(m_true)).to_dict()
            rules = PAPER_RULES if rule == PAPER_BOTH else (rule,)
            curve = phase_curve(base, tuple(range(int(lo), int(hi) + 1)), int(runs), int(seed), rules)
        except ValueError as exc:
            st.error(f"These parameters are impossible: {exc}")
        else:
            st.dataframe(crossing_table(curve), hide_index=True, key="belief_sweep_phase_cross")
            show_chart(phase_figure(curve), key="belief_sweep_phase_fig")
            st.dataframe(human_columns(curve), key="belief_sweep_phase_table")
