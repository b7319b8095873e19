"""Estimate before a run and ETA while it runs (pure functions)."""

from __future__ import annotations

import pytest

from ifworld.whatif.params import default_params
from ifworld.whatif.progress import TOKENS_PER_CALL, estimate, progress


def test_estimate_calls_tokens_and_cost():
    params = default_params("What if?")  # 9 experts × 2 rounds
    est = estimate(params)
    assert (est.calls, est.tokens, est.cost) == (27, 27 * TOKENS_PER_CALL["ifworld"], None)
    priced = estimate(params, price_per_1k=0.002)
    assert priced.cost == pytest.approx(27 * 3.26 * 0.002) and "at the set price" in priced.text()
    assert estimate(default_params("What if?", "single")).tokens == TOKENS_PER_CALL["single"]


def test_eta_uses_measured_latency_and_achieved_concurrency():
    calls = [{"latency_s": 2.0}] * 6  # 12 s of calls finished in 4 s of wall time: concurrency 3
    p = progress(calls, total=15, elapsed_s=4.0)
    assert p.done == 6 and p.fraction == pytest.approx(0.4)
    assert p.eta_s == pytest.approx((15 - 6) * 2.0 / 3.0)
    assert "6 of ≈15 calls · 4 s elapsed · about 6 s left" == p.text()
    assert progress([], 10, 3.0).eta_s is None and "estimating" in progress([], 10, 3.0).text()
    more = progress([{"latency_s": 1.0}] * 12, total=10, elapsed_s=70.0)  # repairs beyond the estimate
    assert more.total == 12 and more.fraction == 1.0 and "1 min 10 s elapsed" in more.text()
