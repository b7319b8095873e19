"""Answers built to hurt, through `ifworld rws check` and the RWS browse page's grade box.

No code runs (an absolute-path marker file is never created, whichever process the grader uses), each
check ends within the grader's time limit (measured), and a normal check right after still succeeds.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ifworld.cli import app
from ifworld.rws.grading.grader import DEFAULT_TIMEOUT_S, check
from tests.security.helpers import open_page

SLACK_S = 3.0
"""Allowance over the grader's own limit: killing and restarting the worker, the page's rerun."""
GOLD = {"symbolic": "x", "numeric": "48.8 km/s", "textual": "the bow shock"}
MARKER = "MARKER_FILE"


def _payloads(marker: Path) -> list[tuple[str, str]]:
    """(name, answer) pairs: nesting, huge powers, TeX recursion, Python look-alikes, 100 KB."""
    touch = f"__import__('os').system('touch {marker}')"
    return [
        ("nested-parens", "(" * 500 + "x" + ")" * 500),
        ("nested-frac", "\\frac{1}{" * 200 + "x" + "}" * 200),
        ("huge-exponent", "x^{99999999}"),
        ("huge-power-of-sum", "(x+1)^{99999999}"),
        ("power-tower", "10^{10^{10}}"),
        ("recursive-macro", "\\def\\a{\\a}\\a"),
        ("python-import", touch),
        ("python-bases", "().__class__.__bases__[0].__subclasses__()"),
        ("python-eval", f'eval("{touch}")'),
        ("python-open", f"open('{marker}', 'w').write('pwned')"),
        ("latex-python", f"\\text{{{touch}}}"),
        ("100KB-symbols", "x" * 100_000),
        ("100KB-sum", "1+" * 50_000 + "1"),
    ]


CASES = [(name, kind) for name, _ in _payloads(Path("/m")) for kind in ("symbolic", "numeric", "textual")
         if kind == "symbolic" or name.startswith("python") or name.startswith("100KB")]


@pytest.fixture(scope="module", autouse=True)
def warm_worker() -> None:
    """Start the symbolic worker once (its first call has a larger start-up budget)."""
    assert check("x + x", "2x", "symbolic").verdict == "correct"


@pytest.mark.parametrize("name, kind", CASES, ids=[f"{n}-{k}" for n, k in CASES])
def test_cli_check_survives(name: str, kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    marker = tmp_path / MARKER
    answer = dict(_payloads(marker))[name]
    runner = CliRunner()
    start = time.monotonic()
    result = runner.invoke(app, ["rws", "check", "--type", kind, answer, GOLD[kind]])
    elapsed = time.monotonic() - start
    assert result.exit_code == 0, result.output[-500:]
    out = json.loads(result.stdout)
    assert out["verdict"] in ("incorrect", "not_sure"), out
    assert set(out) >= {"verdict", "type", "reason", "pred_norm", "gt_norm"}
    assert elapsed < DEFAULT_TIMEOUT_S + SLACK_S, f"{name}: {elapsed:.1f} s"
    assert not marker.exists() and not list(tmp_path.iterdir())
    normal = runner.invoke(app, ["rws", "check", "--type", "symbolic", "x + x", "2x"])
    assert normal.exit_code == 0 and json.loads(normal.stdout)["verdict"] == "correct"


def test_cli_time_limit_is_enforced_per_check() -> None:
    start = time.monotonic()
    result = CliRunner().invoke(app, ["rws", "check", "--type", "symbolic", "--timeout", "0.5",
                                      "(x+1)^{99999999} - (x+1)^{99999998}", "x"])
    assert time.monotonic() - start < 0.5 + SLACK_S
    assert result.exit_code == 0 and json.loads(result.stdout)["verdict"] in ("not_sure", "incorrect")


GRADE_BOX = ["nested-parens", "huge-exponent", "power-tower", "recursive-macro", "python-import", "python-bases",
             "python-open", "100KB-symbols"]


@pytest.mark.parametrize("name", GRADE_BOX)
def test_grade_box_survives(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    marker = tmp_path / MARKER
    answer = dict(_payloads(marker))[name]
    at = open_page("rws_browse")
    symbolic = next(o for o in at.selectbox(key="rwsbrowse_item").options if "· symbolic ·" in o)
    at.selectbox(key="rwsbrowse_item").set_value(symbolic.split(" · ")[0]).run()
    at.text_input(key="rwsbrowse_answer").set_value(answer)  # a form: the value commits with the submit
    start = time.monotonic()
    at.button(key="rwsbrowse_grade").click().run()
    elapsed = time.monotonic() - start
    assert not at.exception, at.exception
    shown = [e.value for kind in ("success", "error", "warning") for e in getattr(at, kind)]
    assert any("incorrect" in v or "not_sure" in v for v in shown), shown
    assert not any("Grading failed" in v for v in shown)
    assert elapsed < DEFAULT_TIMEOUT_S + SLACK_S, f"{name}: {elapsed:.1f} s"
    assert not marker.exists() and not list(tmp_path.iterdir())
    # the page keeps serving: a normal answer right after is graded correct
    numeric = "2025_IFW_2_b"
    at.selectbox(key="rwsbrowse_item").set_value(numeric).run()
    at.text_input(key="rwsbrowse_answer").set_value("48.8 km/s")
    at.button(key="rwsbrowse_grade").click().run()
    assert at.success and "correct" in at.success[0].value
