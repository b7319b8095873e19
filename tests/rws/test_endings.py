"""Issue #43 again, from a second set of our own rows (``tests/rws/cases/endings_*.jsonl``), written apart from
``written_*.jsonl`` with other numbers, words and layouts: the Minerva closing, chat-template debris and a
``<think>`` preamble; several boxes; numbers as people write them (a dollar sign glued on, a decimal comma, a
sentence of givens); identical answers and several-part ratios; calls, primes, ``\\propto``, Unicode and spelled-out
Greek; text without a model; chained working with a false link or an approximate restatement.

Each table holds right answers and look-alikes that must not be called correct. A row marked ``exact`` must get
its very verdict; a row with ``link`` must name that link of a false chain, as written, in its reason.
"""

from __future__ import annotations

import pytest

from tests.rws.conftest import check_row, load_tables

ENDINGS = ("endings_closing", "endings_boxes", "endings_numbers", "endings_identical", "endings_symbols",
           "endings_text", "endings_chains")
OUTSIDE = ("outside_closing", "outside_numbers", "outside_identical", "outside_symbols")
"""A third set, written after our grader was run on answers nobody here wrote (Math-Verify's own test cases,
``benchmarks/bench_grader_peer.py``): the kinds of miss found there, in our own numbers and words — a unit on a
symbolic answer whose reference is a bare number, a percentage in a box, units in ``\\textbf``/``\\textnormal``, an
exact one-digit decimal, the ambiguous comma in a symbolic item, a word in ``\\text{}``, a segment's length as a
label."""


@pytest.mark.parametrize("row", load_tables(ENDINGS + OUTSIDE))
def test_ending_case(row: dict) -> None:
    check_row(row)


def test_every_table_has_look_alikes() -> None:
    """Zero wrong "correct" is the first rule: every class is tested against answers that must not pass."""
    for name in ENDINGS + OUTSIDE:
        rows = [param.values[0] for param in load_tables((name,))]
        assert sum(row["verdict"] != "correct" for row in rows) >= len(rows) // 3, name
        assert any(row["verdict"] == "correct" for row in rows), name


def test_word_lists_are_data(tmp_path, monkeypatch) -> None:
    """Abbreviations and opposite words come from one data file each: a row added there is used, no code changed."""
    from ifworld import resources
    from ifworld.rws.grading import wording
    from ifworld.rws.grading.textual import check_textual

    assert wording.opposites()["sunward"] == "antisunward" and wording.opposites()["weakens"] == "strengthens"
    assert wording.abbreviations()["CIR"] == "corotating interaction region"
    for name in (wording.ANTONYMS_FILE, wording.ABBREVIATIONS_FILE):
        (tmp_path / name).write_text(resources.data_path(name).read_text("utf-8"), "utf-8")
    with (tmp_path / wording.ANTONYMS_FILE).open("a", encoding="utf-8") as out:
        out.write("ebbing\tflowing\n")
    with (tmp_path / wording.ABBREVIATIONS_FILE).open("a", encoding="utf-8") as out:
        out.write("QPP\tquasi periodic pulsation\n")
    monkeypatch.setattr(resources, "data_path", lambda name: tmp_path / name)
    for cached in (wording.opposites, wording.abbreviations, wording._abbreviation_re):
        cached.cache_clear()
    try:
        assert check_textual("the tide is ebbing", "the tide is flowing").verdict == "incorrect"
        assert check_textual("a QPP", "quasi-periodic pulsation").verdict == "correct"
    finally:
        for cached in (wording.opposites, wording.abbreviations, wording._abbreviation_re):
            cached.cache_clear()


def test_a_comma_between_numbers_in_brackets_separates_them() -> None:
    """The ambiguous-comma rule is for one number: in a pair, a set or a call the comma separates values."""
    from ifworld.rws.grading.grader import check

    for pred, gold in (("(4,125)", "(4, 125)"), ("\\{3,250\\}", "\\{3, 250\\}"), ("g(1,500)", "g(1, 500)")):
        result = check(pred, gold, "symbolic")
        assert result.verdict == "correct" and "thousands" not in result.reason, (pred, result)
    lone = check("4,125", "4.125", "symbolic")
    assert lone.verdict == "not_sure" and lone.reason.startswith("reading the answer: ambiguous comma"), lone
