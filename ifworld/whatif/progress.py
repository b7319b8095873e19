"""Run-size estimate before a run and progress with an ETA while it runs (pure functions, no streamlit).

Before: calls from the graph's shape (:func:`ifworld.whatif.params.estimate_calls`), tokens from the measured
tokens per call of each method (its spec's ``tokens_per_call``), cost when a price per 1,000 tokens is set.
While running: the ETA comes from the calls measured so far — their mean latency and the concurrency the
run actually achieved (sum of call latencies ÷ elapsed wall time) — applied to the calls still to come.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ifworld.whatif.methods import REGISTRY, MethodSpec
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
    tokens = calls * _method(params).tokens_per_call
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


def _method(params: dict[str, Any]) -> MethodSpec:
    return REGISTRY.get(params.get("method") or REGISTRY.names()[0])


def describe(params: dict[str, Any]) -> str:
    """What a run of ``params`` does, in the words of its method (for the estimate line)."""
    return str(_method(params).call("describe", params))


def step_labels() -> dict[str, str]:
    """Live label per running node, from every method's spec (the first method that names a node wins)."""
    labels: dict[str, str] = {}
    for spec in reversed(REGISTRY.specs()):
        labels.update(spec.step_labels)
    return labels


def step_label(node: str, round_no: int, thinking: list[str] | None = None) -> str:
    """The step that is running, named for a person ("Round 2 — experts reasoning: physics, law")."""
    if node == "expert":
        names = f": {', '.join(thinking)}" if thinking else ""
        return f"Round {max(round_no, 1)} — experts reasoning{names}"
    return step_labels().get(node, node.replace("_", " ").capitalize()).format(round=max(round_no, 1))
