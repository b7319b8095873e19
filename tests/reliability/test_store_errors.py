"""A run store that cannot be used is reported clearly — with its path and a way out — on the CLI and on
every page, and one damaged row never hides the others."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from ifworld.runs.store import RunStore, StoreError
from tests.pages.test_app_shell import PAGES
from tests.security.helpers import open_page

ROOT = Path(__file__).resolve().parents[2]


def _cli(args: list[str], db: Path) -> subprocess.CompletedProcess:
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("IFWORLD_")}, "IFWORLD_DB": str(db),
           "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "ifworld.cli", *args], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


@pytest.fixture
def corrupt(tmp_path: Path) -> Path:
    db = tmp_path / "runs.sqlite"
    db.write_bytes(b"this is not a database, it was overwritten by something else\n" * 100)
    return db


def test_corrupt_file_names_path_and_way_out(corrupt: Path) -> None:
    with pytest.raises(StoreError) as err:
        RunStore(corrupt)
    assert str(corrupt) in str(err.value) and "IFWORLD_DB" in str(err.value) and "mv " in str(err.value)
    result = _cli(["runs", "list", "--json"], corrupt)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert str(corrupt) in result.stderr and "not a readable run store" in result.stderr


@pytest.mark.parametrize("page", PAGES)
def test_every_page_survives_a_corrupt_store(page: str, corrupt: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IFWORLD_DB", str(corrupt))
    at = open_page(page.removeprefix("app_pages/").removesuffix(".py"))
    assert not at.exception, at.exception
    assert at.title  # the page itself still opens
    errors = " ".join(e.value for e in at.error)
    if errors:  # pages that use the store say what is wrong, where, and what to do
        assert "run store cannot be used" in errors and str(corrupt) in errors and "IFWORLD_DB" in errors


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions")
def test_read_only_directory(tmp_path: Path) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        result = _cli(["runs", "list"], ro / "runs.sqlite")
    finally:
        ro.chmod(0o700)
    assert result.returncode == 1 and "Traceback" not in result.stderr and "IFWORLD_DB" in result.stderr


def test_unwritable_path_is_reported(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the store's directory should be")
    result = _cli(["runs", "list"], blocker / "runs.sqlite")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "run store" in result.stderr and "IFWORLD_DB" in result.stderr


def test_one_bad_row_does_not_hide_the_list(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "runs.sqlite"
    store = RunStore(db)
    good = [store.create_run("whatif", "demo.fanout", {"i": i}, f"good {i}") for i in range(3)]
    bad = store.create_run("whatif", "demo.fanout", {}, "damaged")
    store.close()
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE ifw_runs SET params='{not json', record='[1,', usage=NULL, created='x' WHERE id=?",
                     (bad,))
    store = RunStore(db)
    infos = {i.id: i for i in store.list_runs()}
    assert set(infos) == {*good, bad}
    assert "stored params is unreadable" in infos[bad].error and infos[bad].params == {}
    listed = json.loads(_cli(["runs", "list", "--json"], db).stdout)
    assert {r["id"] for r in listed} == {*good, bad}
    monkeypatch.setenv("IFWORLD_DB", str(db))
    at = open_page("runs")
    assert not at.exception, at.exception
    assert len(at.selectbox(key="runs_open").options) == 4
    at.selectbox(key="runs_open").set_value(bad).run()
    assert not at.exception, at.exception
