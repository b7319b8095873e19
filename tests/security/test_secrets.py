"""A known fake API key never lands anywhere: run every run-producing CLI command and every page's main flow
with the key set, then grep the run store (incl. -wal/-shm), every written file and export, the captured
output and logs, and AppTest's rendered tree for it."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from ifworld import runs
from ifworld.runs.store import get_store
from ifworld.rws.benchmark import SAMPLE_PATH
from tests.security.helpers import FAKE_KEY, open_page, wait_for_session

PROP = "What if the Moon disappeared overnight?"
KEY_BYTES = FAKE_KEY.encode()


@pytest.fixture
def keyed(llm_env, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture):  # noqa: ANN001, ANN201
    """The fake server with a known key in the environment; cwd is the test's temp dir; logs captured."""
    monkeypatch.setenv("IFWORLD_API_KEY", FAKE_KEY)
    monkeypatch.chdir(tmp_path)
    caplog.set_level(logging.DEBUG)
    return llm_env


def _files_with_key(root: Path) -> list[str]:
    """Every file under ``root`` (store, -wal/-shm, outputs, exports) whose bytes contain the key."""
    return [str(p) for p in root.rglob("*") if p.is_file() and KEY_BYTES in p.read_bytes()]


def _assert_store_clean(tmp_path: Path) -> None:
    db = get_store().path
    assert db.is_file() and db.parent == tmp_path, db
    assert {p.name for p in tmp_path.glob("runs.sqlite*")} >= {"runs.sqlite"}
    canary = tmp_path / "canary" / "planted.bin"  # the grep itself works: a planted copy is found
    canary.parent.mkdir()
    canary.write_bytes(b"\x00prefix" + KEY_BYTES + b"suffix")
    assert _files_with_key(tmp_path) == [str(canary)]


def test_cli_commands_never_write_or_print_the_key(keyed, tmp_path: Path, capfd: pytest.CaptureFixture,  # noqa: ANN001
                                                   caplog: pytest.LogCaptureFixture) -> None:
    runner = CliRunner()
    outputs: list[str] = []

    def ok(*args: str) -> str:
        result = runner.invoke(__import__("ifworld.cli", fromlist=["app"]).app, list(args))
        outputs.extend([result.stdout, result.stderr, str(result.exception or "")])
        assert result.exit_code == 0, (args, result.output[-800:])
        return result.stdout

    ok("whatif", "run", PROP, "--experts", "physics,economics", "--rounds", "1", "--out", "run.json")
    ok("whatif", "run", PROP, "--method", "single", "--out", "single.json")
    ok("whatif", "judge", "run.json", "--out", "eval.json")
    ok("rws", "run", "--pattern", "single", "--data", str(SAMPLE_PATH), "--limit", "2", "--out", "rws.json")
    preds = [{"id": json.loads(line)["id"], "prediction": "42"} for line in SAMPLE_PATH.read_text().splitlines()[:3]]
    Path("preds.jsonl").write_text("\n".join(json.dumps(p) for p in preds) + "\n")
    ok("rws", "grade", "--data", str(SAMPLE_PATH), "--predictions", "preds.jsonl", "--out", "grade.json")
    ok("beliefs", "run", "--agents", "6", "--facts", "5", "--true", "2", "--false", "1", "--rounds", "4",
       "--runs", "3", "--json")
    ok("beliefs", "llm", "--agents", "4", "--facts", "6", "--rounds", "2", "--json")
    Path("grid.yaml").write_text(yaml.safe_dump({"base": {"facts": 5, "rounds": 4, "true_facts": 2, "false_facts": 1},
                                                 "grid": {"agents": [4, 6]}, "seeds": [0], "runs": 2}))
    ok("beliefs", "sweep", "--grid", "grid.yaml", "--out", "sweep.csv", "--workers", "1")
    listed = json.loads(ok("runs", "list", "--json"))
    assert {r["kind"] for r in listed} >= {"whatif", "rws", "beliefs"} and len(listed) >= 5
    for run in listed:
        for fmt in ("md", "json"):
            ok("runs", "export", run["id"], "--format", fmt)
            ok("runs", "export", run["id"], "--format", fmt, "--out", f"export-{run['id']}.{fmt}")
    assert keyed.count() > 0  # the commands really talked to the model server
    assert len(list(tmp_path.glob("export-*"))) == 2 * len(listed)

    captured = capfd.readouterr()
    leaks = [name for name, text in [("cli output", "\n".join(outputs)), ("stdout", captured.out),
                                     ("stderr", captured.err), ("logs", caplog.text)] if FAKE_KEY in text]
    assert leaks == []
    _assert_store_clean(tmp_path)


def _tree_clean(at) -> None:  # noqa: ANN001
    assert not at.exception, at.exception
    assert FAKE_KEY not in str(at._tree)


def _click(at, label: str):  # noqa: ANN001, ANN202
    next(b for b in at.button if b.label.startswith(label)).click()
    return at.run()


def test_pages_never_render_or_store_the_key(keyed, tmp_path: Path, capfd: pytest.CaptureFixture,  # noqa: ANN001
                                             caplog: pytest.LogCaptureFixture) -> None:
    # settings: the model-connection panel and a test call (also one that fails)
    at = open_page("settings")
    _tree_clean(at)
    at.button(key="settings_test").click().run()
    _tree_clean(at)
    keyed.inject("500", times=1)
    at.button(key="settings_test").click().run()
    _tree_clean(at)
    assert at.error  # the failure is shown …

    # what-if: a small run
    at = open_page("whatif", timeout=90)
    at.button(key="whatif_quick").click().run()
    at = _click(at, "▶️ Start run")
    wait_for_session(at)
    _tree_clean(at)
    whatif_id = at.session_state["whatif_run_id"]
    assert get_store().get_run(whatif_id).status == "completed"

    # RWS benchmark: a tiny run
    at = open_page("rws_benchmark", timeout=90)
    at.multiselect(key="rwsb_patterns").set_value(["single"]).run()
    at.number_input(key="rwsb_limit").set_value(1).run()
    at.button(key="rwsb_run").click().run()
    _tree_clean(at)
    assert at.selectbox(key="rwsb_pick").options

    # belief exchange: a tiny LLM run
    at = open_page("beliefs", timeout=90)
    at.number_input(key="beliefs_llm_agents").set_value(4)
    at.number_input(key="beliefs_llm_facts").set_value(6)
    at.number_input(key="beliefs_llm_rounds").set_value(2)
    at = _click(at, "🤖 Run LLM agents")
    _tree_clean(at)
    assert at.session_state["beliefs_llm_record"]

    # runs page: open every run; exports as the download buttons build them
    at = open_page("runs")
    _tree_clean(at)
    ids = [info.id for info in get_store().list_runs()]
    assert whatif_id in ids and len(ids) >= 3 and len(at.selectbox(key="runs_open").options) == len(ids)
    for run_id in ids:
        at.selectbox(key="runs_open").set_value(run_id).run()
        _tree_clean(at)
        for fmt in ("md", "json"):
            exported = runs.export_run(run_id, fmt, store=get_store())
            exported = exported if isinstance(exported, str) else exported.decode()
            assert FAKE_KEY not in exported
            (tmp_path / f"page-export-{run_id}.{fmt}").write_text(exported)

    captured = capfd.readouterr()
    assert FAKE_KEY not in captured.out and FAKE_KEY not in captured.err and FAKE_KEY not in caplog.text
    _assert_store_clean(tmp_path)
