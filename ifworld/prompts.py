"""Prompt templates are data: text files under ``prompts/<system>/<name>.txt``, loaded by name.

Rendering is strict: ``{placeholder}`` fields must all be supplied (a missing one raises) and unknown
keyword arguments are an error too, so a renamed variable cannot silently produce an empty prompt.
Literal braces in templates are written ``{{`` and ``}}``.
"""

from __future__ import annotations

import string
from functools import lru_cache

from ifworld import resources

PROMPTS_DIR = resources.prompts_dir()


class PromptError(KeyError):
    pass


@lru_cache(maxsize=256)
def load(name: str) -> str:
    """Template text for ``name`` like ``"whatif/expert"`` (``.txt`` implied)."""
    path = PROMPTS_DIR / f"{name}.txt"
    if not path.is_file():
        raise PromptError(f"no prompt template {name!r} (looked for {path})")
    return path.read_text(encoding="utf-8")


def fields(name: str) -> set[str]:
    """Placeholder names used by a template."""
    return {f for _, f, _, _ in string.Formatter().parse(load(name)) if f}


def render(name: str, **values: object) -> str:
    """Fill a template; missing or unexpected variables raise :class:`PromptError`."""
    needed = fields(name)
    missing = needed - values.keys()
    extra = values.keys() - needed
    if missing:
        raise PromptError(f"prompt {name!r} needs {sorted(missing)}")
    if extra:
        raise PromptError(f"prompt {name!r} does not use {sorted(extra)}")
    return load(name).format(**values)


def names(system: str | None = None) -> list[str]:
    """All template names, optionally of one system (``whatif``, ``rws``, ``beliefs``)."""
    base = PROMPTS_DIR / system if system else PROMPTS_DIR
    return sorted(str(p.relative_to(PROMPTS_DIR).with_suffix("")) for p in base.rglob("*.txt"))
