"""Shareable exports: Markdown opens with proposition and verdict; HTML is self-contained and inert."""

from __future__ import annotations

import re

from ifworld.whatif.export import markdown_html, record_html, record_markdown


def test_markdown_opens_with_proposition_and_verdict(run_whatif):
    rec = run_whatif(rounds=1)
    md = record_markdown(rec, {"Run": rec["run_id"]})
    first = md.splitlines()[:3]
    assert first[0] == f"# {rec['proposition']}" and first[2].startswith("**Verdict.** ")
    assert md.index("## Consistency checks") < md.index("## Run metadata") and md.rstrip().endswith(rec["run_id"])
    assert "| Probability |" in md and "probability_pct" not in md  # word column headers


def test_html_is_self_contained_with_inline_charts(run_whatif):
    rec = run_whatif(rounds=1)
    page = record_html(rec)
    assert page.startswith("<!doctype html>") and f"<h1>{rec['proposition']}</h1>" in page
    assert page.count('<div id="') >= 3 and page.count("plotly.js v") == 1  # plotly.js inline once
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=\"?https?:", page)  # nothing loads from the net
    assert page.index("Verdict.") < page.index("<h2>Charts</h2>") < page.index("<h2>Run metadata</h2>")


def test_model_text_is_inert_in_html():
    out = markdown_html("Hi <script>alert(1)</script> ![beacon](http://evil.example/x.png) [x](http://e.example)")
    assert "<script>" not in out and "&lt;script&gt;" in out and "<img" not in out and "<a " not in out


def test_run_store_exports_use_the_what_if_formats(run_whatif, store):
    from ifworld.runs import export_run

    rec = run_whatif(rounds=1)
    md = export_run(rec["run_id"], "md", store=store)
    assert md.startswith(f"# {rec['proposition']}\n\n**Verdict.**") and md.count("## Run\n") == 1
    assert md.index("## Consistency checks") < md.index("## Run\n") < md.index(rec["run_id"])
    page = export_run(rec["run_id"], "html", store=store)
    assert "Content-Security-Policy" in page and "default-src 'none'" in page and page.count("plotly.js v") == 1
    assert "<th>Model calls</th>" in page[page.index("<h2>Run metadata</h2>"):]


def test_a_baselines_own_headings_sit_below_the_exports_headings():
    """The export's title is level 1 and its sections level 2; a model's ``# Title`` / setext heading in its
    natural answer is demoted to level 3 and below (in Markdown and HTML), code blocks untouched."""
    from ifworld.whatif.report import natural_report

    answer = "# My Answer\n\nIntro.\n\nDetails\n-------\n\n```\n# a comment, not a heading\n```\n"
    rec = {"proposition": "What if tides stopped?", "method": "single",
           "report": natural_report(answer, "What if tides stopped?", [])}
    md = record_markdown(rec)
    assert [line for line in md.splitlines() if line.startswith("# ")] == [
        "# What if tides stopped?", "# a comment, not a heading"]  # the title, and the code block's own line
    assert "### My Answer" in md and "#### Details" in md and "-------" not in md
    assert "# a comment, not a heading" in md  # inside the code block, as written
    page = record_html(rec)
    assert "<h1>What if tides stopped?</h1>" in page and page.count("<h1>") == 1 and "<h3>My Answer</h3>" in page


def test_every_html_chart_has_its_words_and_its_data(run_whatif):
    """Charts with words in the export too (issue #35): a caption per chart, its data folded under it, the causal
    map's edges as sentences."""
    page = record_html(run_whatif(rounds=1))
    charts = page.count("<figure>")
    assert charts >= 3 and page.count("<figcaption>") == charts
    assert page.count("<summary>Data behind this chart</summary>") == charts
    assert "Edges, in words" in page and " → " in page
