"""Hostile answers to the grader itself (issue #20): exponent towers, division by zero, 5 MB predictions,
100 KB LaTeX, HTML, braces nested 10^5 deep. Each gets a verdict that is not "correct" (or, for a long reply
that ends in the right answer, "correct" with the note that the input was cut), and a normal check still works
right after. Durations are not asserted: pytest-timeout only keeps a regression from hanging the suite.
"""

from __future__ import annotations

import pytest

from ifworld.rws.grading.grader import check

pytestmark = pytest.mark.timeout(300)

HOSTILE = [
    ("tower-numeric", "e^{e^{e^{42}}}", "42", "numeric"),
    ("tower-symbolic", "10^{10^{10}}", "1", "symbolic"),
    ("tower-top-is-not-the-value", "e^{e^{e^{100}}}", "42", "numeric"),
    ("exponent-is-not-the-value", "e^{100}", "100", "numeric"),
    ("division-by-zero", "1/0", "0", "numeric"),
    ("zero-over-zero", "0/0", "0", "numeric"),
    ("division-by-zero-latex", "\\frac{5}{0}", "0", "symbolic"),
    ("nested-braces-1e5", "{" * 100_000 + "x" + "}" * 100_000, "x", "symbolic"),
    ("open-braces-1e5", "{" * 100_000 + "x", "x", "symbolic"),
    ("nested-braces-numeric", "{" * 100_000 + "1" + "}" * 100_000 + " km", "1 km", "numeric"),
    ("latex-100KB", "\\frac{1}{2}+" * 9_000 + "x", "x", "symbolic"),
    ("html-script", "<script>fetch('http://x')</script>", "x", "symbolic"),
    ("html-script-textual", "<script>alert('the bow shock')</script>", "the bow shock", "textual"),
    ("html-img", '<img src=x onerror="alert(1)">', "1", "numeric"),
    ("python-in-plain-text", "__import__('os').system('true')", "x", "symbolic"),
    ("attribute-in-plain-text", "x.__class__", "x", "symbolic"),
]


@pytest.mark.parametrize("name, pred, gold, kind", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_answer_is_never_correct(name: str, pred: str, gold: str, kind: str) -> None:
    result = check(pred, gold, kind)
    assert result.verdict != "correct", (name, result)
    assert result.reason
    assert check("x + x", "2x", "symbolic").verdict == "correct"


def test_five_megabyte_prediction_is_cut_with_a_note() -> None:
    reply = "Let me think. " * 400_000 + "\nFinal Answer: 48.8 km/s"
    assert len(reply) > 5_000_000
    result = check(reply, "48.8 km/s", "numeric")
    assert result.verdict == "correct" and "input truncated" in result.annotations
    garbage = check("7 " * 2_600_000, "48.8 km/s", "numeric")
    assert garbage.verdict != "correct" and "input truncated" in garbage.annotations


def test_hundred_kilobyte_latex_is_cut_before_parsing_with_a_note() -> None:
    reply = "$$" + "x^{2} + " * 12_500 + "1$$\nSo the answer is $\\boxed{\\frac{\\Omega r}{V}}$."
    assert len(reply) > 100_000
    result = check(reply, "\\frac{\\Omega r}{V}", "symbolic")
    assert result.verdict == "correct" and "input truncated" in result.annotations
    bare = check("x^{2} + " * 12_500 + "1", "x", "symbolic")
    assert bare.verdict != "correct" and "input truncated" in bare.annotations


def test_html_around_a_right_answer_is_markup_not_the_answer() -> None:
    assert check("<b>48.8 km/s</b>", "48.8 km/s", "numeric").verdict == "correct"
    assert check("<p>the bow shock</p>", "the bow shock", "textual").verdict == "correct"
