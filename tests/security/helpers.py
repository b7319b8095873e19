"""Shared bits of the bad-input and security tests: open a page under AppTest, read its visible text."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
TIMEOUT = 60
FAKE_KEY = "sk-security-KNOWN-FAKE-KEY-5e1f9c"


def open_page(page: str, timeout: float = TIMEOUT) -> AppTest:
    """Open ``app_pages/<page>.py`` as the first run (AppTest drops the sidebar on reruns)."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    at.switch_page(f"app_pages/{page}.py")
    return at.run()


def texts(at: AppTest, kinds: tuple[str, ...] = ("markdown", "caption", "success", "error", "warning",
                                                  "info")) -> str:
    """Everything the main area shows in these element kinds, one element per line."""
    return "\n".join(str(e.value) for kind in kinds for e in getattr(at, kind))


def wait_for_session(at: AppTest, until: Callable[[Any], bool] | None = None, timeout_s: float = 90.0) -> Any:
    """Poll the What-if page's session (driven in the background) until ``until`` holds — by default until it
    is no longer running — then rerun the page, as its own refresh would; returns the session."""
    from ifworld import whatif
    from ifworld.runs.store import get_store

    until = until or (lambda s: s.state not in whatif.RUNNING)
    run_id = at.session_state["whatif_run_id"]
    deadline = time.monotonic() + timeout_s
    while True:
        session = whatif.load_session(run_id, get_store())
        if until(session):
            at.run()
            assert not at.exception, at.exception
            return session
        if time.monotonic() > deadline:
            raise AssertionError(f"run {run_id} did not reach the expected state; it is {session.state}")
        time.sleep(0.1)
