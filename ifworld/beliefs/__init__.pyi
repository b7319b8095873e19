"""Type stub of the front door: the names listed here are what `ifworld.beliefs` exports (loaded lazily)."""

from .animation import (
    add_cell_layer as add_cell_layer,
    agent_figure as agent_figure,
    agent_history as agent_history,
    belief_heatmap_figure as belief_heatmap_figure,
    clicked_cell as clicked_cell,
    drawn_agents as drawn_agents,
    fact_holders as fact_holders,
    fact_order as fact_order,
    heatmap_legend as heatmap_legend,
    metrics_figure as metrics_figure,
    network_figure as network_figure,
    network_legend as network_legend,
    round_data as round_data,
)
from .config import (
    LLM_DEFAULTS as LLM_DEFAULTS,
    LLM_FIELDS as LLM_FIELDS,
    LLM_INITIAL_CONFIDENCE as LLM_INITIAL_CONFIDENCE,
    LLM_NO_RULE as LLM_NO_RULE,
    LLM_OPTION_HELP as LLM_OPTION_HELP,
    MAX_SEED as MAX_SEED,
    STRATEGIES as STRATEGIES,
    BeliefConfig as BeliefConfig,
    bounds_text as bounds_text,
    field_info as field_info,
)
from .cost import CostEstimate as CostEstimate, estimate_cost as estimate_cost, sweep_cost as sweep_cost
from .domain import Domain as Domain
from .engine import (
    KERNEL_PATH as KERNEL_PATH,
    SimulationResult as SimulationResult,
    check_size as check_size,
    recordable_runs as recordable_runs,
    simulate as simulate,
    summarise as summarise,
)
from .figures import HAS_KALEIDO as HAS_KALEIDO, figure1 as figure1, figure2 as figure2, figure_image as figure_image
from .graph import recording_of as recording_of
from .llm_agents import departures as departures, make_params as make_params
from .paper import (
    per_configuration as per_configuration,
    printed_tables as printed_tables,
    reproduce as reproduce,
    residuals as residuals,
    sweep_table as sweep_table,
)
from .paper_numbers import PAPER_BOTH as PAPER_BOTH, PAPER_RULES as PAPER_RULES
from .phase import crossing_table as crossing_table, phase_both_rules as phase_both_rules, phase_figure as phase_figure
from .recording import Recording as Recording
from .records import (
    AgentDone as AgentDone,
    AgentStarted as AgentStarted,
    BeliefRoundDone as BeliefRoundDone,
    LLMBeliefRecord as LLMBeliefRecord,
    SimulationRecord as SimulationRecord,
    SweepRecord as SweepRecord,
    load_belief_record as load_belief_record,
    load_llm_record as load_llm_record,
    parse_llm_progress as parse_llm_progress,
)
from .rules import (
    SCRATCH_ROWS as SCRATCH_ROWS,
    UPDATE_RULES as UPDATE_RULES,
    RuleSpec as RuleSpec,
    UpdateRule as UpdateRule,
    rule_names as rule_names,
)
from .sweep import (
    SweepSpec as SweepSpec,
    parse_grid as parse_grid,
    partial_rows as partial_rows,
    read_table as read_table,
)
from .sweep_estimate import SweepEstimate as SweepEstimate, estimate_sweep as estimate_sweep
from .tables import (
    readable as readable,
    table1_by_condition as table1_by_condition,
    table2_by_fact_type as table2_by_fact_type,
    table3_most_missed as table3_most_missed,
    table4_strategy_by_condition as table4_strategy_by_condition,
    table5_convergence as table5_convergence,
    table6_top_configurations as table6_top_configurations,
)
from .topology import TOPOLOGIES as TOPOLOGIES, TopologySpec as TopologySpec
from .workflows import (
    run_sweep_run as run_sweep_run,
    save_simulation as save_simulation,
    start_sweep as start_sweep,
    sweep_out as sweep_out,
)
