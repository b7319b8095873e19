"""A signal's KeyboardInterrupt that a library swallowed still stops the run at the next step boundary.

CI once saw SIGINT and SIGHUP sent mid-run and the run finish anyway (``done 15/15``, no resume hint):
LangGraph's future callback catches ``BaseException``, so an interrupt raised while it runs is lost. The
CLI's handler also records the signal in ``runs.lease.SIGNALLED``; the driver raises it again between chunks.
"""

from __future__ import annotations

import pytest

from ifworld.runs import lease
from ifworld.runs.driver import _watch


class _NoStore:
    def cancel_requested(self, run_id: str) -> bool:
        return False


def test_a_recorded_signal_stops_the_driver_at_the_next_chunk(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lease, "SIGNALLED", [])
    monkeypatch.setattr("ifworld.runs.driver.SIGNALLED", lease.SIGNALLED)
    seen = []
    chunks = _watch(iter([("updates", 1), ("updates", 2), ("updates", 3)]), _NoStore(), "r", {})
    with pytest.raises(KeyboardInterrupt):
        for _mode, payload in chunks:
            seen.append(payload)
            lease.SIGNALLED.append(2)  # the handler ran; its own KeyboardInterrupt was swallowed elsewhere
    assert seen == [1]


def test_without_a_signal_every_chunk_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("ifworld.runs.driver.SIGNALLED", [])
    chunks = _watch(iter([("updates", 1), ("updates", 2)]), _NoStore(), "r", {})
    assert [p for _, p in chunks] == [1, 2]
