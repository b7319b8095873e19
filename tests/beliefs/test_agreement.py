"""The engine against an independent per-agent model (tests/beliefs/reference_model.py).

1. Distribution: for every rule x strategy x liars x noise combination the page offers, thousands of
   runs of each, a two-sample z-test on the difference of means of F1, precision, recall and rounds.
   Seeds are fixed, so the verdict is deterministic; the critical |z| covers the 64+ comparisons.
2. Acceptance, run by run: the engine's accepted facts equal exact rational acceptance computed from
   its own recorded final beliefs (ties accept neither, thresholds are the decimals written).
"""

import itertools

import numpy as np
import pytest

from ifworld.beliefs.config import BeliefConfig
from ifworld.beliefs.domain import build_domain
from ifworld.beliefs.engine import simulate
from ifworld.beliefs.rules import UPDATE_RULES, rule_names
from tests.beliefs.reference_model import REFERENCE_RULES, Rule, accepted_facts, simulate_reference, z_score

Z_CRITICAL = 4.5  # two-sided p ~ 7e-6 per comparison; family-wise < 1e-3 over all comparisons
REFERENCE_RUNS = 2000
ENGINE_RUNS = 20_000
SMALL = {"agents": 10, "facts": 8, "true_facts": 3, "false_facts": 2, "bandwidth": 2, "rounds": 10}
METRICS = (("f1", "f1"), ("precision", "precision"), ("recall", "recall"), ("rounds", "rounds"))
RULES = tuple(n for n in rule_names() if n in REFERENCE_RULES)  # registry order; the reference's rules only
COMBOS = list(itertools.product(RULES, ("highest_confidence", "strategic"), (0.0, 0.3), (0.0, 0.15)))


def test_every_built_in_rule_has_a_reference():
    """A rule the package ships (not one a test or plugin registers) must be checked against the reference."""
    built_in = [s.name for s in UPDATE_RULES if type(s.rule).__module__ == "ifworld.beliefs.rules"]
    assert built_in and set(built_in) <= set(REFERENCE_RULES), built_in


def _compare(cfg: BeliefConfig, seed: int) -> dict[str, float]:
    truth = [bool(t) for t in build_domain(cfg).truth]
    ref = simulate_reference(cfg.to_dict(), truth, seed=seed, runs=REFERENCE_RUNS)
    eng = simulate(cfg, seed=seed, runs=ENGINE_RUNS)
    engine = {"f1": eng.f1, "precision": eng.precision, "recall": eng.recall, "rounds": eng.rounds}
    return {name: z_score(ref[name], engine[name].astype(float).tolist()) for name, _ in METRICS}


@pytest.mark.slow
@pytest.mark.parametrize(("rule", "strategy", "liars", "noise"), COMBOS)
def test_engine_agrees_with_reference(rule, strategy, liars, noise):
    cfg = BeliefConfig(rule=rule, strategy=strategy, liars=liars, noise=noise, **SMALL)
    z = _compare(cfg, seed=11)
    assert all(abs(v) < Z_CRITICAL for v in z.values()), z


@pytest.mark.slow
@pytest.mark.parametrize("kwargs", [{"rule": "bounded", "liars": 0.5}, {"with_replacement": False, "threshold": 0.6},
                                    {"rule": "bounded", "noise": 0.2, "strategy": "strategic"},
                                    {"false_from": "truths"}])
def test_engine_agrees_with_reference_paper_defaults(kwargs):
    cfg = BeliefConfig(**kwargs)
    truth = [bool(t) for t in build_domain(cfg).truth]
    ref = simulate_reference(cfg.to_dict(), truth, seed=5, runs=600)
    eng = simulate(cfg, seed=5, runs=ENGINE_RUNS)
    for name, values in (("f1", eng.f1), ("precision", eng.precision), ("recall", eng.recall)):
        z = z_score(ref[name], values.astype(float).tolist())
        assert abs(z) < Z_CRITICAL, (name, z)


@pytest.mark.slow
@pytest.mark.parametrize(("topology", "rule", "liars"), [
    ("ring", "additive", 0.0), ("small_world", "bounded", 0.3), ("scale_free", "additive", 0.3),
    ("scale_free", "bounded", 0.0)])
def test_engine_agrees_with_reference_on_graphs(topology, rule, liars):
    cfg = BeliefConfig(topology=topology, rule=rule, liars=liars, **SMALL)
    z = _compare(cfg, seed=13)
    assert all(abs(v) < Z_CRITICAL for v in z.values()), z


def test_liars_and_noise_lower_f1_under_every_rule():
    """A liar asserts the negation as strongly as it believed the fact: every rule must feel it."""
    for rule in RULES:
        clean = simulate(BeliefConfig(rule=rule), seed=3, runs=3000).f1.mean()
        lied = simulate(BeliefConfig(rule=rule, liars=0.5), seed=3, runs=3000).f1.mean()
        noisy = simulate(BeliefConfig(rule=rule, noise=0.3), seed=3, runs=3000).f1.mean()
        assert lied < clean - 0.1 and noisy < clean - 0.02, (rule, clean, lied, noisy)


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("threshold", [0.5, 0.6])
def test_acceptance_is_exact_run_by_run(rule, threshold):
    cfg = BeliefConfig(rule=rule, threshold=threshold)
    res = simulate(cfg, seed=2, runs=400, record=True)
    final = res.recording.beliefs[-1]
    for run in range(res.runs):
        expected = accepted_facts(final[run].tolist(), threshold, Rule(rule, cfg.trust, cfg.discount))
        assert set(np.flatnonzero(res.accepted[run]).tolist()) == expected, run


def test_exact_tie_accepts_neither():
    """Three agents at 1/3 + 1/3 + 1/3 against one at 1: float32 sums make these unequal."""
    from ifworld.beliefs.metrics import accept

    beliefs = np.array([[[1, 2, 0, 0], [1, 2, 0, 0], [1, 2, 0, 0], [2, 1, 0, 0], [2, 1, 0, 0], [2, 1, 0, 0]]],
                       dtype=np.int16)  # means of fact 0 and 1 are both exactly 1/2
    assert accept(beliefs, 0.4).tolist() == [[False] * 4]
    beliefs = np.array([[[1, 2], [1, 2], [1, 2], [3, 0], [0, 3]]], dtype=np.int16)  # 2/5 vs 3/5
    assert accept(beliefs, 0.6).tolist() == [[False, False]]  # 3/5 is not above 0.6
    assert accept(beliefs, 0.59).tolist() == [[False, True]]
