"""Belief exchange: simulate a population swapping facts and watch the collective find (or miss) the truth;
the same game with LLM agents when a model is connected."""

import pandas as pd
import streamlit as st

from ifworld import beliefs, runs
from ifworld.beliefs import (
    LLM_DEFAULTS,
    LLM_FIELDS,
    LLM_NO_RULE,
    MAX_SEED,
    BeliefConfig,
    SimulationResult,
    estimate_cost,
    make_params,
    recordable_runs,
    simulate,
    summarise,
)
from ifworld.toolkit import CONFIRM_CALLS, needs_confirmation, write_csv
from ui.beliefs_view import (
    config_widgets,
    llm_option_widgets,
    parameter_form,
    path_caption,
    player,
    render_llm_record,
    reproduce_paper,
    summary_over_runs,
)
from ui.common import current_settings, model_ready, store
from ui.connection_view import reachable_now
from ui.identity import caller
from ui.live_view import follow_run

st.title("🗣️ Belief exchange")
st.caption("Each agent starts with a few true and a few false statements about a family, meets one partner per "
           "round, passes on up to C statements and updates its beliefs. Does the group end up believing the "
           "truth? Press **Run simulation** — the defaults are the paper's setting and run instantly.")


@st.cache_data(ttl=3600, max_entries=32, show_spinner=False)
def run_simulation(config: dict, seed: int, runs: int = 1) -> SimulationResult:
    """R recorded runs (pure in its inputs, so cached)."""
    return simulate(BeliefConfig.from_dict(config), seed=seed, runs=runs, record=True)


def start(config: dict, seed: int, n_runs: int) -> None:
    """Simulate (the estimate was accepted) and make the result the page's state."""
    try:
        result = run_simulation(config, seed, n_runs)
    except ValueError as exc:
        st.session_state["beliefs_error"] = str(exc)
        return
    st.session_state["beliefs_error"] = None
    st.session_state["beliefs_run"] = (config, seed, n_runs)
    st.session_state["beliefs_saved"] = beliefs.save_simulation(result, store=store())
    st.session_state["beliefs_t"] = 0
    st.session_state["beliefs_playing"] = False


submitted, kw, seed, n_runs = parameter_form("beliefs")
if submitted:
    st.session_state["beliefs_pending"] = None
    try:
        config = BeliefConfig(**kw)
        fits = recordable_runs(config)
        if 1 <= fits < n_runs:  # the player needs every run recorded: keep R within the recording bound
            st.info(f"At this size at most {fits} runs can be recorded for the player (MAX_RECORDED_CELLS); "
                    f"running {fits} instead of {n_runs}.")
            n_runs = fits
        beliefs.check_size(config, n_runs, record=True)  # hard bounds (graph edges, cells): nothing allocated
        cost = estimate_cost(config, n_runs)
    except ValueError as exc:
        st.session_state["beliefs_error"] = str(exc)
    else:
        if cost.needs_confirmation:  # estimated from the parameters alone: ask before allocating anything
            st.session_state["beliefs_pending"] = (config.to_dict(), seed, n_runs, cost.text())
        else:
            start(config.to_dict(), seed, n_runs)

if st.session_state.get("beliefs_pending"):
    *pending, estimate = st.session_state["beliefs_pending"]
    st.warning(f"This simulation is estimated at {estimate}. Run it anyway, or use fewer runs, agents, facts, "
               "rounds or a smaller degree.", icon="⏳")
    if st.button("Run it anyway", key="beliefs_confirm"):
        st.session_state["beliefs_pending"] = None
        with st.spinner(f"Simulating ({estimate})…"):
            start(*pending)
        st.rerun()
elif st.session_state.get("beliefs_error"):
    st.error(f"These parameters are impossible: {st.session_state['beliefs_error']}", icon="🚫")
elif st.session_state.get("beliefs_run"):
    cfg, seed, n_runs = st.session_state["beliefs_run"]
    result = run_simulation(cfg, seed, n_runs)
    summary_over_runs(summarise(result), cfg["rounds"])
    rows = pd.DataFrame(result.rows())
    c1, c2, c3 = st.columns([1, 1, 2])
    c1.download_button("⬇️ Rows (CSV)", write_csv(rows), file_name=f"beliefs_seed{seed}.csv",
                       mime="text/csv", key="beliefs_dl", on_click="ignore")
    run = c2.selectbox("Player on run", range(result.runs), key="beliefs_pick_run",
                       format_func=lambda r: f"run {r} · F1 {result.f1[r]:.3f}")
    c3.caption(f"Saved as run `{st.session_state.get('beliefs_saved')}` (see the Runs page). "
               f"Run {run} missed: {rows['missed_facts'][run] or 'nothing'}. {path_caption(result.path)}.")
    player(result.recording, result.domain, "beliefs", run=run)

st.divider()
st.subheader("📄 Reproduce the paper")
reproduce_paper("beliefs")

st.divider()
st.subheader("🤖 LLM agents")
st.caption("Every agent is a model call per round: it sees its beliefs, what it was told and its last five "
           "meetings, and answers with updated confidences, what to share and a STOP/CONTINUE vote. "
           "Partners are drawn within the chosen topology, as above. " + LLM_NO_RULE)
if model_ready("LLM agents"):
    settings = current_settings()
    with st.form("beliefs_llm_form"):
        mode = st.radio("Population", ["Homogeneous (one model)", "Heterogeneous (mix of models)"],
                        horizontal=True, key="beliefs_llm_mode")
        st.caption("Heterogeneous: name up to four models on the same endpoint and their shares (blank = unused).")
        mc = st.columns(4)
        models = [mc[i].text_input(f"Model {i + 1}", value=settings.model if i == 0 else "",
                                   key=f"beliefs_llm_model{i}") for i in range(4)]
        shares = [mc[i].number_input(f"Share {i + 1} (%)", min_value=0.0, value=25.0, step=5.0,
                                     key=f"beliefs_llm_share{i}") for i in range(4)]
        kw = config_widgets("beliefs_llm", LLM_FIELDS, LLM_DEFAULTS, columns=6)
        ours = llm_option_widgets("beliefs_llm")
        llm_seed = st.number_input("Seed", min_value=0, max_value=MAX_SEED, value=0, key="beliefs_llm_seed")
        confirmed = st.checkbox(f"Yes, run more than {CONFIRM_CALLS} model calls if these settings need them",
                                key="beliefs_llm_confirm", help="agents × rounds calls at most (CONFIRM_CALLS)")
        go = st.form_submit_button("🤖 Run LLM agents", type="primary")
    calls = kw["agents"] * kw["rounds"]
    if go and needs_confirmation(calls) and not confirmed:
        st.warning(f"Up to {calls:,} model calls: tick the confirmation box to start.", icon="✋")
        go = False
    if go and not reachable_now():  # a dead endpoint: cause and address in seconds, and no run is created
        go = False
    if go:
        try:
            named = [(m.strip(), s) for m, s in zip(models, shares, strict=True) if m.strip()]
            hetero = mode.startswith("Heterogeneous")
            config = BeliefConfig(**kw)
            params = make_params(config, seed=int(llm_seed), models=[m for m, _ in named] if hetero else [],
                                 shares=[s for _, s in named] if hetero else None, **ours)
        except ValueError as exc:
            st.error(f"These parameters are impossible: {exc}", icon="🚫")
        else:
            run_id = runs.start_run("beliefs.llm", params, caller=caller(), store=store())
            st.caption(f"Run `{run_id}`")
            record = follow_run(run_id)
            if record is not None:
                st.session_state["beliefs_llm_record"] = record
                st.session_state["beliefs_llm_t"] = 0
            else:
                st.caption("Resume it from the Runs page or with `ifworld runs resume " + run_id + "`.")
    record = st.session_state.get("beliefs_llm_record")
    if record:
        render_llm_record(record, "beliefs_llm")
