"""Belief-exchange widgets: parameter form, round player (network, heatmap, curves), LLM progress, the
paper's reproduction, and the Runs-page renderer for ``beliefs`` records (sweep forms and result tabs:
:mod:`ui.belief_sweep_view`) (validated once into
:mod:`ifworld.beliefs.records`; the LLM run's progress events are typed there too)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from ifworld import beliefs
from ifworld.beliefs import (
    LLM_INITIAL_CONFIDENCE,
    LLM_OPTION_HELP,
    MAX_SEED,
    AgentDone,
    AgentStarted,
    BeliefRoundDone,
    Domain,
    LLMBeliefRecord,
    Recording,
    SimulationRecord,
    SweepRecord,
    bounds_text,
    departures,
    field_info,
    load_belief_record,
    load_llm_record,
    parse_llm_progress,
    read_table,
    recording_of,
)
from ifworld.runs import Event
from ifworld.toolkit import human_columns, inert_figure
from ui.belief_sweep_view import sweep_results
from ui.charts import show_chart
from ui.player import step_player
from ui.runs_view import register_renderer

DEFAULT_PAGE_RUNS = 20
MAX_PAGE_RUNS = 500
FIG_HEIGHT = 380
FIRST_RUN_FIELDS = ("agents", "true_facts", "false_facts", "bandwidth", "strategy", "rule", "rounds")
"""What matters for a first run: population, facts per agent, bandwidth, strategy, rule, rounds (always in view)."""
ADVANCED_FIELDS = ("facts", "threshold", "stop_share", "trust", "discount", "domain", "false_from", "constraints",
                   "with_replacement", "liars", "noise", "topology", "degree", "rewire", "domain_seed", "graph_seed")
"""Everything else, under "Advanced", each with its one-line explanation in view."""


# ---------------------------------------------------------------------------------------------------
# Parameter widgets, generated from BeliefConfig's fields (bounds, labels, help, steps)
# ---------------------------------------------------------------------------------------------------
def config_widget(container: Any, name: str, key: str, default: Any = None) -> Any:
    """One widget for one config field: number input within the field's bounds, select box for a
    choice (a registry's entries by their labels, read when drawn), checkbox for a flag."""
    f = field_info(name)
    value = f["default"] if default is None else default
    label, tip = f["label"], f"{f['help']} ({bounds_text(name)})"
    if f["registry"]:
        labels = f["labels"]
        return container.selectbox(label, f["choices"], index=f["choices"].index(value), help=f["help"], key=key,
                                   format_func=lambda n: labels.get(n, n))
    if f["choices"]:
        return container.selectbox(label, f["choices"], index=f["choices"].index(value), help=tip, key=key)
    if f["type"] is bool:
        return container.checkbox(label, value=bool(value), help=tip, key=key)
    cast = f["type"]
    step = cast(f["step"] or 1)
    return container.number_input(label, min_value=cast(f["min"]), max_value=cast(f["max"]), value=cast(value),
                                  step=step, help=tip, key=key)


def config_widgets(prefix: str, names: tuple[str, ...], defaults: dict[str, Any] | None = None,
                   columns: int = 4, explain: bool = False) -> dict[str, Any]:
    """Widgets for ``names`` laid out in ``columns`` (with ``explain``, each field's help in view under its
    widget); returns config keyword arguments."""
    cols = st.columns(columns)
    out = {}
    for i, name in enumerate(names):
        out[name] = config_widget(cols[i % columns], name, f"{prefix}_{name}", (defaults or {}).get(name))
        if explain:
            cols[i % columns].caption(field_info(name)["help"])
    return out


def llm_option_widgets(prefix: str) -> dict[str, Any]:
    """Our departures from the paper's LLM agents (Appendix A's prompt, §3.2's start), each at the paper's
    setting by default; returns ``make_params`` keyword arguments."""
    with st.expander("Departures from the paper's agents (ours; the defaults are the paper's)"):
        c = st.columns(3)
        return {
            "initial_confidence": c[0].number_input(
                "Initial confidence", min_value=0.01, max_value=1.0, value=LLM_INITIAL_CONFIDENCE, step=0.05,
                key=f"{prefix}_initial_confidence", help=LLM_OPTION_HELP["initial_confidence"]),
            "pair_negations": c[1].checkbox("Start a statement held with its opposite at 0.5", value=False,
                                            key=f"{prefix}_pair_negations", help=LLM_OPTION_HELP["pair_negations"]),
            "negation_hint": c[2].checkbox("Tell agents opposites cannot both be true", value=False,
                                           key=f"{prefix}_negation_hint", help=LLM_OPTION_HELP["negation_hint"]),
        }


def parameter_form(prefix: str) -> tuple[bool, dict[str, Any], int, int]:
    """The simulation parameters in one form; returns (submitted, config kwargs, seed, runs). Widgets
    keep values inside the documented bounds; the config's own message reports anything else."""
    with st.form(f"{prefix}_form"):
        kw = config_widgets(prefix, FIRST_RUN_FIELDS, columns=4)
        with st.expander("Advanced: fact universe, acceptance, stopping, misinformation, who meets whom"):
            kw |= config_widgets(prefix, ADVANCED_FIELDS, columns=3, explain=True)
        c = st.columns(4)
        seed = c[0].number_input("Seed", min_value=0, max_value=MAX_SEED, value=0, step=1, key=f"{prefix}_seed")
        runs = c[1].number_input("Runs R", min_value=1, max_value=MAX_PAGE_RUNS, value=DEFAULT_PAGE_RUNS, step=1,
                                 key=f"{prefix}_runs", help="Independent runs (mean ± std); the player shows one.")
        submitted = st.form_submit_button("▶️ Run simulation", type="primary")
    return submitted, kw, int(seed), int(runs)


def summary_over_runs(summary: dict[str, Any], cap: int) -> None:
    """Mean ± std over R runs as st.metric."""
    c = st.columns(5)
    for col, (label, key) in zip(c, (("F1", "f1"), ("Precision", "precision"), ("Recall", "recall")), strict=False):
        col.metric(label, f"{summary[key]:.3f}", help=f"mean over {summary['runs']} runs")
        col.caption(f"± {summary[key + '_std']:.3f} (std)")
    c[3].metric("Rounds", f"{summary['rounds_mean']:.1f} / {cap}", help="mean rounds used")
    c[4].metric("Stopped by vote", f"{summary['converged_rate']:.0%}", help="share of runs that stopped by vote")


def path_caption(path: str) -> str:
    """Which code computed a simulation's rounds (a rule without a compiled kernel runs on numpy)."""
    return f"Rounds computed by: **{path}**" + ("" if path == beliefs.KERNEL_PATH else
                                                 " (no compiled kernel for this rule or size, or numba is "
                                                 "not installed or switched off)")


def summary_metrics(precision: float, recall: float, f1: float, rounds: int, cap: int, converged: bool) -> None:
    """F1, precision, recall, rounds and outcome as st.metric."""
    c = st.columns(5)
    c[0].metric("F1", f"{f1:.3f}")
    c[1].metric("Precision", f"{precision:.3f}")
    c[2].metric("Recall", f"{recall:.3f}")
    c[3].metric("Rounds", f"{rounds} / {cap}")
    c[4].metric("Stopped by vote", "yes" if converged else "no", help="No = the run hit the round cap.")


# ---------------------------------------------------------------------------------------------------
# Round player
# ---------------------------------------------------------------------------------------------------
def _still(fig: go.Figure, t: int) -> go.Figure:
    """One frame of an animated figure as a still figure (no play button / slider)."""
    out = go.Figure(data=fig.frames[t].data, layout=fig.layout)
    out.layout.updatemenus, out.layout.sliders = (), ()  # update_layout would merge, not clear
    out.update_layout(height=FIG_HEIGHT, margin={"t": 40, "b": 10})
    return out


def animated_figures(recording: Recording, domain: Domain, run: int = 0) -> dict[str, go.Figure]:
    """The engine's animated network, heatmap and metrics figures for one run."""
    return {"network": beliefs.network_figure(recording, domain, run),
            "heatmap": beliefs.belief_heatmap_figure(recording, domain, run),
            "metrics": beliefs.metrics_figure(recording, run)}


def _figure_cache(prefix: str, recording: Recording, run: int) -> dict[str, Any]:
    """Figures already built for this run of this recording, kept across reruns in the session. Building the
    animated figures takes about a second and each round's still figures a few tenths on two cores: without
    the cache every click and every played frame paid that again. The key is the recording's content, since
    cached simulation results come back as new objects on every rerun."""
    digest = hashlib.blake2b(recording.beliefs.tobytes(), digest_size=16)
    digest.update(recording.partners.tobytes())
    key = (digest.hexdigest(), run)
    cache = st.session_state.get(f"{prefix}_figures")
    if cache is None or cache["key"] != key:
        cache = st.session_state[f"{prefix}_figures"] = {"key": key, "rounds": {}}
    return cache


def _round_figures(cache: dict[str, Any], t: int) -> tuple[go.Figure, go.Figure, bool, go.Figure]:
    """Network, heatmap (with its clickable cell layer), whether the heatmap is clickable, and the metrics
    curve with round ``t`` marked: built once per round."""
    if t not in cache["rounds"]:
        figs = cache["animated"]
        heat = _still(figs["heatmap"], t)
        clickable = beliefs.add_cell_layer(heat)
        curve = go.Figure(data=figs["metrics"].data, layout=figs["metrics"].layout)  # no frames to copy
        curve.add_vline(x=t, line_dash="dot", line_color="grey")
        curve.update_layout(height=FIG_HEIGHT - 60)
        cache["rounds"][t] = (inert_figure(_still(figs["network"], t)), inert_figure(heat), clickable,
                              inert_figure(curve))
    return cache["rounds"][t]


def player(recording: Recording, domain: Domain, prefix: str, run: int = 0) -> None:
    """Play / pause / step / speed over the rounds of one run (the app's one step player), or plotly's own
    animation."""
    last = int(recording.active[:, run].sum())
    cache = _figure_cache(prefix, recording, run)
    if "animated" not in cache:
        cache["animated"] = animated_figures(recording, domain, run)
    figs = cache["animated"]
    mode = st.radio("View", ["Step player", "Plotly animation"], horizontal=True, key=f"{prefix}_view")
    if mode == "Plotly animation":
        if "inert" not in cache:  # the figures stay raw for the stills: the cell layer reads the heatmap's arrays
            cache["inert"] = {name: inert_figure(fig) for name, fig in figs.items()}
        for name in ("network", "heatmap", "metrics"):
            show_chart(cache["inert"][name], key=f"{prefix}_anim_{name}")
        return

    def frame(t: int) -> None:
        data = beliefs.round_data(recording, domain, run=run, t=t)
        st.markdown(f"**Round {t} of {last}** · F1 {data['f1']:.3f} · precision {data['precision']:.3f} · "
                    f"recall {data['recall']:.3f} · STOP votes {data['stop_share']:.0%}")
        network, heatmap, clickable, curve = _round_figures(cache, t)
        left, right = st.columns(2)
        net = show_chart(network, container=left, key=f"{prefix}_net", on_select="rerun",
                         selection_mode="points")
        _clicked_agent(net, prefix, recording.beliefs.shape[2])
        heat = show_chart(heatmap, container=right, key=f"{prefix}_heat",
                          on_select="rerun" if clickable else "ignore", selection_mode="points")
        _clicked_cell(heat, prefix, recording, domain)
        show_chart(curve, key=f"{prefix}_curve")
        st.caption(f"Network: {beliefs.network_legend()}. Heatmap: true facts left of the dashed line, false "
                   f"facts right; {beliefs.heatmap_legend()}; hover for the statement. "
                   "Click a node to inspect that agent, a heatmap cell to inspect that fact and agent.")
        inspector(recording, domain, prefix, run, t)

    step_player(prefix, last, frame, speed_label="Seconds per round", default_speed="0.5 s")


def _new_points(event: Any, seen_key: str) -> list[dict[str, Any]]:
    """The chart's selected points if they changed since last applied, else []. A selection persists
    over reruns of the same figure: applying it again would undo a choice made in a select box since."""
    selection = event.get("selection") if isinstance(event, Mapping) else None  # not a dict: chart not selectable
    points = list((selection or {}).get("points", []))
    mark = [(p.get("curve_number"), p.get("point_index")) for p in points]
    if mark == st.session_state.get(seen_key):
        return []
    st.session_state[seen_key] = mark
    return points


def _clicked_agent(event: Any, prefix: str, agents: int) -> None:
    """A click on an agent's node selects it in the agent inspector (the node trace follows the three
    edge traces; its points are :func:`beliefs.drawn_agents` in order). Runs before the inspector's
    widgets exist in this run: Streamlit refuses a widget's state set after it was drawn."""
    shown = beliefs.drawn_agents(agents)
    for point in _new_points(event, f"{prefix}_net_seen"):
        index = point.get("point_index", -1)
        if point.get("curve_number", -1) == 3 and 0 <= index < len(shown):
            st.session_state[f"{prefix}_agent"] = int(shown[index])


def _clicked_cell(event: Any, prefix: str, recording: Recording, domain: Domain) -> None:
    """A click on a heatmap cell selects its fact and its agent (row) in the inspector (before the
    inspector's widgets are drawn, as for nodes)."""
    cell = beliefs.clicked_cell(_new_points(event, f"{prefix}_heat_seen"), domain, recording.beliefs.shape[2])
    if cell is not None:
        st.session_state[f"{prefix}_fact"], st.session_state[f"{prefix}_agent"] = cell


def inspector(recording: Recording, domain: Domain, prefix: str, run: int, t: int) -> None:
    """Pick an agent (its beliefs over rounds, whom it met, what it sent and received) or a fact (who
    holds it at the current round)."""
    c = st.columns(2)
    agent = c[0].selectbox("Inspect agent (or click a node)", ["—", *range(recording.beliefs.shape[2])],
                           key=f"{prefix}_agent")
    facts = [int(f) for f in beliefs.fact_order(domain)]
    fact = c[1].selectbox("Inspect fact (or click a heatmap cell)", ["—", *facts], key=f"{prefix}_fact",
                          format_func=lambda f: f if f == "—" else
                          f"{'✅' if domain.truth[f] else '❌'} {domain.labels[f]}")
    if agent != "—":
        show_chart(beliefs.agent_figure(recording, domain, run, int(agent)), key=f"{prefix}_agent_fig")
        st.dataframe(pd.DataFrame(beliefs.agent_history(recording, domain, run, int(agent))), hide_index=True,
                     key=f"{prefix}_agent_rows")
    if fact != "—":
        holders = beliefs.fact_holders(recording, domain, run, int(fact), t)
        st.markdown(f"**{domain.labels[fact]}** ({'true' if domain.truth[fact] else 'false'}) after round {t}: "
                    + " · ".join(f"{group} {len(who)}" for group, who in holders.items()))
        st.dataframe(pd.DataFrame({"group": list(holders), "agents": [len(v) for v in holders.values()],
                                   "which": [", ".join(map(str, v[:40])) + (" …" if len(v) > 40 else "")
                                             for v in holders.values()]}), hide_index=True,
                     key=f"{prefix}_fact_rows")


# ---------------------------------------------------------------------------------------------------
# LLM runs
# ---------------------------------------------------------------------------------------------------
class LLMProgress:
    """Streams an LLM belief run's events into an st.status box and a progress bar."""

    def __init__(self, agents: int, rounds: int) -> None:
        self.total = max(1, agents * rounds)
        self.done = 0
        self.bar = st.progress(0.0, text="Starting…")
        self.status = st.status("LLM agents at work", expanded=True)

    def handle(self, event: Event) -> None:
        ev = parse_llm_progress(event.data or {}) if event.type == "progress" else None
        kind = event.type
        if isinstance(ev, AgentDone):
            self.done += 1
            flags = [f"{k.replace('_', ' ')} {n}" for k, n in (("unknown_facts", ev.unknown_facts),
                                                                ("malformed", ev.malformed)) if n]
            self.status.write(f"Round {ev.round} · agent {ev.agent} ({ev.model}): {ev.vote}, "
                              f"shared {ev.shared}" + (f" — {', '.join(flags)}" if flags else ""))
            self.bar.progress(min(1.0, self.done / self.total), text=f"round {ev.round}: {self.done} calls")
        elif isinstance(ev, AgentStarted):
            self.status.update(label=f"Round {ev.round}: agent {ev.agent} ({ev.model}) thinking…")
        elif isinstance(ev, BeliefRoundDone):
            self.status.markdown(f"**Round {ev.round} done** — F1 {ev.f1:.3f}, STOP share {ev.stop_share:.0%}")
        elif kind == "run_finished":
            self.bar.progress(1.0, text="Finished")
            self.status.update(label="LLM run finished", state="complete", expanded=False)
        elif kind == "run_failed":
            self.status.update(label="LLM run interrupted", state="error")


def render_llm_record(record: dict[str, Any] | LLMBeliefRecord, prefix: str) -> None:
    """Final metrics, counts, per-agent models and the same animation as a heuristic run."""
    rec = load_llm_record(record)
    f = rec.final
    summary_metrics(f.precision, f.recall, f.f1, f.rounds_used, rec.config.rounds, f.converged)
    st.caption(" · ".join(f"{k.replace('_', ' ')}: {v}" for k, v in rec.counts.items()) +
               f" · condition `{rec.condition}`")
    ours = departures(rec.negation_hint, rec.initial_confidence, rec.pair_negations)
    if ours:
        st.caption("Departures from the paper's agents (ours): " + "; ".join(ours) + ".")
    with st.expander("Per-agent model and accepted facts"):
        st.dataframe(pd.DataFrame({"agent": range(len(rec.agent_models)), "model": rec.agent_models,
                                   "liar": (rec.liars or [False] * len(rec.agent_models))}),
                     hide_index=True, key=f"{prefix}_models")
        st.write("Accepted: " + ("; ".join(rec.accepted) or "nothing"))
    recording, domain = recording_of(rec)
    player(recording, domain, prefix)


@st.cache_data(ttl=3600, max_entries=4, show_spinner="Running the paper's sweep under every reading…")
def _paper_runs(rule: str, seeds: int, runs: int) -> Any:
    return beliefs.reproduce(rule, seeds=seeds, runs=runs)


def reproduce_paper(prefix: str) -> None:
    """The "Reproduce the paper" controls and, once pressed, its report (the same on both belief pages)."""
    st.caption("Runs the paper's one-at-a-time sweep (13 configurations around its default, the values it names) "
               "under each reading of the model, and puts Tables 1, 2, 4, 5 and 6 beside the paper's numbers, with "
               "13-run samples (the paper's tables are over 13 runs).")
    q = st.columns(3)
    rule = q[0].selectbox("Update rule", beliefs.PAPER_RULES, index=len(beliefs.PAPER_RULES) - 1,
                          key=f"{prefix}_paper_rule", help="The paper's two rules (the reproduction covers these).")
    seeds = q[1].number_input("Seeds", min_value=1, max_value=20, value=2, key=f"{prefix}_paper_seeds")
    runs = q[2].number_input("Runs per seed", min_value=10, max_value=2000, value=100, key=f"{prefix}_paper_runs")
    if st.button("📄 Reproduce the paper", key=f"{prefix}_paper_go"):  # its own line: a fourth column cut it at 175 %
        st.session_state[f"{prefix}_paper_shown"] = True
    if st.session_state.get(f"{prefix}_paper_shown"):
        paper_report(_paper_runs(rule, int(seeds), int(runs)), f"{prefix}_paper")


def paper_report(rep: Any, prefix: str) -> None:
    """The paper's tables beside ours under every reading (the command's and the docs' tables), the sweep
    with the sentence behind each value, per configuration, residuals."""
    st.markdown(f"**Rule {rep.rule}** · {rep.configurations} configurations × {rep.seeds} seeds × {rep.runs} runs "
                "per reading")
    with st.expander("The sweep: each value and the sentence it comes from"):
        st.dataframe(beliefs.sweep_table(), hide_index=True, key=f"{prefix}_sweep")
    for i, (title, table) in enumerate(beliefs.printed_tables(rep)):
        st.markdown(f"**{title}**")
        st.dataframe(table, hide_index=True, key=f"{prefix}_t{i}")
    with st.expander("Per configuration"):
        st.dataframe(beliefs.per_configuration(rep), hide_index=True, key=f"{prefix}_per_config")
    st.markdown("**Residual differences**\n" + "\n".join(f"- {line}" for line in beliefs.residuals(rep)))


# ---------------------------------------------------------------------------------------------------
# Runs page
# ---------------------------------------------------------------------------------------------------
def render_beliefs_record(record: dict[str, Any], key: str) -> None:
    """Runs-page view of any belief record: LLM run (animated), simulation summary, or sweep tables. The
    record is validated once; a malformed one raises :class:`~ifworld.runs.records.RecordError`, which the Runs
    page shows with the run's id before anything of it is drawn."""
    rec = load_belief_record(record)
    if isinstance(rec, LLMBeliefRecord):
        render_llm_record(rec, f"{key}_llm")
    elif isinstance(rec, SimulationRecord):
        s = rec.summary
        summary_metrics(s.precision, s.recall, s.f1, round(s.rounds_mean), rec.config.rounds,
                        s.converged_rate >= 0.5)
        if rec.path:
            st.caption(path_caption(rec.path))
        st.dataframe(human_columns(rec.rows), key=f"{key}_rows")
    elif isinstance(rec, SweepRecord):
        st.caption(f"Sweep table: `{rec.out}` · {rec.chunks_done}/{rec.chunks_total} chunks")
        try:
            sweep_results(read_table(rec.out), f"{key}_sweep")
        except (OSError, ValueError):
            st.info("The sweep's table is not there yet (resume the run to finish it).")
    else:
        st.json(record, expanded=False)


register_renderer("beliefs", render_beliefs_record)
