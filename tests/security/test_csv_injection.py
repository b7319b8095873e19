"""CSV formula injection (issue #22, item 3): no text cell of any CSV the product writes starts a formula.

Every CSV site is fed hostile text (item ids, topics, gold and model answers, propositions, method names,
grid values) and the file is read back with the csv module: a cell starting with ``= + - @``, tab or CR must
be a number of a numeric column (OWASP, CSV Injection; ASVS 1.2.10 adds NUL). One writer is used
everywhere: no ``to_csv`` call outside :mod:`ifworld.safe_csv`."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pandas as pd
import pytest

from ifworld import rws
from ifworld.beliefs.sweep import write_table
from ifworld.safe_csv import FORMULA_STARTS, safe_cell, write_csv
from ifworld.whatif.evaluate import SCORE_COLUMNS, tables, write_outputs

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ['=HYPERLINK("http://127.0.0.1:9/x?"&A1,"click")', "+cmd|' /C calc'!A0", "-2+3+cmd|' /C calc'!A0",
           "@SUM(1+1)*cmd|' /C calc'!A0", "\t=1+1", "\r=1+1", "\0=1", '=1+2";=1+2', "a,=1+2"]


def _formula_cells(text: str) -> list[str]:
    """Cells that a spreadsheet would read as a formula: text starting with a formula character."""
    found = []
    for row in csv.reader(io.StringIO(text, newline="")):
        for cell in row:
            if cell.startswith(FORMULA_STARTS):
                try:
                    float(cell)  # a real number (a numeric column) is fine
                except ValueError:
                    found.append(cell)
    return found


def test_safe_cell_follows_owasp() -> None:
    assert [safe_cell(h)[0] for h in HOSTILE[:8]] == ["'"] * 8
    assert safe_cell("a,=1+2") == "a,=1+2" and safe_cell(" =1") == " =1"  # only the first character counts
    assert safe_cell(-3.2) == -3.2 and safe_cell("") == "" and safe_cell(None) is None


def test_numbers_stay_numbers_and_text_is_neutralised() -> None:
    frame = pd.DataFrame({"name": HOSTILE, "delta": [-3.2] * len(HOSTILE), "n": range(-4, len(HOSTILE) - 4),
                          "as_text": ["-3.2"] * len(HOSTILE)})
    text = write_csv(frame) or ""
    assert _formula_cells(frame.to_csv(index=False)), "the hostile frame is not hostile (test is not testing)"
    assert _formula_cells(text) == []
    back = pd.read_csv(io.StringIO(text))
    assert back["delta"].dtype.kind == "f" and back["delta"].iloc[0] == -3.2 and back["n"].iloc[0] == -4
    assert back["as_text"].iloc[0] == "'-3.2"  # a numeric-looking string in a text column is text
    header = write_csv(frame.set_index("name").T, index=True) or ""  # hostile text as column labels
    assert _formula_cells(header) == []


def test_rws_benchmark_csv_download() -> None:
    results = [{"item_id": HOSTILE[i], "pattern": "single", "model": "m", "type": "textual", "topic": HOSTILE[i - 1],
                "answer": HOSTILE[i - 2], "gold": HOSTILE[i - 3], "grade": {"verdict": "incorrect",
                                                                            "reason": HOSTILE[i - 4]}}
               for i in range(len(HOSTILE))]
    record = {"workflow": "rws.benchmark", "data": "x.jsonl", "patterns": ["single"], "results": results}
    text = rws.to_csv(record)
    assert len(list(csv.reader(io.StringIO(text)))) == len(HOSTILE) + 1
    assert _formula_cells(text) == []


def test_whatif_eval_scores_and_tables(tmp_path: Path) -> None:
    rows = [{"method": m, "topic": t, "proposition": HOSTILE[t], "repeat": 0, "status": "ok", "calls": 3,
             "tokens": 100, **{c: 50.0 + t for c in SCORE_COLUMNS}}
            for t in range(len(HOSTILE)) for m in ("ifworld", "single")]
    rows[0]["status"] = "failed"
    rows[0]["error"] = HOSTILE[0]
    files = write_outputs(tables(pd.DataFrame(rows)), tmp_path)
    written = [Path(f) for f in files if f.endswith(".csv")]
    assert {p.name for p in written} == {"scores.csv", "macro.csv", "per_topic.csv", "ablation.csv"}
    for path in written:
        assert _formula_cells(path.read_text(encoding="utf-8")) == [], path.name
    scores = pd.read_csv(tmp_path / "scores.csv")
    assert scores["overall"].dtype.kind == "f"  # numeric columns read back as numbers


def test_belief_sweep_table(tmp_path: Path) -> None:
    frame = pd.DataFrame({"rule": HOSTILE, "f1": [-0.5] * len(HOSTILE)})
    write_table(frame, tmp_path / "rows.csv")
    text = (tmp_path / "rows.csv").read_text(encoding="utf-8")
    assert _formula_cells(text) == [] and pd.read_csv(tmp_path / "rows.csv")["f1"].iloc[0] == -0.5


@pytest.mark.parametrize("folder", ["ifworld", "ui", "app_pages"])
def test_one_csv_writer(folder: str) -> None:
    """Every CSV goes through ifworld.safe_csv: no other ``to_csv(`` / ``csv.writer`` in the product."""
    offenders = [f"{p.relative_to(ROOT)}:{n}" for p in (ROOT / folder).rglob("*.py") if p.name != "safe_csv.py"
                 for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
                 if re.search(r"\.to_csv\((?!record|rec\b)|csv\.(writer|DictWriter)\(", line)
                 and not line.lstrip().startswith(("def ", "#"))]
    assert offenders == []
