"""The pages' one door to the product's small shared helpers (everything a page needs that is not an engine).

``ui/`` and ``app_pages/`` reach the engines through their front doors (``ifworld.whatif``, ``ifworld.rws``,
``ifworld.beliefs``), the infrastructure through ``ifworld.llm`` and ``ifworld.runs``, who-is-who through
``ifworld.access`` — and the small helpers below through this module, so the page layer depends on a
handful of named doors (a test counts them) instead of reaching into whichever file holds a function today.
Moving a helper between those files then changes this module only.
"""

from __future__ import annotations

from ifworld.config import CONNECT_HELP, DEMO_MODEL, DEMO_URL, Settings, load_settings
from ifworld.errors import ConfigError, IFWorldError, InputError, StoreError, WorkshopError
from ifworld.figstyle import TEMPLATE, column_label, human_columns, styled
from ifworld.figure_words import describe as describe_figure, edge_sentences, figure_tables
from ifworld.limits import CONFIRM_CALLS, confirmation_message, needs_confirmation
from ifworld.redact import redact, safe_error
from ifworld.safe_csv import write_csv
from ifworld.safe_figure import inert_figure
from ifworld.safe_text import clean_title, demote_headings, inert_markdown
from ifworld.saved_connection import save_connection, saved_connection

__all__ = [
    "CONFIRM_CALLS", "CONNECT_HELP", "DEMO_MODEL", "DEMO_URL", "TEMPLATE", "ConfigError", "IFWorldError", "InputError",
    "Settings", "StoreError",
    "WorkshopError", "clean_title", "column_label", "confirmation_message", "demote_headings", "describe_figure",
    "edge_sentences", "figure_tables", "human_columns",
    "inert_figure", "inert_markdown", "load_settings", "needs_confirmation", "redact", "safe_error", "save_connection",
    "saved_connection", "styled", "write_csv",
]
