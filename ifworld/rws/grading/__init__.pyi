"""Type stub of the front door: the names listed here are what `ifworld.rws.grading` exports (loaded lazily)."""

from .grader import (
    DEFAULT_TIMEOUT_S as DEFAULT_TIMEOUT_S,
)
from .grader import (
    TYPES as TYPES,
)
from .grader import (
    CheckResult as CheckResult,
)
from .grader import (
    GradeReport as GradeReport,
)
from .grader import (
    ItemGrade as ItemGrade,
)
from .grader import (
    Verifier as Verifier,
)
from .grader import (
    check as check,
)
from .grader import (
    grade_item as grade_item,
)
from .grader import (
    grade_many as grade_many,
)
from .grader import (
    normalise_type as normalise_type,
)
