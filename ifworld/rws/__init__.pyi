"""Type stub of the front door: the names listed here are what `ifworld.rws` exports (loaded lazily)."""

from .benchmark import (
    WORKFLOW as WORKFLOW,
    benchmark_params as benchmark_params,
    cost_frame as cost_frame,
    estimate_calls as estimate_calls,
    list_benchmarks as list_benchmarks,
    load_sample as load_sample,
    parse_list as parse_list,
    progress_of as progress_of,
    regrade as regrade,
    results_frame as results_frame,
    start_benchmark as start_benchmark,
    table1 as table1,
    table2 as table2,
    to_csv as to_csv,
    to_json as to_json,
    total_tasks as total_tasks,
)
from .dataset import (
    DatasetTooLarge as DatasetTooLarge,
    LoadResult as LoadResult,
    RWSItem as RWSItem,
    group_items as group_items,
    load_items as load_items,
)
from .display import answer_latex as answer_latex, item_label as item_label, plain_text as plain_text
from .grading import (
    INTERACTIVE_TIMEOUT_S as INTERACTIVE_TIMEOUT_S,
    CheckResult as CheckResult,
    GradeReport as GradeReport,
    ItemGrade as ItemGrade,
    Verifier as Verifier,
    check as check,
    grade_item as grade_item,
    grade_many as grade_many,
)
from .patterns.run import run_pattern as run_pattern
from .patterns.spec import PATTERN_REGISTRY as PATTERN_REGISTRY, PatternSpec as PatternSpec
from .records import (
    BenchmarkRecord as BenchmarkRecord,
    Grade as Grade,
    RecordError as RecordError,
    TraceEntry as TraceEntry,
    load_benchmark_record as load_benchmark_record,
    load_grade as load_grade,
)
from .verifier import LLMVerifier as LLMVerifier, grade_output as grade_output
