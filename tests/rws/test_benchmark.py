"""The benchmark runner: run graph, resume after a failure without re-sending finished calls, re-grading
from saved outputs without a model, tables and exports, and the ``rws run`` command."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from ifworld import runs
from ifworld.rws import benchmark
from ifworld.rws.benchmark import SAMPLE_PATH
from ifworld.rws.cli import app as rws_app
from ifworld.rws.patterns import REGISTRY

IDS = ["2025_IFW_1_b", "2025_IFW_2_b", "2025_IFW_2_c"]  # the first is scripted wrong-first (retried)


@pytest.fixture(scope="module")
def items() -> list:
    by_id = {i.id: i for i in benchmark.load_sample()}
    return [by_id[i] for i in IDS]


def _expected(pattern: str, wrong: int, right: int) -> int:
    paths = REGISTRY.get(pattern).calls
    return wrong * sum(paths.get("reject", paths["accept"]).values()) + right * sum(paths["accept"].values())


def test_run_records_results_summary_and_cost(fake_server, settings, store, items):
    params = benchmark.benchmark_params(items, "single,pace", models="fake-model,fake-judge")
    seen = []
    record = benchmark.run_benchmark(params, store=store, settings=settings,
                                     on_event=lambda e: seen.extend(benchmark.progress_of(e)))
    assert len(record["results"]) == len(seen) == 3 * 2 * 2
    # the verifier is on by default: Parser + Judge for the one answer per model the grader calls incorrect
    assert fake_server.count("rws.verifier.parser") == fake_server.count("rws.verifier.judge") == 2
    assert fake_server.count() == 2 * (_expected("single", 1, 2) + _expected("pace", 1, 2)) + 2 * 2
    assert record["verify"] and not record["verifier_sees_grader"]
    s = record["summary"]
    assert s["by_pattern"]["pace"] == 1.0 and s["by_pattern"]["single"] == pytest.approx(2 / 3, abs=1e-3)
    assert set(s["by_model"]) == {"fake-model", "fake-judge"}
    cost = {(c["pattern"], c["model"]): c for c in record["cost"]}
    assert cost[("pace", "fake-judge")]["calls"] == _expected("pace", 1, 2)
    assert cost[("pace", "fake-model")]["total_tok"] > 0
    t1, t2 = benchmark.table1(record), benchmark.table2(record)
    assert list(t1.columns) == ["single", "pace", "overall"] and len(t1) == 2
    assert "numeric" in t2.columns and len(t2) == 4
    first = record["results"][0]
    assert [r["item_id"] for r in record["results"][:4]] == [IDS[0]] * 4
    assert first["trace"] and first["raw_output"]
    csv = benchmark.to_csv(record)
    assert csv.splitlines()[0].replace('"', '').startswith("item,pattern,model,type")  # text fields are quoted
    assert json.loads(benchmark.to_json(record))["summary"] == s
    assert "RWS benchmark" in runs.export_run(store.list_runs()[0].id, "md", store=store)


def test_resume_after_failure_does_not_resend_finished_calls(fake_server, settings, store, items):
    params = benchmark.benchmark_params(items, "pace")
    run_id = benchmark.start_benchmark(params, store=store)
    fake_server.inject("500", times=1, role="rws.pace.critic")
    with pytest.raises(runs.RunFailed):
        for _ in benchmark.stream_benchmark(run_id, store=store, settings=settings):
            pass
    assert store.get_run(run_id).status == "failed"
    record = runs.drive(run_id, store=store, settings=settings)
    assert len(record["results"]) == 3
    ok = fake_server.count(status=200)
    assert ok == _expected("pace", 1, 2)  # every successful call happened exactly once
    assert fake_server.count("rws.pace.planner") == 3
    assert fake_server.count(status=500) == 1


def test_regrade_uses_saved_outputs_only(fake_server, settings, store, items):
    record = benchmark.run_benchmark(benchmark.benchmark_params(items, "single"), store=store, settings=settings)
    run_id = store.list_runs()[0].id
    fake_server.reset()
    again = benchmark.regrade(run_id, store=store)
    assert fake_server.count(status=None) == 0
    assert again["summary"] == record["summary"]
    assert store.get_run(run_id).record["summary"] == record["summary"]


def test_estimate_and_params_validation(items):
    est = benchmark.estimate_calls(3, ["single", "pace"], n_models=2)
    assert est["single"] == (6, 6) and est["pace"] == (24, 30) and est["total"] == (30, 36)
    with pytest.raises(ValueError):
        benchmark.benchmark_params(items, "nonsense")
    assert len(benchmark.benchmark_params(items, "single", limit=2)["items"]) == 2


def test_cli_run_writes_results(llm_env, tmp_path):
    out = tmp_path / "results.json"
    res = CliRunner().invoke(rws_app, ["run", "--pattern", "single,hmaw", "--data", str(SAMPLE_PATH),
                                       "--limit", "2", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "run id: rws-" in res.stderr and "[4/4]" in res.stderr
    data = json.loads(out.read_text())
    assert data["patterns"] == ["single", "hmaw"] and len(data["results"]) == 4
    assert set(data["summary"]["by_pattern"]) == {"single", "hmaw"}


def test_cli_without_model_exits_2(tmp_path):
    res = CliRunner().invoke(rws_app, ["run", "--pattern", "single", "--data", str(SAMPLE_PATH)])
    assert res.exit_code == 2 and "No model is connected" in res.stderr


def test_cli_bad_pattern_and_bad_lines(llm_env, tmp_path):
    res = CliRunner().invoke(rws_app, ["run", "--pattern", "zigzag", "--data", str(SAMPLE_PATH)])
    assert res.exit_code == 2 and "unknown pattern" in res.stderr
    bad = tmp_path / "items.jsonl"
    bad.write_text(SAMPLE_PATH.read_text().splitlines()[5] + "\n{not json\n")
    res = CliRunner().invoke(rws_app, ["run", "--pattern", "single", "--data", str(bad)])
    assert res.exit_code == 0 and ":2: skipped" in res.stderr
    assert len(json.loads(res.stdout)["results"]) == 1


def test_cli_run_above_threshold_needs_yes(llm_env, tmp_path, fake_server):
    from ifworld.limits import CONFIRM_CALLS

    fake_server.reset()
    args = ["run", "--pattern", ",".join(REGISTRY.names()), "--data", str(SAMPLE_PATH)]
    lo, hi = benchmark.estimate_calls(53, list(REGISTRY.names()))["total"]
    assert hi > CONFIRM_CALLS
    res = CliRunner().invoke(rws_app, args)
    assert res.exit_code == 2 and "--yes" in res.stderr
    assert fake_server.count(status=None) == 0  # nothing was sent
    small = CliRunner().invoke(rws_app, ["run", "--pattern", "single", "--data", str(SAMPLE_PATH), "--limit", "1"])
    assert small.exit_code == 0, small.output


def test_one_items_grading_failure_is_that_items_verdict():
    from ifworld.rws.dataset import RWSItem
    from ifworld.rws.verifier import grade_output

    item = RWSItem(id="o_1", q_id=1, question="q", final="1 m", type="numeric")
    graded = grade_output(item, "Reasoning.\nFinal Answer: 1e400 km")
    verdict = graded["verdict"] if isinstance(graded, dict) else graded.verdict
    assert verdict == "not_sure"


def test_cli_tables_from_saved_runs(llm_env, tmp_path):
    res = CliRunner().invoke(rws_app, ["run", "--pattern", "single,hmaw", "--data", str(SAMPLE_PATH),
                                       "--limit", "2"])
    assert res.exit_code == 0, res.output
    run_id = res.stderr.split("run id: ")[1].split()[0]
    tables = CliRunner().invoke(rws_app, ["tables", run_id, "--regrade"])
    assert tables.exit_code == 0, tables.output
    assert "Table 1" in tables.stdout and "| Macro-mean |" in tables.stdout and "| Dataset | HMAW |" in tables.stdout
    missing = CliRunner().invoke(rws_app, ["tables", "rws-nope"])
    assert missing.exit_code == 2
