"""Every known secret is masked on every channel, even when the endpoint or the model repeats it.

An echoing fake endpoint (HTTP 401 whose body quotes the Authorization header) and a fake model that
repeats the key in every reply drive each workflow kind through the real CLI (``python -m ifworld.cli``);
then the run store (with its -wal), every written file, every export (md, json, html), stdout and stderr
are grepped for the key, and the Runs page renders every run. A key typed in the sidebar, one in
secrets.toml and log records are covered too. Each test also checks that the key really was sent back to
us, so a test that finds nothing is not a test that saw nothing.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ifworld import redact as redact_mod
from ifworld.limits import MAX_ERROR_CHARS
from ifworld.redact import MARKER, known_secrets, redact, redact_bytes, register_secret, safe_error
from ifworld.rws.benchmark import SAMPLE_PATH
from tests.security.helpers import open_page, wait_for_session

ROOT = Path(__file__).resolve().parents[2]
KEY = "sk-echo-TEST-KEY-0123456789abcdef"
SIDEBAR_KEY = "sk-sidebar-TYPED-KEY-fedcba987654"
PROP = "What if the Moon disappeared overnight?"
COMMANDS = {
    "whatif": ["whatif", "run", PROP, "--experts", "physics,economics", "--rounds", "1", "--no-debate"],
    "rws": ["rws", "run", "--pattern", "single", "--data", str(SAMPLE_PATH), "--limit", "2"],
    "beliefs": ["beliefs", "llm", "--agents", "3", "--facts", "4", "--true", "1", "--false", "1", "--rounds", "1",
                "--json"],
}


def _cli(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ifworld.cli", *args], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def _env(fake, tmp_path: Path) -> dict[str, str]:  # noqa: ANN001
    env = {k: v for k, v in os.environ.items() if not k.startswith(("IFWORLD_", "OPENAI_"))}
    env.update({"IFWORLD_BASE_URL": fake.url, "IFWORLD_API_KEY": KEY, "IFWORLD_MODEL": "fake-model",
                "IFWORLD_DB": str(tmp_path / "runs.sqlite"), "IFWORLD_MAX_RETRIES": "0",
                "PYTHONPATH": str(ROOT)})
    return env


def _files_with(root: Path, secret: str) -> list[str]:
    return [str(p) for p in root.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


@pytest.mark.parametrize("leak", ["model_repeats_key", "endpoint_echoes_key"])
@pytest.mark.parametrize("kind", list(COMMANDS))
def test_echoed_key_reaches_no_channel(kind: str, leak: str, fake_server, tmp_path: Path,  # noqa: ANN001
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    if leak == "model_repeats_key":
        fake_server.repeat_key = True
    else:
        fake_server.inject("echo_auth", times=None)
    env = _env(fake_server, tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    first = _cli([*COMMANDS[kind], *([] if kind == "beliefs" else ["--out", "out.json"])], env, work)
    outputs = [first.stdout, first.stderr]
    # the leak was real: the fake really put the key into replies / error bodies
    if leak == "model_repeats_key":
        assert any(KEY in r.content for r in fake_server.requests)
    else:
        assert fake_server.count(status=401) >= 1
        assert first.returncode != 0
    listed = _cli(["runs", "list", "--json"], env, work)
    runs = json.loads(listed.stdout)
    assert runs and {r["kind"] for r in runs} == {kind}
    for cmd in (["runs", "export", runs[0]["id"], "--format", "md"], ["runs", "resume", runs[0]["id"], "--yes"]):
        done = _cli(cmd, env, work)  # the export prints to stdout; the resume errors again (echo) or completes
        outputs += [done.stdout, done.stderr]
    assert [o for o in outputs if KEY in o] == []

    monkeypatch.setenv("IFWORLD_API_KEY", KEY)
    monkeypatch.setenv("IFWORLD_DB", env["IFWORLD_DB"])
    from ifworld import runs as runs_mod
    from ifworld.runs.store import RunStore

    store = RunStore(env["IFWORLD_DB"])
    for run in runs:
        for fmt in ("md", "json", "html"):
            (work / f"export-{run['id']}.{fmt}").write_text(runs_mod.export_run(run["id"], fmt, store=store))
    store.close()
    assert len(list(work.glob("export-*"))) == 3 * len(runs)
    assert {p.name for p in tmp_path.glob("runs.sqlite*")} >= {"runs.sqlite"}
    assert _files_with(tmp_path, KEY) == []
    # the masked key is visible as a marker: what leaked was caught, not silently absent
    store_text = b"".join(p.read_bytes() for p in tmp_path.glob("runs.sqlite*"))
    assert MARKER.encode() in store_text or b"*" * len(KEY) in store_text

    # the Runs page shows every run (record, error, exports built) without the key
    at = open_page("runs")
    assert not at.exception, at.exception
    for run in runs:
        at.selectbox(key="runs_open").set_value(run["id"]).run()
        assert not at.exception, at.exception
        assert KEY not in str(at._tree)


def test_sidebar_key_is_masked_everywhere(llm_env, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:  # noqa: ANN001
    """A key typed in the sidebar (not in env or secrets.toml) is registered and masked like the others."""
    llm_env.repeat_key = True
    caplog.set_level(logging.DEBUG)
    at = open_page("whatif", timeout=120)
    at.session_state["conn_api_key"] = SIDEBAR_KEY
    at.button(key="whatif_quick").click().run()
    next(b for b in at.button if b.label.startswith("▶️ Start run")).click().run()
    assert not at.exception, at.exception
    wait_for_session(at)
    assert any(SIDEBAR_KEY in r.content for r in llm_env.requests)  # the model repeated it
    assert SIDEBAR_KEY not in str(at._tree)
    run_id = at.session_state["whatif_run_id"]
    from ifworld import runs
    from ifworld.runs.store import get_store

    for fmt in ("md", "json", "html"):
        assert SIDEBAR_KEY not in runs.export_run(run_id, fmt, store=get_store())
    assert _files_with(tmp_path, SIDEBAR_KEY) == []
    assert SIDEBAR_KEY not in caplog.text


def test_secrets_toml_and_credential_env_names_are_known(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".streamlit").mkdir()
    (tmp_path / ".streamlit" / "secrets.toml").write_text('OPENAI_API_KEY = "sk-from-toml-123456789"\n'
                                                         '[langsmith]\nLANGSMITH_API_KEY = "lsv2-abcdefghijk"\n')
    monkeypatch.setenv("MY_SERVICE_TOKEN", "tok-0987654321")
    monkeypatch.setenv("HOME_DIR_PATH", "/home/someone/long/path")
    found = known_secrets()
    assert {"sk-from-toml-123456789", "lsv2-abcdefghijk", "tok-0987654321"} <= set(found)
    assert "/home/someone/long/path" not in found
    monkeypatch.setenv("IFWORLD_API_KEY", "none")  # too short to be a key: would mask ordinary words
    assert "none" not in known_secrets()


def test_redact_walks_nested_values_and_masks_bytes_same_length(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IFWORLD_API_KEY", KEY)
    value = {"a": [f"x{KEY}y", (KEY, 3)], KEY: {"deep": f"Bearer {KEY}"}, "n": 1.5}
    assert redact(value) == {"a": [f"x{MARKER}y", (MARKER, 3)], MARKER: {"deep": f"Bearer {MARKER}"}, "n": 1.5}
    raw = b"\x00\xa5" + KEY.encode() + b"\x01"
    assert redact_bytes(raw) == b"\x00\xa5" + b"*" * len(KEY) + b"\x01"


def test_register_secret_and_error_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(redact_mod, "_registered", set())
    register_secret("short")
    assert "short" not in known_secrets()
    register_secret(SIDEBAR_KEY)
    text = safe_error(RuntimeError(f"echo {SIDEBAR_KEY} " + "x" * 10_000))
    assert SIDEBAR_KEY not in text and text.startswith(f"RuntimeError: echo {MARKER}")
    assert len(text) < MAX_ERROR_CHARS + 60 and "more characters cut" in text
    # masking happens before cutting: a key straddling the cut is not half-shown
    text = safe_error("y" * (MAX_ERROR_CHARS - 5) + SIDEBAR_KEY)
    assert SIDEBAR_KEY[:5] not in text.split("…")[0][-10:] or MARKER[:5] in text


def test_log_records_are_masked_for_every_handler(monkeypatch: pytest.MonkeyPatch,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("IFWORLD_API_KEY", KEY)
    caplog.set_level(logging.DEBUG)
    log = logging.getLogger("some.library")
    log.warning("request failed with headers %s", {"Authorization": f"Bearer {KEY}"})
    try:
        raise ValueError(f"bad key {KEY}")
    except ValueError:
        log.exception("call failed")
    assert KEY not in caplog.text and MARKER in caplog.text
    assert caplog.text.count(MARKER) >= 2


def test_cli_uncaught_error_is_masked_and_short(fake_server, tmp_path: Path) -> None:  # noqa: ANN001
    """An exception no command catches prints one masked, capped line, not a traceback with locals."""
    env = _env(fake_server, tmp_path)
    env["IFWORLD_DB"] = str(tmp_path / "missing-dir" / "x" / "runs.sqlite")
    (tmp_path / "missing-dir").write_text("a file where a directory should be")
    result = _cli(["runs", "list", "--json"], env, tmp_path)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr and "run store" in result.stderr and "IFWORLD_DB" in result.stderr
