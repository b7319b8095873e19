"""Fault injection: each LLM workflow under malformed JSON, 429/500 bursts, slow replies and an outage.

Every run must either complete (degraded steps marked) or stop with a clear, resumable error that a resume
then finishes. 'wasted' = requests beyond a clean run of the same parameters (retries, repairs, re-sends).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from ifworld import runs
from ifworld.runs.store import RunStore
from ifworld.rws.benchmark import benchmark_params, load_sample
from tests.reliability.belief_params import llm_belief_params
from tests.reliability.conftest import OUTCOMES


@dataclass(frozen=True)
class Case:
    name: str
    workflow: str
    params: Callable[[], dict]


CASES = [
    Case("whatif", "whatif.ifworld", lambda: {"proposition": "What if the Moon disappeared?", "method": "ifworld",
                                              "experts": ["physics", "biology/ecology", "economics"], "rounds": 2}),
    Case("rws pace", "rws.benchmark", lambda: benchmark_params(load_sample()[:3], ["pace"])),
]
CASES.append(Case("beliefs llm", "beliefs.llm", llm_belief_params))


def _settings(settings, **update):
    return settings.model_copy(update={"max_retries": 3, "retry_backoff_s": 0.01, "timeout_s": 3,
                                       "max_concurrency": 4, **update})


def _baseline(case: Case, settings, store: RunStore, fake) -> tuple[int, dict]:
    before = fake.count(status=None)
    record = runs.execute(case.workflow, case.params(), store=store, settings=_settings(settings))
    return fake.count(status=None) - before, record


def _attempt(case: Case, settings, store: RunStore, fake, heal: Callable[[], None]) -> tuple[str, dict]:
    """Run; on a resumable failure heal the fault and resume. Returns (outcome, record)."""
    try:
        return "completed", runs.execute(case.workflow, case.params(), store=store, settings=settings)
    except runs.RunFailed as exc:
        assert "ifworld runs resume" in str(exc)
        info = store.get_run(exc.run_id)
        assert info.status == "failed" and info.error
        heal()
        record = runs.drive(exc.run_id, store=store, settings=_settings(settings))
        return "resumed", record


SCENARIOS = ["malformed 30%", "429/500 bursts", "slower than timeout", "server away and back"]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_fault_scenario(case: Case, scenario: str, fake_server, settings, store: RunStore) -> None:
    baseline, clean = _baseline(case, settings, store, fake_server)
    fake_server.reset()
    cfg = _settings(settings)
    heal = fake_server.clear_faults
    if scenario == "malformed 30%":
        fake_server.inject("malformed", rate=0.3)
    elif scenario == "429/500 bursts":
        fake_server.inject("429", times=3)
        fake_server.inject("500", times=3)
    elif scenario == "slower than timeout":
        fake_server.inject("timeout", times=2, delay=2.0)
        cfg = _settings(settings, timeout_s=0.8)
    else:
        def outage() -> None:
            while fake_server.count(status=None) < max(2, baseline // 3):
                time.sleep(0.01)
            fake_server.stop()

        watcher = threading.Thread(target=outage, daemon=True)
        watcher.start()
        cfg = _settings(settings, max_retries=1)

        def heal() -> None:  # noqa: F811 — the outage heals by the server coming back
            watcher.join(timeout=30)
            fake_server.start()

    outcome, record = _attempt(case, cfg, store, fake_server, heal)
    fake_server.clear_faults()
    requests = fake_server.count(status=None)
    OUTCOMES.append({"workflow": case.name, "scenario": scenario, "outcome": outcome, "requests": requests,
                     "baseline": baseline, "wasted": max(0, requests - baseline)})
    assert outcome in ("completed", "resumed")
    assert set(record) >= set(clean) - {"judge"}, "the faulted run's record lacks keys a clean run has"
