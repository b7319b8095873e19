"""Type stub of the front door: the names listed here are what `ifworld.whatif` exports (loaded lazily)."""

from .causal import (
    MAX_CYCLE_LENGTH as MAX_CYCLE_LENGTH,
    MAX_CYCLES as MAX_CYCLES,
    build_causal_graph as build_causal_graph,
    causal_figure as causal_figure,
    causal_legend as causal_legend,
    domain_heatmap as domain_heatmap,
    domains_of as domains_of,
    edge_rows as edge_rows,
    feedback_loops as feedback_loops,
    filter_graph as filter_graph,
    graph_domain_edges as graph_domain_edges,
    heatmap_legend as heatmap_legend,
    influential_nodes as influential_nodes,
)
from .compare import (
    JUDGE_LABELS as JUDGE_LABELS,
    JUDGE_MAXIMA as JUDGE_MAXIMA,
    judge_bars as judge_bars,
    judge_radar as judge_radar,
    judge_scores as judge_scores,
    report_sections as report_sections,
    run_label as run_label,
    tokens_text as tokens_text,
    usage_of as usage_of,
    usage_table as usage_table,
)
from .consistency import CHECKS as CHECKS
from .custom_experts import (
    MAX_CUSTOM_PERSONA_CHARS as MAX_CUSTOM_PERSONA_CHARS,
    MAX_EXPERT_NAME_CHARS as MAX_EXPERT_NAME_CHARS,
    CustomExpertError as CustomExpertError,
    add_custom_expert as add_custom_expert,
    custom_experts as custom_experts,
    delete_custom_expert as delete_custom_expert,
    sync_custom_experts as sync_custom_experts,
)
from .evaluate import EvalResult as EvalResult, run_eval as run_eval
from .experts import (
    EXPERTS as EXPERTS,
    MAX_EXPERTS as MAX_EXPERTS,
    ExpertSpec as ExpertSpec,
    default_experts as default_experts,
    expert_from_file as expert_from_file,
    known_experts as known_experts,
)
from .figures import calibration_figure as calibration_figure, scenario_figure as scenario_figure
from .graph import round_records as round_records
from .judge import judge_record as judge_record, report_markdown as report_markdown
from .method_spec import ParamField as ParamField
from .methods import METHOD_REGISTRY as METHOD_REGISTRY, MethodSpec as MethodSpec
from .numbers import confidence as confidence, interval as interval, num as num, pct as pct
from .params import default_params as default_params, estimate_calls as estimate_calls
from .progress import (
    describe as describe,
    estimate as estimate,
    session_progress as session_progress,
    step_label as step_label,
)
from .propositions import (
    ABLATION_PROPOSITION as ABLATION_PROPOSITION,
    CLASSROOM_PRESETS as CLASSROOM_PRESETS,
    MAX_PROPOSITION_CHARS as MAX_PROPOSITION_CHARS,
    PAPER_PROPOSITIONS as PAPER_PROPOSITIONS,
    normalize_experts as normalize_experts,
    suggest_experts as suggest_experts,
    validate_proposition as validate_proposition,
    workflow_name as workflow_name,
)
from .reading import readings as readings, short_reads as short_reads, tokens_by_role as tokens_by_role
from .records import (
    BaselineStepDone as BaselineStepDone,
    ExpertDone as ExpertDone,
    ExpertFailed as ExpertFailed,
    ExpertStarted as ExpertStarted,
    Frame as Frame,
    FrameBuilt as FrameBuilt,
    FrameDiff as FrameDiff,
    JudgeResult as JudgeResult,
    PhaseEvent as PhaseEvent,
    RecordError as RecordError,
    ReportDone as ReportDone,
    RoundDone as RoundDone,
    RoundRecord as RoundRecord,
    WhatIfRecord as WhatIfRecord,
    has_content as has_content,
    load_record as load_record,
    parse_progress as parse_progress,
)
from .report import render_report_markdown as render_report_markdown
from .review import (
    EDITABLE as EDITABLE,
    FIELD_LABELS as FIELD_LABELS,
    BetweenRoundsAsk as BetweenRoundsAsk,
    ReviewAsk as ReviewAsk,
    ReviewError as ReviewError,
    check_answer as check_answer,
    field_lines as field_lines,
    parse_ask as parse_ask,
)
from .room import FACILITATOR_AUTHOR as FACILITATOR_AUTHOR, MAX_ROOM_TEXT_CHARS as MAX_ROOM_TEXT_CHARS
from .run_params import RunParams as RunParams, param_info as param_info, size_fields as size_fields
from .schemas import (
    ADJUDICATION_RULES as ADJUDICATION_RULES,
    Conflict as Conflict,
    ExpertOutput as ExpertOutput,
    Report as Report,
    Scenario as Scenario,
)
from .sections import (
    contribution_rows as contribution_rows,
    scenario_markdown as scenario_markdown,
    session_markdown as session_markdown,
)
from .service import continue_run as continue_run
from .session import (
    PAUSED as PAUSED,
    RUNNING as RUNNING,
    Action as Action,
    Session as Session,
    SessionError as SessionError,
    State as State,
    cancel_session as cancel_session,
    drive_session as drive_session,
    load_session as load_session,
    paused_state as paused_state,
    pending_asks as pending_asks,
    start_session as start_session,
)
from .steps import record_steps as record_steps
from .workshop import (
    allow_participants as allow_participants,
    close_workshop as close_workshop,
    continue_workshop as continue_workshop,
    contribute as contribute,
    decide as decide,
    find_by_code as find_by_code,
    find_by_token as find_by_token,
    has_workshop as has_workshop,
    hide_contribution as hide_contribution,
    join_workshop as join_workshop,
    load_workshop as load_workshop,
    open_workshop as open_workshop,
    participant_for as participant_for,
    predict as predict,
    reveal_workshop as reveal_workshop,
    scenario_of as scenario_of,
    vote as vote,
)
from .workshop_export import compare_room as compare_room, reveal_table as reveal_table
from .workshop_models import (
    DIRECTIONS as DIRECTIONS,
    KINDS as KINDS,
    MAX_CONTRIBUTION_CHARS as MAX_CONTRIBUTION_CHARS,
    MAX_NAME_CHARS as MAX_NAME_CHARS,
    MAX_TAG_CHARS as MAX_TAG_CHARS,
    NO_GROUND_TRUTH as NO_GROUND_TRUTH,
    Contribution as Contribution,
    Participant as Participant,
    Workshop as Workshop,
    WorkshopRecord as WorkshopRecord,
    branches as branches,
    even_split as even_split,
    indicator_names as indicator_names,
)
from .workshop_names import NAME_CHARS_HELP as NAME_CHARS_HELP
from .workshop_roster import (
    RosterCode as RosterCode,
    join_with_code as join_with_code,
    release_code as release_code,
    set_roster as set_roster,
)
