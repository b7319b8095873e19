"""Run-size estimate before a run and progress with an ETA while it runs (pure functions, no streamlit).

Before: calls from the graph's shape (:func:`ifworld.whatif.params.estimate_calls`), tokens from measured
tokens per call of each method, cost when a price per 1,000 tokens is set.
While running: the ETA comes from the calls measured so far — their mean latency and the concurrency the
run actually achieved (sum of call latencies ÷ elapsed wall time) — applied to the calls still to come.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ifworld.whatif.params import estimate_calls

# Mean prompt + completion tokens per call, measured against gpt-4o-mini on the paper's propositions
# (IF-World 27 calls / 88k tokens, single 1 / 3.6k, tree 14 / 40k, debate 5 / 6.3k).
TOKENS_PER_CALL: dict[str, int] = {"ifworld": 3_260, "single": 3_600, "tree": 2_860, "debate": 1_260}


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
