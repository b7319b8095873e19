"""Type stub of the front door: the names listed here are what `ifworld.whatif` exports (loaded lazily)."""

from .causal import (
    MAX_CYCLE_LENGTH as MAX_CYCLE_LENGTH,
)
from .causal import (
    MAX_CYCLES as MAX_CYCLES,
)
from .causal import (
    build_causal_graph as build_causal_graph,
)
from .causal import (
    causal_figure as causal_figure,
)
from .causal import (
    domain_heatmap as domain_heatmap,
)
from .causal import (
    domains_of as domains_of,
)
from .causal import (
    edge_rows as edge_rows,
)
from .causal import (
    feedback_loops as feedback_loops,
)
from .causal import (
    filter_graph as filter_graph,
)
from .causal import (
    graph_domain_edges as graph_domain_edges,
)
from .causal import (
    influential_nodes as influential_nodes,
)
from .compare import (
    JUDGE_LABELS as JUDGE_LABELS,
)
from .compare import (
    JUDGE_MAXIMA as JUDGE_MAXIMA,
)
from .compare import (
    changed_keys as changed_keys,
)
from .compare import (
    judge_bars as judge_bars,
)
from .compare import (
    judge_radar as judge_radar,
)
from .compare import (
    judge_scores as judge_scores,
)
from .compare import (
    report_sections as report_sections,
)
from .compare import (
    usage_of as usage_of,
)
from .compare import (
    usage_table as usage_table,
)
from .consistency import CHECKS as CHECKS
from .evaluate import EvalResult as EvalResult
from .evaluate import run_eval as run_eval
from .figures import calibration_figure as calibration_figure
from .figures import scenario_figure as scenario_figure
from .graph import round_records as round_records
from .judge import judge_record as judge_record
from .judge import judge_report as judge_report
from .numbers import (
    confidence as confidence,
)
from .numbers import (
    interval as interval,
)
from .numbers import (
    num as num,
)
from .numbers import (
    pct as pct,
)
from .params import RECORD_KEYS as RECORD_KEYS
from .params import default_params as default_params
from .params import estimate_calls as estimate_calls
from .progress import Estimate as Estimate
from .progress import estimate as estimate
from .progress import progress as progress
from .propositions import (
    ABLATION_PROPOSITION as ABLATION_PROPOSITION,
)
from .propositions import (
    CLASSROOM_PRESETS as CLASSROOM_PRESETS,
)
from .propositions import (
    DEFAULT_EXPERTS as DEFAULT_EXPERTS,
)
from .propositions import (
    KNOWN_EXPERTS as KNOWN_EXPERTS,
)
from .propositions import (
    MAX_BREADTH as MAX_BREADTH,
)
from .propositions import (
    MAX_DEBATE_ROUNDS as MAX_DEBATE_ROUNDS,
)
from .propositions import (
    MAX_DEPTH as MAX_DEPTH,
)
from .propositions import (
    MAX_PROPOSITION_CHARS as MAX_PROPOSITION_CHARS,
)
from .propositions import (
    METHODS as METHODS,
)
from .propositions import (
    PAPER_PROPOSITIONS as PAPER_PROPOSITIONS,
)
from .propositions import (
    normalize_experts as normalize_experts,
)
from .propositions import (
    suggest_experts as suggest_experts,
)
from .propositions import (
    validate_proposition as validate_proposition,
)
from .propositions import (
    workflow_name as workflow_name,
)
from .records import (
    BaselineStepDone as BaselineStepDone,
)
from .records import (
    ExpertDone as ExpertDone,
)
from .records import (
    ExpertFailed as ExpertFailed,
)
from .records import (
    ExpertStarted as ExpertStarted,
)
from .records import (
    Frame as Frame,
)
from .records import (
    FrameBuilt as FrameBuilt,
)
from .records import (
    FrameDiff as FrameDiff,
)
from .records import (
    JudgeResult as JudgeResult,
)
from .records import (
    PhaseEvent as PhaseEvent,
)
from .records import (
    RecordError as RecordError,
)
from .records import (
    ReportDone as ReportDone,
)
from .records import (
    RoundDone as RoundDone,
)
from .records import (
    RoundRecord as RoundRecord,
)
from .records import (
    WhatIfRecord as WhatIfRecord,
)
from .records import (
    load_record as load_record,
)
from .records import (
    parse_progress as parse_progress,
)
from .report import REPORT_SECTIONS as REPORT_SECTIONS
from .report import render_report_markdown as render_report_markdown
from .review import (
    PARTICIPANT as PARTICIPANT,
)
from .review import (
    PARTICIPANT_MAX_CHARS as PARTICIPANT_MAX_CHARS,
)
from .review import (
    BetweenRoundsAsk as BetweenRoundsAsk,
)
from .review import (
    ReviewAsk as ReviewAsk,
)
from .review import (
    ReviewError as ReviewError,
)
from .review import (
    check_answer as check_answer,
)
from .review import (
    parse_ask as parse_ask,
)
from .schemas import (
    ADJUDICATION_RULES as ADJUDICATION_RULES,
)
from .schemas import (
    Conflict as Conflict,
)
from .schemas import (
    ExpertOutput as ExpertOutput,
)
from .schemas import (
    Report as Report,
)
from .service import paused_state as paused_state
from .service import pending_asks as pending_asks
from .steps import record_steps as record_steps
