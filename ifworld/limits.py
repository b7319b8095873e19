"""Named limits shared across the product: confirmation thresholds, message and input size caps.

One place so the CLI, the pages and the README quote the same numbers.
"""

from __future__ import annotations

CONFIRM_CALLS = 200
"""LLM jobs estimated above this many model calls need confirmation (page checkbox, CLI ``--yes``)."""

MAX_ERROR_CHARS = 2_000
"""Error text shown or stored is cut to this length (a 452 MB YAML error message once froze a page)."""

MAX_UPLOAD_BYTES = 50_000_000
"""Largest file any page or engine accepts: Streamlit's ``server.maxUploadSize = 50`` is 50,000,000 bytes."""

MAX_YAML_BYTES = 128 * 1024
"""YAML input (sweep grids) larger than this is refused before parsing; a grid is a few lines."""

MAX_TITLE_CHARS = 300

MAX_ANSWER_FILE_BYTES = 1_000_000
"""An answer file for a paused run (``runs resume --edit``) or a propositions file: a few lines of text."""

MAX_SECRETS_BYTES = 1_000_000
"""A ``secrets.toml`` larger than this (or not a regular file) is skipped: it holds a few keys."""


def needs_confirmation(estimated_calls: int | float | None, threshold: int = CONFIRM_CALLS) -> bool:
    """True when a job's estimated model calls exceed the confirmation threshold.

    An unknown estimate (None) needs no confirmation: callers only pass None when nothing is sent.
    """
    return estimated_calls is not None and estimated_calls > threshold


def confirmation_message(estimated_calls: int | float, threshold: int = CONFIRM_CALLS) -> str:
    """The sentence the CLI and pages show when asking for confirmation."""
    return (f"this job is estimated at {int(estimated_calls):,} model calls, more than {threshold:,} "
            "(CONFIRM_CALLS); confirm to start it (CLI: --yes)")


def cap_text(text: str, limit: int = MAX_ERROR_CHARS) -> str:
    """Cut ``text`` to ``limit`` characters, saying how much was dropped."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit:,} more characters cut]"
