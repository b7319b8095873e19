"""The real-server suite's session fixture: one llama.cpp server for all its tests (see server.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.realserver.server import RealServer, start


@pytest.fixture(scope="session")
def real_server() -> Iterator[RealServer]:
    server = start()
    yield server
    server.stop()
