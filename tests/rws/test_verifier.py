"""The LLM verifier: only after a non-correct programmatic verdict; stage recorded; low confidence → not_sure."""

from __future__ import annotations

import pytest

from ifworld.rws.dataset import RWSItem
from ifworld.rws.grading.grader import grade_item
from ifworld.rws.verifier import NOT_SURE_AT_OR_BELOW, LLMVerifier, grade_output

ITEM = RWSItem(id="t_1", q_id=1, question="What happens to the spiral angle when the wind speeds up?",
               final="It decreases", type="textual")
JUDGE = "rws.verifier.judge"


def _judge(verdict: str, confidence: float) -> dict:
    return {"verdict": verdict, "confidence": confidence, "pred_extracted": "p", "gt_extracted": "g",
            "reason": "scripted"}


def test_not_called_when_programmatic_says_correct(fake_server, settings):
    result = grade_item(ITEM, "Final Answer: It decreases", LLMVerifier(settings))
    assert result.verdict == "correct" and result.stage == "textual"
    assert fake_server.count() == 0


def test_parser_then_judge_decide_and_stage_is_recorded(fake_server, settings):
    fake_server.add_rule(JUDGE, _judge("correct", 0.9))
    verifier = LLMVerifier(settings)
    result = grade_item(ITEM, "Final Answer: the angle gets smaller", verifier)
    assert result.verdict == "correct" and result.stage == "verifier"
    assert "judge" in result.reason and "programmatic said" in result.reason
    assert fake_server.count("rws.verifier.parser") == 1 and fake_server.count("rws.verifier.judge") == 1
    assert [t["role"] for t in verifier.traces["t_1"]] == ["rws.verifier.parser", "rws.verifier.judge"]


@pytest.mark.parametrize("confidence,expected", [(NOT_SURE_AT_OR_BELOW, "not_sure"), (0.3, "not_sure"),
                                                 (0.61, "incorrect")])
def test_low_confidence_becomes_not_sure(confidence, expected, fake_server, settings):
    fake_server.add_rule(JUDGE, _judge("incorrect", confidence))
    result = grade_item(ITEM, "Final Answer: it grows", LLMVerifier(settings))
    assert result.verdict == expected and result.stage == "verifier"


def test_judge_invalid_json_keeps_programmatic_verdict(fake_server, settings):
    fake_server.inject("malformed", times=2, role=JUDGE)
    verifier = LLMVerifier(settings)
    result = grade_item(ITEM, "Final Answer: the angle gets smaller", verifier)
    assert result.stage == "textual" and result.verdict == "not_sure"
    assert verifier.traces["t_1"][-1]["status"] == "degraded"


def test_saved_verifier_grade_is_reused_without_a_model(fake_server, settings):
    fake_server.add_rule(JUDGE, _judge("correct", 0.95))
    first = grade_output(ITEM, "Final Answer: the angle gets smaller", verifier=LLMVerifier(settings))
    assert first["stage"] == "verifier" and first["verifier_trace"]
    fake_server.reset()
    again = grade_output(ITEM, "Final Answer: the angle gets smaller", saved=first)
    assert again["verdict"] == "correct" and again["stage"] == "verifier"
    assert fake_server.count() == 0
