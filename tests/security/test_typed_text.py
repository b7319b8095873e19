"""A participant's words are never Markdown, anywhere (#40 item 5): the finished report's room table on the page,
the Markdown, HTML and JSON exports and the workshop section show exactly what was typed.

Before: the page drew the room's contributions through ``st.markdown`` (``:red-background[…]`` coloured, ``**``
bold, ``:material/…:`` icons — on the projector and every phone), and the exports turned ``&lt;`` into ``<``."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from streamlit.testing.v1 import AppTest

from ifworld import runs
from ifworld.runs.store import get_store
from ifworld.safe_text import escape_export, typed_text
from ifworld.whatif.export import record_html, record_markdown
from ifworld.whatif.records import RoomEntry
from ifworld.whatif.sections import contributions_markdown, session_markdown
from tests.whatif.records import sample_record

APP = str(Path(__file__).resolve().parents[2] / "app.py")
CORPUS = [
    # Streamlit's own Markdown directives
    ":red-background[look at me] :blue[blue] :rainbow[all]", ":material/thumb_up: :smile: :+1:",
    ":small[tiny] :gray-badge[badge]", "**bold** _it_ ~~gone~~ `code`", "# heading", "> quote", "- item",
    "1. first", "[link](http://example.com) ![img](http://example.com/x.png) <http://x.y>",
    # HTML and entities
    "<b>html</b> <script>alert(1)</script> <img src=x onerror=alert(1)>", "&lt;b&gt; &amp; &#60; &copy;",
    # LaTeX
    "$x^2$ and $$\\int_0^1 f$$ and \\(a\\) \\[b\\]", "a\\*b \\\\ back\\slash", "pipes | in | text",
    "line one\nline two", "[^1] [x]: http://def.example",
]


def _text_of(markdown: str) -> str:
    """What a CommonMark viewer shows: rendered, tags dropped, entities decoded."""
    rendered = MarkdownIt("commonmark").enable("table").render(markdown)
    return html.unescape(re.sub(r"<[^>]+>", "", rendered))


@pytest.mark.parametrize("typed", CORPUS)
def test_typed_text_reads_back_as_typed_even_after_the_export_pass(typed: str) -> None:
    folded = " ".join(typed.split())
    assert _text_of(typed_text(folded)).strip() == folded
    assert _text_of(escape_export(typed_text(folded))).strip() == folded


def _entry(text: str) -> RoomEntry:
    return RoomEntry(round=2, after_round=1, author="Ada", kind="note", tag="phys :red[x]", votes=3, text=text)


@pytest.mark.parametrize("typed", CORPUS)
def test_the_exports_keep_exactly_what_was_typed(typed: str) -> None:
    folded = " ".join(typed.split())
    record = sample_record()
    record["participants"] = [_entry(typed).model_dump()]
    md = record_markdown(record)
    assert folded in _text_of(escape_export(md))  # the Markdown export, as a viewer shows it
    page = record_html(record)
    assert html.escape(folded, quote=False) in page or html.escape(folded) in page
    assert folded in _text_of(contributions_markdown([_entry(typed)]))


def _save(record: dict) -> str:
    store = get_store()
    run_id = store.create_run("whatif", "whatif.ifworld", record["params"], "Room text")
    store.finish_run(run_id, record, record["usage"])
    return run_id


def test_the_report_page_draws_the_room_as_plain_text() -> None:
    record = sample_record()
    record["participants"] = [_entry(t).model_dump() for t in CORPUS]
    run_id = _save(record)
    assert not any(t in session_markdown(record, room=False) for t in (":red-background", "<script>"))
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page("app_pages/runs.py")
    at.run()
    at.selectbox(key="runs_open").set_value(run_id).run()
    assert not at.exception
    markdown = " ".join(m.value for m in at.markdown) + " ".join(c.value for c in at.caption)
    for needle in (":red-background", ":rainbow", ":material/", "**bold**", "<script>", "$x^2$"):
        assert needle not in markdown, needle  # no participant text reaches a Markdown element
    lines = [t.value for t in at.text]  # the room as plain text (st.text), one line per contribution
    missing = [t for t in CORPUS if not any(line.endswith(f": {t}") for line in lines)]
    assert missing == [], missing  # every contribution shown exactly as typed (line break included)
    exported = json.loads(runs.export_run(run_id, "json", store=get_store()))
    assert [p["text"] for p in exported["record"]["participants"]] == CORPUS
