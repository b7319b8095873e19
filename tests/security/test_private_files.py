"""Files the app creates are private to their owner (#40): the store's folder 0700, the store, its -wal/-shm
and the facilitator token 0600 — before, ``~/.ifworld`` was 0755 and the SQLite store 0644, so join tokens,
contributions and the call log were readable by any local user."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from ifworld import access
from ifworld.files import private_dir, private_file
from ifworld.runs.store import RunStore


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture(autouse=True)
def _loose_umask():  # noqa: ANN202 — the usual desktop umask: the app must not rely on a strict one
    old = os.umask(0o022)
    yield
    os.umask(old)


def test_a_new_store_and_its_folders_are_private(tmp_path: Path) -> None:
    db = tmp_path / "a" / "b" / "runs.sqlite"
    RunStore(db)
    assert _mode(tmp_path / "a") == 0o700 and _mode(tmp_path / "a" / "b") == 0o700
    assert _mode(db) == 0o600
    extras = [p for p in db.parent.glob("runs.sqlite-*")]
    assert extras, "WAL mode keeps -wal/-shm beside the store"
    assert all(_mode(p) == 0o600 for p in extras), [(p.name, oct(_mode(p))) for p in extras]


def test_the_apps_home_folder_is_made_private_even_if_it_existed(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    home = tmp_path / ".ifworld"
    home.mkdir(mode=0o755)
    os.chmod(home, 0o755)
    (home / "runs.sqlite").touch()
    os.chmod(home / "runs.sqlite", 0o644)  # made by an earlier version
    RunStore(home / "runs.sqlite")
    assert _mode(home) == 0o700 and _mode(home / "runs.sqlite") == 0o600


def test_the_facilitator_token_file_is_private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(access.TOKEN_ENV, raising=False)
    db = tmp_path / "new" / "runs.sqlite"
    access.facilitator_token(db)
    assert _mode(tmp_path / "new") == 0o700 and _mode(access.token_path(db)) == 0o600


def test_a_users_existing_folder_is_not_changed(tmp_path: Path) -> None:
    os.chmod(tmp_path, 0o755)
    private_file(tmp_path / "x.sqlite")
    assert _mode(tmp_path) == 0o755 and _mode(tmp_path / "x.sqlite") == 0o600
    assert private_dir(tmp_path / "n" / "m") == tmp_path / "n" / "m" and _mode(tmp_path / "n") == 0o700
