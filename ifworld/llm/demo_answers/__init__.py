"""Canned answers of ``ifworld demo-server``, one module per system: a module-level ``RULES`` list of
``(pattern, reply, name)`` (``reply`` is a string, a dict sent as JSON, or a callable taking the request body)
and ``LABEL_KEYS``, the JSON keys whose strings are free text (the server puts the demo label in front).

- :mod:`~ifworld.llm.demo_answers.whatif` — every IF-World role and the baselines, varied by topic and round;
- :mod:`~ifworld.llm.demo_answers.rws` — the built-in answer patterns' roles and the LLM verifier
  (a pattern without rules here gets the server's fallback answer);
- :mod:`~ifworld.llm.demo_answers.beliefs` — the LLM belief agents;
- :mod:`~ifworld.llm.demo_answers.connection` — the sidebar's connection test.

The helpers below read a chat request; reply callables use them. The test suite's fake server loads the
first three modules through ``tests/fixtures/scripts``.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

SYSTEMS = ("beliefs", "connection", "rws", "whatif")


def modules() -> list[ModuleType]:
    """The answer modules, in the order their rules are tried (their patterns do not overlap)."""
    return [importlib.import_module(f"{__name__}.{name}") for name in SYSTEMS]


def message_text(content: Any) -> str:
    """The text of one message's ``content`` (a string or a list of typed parts)."""
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content or ""


def role_text(body: dict[str, Any], *roles: str) -> str:
    """The concatenated messages of the given roles, in order."""
    return "\n".join(message_text(m.get("content")) for m in body.get("messages", []) if m.get("role") in roles)


def system_prompt(body: dict[str, Any]) -> str:
    """The concatenated system (and developer) messages of a chat request."""
    return role_text(body, "system", "developer")


def prompt_text(body: dict[str, Any]) -> str:
    """System and user messages of a request, in order: the text rules match on."""
    return role_text(body, "system", "developer", "user")


def last_user(body: dict[str, Any]) -> str:
    """Text of the last user message (handy inside reply callables)."""
    for m in reversed(body.get("messages", [])):
        if m.get("role") == "user":
            return message_text(m.get("content"))
    return ""
