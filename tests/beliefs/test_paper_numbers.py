"""The paper's numbers (ifworld/beliefs/paper_numbers.py): each constant group is found in the paper's text
(when the plain-text copy is there: ../shared/papers beside the repository), and the arithmetic that ties
Tables 1, 4, 5 and 6 to a one-at-a-time sweep of 13 runs per condition holds."""

import re
import statistics
from pathlib import Path

import pytest

from ifworld.beliefs import paper_numbers as pn

PAPER = Path(__file__).resolve().parents[2].parent / "shared" / "papers" / "001_c1d1e657d3122d18.txt"
QUOTE = re.compile(r'"([^"]+)"')


def _prose(raw: str) -> str:
    """The paper's text with the line numbers that the PDF conversion glued to line ends removed, joined."""
    out, last = [], 0
    for line in raw.splitlines():
        m = re.search(r"(\d{1,3})$", line)
        if m:
            digits = m.group(1)
            for cut in range(len(digits)):  # longest suffix that continues the numbering
                n = int(digits[cut:])
                if last < n <= last + 100:
                    line, last = line[: len(line) - len(digits) + cut], n
                    break
        out.append(line)
    text = " ".join(out).replace("-  ", "").replace("- ", "-")
    return re.sub(r"\s+", " ", text)


@pytest.fixture(scope="module")
def paper() -> tuple[str, str]:
    if not PAPER.exists():
        pytest.skip(f"paper text not here ({PAPER})")
    raw = PAPER.read_text(encoding="utf-8")
    return re.sub(r"\s+", "", raw), _prose(raw)


def _pm(v: pn.MeanStd, digits: int) -> str:
    return f"{v.mean:.{digits}f}±{v.std:.{digits}f}"


def test_table1_rows_are_in_the_paper(paper):
    compact, _ = paper
    for cond, row in pn.TABLE1.items():
        cells = [_pm(row[m], 3) for m in pn.TABLE1_METRICS[:3]] + [_pm(row["Rounds to converge"], 1)]
        assert cond + "".join(cells) in compact, cond


def test_table2_rows_are_in_the_paper(paper):
    compact, _ = paper
    for fact_type, (acc, got, total) in pn.TABLE2.items():
        assert f"{fact_type}{acc:.3f}{got}{total}".replace(" ", "") in compact, fact_type
        assert round(got / total, 3) == acc  # accuracy = retrieved / total


def test_table4_rows_are_in_the_paper(paper):
    compact, _ = paper
    for (strategy, cond), (mean, std, count) in pn.TABLE4.items():
        spread = "N/A" if std is None else f"{std:.3f}"
        assert f"{cond}{mean:.3f}±{spread}{count:.1f}" in compact, (strategy, cond)
    block = compact[compact.index("Table4:F1bysharingstrategy"):]
    assert block.index("highest_confidence") < block.index("Heuristic0.974") < block.index("strategic")


def test_table5_rows_are_in_the_paper(paper):
    compact, _ = paper
    for cond, (mean, std, conv, cap) in pn.TABLE5.items():
        assert f"{cond}{mean:.1f}±{std:.1f}{conv:.1f}%{cap:.1f}%" in compact, cond


def test_table6_rows_are_in_the_paper(paper):
    compact, _ = paper
    for t in pn.TABLE6:
        conv = "Yes" if t.converged else "No(hitlimit)"
        assert f"{t.rank}Heuristic{t.f1:.3f}{t.precision:.3f}{t.recall:.3f}{t.rounds}{conv}" in compact, t.rank


def test_quoted_sentences_are_in_the_paper(paper):
    _, prose = paper
    sources = [s for _, s in pn.DEFAULTS.values()] + [s for _, s in pn.TEXT.values()]
    sources += [v.source for v in pn.SWEEP_VALUES] + [pn.HEURISTIC_SHARES_HIGHEST]
    quotes = [q for s in sources for q in QUOTE.findall(s)]
    assert len(quotes) >= 15
    for q in quotes:
        assert q in prose, q
    assert f"({pn.ALL_RUNS_HIT_LIMIT_PCT}%)" in prose and f"({pn.ALL_RUNS_CONVERGED_PCT}% across all runs)" in prose


# --- arithmetic: one run per configuration, 13 configurations per condition --------------------------------
LLM_CAPS = [20] * 10 + [5, 10, 30]  # the caps of the 13 configurations; every LLM run hits its cap
HEURISTIC_ROUNDS = [20] * 9 + [5] + [5, 10, 30]  # one cap-20 run stopped by vote at round 5 (Table 6 rank 3)


def test_counts_make_13_runs_per_condition_and_39_in_all():
    for cond in pn.CONDITIONS:
        assert sum(pn.TABLE4[(s, cond)][2] for s in ("highest_confidence", "strategic")) == 13
    assert round(100 / 13, 1) == pn.TABLE5["Heuristic"][2]  # 1 of 13 converged: 7.7 %
    assert round(100 / 39, 1) == pn.ALL_RUNS_CONVERGED_PCT  # 1 of 39 runs in all: 2.6 %
    assert round(100 * 38 / 39, 1) == pn.ALL_RUNS_HIT_LIMIT_PCT
    for _, _, total in pn.TABLE2.values():
        assert total % 39 == 0  # every fact-type total is a multiple of 39 runs (all three conditions)
    per_run = {t: total // 39 for t, (_, _, total) in pn.TABLE2.items()}
    assert sum(v for t, v in per_run.items() if t != "Negative Relationships") == 20  # K = 20 true facts a run


def test_round_columns_follow_from_the_caps_with_the_sample_sd():
    """Table 1/5 rounds are mean ± *sample* SD (ddof = 1) over 13 runs; the population SD does not match."""
    llm, heur = pn.TABLE5["Homogeneous"], pn.TABLE5["Heuristic"]
    assert round(statistics.mean(LLM_CAPS), 1) == llm[0] and round(statistics.stdev(LLM_CAPS), 1) == llm[1]
    assert round(statistics.pstdev(LLM_CAPS), 1) != llm[1]  # 5.6
    assert round(statistics.mean(HEURISTIC_ROUNDS), 1) == heur[0]
    assert round(statistics.stdev(HEURISTIC_ROUNDS), 1) == heur[1]
    assert round(statistics.pstdev(HEURISTIC_ROUNDS), 1) != heur[1]  # 6.7
    table6_rounds = sorted(t.rounds for t in pn.TABLE6)
    assert all(table6_rounds.count(r) <= HEURISTIC_ROUNDS.count(r) for r in set(table6_rounds))


def test_table4_and_table1_agree():
    hc, strategic = pn.TABLE4[("highest_confidence", "Heuristic")], pn.TABLE4[("strategic", "Heuristic")]
    assert round((hc[0] * hc[2] + strategic[0] * strategic[2]) / 13, 3) == pytest.approx(
        pn.TABLE1["Heuristic"]["F1"].mean, abs=0.001)
    assert round(2 * 0.95 / 1.95, 3) == 0.974  # Table 6: P = 1, R = 19/20
    top10 = sum(t.f1 for t in pn.TABLE6)
    rest = 13 * pn.TABLE1["Heuristic"]["F1"].mean - top10
    assert 0 < rest / 3 < 0.974  # the three runs outside the top 10 average about 0.83


def test_sweep_values_make_13_configurations():
    assert 1 + len(pn.SWEEP_VALUES) == 13
    caps = [pn.DEFAULTS["rounds"][0]] * (13 - sum(v.parameter == "rounds" for v in pn.SWEEP_VALUES))
    caps += [v.value for v in pn.SWEEP_VALUES if v.parameter == "rounds"]
    assert sorted(caps) == sorted(LLM_CAPS)
