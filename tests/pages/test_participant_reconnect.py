"""A participant's page while PostgreSQL is down (#40 item 7): it says "reconnecting" — one friendly line, no
server detail — after waiting at most ``PARTICIPANT_WAIT_S`` per store call (the backend's own wait is 30 s, which
every phone's redraw paid before), keeps what was typed, and comes back by itself once the server is up again.

The server is a cluster of this test's own (stopping the session's would cut other tests' connections)."""

from __future__ import annotations

import time

import pytest
from psycopg_pool import ConnectionPool

from ifworld.access import OPERATOR
from ifworld.runs.store import get_store
from ifworld.whatif import service, workshop as ws
from ifworld.whatif.params import default_params
from tests.fixtures.postgres import PgServer, pg_bindir
from tests.pages.test_workshop_page import _join
from ui.common import PARTICIPANT_WAIT_S, RECONNECTING

pytestmark = pytest.mark.postgres


@pytest.fixture
def own_server(pg_server: PgServer) -> PgServer:  # noqa: ARG001 — pg_server: skip when PostgreSQL is missing
    server = PgServer(pg_bindir())
    server.start()
    yield server
    server.remove()


@pytest.fixture(autouse=True)
def signin_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IFWORLD_REQUIRE_SIGNIN", "1")  # the room is not the facilitator


def _shown(at) -> str:  # noqa: ANN001
    return " ".join(str(e.value) for kind in ("markdown", "caption", "text", "error", "info", "warning", "code")
                    for e in getattr(at, kind))


def test_a_participant_reads_reconnecting_while_postgres_is_down_and_the_page_comes_back(
        own_server: PgServer, settings, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    url = own_server.create_db()
    monkeypatch.setenv("IFWORLD_DB", url)
    store = get_store(url)
    params = default_params("What if the Moon disappeared overnight?", experts=["physics", "economics"], rounds=1,
                            review=True)
    run_id = service.run(params, settings=settings, store=store, source="page")["run_id"]
    room = ws.open_workshop(run_id, caller=OPERATOR, store=store)
    you = _join(room.token, "Ada")
    assert "You are Ada" in _shown(you)
    you.session_state["join_p_draft"] = "kept"  # something of this session's that must outlive the outage

    waits: list[float | None] = []
    connection = ConnectionPool.connection

    def spy(self, timeout: float | None = None):  # noqa: ANN001, ANN202
        waits.append(timeout)
        return connection(self, timeout=timeout)
    monkeypatch.setattr(ConnectionPool, "connection", spy)

    own_server.stop("fast")
    started = time.monotonic()
    you.run()
    down_for = time.monotonic() - started
    assert not you.exception, you.exception
    shown = _shown(you)
    assert RECONNECTING in shown
    for detail in ("postgres", "127.0.0.1", str(own_server.port), "Traceback", "OperationalError"):
        assert detail not in shown, detail
    assert waits and set(waits) == {PARTICIPANT_WAIT_S}, waits  # every store call waited the participant's bound
    print(f"participant page with PostgreSQL down: 'reconnecting' after {down_for:.2f} s "
          f"({len(waits)} store call(s), each waiting at most {PARTICIPANT_WAIT_S} s)")

    own_server.start()
    deadline = time.monotonic() + 90  # the pool reconnects with a backoff: wait for the condition
    while RECONNECTING in _shown(you) and time.monotonic() < deadline:
        time.sleep(0.5)  # polling the condition (the page's own retry runs every 2 s)
        you.run()
    assert not you.exception, you.exception
    assert "You are Ada" in _shown(you) and RECONNECTING not in _shown(you)
    assert you.session_state["join_p_draft"] == "kept"
