"""The paper's Table 1 under two readings of the model (see ifworld/beliefs/paper.py and the README,
Belief exchange: Reproduction), and the figures the defaults give."""

import json

import pytest
from typer.testing import CliRunner

from ifworld.beliefs import paper, paper_numbers as pn
from ifworld.beliefs.cli import app
from ifworld.beliefs.config import BeliefConfig
from ifworld.beliefs.engine import simulate, summarise

PAPER_F1, PAPER_F1_STD = pn.TABLE1["Heuristic"]["F1"]
PAPER_RECALL, PAPER_RECALL_STD = pn.TABLE1["Heuristic"]["Recall"]


def test_defaults_measured_figures():
    """What the defaults give (documented in the README, Belief exchange); guards against silent drift."""
    s = summarise(simulate(BeliefConfig(), seed=0, runs=2000))
    assert s["f1"] == pytest.approx(0.58, abs=0.02)
    assert s["precision"] == pytest.approx(0.76, abs=0.02)
    assert s["recall"] == pytest.approx(0.47, abs=0.02)


def test_paper_sweep_is_one_at_a_time_with_13_configurations():
    """The paper's sweep: §4.3's default with §5.3's strategic, then each value the paper names (or ours)."""
    spec = paper.paper_spec("additive", "as written", seeds=1, runs=1)
    configs = list(spec.configs())
    assert len(configs) == 13
    centre = configs[0]
    assert {k: centre[k] for k in paper.PAPER_BASE} == paper.PAPER_BASE
    assert all(centre[k] == v for k, (v, _) in pn.DEFAULTS.items())
    assert all(sum(c[k] != centre[k] for k in centre) == 1 for c in configs[1:])  # one change each
    assert sorted(c["rounds"] for c in configs) == sorted([20] * 10 + [5, 10, 30])  # caps behind Table 1's rounds
    assert sum(c["strategy"] == "strategic" for c in configs) == 12  # Table 4's counts
    varied = {(k, c[k]) for c in configs[1:] for k in c if c[k] != centre[k]}
    assert varied == {(v.parameter, v.value) for v in pn.SWEEP_VALUES}
    table = paper.sweep_table()
    assert table["Source"].str.len().gt(0).all() and table["Source"].str.startswith("ours").sum() == 5


@pytest.fixture(scope="module")
def bounded():
    return paper.reproduce("bounded", seeds=2, runs=150)


def test_as_written_cannot_reach_precision_one(bounded):
    a = bounded.rows[bounded.rows["reading"] == "as written"]
    assert (a["precision"] == 1).mean() < 0.1  # the paper's 1.000 ± 0 is out of reach
    assert a["f1"].mean() < PAPER_F1 - PAPER_F1_STD


def test_no_false_facts_in_circulation_reproduces_table1(bounded):
    """Hypothesis: false facts never circulated in the paper's runs; then its row is within one std."""
    b = bounded.rows[bounded.rows["reading"] == "false facts never circulate"]
    assert (b["precision"] == 1).all()
    assert abs(b["f1"].mean() - PAPER_F1) <= PAPER_F1_STD
    assert abs(b["recall"].mean() - PAPER_RECALL) <= PAPER_RECALL_STD
    t1 = paper.table1(bounded)
    assert list(t1["Metric"]) == ["F1", "Precision", "Recall", "Rounds to converge"]
    assert list(t1["Paper (Table 1, heuristic)"]) == ["0.943 ± 0.100", "1.000 ± 0.000", "0.904 ± 0.144", "17.7 ± 7.0"]
    t4 = paper.table4(bounded)
    assert list(t4["Paper F1 (Table 4)"]) == ["0.974 ± N/A", "0.940 ± 0.104"]
    assert list(t4["Paper configurations"]) == [1, 12]
    t5 = paper.table5(bounded)
    assert list(t5["Paper (Table 5, heuristic)"]) == ["17.7 ± 7.0", "7.7 %", "92.3 %"]
    t6 = paper.table6(bounded)
    assert t6["Paper (Table 6)"][0].startswith("1.000 (P 1.000, R 1.000), 20 rounds, hit limit")
    assert t6["Paper (Table 6)"][2] == "0.974 (P 1.000, R 0.950), 5 rounds, stopped by vote"
    assert [r.split(", ")[2] for r in t6["Paper (Table 6)"]] == [f"{r} rounds" for r in (20, 20, 5, 20, 20, 10, 30, 5,
                                                                                         20, 20)]
    t2 = paper.table2(bounded)
    assert t2["Paper (Table 2, all conditions)"][0] == "0.643 (301 / 468)" and len(t2) == 6
    s13 = paper.samples13(bounded, samples=200)
    p1 = s13[s13["13-run statistic"] == "P = 1.000 in all 13 runs"]
    assert p1["Ours: false facts never circulate"].item() == "100.0 % of samples"
    assert len(paper.per_configuration(bounded)) == 13 * len(paper.READINGS) and len(paper.residuals(bounded)) == 5
    assert not any("2.6 %" in line and "heuristic" not in line for line in paper.residuals(bounded))
    c = bounded.rows[bounded.rows["reading"] == "false facts drawn from T"]
    assert (c["precision"] == 1).all() and c["recall"].mean() >= b["recall"].mean()  # more true facts dealt


def test_paper_cli_json():
    res = CliRunner().invoke(app, ["paper", "--rule", "additive", "--seeds", "1", "--runs", "5", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out[0]["configurations"] == 13
    assert out[0]["readings"]["false facts never circulate"]["precision_one"] == 1.0
    assert out[0]["paper"]["stopped_by_vote"] == pytest.approx(0.077)
    assert CliRunner().invoke(app, ["paper", "--rule", "magic"]).exit_code == 2
