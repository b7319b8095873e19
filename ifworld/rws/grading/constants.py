"""Grader limits shared by the parent process and the grading worker — no heavy imports here.

The parent (CLI, pages) imports only this, the result types and the sandbox client, so it never pays for
pint or sympy; the worker imports the stages.
"""

DEFAULT_TIMEOUT_S = 5.0
"""Hard time limit for grading one item once the worker is warm (the worker is killed beyond it)."""
REL_TOLERANCE = 0.05
"""Relative tolerance for numeric answers (5 %)."""
MAX_INPUT_CHARS = 20_000
"""Predictions longer than this are cut to their last MAX_INPUT_CHARS characters before extraction."""
MAX_ANSWER_CHARS = 2_000
"""An extracted answer longer than this is refused (no grader stage needs more)."""
MAX_GOLD_CHARS = 5_000
"""A gold answer longer than this is unscored ("too long"), never parsed."""
