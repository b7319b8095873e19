"""Demo answers for the connection test (Settings and the sidebar's "Test connection")."""

from __future__ import annotations

import re

from ifworld.llm.connection import PLAIN_PROMPT, STRUCTURED_PROMPT

COUNT = " ".join(str(i) for i in range(1, 21))
LABEL_KEYS = frozenset({"word"})

RULES = [
    (re.escape(PLAIN_PROMPT), COUNT, "connection.plain"),
    (re.escape(STRUCTURED_PROMPT), {"numbers": [1, 2, 3], "word": "pong"}, "connection.structured"),
]
