"""The typed benchmark record: what the dict-reading code rendered is rendered unchanged (snapshot taken before
the change), earlier records load, and a malformed record is a named error in the engine and the CLI."""

from __future__ import annotations

import copy
import json

import pytest
from typer.testing import CliRunner

from ifworld.runs.records import RecordError
from ifworld.rws import benchmark
from ifworld.rws.records import BenchmarkRecord, load_benchmark_record
from ifworld.rws.tables import tables_markdown
from tests.rws.bench_records import SNAPSHOT, legacy_record, render_all, run_record, samples

SNAP = json.loads(SNAPSHOT.read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", ["run", "legacy"])
@pytest.mark.parametrize("typed", [False, True], ids=["dict", "typed"])
def test_renders_exactly_what_the_dict_code_rendered(name: str, typed: bool) -> None:
    raw = samples()[name]
    given = load_benchmark_record(copy.deepcopy(raw)) if typed else copy.deepcopy(raw)
    got = render_all(given, raw)
    assert got.keys() == SNAP[name].keys()
    for key, expected in SNAP[name].items():
        assert got[key] == expected, key


def test_stored_record_loads_with_its_grades_traces_and_cost() -> None:
    rec = load_benchmark_record(run_record())
    assert isinstance(rec, BenchmarkRecord) and rec.models == ["fake-model", "fake-judge"]
    assert len(rec.results) == rec.summary.n == 16
    verified = [r for r in rec.results if r.grade.stage == "verifier"]
    assert len(verified) == rec.summary.stages["verifier"] == 6
    assert all(r.grade.verifier_trace and r.grade.verifier_trace[0].role == "rws.verifier.parser" for r in verified)
    # the cost rows count the pattern roles' calls and, apart, the verifier's (two per verified task)
    assert sum(c.calls for c in rec.cost if c.pattern != "verifier") == sum(r.calls for r in rec.results)
    assert sum(c.calls for c in rec.cost if c.pattern == "verifier") == sum(len(r.grade.verifier_trace)
                                                                            for r in verified) == 12
    assert load_benchmark_record(rec) is rec  # validated once: a typed record passes through


def test_legacy_records_load_with_defaults() -> None:
    rec = load_benchmark_record(legacy_record())
    assert rec.summary.n == 0 and rec.cost == [] and rec.models == [] and rec.verify is False
    assert [r.grade.stage for r in rec.results] == [""] * 4
    # a stage or pattern this version does not know, nulls for absent values, unknown keys: all load
    odd = legacy_record()
    odd["results"][0]["grade"].update(stage="sympy_v0", verifier_trace=None, rel_error=None)
    odd["results"][1].update(pattern="tree-of-thought", model=None, trace=[{"role": "x", "status": None}])
    odd["summary"] = {"stages": {"sympy_v0": 1}, "accuracy": None, "by_model": {"m1": None}}
    rec = load_benchmark_record(odd)
    assert rec.results[0].grade.stage == "sympy_v0" and rec.results[1].model == ""
    assert rec.results[1].trace[0].status == "ok" and rec.summary.by_model == {"m1": None}
    assert "tree-of-thought" in benchmark.results_frame(odd)["pattern"].tolist()
    assert load_benchmark_record(None) == BenchmarkRecord()


@pytest.mark.parametrize(("change", "field"), [
    (lambda r: r["results"][3]["grade"].update(verdict="maybe"), "results.3.grade.verdict"),
    (lambda r: r["results"][2].pop("grade"), "results.2.grade"),
    (lambda r: r["results"][0].pop("item_id"), "results.0.item_id"),
    (lambda r: r.update(results={"a": 1}), "results"),
    (lambda r: r["cost"][1].update(calls="many"), "cost.1.calls"),
    (lambda r: r["results"][5]["grade"].update(verifier_trace=["parser said yes"]), "results.5.grade.verifier_trace.0"),
])
def test_malformed_record_is_named_by_run_and_field(change, field) -> None:
    broken = run_record()
    change(broken)
    with pytest.raises(RecordError, match=rf"^RWS benchmark run rws-9: field {field}: ") as err:
        load_benchmark_record(broken, "rws-9")
    assert err.value.run_id == "rws-9" and err.value.field == field
    for reader in (benchmark.markdown, benchmark.results_frame, benchmark.table1, benchmark.cost_frame):
        with pytest.raises(RecordError, match=rf"^RWS benchmark record: field {field}: "):
            reader(broken)
    with pytest.raises(RecordError):
        tables_markdown([run_record(), broken])
    with pytest.raises(RecordError, match="^RWS benchmark run rws-9: "):
        benchmark.regrade_record(broken, [], "rws-9")
    with pytest.raises(RecordError, match="the record is a list"):
        load_benchmark_record([1, 2], "rws-9")  # type: ignore[arg-type]


def test_regrade_keeps_keys_this_version_does_not_model() -> None:
    raw = run_record()
    raw["reviewer"] = "kept"
    raw["results"][0]["note"] = "kept too"
    out = benchmark.regrade_record(raw, benchmark.load_sample())
    assert out["reviewer"] == "kept" and out["results"][0]["note"] == "kept too"
    assert out["summary"] == raw["summary"]  # same grader, same saved verifier verdicts


def _store_record(record: dict) -> str:
    from ifworld.runs.store import get_store

    store = get_store()
    run_id = store.create_run("rws", benchmark.WORKFLOW, {"items": [], "patterns": ["single"]}, "RWS benchmark: t")
    store.finish_run(run_id, record)
    return run_id


def test_cli_tables_and_export_name_run_and_field_of_a_malformed_record() -> None:
    from ifworld.cli import app

    broken = run_record()
    broken["results"][3]["grade"]["verdict"] = "maybe"
    bad, good = _store_record(broken), _store_record(run_record())
    runner = CliRunner()
    ok = runner.invoke(app, ["rws", "tables", good])
    assert ok.exit_code == 0 and "| fake-model | 25.00 |" in ok.stdout and "| sample | 100.00 |" in ok.stdout
    res = runner.invoke(app, ["rws", "tables", good, bad])
    assert res.exit_code == 2
    assert f"error: RWS benchmark run {bad}: field results.3.grade.verdict: Input should be" in res.stderr
    res = runner.invoke(app, ["runs", "export", bad, "--format", "md"])
    assert res.exit_code == 2
    assert f"cannot export run {bad}: RWS benchmark record: field results.3.grade.verdict:" in res.stderr
