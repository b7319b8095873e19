"""Type stub of the front door: the names listed here are what `ifworld.beliefs` exports (loaded lazily)."""

from .animation import (
    add_cell_layer as add_cell_layer,
)
from .animation import (
    agent_figure as agent_figure,
)
from .animation import (
    agent_history as agent_history,
)
from .animation import (
    belief_heatmap_figure as belief_heatmap_figure,
)
from .animation import (
    clicked_cell as clicked_cell,
)
from .animation import (
    drawn_agents as drawn_agents,
)
from .animation import (
    fact_holders as fact_holders,
)
from .animation import (
    fact_order as fact_order,
)
from .animation import (
    metrics_figure as metrics_figure,
)
from .animation import (
    network_figure as network_figure,
)
from .animation import (
    round_data as round_data,
)
from .config import (
    LLM_DEFAULTS as LLM_DEFAULTS,
)
from .config import (
    LLM_FIELDS as LLM_FIELDS,
)
from .config import (
    LLM_NO_RULE as LLM_NO_RULE,
)
from .config import (
    MAX_SEED as MAX_SEED,
)
from .config import (
    RULES as RULES,
)
from .config import (
    STRATEGIES as STRATEGIES,
)
from .config import (
    BeliefConfig as BeliefConfig,
)
from .config import (
    bounds_text as bounds_text,
)
from .config import (
    field_info as field_info,
)
from .domain import Domain as Domain
from .engine import (
    SimulationResult as SimulationResult,
)
from .engine import (
    recordable_runs as recordable_runs,
)
from .engine import (
    simulate as simulate,
)
from .engine import (
    summarise as summarise,
)
from .figures import (
    HAS_KALEIDO as HAS_KALEIDO,
)
from .figures import (
    figure1 as figure1,
)
from .figures import (
    figure2 as figure2,
)
from .figures import (
    figure_image as figure_image,
)
from .graph import recording_of as recording_of
from .llm_agents import make_params as make_params
from .paper import (
    per_configuration as per_configuration,
)
from .paper import (
    reproduce as reproduce,
)
from .paper import (
    residuals as residuals,
)
from .paper import (
    table1 as table1,
)
from .paper import (
    table4 as table4,
)
from .paper import (
    table5 as table5,
)
from .paper import (
    table6 as table6,
)
from .phase import crossing_table as crossing_table
from .phase import phase_both_rules as phase_both_rules
from .phase import phase_figure as phase_figure
from .recording import Recording as Recording
from .records import (
    AgentDone as AgentDone,
)
from .records import (
    AgentStarted as AgentStarted,
)
from .records import (
    BeliefRoundDone as BeliefRoundDone,
)
from .records import (
    LLMBeliefRecord as LLMBeliefRecord,
)
from .records import (
    SimulationRecord as SimulationRecord,
)
from .records import (
    SweepRecord as SweepRecord,
)
from .records import (
    load_belief_record as load_belief_record,
)
from .records import (
    load_llm_record as load_llm_record,
)
from .records import (
    parse_llm_progress as parse_llm_progress,
)
from .sweep import (
    SweepSpec as SweepSpec,
)
from .sweep import (
    parse_grid as parse_grid,
)
from .sweep import (
    partial_rows as partial_rows,
)
from .sweep import (
    read_table as read_table,
)
from .tables import (
    readable as readable,
)
from .tables import (
    table1_by_condition as table1_by_condition,
)
from .tables import (
    table2_by_fact_type as table2_by_fact_type,
)
from .tables import (
    table3_most_missed as table3_most_missed,
)
from .tables import (
    table4_strategy_by_condition as table4_strategy_by_condition,
)
from .tables import (
    table5_convergence as table5_convergence,
)
from .tables import (
    table6_top_configurations as table6_top_configurations,
)
from .workflows import (
    run_sweep_run as run_sweep_run,
)
from .workflows import (
    save_simulation as save_simulation,
)
from .workflows import (
    start_sweep as start_sweep,
)
from .workflows import (
    sweep_out as sweep_out,
)
