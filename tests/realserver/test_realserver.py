"""End to end against a real llama.cpp server (llama-cpp-python + Gemma 3 270M, CPU): every LLM workflow.

The model is a tiny base model, so these tests assert the contract — the connection check works and
``auto`` settles on a method the server accepts, runs complete, records validate against their schemas,
usage and timings are recorded, no key reaches the store — never the content.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from ifworld import llm, runs
from ifworld.beliefs.config import BeliefConfig
from ifworld.beliefs.llm_agents import make_params
from ifworld.config import load_settings
from ifworld.runs.driver import RunFailed
from ifworld.runs.store import RunStore
from ifworld.rws.benchmark import benchmark_params, load_sample
from ifworld.whatif import service
from ifworld.whatif.graph import MAX_REFINER_ADDITIONS
from ifworld.whatif.params import RECORD_KEYS, default_params
from ifworld.whatif.records import WhatIfRecord
from tests.realserver.server import CONTEXT_TOKENS, prompt_evals

pytestmark = [pytest.mark.realserver, pytest.mark.slow]

SECRET = "sk-realserver-NeverStoreThis-0123456789"
PROPOSITION = "What if the Moon disappeared overnight?"
# One slot on llama-cpp-python's server: requests beyond it queue without a byte, which a read timeout would
# count as silence. Bounds keep a tiny model's loops short; the resolver's adjudication of two experts needs
# more room (measured: 704–1,145 tokens, cut at 512 in 2 of 3 runs), and so does the core report writer (cut at
# 1,024 after the retry once in CI); the generous timeout covers a loaded CPU.
# llama-cpp-python's server does not report its window (llama.cpp's own /props does): it is set, as a user would.
SERVER_SETTINGS = {"max_concurrency": 1, "max_tokens": 512,
                   "role_max_tokens": {"whatif.resolver": 1024, "whatif.report": 1024},
                   "timeout_s": 300, "max_retries": 1, "retry_backoff_s": 0.5, "context_tokens": CONTEXT_TOKENS}
FIGURES: dict[str, dict] = {}


@pytest.fixture
def rs(real_server, tmp_path: Path):
    settings = load_settings({"base_url": real_server.url, "model": real_server.model, "api_key": SECRET,
                              "db_path": tmp_path / "runs.sqlite", **SERVER_SETTINGS})
    store = RunStore(tmp_path / "store.sqlite")
    yield settings, store
    store.close()
    for path in tmp_path.glob("*.sqlite*"):
        assert SECRET.encode() not in path.read_bytes(), f"the API key reached {path.name}"


def _calls_are_accounted(calls: list[dict]) -> None:
    """Every call ended and carries usage and timings. Two endings are the tiny model's content, not the
    contract, and the workflow degrades on them as on any failed step: a reply cut at the bound
    (``truncated``) and a reply that was still not valid JSON after the repair turn (``failed``, seen once in CI
    on a report section). Any other failure (refused request, transport, timeout) fails the test."""
    assert calls
    for c in calls:
        content_failure = c["status"] == "failed" and str(c.get("error", "")).startswith("invalid JSON after repair")
        assert c["status"] in ("ok", "repaired", "truncated") or content_failure, c
        assert c["prompt_tokens"] > 0 and c["completion_tokens"] >= 0 and c["latency_s"] > 0, c


def _figures(name: str, real_server, log_from: int, calls: list[dict], seconds: float) -> None:
    evals = prompt_evals(real_server.log_text()[log_from:])
    tokens = sum(c["completion_tokens"] for c in calls)
    gen_s = sum(c["latency_s"] for c in calls)
    FIGURES[name] = {"calls": len(calls), "minutes": round(seconds / 60, 2),
                     "prompt_tokens": sum(c["prompt_tokens"] for c in calls),
                     "prompt_tokens_evaluated": sum(n for n, _ in evals),
                     "completion_tokens": tokens, "tokens_per_s": round(tokens / gen_s, 1) if gen_s else None}
    print(f"\nREALSERVER {name}: {FIGURES[name]}")


def test_connection_picks_a_working_method(real_server, rs):
    settings, _ = rs
    report = llm.test_connection(settings)
    assert report.ok and report.structured_ok, report.message
    assert report.method == "function_calling"  # json_schema is refused with a 500 naming response_format
    assert report.tokens_per_s and report.tokens_per_s > 0 and "tokens/s" in report.message
    assert SECRET not in report.message


def test_whatif_single_agent(real_server, rs):
    settings, store = rs
    mark, start = len(real_server.log_text()), time.monotonic()
    rec = service.run(default_params(PROPOSITION, "single"), settings=settings, store=store)
    assert set(RECORD_KEYS) <= set(rec) and rec["report"]
    WhatIfRecord.model_validate(rec)
    _calls_are_accounted(rec["calls"])
    assert llm.known_method(settings, "whatif.single") == "function_calling"
    _figures("what-if single agent", real_server, mark, rec["calls"], time.monotonic() - start)


# The tiny model's content, not the contract: a reply still not JSON after the repair turn, or one that loops
# to the bound even after the retry with a larger one (both seen in CI on the core report writer).
CONTENT_FAILURES = ("not valid JSON after one repair", "reply truncated at")
MAX_RESUMES = 2


def _content_failure(exc: RunFailed) -> bool:
    return any(words in str(exc) for words in CONTENT_FAILURES)


def _run_resuming(params: dict, settings, store) -> tuple[dict, int]:
    """Run to the end the way a user would: a step whose reply is one of the :data:`CONTENT_FAILURES` stops
    the run resumably, and
    ``resume`` continues it from its checkpoint — no expert is asked again and no finished call is lost."""
    try:
        return service.run(params, settings=settings, store=store), 0
    except RunFailed as exc:
        if not _content_failure(exc):
            raise
        failure, run_id = exc, exc.run_id
    for resumes in range(1, MAX_RESUMES + 1):
        before = {c["call_id"] for c in store.calls(run_id)}
        try:
            return service.continue_run(run_id, settings=settings, store=store), resumes
        except RunFailed as exc:
            if not _content_failure(exc):
                raise
            failure = exc
        finally:
            after = store.calls(run_id)
            assert before <= {c["call_id"] for c in after}
            assert not [c for c in after if c["call_id"] not in before and c["role"] == "whatif.expert"]
    raise failure


def test_ifworld_two_experts_one_round(real_server, rs):
    settings, store = rs
    mark, start = len(real_server.log_text()), time.monotonic()
    params = default_params(PROPOSITION, "ifworld", experts=["physics", "economics"], rounds=1)
    rec, resumes = _run_resuming(params, settings, store)
    record = WhatIfRecord.model_validate(rec)
    assert [r.round for r in record.rounds] == [1] and record.report is not None
    # the panel is exactly the user's two (issue #30 item 1; the refiner's additions are only the extend_panel
    # option, up to MAX_REFINER_ADDITIONS): every expert that ran or failed is on it
    panel = set(rec["panel"])
    assert panel == {"physics", "economics"} and MAX_REFINER_ADDITIONS == 2
    assert set(rec["rounds"][0]["experts"]) | set(rec["rounds"][0].get("failed") or {}) <= panel
    _calls_are_accounted(rec["calls"])
    # every agent's prompt was fitted to the real window, counted by the server's own tokenizer, and recorded
    packed = [c["inputs"] for c in rec["calls"] if c.get("inputs")]
    assert {c["role"] for c in rec["calls"] if c.get("inputs")} >= {"whatif.expert", "whatif.resolver"}
    for inputs in packed:
        assert inputs["window"] == CONTEXT_TOKENS and inputs["window_source"] == "IFWORLD_CONTEXT_TOKENS"
        # llama-cpp-python's /extras/tokenize routes are disabled in some releases: then cl100k × margin counts
        assert inputs["counter"] in ("server (llama-cpp-python /extras/tokenize/count)",
                                     "tiktoken cl100k_base × 1.15"), inputs["counter"]
    _figures("IF-World 2 experts x 1 round", real_server, mark, rec["calls"], time.monotonic() - start)
    FIGURES["IF-World 2 experts x 1 round"]["counter"] = packed[0]["counter"]
    FIGURES["IF-World 2 experts x 1 round"]["resumes"] = resumes
    FIGURES["IF-World 2 experts x 1 round"]["lowest_share"] = {
        c["role"]: min(p["share"] for p in c["inputs"]["parts"].values()) for c in rec["calls"] if c.get("inputs")}


def test_rws_single_shot_three_items(real_server, rs):
    settings, store = rs
    mark, start = len(real_server.log_text()), time.monotonic()
    rec = runs.execute("rws.benchmark", benchmark_params(load_sample()[:3], ["single"], verify=False), store=store,
                       settings=settings)
    calls = store.calls(store.list_runs(kind="rws")[0].id)
    assert len(calls) == 3
    _calls_are_accounted(calls)
    assert "items" in str(rec.keys()) or rec  # the benchmark record exists
    _figures("RWS single-shot, 3 items", real_server, mark, calls, time.monotonic() - start)


def test_llm_beliefs_four_agents_two_rounds(real_server, rs):
    settings, store = rs
    mark, start = len(real_server.log_text()), time.monotonic()
    config = BeliefConfig(agents=4, facts=5, true_facts=2, false_facts=1, bandwidth=2, rounds=2)
    rec = runs.execute("beliefs.llm", make_params(config, seed=1), store=store, settings=settings)
    calls = store.calls(store.list_runs(kind="beliefs")[0].id)
    assert rec["final"]["rounds_used"] <= 2 and len(calls) >= 4
    _calls_are_accounted(calls)
    _figures("LLM beliefs 4 agents x 2 rounds", real_server, mark, calls, time.monotonic() - start)
