"""AppTest: the belief-exchange page (offline simulation, player, LLM section) and the sweep page."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from ifworld.runs.store import get_store

APP = str(Path(__file__).resolve().parents[2] / "app.py")
BELIEFS, SWEEP = "app_pages/beliefs.py", "app_pages/belief_sweep.py"


def open_page(page: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=90)
    at.switch_page(page)
    return at.run()


def submit(at: AppTest, label: str) -> AppTest:
    next(b for b in at.button if b.label == label).click()
    return at.run()


def charts(at: AppTest) -> list:
    return at.get("plotly_chart")


def test_belief_page_runs_default_offline_and_steps():
    at = open_page(BELIEFS)
    assert not at.exception
    assert "A language model is needed for" in " ".join(i.value for i in at.info)  # LLM section only
    at = submit(at, "▶️ Run simulation")
    assert not at.exception, at.exception
    labels = [m.label for m in at.metric]
    assert labels[:5] == ["F1", "Precision", "Recall", "Rounds", "Stopped by vote"]
    assert len(charts(at)) == 3  # network, heatmap, curves
    assert at.session_state["beliefs_t"] == 0
    at.button(key="beliefs_step").click().run()
    assert at.session_state["beliefs_t"] == 1
    assert any("Round 1 of" in m.value for m in at.markdown)
    assert get_store().list_runs(kind="beliefs")[0].workflow == "beliefs.simulate"
    at.radio(key="beliefs_view").set_value("Plotly animation").run()
    assert not at.exception and len(charts(at)) == 3


def test_belief_page_invalid_parameters_show_error():
    at = open_page(BELIEFS)
    assert at.number_input(key="beliefs_agents").min == 2  # widgets carry the config's bounds
    at.number_input(key="beliefs_facts").set_value(3)
    at.checkbox(key="beliefs_with_replacement").uncheck()  # 5 distinct true facts out of 3 pairs: impossible
    at = submit(at, "▶️ Run simulation")
    assert not at.exception
    assert "true_facts (5) cannot exceed facts (3)" in at.error[0].value
    assert not charts(at)


def test_belief_page_llm_run_with_fake_server(llm_env):
    at = open_page(BELIEFS)
    assert not at.exception
    at.number_input(key="beliefs_llm_agents").set_value(4)
    at.number_input(key="beliefs_llm_facts").set_value(6)
    at.number_input(key="beliefs_llm_rounds").set_value(3)
    at = submit(at, "🤖 Run LLM agents")
    assert not at.exception, at.exception
    record = at.session_state["beliefs_llm_record"]
    assert record["agent_models"] == ["fake-model"] * 4
    assert llm_env.count("beliefs.agent") == 4 * record["final"]["rounds_used"]
    assert "F1" in [m.label for m in at.metric]
    assert len(charts(at)) == 3


def test_belief_page_llm_start_options(llm_env):
    """The form starts agents as the paper does (§3.2: confidence 1, no 0.5 pairing); our options are named
    widgets, reach the prompts sent, and the run's view says they were on."""
    from ifworld.beliefs.config import LLM_INITIAL_CONFIDENCE

    def sent_users() -> list[str]:
        return [{m["role"]: m["content"] for m in r.body["messages"]}["user"] for r in llm_env.requests
                if r.path.endswith("/chat/completions")]

    at = open_page(BELIEFS)
    assert at.number_input(key="beliefs_llm_initial_confidence").value == LLM_INITIAL_CONFIDENCE == 1.0
    assert at.checkbox(key="beliefs_llm_pair_negations").value is False
    assert at.checkbox(key="beliefs_llm_negation_hint").value is False
    for key, value in (("agents", 4), ("facts", 6), ("true_facts", 2), ("false_facts", 1), ("rounds", 1)):
        at.number_input(key=f"beliefs_llm_{key}").set_value(value)
    at = submit(at, "🤖 Run LLM agents")
    assert not at.exception, at.exception
    record = at.session_state["beliefs_llm_record"]
    assert record["initial_confidence"] == 1.0 and not record["pair_negations"]
    assert all("— confidence 1.00" in u and "0.50" not in u for u in sent_users())
    assert not [c for c in at.caption if "Departures from the paper's agents (ours)" in c.value]
    llm_env.reset()
    at.number_input(key="beliefs_llm_initial_confidence").set_value(0.8)
    at.checkbox(key="beliefs_llm_pair_negations").check()
    at = submit(at, "🤖 Run LLM agents")
    assert not at.exception, at.exception
    record = at.session_state["beliefs_llm_record"]
    assert record["initial_confidence"] == 0.8 and record["pair_negations"]
    assert all("— confidence 0.80" in u and "1.00" not in u for u in sent_users())
    note = " ".join(c.value for c in at.caption if "Departures from the paper's agents (ours)" in c.value)
    assert "start at confidence 0.80" in note and "starts at 0.50, both" in note


def test_belief_page_llm_population_follows_the_topology(llm_env):
    from ifworld.beliefs.config import LLM_NO_RULE

    at = open_page(BELIEFS)
    assert LLM_NO_RULE in " ".join(c.value for c in at.caption)
    assert not [w for w in at.selectbox if w.key == "beliefs_llm_rule"]
    assert at.selectbox(key="beliefs_llm_strategy").value == "strategic"  # Table 4's switch, the paper's default
    at.number_input(key="beliefs_llm_agents").set_value(6)
    at.number_input(key="beliefs_llm_rounds").set_value(3)
    at.selectbox(key="beliefs_llm_topology").set_value("ring")
    at.number_input(key="beliefs_llm_degree").set_value(2)
    at = submit(at, "🤖 Run LLM agents")
    assert not at.exception, at.exception
    record = at.session_state["beliefs_llm_record"]
    assert record["config"]["topology"] == "ring" and record["config"]["degree"] == 2
    for partners in record["snapshots"]["partners"]:
        assert all(partners[p] == a and min((a - p) % 6, (p - a) % 6) == 1
                   for a, p in enumerate(partners) if p >= 0)


def test_sweep_page_runs_tiny_grid():
    at = open_page(SWEEP)
    assert not at.exception, at.exception
    for key, value in {"belief_sweep_agents": "6", "belief_sweep_facts": "5", "belief_sweep_rounds": "4",
                       "belief_sweep_false_facts": "1, 2", "belief_sweep_bandwidth": "2",
                       "belief_sweep_true_facts": "2"}.items():
        at.text_input(key=key).set_value(value)
    at.number_input(key="belief_sweep_runs").set_value(2)
    at.number_input(key="belief_sweep_seeds").set_value(1)
    at = submit(at, "Check grid")
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert "Runs" in [m.label for m in at.metric]
    at = submit(at, "🚀 Run sweep")
    assert not at.exception, at.exception
    assert len(at.dataframe) >= 6 and len(charts(at)) >= 2
    assert get_store().list_runs(kind="beliefs")[0].status == "completed"


def test_sweep_page_bad_yaml_names_key():
    at = open_page(SWEEP)
    at.radio(key="belief_sweep_source").set_value("YAML").run()
    at.text_area(key="belief_sweep_yaml").set_value("grid:\n  agentz: [5, 10]\n")
    at = submit(at, "Check grid")
    assert not at.exception
    assert "agentz" in at.error[0].value


def test_runs_page_renders_belief_records(llm_env):
    from ifworld import runs
    from ifworld.beliefs import workflows
    from ifworld.beliefs.config import BeliefConfig
    from ifworld.beliefs.engine import simulate
    from ifworld.beliefs.llm_agents import make_params

    workflows.save_simulation(simulate(BeliefConfig(agents=6, facts=5, rounds=4), seed=1, runs=2))
    runs.execute("beliefs.llm", make_params(BeliefConfig(agents=4, facts=5, rounds=2), seed=1))
    at = open_page("app_pages/runs.py")
    assert not at.exception, at.exception
    assert "F1" in [m.label for m in at.metric] and len(charts(at)) >= 3  # newest: the LLM run, animated


def test_sweep_page_reproduces_the_paper_and_traces_both_curves():
    at = open_page(SWEEP)
    at.number_input(key="belief_sweep_paper_seeds").set_value(1)
    at.number_input(key="belief_sweep_paper_runs").set_value(10)
    at.button(key="belief_sweep_paper_go").click()
    at = at.run()
    assert not at.exception, at.exception
    table1 = next(d.value for d in at.dataframe if "Paper (Table 1, heuristic)" in d.value)
    assert list(table1["Metric"]) == ["F1", "Precision", "Recall", "Rounds to converge"]
    assert list(table1["Paper (Table 1, heuristic)"]) == ["0.943 ± 0.100", "1.000 ± 0.000", "0.904 ± 0.144",
                                                          "17.7 ± 7.0"]
    assert "Ours: false facts never circulate" in table1
    assert any("Source" in d.value for d in at.dataframe)  # the sweep with the sentence behind each value
    assert any("Residual differences" in m.value for m in at.markdown)
    at.number_input(key="belief_sweep_phase_hi").set_value(4)
    at.number_input(key="belief_sweep_phase_runs").set_value(10)
    at = submit(at, "📉 Trace")
    assert not at.exception, at.exception
    crossings = next(d.value for d in at.dataframe if "Curve" in d.value)
    assert set(crossings["Rule"]) == {"additive", "bounded"} and set(crossings["Curve"]) == {"lock share",
                                                                                            "false majority"}


def test_belief_page_large_llm_run_needs_confirmation(llm_env):
    at = open_page(BELIEFS)
    at.number_input(key="beliefs_llm_agents").set_value(50)
    at.number_input(key="beliefs_llm_rounds").set_value(5)  # 250 calls > CONFIRM_CALLS = 200
    at = submit(at, "🤖 Run LLM agents")
    assert not at.exception, at.exception
    assert any("tick the confirmation box" in w.value for w in at.warning)
    assert llm_env.count("beliefs.agent") == 0 and "beliefs_llm_record" not in at.session_state


def test_belief_page_runs_r_seeds_and_inspects_agent_and_fact():
    at = open_page(BELIEFS)
    at.number_input(key="beliefs_runs").set_value(5)
    at = submit(at, "▶️ Run simulation")
    assert not at.exception, at.exception
    assert any("± " in c.value for c in at.caption)  # mean ± std over the R runs
    at.selectbox(key="beliefs_pick_run").set_value(3).run()
    at.selectbox(key="beliefs_agent").set_value(2).run()
    assert not at.exception, at.exception
    assert any("met" in d.value for d in at.dataframe)
    at.selectbox(key="beliefs_fact").select_index(1).run()
    assert not at.exception, at.exception
    groups = next(d.value for d in at.dataframe if "group" in d.value)
    assert groups["agents"].sum() == 20  # every agent in one group: believes it / its negation / ...


def test_belief_page_keeps_r_within_the_recording_bound():
    at = open_page(BELIEFS)
    at.number_input(key="beliefs_agents").set_value(200)
    at.number_input(key="beliefs_facts").set_value(100)  # 200 x 200 x 21 cells per run: 23 runs fit
    at.number_input(key="beliefs_runs").set_value(100)
    at = submit(at, "▶️ Run simulation")
    assert not at.exception, at.exception
    assert any("at most 23 runs" in i.value for i in at.info)
    assert at.session_state["beliefs_run"][2] == 23


def test_every_parameter_is_in_view_or_under_advanced_once() -> None:
    from ifworld.beliefs import BeliefConfig
    from ui.beliefs_view import ADVANCED_FIELDS, FIRST_RUN_FIELDS
    shown = FIRST_RUN_FIELDS + ADVANCED_FIELDS
    assert len(shown) == len(set(shown))
    assert set(shown) == set(BeliefConfig.model_fields)
    assert set(FIRST_RUN_FIELDS) == {"agents", "true_facts", "false_facts", "bandwidth", "strategy", "rule", "rounds"}


def test_belief_page_groups_parameters_and_offers_the_paper() -> None:
    at = open_page(BELIEFS)
    advanced = [e for e in at.expander if e.label.startswith("Advanced")]
    assert len(advanced) == 1
    inside = {w.key for w in advanced[0].number_input} | {w.key for w in advanced[0].selectbox}
    assert "beliefs_threshold" in inside and "beliefs_topology" in inside and "beliefs_agents" not in inside
    assert "The collective accepts a fact whose mean confidence exceeds this." in [c.value for c in advanced[0].caption]
    at.number_input(key="beliefs_paper_seeds").set_value(1)
    at.number_input(key="beliefs_paper_runs").set_value(10)
    at.button(key="beliefs_paper_go").click().run(timeout=300)
    assert not at.exception, at.exception
    assert any("Table 1" in m.value for m in at.markdown)


def _set_size(at: AppTest, **values) -> None:
    for name, value in values.items():
        widget = next(w for w in at.main if getattr(w, "key", None) == f"beliefs_{name}")
        widget.set_value(value)


def test_belief_page_refuses_a_huge_graph_before_building_it():
    at = open_page(BELIEFS)
    _set_size(at, agents=100_000, topology="ring", degree=1000)
    at = submit(at, "▶️ Run simulation")
    assert not at.exception
    assert "50,000,000 edges" in at.error[0].value and "MAX_EDGES" in at.error[0].value
    assert not charts(at)


def test_belief_page_shows_the_estimate_and_asks_before_a_long_simulation():
    at = open_page(BELIEFS)
    _set_size(at, agents=2000, facts=1, topology="ring", degree=500, rounds=100)
    at = submit(at, "▶️ Run simulation")
    assert not at.exception
    warning = " ".join(w.value for w in at.warning)
    assert "estimated at about" in warning and "min" in warning
    assert any(b.key == "beliefs_confirm" for b in at.button) and not charts(at)  # nothing ran yet


def test_sweep_page_asks_before_timing_or_running_a_long_grid():
    at = open_page(SWEEP)
    for key, value in {"belief_sweep_agents": "100000", "belief_sweep_facts": "100", "belief_sweep_rounds": "1000",
                       "belief_sweep_bandwidth": "1, 2"}.items():
        at.text_input(key=key).set_value(value)
    at = submit(at, "Check grid")
    assert not at.exception, at.exception
    assert any("estimated from its parameters at about" in c.label for c in at.checkbox)
    assert "Estimated time" not in [m.label for m in at.metric]  # no task of this grid was timed
    assert not [b for b in at.button if b.key == "belief_sweep_run"]
