"""The bayes and discounted rules on hand-computed cases, and their parameters' validation."""

from fractions import Fraction

import numpy as np
import pytest

from ifworld.beliefs.config import BeliefConfig
from ifworld.beliefs.engine import deliver, simulate
from ifworld.beliefs.metrics import accept
from ifworld.beliefs.rules import believed, get_rule


def test_bayes_hand_case():
    rule = get_rule("bayes", BeliefConfig(rule="bayes", trust=0.8))  # odds x4 per report
    b = np.array([[2, 0, 1, 1, 0, 0]], dtype=np.int16)  # believes fact 0; pair 1 balanced; pair 2 unheard
    assert believed(rule, b.T).T.tolist() == [[True, False, False, False, False, False]]
    conf = rule.confidence(b)
    assert conf[0].tolist() == pytest.approx([16 / 17, 1 / 17, 0.5, 0.5, 0.0, 0.0])
    assert rule.exact_confidence(2, 0) == Fraction(16, 17) and rule.exact_confidence(0, 0) == 0
    assert rule.sure_margin == 1  # P >= 0.8 <=> 4^d >= 4
    fm = b.T.copy()
    assert rule.all_sure(fm).tolist() == [False]  # the balanced pair is not sure
    assert rule.rank(fm)[:, 0].tolist() == [2, 0, 0, 0, 0, 0]


def test_bayes_acceptance_uses_probabilities():
    rule = get_rule("bayes", BeliefConfig(rule="bayes", trust=0.8))
    beliefs = np.array([[[1, 0], [0, 2]]], dtype=np.int16)
    assert accept(beliefs, 0.5).tolist() == [[False, False]]  # as counts: 1/2 vs 1/2, a tie
    # as probabilities: P(f) = (4/5 + 1/17) / 2 = 0.429, P(¬f) = (1/5 + 16/17) / 2 = 0.571
    assert accept(beliefs, 0.5, rule).tolist() == [[False, True]]
    assert accept(beliefs, 0.58, rule).tolist() == [[False, False]]


def test_discounted_hand_case():
    rule = get_rule("discounted", BeliefConfig(rule="discounted", discount=0.75))  # keep 3/4 per round
    beliefs = np.array([[[16, 0, 0, 0], [0, 0, 32, 0]]], dtype=np.int16)
    partners = np.array([[1, 0]])
    sent = np.array([[0], [2]])  # agent 0 sends fact 0, agent 1 sends fact 2
    changed = deliver(beliefs, partners, sent, np.zeros((2, 1), np.float32), rule)
    assert beliefs[0].tolist() == [[12, 0, 16, 0], [16, 0, 24, 0]]  # 16 -> 12, 32 -> 24, +16 per copy
    assert changed.tolist() == [[True, True]]
    faded = np.array([[[1, 0, 0, 0], [0, 0, 0, 0]]], dtype=np.int16)
    deliver(faded, np.array([[-1, -1]]), np.full((2, 1), -1), np.zeros((2, 1), np.float32), rule)
    assert faded[0, 0].tolist() == [1, 0, 0, 0]  # 1 - 1 >> 2 = 1: rounding keeps a last unit...
    faded[0, 0, 0] = 3
    deliver(faded, np.array([[-1, -1]]), np.full((2, 1), -1), np.zeros((2, 1), np.float32), rule)
    assert faded[0, 0].tolist() == [3, 0, 0, 0]  # ...and 3 (integer arithmetic floors the loss, not the kept)


@pytest.mark.parametrize(("kwargs", "name"), [({"trust": 0.5}, "trust"), ({"trust": 1.0}, "trust"),
                                              ({"discount": 0.6}, "discount")])
def test_rule_parameters_validated(kwargs, name):
    with pytest.raises(ValueError, match=name):
        BeliefConfig(**kwargs)


def test_more_trust_more_confident_collective():
    low = simulate(BeliefConfig(rule="bayes", trust=0.55), seed=1, runs=2000).recall.mean()
    high = simulate(BeliefConfig(rule="bayes", trust=0.95), seed=1, runs=2000).recall.mean()
    assert low != high


@pytest.mark.parametrize("trust", [0.8, 0.55, 0.95])
def test_bayes_exact_decisions_equal_agent_by_agent_sums(trust):
    """Grouped exact decisions (each distinct count vector summed once) = summing every agent's P."""
    from ifworld.beliefs.metrics import exact_pairs

    rule = get_rule("bayes", BeliefConfig(rule="bayes", trust=trust))
    rng = np.random.default_rng(7)
    cells = rng.integers(0, 4, size=(400, 6, 2)).astype(np.int8)
    cells[:50, :, 1] = cells[:50, ::-1, 0]  # mirrored agents: exact ties between f and its negation
    limit = Fraction(1, 2)
    got = exact_pairs(cells, limit, rule.exact_confidence)
    for i, cell in enumerate(cells.tolist()):
        m0 = sum((rule.exact_confidence(a, b) for a, b in cell), Fraction(0))
        m1 = sum((rule.exact_confidence(b, a) for a, b in cell), Fraction(0))
        assert got[i].tolist() == [m0 > limit * 6 and m0 > m1, m1 > limit * 6 and m1 > m0]
    assert not got[:50].any(axis=1).all()  # some mirrored cells are ties (neither accepted)
