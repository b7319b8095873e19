"""A model's headings never outsize the page's own: :func:`ifworld.safe_text.demote_headings` case table."""

from __future__ import annotations

import re

import pytest

from ifworld.safe_text import demote_headings, inert_markdown

CASES = [  # (name, markdown, floor, expected)
    ("atx levels keep their order", "# A\n## B\n### C", 4, "#### A\n##### B\n###### C"),
    ("deep levels stop at six", "# A\n#### D\n###### F", 4, "#### A\n###### D\n###### F"),
    ("closing hashes kept", "## Title ##", 4, "#### Title ##"),
    ("indented up to three spaces", "   # Title", 4, "   #### Title"),
    ("empty heading", "#\ntext", 4, "####\ntext"),
    ("already small enough", "#### A\n##### B", 4, "#### A\n##### B"),
    ("only relative to the largest", "### A\n#### B", 4, "#### A\n##### B"),
    ("setext =", "Big title\n=========\n\ntext", 4, "#### Big title\n\ntext"),
    ("setext -", "Section\n---\ntext", 4, "#### Section\ntext"),
    ("setext = over -", "Top\n===\nSub\n---", 4, "#### Top\n##### Sub"),
    ("setext on two lines", "A long\ntitle\n===", 4, "#### A long title"),
    ("thematic break is no heading", "text\n\n---\n\nmore", 4, "text\n\n---\n\nmore"),
    ("fenced code untouched", "```\n# not a heading\nx\n===\n```\n# Real", 4,
     "```\n# not a heading\nx\n===\n```\n#### Real"),
    ("tilde fence untouched", "~~~md\n# code\n~~~", 4, "~~~md\n# code\n~~~"),
    ("indented code untouched", "    # code\n\n# Real", 4, "    # code\n\n#### Real"),
    ("hashtag and escaped hash", "#hashtag\n\\# not a heading", 4, "#hashtag\n\\# not a heading"),
    ("seven hashes is text", "####### seven", 4, "####### seven"),
    ("heading in a bullet", "- # Shout\n- calm", 4, "- #### Shout\n- calm"),
    ("nested list", "1. item\n   - ## Deep\n     text", 4, "1. item\n   - #### Deep\n     text"),
    ("setext in a list item", "- Title\n  ---", 4, "- #### Title"),
    ("heading in a quote", "> # Quoted\n> text", 4, "> #### Quoted\n> text"),
    ("html headings are text, not headings", "<h1>Big</h1>\n\n<h2>x</h2>", 4, "<h1>Big</h1>\n\n<h2>x</h2>"),
    ("floor 5", "# A", 5, "##### A"),
    ("windows line breaks", "# A\r\ntext", 4, "#### A\ntext"),
    ("no headings: unchanged", "plain - text = fine", 4, "plain - text = fine"),
    ("empty", "", 4, ""),
]


@pytest.mark.parametrize(("name", "markdown", "floor", "expected"), CASES, ids=[c[0] for c in CASES])
def test_demote_headings(name: str, markdown: str, floor: int, expected: str) -> None:
    assert demote_headings(markdown, floor) == expected


def test_demoting_twice_changes_nothing_more() -> None:
    once = demote_headings("# A\n## B\nC\n===")
    assert demote_headings(once) == once


def test_html_headings_stay_inert_text() -> None:
    shown = inert_markdown(demote_headings("<h1 onclick=alert(1)>Huge</h1>\n# Real"))
    assert not re.search(r"(?<!\\)<h1", shown) and "\\<h1" in shown and "#### Real" in shown
