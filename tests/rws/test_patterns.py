"""Every pattern's state machine against the fake server: exact calls per role on the accept and the reject
(retry) path, gates at the 0.7 threshold, malformed JSON → repair → degraded annotation."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ifworld.rws.benchmark import SAMPLE_PATH
from ifworld.rws.dataset import load_items
from ifworld.rws.patterns import GATE_CONFIDENCE, REGISTRY
from ifworld.rws.patterns.run import run_pattern
from ifworld.rws.patterns.schema import allocate

REVIEWERS = {"pace": "critic", "phase": "evaluator", "schema": "guard"}
REJECT = {"accept": False, "confidence": 0.9, "issues": ["units"], "fix": "convert to km/s"}


@pytest.fixture(scope="module")
def items() -> dict:
    return {i.id: i for i in load_items(SAMPLE_PATH).items}


def _counts(fake, pattern: str, roles) -> dict[str, int]:
    return {r: fake.count(f"rws.{pattern}.{r}") for r in roles}


def _calls(pattern: str, path: str) -> dict[str, int]:
    return dict(REGISTRY.get(pattern).calls[path])


def test_the_pattern_registry_loads_no_langgraph():
    """The CLI's help lists the registry's names; reading them must not load LangGraph (a slow import)."""
    code = ("import sys; from ifworld.rws.patterns import REGISTRY; "
            "assert REGISTRY.names()[0] == 'single', REGISTRY; "
            "assert 'langgraph' not in sys.modules and 'langchain_core' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


@pytest.mark.parametrize("pattern", REGISTRY.names())
def test_accept_path_call_counts(pattern, fake_server, settings, items):
    item = items["2025_IFW_2_b"]  # the scripted first answer is the gold: every review accepts
    result = run_pattern(pattern, item, settings)
    expected = _calls(pattern, "accept")
    assert _counts(fake_server, pattern, expected) == expected
    assert fake_server.count() == sum(expected.values()) == result["calls"]
    assert result["grade"]["verdict"] == "correct"
    assert result["answer"] == item.final
    assert result["raw_output"].splitlines()[-1].startswith("Final Answer:")
    assert all(t["input"] and "output" in t for t in result["trace"])


@pytest.mark.parametrize("pattern", ["pace", "phase", "schema"])
def test_reject_path_retries_once(pattern, fake_server, settings, items):
    role = REVIEWERS[pattern]
    fake_server.add_rule(f"rws.{pattern}.{role}", REJECT)
    result = run_pattern(pattern, items["2025_IFW_2_b"], settings)
    expected = _calls(pattern, "reject")
    assert _counts(fake_server, pattern, expected) == expected
    assert fake_server.count() == sum(expected.values())
    steps = [t["step"] for t in result["trace"]]
    assert any(s.endswith("_retry") for s in steps)


@pytest.mark.parametrize("pattern", ["pace", "phase", "schema"])
def test_gate_needs_confidence_at_threshold(pattern, fake_server, settings, items):
    low = {"accept": True, "confidence": GATE_CONFIDENCE - 0.05, "issues": [], "fix": "double-check"}
    fake_server.add_rule(f"rws.{pattern}.{REVIEWERS[pattern]}", low)
    run_pattern(pattern, items["2025_IFW_2_b"], settings)
    assert fake_server.count() == sum(_calls(pattern, "reject").values())
    fake_server.reset()
    fake_server.rules.pop(0)
    fake_server.add_rule(f"rws.{pattern}.{REVIEWERS[pattern]}", {**low, "confidence": GATE_CONFIDENCE})
    run_pattern(pattern, items["2025_IFW_2_b"], settings)
    assert fake_server.count() == sum(_calls(pattern, "accept").values())


def test_scripted_wrong_first_answer_is_fixed_by_the_gate(fake_server, settings, items):
    item = items["2025_IFW_1_b"]  # the fake server answers this one wrongly first
    assert run_pattern("single", item, settings)["grade"]["verdict"] == "incorrect"
    result = run_pattern("pace", item, settings)
    assert result["grade"]["verdict"] == "correct"
    assert fake_server.count("rws.pace.answer#retry") == 1


def test_malformed_json_is_repaired(fake_server, settings, items):
    fake_server.inject("malformed", times=1, role="rws.pace.planner")
    result = run_pattern("pace", items["2025_IFW_2_b"], settings)
    assert fake_server.count("rws.pace.planner") == 2  # the reply and the repair turn
    assert not result["degraded"] and result["grade"]["verdict"] == "correct"


@pytest.mark.parametrize("pattern,role", [("pace", "critic"), ("phase", "planner"), ("schema", "architect")])
def test_json_role_still_invalid_degrades_without_crashing(pattern, role, fake_server, settings, items):
    fake_server.inject("malformed", times=2, role=f"rws.{pattern}.{role}")
    result = run_pattern(pattern, items["2025_IFW_2_b"], settings)
    assert result["degraded"]
    assert any(a.startswith("degraded:") for a in result["annotations"])
    assert any(t["status"] == "degraded" for t in result["trace"])
    assert result["raw_output"] and result["grade"]["verdict"] == "correct"


def test_allocator_infers_a_sequence_when_architecture_is_unusable():
    steps, notes = allocate(None)
    assert 1 <= len(steps) <= 3 and notes
    many = {"expert_sequence": [{"role": f"Role {i}!", "prompt": "do it"} for i in range(5)]}
    steps, notes = allocate(many)
    assert len(steps) == 3 and steps[0]["role"] == "role 0" and steps[0]["acceptance"]


def test_model_override_reaches_the_endpoint(fake_server, settings, items):
    run_pattern("single", items["2025_IFW_2_b"], settings, model="fake-judge")
    assert fake_server.requests[-1].body["model"] == "fake-judge"


def test_phase_finalises_the_retried_solution_even_when_its_review_fails() -> None:
    from ifworld.rws.patterns.phase import best_answer

    out = {"solver": "Final Answer: 1", "solver_retry": "Final Answer: 2",
           "evaluator": {"accept": False, "confidence": 0.9}, "evaluator_retry": {"accept": False, "confidence": 0.1}}
    assert best_answer(out) == ("Final Answer: 2", "solver_retry")
    assert best_answer({"solver": "Final Answer: 1"}) == ("Final Answer: 1", "solver")


def test_verifier_judge_runs_at_temperature_one(monkeypatch) -> None:
    from ifworld import llm
    from ifworld.config import Settings
    from ifworld.rws import verifier
    from ifworld.rws.dataset import RWSItem
    from ifworld.rws.grading.grader import check

    seen: dict = {}

    def fake_structured(role, messages, schema, *, settings=None, meta=None, callbacks=None):
        seen[role] = settings.temperature
        if schema is verifier.ParsedAnswers:
            return schema(pred_norm="x", gt_norm="y", type="textual")
        return schema(verdict="incorrect", confidence=0.9)

    monkeypatch.setattr(llm, "structured", fake_structured)
    item = RWSItem(id="t_1", q_id=1, question="q", final="the bow shock", type="textual")
    settings = Settings(temperature=0.2)
    verifier.verify(item, "something else", check("something else", "the bow shock", "textual"), settings)
    assert verifier.JUDGE_TEMPERATURE == 1.0
    assert seen == {verifier.PARSER_ROLE: 0.2, verifier.JUDGE_ROLE: 1.0}
