"""Canned answers of ``ifworld demo-server``, one module per system: a module-level ``ANSWERS`` table keyed by
role name (a call name such as ``whatif.report#core``, a role, or a dotted role prefix; ``reply`` is a string,
a dict sent as JSON, or a callable taking the request body) and ``LABEL_KEYS``, the JSON keys whose strings are
free text (the server puts the demo label in front). The server picks the answer by the role the request
names in its header (:mod:`ifworld.llm.wire`), never by the prompt's words.

- :mod:`~ifworld.llm.demo_answers.whatif` — every IF-World role and the baselines, varied by topic and round;
- :mod:`~ifworld.llm.demo_answers.rws` — the built-in answer patterns' roles and the LLM verifier
  (a pattern without rules here gets the server's fallback answer);
- :mod:`~ifworld.llm.demo_answers.beliefs` — the LLM belief agents;
- :mod:`~ifworld.llm.demo_answers.connection` — the sidebar's connection test.

Patterns and methods outside these tables declare their answers in their specs (``demo_answer``); the engine
that owns the registry hands them down with :func:`add_source` (this layer imports no engine). A role nobody
declared an answer for gets the server's generic, schema-valid answer.

The helpers below read a chat request; reply callables use them. The test suite's fake server loads the
first three modules through ``tests/fixtures/scripts``.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterable, Mapping
from types import ModuleType
from typing import Any

SYSTEMS = ("beliefs", "connection", "rws", "whatif")
DECLARED_LABEL_KEYS = frozenset({"reason", "summary", "notes", "verdict", "statement", "rationale", "plan",
                                 "issues", "fix", "text", "answer"})
"""Free-text keys of answers declared in specs (their plain-text replies are labelled whole)."""

Declared = tuple[str, Any, frozenset[str]]
Source = Callable[[], Iterable[tuple[str, Any]]]
_sources: list[tuple[Source, frozenset[str]]] = []
_sources_lock = threading.Lock()


def add_source(source: Source, label_keys: Iterable[str] = DECLARED_LABEL_KEYS) -> None:
    """Answer roles from ``source()``: ``(role or dotted prefix, reply)`` pairs, asked on every request (so
    entries registered later are seen). Called by the engine that owns a registry (the RWS patterns, the what-if
    methods) with the answers its specs declare; never by this layer, which imports no engine."""
    with _sources_lock:
        if all(existing is not source for existing, _ in _sources):
            _sources.append((source, frozenset(label_keys)))


def declared_answers() -> list[Declared]:
    """Every declared ``(role, reply, label_keys)``, in registration order (a failing source is skipped)."""
    with _sources_lock:
        sources = list(_sources)
    out: list[Declared] = []
    for source, keys in sources:
        try:
            out.extend((role, reply, keys) for role, reply in source())
        except Exception:  # noqa: BLE001 — a broken extension must not stop the demo; it gets the generic answer
            continue
    return out


def spec_answers(prefix: str, declared: Any) -> list[tuple[str, Any]]:
    """A spec's ``demo_answer`` as table rows under ``prefix`` (``rws.<pattern>``, ``whatif.<method>``): a
    mapping's keys are role suffixes (``"critic"`` → ``rws.p.critic``, ``"solver#retry"``, ``""`` → every role
    under the prefix); any other value answers every role under the prefix. None declares nothing."""
    if declared is None:
        return []
    if not isinstance(declared, Mapping):
        return [(prefix, declared)]
    return [(f"{prefix}.{key}" if key else prefix, reply) for key, reply in declared.items()]


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
    """System and user messages of a request, in order (what a rule's optional content ``match`` reads)."""
    return role_text(body, "system", "developer", "user")


def last_user(body: dict[str, Any]) -> str:
    """Text of the last user message (handy inside reply callables)."""
    for m in reversed(body.get("messages", [])):
        if m.get("role") == "user":
            return message_text(m.get("content"))
    return ""
