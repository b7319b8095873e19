"""Type stub of the front door: the names listed here are what `ifworld.rws` exports (loaded lazily)."""

from .benchmark import (
    WORKFLOW as WORKFLOW,
)
from .benchmark import (
    benchmark_params as benchmark_params,
)
from .benchmark import (
    cost_frame as cost_frame,
)
from .benchmark import (
    estimate_calls as estimate_calls,
)
from .benchmark import (
    list_benchmarks as list_benchmarks,
)
from .benchmark import (
    load_sample as load_sample,
)
from .benchmark import (
    parse_list as parse_list,
)
from .benchmark import (
    progress_of as progress_of,
)
from .benchmark import (
    regrade as regrade,
)
from .benchmark import (
    results_frame as results_frame,
)
from .benchmark import (
    start_benchmark as start_benchmark,
)
from .benchmark import (
    table1 as table1,
)
from .benchmark import (
    table2 as table2,
)
from .benchmark import (
    to_csv as to_csv,
)
from .benchmark import (
    to_json as to_json,
)
from .benchmark import (
    total_tasks as total_tasks,
)
from .dataset import (
    DatasetTooLarge as DatasetTooLarge,
)
from .dataset import (
    LoadResult as LoadResult,
)
from .dataset import (
    RWSItem as RWSItem,
)
from .dataset import (
    group_items as group_items,
)
from .dataset import (
    load_items as load_items,
)
from .grading import (
    DEFAULT_TIMEOUT_S as DEFAULT_TIMEOUT_S,
)
from .grading import (
    TYPES as TYPES,
)
from .grading import (
    CheckResult as CheckResult,
)
from .grading import (
    GradeReport as GradeReport,
)
from .grading import (
    ItemGrade as ItemGrade,
)
from .grading import (
    Verifier as Verifier,
)
from .grading import (
    check as check,
)
from .grading import (
    grade_item as grade_item,
)
from .grading import (
    grade_many as grade_many,
)
from .grading import (
    normalise_type as normalise_type,
)
from .patterns import PATTERNS as PATTERNS
from .patterns import run_pattern as run_pattern
from .records import (
    BenchmarkRecord as BenchmarkRecord,
)
from .records import (
    Grade as Grade,
)
from .records import (
    RecordError as RecordError,
)
from .records import (
    TraceEntry as TraceEntry,
)
from .records import (
    load_benchmark_record as load_benchmark_record,
)
from .records import (
    load_grade as load_grade,
)
from .verifier import LLMVerifier as LLMVerifier
from .verifier import grade_output as grade_output
