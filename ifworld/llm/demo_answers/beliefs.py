"""Demo answers for the LLM belief agents (role ``beliefs.agent``).

A sensible, deterministic agent: it keeps what it holds, takes on every fact it was told with raised
confidence (lowering the negation when it also holds that), shares its most trusted facts up to the
bandwidth, and votes STOP from round :data:`STOP_FROM_ROUND` on. Its replies hold ids, numbers and a vote,
no free text, so there is nothing to label; the run's model name (``demo``) says where they came from.
"""

from __future__ import annotations

import re
from typing import Any

from ifworld.llm.demo_answers import role_text

STOP_FROM_ROUND = 3
RAISE = 0.15
HELD_RE = re.compile(r"\[f(\d+)\][^\n]*— confidence (\d(?:\.\d+)?)")
TOLD_RE = re.compile(r"\[f(\d+)\][^\n]*who is (\d(?:\.\d+)?) sure")
ROUND_RE = re.compile(r"this is round (\d+)\.")
BANDWIDTH_RE = re.compile(r"pass on up to (\d+) statements")


def agent_reply(body: dict[str, Any]) -> dict[str, Any]:
    """Echo received facts with raised confidence, share the top facts, vote STOP after a few rounds."""
    system, user = role_text(body, "system"), role_text(body, "user")
    held_part, _, rest = user.partition("Statements you were told this round:")
    told_part = rest.partition("Your last interactions:")[0]
    beliefs = {int(f): float(c) for f, c in HELD_RE.findall(held_part)}
    for f, c in TOLD_RE.findall(told_part):
        f = int(f)
        beliefs[f] = round(min(1.0, max(beliefs.get(f, 0.5), float(c)) + RAISE), 3)
        if f ^ 1 in beliefs:
            beliefs[f ^ 1] = round(max(0.0, beliefs[f ^ 1] - RAISE), 3)
    m = ROUND_RE.search(user)
    round_ = int(m.group(1)) if m else 1
    b = BANDWIDTH_RE.search(system)
    width = int(b.group(1)) if b else 3
    top = sorted((f for f, c in beliefs.items() if c > 0.5), key=lambda f: (-beliefs[f], f))[:width]
    return {"updated_beliefs": {f"f{f}": c for f, c in beliefs.items()},
            "facts_to_share": [f"f{f}" for f in top],
            "vote": "STOP" if round_ >= STOP_FROM_ROUND else "CONTINUE"}


ANSWERS: dict[str, Any] = {"beliefs.agent": agent_reply}
