"""The ifworld CLI shell and the run-store commands."""

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from ifworld import runs
from ifworld.cli import ENGINES, app

runner = CliRunner()
ROOT = Path(__file__).resolve().parent.parent
# What `ifworld --help` must not pay for (each costs a large share of the 0.5 s start-up budget).
HEAVY = ("langchain_core", "langgraph", "openai", "pandas", "plotly", "numpy", "sympy", "pint")


def test_help_lists_groups() -> None:
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    for group in ("whatif", "rws", "beliefs", "runs", "app"):
        assert group in result.output


def test_importing_the_cli_loads_nothing_heavy() -> None:
    """The structural guard for a fast ``ifworld --help``: the engine CLIs are mounted, yet no model layer,
    LangGraph, dataframe, plotting or maths library is imported until a command needs it."""
    code = (f"import json, sys; import ifworld.cli; "
            f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          check=True)
    assert json.loads(proc.stdout) == []


def test_engine_groups_are_the_run_kinds() -> None:
    """``runs list --kind`` names the kinds from the mounted engines (no store import for --help)."""
    assert ENGINES == runs.KINDS


def test_runs_commands(llm_env) -> None:
    record = runs.execute("demo.fanout", {"topic": "tides", "workers": 2})
    listed = json.loads(runner.invoke(app, ["runs", "list", "--json"]).stdout)
    assert [set(r) for r in listed] == [{"id", "kind", "status", "created", "title"}]
    run_id = listed[0]["id"]
    assert listed[0]["status"] == "completed"
    md = runner.invoke(app, ["runs", "export", run_id, "--format", "md"])
    assert md.exit_code == 0 and "## Summary" in md.stdout
    js = json.loads(runner.invoke(app, ["runs", "export", run_id, "--format", "json"]).stdout)
    assert js["record"] == record
    resumed = runner.invoke(app, ["runs", "resume", run_id])
    assert resumed.exit_code == 0 and json.loads(resumed.stdout) == record
    assert runner.invoke(app, ["runs", "delete", run_id]).exit_code == 0
    assert json.loads(runner.invoke(app, ["runs", "list", "--json"]).stdout) == []


def test_runs_errors_exit_2() -> None:
    assert runner.invoke(app, ["runs", "export", "nope"]).exit_code == 2
    assert runner.invoke(app, ["runs", "delete", "nope"]).exit_code == 2
    assert runner.invoke(app, ["runs", "resume", "nope"]).exit_code == 2
    assert runner.invoke(app, ["runs", "list", "--kind", "bogus"]).exit_code == 2
    assert runner.invoke(app, ["runs", "export", "x", "--format", "pdf"]).exit_code == 2


def test_resume_interrupted_via_cli(llm_env) -> None:
    llm_env.inject("500", times=1, match="demo summariser")
    try:
        runs.execute("demo.fanout", {"topic": "t", "workers": 2})
    except runs.RunFailed:
        pass
    run_id = json.loads(runner.invoke(app, ["runs", "list", "--json"]).stdout)[0]["id"]
    before = llm_env.count()
    result = runner.invoke(app, ["runs", "resume", run_id])
    assert result.exit_code == 0, result.output
    assert llm_env.count() - before == 1  # only the summariser


def test_export_of_a_malformed_whatif_record_names_run_and_field() -> None:
    from ifworld.runs.store import get_store
    from tests.whatif.records import sample_record

    rec = sample_record()
    rec["rounds"][1]["experts"]["geophysics"] = "not an expert output"
    run_id = get_store().create_run("whatif", "whatif.ifworld", rec["params"], "What-if: broken")
    get_store().finish_run(run_id, rec, rec["usage"])
    for fmt in ("md", "html"):
        result = runner.invoke(app, ["runs", "export", run_id, "--format", fmt])
        assert result.exit_code == 2
        assert f"cannot export run {run_id}: what-if record: field rounds.1.experts.geophysics:" in result.stderr
    assert json.loads(runner.invoke(app, ["runs", "export", run_id, "--format", "json"]).stdout)["id"] == run_id


def test_cancel_refuses_a_finished_run_and_cancels_a_paused_one(llm_env) -> None:  # noqa: ANN001
    """Observation 1: a completed run has nothing to cancel (exit 2, it stays completed); a paused what-if
    session is cancelled through the same transition the page uses, recorded as the CLI's."""
    from ifworld.runs.store import get_store
    from tests.whatif.records import sample_record

    store = get_store()
    rec = sample_record()
    done = store.create_run("whatif", "whatif.ifworld", rec["params"], "What-if: done")
    store.finish_run(done, rec, rec["usage"])
    res = CliRunner().invoke(app, ["runs", "cancel", done])
    assert res.exit_code == 2 and f"run {done} is completed; cannot cancel: nothing to cancel" in res.stderr
    assert store.get_run(done).status == "completed"
    other = store.create_run("rws", "demo.fanout", {"topic": "t"}, "finished sweep")
    store.finish_run(other, {"x": 1}, {})
    res = CliRunner().invoke(app, ["runs", "cancel", other])
    assert res.exit_code == 2 and "is completed; nothing to cancel" in res.stderr
    paused = CliRunner().invoke(app, ["whatif", "run", "What if the Moon disappeared?", "--experts", "physics",
                                      "--rounds", "1", "--review"])
    run_id = json.loads(paused.stdout)["run_id"]
    res = CliRunner().invoke(app, ["runs", "cancel", run_id])
    assert res.exit_code == 0 and store.get_run(run_id).status == "cancelled"
    assert store.transitions(run_id)[-1] | {"at": 0} == {"at": 0, "from_state": "review", "to_state": "cancelled",
                                                        "action": "cancel", "source": "cli", "round": 0,
                                                        "detail": ""}
    res = CliRunner().invoke(app, ["runs", "resume", run_id])  # resumes into the same pause
    assert res.exit_code == 0 and json.loads(res.stdout)["paused"][0]["kind"] == "review"
