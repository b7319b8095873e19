"""A process told to stop (the CLI's signal handler) starts no further model call: the next call raises
:class:`ifworld.stopping.Stopping` — a ``KeyboardInterrupt``, which no ``except Exception`` turns into a degraded
answer — and the server receives nothing (tests/reliability/test_stop_signals.py checks the whole commands)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ifworld import llm, stopping


@pytest.fixture
def stopped() -> Iterator[None]:
    stopping.request_stop()
    yield
    stopping._STOPPING.clear()  # the flag is process-wide: the tests after this one run normally


def test_a_stopped_process_sends_no_model_call(fake_server, settings, stopped: None) -> None:  # noqa: ANN001, ARG001
    fake_server.add_rule("test.stop", "a reply long enough to count as free text")
    with pytest.raises(stopping.Stopping):
        llm.complete("test.stop", [("system", "Agent role: test.stop")], settings=settings)
    assert fake_server.requests == []
    try:
        llm.complete("test.stop", [("system", "Agent role: test.stop")], settings=settings)
    except Exception:  # noqa: BLE001 — what a pattern's degrade path catches
        pytest.fail("Stopping was caught as an ordinary error")
    except KeyboardInterrupt:
        pass


def test_calls_go_out_when_nobody_asked_to_stop(fake_server, settings) -> None:  # noqa: ANN001
    fake_server.add_rule("test.stop", "a reply long enough to count as free text")
    assert not stopping.stopping()
    assert llm.complete("test.stop", [("system", "Agent role: test.stop")], settings=settings)
    assert len(fake_server.requests) == 1
