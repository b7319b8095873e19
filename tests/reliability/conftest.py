"""Collects the fault-injection outcomes and prints them as one table at the end of the session."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OUTCOMES: list[dict] = []


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "/reliability/" in str(item.fspath):
            item.add_marker(pytest.mark.slow)


def pytest_terminal_summary(terminalreporter) -> None:  # noqa: ANN001 (pytest hook)
    if not OUTCOMES:
        return
    header = f"{'workflow':<16} {'scenario':<22} {'outcome':<13} {'requests':>8} {'baseline':>8} {'wasted':>6}"
    lines = [header, "-" * len(header)]
    for o in OUTCOMES:
        lines.append(f"{o['workflow']:<16} {o['scenario']:<22} {o['outcome']:<13} {o['requests']:>8} "
                     f"{o['baseline']:>8} {o['wasted']:>6}")
    terminalreporter.write_sep("=", "fault injection: scenarios x outcome")
    for line in lines:
        terminalreporter.write_line(line)
    out = ROOT / "test-artifacts"
    out.mkdir(exist_ok=True)
    (out / "reliability.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
