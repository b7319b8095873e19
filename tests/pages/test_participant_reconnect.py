"""A participant's phone page while PostgreSQL is down (#40 item 7): its stream says the workshop cannot be reached
— one friendly line, no server detail — and a press answers "nothing was lost"; once the server is up again a
press is stored and the page's stream comes back with the room (what was typed stays in the page's box: the page
is not reloaded, ifworld/web/phone.js).

The server is a cluster of this test's own (stopping the session's would cut other tests' connections)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator

import pytest
from psycopg_pool import ConnectionPool

from ifworld.access import OPERATOR
from ifworld.runs.store import get_store
from ifworld.whatif import service, workshop as ws
from ifworld.whatif.params import default_params
from tests.fixtures.postgres import PgServer, pg_bindir
from tests.pages.test_phone_server import _first_view, post
from tests.pages.test_workshop_page import _join
from ui.phone_server import READ_WAIT_S, UNREACHABLE

pytestmark = [pytest.mark.postgres, pytest.mark.timeout(240)]


@pytest.fixture
def own_server(pg_server: PgServer) -> PgServer:  # noqa: ARG001 — pg_server: skip when PostgreSQL is missing
    server = PgServer(pg_bindir())
    server.start()
    yield server
    server.remove()


@pytest.fixture
def down(own_server: PgServer, settings, monkeypatch: pytest.MonkeyPatch):  # noqa: ANN001, ANN201
    """A phone in a workshop, its stream open, then PostgreSQL stopped: (phone, token, stream, status events
    seen, seconds until the first, the pool waits asked for)."""
    url = own_server.create_db()
    monkeypatch.setenv("IFWORLD_DB", url)
    store = get_store(url)
    params = default_params("What if the Moon disappeared overnight?", experts=["physics", "economics"], rounds=1,
                            review=True)
    run_id = service.run(params, settings=settings, store=store, source="page")["run_id"]
    room = ws.open_workshop(run_id, caller=OPERATOR, store=store)
    you = _join(room.token, "Ada")
    waits: list[float | None] = []
    connection = ConnectionPool.connection

    def spy(self, timeout: float | None = None):  # noqa: ANN001, ANN202
        waits.append(timeout)
        return connection(self, timeout=timeout)

    with you.stream("GET", f"/p/events?w={room.token}") as response:
        stream = response.iter_lines()  # one reader of the lines, for every read below
        assert _events(stream, "patch", lambda data: True)[0]["me"] == "Ada"  # the whole view first
        monkeypatch.setattr(ConnectionPool, "connection", spy)
        own_server.stop("fast")
        started = time.monotonic()
        statuses = _events(stream, "status", lambda data: bool(data["error"]))
        yield you, room.token, stream, statuses, time.monotonic() - started, waits, own_server


def _events(stream: Iterator[str], name: str, until: Callable[[dict], bool], limit_s: float = 90) -> list[dict]:
    """The ``name`` events' data read from the lines ``stream`` until one meets ``until`` (or ``limit_s`` passed;
    a quiet stream sends a keepalive every 15 s)."""
    seen, event, deadline = [], None, time.monotonic() + limit_s
    for line in stream:
        if line.startswith("event: "):
            event = line[7:]
        elif line.startswith("data: ") and event == name:
            seen.append(json.loads(line[6:]))
            if until(seen[-1]):
                break
        if time.monotonic() > deadline:
            break
    return seen


def test_a_phone_reads_a_friendly_line_while_postgres_is_down_and_presses_again_after(down) -> None:  # noqa: ANN001
    you, token, stream, statuses, down_for, waits, server = down
    assert statuses and statuses[-1]["error"] == UNREACHABLE
    for detail in ("postgres", "127.0.0.1", str(server.port), "Traceback", "OperationalError"):
        assert detail not in json.dumps(statuses), detail
    print(f"phone stream with PostgreSQL down: its line after {down_for:.2f} s "
          f"(pool waits asked: {sorted(set(map(str, waits)))})")
    pressed = post(you, "send", {"token": token, "text": "Tides stop"})
    assert pressed.status_code in (400, 503) and "postgres" not in pressed.text  # refused, kindly
    server.start()
    deadline = time.monotonic() + 90  # the pool reconnects with a backoff: wait for the condition
    while time.monotonic() < deadline:
        if post(you, "find", {"code": "NOPE00"}).status_code != 503:
            break
        time.sleep(0.5)
    with you.stream("GET", f"/p/events?w={token}") as again:  # the page's own reconnect: the room, at once
        assert _first_view(again)["me"] == "Ada"


def test_a_phone_is_told_within_the_participant_wait_and_told_again_when_the_store_is_back(down) -> None:  # noqa: ANN001
    you, token, stream, statuses, down_for, waits, server = down
    assert waits and set(waits) == {READ_WAIT_S}, waits  # every read for the phones waits the phones' bound
    server.start()
    back = _events(stream, "status", lambda data: not data["error"])  # the banner is cleared
    assert back and not back[-1]["error"]
