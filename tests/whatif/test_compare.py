"""Pure comparison and record-replay helpers."""

from __future__ import annotations

import pytest

from ifworld.whatif import compare, steps
from ifworld.whatif.records import RecordError, load_record
from tests.whatif.records import sample_record

JUDGED = {"rigor_traceability": 20, "integration_causality": 18, "feasibility_minimality": 15,
          "uncertainty_adaptation": 10, "decisionability": 12, "overall": 75}


def test_judge_scores_and_figures() -> None:
    assert compare.judge_scores(sample_record()) is None
    scores = compare.judge_scores(sample_record(judge=JUDGED))
    assert scores == {k: float(v) for k, v in JUDGED.items()}
    radar = compare.judge_radar({"A": scores})
    assert radar.data[0].r[0] == 80.0 and len(radar.data[0].r) == 6  # closed polygon, % of max
    bars = compare.judge_bars({"A": scores, "B": scores})
    assert len(bars.data) == 2 and len(bars.data[0].x) == 6


def test_usage_of_and_table() -> None:
    usage = compare.usage_of({"calls": [{}, {}]}, {"latency_s": 1.5})
    assert usage == {"latency_s": 1.5, "calls": 2}
    rows = compare.usage_table({"A": {"calls": 3, "failed": 1}, "B": {"calls": 5}})
    assert rows[0] == {"metric": "calls", "A": 3, "B": 5}
    assert {"metric": "failed", "A": 1, "B": None} in rows


def test_report_sections_skip_missing() -> None:
    sections = compare.report_sections(sample_record())
    assert list(sections)[:3] == ["Summary", "Executive verdict", "Core conclusions"]
    assert "Abrupt climate shift" in sections["Scenarios"]
    assert compare.report_sections({}) == {}
    assert compare.report_sections({"report": {"summary_bullets": [], "timeline": []}}) == {}


def test_malformed_record_is_a_named_error_not_an_empty_comparison() -> None:
    broken = {"report": {"summary_bullets": [], "timeline": [None]}}
    for fn in (compare.report_sections, compare.judge_scores, compare.usage_of, steps.record_steps):
        with pytest.raises(RecordError, match=r"^what-if run r7: field report\.timeline\.0: ") as err:
            fn({**broken, "run_id": "r7"})
        assert err.value.field == "report.timeline.0"


def test_typed_record_gives_the_same_answers_as_its_dict() -> None:
    raw = sample_record(judge={**JUDGED, "rationale": "fine"})
    rec = load_record(raw)
    assert compare.report_sections(rec) == compare.report_sections(raw)
    assert compare.judge_scores(rec) == compare.judge_scores(raw) == {k: float(v) for k, v in JUDGED.items()}
    assert compare.usage_of(rec, {"latency_s": 2.0}) == compare.usage_of(raw, {"latency_s": 2.0}) == {
        "latency_s": 2.0, "calls": 7, "prompt_tokens": 700, "completion_tokens": 350, "retries": 1, "failures": 1}
    assert steps.record_steps(rec) == steps.record_steps(raw)


def test_judge_scores_nested_and_non_numeric() -> None:
    nested = sample_record(judge={"scores": {"rigor_traceability": "20", "overall": 50, "decisionability": "x"},
                                  "decisionability": 3})
    assert compare.judge_scores(nested) == {"rigor_traceability": 20.0, "overall": 50.0}
    assert compare.judge_scores(sample_record(judge={"rationale": "no scores"})) is None
    assert compare.judge_scores(sample_record(judge={"overall": None})) is None


def test_usage_counts_calls_only_when_the_record_has_them() -> None:
    assert compare.usage_of({}, {"latency_s": 1.0}) == {"latency_s": 1.0}
    assert compare.usage_of({"calls": []}) == {"calls": 0}
    assert compare.usage_of({"usage": {"calls": [1, 2, 3], "retries": None}}) == {"calls": 3}


def test_report_sections_typed_natural_output_and_branch_names():
    natural = {"report": {"natural": True, "markdown": "# Q\n\nDirect answer."}}
    assert compare.report_sections(natural) == {"Answer": "##### Q\n\nDirect answer."}  # below the #### titles
    rec = {"report": {"scenarios": [{"id": "B1", "name": "cascade", "probability_pct": 0.5}],
                      "decision_table": [{"indicator": "tides", "threshold": "< 1 m", "branch_id": "b1"}]}}
    sections = compare.report_sections(rec)
    assert sections["Scenarios"] == "- **B1 cascade** — 0.5 %" and sections["Decision rules"] == \
        "- tides < 1 m → B1 cascade"


def test_report_sections_demote_a_models_headings_below_the_section_titles() -> None:
    """A baseline's ``# Title`` / ``## Section`` (or a ``# `` bullet) must not outsize the page's #### titles."""
    natural = {"report": {"natural": True, "markdown": "# Q\n\n# My analysis\n\nBig claim\n===\n\n## Part 2\n"}}
    answer = compare.report_sections(natural)["Answer"]
    assert answer.splitlines() == ["##### Q", "", "##### My analysis", "", "##### Big claim", "", "###### Part 2"]
    rec = {"report": {"summary_bullets": ["# Shouting headline", "calm point"]}}
    assert compare.report_sections(rec)["Summary"] == "- ##### Shouting headline\n- calm point"
