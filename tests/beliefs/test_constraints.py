"""The domain-constraint reading (§6.1): constraint inference on hand-built cases, soundness of every ground
clause against many random families, no access to the truth, and the reading in the paper's tables."""

from dataclasses import replace

import numpy as np
import pytest

from ifworld.beliefs import paper
from ifworld.beliefs.config import BeliefConfig, condition_label
from ifworld.beliefs.constraints import ConstrainedRule, consistent_support, constrained, ground
from ifworld.beliefs.domain import Domain, build_domain
from ifworld.beliefs.engine import simulate
from ifworld.beliefs.metrics import accept
from ifworld.beliefs.rules import AdditiveRule, get_rule

# our own small universe: statements about six people (A, B founders; C, D their children; E, F grandchildren)
STATEMENTS = (
    ("parent", "A", "C"),  # pair 0: facts 0 / 1
    ("parent", "C", "A"),  # pair 1: facts 2 / 3
    ("parent", "C", "E"),  # pair 2: facts 4 / 5
    ("grandparent", "A", "E"),  # pair 3: facts 6 / 7
    ("sibling", "C", "D"),  # pair 4: facts 8 / 9
    ("sibling", "D", "X"),  # pair 5: facts 10 / 11
    ("sibling", "C", "X"),  # pair 6: facts 12 / 13
    ("cousin", "E", "F"),  # pair 7: facts 14 / 15
    ("grandparent", "A", "F"),  # pair 8: facts 16 / 17
    ("marriage", "A", "B"),  # pair 9: facts 18 / 19
    ("marriage", "A", "Y"),  # pair 10: facts 20 / 21
)


class Untouchable:
    """Stands in for the ground truth: any use fails the test."""

    def __getattr__(self, name):
        raise AssertionError(f"the constraint reading read the truth ({name})")

    def __array__(self, *args, **kwargs):
        raise AssertionError("the constraint reading read the truth (as an array)")

    def __getitem__(self, key):
        raise AssertionError("the constraint reading read the truth (an item)")


def small_domain(truth=None) -> Domain:
    labels = tuple(s for k, a, b in STATEMENTS for s in (f"{k}({a},{b})", f"not {k}({a},{b})"))
    truth = np.zeros(len(labels), dtype=bool) if truth is None else truth
    return Domain("family", labels, tuple(k for k, _, _ in STATEMENTS), truth,
                  subjects=tuple((a, b) for _, a, b in STATEMENTS))


def support(scores: dict[int, int], domain: Domain | None = None) -> np.ndarray:
    """Support per fact of one agent holding ``scores`` (fact -> belief score)."""
    rule = constrained(AdditiveRule(), domain or small_domain())
    counts = np.zeros((len(STATEMENTS) * 2, 1), dtype=np.int16)
    for fact, score in scores.items():
        counts[fact, 0] = score
    return consistent_support(counts, rule.closure)[:, 0]


def test_a_fact_excludes_its_negation():
    assert support({0: 1, 1: 1})[[0, 1]].tolist() == [0, 0]  # tied: neither accepted
    assert support({0: 3, 1: 1})[[0, 1]].tolist() == [2, 0]  # support is the margin b_f - b_¬f


def test_accepting_a_parent_of_b_rejects_b_parent_of_a():
    s = support({0: 2, 2: 1})  # A parent of C (stronger), C parent of A
    assert s[0] == 2 and s[2] == 0  # the weaker contradiction is rejected
    assert s[3] == 2  # "C is not the parent of A" is derived with the support of its premise
    s = support({0: 1, 2: 2})
    assert s[2] == 2 and s[0] == 0 and s[1] == 2


def test_grandparent_is_a_parents_parent():
    s = support({0: 3, 4: 2})
    assert s[6] == 2  # A grandparent of E, with the weaker premise's support
    assert support({0: 3, 4: 2, 7: 1})[7] == 0  # "A is not a grandparent of E" is rejected


def test_siblinghood_is_symmetric_and_transitive():
    s = support({8: 2, 10: 2})  # C~D, D~X  ->  C~X
    assert s[12] == 2
    s = support({8: 2, 11: 2})  # C~D, not D~X  ->  not C~X
    assert s[13] == 2


def test_cousins_share_a_grandparent_and_marriage_is_exclusive():
    s = support({14: 2, 6: 3})  # E, F cousins; A grandparent of E  ->  A grandparent of F
    assert s[16] == 2
    s = support({18: 2, 20: 1})  # A married to B  ->  A is not married to Y
    assert s[20] == 0 and s[21] == 2


def test_every_ground_clause_holds_in_random_families():
    """Soundness: whatever the generator draws, no clause has true premises and a false conclusion."""
    checked = 0
    for seed in range(40):
        for pairs in (20, 60):
            domain = build_domain(BeliefConfig(facts=pairs, domain_seed=seed))
            for clause in ground(domain):
                if domain.truth[list(clause.premises)].all():
                    assert domain.truth[clause.conclusion], (seed, pairs, clause)
                    checked += 1
    assert checked > 50  # the check did fire on clauses whose premises hold


def test_the_reading_never_reads_the_truth():
    domain = build_domain(BeliefConfig())
    blind = replace(domain, truth=Untouchable())
    assert ground(blind) == ground(domain) and len(ground(domain)) > 0
    rng = np.random.default_rng(1)
    counts = rng.integers(0, 4, size=(2 * domain.pairs, 50)).astype(np.int16)
    seen = constrained(AdditiveRule(), blind).rank(counts)
    assert np.array_equal(seen, constrained(AdditiveRule(), domain).rank(counts))
    assert not any(isinstance(v, np.ndarray) and v.shape == domain.truth.shape
                   for v in vars(constrained(AdditiveRule(), domain)).values())


def test_collective_counts_agents_exactly():
    rule = constrained(AdditiveRule(), small_domain())
    beliefs = np.zeros((1, 4, 2 * len(STATEMENTS)), dtype=np.int16)
    beliefs[0, :2, 18] = 1  # two of four agents accept "A is married to B": 0.5 is not above 0.5
    beliefs[0, :3, 8] = 1  # three of four accept "C and D are siblings"
    got = accept(beliefs, 0.5, rule)[0]
    assert not got[18] and got[8]


def test_config_switch_and_simulation():
    cfg = BeliefConfig(constraints=True)
    assert isinstance(get_rule(cfg.rule, cfg), ConstrainedRule)
    assert condition_label(cfg) == "heuristic-additive+constraints"
    res = simulate(cfg.replace(agents=6), seed=3, runs=4)
    again = simulate(cfg.replace(agents=6), seed=3, runs=4)
    assert np.array_equal(res.f1, again.f1) and res.runs == 4


@pytest.fixture(scope="module")
def small_reproduction():
    return paper.reproduce("additive", seeds=1, runs=3)


def test_the_reading_is_in_the_paper_tables(small_reproduction):
    rep = small_reproduction
    assert paper.CONSTRAINED in dict(rep.readings())
    for _, table in paper.printed_tables(rep):
        if "Ours: as written" in table.columns:
            assert f"Ours: {paper.CONSTRAINED}" in table.columns
    part = rep.rows[rep.rows["reading"] == paper.CONSTRAINED]
    assert part["constraints"].all() and (part["false_facts"] == 3).all()
    assert any(line.startswith("Domain constraints") for line in paper.residuals(rep))
    assert paper.CONSTRAINED in paper.summary(rep)["readings"]
