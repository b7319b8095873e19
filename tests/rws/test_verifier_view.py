"""What the LLM verifier sees and when it runs (paper §4.1, Appendix D): on by default whenever a model is
configured; by default the Parser gets only the prediction, the ground truth and the type, the Judge only the
two normalised answers and the type; ``--verifier-sees-grader`` adds the programmatic grader's reason."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from ifworld.rws.benchmark import SAMPLE_PATH
from ifworld.rws.cli import app as rws_app
from ifworld.rws.dataset import RWSItem
from ifworld.rws.grading.grader import grade_item
from ifworld.rws.verifier import LLMVerifier
from tests.fixtures.fake_openai import last_user

ITEM = RWSItem(id="t_v", q_id=1, question="How fast is the wind at 1 AU in this QUESTION-MARKER setting?",
               final="400 km/s", type="numeric", hint="km/s, HINT-MARKER")
WRONG = "Final Answer: 120 km/s"


def _user(fake, role: str) -> str:
    return next(last_user(r.body) for r in fake.requests if (r.role or "") == role)


def test_default_verifier_sees_only_what_the_paper_gives_it(fake_server, settings):
    result = grade_item(ITEM, WRONG, LLMVerifier(settings))
    assert result.stage == "verifier"
    parser, judge = _user(fake_server, "rws.verifier.parser"), _user(fake_server, "rws.verifier.judge")
    assert "120 km/s" in parser and "400 km/s" in parser and "numeric" in parser
    assert "120 km/s" in judge and "400 km/s" in judge and "numeric" in judge
    for text in (parser, judge):
        assert "QUESTION-MARKER" not in text and "HINT-MARKER" not in text
        assert "Programmatic grader" not in text and "tolerance miss" not in text.lower()


def test_verifier_sees_grader_adds_the_graders_reason_to_the_judge_only(fake_server, settings):
    programmatic = grade_item(ITEM, WRONG)
    grade_item(ITEM, WRONG, LLMVerifier(settings, sees_grader=True))
    judge, parser = _user(fake_server, "rws.verifier.judge"), _user(fake_server, "rws.verifier.parser")
    assert f"Programmatic grader's note: {programmatic.reason}" in judge
    assert "Programmatic grader" not in parser and "QUESTION-MARKER" not in judge


def _run(tmp_path, *flags: str) -> dict:
    out = tmp_path / "r.json"
    res = CliRunner().invoke(rws_app, ["run", "--pattern", "single", "--data", str(SAMPLE_PATH), "--limit", "1",
                                       "--out", str(out), *flags])
    assert res.exit_code == 0, res.output
    return json.loads(out.read_text())


@pytest.mark.parametrize("flags,verifier_calls,sees", [((), 2, False), (("--no-verify",), 0, False),
                                                        (("--verifier-sees-grader",), 2, True)])
def test_cli_runs_the_verifier_by_default(flags, verifier_calls, sees, llm_env, tmp_path):
    record = _run(tmp_path, *flags)  # the first sample item's scripted first answer is wrong
    assert llm_env.count("rws.verifier.") == verifier_calls
    assert record["verify"] is (verifier_calls > 0) and record["verifier_sees_grader"] is sees
    grade = record["results"][0]["grade"]
    assert grade["stage"] == ("verifier" if verifier_calls else "symbolic")
    if verifier_calls:
        assert ("Programmatic grader's note" in _user(llm_env, "rws.verifier.judge")) is sees
