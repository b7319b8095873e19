"""Statistical agreement with the per-agent reference; reproduction of the paper's Table 1."""

import statistics
import sys
from pathlib import Path

import pytest

from ifworld.beliefs.config import BeliefConfig
from ifworld.beliefs.engine import simulate, summarise

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from reference_per_agent import simulate_reference  # noqa: E402

AGREEMENT_TOLERANCE = 0.03
PAPER_F1, PAPER_F1_STD = 0.943, 0.100
PAPER_RECALL, PAPER_RECALL_STD = 0.904, 0.144
PAPER_PRECISION = 1.000


@pytest.mark.parametrize("kwargs", [{}, {"rule": "bounded", "strategy": "strategic"}])
def test_reference_agrees_with_engine(kwargs):
    cfg = BeliefConfig(**kwargs)
    ref = statistics.mean(r["f1"] for r in simulate_reference(cfg, seed=3, runs=200))
    vec = summarise(simulate(cfg, seed=3, runs=2000))["f1"]
    assert abs(ref - vec) < AGREEMENT_TOLERANCE


def test_defaults_measured_figures():
    """What the defaults give (documented in the README, Belief exchange); guards against silent drift."""
    s = summarise(simulate(BeliefConfig(), seed=0, runs=2000))
    assert s["f1"] == pytest.approx(0.58, abs=0.02)
    assert s["precision"] == pytest.approx(0.76, abs=0.02)
    assert s["recall"] == pytest.approx(0.47, abs=0.02)


@pytest.mark.xfail(strict=True, reason=(
    "In the 2K-fact universe with F = negations of T, a truth-blind heuristic cannot reach "
    "precision 1.000: ~18% of pairs start with the falsehood more widespread than the truth "
    "(see the README, Belief exchange: Reproduction)."))
def test_defaults_within_paper_table1_bars():
    s = summarise(simulate(BeliefConfig(), seed=0, runs=2000))
    assert abs(s["f1"] - PAPER_F1) <= PAPER_F1_STD
    assert abs(s["recall"] - PAPER_RECALL) <= PAPER_RECALL_STD
    assert s["precision"] >= PAPER_PRECISION - 0.01
