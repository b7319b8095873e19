"""Each engine's front door is a deliberate list (issue #41): ``__all__`` holds what a user or an extension needs
and what pages, ui/ and the CLI import (they may import nothing else, tests/test_house_rules.py) — nothing for
tests alone. A name added or dropped changes this file in the same commit, so growth is a decision, not drift."""

from __future__ import annotations

import importlib

import pytest

FRONT_DOORS: dict[str, tuple[str, ...]] = {
    "whatif": (
    "ABLATION_PROPOSITION", "Action", "add_custom_expert", "ADJUDICATION_RULES", "allow_participants",
    "BaselineStepDone", "BetweenRoundsAsk", "branches", "build_causal_graph", "calibration_figure",
    "cancel_session", "causal_figure", "causal_legend", "check_answer", "CHECKS", "CLASSROOM_PRESETS",
    "close_workshop", "compare_room", "confidence", "Conflict", "continue_run", "continue_workshop",
    "contribute", "Contribution", "contribution_rows", "custom_experts", "CustomExpertError", "decide",
    "default_experts", "default_params", "delete_custom_expert", "describe", "DIRECTIONS", "domain_heatmap",
    "domains_of", "drive_session", "edge_rows", "EDITABLE", "estimate", "estimate_calls", "EvalResult",
    "even_split", "expert_from_file", "ExpertDone", "ExpertFailed", "ExpertOutput", "EXPERTS", "ExpertSpec",
    "ExpertStarted", "FACILITATOR_AUTHOR", "feedback_loops", "FIELD_LABELS", "field_lines", "filter_graph",
    "find_by_code", "find_by_token", "Frame", "FrameBuilt", "FrameDiff", "graph_domain_edges", "has_content",
    "has_workshop", "heatmap_legend", "hide_contribution", "indicator_names", "influential_nodes", "interval",
    "join_with_code", "join_workshop", "judge_bars", "JUDGE_LABELS", "JUDGE_MAXIMA", "judge_radar",
    "judge_record", "judge_scores", "JudgeResult", "KINDS", "report_markdown", "known_experts", "load_record",
    "load_session",
    "load_workshop", "MAX_CONTRIBUTION_CHARS", "MAX_CUSTOM_PERSONA_CHARS", "MAX_CYCLE_LENGTH",
    "MAX_CYCLES", "MAX_EXPERT_NAME_CHARS", "MAX_EXPERTS", "MAX_NAME_CHARS",
    "MAX_PROPOSITION_CHARS", "MAX_ROOM_TEXT_CHARS", "MAX_TAG_CHARS", "METHOD_REGISTRY", "MethodSpec",
    "NAME_CHARS_HELP", "NO_GROUND_TRUTH", "normalize_experts", "num", "open_workshop", "PAPER_PROPOSITIONS",
    "param_info", "ParamField", "parse_ask", "parse_progress", "Participant", "participant_for", "PAUSED",
    "paused_state", "pct",
    "pending_asks", "PhaseEvent", "predict", "readings", "record_steps", "RecordError", "release_code",
    "render_report_markdown", "Report", "report_sections", "ReportDone", "reveal_table", "reveal_workshop",
    "ReviewAsk", "ReviewError", "RosterCode", "round_records", "RoundDone", "RoundRecord", "run_eval",
    "run_label", "RunParams", "RUNNING", "Scenario", "scenario_figure", "scenario_markdown", "scenario_of", "Session",
    "session_markdown", "session_progress", "SessionError", "set_roster", "short_reads", "size_fields", "start_session",
    "State", "step_label", "suggest_experts", "sync_custom_experts", "tokens_by_role", "tokens_text",
    "usage_of", "usage_table", "validate_proposition", "vote", "WhatIfRecord", "workflow_name", "Workshop",
    "WorkshopRecord",
    ),
    "rws": (
    "answer_latex", "benchmark_params", "BenchmarkRecord", "check", "CheckResult", "cost_frame",
    "DatasetTooLarge", "estimate_calls", "Grade", "grade_item", "grade_many", "grade_output", "GradeReport",
    "group_items", "INTERACTIVE_TIMEOUT_S", "item_label", "ItemGrade", "list_benchmarks", "LLMVerifier",
    "load_benchmark_record", "load_grade", "load_items", "load_sample", "LoadResult", "parse_list",
    "PATTERN_REGISTRY", "PatternSpec", "plain_text", "progress_of", "RecordError", "regrade", "results_frame",
    "run_pattern", "RWSItem", "start_benchmark", "table1", "table2", "to_csv", "to_json", "total_tasks",
    "TraceEntry", "Verifier", "WORKFLOW",
    ),
    "beliefs": (
    "add_cell_layer", "agent_figure", "agent_history", "AgentDone", "AgentStarted", "belief_heatmap_figure",
    "BeliefConfig", "BeliefRoundDone", "bounds_text", "check_size", "clicked_cell", "CostEstimate",
    "crossing_table", "departures", "Domain", "drawn_agents", "estimate_cost", "estimate_sweep", "fact_holders",
    "fact_order", "field_info", "figure1", "figure2", "figure_image", "HAS_KALEIDO", "heatmap_legend",
    "KERNEL_PATH", "LLM_DEFAULTS", "LLM_FIELDS", "LLM_INITIAL_CONFIDENCE", "LLM_NO_RULE", "LLM_OPTION_HELP",
    "LLMBeliefRecord", "load_belief_record", "load_llm_record", "make_params", "MAX_SEED", "metrics_figure",
    "network_figure", "network_legend", "PAPER_BOTH", "PAPER_RULES", "parse_grid", "parse_llm_progress",
    "partial_rows", "per_configuration", "phase_both_rules", "phase_figure", "printed_tables", "read_table",
    "readable", "recordable_runs", "Recording", "recording_of", "reproduce", "residuals", "round_data",
    "rule_names", "RuleSpec", "run_sweep_run", "save_simulation", "SCRATCH_ROWS", "simulate",
    "SimulationRecord", "SimulationResult", "start_sweep", "STRATEGIES", "summarise", "sweep_cost", "sweep_out",
    "sweep_table", "SweepEstimate", "SweepRecord", "SweepSpec", "table1_by_condition", "table2_by_fact_type",
    "table3_most_missed", "table4_strategy_by_condition", "table5_convergence", "table6_top_configurations",
    "TOPOLOGIES", "TopologySpec", "UPDATE_RULES", "UpdateRule",
    ),
}
"""The exported names of each engine; their count is printed by the test's id so a review sees it move."""


@pytest.mark.parametrize("engine", sorted(FRONT_DOORS))
def test_the_front_door_exports_exactly_its_list(engine: str) -> None:
    exported = importlib.import_module(f"ifworld.{engine}").__all__
    listed = FRONT_DOORS[engine]
    assert len(set(listed)) == len(listed), "a name listed twice"
    added, dropped = sorted(set(exported) - set(listed)), sorted(set(listed) - set(exported))
    assert (added, dropped) == ([], []), f"{engine}: {len(exported)} names; update FRONT_DOORS deliberately"
    assert len(exported) == len(listed)


def test_the_extension_points_and_their_spec_types_are_on_the_front_doors() -> None:
    """What docs/extending.md tells an extension to import comes from the front door, not a submodule."""
    needed = {"whatif": {"EXPERTS", "ExpertSpec", "expert_from_file", "METHOD_REGISTRY", "MethodSpec"},
              "rws": {"PATTERN_REGISTRY", "PatternSpec"},
              "beliefs": {"UPDATE_RULES", "RuleSpec", "SCRATCH_ROWS", "TOPOLOGIES", "TopologySpec"}}
    for engine, names in needed.items():
        assert names <= set(FRONT_DOORS[engine]), engine
