"""Names shown before anything heavy is imported: the CLI's help texts read them without loading LangGraph.

:mod:`ifworld.rws.patterns` builds its state machines in this order; a test keeps the two in step.
"""

from __future__ import annotations

PATTERNS: tuple[str, ...] = ("single", "hmaw", "pace", "phase", "schema")
"""The agentic answer patterns, in benchmark order."""
