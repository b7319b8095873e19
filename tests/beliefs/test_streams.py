"""Random quality of the counter-based streams: SplitMix64 itself, uniform pairings over perfect
matchings, uniform tie-breaks among tied facts, on the numpy path and through the compiled kernel."""

from collections import Counter
from itertools import combinations

import numpy as np
import pytest

from ifworld.beliefs import engine, kernel, streams
from ifworld.beliefs.config import BeliefConfig
from ifworld.beliefs.rules import SCRATCH_ROWS, get_rule

# chi-square 0.999 quantiles by degrees of freedom (a fixed seed: the statistic is deterministic)
CHI2_999 = {2: 13.816, 4: 18.467, 9: 27.877, 14: 36.123}
PATHS = ["numpy", "numba"]
MASK = (1 << 64) - 1


def _splitmix64(state: int, count: int) -> list[int]:
    """Reference SplitMix64 (Steele, Lea & Flood 2014) in plain Python integers."""
    out = []
    for _ in range(count):
        state = (state + 0x9E3779B97F4A7C15) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        out.append(z ^ (z >> 31))
    return out


def _path(monkeypatch, path: str) -> None:
    if path == "numba":
        pytest.importorskip("numba")
    monkeypatch.setenv(kernel.KERNEL_ENV, path)


def _chi2(counts: Counter, cells: list) -> float:
    total = sum(counts.values())
    assert set(counts) <= set(cells)
    expected = total / len(cells)
    return sum((counts.get(c, 0) - expected) ** 2 / expected for c in cells)


def test_words_are_splitmix64():
    assert streams.words(0, 1)[0] == 0xE220A8397B1DCDAF  # SplitMix64's first output from state 0
    for key in (0, 12345, MASK):
        assert streams.words(key, 50).tolist() == _splitmix64(key, 50)
        assert streams.words(key, 20, first=30).tolist() == _splitmix64(key, 50)[30:]
    raw = streams.words(7, 4).view(np.uint8)
    assert np.array_equal(streams.units(7, 3, 20), raw[3:23])


def test_below_is_uniform_and_in_range():
    draws = streams.below(99, 70_000, 7)
    assert draws.min() == 0 and draws.max() == 6
    assert _chi2(Counter(draws.tolist()), list(range(7))) < 22.458  # df 6


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("agents", "runs"), [(4, 3000), (6, 6000)])
def test_pairing_uniform_over_perfect_matchings(monkeypatch, path, agents, runs):
    _path(monkeypatch, path)
    rng = np.random.Generator(np.random.SFC64(11))
    partners = engine.pair_columns(rng, runs, agents).reshape(runs, agents) % agents
    matchings = Counter(tuple(sorted((a, int(p)) for a, p in enumerate(row) if a < p)) for row in partners)
    everything = sorted({tuple(sorted(m)) for m in _perfect_matchings(list(range(agents)))})
    assert len(everything) == {4: 3, 6: 15}[agents]
    assert _chi2(matchings, everything) < CHI2_999[len(everything) - 1]


def _perfect_matchings(agents: list) -> list:
    if not agents:
        return [[]]
    first, rest = agents[0], agents[1:]
    return [[(first, b)] + m for b in rest for m in _perfect_matchings([a for a in rest if a != b])]


def test_kernel_permutations_equal_numpy():
    pytest.importorskip("numba")
    for agents in (1, 2, 7, 20):
        perm, partners = kernel.permutations(5, 30, agents)
        assert np.array_equal(perm, streams.permutations(5, 30, agents))
        assert (np.sort(perm, axis=1) == np.arange(agents)).all()


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("bandwidth", "tied"), [(1, (1, 6, 13, 22, 39)), (3, (0, 7, 8, 21, 38))])
def test_tie_breaks_uniform_among_tied_facts(monkeypatch, path, bandwidth, tied):
    """Every column holds the same beliefs: with bandwidth 1 the pick among 5 tied facts is uniform;
    with bandwidth 3 one fact ranks above them and the other two picks are a uniform 2-subset."""
    _path(monkeypatch, path)
    cfg = BeliefConfig(agents=2, facts=20, bandwidth=bandwidth, true_facts=3, false_facts=2)
    rule = get_rule("additive", cfg)
    runs = 4000
    beliefs = np.zeros((40 + SCRATCH_ROWS, 2 * runs), dtype=rule.dtype(cfg.rounds, cfg.bandwidth))
    beliefs[list(tied)] = 3
    beliefs[30] = 1  # believed, below the tie
    if bandwidth == 3:
        beliefs[5] = 9  # always the first pick
    rng = np.random.Generator(np.random.SFC64(4))
    _, sent, _ = engine.play_round(beliefs, np.zeros(2 * runs, dtype=bool), rule, cfg, rng)
    if bandwidth == 1:
        picks = Counter(sent[0].tolist())
        cells = list(tied)
    else:
        assert (sent[0] == 5).all()
        picks = Counter(tuple(sorted(pair)) for pair in sent[1:].T.tolist())
        cells = list(combinations(sorted(tied), 2))
    assert _chi2(picks, cells) < CHI2_999[len(cells) - 1]
