"""Prompts are data: one YAML file per agent role under ``prompts/<system>/<role>.yaml``, loaded by name.

A file maps section names to template strings. ``system`` and ``user`` are the two messages; a role with
several kinds of call has more user sections (``user_refine``, ``user_retry`` …). ``base: <name>`` inherits
every section of another file (the role file overrides), so the roles of one system share their system text
byte for byte. A placeholder that names another section of the same prompt (``{role}``) is filled with that
section, rendered with the same values — this is how a role writes its own part once and reuses a body.

Rendering is strict: every other ``{placeholder}`` must be supplied and unknown keyword arguments are an
error, so a renamed variable cannot silently produce an empty prompt. Literal braces are ``{{`` and ``}}``.

Layout rule (README "How prompts are laid out"): what the calls of a round share comes first — the common
instructions (system), then the proposition / question, the scenario and the shared frame — and the role,
domain and duties come last, so servers that cache prompt prefixes reuse everything before the role.
"""

from __future__ import annotations

import string
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from ifworld.errors import PackageError
from ifworld.resources import prompts_dir

SUFFIX = ".yaml"
BASE_KEY = "base"
MAX_DEPTH = 8
DATA_DIRS = ("whatif/experts",)
"""Folders of prompt *data* rather than role prompts (one expert domain per file: name, persona, aliases …):
read with :func:`load_data` and validated by the engine that owns them, never listed by :func:`names`."""


class PromptError(PackageError, KeyError):
    """A prompt file is missing or malformed, or a section lacks a value it needs; the message names it."""


def _path(name: str) -> Path:
    return prompts_dir() / f"{name}{SUFFIX}"


@lru_cache(maxsize=256)
def load(name: str) -> dict[str, str]:
    """Sections of prompt ``name`` like ``"whatif/expert"`` (its ``base`` chain merged in)."""
    return dict(_load(name, 0))


def _load(name: str, depth: int) -> dict[str, str]:
    if depth > MAX_DEPTH:
        raise PromptError(f"prompt {name!r}: 'base' chain deeper than {MAX_DEPTH}")
    path = _path(name)
    if not path.is_file():
        raise PromptError(f"no prompt {name!r} (looked for {path})")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise PromptError(f"prompt {name!r} is not valid YAML: {exc}") from exc
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        raise PromptError(f"prompt {name!r} must map section names to text")
    base = data.pop(BASE_KEY, None)
    sections = _load(base, depth + 1) if base else {}
    sections.update({k: v.strip("\n") for k, v in data.items()})
    return sections


def load_data(name: str) -> dict[str, Any]:
    """The mapping in prompt data file ``name`` like ``"whatif/experts/physics"`` (no ``base``, no templates);
    a missing file or one that is not a YAML mapping raises :class:`PromptError` naming the file."""
    path = _path(name)
    if not path.is_file():
        raise PromptError(f"no prompt data {name!r} (looked for {path})")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise PromptError(f"{path}: not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise PromptError(f"{path}: must be a mapping of fields (name: …, persona: …)")
    return data


def data_path(name: str) -> Path:
    """Where prompt data file ``name`` lives (for messages that name the file)."""
    return _path(name)


def sections(name: str) -> list[str]:
    """Section names of a prompt (``system``, ``user``, …)."""
    return sorted(load(name))


def _placeholders(text: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(text) if f}


def fields(name: str, section: str = "user") -> set[str]:
    """Values a section needs (placeholders of the sections it pulls in included)."""
    return _fields(load(name), section, ())


def _fields(secs: dict[str, str], section: str, stack: tuple[str, ...]) -> set[str]:
    if section in stack:
        raise PromptError(f"section {section!r} includes itself via {' -> '.join(stack)}")
    out: set[str] = set()
    for f in _placeholders(secs[section]):
        out |= _fields(secs, f, (*stack, section)) if f in secs else {f}
    return out


def _fill(name: str, secs: dict[str, str], section: str, values: dict[str, object]) -> str:
    text = secs[section]
    inner = {f: _fill(name, secs, f, values) for f in _placeholders(text) if f in secs}
    try:
        return text.format(**values, **inner)
    except (IndexError, ValueError) as exc:
        raise PromptError(f"prompt {name!r} section {section!r}: {exc}") from exc


def render(name: str, section: str = "user", **values: object) -> str:
    """One section filled in; missing or unexpected values raise :class:`PromptError`."""
    secs = load(name)
    if section not in secs:
        raise PromptError(f"prompt {name!r} has no section {section!r} (has {sorted(secs)})")
    _check(name, fields(name, section), values)
    return _fill(name, secs, section, values)


def messages(name: str, user: str = "user", **values: object) -> list[tuple[str, str]]:
    """``[("system", …), ("user", …)]`` for a role; ``user`` picks the user section (``"user_retry"`` …).

    Values are checked against both sections together: each must be used by one of them.
    """
    secs = load(name)
    for needed in ("system", user):
        if needed not in secs:
            raise PromptError(f"prompt {name!r} has no section {needed!r} (has {sorted(secs)})")
    _check(name, fields(name, "system") | fields(name, user), values)
    return [("system", _fill(name, secs, "system", values)), ("user", _fill(name, secs, user, values))]


def _check(name: str, needed: set[str], values: dict[str, object]) -> None:
    missing, extra = needed - values.keys(), values.keys() - needed
    if missing:
        raise PromptError(f"prompt {name!r} needs {sorted(missing)}")
    if extra:
        raise PromptError(f"prompt {name!r} does not use {sorted(extra)}")


def names(system: str | None = None) -> list[str]:
    """All prompt names, optionally of one system (``whatif``, ``rws``, ``beliefs``)."""
    root = prompts_dir()
    base = root / system if system else root
    found = (str(p.relative_to(root).with_suffix("")) for p in base.rglob(f"*{SUFFIX}"))
    return sorted(n for n in found if not n.startswith(tuple(f"{d}/" for d in DATA_DIRS)))


def flatten(messages: list[tuple[str, str]] | list[dict]) -> str:
    """One request's messages as one string in order (role tags included), as a server's chat template
    would lay them out; what prefix sharing is measured on."""
    parts = []
    for m in messages:
        role, text = (m.get("role", ""), m.get("content") or "") if isinstance(m, dict) else m
        parts.append(f"<{role}>\n{text if isinstance(text, str) else text!r}\n")
    return "".join(parts)


def shared_prefix(texts: list[str]) -> int:
    """Length of the longest prefix common to all ``texts`` (0 for none)."""
    if not texts:
        return 0
    lo, hi = min(texts), max(texts)  # the common prefix of the extremes is everyone's
    n = 0
    while n < min(len(lo), len(hi)) and lo[n] == hi[n]:
        n += 1
    return n
