"""Grader limits shared by the parent process and the grading worker — no heavy imports here.

The parent (CLI, pages) imports only this, the result types and the sandbox client, so it never pays for
pint or sympy; the worker imports the stages.
"""

DEFAULT_TIMEOUT_S = 5.0
"""Hard time limit for grading one item of a batch once the worker is warm (the worker is killed beyond it): a
hung item costs a benchmark at most this."""
INTERACTIVE_TIMEOUT_S = 60.0
"""The limit for one answer a person typed and waits for under a spinner (RWS browse). Generous: a symbolic
answer such as ``tan psi = Omega r / V`` took more than 5 s on a busy 2-core machine and came back "timed out";
a person would rather wait. Still a bound, because sympy can hang on a hostile input."""
REL_TOLERANCE = 0.05
"""Relative tolerance for numeric answers (5 %)."""
MAX_INPUT_CHARS = 20_000
"""Predictions longer than this are cut to their last MAX_INPUT_CHARS characters before extraction."""
MAX_ANSWER_CHARS = 2_000
"""An extracted answer longer than this is refused (no grader stage needs more)."""
MAX_GOLD_CHARS = 5_000
"""A gold answer longer than this is unscored ("too long"), never parsed."""
