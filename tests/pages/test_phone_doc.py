"""The phone page's documents (ui/phone_doc.py): Markdown flattened to text runs keeps every word a reader sees —
checked against Python-Markdown, an independent renderer — and nothing in it stays markup."""

from __future__ import annotations

import html
import re

import markdown
import pytest

from ui.phone_doc import MAX_DOC_CHARS, doc_blocks

DOCS = {
    "scenario": "**Restated.** Assume the tides stop \\| for a month.\n\n**Variants**\n\n- fast onset \\| within "
                "weeks\n- gradual onset \\| over a decade\n\n**Indicators**\n\n1. food price index \\| > 150\n"
                "2. policy response time\n",
    "report": "## Summary\n\nCoastal *fisheries* collapse first; see [the annex](http://example.org/annex).\n\n"
              "### Branches\n\n| Branch | Probability |\n|---|---|\n| B1 cascade | 60 % |\n| B2 adaptation | 40 % |\n\n"
              "> A quoted warning.\n\n```\nraw <b>code</b>\n```\n",
    "hostile": "<img src=x onerror=alert(1)>\n\n![pic](http://evil.example/x.png) [click](javascript:alert(1)) "
               "<script>alert(2)</script>\n\n<div onclick=x>block html</div>\n",
}


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text)


def _reference_words(md: str) -> list[str]:
    """The words Python-Markdown's HTML shows a reader (tags dropped, entities decoded; alt text kept)."""
    rendered = markdown.markdown(md, extensions=["tables", "fenced_code"])
    rendered = re.sub(r"<img[^>]*alt=\"([^\"]*)\"[^>]*>", r" \1 ", rendered)
    return _words(html.unescape(re.sub(r"<[^>]+>", " ", rendered)))


@pytest.mark.parametrize("name", ["scenario", "report"])
def test_every_word_a_reader_sees_is_kept_in_order(name: str) -> None:
    blocks = doc_blocks(DOCS[name])
    ours = _words(" ".join(text for b in blocks for text, _ in b.runs))
    assert ours == _reference_words(DOCS[name])


def test_kinds_and_bold_follow_the_markdown() -> None:
    scenario = doc_blocks(DOCS["scenario"])
    assert scenario[0].runs == [("Restated.", True), (" Assume the tides stop | for a month.", False)]
    assert [b.kind for b in scenario] == ["p", "p", "li", "li", "p", "li", "li"]
    report = doc_blocks(DOCS["report"])
    assert [b.kind for b in report][:3] == ["h", "p", "h"] and report[3].runs == [("Branch · Probability", True)]
    assert report[-1].kind == "pre" and report[-1].runs == [("raw <b>code</b>", False)]


def test_hostile_markdown_is_only_characters() -> None:
    blocks = doc_blocks(DOCS["hostile"])
    text = " ".join(t for b in blocks for t, _ in b.runs)
    assert "<img src=x onerror=alert(1)>" in text  # shown as the characters typed, drawn with textContent
    assert "http://evil.example" not in text and "pic" in text  # an image is its alt text, fetched from nowhere
    assert all(set(b.model_dump()) == {"kind", "runs"} for b in blocks)  # no field a page could treat as markup


def test_a_huge_document_is_cut_before_parsing() -> None:
    blocks = doc_blocks("word " * (MAX_DOC_CHARS // 2))
    assert sum(len(t) for b in blocks for t, _ in b.runs) <= MAX_DOC_CHARS
