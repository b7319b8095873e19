"""Estimate before a run and ETA while it runs (pure functions)."""

from __future__ import annotations

import pytest

from ifworld.whatif.methods import REGISTRY
from ifworld.whatif.params import default_params
from ifworld.whatif.progress import estimate, progress


def test_estimate_calls_tokens_and_cost():
    params = default_params("What if?")  # 9 experts × 2 rounds
    est = estimate(params)
    assert (est.calls, est.tokens, est.cost) == (27, 27 * REGISTRY.get("ifworld").tokens_per_call, None)
    priced = estimate(params, price_per_1k=0.002)
    per_call = REGISTRY.get("ifworld").tokens_per_call / 1000
    assert priced.cost == pytest.approx(27 * per_call * 0.002) and "at the set price" in priced.text()
    assert estimate(default_params("What if?", "single")).tokens == REGISTRY.get("single").tokens_per_call


def test_eta_uses_measured_latency_and_achieved_concurrency():
    calls = [{"latency_s": 2.0}] * 6  # 12 s of calls finished in 4 s of wall time: concurrency 3
    p = progress(calls, total=15, elapsed_s=4.0)
    assert p.done == 6 and p.fraction == pytest.approx(0.4)
    assert p.eta_s == pytest.approx((15 - 6) * 2.0 / 3.0)
    assert "6 of ≈15 calls · 4 s elapsed · about 6 s left" == p.text()
    assert progress([], 10, 3.0).eta_s is None and "estimating" in progress([], 10, 3.0).text()
    more = progress([{"latency_s": 1.0}] * 12, total=10, elapsed_s=70.0)  # repairs beyond the estimate
    assert more.total == 12 and more.fraction == 1.0 and "1 min 10 s elapsed" in more.text()


def test_progress_after_a_resume_counts_earlier_calls_but_times_this_drive():
    from ifworld.whatif.progress import session_progress

    before = [{"latency_s": 3.0, "start": 100.0 + i} for i in range(8)]  # done before the pause
    after = [{"latency_s": 3.0, "start": 1_000.0}, {"latency_s": 3.0, "start": 1_001.0}]  # 6 s in 3 s: 2 at once
    p = session_progress(before + after, total=13, since=1_000.0, now=1_003.0)
    assert (p.done, p.total, p.elapsed_s) == (10, 13, 3.0)
    assert p.eta_s == pytest.approx(3 * 3.0 / 2.0)
    assert p.text() == "10 of ≈13 calls · 3 s elapsed · about 4 s left"  # not "0 s elapsed · about 0 s left"
    fresh = session_progress(before, total=13, since=1_000.0, now=1_000.5)  # resumed, nothing new yet
    assert fresh.eta_s == pytest.approx(5 * 3.0) and fresh.elapsed_s == 0.5


def test_describe_names_only_what_the_method_does():
    from ifworld.whatif.progress import describe, step_label

    assert describe(default_params("What if?", "single")) == "single agent: one model call"
    assert "expert" not in describe(default_params("What if?", "debate"))
    assert describe(default_params("What if?", experts=["physics", "law"], rounds=2)) == \
        "IF-World: 2 expert(s), 2 round(s)"
    assert step_label("expert", 2, ["physics", "law"]) == "Round 2 — experts reasoning: physics, law"
    assert step_label("report_core", 1) == "Writing the report"
