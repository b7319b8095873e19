"""The one packer: what an agent reads, fitted to its model's context window.

A prompt is a template (a prompt file) filled with *fixed* values (the proposition block, the role's words —
small, always whole) and named *parts* (an expert's structured output, the shared frame, the scenario …),
each a list of :class:`Section` — a heading and its items. :func:`pack_messages` fills the template:

- the budget is the role's window (:func:`~ifworld.llm.context.context_window`) minus the reply's bound
  (``max_tokens`` for the role) minus the template with its fixed values, minus a small safety margin;
- when every part fits, every part goes in whole (with a 128k window, that is every role's full input);
- when not, every part and every item is shortened by one common factor (never "the first section that does
  not fit ends the text"): each section keeps its heading and its first item, the other items keep the same
  share of their length, and items shorter than :data:`MIN_ITEM_CHARS` after the cut are left out and counted;
  the prompt then says what was shortened and how much (:data:`TRIM_NOTE`).

:class:`PackReport` says what share of each part reached the prompt; the model layer stores it in the call's
record (``inputs``), so a run's page and exports can say "the resolver read 100 % of 4 experts' outputs".
No fixed character cap applies to model-produced text here; the size bounds that protect against hostile
input (an upload, a participant's text) stay where that input enters.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict

from ifworld import prompts
from ifworld.config import Settings
from ifworld.llm.client import schema_instruction
from ifworld.llm.context import ContextWindow, TokenCounter, context_window, token_counter
from ifworld.llm.reply import LLMError

__all__ = ["ContextTooSmall", "Joined", "PackReport", "Part", "PartShare", "Section", "Slot", "pack_messages",
           "section"]

MIN_ITEM_CHARS = 24
"""An item cut shorter than this is left out (counted in the section's closing line) rather than kept as a stub."""
SAFETY_TOKENS = 64
"""Kept free beside the budget: chat-template tokens the server adds around each message."""
FIRST_ITEM_MIN_CHARS = 160
"""A section's first item is never cut below this (or its whole length): every section stays represented."""
FACTOR_STEP = 0.025
"""The shortening factor is a multiple of this (see :func:`_shrink`)."""
TRIM_NOTE = "[Shortened to fit the model's context window of {window:,} tokens: {shares}.]"
ELLIPSIS = "…"


@dataclass(frozen=True)
class Section:
    """A heading and its items (rendered ``Heading:`` then ``- item`` lines; a heading alone is a title line)."""

    heading: str
    items: tuple[str, ...] = ()
    bullets: bool = True
    """False: the items are one paragraph each, not a list ("Verdict: …")."""
    optional: bool = False
    """True: left out altogether when it has no items (a list the model left empty)."""
    sep: str = "\n"
    """Between items ("\n\n" for paragraphs of a free text)."""


def section(heading: str, items: Sequence[object] | None, bullets: bool = True) -> Section:
    """A :class:`Section` from any items (blank ones left out; each squeezed to one line)."""
    lines = tuple(" ".join(str(i).split()) for i in items or () if str(i or "").strip())
    return Section(heading, lines, bullets, optional=True)


@dataclass(frozen=True)
class Part:
    """One named input of a prompt: ``name`` is what the record calls it ("expert:economics", "frame")."""

    name: str
    sections: tuple[Section, ...]
    joiner: str = "\n\n"
    empty: str = "(none)"
    label: str = field(default="", compare=False)
    """How the record and the page name it ("economics expert's output"); defaults to ``name``."""

    def render(self, factor: float = 1.0) -> tuple[str, int, int]:
        """The part's text with items cut to ``factor`` of their length: (text, kept chars, whole chars)."""
        blocks, kept, whole = [], 0, 0
        for sec in self.sections:
            if not sec.items and (sec.optional or not sec.heading):
                continue
            lines, k, w = _render_section(sec, factor)
            blocks.append(lines)
            kept, whole = kept + k, whole + w
        return (self.joiner.join(blocks) if blocks else self.empty), kept, whole


def _render_section(sec: Section, factor: float) -> tuple[str, int, int]:
    prefix = "- " if sec.bullets else ""
    lines = [f"{sec.heading}:" if sec.items and sec.bullets else sec.heading] if sec.heading else []
    kept = whole = 0
    left_out = 0
    for i, item in enumerate(sec.items):
        whole += len(item)
        text = _cut(item, factor, FIRST_ITEM_MIN_CHARS if i == 0 else 0)
        if text is None:
            left_out += 1
            continue
        kept += len(text) - (len(ELLIPSIS) if text.endswith(ELLIPSIS) and text != item else 0)
        if not sec.bullets and sec.heading and i == 0:
            lines[-1] = f"{sec.heading}: {text}"
        else:
            lines.append(prefix + text)
    if left_out:
        lines.append(f"{prefix}({left_out} more left out for length)")
    return sec.sep.join(lines), kept, whole


def _cut(item: str, factor: float, floor: int = 0) -> str | None:
    keep = max(int(len(item) * factor), floor)
    if keep >= len(item):
        return item
    if keep < MIN_ITEM_CHARS:
        return None
    cut = item[:keep]
    space = cut.rfind(" ")
    if space > keep * 0.7:  # end at a word when one is near
        cut = cut[:space]
    return cut.rstrip(" ,;:") + ELLIPSIS


@dataclass(frozen=True)
class Joined:
    """Several parts in one placeholder (A.4's "joined domain outputs separated by ---")."""

    parts: tuple[Part, ...]
    sep: str = "\n---\n"
    empty: str = "(none)"

    def render(self, factor: float = 1.0) -> str:
        return self.sep.join(p.render(factor)[0] for p in self.parts) if self.parts else self.empty


Slot = Part | Joined


def _members(slot: Slot) -> tuple[Part, ...]:
    return slot.parts if isinstance(slot, Joined) else (slot,)


def _text(slot: Slot, factor: float) -> str:
    return slot.render(factor) if isinstance(slot, Joined) else slot.render(factor)[0]


class ContextTooSmall(LLMError):
    """A prompt cannot fit the role's context window even at its minimum (every heading and first item)."""


class PartShare(BaseModel):
    """What share of one part reached the prompt."""

    model_config = ConfigDict(frozen=True)
    name: str
    label: str
    share: float
    """Characters of its items that reached the prompt over the whole (1.0: whole)."""
    tokens: int
    """Tokens the part took in the prompt."""


class PackReport(BaseModel):
    """How a prompt was packed: the window, the counter, the budget and each part's share."""

    model_config = ConfigDict(frozen=True)
    window: int
    window_source: str
    counter: str
    budget: int
    prompt_tokens: int
    parts: list[PartShare]

    @property
    def trimmed(self) -> bool:
        return any(p.share < 1.0 for p in self.parts)

    def shares(self) -> dict[str, float]:
        return {p.name: p.share for p in self.parts}

    def record(self) -> dict[str, object]:
        """The plain dict the call record keeps (``CallRecord.inputs``)."""
        return {"window": self.window, "window_source": self.window_source, "counter": self.counter,
                "budget": self.budget, "prompt_tokens": self.prompt_tokens,
                "parts": {p.name: {"label": p.label, "share": round(p.share, 4), "tokens": p.tokens}
                          for p in self.parts}}


def _fill(template: str, user: str, fixed: Mapping[str, object], texts: Mapping[str, str]) -> list[tuple[str, str]]:
    return prompts.messages(template, user, **fixed, **texts)


def _count(counter: TokenCounter, messages: list[tuple[str, str]]) -> int:
    return sum(counter.count(text) for _, text in messages)


def pack_messages(role: str, template: str, settings: Settings, parts: Mapping[str, Slot],
                  fixed: Mapping[str, object] | None = None, user: str = "user",
                  window: ContextWindow | None = None, counter: TokenCounter | None = None,
                  schema: type[BaseModel] | None = None) -> tuple[list[tuple[str, str]], PackReport]:
    """The messages of ``template`` with ``parts`` (placeholder → :class:`Part` or :class:`Joined`) packed into
    ``role``'s window, and the report of what each part kept. ``fixed`` values go in as they are; ``schema``:
    the reply's schema, which a structured call adds to the system message (counted in the budget)."""
    fixed = dict(fixed or {})
    window = window or context_window(settings, role)
    counter = counter or token_counter(settings, role)
    empty = _fill(template, user, fixed, {k: "" for k in parts})
    shown = counter.count(schema_instruction(schema)) if schema is not None else 0
    budget = max(0, window.tokens - settings.max_tokens_for(role) - _count(counter, empty) - shown - SAFETY_TOKENS)
    whole = {k: _text(p, 1.0) for k, p in parts.items()}
    tokens = {k: counter.count(t) for k, t in whole.items()}
    factor = 1.0
    texts = dict(whole)
    if sum(tokens.values()) > budget:
        factor, texts = _shrink(parts, counter, budget, window.tokens, sum(tokens.values()))
    messages = _fill(template, user, fixed, texts)
    shares = []
    for slot in parts.values():
        for p in _members(slot):
            text, kept, total = p.render(factor)
            shares.append(PartShare(name=p.name, label=p.label or p.name, share=1.0 if not total else kept / total,
                                    tokens=counter.count(text)))
    report = PackReport(window=window.tokens, window_source=window.source, counter=counter.name, budget=budget,
                        prompt_tokens=_count(counter, messages) + shown, parts=shares)
    reply = settings.max_tokens_for(role)
    if report.prompt_tokens + reply > window.tokens:
        raise ContextTooSmall(role,
            f"even shortened to its headings and first items the prompt needs {report.prompt_tokens:,} "
            f"tokens, and the reply {reply:,} more ({settings.max_tokens_setting(role)}), but the model's context "
            f"window is {window.tokens:,} tokens ({window.source}). Use a model with a larger window, start the "
            "server with a larger context (llama.cpp: -c; Ollama: num_ctx), or lower the reply bound.")
    return messages, report


def _shrink(parts: Mapping[str, Slot], counter: TokenCounter, budget: int, window: int,
            whole_tokens: int) -> tuple[float, dict[str, str]]:
    """The largest common factor whose packed parts (with the trim note) fit ``budget`` tokens; found by
    bisection on the real count (a dozen counts, only when trimming)."""
    def texts_at(f: float) -> dict[str, str]:
        out = {k: _text(p, f) for k, p in parts.items()}
        members = [m for slot in parts.values() for m in _members(slot)]
        shares = ", ".join(f"{p.label or p.name} {_pct(p.render(f))}" for p in members
                           if p.render(f)[1] < p.render(f)[2])
        if shares:
            first = next(iter(out))
            out[first] = TRIM_NOTE.format(window=window, shares=shares) + "\n" + out[first]
        return out

    def size(f: float) -> int:
        return sum(counter.count(t) for t in texts_at(f).values())

    low, high = 0.0, min(1.0, budget / max(1, whole_tokens) * 1.2)
    if size(high) <= budget:
        low = high
    else:
        for _ in range(12):
            mid = (low + high) / 2
            if size(mid) <= budget:
                low = mid
            else:
                high = mid
    # On a grid, so calls of one round whose templates differ by a few tokens (each expert's domain and
    # persona come last) shorten their shared parts alike and keep a byte-identical prefix for the server.
    low = math.floor(low / FACTOR_STEP) * FACTOR_STEP
    return low, texts_at(low)


def _pct(rendered: tuple[str, int, int]) -> str:
    _, kept, total = rendered
    return f"{math.floor(100 * kept / total) if total else 100} %"
