"""Judge, evaluation harness and the `ifworld whatif` CLI."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from ifworld.runs.store import get_store
from ifworld.whatif import estimate_calls, judge_record, run_eval
from ifworld.whatif.cli import JUDGE_KEYS, app
from ifworld.whatif.judge import JUDGE_SEED
from ifworld.whatif.service import load_record
from tests.whatif.conftest import PROP

BAD_JUDGE = {"rigor_traceability": 20, "integration_causality": 20, "feasibility_minimality": 10,
             "uncertainty_adaptation": 10, "decisionability": 10, "overall": 95, "rationale": "generous"}


def test_judge_is_blind_neutral_and_logged(run_whatif, fake_server, wsettings, store):
    rec = run_whatif(rounds=1)
    fake_server.reset()
    result = judge_record(rec, wsettings, store=store)
    assert set(JUDGE_KEYS) <= set(result) and result["overall"] == sum(result[k] for k in JUDGE_KEYS[:-1])
    assert result["overall_mismatch"] is False
    body = fake_server.requests[0].body
    assert body["temperature"] == 0 and "ifworld" not in json.dumps(body["messages"]).lower()
    assert body["seed"] == JUDGE_SEED == result["seed"]  # the judge records the seed it sent
    assert "independent evaluator" in body["messages"][0]["content"]
    stored = store.get_run(rec["run_id"]).record
    assert stored["judge"]["overall"] == result["overall"] and len(stored["judgements"]) == 1
    assert any(c["role"] == "whatif.judge" for c in store.calls(rec["run_id"]))
    assert load_record(rec["run_id"], store)["calls"][0]["prompt_tokens"] > 0


def test_judge_overall_mismatch_flagged(run_whatif, fake_server, wsettings):
    rec = run_whatif(method="single")
    fake_server.add_rule("whatif.judge", BAD_JUDGE, "whatif.judge.bad")
    result = judge_record(rec, wsettings)
    assert result["overall"] == 70 and result["reported_overall"] == 95 and result["overall_mismatch"] is True


def test_judge_repairs_malformed_json(run_whatif, fake_server, wsettings):
    rec = run_whatif(method="single")
    fake_server.inject("malformed", times=1, role="whatif.judge")
    assert judge_record(rec, wsettings)["overall"] > 0


def test_run_eval_tables_and_files(fake_server, wsettings, store, tmp_path):
    seen = []
    res = run_eval(["ifworld:2x1", "single", "debate"], [PROP, "What if antibiotics stopped working?"], 1,
                   wsettings, tmp_path / "eval", lambda d, t, row: seen.append((d, t)), store=store,
                   base_params={"debate_rounds": 1}, budget="none")
    assert len(res.scores) == 6 and (res.scores["status"] == "ok").all() and seen[-1] == (6, 6)
    assert list(res.macro.columns)[-5:] == ["overall", "calls per run", "tokens per run", "tokens ÷ IF-World",
                                            "budget"]
    assert res.macro.loc["debate", "budget"] == "fixed size" and res.macro.loc["single", "budget"] == "unmatched"
    assert "±" in res.macro.loc["single", "overall"]
    assert res.per_topic.shape == (2, 3) and list(res.ablation.index) == ["ifworld:2x1"]
    assert {"macro", "per_topic", "ablation"} <= set(res.figures)
    assert (tmp_path / "eval" / "scores.csv").is_file() and (tmp_path / "eval" / "macro.html").is_file()
    html = (tmp_path / "eval" / "macro.html").read_text()
    assert 'src="http' not in html and len(html) > 1_000_000  # plotly.js inline: works offline
    assert {"calls per run", "tokens per run"} <= set(res.macro.columns)
    log = json.loads((tmp_path / "eval" / "evaluation.json").read_text())
    assert len(log["cells"]) == 6 and all(c["seed"] == JUDGE_SEED and c["retries"] == 0 for c in log["cells"])
    assert all(json.loads(c["raw_reply"])["overall"] == c["judgement"]["reported_overall"] for c in log["cells"])


def test_cli_run_and_judge(llm_env, tmp_path):
    runner = CliRunner()
    out, judged = tmp_path / "run.json", tmp_path / "eval.json"
    res = runner.invoke(app, ["run", PROP, "--experts", "physics,economics", "--rounds", "1", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "run id: whatif-" in res.output
    rec = json.loads(out.read_text())
    for key in ("proposition", "method", "scenario", "rounds", "report", "calls", "usage"):
        assert key in rec
    assert {"experts", "frame", "debate"} <= set(rec["rounds"][0])
    assert {"role", "round", "start", "end", "prompt_tokens", "completion_tokens", "status"} <= set(rec["calls"][0])
    res = runner.invoke(app, ["judge", str(out), "--out", str(judged)])
    assert res.exit_code == 0, res.output
    scores = json.loads(judged.read_text())
    assert set(JUDGE_KEYS) <= set(scores) and 0 < scores["overall"] <= 100
    assert get_store().get_run(rec["run_id"]).record["judge"]["overall"] == scores["overall"]


def test_cli_baseline_to_stdout(llm_env):
    res = CliRunner().invoke(app, ["run", PROP, "--method", "debate", "--debate-rounds", "1"])
    assert res.exit_code == 0, res.output
    assert '"method": "debate"' in res.output


def test_cli_bad_input_exits_2(llm_env, tmp_path):
    runner = CliRunner()
    cases = [(["run", "  "], "empty"), (["run", "x" * 2001], "2,000 characters"),
             (["run", PROP, "--experts", "physics,<b>"], "is not usable"),
             (["run", PROP, "--method", "tree", "--breadth", "1000"], "breadth must be an integer from 1 to 6"),
             (["run", PROP, "--method", "debate", "--debate-rounds", "100000"], "from 1 to 6"),
             (["run", PROP, "--rounds", "0"], "rounds must be an integer from 1 to 6"),
             (["run", PROP, "--method", "magic"], "unknown method 'magic'"),
             (["judge", str(tmp_path / "missing.json")], "does not exist"),
             (["eval", "--methods", "ifworld:nope"], "Unknown ablation")]
    for args, message in cases:
        res = runner.invoke(app, args)
        assert res.exit_code == 2 and message in res.output, (args, res.output)


def test_eval_above_confirm_calls_needs_yes(llm_env):
    from ifworld.limits import CONFIRM_CALLS
    from ifworld.whatif.evaluate import estimate_eval_calls
    from ifworld.whatif.propositions import PAPER_PROPOSITIONS

    calls = estimate_eval_calls(["ifworld", "single"], PAPER_PROPOSITIONS, 1)
    assert calls == 10 * (27 + 1) + 10 * (1 + 1) > CONFIRM_CALLS
    res = CliRunner().invoke(app, ["eval", "--methods", "ifworld,single"])
    assert res.exit_code == 2 and f"{calls:,} model calls, more than {CONFIRM_CALLS}" in res.output
    # every single run stays below the threshold within the documented bounds
    from ifworld.whatif.params import default_params
    from ifworld.whatif.propositions import MAX_EXPERTS
    from ifworld.whatif.run_params import param_info

    biggest = default_params(PROP, experts=[f"field {i}" for i in range(MAX_EXPERTS)],
                             rounds=param_info("rounds")["max"])
    assert estimate_calls(biggest) == 97 < CONFIRM_CALLS


def test_cli_without_model_exits_2():
    res = CliRunner().invoke(app, ["run", PROP])
    assert res.exit_code == 2 and "No model is connected" in res.output


def test_cli_judge_names_what_is_wrong_with_the_run_json(llm_env, tmp_path):
    runner = CliRunner()
    cases = [([1, 2], "is not a what-if run record: what-if record: the record is a list, not an object"),
             ({"proposition": "p"}, "is not a what-if run record (no 'report' object)"),
             ({"run_id": "r9", "report": {"claims": [{"id": "C1"}]}},
              "is not a what-if run record: what-if run r9: field report.claims.0.text: Field required")]
    for i, (content, message) in enumerate(cases):
        path = tmp_path / f"run{i}.json"
        path.write_text(json.dumps(content), encoding="utf-8")
        res = runner.invoke(app, ["judge", str(path)])
        assert res.exit_code == 2 and message in " ".join(res.output.split()), (content, res.output)
