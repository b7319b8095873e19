"""The verifier hook: consulted only when the programmatic verdict is not correct; stage="verifier"."""

from __future__ import annotations

import ast
from pathlib import Path

from ifworld.rws.dataset import RWSItem
from ifworld.rws.grading.grader import grade_item
from ifworld.rws.grading.result import CheckResult

ITEM = RWSItem(id="2025_T_1", q_id=1, question="Which shock?", final="the bow shock", type="textual")


def test_verifier_called_only_when_not_correct() -> None:
    calls: list[str] = []

    def verifier(item: RWSItem, prediction: str, programmatic: CheckResult) -> CheckResult:
        calls.append(prediction)
        assert programmatic.verdict == "not_sure"
        return programmatic.with_(verdict="correct", reason="paraphrase accepted")

    assert grade_item(ITEM, "bow shock", verifier=verifier).stage == "textual"
    result = grade_item(ITEM, "the standing shock ahead of the magnetosphere", verifier=verifier)
    assert calls == ["the standing shock ahead of the magnetosphere"]
    assert (result.verdict, result.stage) == ("correct", "verifier")


def test_verifier_may_abstain() -> None:
    result = grade_item(ITEM, "something else entirely", verifier=lambda *_: None)
    assert result.stage == "textual" and result.verdict == "not_sure"


def test_rws_modules_never_import_streamlit() -> None:
    root = Path(__file__).resolve().parents[2] / "ifworld" / "rws"
    mine = [root / "dataset.py", root / "cli.py", *sorted((root / "grading").glob("*.py"))]
    for path in mine:
        name = path.stem
        tree = ast.parse(path.read_text("utf-8"))
        imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
        imported |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        assert not any(mod.split(".")[0] == "streamlit" for mod in imported), name
