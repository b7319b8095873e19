"""What each agent read: the call records' packing shares (:mod:`ifworld.llm.packing`) told in words.

One line per role and round — "Round 1 — conflict resolver read 100 % of 3 experts' outputs and the scenario" or,
when the window was too small, "… trimmed to 62 % to fit an 8,192-token window" — for the deliberation view,
the run page's warning and the exports' appendix. A run whose core roles (experts, resolver, report writers,
judge) read less than all of their input says so (:func:`short_reads`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict

ROLE_NAMES: dict[str, str] = {
    "whatif.expert": "experts", "whatif.resolver": "conflict resolver", "whatif.report": "report writers",
    "whatif.debate.pro": "Pro debater", "whatif.debate.con": "Con debater", "whatif.debate.judge": "debate judge",
    "whatif.judge": "judge", "whatif.tree.critic": "tree critic", "whatif.tree.expand": "tree variants",
}
CORE_ROLES = ("whatif.expert", "whatif.resolver", "whatif.report", "whatif.judge")


class Reading(BaseModel):
    """What one role read in one round: the lowest share of each named input over its calls."""

    model_config = ConfigDict(frozen=True)
    role: str
    round: int | None
    calls: int
    window: int
    window_source: str
    shares: dict[str, float]
    labels: dict[str, str]

    @property
    def whole(self) -> bool:
        return all(s >= 1.0 for s in self.shares.values())

    @property
    def lowest(self) -> float:
        return min(self.shares.values(), default=1.0)

    def sentence(self) -> str:
        """"Round 2 — experts read 100 % of: scenario and shared frame (Ψ)." in plain words."""
        who = ROLE_NAMES.get(self.role, self.role)
        when = f"Round {self.round} — " if self.round else ""
        experts = [k for k in self.shares if k.startswith("expert:")]
        names = ([f"{len(experts)} experts' outputs"] if experts else []) + \
            [self.labels.get(k, k) for k in self.shares if not k.startswith("expert:")]
        what = _and(names) or "its prompt"
        if self.whole:
            return f"{when}{who} read 100 % of: {what}."
        return (f"{when}{who} read {what}, trimmed to {_pct(self.lowest)} (the least kept part) to fit a context "
                f"window of {self.window:,} tokens ({self.window_source}).")


def _pct(share: float) -> str:
    return f"{int(share * 100)} %"


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1] if items else ""


def _role_key(role: str) -> str:
    return "whatif.report" if role.startswith("whatif.report") else role


def readings(calls: Iterable[Mapping[str, Any] | Any]) -> list[Reading]:
    """One :class:`Reading` per (role, round) over the calls that carry packing shares, in call order."""
    groups: dict[tuple[str, int | None], dict[str, Any]] = {}
    for call in calls:
        data = call if isinstance(call, Mapping) else call.model_dump()
        inputs = data.get("inputs")
        if not inputs or not isinstance(inputs.get("parts"), Mapping):
            continue
        key = (_role_key(str(data.get("role") or "")), data.get("round"))
        g = groups.setdefault(key, {"calls": 0, "shares": {}, "labels": {}, "window": inputs.get("window", 0),
                                    "source": inputs.get("window_source", "")})
        g["calls"] += 1
        for name, part in inputs["parts"].items():
            g["shares"][name] = min(float(part.get("share", 1.0)), g["shares"].get(name, 1.0))
            g["labels"][name] = str(part.get("label") or name)
    return [Reading(role=r, round=n, calls=g["calls"], window=int(g["window"] or 0), window_source=str(g["source"]),
                    shares=g["shares"], labels=g["labels"]) for (r, n), g in groups.items()]


def short_reads(calls: Iterable[Mapping[str, Any] | Any]) -> list[Reading]:
    """The core roles that read less than all of their input (empty: every core agent read it whole)."""
    return [r for r in readings(calls) if r.role in CORE_ROLES and not r.whole]


class RoleTokens(BaseModel):
    """Where a run's tokens went: one role's calls and tokens."""

    model_config = ConfigDict(frozen=True)
    role: str
    calls: int
    prompt_tokens: int
    completion_tokens: int


def tokens_by_role(calls: Iterable[Mapping[str, Any] | Any]) -> list[RoleTokens]:
    """Calls and tokens per role (report parts together), most prompt tokens first."""
    sums: dict[str, list[int]] = {}
    for call in calls:
        data = call if isinstance(call, Mapping) else call.model_dump()
        row = sums.setdefault(_role_key(str(data.get("role") or "")), [0, 0, 0])
        row[0] += 1
        row[1] += int(data.get("prompt_tokens") or 0)
        row[2] += int(data.get("completion_tokens") or 0)
    rows = [RoleTokens(role=ROLE_NAMES.get(r, r), calls=n, prompt_tokens=p, completion_tokens=c)
            for r, (n, p, c) in sums.items()]
    return sorted(rows, key=lambda r: -r.prompt_tokens)


def reading_markdown(calls: Iterable[Mapping[str, Any] | Any]) -> str:
    """The exports' "What each agent read" section (empty when no call was packed: an older record)."""
    lines = [r.sentence() for r in readings(calls)]
    if not lines:
        return ""
    short = [r for r in readings(calls) if r.role in CORE_ROLES and not r.whole]
    head = ["## What each agent read", ""]
    if short:
        head += [f"**Warning:** {len(short)} core step(s) read less than all of their input "
                 "(the model's context window was too small); see below.", ""]
    return "\n".join(head + [f"- {line}" for line in lines]) + "\n"
