"""Whole runs through the fake server's hostile modes: a what-if run and an RWS run complete (the hit step
degraded, with a readable message) when one call's replies are not UTF-8, hold lone surrogates or nest 10⁶
brackets deep; and 2 MB replies leave a bounded store and record."""

from __future__ import annotations

import json
import resource
from pathlib import Path

import pytest

from ifworld import runs
from ifworld.llm.reply import MAX_REPLY_CHARS
from ifworld.runs.store import RunStore
from ifworld.rws.benchmark import benchmark_params, load_sample

BARE_NAMES = ("UnicodeDecodeError", "UnicodeEncodeError", "RecursionError")
WHATIF = {"proposition": "What if the Moon disappeared?", "method": "ifworld",
          "experts": ["physics", "biology/ecology", "economics"], "rounds": 1, "debate": False}
READABLE = {"bad_utf8": "not UTF-8 text", "deep_nesting": f"more than {MAX_REPLY_CHARS:,} characters"}


def _settings(settings):
    return settings.model_copy(update={"max_retries": 1, "retry_backoff_s": 0.01, "timeout_s": 30})


def _no_surrogate(text: str) -> bool:
    return not any(0xD800 <= ord(ch) <= 0xDFFF for ch in text)


@pytest.mark.parametrize("kind", ["bad_utf8", "surrogate", "deep_nesting"])
def test_whatif_run_survives_a_hostile_expert(kind: str, fake_server, settings, store: RunStore) -> None:
    # every attempt of the physics expert's call (and its bound retry) gets the hostile reply
    fake_server.inject(kind, times=4, match="You are the physics expert")
    record = runs.execute("whatif.ifworld", WHATIF, store=store, settings=_settings(settings))
    info = store.list_runs()[0]
    assert info.status == "completed" and record["report"]
    text = json.dumps(record, ensure_ascii=False)
    assert not any(name in text for name in BARE_NAMES) and _no_surrogate(text)
    if kind == "surrogate":  # readable once the surrogates are replaced: nothing to degrade
        assert "\ufffd" in text and not record.get("degraded")
    else:
        (note,) = [d for d in record["degraded"] if "physics expert" in d]
        assert READABLE[kind] in note, note
    assert all(_no_surrogate(c["output"] or "") for c in store.calls(info.id))


@pytest.mark.parametrize("kind", ["bad_utf8", "surrogate", "deep_nesting"])
def test_rws_run_survives_hostile_replies(kind: str, fake_server, settings, store: RunStore) -> None:
    fake_server.inject(kind, times=4, role="rws.pace.critic")  # a JSON role: it degrades
    params = benchmark_params(load_sample()[:2], ["pace"])
    record = runs.execute("rws.benchmark", params, store=store, settings=_settings(settings))
    info = store.list_runs()[0]
    assert info.status == "completed" and record["summary"]
    text = json.dumps(record, ensure_ascii=False)
    assert not any(name in text for name in BARE_NAMES) and _no_surrogate(text)
    if kind != "surrogate":
        assert READABLE[kind] in text
    assert all(_no_surrogate(c["output"] or "") for c in store.calls(info.id))


def _store_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*")) / 1e6


@pytest.mark.parametrize("stream", [True, False])
def test_two_megabyte_replies_leave_a_bounded_store(stream: bool, fake_server, settings, tmp_path: Path) -> None:
    db = tmp_path / "huge.sqlite"
    store = RunStore(db)
    fake_server.inject("huge", times=None, rate=1.0)  # every reply carries a 2 MB string
    params = {"topic": "the Moon", "workers": 2}
    cfg = settings.model_copy(update={"stream": stream, "timeout_s": 60, "max_concurrency": 2})
    record = runs.execute("demo.fanout", params, store=store, settings=cfg)
    calls = store.calls(store.list_runs()[0].id)
    assert len(calls) == 3 and record["calls"] == 3
    assert all(len(c["output"]) <= MAX_REPLY_CHARS + 300 for c in calls)
    assert all(c["output_chars"] >= MAX_REPLY_CHARS and len(c["output_sha256"]) == 64 for c in calls)
    stored = len(json.dumps(store.get_run(store.list_runs()[0].id).record))
    store.close()
    size = _store_mb(db)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\n2 MB replies, 3 calls, stream={stream}: store {size:.1f} MB, record {stored / 1e6:.2f} MB, "
          f"peak RSS {peak:.0f} MB")
    assert size < 8 and stored < 1_000_000  # 3 × 2 MB arrived; at most 100,000 characters a reply are kept
