"""CLI contract tests for `ifworld rws check|grade` on the rws sub-app."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ifworld.rws.cli import app
from tests.rws.conftest import SAMPLE

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("args", "verdict"),
    [
        (["--type", "numeric", "48.8 km/s", "48.8 km/s"], "correct"),
        (["--type", "numeric", "48.8", "48.8 km/s"], "not_sure"),  # no units given: never a silent "correct"
        (["--type", "numeric", "48.8", "48.8", "--units", "km/s"], "correct"),
        (["--type", "symbolic", "B/\\sqrt{\\mu_0 \\rho}", "v_A = \\frac{B}{\\sqrt{\\mu_0\\rho}}"], "correct"),
        (["--type", "symbolic", "--hint", "An equation $v_A = \\dots$.", "B/\\sqrt{\\mu_0 \\rho}",
          "v_A = \\frac{B}{\\sqrt{\\mu_0\\rho}}"], "not_sure"),  # the hint asks for an equation
        (["--type", "textual", "some paraphrase of it", "the bow shock"], "not_sure"),
        (["--type", "text", "Alfven waves", "Alfvén waves"], "correct"),
    ],
)
def test_check_prints_one_json_object_and_exits_0(args: list[str], verdict: str) -> None:
    result = runner.invoke(app, ["check", *args])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert {"verdict", "type", "reason", "pred_norm", "gt_norm"} <= set(payload)
    assert payload["verdict"] == verdict


def test_check_never_imports_sympy_or_pint_in_the_calling_process() -> None:
    """Grading runs in the worker: the CLI process itself stays light (a fast cold ``rws check``)."""
    code = ("import json, sys; from typer.testing import CliRunner; from ifworld.cli import app; "
            "r = CliRunner().invoke(app, ['rws', 'check', '--type', 'numeric', '5 km', '5000 m']); "
            "print(json.dumps([json.loads(r.stdout)['verdict'], [m for m in ('sympy', 'pint') if m in sys.modules]]))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          check=True)
    assert json.loads(proc.stdout.splitlines()[-1]) == ["correct", []]


@pytest.mark.parametrize("args", [["--type", "vector", "1", "1"], ["--type", "numeric", "", "1"],
                                  ["--type", "numeric", "1", "  "]])
def test_check_unusable_arguments_exit_2(args: list[str]) -> None:
    assert runner.invoke(app, ["check", *args]).exit_code == 2


def test_grade_reports_bad_lines_and_grades_the_rest(tmp_path: Path) -> None:
    lines = SAMPLE.read_text("utf-8").splitlines()[:6]
    data = tmp_path / "items.jsonl"
    data.write_text("\n".join([*lines, "{broken"]) + "\n", encoding="utf-8")
    items = [json.loads(line) for line in lines]
    preds = [json.dumps({"id": it["id"], "prediction": it["final"]}) for it in items[:5]]
    preds.append("not json at all")
    pred_path = tmp_path / "preds.jsonl"
    pred_path.write_text("\n".join(preds) + "\n", encoding="utf-8")
    out = tmp_path / "results.json"
    result = runner.invoke(app, ["grade", "--data", str(data), "--predictions", str(pred_path), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "line 7" in result.stderr and "line 6" in result.stderr
    payload = json.loads(out.read_text())
    assert json.loads(result.stdout) == payload
    assert payload["accuracy"] == pytest.approx(5 / 6)
    assert set(payload["by_type"]) <= {"numeric", "symbolic", "textual"}
    row = payload["items"][0]
    assert {"id", "type", "verdict", "reason", "stage", "annotations"} <= set(row)
    assert payload["items"][5]["verdict"] == "incorrect"


def test_grade_missing_file_exits_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["grade", "--data", str(tmp_path / "nope.jsonl"), "--predictions", str(SAMPLE)])
    assert result.exit_code == 2
