"""Shared bits of the bad-input and security tests: open a page under AppTest, read its visible text."""

from __future__ import annotations

from pathlib import Path

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
