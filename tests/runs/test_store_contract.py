"""The store contract beyond runs and calls, on both backends (``any_store``: SQLite file, throwaway PostgreSQL):
leases, transitions, workshop events under concurrency, rate limits, the method memory, the schema version;
and ``IFWORLD_DB`` refusing what is neither a file path nor a ``postgresql://`` URL, with passwords masked."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from ifworld.config import load_settings
from ifworld.errors import ConfigError, StoreError, WorkshopError
from ifworld.llm import methods
from ifworld.runs import schema
from ifworld.runs.store import RunLive, RunNotFound, RunStore


def test_schema_version_is_recorded(any_store: RunStore) -> None:
    assert any_store.schema_version() == schema.SCHEMA_VERSION


def test_lease_is_exclusive_and_released(any_store: RunStore) -> None:
    run_id = any_store.create_run("whatif", "demo.fanout", {})
    token = any_store.acquire_lease(run_id)
    with any_store._tx() as c:  # another live owner (another machine: its status is trusted)
        c.execute("UPDATE ifw_runs SET host=?, owner=? WHERE id=?", ("other-host", "other:1", run_id))
    with pytest.raises(RunLive):
        any_store.acquire_lease(run_id)
    assert not any_store.renew_lease(run_id, token)  # taken over: no longer ours
    with any_store._tx() as c:
        c.execute("UPDATE ifw_runs SET heartbeat=? WHERE id=?", (1.0, run_id))  # its heartbeat went stale
    assert any_store.get_run(run_id).status == "interrupted"
    mine = any_store.acquire_lease(run_id)
    assert any_store.renew_lease(run_id, mine)
    any_store.release_lease(run_id, mine, "completed")
    assert any_store.get_run(run_id).status == "completed"
    with pytest.raises(RunNotFound):
        any_store.acquire_lease("whatif-nope")


def test_transitions_are_numbered_in_order(any_store: RunStore) -> None:
    run_id = any_store.create_run("whatif", "whatif.session", {})
    for i in range(3):
        any_store.add_transition(run_id, from_state=f"s{i}", to_state=f"s{i + 1}", action="go", source="test",
                                 round=i)
    assert [(t["from_state"], t["round"]) for t in any_store.transitions(run_id)] == [("s0", 0), ("s1", 1),
                                                                                      ("s2", 2)]
    any_store.delete_run(run_id)
    assert any_store.transitions(run_id) == []


def test_workshop_events_exact_under_concurrency(any_store: RunStore) -> None:
    """Eight writers, each voting twice for 20 items: one vote per person and item is kept, none lost or doubled."""
    run_id = any_store.create_run("whatif", "whatif.session", {})
    any_store.add_workshop(run_id, token="tok-" + run_id, code="C" + run_id[-6:])
    assert any_store.workshop_row(code="C" + run_id[-6:])["run_id"] == run_id

    def one_vote(actor: str, item: str):
        def check(log) -> None:
            if log.count("vote", actor=actor, ref=item):
                raise WorkshopError("already voted")
        return check

    refused: list[str] = []

    def writer(n: int) -> None:
        for item in [f"c{i}" for i in range(20)] * 2:
            try:
                any_store.add_workshop_event(run_id, "vote", {"item": item, "by": n}, one_vote(f"p{n}", item),
                                             actor=f"p{n}", ref=item)
            except WorkshopError:
                refused.append(item)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    events = any_store.workshop_events(run_id)
    assert len(events) == 160 and len(refused) == 160
    assert [e["seq"] for e in events] == list(range(1, 161))
    assert len({(e["data"]["by"], e["data"]["item"]) for e in events}) == 160
    assert len(any_store.workshop_find(run_id, "vote", ref="c3")) == 8
    assert [e["seq"] for e in any_store.workshop_events(run_id, after=158)] == [159, 160]


def test_rate_limit_counts_across_calls(any_store: RunStore) -> None:
    assert all(any_store.hit_rate("join:1.2.3.4", limit=3, window_s=60) for _ in range(3))
    assert not any_store.hit_rate("join:1.2.3.4", limit=3, window_s=60)
    assert not any_store.hit_rate("join:1.2.3.4", limit=3, window_s=60, add=False)
    assert any_store.hit_rate("join:other", limit=3, window_s=60, add=False)


def test_method_memory_lives_in_the_store(any_store: RunStore) -> None:
    settings = load_settings({"base_url": "http://127.0.0.1:9/v1", "model": "m1"})
    assert settings.store == str(any_store.url if any_store.backend == "postgres" else any_store.path)
    methods.remember(settings, "whatif.expert", "json_mode")
    methods._methods.clear()  # another process: only the store knows
    assert methods.stored_method(settings, "whatif.expert") == "json_mode"
    _, rows = any_store._read("SELECT method FROM ifw_structured_methods")
    assert rows == [("json_mode",)]


def test_the_saved_connection_lives_in_the_store(any_store: RunStore) -> None:
    from ifworld.access import OPERATOR
    from ifworld.saved_connection import save_connection, saved_connection

    save_connection(any_store, OPERATOR, "http://10.0.0.5:8080/v1", "qwen2.5-7b")
    save_connection(any_store, OPERATOR, "http://10.0.0.6:8080/v1", "qwen2.5-7b")  # replaced, not added
    assert saved_connection(any_store).base_url == "http://10.0.0.6:8080/v1"
    _, rows = any_store._read("SELECT key FROM ifw_meta WHERE key='saved_connection'")
    assert len(rows) == 1
    save_connection(any_store, OPERATOR, "", "")
    assert saved_connection(any_store).base_url == "" and not any_store._read(
        "SELECT key FROM ifw_meta WHERE key='saved_connection'")[1]


def test_newer_schema_is_refused(any_store: RunStore) -> None:
    with any_store._tx() as c:
        c.execute("UPDATE ifw_meta SET value='99' WHERE key='schema_version'")
    location = any_store.url if any_store.backend == "postgres" else any_store.path
    with pytest.raises(StoreError, match="schema version 99"):
        RunStore(location)


def test_old_sqlite_file_is_migrated(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as conn:  # the first release's layout: no versions, no later columns
        conn.executescript("""CREATE TABLE ifw_runs (id TEXT PRIMARY KEY, kind TEXT NOT NULL, workflow TEXT NOT NULL,
            title TEXT NOT NULL, status TEXT NOT NULL, params TEXT NOT NULL, record TEXT, usage TEXT, error TEXT,
            created REAL NOT NULL, updated REAL NOT NULL, finished REAL, pid INTEGER, host TEXT);
            INSERT INTO ifw_runs VALUES ('whatif-old', 'whatif', 'w', 'Old', 'completed', '{}', NULL, NULL, NULL,
            1, 1, 1, NULL, NULL);""")
    store = RunStore(path)
    assert store.schema_version() == schema.SCHEMA_VERSION
    assert store.get_run("whatif-old").title == "Old"
    run_id = store.create_run("whatif", "w", {})
    store.acquire_lease(run_id)  # uses owner / heartbeat, added by the migration


@pytest.mark.parametrize("url", ["mysql://root:hunter2-secret@db/x", "http://a:hunter2-secret@example.org/db",
                                 "sqlite:///tmp/x.sqlite"])
def test_other_urls_are_refused(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigError, match="postgresql://") as caught:
        RunStore(url)
    assert "hunter2" not in str(caught.value)
    monkeypatch.setenv("IFWORLD_DB", url)
    with pytest.raises(ConfigError) as caught:
        load_settings()
    assert "hunter2" not in str(caught.value)


@pytest.mark.postgres
def test_password_never_shown(pg_url: str, monkeypatch: pytest.MonkeyPatch, caplog) -> None:
    from tests.fixtures.postgres import PASSWORD

    store = RunStore(pg_url)
    assert PASSWORD not in store.label and "[redacted]" in store.label
    monkeypatch.setenv("IFWORLD_DB", pg_url)
    settings = load_settings()
    assert PASSWORD not in settings.store_label and PASSWORD not in str(settings.public_dict())
    wrong = pg_url.rsplit("/", 1)[0] + "/no_such_database"
    with pytest.raises(StoreError) as caught:
        RunStore(wrong)
    assert PASSWORD not in str(caught.value) and "no_such_database" in str(caught.value)
    run_id = store.create_run("whatif", "w", {"note": f"see {pg_url}"}, title=f"db {pg_url}")
    info = store.get_run(run_id)
    assert PASSWORD not in info.title and PASSWORD not in str(info.params)
    store.close()


def test_one_facilitator_credential_for_every_process(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """With PostgreSQL there is no "beside the store": the token is IFWORLD_FACILITATOR_TOKEN (the same in every
    process, so a cookie set by one is accepted by all), else one file in ~/.ifworld, never a path made of the URL."""
    import subprocess
    import sys

    from ifworld import access

    url = "postgresql://u:secret-pw-123@db.example:5432/ifworld"
    monkeypatch.setenv("HOME", str(tmp_path))
    assert access.token_path(url) == tmp_path / ".ifworld" / access.TOKEN_FILE
    token = "shared-token-" + "x" * 20
    monkeypatch.setenv(access.TOKEN_ENV, token)
    code = "from ifworld import access; print(access.cookie_value(access.facilitator_token(%r)))" % url
    cookies = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                              env={**__import__("os").environ}).stdout.strip() for _ in range(2)}
    assert cookies == {access.cookie_value(token)}
    assert access.cookie_matches(cookies.pop(), access.facilitator_token(url))
