"""Run-size estimate before a run and progress with an ETA while it runs (pure functions, no streamlit).

Before: calls from the graph's shape (:func:`ifworld.whatif.params.estimate_calls`), tokens from measured
tokens per call of each method, cost when a price per 1,000 tokens is set.
While running: the ETA comes from the calls measured so far — their mean latency and the concurrency the
run actually achieved (sum of call latencies ÷ elapsed wall time) — applied to the calls still to come.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ifworld.whatif.budget import TOKENS_PER_CALL, planned_steps
from ifworld.whatif.params import estimate_calls


@dataclass(frozen=True)
class Estimate:
    calls: int
    tokens: int
    cost: float | None  # in the currency of the price, None without a price

    def text(self) -> str:
        out = f"≈ {self.calls:,} model calls, ≈ {self.tokens:,} tokens"
        return out + (f", ≈ {self.cost:,.2f} at the set price" if self.cost is not None else "")


def estimate(params: dict[str, Any], price_per_1k: float | None = None) -> Estimate:
    """What a run of ``params`` will cost if nothing fails (repairs and retries not counted)."""
    calls = estimate_calls(params)
    tokens = calls * TOKENS_PER_CALL.get(params.get("method", "ifworld"), TOKENS_PER_CALL["ifworld"])
    cost = tokens / 1000 * price_per_1k if price_per_1k else None
    return Estimate(calls, tokens, cost)


@dataclass(frozen=True)
class Progress:
    done: int
    total: int
    elapsed_s: float
    eta_s: float | None

    @property
    def fraction(self) -> float:
        return min(1.0, self.done / self.total) if self.total else 0.0

    def text(self) -> str:
        eta = "estimating…" if self.eta_s is None else f"about {_duration(self.eta_s)} left"
        return f"{self.done} of ≈{self.total} calls · {_duration(self.elapsed_s)} elapsed · {eta}"


def _duration(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    return f"{seconds // 60} min {seconds % 60:02d} s" if seconds >= 60 else f"{seconds} s"


def progress(calls: list[dict[str, Any]], total: int, elapsed_s: float) -> Progress:
    """Progress of a run from its finished ``calls`` (each with ``latency_s``) after ``elapsed_s``."""
    latencies = [float(c["latency_s"]) for c in calls if c.get("latency_s")]
    done = len(calls)
    total = max(total, done)
    if not latencies or elapsed_s <= 0:
        return Progress(done, total, elapsed_s, None)
    mean = sum(latencies) / len(latencies)
    concurrency = max(1.0, sum(latencies) / elapsed_s)
    return Progress(done, total, elapsed_s, (total - done) * mean / concurrency)


def session_progress(calls: list[dict[str, Any]], total: int, since: float, now: float) -> Progress:
    """Progress of a session driven since ``since`` (epoch seconds; a start, continue or resume).

    Calls made before a pause or a resume count as done, but the elapsed time and the concurrency the ETA uses
    come from this drive alone — so "8 of ≈13 calls · 0 s elapsed · about 0 s left" cannot happen after a
    resume: the mean latency of every call so far applies to the calls still to come.
    """
    elapsed = max(0.0, now - since)
    latencies = [float(c["latency_s"]) for c in calls if c.get("latency_s")]
    done = len(calls)
    total = max(total, done)
    if not latencies:
        return Progress(done, total, elapsed, None)
    mean = sum(latencies) / len(latencies)
    recent = [float(c["latency_s"]) for c in calls if c.get("latency_s") and float(c.get("start") or 0) >= since]
    concurrency = max(1.0, sum(recent) / elapsed) if recent and elapsed > 0 else 1.0
    return Progress(done, total, elapsed, (total - done) * mean / concurrency)


def describe(params: dict[str, Any]) -> str:
    """What a run of ``params`` does, in the words of its method (for the estimate line)."""
    method = params.get("method", "ifworld")
    if method == "single":
        return "single agent: one model call"
    budget = params.get("budget_tokens")
    if method == "tree":
        steps = (f"as many expansion steps as ≈{budget:,.0f} tokens buy (≈{planned_steps(method, params)})" if budget
                 else f"{params.get('depth', 2)} expansion step(s)")
        return f"tree search: breadth {params.get('breadth', 3)}, {steps}, a critic score per answer, best leaf wins"
    if method == "debate":
        turns = (f"as many rounds as ≈{budget:,.0f} tokens buy (≈{planned_steps(method, params)})" if budget
                 else f"{params.get('debate_rounds', 2)} round(s)")
        return f"debate: {turns} of pro and con, then a judge's synthesis"
    experts, rounds = len(params.get("experts") or []), int(params.get("rounds") or 1)
    return f"IF-World: {experts} expert(s), {rounds} round(s)"


STEP_LABELS: dict[str, str] = {
    "refine": "Refining the scenario", "review": "Waiting for the review", "facilitate": "Waiting for the room",
    "start_round": "Round {round} — starting", "collect": "Round {round} — collecting the experts",
    "resolve": "Round {round} — resolving conflicts", "final_resolve": "Resolving the last round's conflicts",
    "debate_pro": "Round {round} — pro/con debate", "debate_con": "Round {round} — pro/con debate",
    "debate_judge": "Round {round} — judging the debate", "frame": "Building the shared frame for the next round",
    "report_core": "Writing the report", "report_analysis": "Writing the report",
    "report_scenarios": "Writing the report", "assemble": "Checking the report's consistency",
    "single": "The single agent is writing its answer", "draft": "Tree search — drafting",
    "expand": "Tree search — step {round}: expanding the best leaf", "select": "Tree search — picking the best leaf",
    "finish": "Tree search — final answer", "turn": "Debate — next turn", "synthesis": "Debate — the judge's synthesis",
}


def step_label(node: str, round_no: int, thinking: list[str] | None = None) -> str:
    """The step that is running, named for a person ("Round 2 — experts reasoning: physics, law")."""
    if node == "expert":
        names = f": {', '.join(thinking)}" if thinking else ""
        return f"Round {max(round_no, 1)} — experts reasoning{names}"
    return STEP_LABELS.get(node, node.replace("_", " ").capitalize()).format(round=max(round_no, 1))
