"""A model's 1e400 / NaN / Infinity (issue #22, item 9): the what-if run completes, its consistency check flags
the numbers, and every JSON written from it (the run export, ``whatif run --out``, ``runs export``) parses with
a strict parser, the numbers written as null with their paths listed."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from typer.testing import CliRunner

from ifworld import runs, safe_json
from ifworld.llm.demo_answers import whatif as demo
from ifworld.runs.store import RunStore


def strict_loads(text: str) -> Any:
    """json.loads that refuses the non-standard NaN / Infinity / -Infinity tokens."""
    def refuse(token: str) -> Any:
        raise AssertionError(f"non-standard JSON token {token}")
    return json.loads(text, parse_constant=refuse)


def _analysis_with_huge_numbers(body: dict) -> str:
    """The report's analysis part as a model writing 1e400 and NaN would send it (raw JSON text)."""
    out = demo.report_analysis(body)
    out["calibration_ranges"][0]["ci95"] = ["__LOW__", "__HIGH__"]
    return json.dumps(out).replace('"__HIGH__"', "1e400").replace('"__LOW__"', "NaN")


@pytest.fixture
def huge_run(run_whatif: Any, fake_server: Any) -> dict:
    fake_server.add_rule("whatif.report#analysis", _analysis_with_huge_numbers, "whatif.report.analysis.huge")
    return run_whatif(rounds=1, experts=["physics", "economics"])


def test_the_run_completes_and_the_consistency_check_flags_them(huge_run: dict) -> None:
    checks = {c["name"]: c for c in huge_run["report"]["consistency_checks"]["checks"]}
    assert checks["numbers_finite"]["passed"] is False
    details = " ".join(checks["numbers_finite"]["details"])
    assert "calibration_ranges[0].ci95[0]" in details and "calibration_ranges[0].ci95[1]" in details


def test_every_json_export_parses_strictly(huge_run: dict, store: RunStore, tmp_path: Any,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    run_id = huge_run["run_id"]
    exported = strict_loads(runs.export_run(run_id, "json", store=store))
    paths = exported[safe_json.NOTE_KEY]["paths"]
    assert any(re.fullmatch(r"\$\.record\.report\.calibration_ranges\[0\]\.ci95\[1\]", p) for p in paths), paths
    assert exported["record"]["report"]["calibration_ranges"][0]["ci95"] == [None, None]
    monkeypatch.setenv("IFWORLD_DB", str(store.path))
    from ifworld.cli import app

    out = tmp_path / "export.json"
    result = CliRunner().invoke(app, ["runs", "export", run_id, "--format", "json", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert strict_loads(out.read_text(encoding="utf-8"))[safe_json.NOTE_KEY]["paths"] == paths
    # the text exports show the consistency finding
    assert "not a finite number" in runs.export_run(run_id, "md", store=store)


def test_whatif_run_out_file_parses_strictly(llm_env: Any, tmp_path: Any) -> None:
    llm_env.add_rule("whatif.report#analysis", _analysis_with_huge_numbers, "whatif.report.analysis.huge")
    from ifworld.whatif.cli import app

    out = tmp_path / "run.json"
    res = CliRunner().invoke(app, ["run", "What if the Moon disappeared?", "--experts", "physics,economics",
                                   "--rounds", "1", "--no-debate", "--out", str(out)])
    assert res.exit_code == 0, res.output
    data = strict_loads(out.read_text(encoding="utf-8"))
    assert data[safe_json.NOTE_KEY]["paths"] and data["report"]["calibration_ranges"][0]["ci95"] == [None, None]


def test_dumps_keeps_finite_numbers_and_notes_the_rest() -> None:
    value = {"a": [1.5, float("inf"), {"b": float("nan")}], "c": -float("inf"), "d": 1e308, "e": "NaN"}
    text = safe_json.dumps(value)
    data = strict_loads(text)
    assert data["a"] == [1.5, None, {"b": None}] and data["c"] is None and data["d"] == 1e308 and data["e"] == "NaN"
    assert data[safe_json.NOTE_KEY]["paths"] == ["$.a[1]", "$.a[2].b", "$.c"]
    assert strict_loads(safe_json.dumps([float("nan")])) == [None]
    assert safe_json.NOTE_KEY not in strict_loads(safe_json.dumps({"x": 1}))
