"""SCHEMA against the fake server, as the paper's conductor runs it (Appendix B.5, C.4): the order and number of
calls on both Guard branches, what each role is shown, and what code does when a JSON role degrades."""

from __future__ import annotations

import pytest

from ifworld.rws.benchmark import SAMPLE_PATH, estimate_calls
from ifworld.rws.dataset import load_items
from ifworld.rws.patterns import REGISTRY
from ifworld.rws.patterns.run import run_pattern
from tests.fixtures.fake_openai import last_user

GUARD = "rws.schema.guard"
ALLOCATOR = "rws.schema.allocator"
ACCEPT_SEQUENCE = ["architect", "allocator", "qtype", "expert", "expert", "synthesizer", "guard", "finalizer"]
REJECT_SEQUENCE = ["architect", "allocator", "qtype", "expert", "expert", "synthesizer", "guard",
                   "synthesizer#retry", "finalizer"]


@pytest.fixture(scope="module")
def item():
    return {i.id: i for i in load_items(SAMPLE_PATH).items}["2025_IFW_2_b"]


def _sequence(fake) -> list[str]:
    return [(r.role or "").removeprefix("rws.schema.") for r in fake.requests]


def _user(fake, role: str) -> str:
    return next(last_user(r.body) for r in fake.requests if (r.role or "") == f"rws.schema.{role}")


def test_guard_accepts_eight_calls_in_the_papers_order(fake_server, settings, item):
    result = run_pattern("schema", item, settings)
    assert _sequence(fake_server) == ACCEPT_SEQUENCE
    assert len(ACCEPT_SEQUENCE) == sum(REGISTRY.get("schema").calls["accept"].values()) == result["calls"] == 8
    assert result["grade"]["verdict"] == "correct"
    assert [t["step"] for t in result["trace"]] == ["architect", "allocator", "qtype", "expert_1", "expert_2",
                                                    "synthesizer", "guard", "finalizer"]


def test_guard_rejects_then_synthesizer_runs_again_before_the_finalizer(fake_server, settings, item):
    fake_server.add_rule(GUARD, {"accept": False, "confidence": 0.9, "issues": ["unit"], "fix": "use km/s"})
    result = run_pattern("schema", item, settings)
    assert _sequence(fake_server) == REJECT_SEQUENCE
    assert len(REJECT_SEQUENCE) == sum(REGISTRY.get("schema").calls["reject"].values()) == result["calls"] == 9
    assert "use km/s" in _user(fake_server, "synthesizer#retry")  # the Guard's fix reaches the correction


def test_each_role_sees_what_the_papers_conductor_passes(fake_server, settings, item):
    run_pattern("schema", item, settings)
    question = item.question
    assert question in _user(fake_server, "architect") and question in _user(fake_server, "allocator")
    assert '"expert_sequence"' in _user(fake_server, "allocator")  # ARCH
    qtype = _user(fake_server, "qtype")
    assert question not in qtype and '"expert_sequence"' in qtype and '"steps"' in qtype  # ARCH + ALLOC only
    expert = _user(fake_server, "expert")
    assert question in expert and "Question type: numeric" in expert and "Set up the relation" in expert
    synth = _user(fake_server, "synthesizer")
    assert question in synth and "Question type: numeric" in synth and "Worked my step" in synth
    guard = _user(fake_server, "guard")
    assert question not in guard and '"checks"' in guard and "Question type: numeric" in guard
    assert "Final Answer:" in guard  # the synthesis
    final = _user(fake_server, "finalizer")
    assert question not in final and final.startswith("Message:")


def test_allocator_with_no_steps_runs_no_expert(fake_server, settings, item):
    fake_server.add_rule(ALLOCATOR, {"steps": [], "q_type": "numeric", "notes": "none needed"})
    result = run_pattern("schema", item, settings)
    assert _sequence(fake_server) == ["architect", "allocator", "qtype", "synthesizer", "guard", "finalizer"]
    assert result["calls"] == REGISTRY.get("schema").calls_range()[0] == 6
    assert any("no expert steps" in a for a in result["annotations"])


def test_allocator_caps_at_three_experts(fake_server, settings, item):
    steps = [{"role": "physics", "prompt": f"step {i}", "produces": "x"} for i in range(5)]
    fake_server.add_rule(ALLOCATOR, {"steps": steps, "q_type": "numeric"})
    result = run_pattern("schema", item, settings)
    assert _sequence(fake_server).count("expert") == 3
    assert any("kept the first 3 of 5" in a for a in result["annotations"])


def test_degraded_allocator_falls_back_to_the_architects_sequence(fake_server, settings, item):
    fake_server.inject("malformed", times=2, role=ALLOCATOR)
    result = run_pattern("schema", item, settings)
    assert result["degraded"] and _sequence(fake_server).count("expert") == 2
    assert any("architect's expert sequence" in a for a in result["annotations"])
    assert result["grade"]["verdict"] == "correct"


def test_estimates_span_no_expert_to_three_experts_and_a_correction():
    assert REGISTRY.get("schema").calls_range() == (6, 10)
    assert estimate_calls(5, ["schema"])["schema"] == (30, 50)


def test_readme_and_docs_state_the_call_counts_the_state_machines_make():
    from pathlib import Path

    from ifworld.rws.patterns import schema
    from ifworld.rws.patterns.schemas import MAX_EXPERTS

    root = Path(__file__).resolve().parents[2]
    readme, docs = (root / "README.md").read_text("utf-8"), (root / "docs" / "rws.md").read_text("utf-8")
    counts = {p: REGISTRY.get(p).calls_range() for p in ("single", "hmaw", "pace", "phase")}
    stated = "single {0[0]}, HMAW {1[0]}, PACE {2[0]}–{2[1]}, PHASE {3[0]}–{3[1]}".format(*counts.values())
    assert stated in " ".join(readme.split())
    assert f"SCHEMA {schema.FIXED_CALLS} + E experts (0–{MAX_EXPERTS}) + 1 if its Guard rejects" in " ".join(
        readme.split())
    accept, reject = (sum(REGISTRY.get("schema").calls[k].values()) for k in ("accept", "reject"))
    assert f"| {schema.FIXED_CALLS}+E / {schema.FIXED_CALLS + 1}+E (E = experts; {accept} / {reject} " in docs
