"""One source for the reproduction's numbers: ``ifworld beliefs paper --out DIR`` writes the tables and
figures, and docs/reproduction.md's marked block is exactly what the same code gives for the fixed seed."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ifworld.beliefs import paper_output
from ifworld.beliefs.cli import app
from ifworld.beliefs.figures import HAS_KALEIDO

DOC = Path(__file__).resolve().parents[2] / "docs" / "reproduction.md"
README = Path(__file__).resolve().parents[2] / "README.md"


def test_paper_out_dir_writes_tables_and_figures(tmp_path):
    out = tmp_path / "paper"
    res = CliRunner().invoke(app, ["paper", "--rule", "additive", "--seeds", "1", "--runs", "5", "--out", str(out)])
    assert res.exit_code == 0, res.output
    for name in ("table1", "table2", "table4", "table5", "table6", "samples13", "strategies"):
        assert (out / f"additive_{name}.csv").exists() and (out / f"additive_{name}.md").exists()
    assert (out / "sweep.csv").exists() and (out / "rows.csv").exists()
    table1 = (out / "additive_table1.md").read_text(encoding="utf-8")
    assert "| Rounds to converge | 17.7 ± 7.0 |" in table1 and "0.943 ± 0.100" in table1
    table5 = (out / "additive_table5.md").read_text(encoding="utf-8")
    assert "| Actual convergence (stopped by vote) | 7.7 % |" in table5
    for fig in ("figure1", "figure2"):
        assert (out / f"additive_{fig}.html").stat().st_size > 0
        assert (out / f"additive_{fig}.png").exists() == HAS_KALEIDO
    figure1 = (out / "additive_figure1.html").read_text(encoding="utf-8")
    assert "Misinformation load M_F" in figure1 and "(ours: the paper gives no data)" in figure1
    assert "none at 1.000" not in res.output and "2.6 %" not in res.output.replace("2.6 % of §6.1", "")


def test_block_replacement_keeps_the_rest():
    text = f"head\n{paper_output.BEGIN}\nold\n{paper_output.END}\ntail\n"
    new = paper_output.replace_block(text, "new\n")
    assert new == f"head\n{paper_output.BEGIN}\nnew\n{paper_output.END}\ntail\n"
    assert paper_output.current_block(new) == "new\n"
    with pytest.raises(ValueError):
        paper_output.replace_block("no markers", "x")


@pytest.mark.slow
def test_docs_block_is_what_the_command_gives():
    """Regenerates the block at the page's fixed seed and settings (both rules, four readings, 5 seeds × 200
    runs; minutes under load, so kept in the slow tier)."""
    reps = paper_output.doc_reproductions()
    assert paper_output.current_block(DOC.read_text(encoding="utf-8")) == paper_output.report_markdown(reps), (
        "docs/reproduction.md drifted: run `python -m ifworld.beliefs.paper_output --docs docs/reproduction.md`")
    readme = paper_output.current_block(README.read_text(encoding="utf-8"), paper_output.SUMMARY_BEGIN,
                                        paper_output.SUMMARY_END)
    assert readme == paper_output.summary_markdown(reps), (
        "README's reproduction summary drifted: run `python -m ifworld.beliefs.paper_output --readme README.md`")


def test_the_summary_puts_the_difference_beside_each_paper_number():
    from ifworld.beliefs import paper

    table = paper.differences(paper.reproduce("additive", seeds=1, runs=10))
    assert list(table.columns[:2]) == ["", "Paper"] and len(table.columns) == 2 + len(paper.READINGS)
    f1 = table.set_index("")["Paper"]["T1 F1"]
    assert f1 == "0.943"  # Table 1, heuristic F1
    for cell in table.iloc[:, 2:].to_numpy().ravel():
        ours, diff = cell.split(" (")
        assert diff.endswith(")") and diff[0] in "+-"
    row = table.set_index("").loc["T5 stopped by vote (%)"]
    assert row["Paper"] == "7.7"  # Table 5: 7.7 %, not the pooled 2.6 %
    for reading in paper.READINGS:
        ours, diff = row[reading].split(" (")
        assert abs(float(ours) - 7.7 - float(diff.rstrip(")"))) < 0.051
