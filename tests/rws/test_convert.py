"""GSM8K/MATH-style JSONL → RWS schema (issue #12 item 7); rows written for this test."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from ifworld.rws.cli import app
from ifworld.rws.convert import convert
from ifworld.rws.dataset import load_items
from ifworld.rws.grading.grader import check

GSM = [
    {"question": "A probe sends 12 packets per hour for 3 hours. How many packets?",
     "answer": "It sends 12*3=<<12*3=36>>36 packets.\n#### 36"},
    {"question": "Two coils have 1,200 and 300 turns. How many more turns has the first?",
     "answer": "1200-300=<<1200-300=900>>900\n#### 900"},
    {"question": "broken", "answer": "no final line"},
]
MATH = [
    {"problem": "Solve $x^2 = 4$ for $x > 0$.", "solution": "So $x = \\boxed{2}$.", "level": "Level 1"},
    {"problem": "Simplify $\\sqrt{8}$.", "solution": "We get $\\boxed{2\\sqrt{2}}$.", "type": "Algebra"},
    {"problem": "Give the interval.", "answer": "[1, 2)"},
    {"problem": "No answer here.", "solution": "nothing boxed"},
]


def _jsonl(rows: list) -> bytes:
    return ("\n".join(json.dumps(r) for r in rows) + "\n").encode()


def test_gsm8k_style() -> None:
    items, errors = convert(_jsonl(GSM), "gsm8k")
    assert [(i.id, i.final, i.type) for i in items] == [("gsm8k_1", "36", "numeric"), ("gsm8k_2", "900", "numeric")]
    assert items[0].step == ["It sends 12*3=36 packets."]
    assert [e.line for e in errors] == [3]


def test_math_style_boxed_and_answer_field() -> None:
    items, errors = convert(_jsonl(MATH), "math", prefix="m")
    assert [(i.id, i.final, i.type) for i in items] == [
        ("m_1", "2", "numeric"), ("m_2", "2\\sqrt{2}", "symbolic"), ("m_3", "[1, 2)", "symbolic")]
    assert items[0].meta["level"] == "Level 1"
    assert [e.line for e in errors] == [4]
    assert check("\\sqrt{8}", items[1].final, "symbolic").verdict == "correct"
    assert check("1 \\le x < 2", items[2].final, "symbolic").verdict == "correct"


def test_cli_convert_then_load(tmp_path: Path) -> None:
    source = tmp_path / "math.jsonl"
    source.write_bytes(_jsonl(MATH))
    out = tmp_path / "rws.jsonl"
    result = CliRunner().invoke(app, ["convert", str(source), "--format", "math", "--out", str(out)])
    assert result.exit_code == 0, result.output
    loaded = load_items(out, check_gold=True)
    assert len(loaded.items) == 3 and not loaded.errors and not loaded.gold_problems
