"""Engine invariants, rules on hand-computed cases, metrics, reproducibility, recording, validation."""

import numpy as np
import pytest

from ifworld.beliefs.config import BeliefConfig
from ifworld.beliefs.domain import build_domain
from ifworld.beliefs.engine import deliver, initial_beliefs, select_shares, simulate, summarise
from ifworld.beliefs.metrics import SUMMARY_KEYS, accept, scores
from ifworld.beliefs.rules import get_rule


def test_initial_counts_per_agent():
    cfg = BeliefConfig(agents=30, facts=20, true_facts=5, false_facts=3)
    dom = build_domain(cfg)
    b = initial_beliefs(cfg, dom, get_rule("additive"), np.random.default_rng(0), 4)
    held_true = (b[..., dom.truth] > 0).sum(-1)
    held_false = (b[..., ~dom.truth] > 0).sum(-1)
    assert b.max() == 1 and (held_true >= 1).all() and (held_true <= 5).all()
    assert (held_false >= 1).all() and (held_false <= 3).all()
    nr = BeliefConfig(agents=30, facts=20, true_facts=5, false_facts=3, with_replacement=False)
    b = initial_beliefs(nr, dom, get_rule("additive"), np.random.default_rng(0), 4)
    assert ((b[..., dom.truth] > 0).sum(-1) == 5).all() and ((b[..., ~dom.truth] > 0).sum(-1) == 3).all()


def test_bounded_initial_and_bounds():
    rule = get_rule("bounded")
    held = np.array([[True, False, True, True, False, False]])
    assert rule.initial(held).tolist() == [[7, 3, 5, 5, 5, 5]]
    res = simulate(BeliefConfig(rule="bounded", agents=10, facts=6), seed=3, runs=5, record=True)
    b = res.recording.beliefs
    assert b.min() >= 0 and b.max() <= 10
    assert (b[..., 0::2] + b[..., 1::2] == 10).all()  # p and ¬p always sum to 1


def test_additive_rule_hand_case():
    beliefs = np.zeros((1, 2, 4), dtype=np.int16)
    beliefs[0, 0] = [1, 0, 2, 0]
    partners = np.array([[1, 0]])
    sent = np.array([[0, 2], [3, -1]])  # agent 0 sends facts 0 and 2; agent 1 sends fact 3
    changed = deliver(beliefs, partners, sent, np.ones((2, 2), np.float32), get_rule("additive"))
    assert beliefs[0].tolist() == [[1, 0, 2, 1], [1, 0, 1, 0]]
    assert changed.tolist() == [[True, True]]


def test_bounded_rule_hand_case():
    beliefs = np.full((1, 2, 4), 5, dtype=np.int16)
    beliefs[0, 1] = [10, 0, 5, 5]
    partners = np.array([[1, 0]])
    sent = np.array([[0, 2], [-1, -1]])
    conf = np.array([[0.7, 0.4], [0, 0]], dtype=np.float32)  # support fact 0, weak report on fact 2
    changed = deliver(beliefs, partners, sent, conf, get_rule("bounded"))
    assert beliefs[0, 1].tolist() == [10, 0, 4, 6]  # clipped at 1.0; -0.1 on fact 2, +0.1 on ¬
    assert beliefs[0, 0].tolist() == [5, 5, 5, 5]
    assert changed.tolist() == [[False, True]]


def test_selection_highest_confidence_and_kb_only():
    b = np.array([[[0, 3, 1, 0, 2, 0]]], dtype=np.int16)
    out, conf = select_shares(b, get_rule("additive"), "highest_confidence", 4, np.random.default_rng(0))
    assert out.tolist() == [[1, 4, 2, -1]]  # only believed facts, highest first
    assert conf[0, :3].tolist() == [1.0, 1.0, 1.0]
    out, _ = select_shares(b, get_rule("additive"), "strategic", 2, np.random.default_rng(0))
    assert set(out[0]) <= {1, 2, 4} and len(set(out[0])) == 2


def test_metrics_hand_cases():
    truth = np.array([True, False, False, True])  # pair 0: fact 0 true; pair 1: fact 3 true
    acc = np.array([[True, False, False, True], [True, False, True, False], [False] * 4])
    p, r, f = scores(acc, truth)
    assert p.tolist() == [1.0, 0.5, 1.0] and r.tolist() == [1.0, 0.5, 0.0]
    assert f.tolist() == pytest.approx([1.0, 0.5, 0.0])
    beliefs = np.array([[[3, 1, 0, 0], [1, 0, 0, 2]]], dtype=np.int16)  # means: .875 .125 0 .5
    assert accept(beliefs, 0.5).tolist() == [[True, False, False, False]]
    assert accept(beliefs, 0.9).tolist() == [[False] * 4]
    assert accept(beliefs, 0.1).sum() == 2  # at most one per pair even with a low threshold


def test_at_most_one_per_pair_in_runs():
    res = simulate(BeliefConfig(threshold=0.0), seed=1, runs=50)
    assert (res.accepted.reshape(50, -1, 2).sum(-1) <= 1).all()


def test_reproducible_and_seed_dependent():
    cfg = BeliefConfig(domain="abstract")
    a, b = simulate(cfg, seed=7, runs=40), simulate(cfg, seed=7, runs=40)
    c = simulate(cfg, seed=8, runs=40)
    assert np.array_equal(a.accepted, b.accepted) and np.array_equal(a.rounds, b.rounds)
    assert not np.array_equal(a.accepted, c.accepted)


def test_summary_keys_exact():
    s = summarise(simulate(BeliefConfig(), seed=0, runs=5))
    assert tuple(s) == SUMMARY_KEYS and s["runs"] == 5


def test_recording_shapes_and_content():
    cfg = BeliefConfig(agents=7, facts=5, rounds=4, liars=0.3)
    res = simulate(cfg, seed=2, runs=2, record=True)
    rec = res.recording
    t = rec.rounds
    assert rec.beliefs.shape == (t + 1, 2, 7, 10) and rec.partners.shape == (t, 2, 7)
    assert rec.messages.shape == (t, 2, 7, 3) and rec.votes.shape == (t, 2, 7)
    assert ((rec.partners[rec.active] == -1).sum(-1) == 1).all()  # odd N: one sits out
    assert np.allclose(rec.f1[-1], res.f1)
    assert rec.liars.sum(1).tolist() == [2, 2]
    assert simulate(cfg, seed=2, runs=2).recording is None


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"agents": 1}, "agents"), ({"bandwidth": 0}, "bandwidth"), ({"threshold": 1.5}, "threshold"),
        ({"stop_share": 0}, "stop_share"), ({"true_facts": -1}, "true_facts"),
        ({"false_facts": -2}, "false_facts"),
        ({"facts": 0}, "facts"), ({"strategy": "x"}, "strategy"), ({"rule": "x"}, "rule"),
        ({"true_facts": 30, "with_replacement": False}, "true_facts"), ({"noise": 2}, "noise"),
    ],
)
def test_config_validation_names_parameter(kwargs, name):
    with pytest.raises(ValueError, match=name):
        BeliefConfig(**kwargs)


def test_runs_validation():
    with pytest.raises(ValueError, match="runs"):
        simulate(BeliefConfig(), runs=0)


@pytest.mark.parametrize("rule", ["additive", "bounded"])
@pytest.mark.parametrize("strategy", ["strategic", "highest_confidence"])
@pytest.mark.parametrize("domain", ["family", "abstract"])
def test_smoke_modes(rule, strategy, domain):
    res = simulate(BeliefConfig(rule=rule, strategy=strategy, domain=domain), seed=11, runs=20)
    s = summarise(res)
    assert 0 < s["f1"] <= 1 and 1 <= s["rounds_mean"] <= 20
    assert len(res.rows()) == 20


@pytest.mark.parametrize("kwargs", [{"liars": 0.25}, {"noise": 0.2}, {"liars": 0.1, "noise": 0.1}])
def test_smoke_adversarial(kwargs):
    clean = summarise(simulate(BeliefConfig(), seed=5, runs=200))
    bad = summarise(simulate(BeliefConfig(**kwargs), seed=5, runs=200))
    assert bad["f1"] < clean["f1"]


def test_family_domain_consistent():
    dom = build_domain(BeliefConfig())
    assert len(set(dom.labels)) == 40 and dom.truth.sum() == 20
    assert (dom.truth[0::2] ^ dom.truth[1::2]).all()
    negatives = int(dom.truth[1::2].sum())
    assert 0 < negatives < 20
    assert set(dom.pair_types) <= {"parent", "sibling", "marriage", "grandparent", "cousin"}
    parents = {(p, c) for p, c in dom.parent_edges}
    for k, kind in enumerate(dom.pair_types):
        if kind == "parent":
            label = dom.labels[2 * k]
            a, b = label.split(" is the parent of ")
            assert ((a, b) in parents) == bool(dom.truth[2 * k])
