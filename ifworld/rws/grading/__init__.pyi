"""Type stub of the front door: the names listed here are what `ifworld.rws.grading` exports (loaded lazily)."""

from .grader import (
    DEFAULT_TIMEOUT_S as DEFAULT_TIMEOUT_S,
    INTERACTIVE_TIMEOUT_S as INTERACTIVE_TIMEOUT_S,
    TYPES as TYPES,
    CheckResult as CheckResult,
    GradeReport as GradeReport,
    ItemGrade as ItemGrade,
    Verifier as Verifier,
    check as check,
    grade_item as grade_item,
    grade_many as grade_many,
    normalise_type as normalise_type,
)
