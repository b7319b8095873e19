"""The optional numba round kernel gives the numpy engine's results bit for bit, and the engine falls
back to numpy when numba is missing, the switch says so, or the configuration is not covered."""

import hashlib

import numpy as np
import pytest

from ifworld.beliefs import engine, kernel
from ifworld.beliefs.config import BeliefConfig
from ifworld.beliefs.engine import simulate

SMALL = {"agents": 10, "facts": 8, "true_facts": 3, "false_facts": 2, "bandwidth": 2, "rounds": 10}
CASES = [  # rules x strategies x liars x noise x topologies, odd N, wide bandwidth, several blocks
    {}, {"rule": "bounded"}, {"rule": "bayes"}, {"rule": "discounted"},
    {"strategy": "strategic"}, {"rule": "bounded", "strategy": "strategic", "threshold": 0.6},
    {"rule": "bounded", "liars": 0.2, "noise": 0.1}, {"rule": "bayes", "strategy": "strategic", "noise": 0.15},
    {"rule": "discounted", "discount": 0.5, "liars": 0.3}, {"rule": "bayes", "trust": 0.6, "liars": 0.1},
    {"topology": "ring", "agents": 21}, {"topology": "small_world", "rule": "bounded"},
    {"topology": "scale_free", "rule": "discounted", "noise": 0.05}, {"bandwidth": 7, "agents": 9},
    {"with_replacement": False, "false_from": "truths"}, {**SMALL, "rule": "bounded", "liars": 0.3},
    {"agents": 700, "rule": "bounded"},  # a run wider than one chunk
    # few facts, so stop votes by sureness (not only "nothing changed") decide when runs end
    {"rule": "bayes", "facts": 3, "true_facts": 3, "false_facts": 1, "bandwidth": 3, "agents": 6},
    {"rule": "bayes", "facts": 4, "true_facts": 4, "false_facts": 2, "rounds": 30, "agents": 8, "trust": 0.6},
    {"facts": 3, "true_facts": 3, "false_facts": 1, "bandwidth": 3, "agents": 6},
    {"rule": "discounted", "facts": 3, "true_facts": 3, "false_facts": 1, "bandwidth": 3, "agents": 6},
]


def _digest(result) -> str:
    raw = (np.packbits(result.accepted).tobytes() + result.rounds.astype(np.int32).tobytes()
           + result.converged.tobytes() + result.f1.tobytes())
    return hashlib.sha256(raw).hexdigest()


def _run(monkeypatch, choice: str, cfg: BeliefConfig, runs: int, seed: int = 3, record: bool = False):
    monkeypatch.setenv(kernel.KERNEL_ENV, choice)
    return simulate(cfg, seed=seed, runs=runs, record=record)


@pytest.mark.parametrize("kwargs", CASES)
def test_kernel_identical_to_numpy_per_seed(monkeypatch, kwargs):
    pytest.importorskip("numba")
    cfg = BeliefConfig(**kwargs)
    runs = 40 if cfg.agents > 100 else 700  # 700 x 20 agents: more than one block per round
    fast = _run(monkeypatch, "numba", cfg, runs)
    slow = _run(monkeypatch, "numpy", cfg, runs)
    assert _digest(fast) == _digest(slow)


def test_kernel_identical_recording(monkeypatch):
    """Pairs, messages, votes and beliefs of every round match, not only the final scores."""
    pytest.importorskip("numba")
    cfg = BeliefConfig(rule="bounded", liars=0.2, noise=0.1, agents=11)
    fast = _run(monkeypatch, "numba", cfg, 5, record=True).recording
    slow = _run(monkeypatch, "numpy", cfg, 5, record=True).recording
    for name in ("beliefs", "partners", "messages", "votes"):
        assert np.array_equal(getattr(fast, name), getattr(slow, name)), name


def test_numpy_switch_never_calls_the_kernel(monkeypatch):
    def boom(*args, **kwargs):
        raise AssertionError("kernel called")

    monkeypatch.setattr(kernel, "play_block", boom)
    result = _run(monkeypatch, "numpy", BeliefConfig(), 50)
    assert result.runs == 50


def test_falls_back_to_numpy_without_numba(monkeypatch):
    cfg = BeliefConfig(rule="bayes", liars=0.1)
    expected = _digest(_run(monkeypatch, "numpy", cfg, 300))
    monkeypatch.setitem(kernel._LOADED, "numba", None)
    assert _digest(_run(monkeypatch, "auto", cfg, 300)) == expected
    with pytest.raises(RuntimeError, match="numba is not installed"):
        _run(monkeypatch, "numba", cfg, 10)


def test_unsupported_configurations_use_numpy(monkeypatch):
    """More than 256 facts (16-bit tie keys) are not covered: the numpy path runs them."""
    pytest.importorskip("numba")
    monkeypatch.setattr(kernel, "play_block", lambda *a, **k: (_ for _ in ()).throw(AssertionError("kernel")))
    cfg = BeliefConfig(facts=130, true_facts=5, false_facts=3, domain="abstract")
    assert _run(monkeypatch, "numba", cfg, 5).runs == 5
    assert not kernel.supported(engine.get_rule("additive"), 260, np.int8)
    assert not kernel.supported(engine.get_rule("additive"), 40, np.int32)
    assert not kernel.supported(engine.get_rule("additive"), 40, np.float16)
    assert kernel.supported(engine.get_rule("bayes"), 40, np.int8)


def test_switch_value_checked(monkeypatch):
    monkeypatch.setenv(kernel.KERNEL_ENV, "fortran")
    with pytest.raises(ValueError, match="IFWORLD_BELIEFS_KERNEL"):
        simulate(BeliefConfig(), seed=0, runs=2)


def test_kernel_identical_when_one_run_spans_several_selection_blocks(monkeypatch):
    """20,000 agents x 40 facts is wider than one selection block (2^19 cells): the numpy path reads
    the tie stream row by row, the kernel chunk by chunk, at the same indices."""
    pytest.importorskip("numba")
    cfg = BeliefConfig(agents=15_001, rounds=4, rule="bounded", noise=0.1)
    assert _digest(_run(monkeypatch, "numba", cfg, 2)) == _digest(_run(monkeypatch, "numpy", cfg, 2))
