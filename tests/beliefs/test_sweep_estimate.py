"""The sweep estimate: a cost model fitted on two timed tasks, summed over every task, spread over workers."""

from ifworld.beliefs import BeliefConfig, SweepSpec, estimate_sweep
from ifworld.beliefs.sweep_estimate import work

GRID = {"grid": {"agents": [10, 40], "facts": [10, 20]}, "seeds": [0, 1, 2], "runs": 5, "chunk_size": 4}


def linear_timer(fixed: float, per_unit: float):
    calls = []

    def timer(config: BeliefConfig, runs: int) -> float:
        calls.append((config.agents, config.facts, runs))
        return fixed + per_unit * work(config, runs)
    return timer, calls


def test_the_fit_recovers_a_linear_cost_and_sums_every_task() -> None:
    spec = SweepSpec.from_dict(GRID)
    timer, calls = linear_timer(0.002, 3e-8)
    est = estimate_sweep(spec, workers=1, timer=timer, pool_timer=lambda n: 99.0, overhead=lambda: 0.05)
    assert sorted(calls) == [(10, 10, 5), (40, 20, 5)]  # the lightest and the heaviest configuration only
    assert abs(est.fixed_s - 0.002) < 1e-9 and abs(est.per_unit_s - 3e-8) < 1e-15
    expected = sum(0.002 + 3e-8 * work(BeliefConfig.from_dict(c), 5) for c in spec.configs()) * 3
    assert abs(est.seconds - (0.05 + expected)) < 1e-9
    assert est.pool_s == 0.0 and est.workers == 1  # one worker: no pool is started, none is charged


def test_workers_share_the_work_and_pay_for_the_pool(monkeypatch) -> None:
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    spec = SweepSpec.from_dict(GRID)  # 12 tasks in 3 chunks
    timer, _ = linear_timer(0.002, 3e-8)
    one = estimate_sweep(spec, workers=1, timer=timer, pool_timer=lambda n: 0.5, overhead=lambda: 0.0)
    many = estimate_sweep(spec, workers=8, timer=timer, pool_timer=lambda n: 0.5, overhead=lambda: 0.0)
    assert many.workers == 2  # capped by the cores, not the 8 asked for
    assert abs(many.seconds - (0.5 + one.seconds / 2)) < 1e-9


def test_big_tasks_are_timed_on_fewer_runs() -> None:
    spec = SweepSpec.from_dict({"base": {"agents": 2000, "facts": 100}, "seeds": [0], "runs": 1000})
    timer, calls = linear_timer(0.0, 1e-8)
    est = estimate_sweep(spec, workers=1, timer=timer, overhead=lambda: 0.0)
    assert calls and calls[0][2] < 1000  # timed on a few runs, scaled to 1000
    assert abs(est.seconds - 1e-8 * work(BeliefConfig(agents=2000, facts=100), 1000)) < 1e-6


def test_the_real_timer_runs() -> None:
    est = estimate_sweep(SweepSpec.from_dict({"grid": {"agents": [4, 8]}, "seeds": [0], "runs": 2}), workers=1)
    assert 0 < est.seconds < 30 and est.tasks == 2
