"""Demo answers for the connection test (Settings and the sidebar's "Test connection"), role ``connection``:
the plain call gets the count it asks for, the structured call (``connection#structured``) the object."""

from __future__ import annotations

from typing import Any

COUNT = " ".join(str(i) for i in range(1, 21))
LABEL_KEYS = frozenset({"word"})

ANSWERS: dict[str, Any] = {"connection": COUNT, "connection#structured": {"numbers": [1, 2, 3], "word": "pong"}}
