"""Model text through :func:`ifworld.safe_text.inert_markdown` never renders a link, an image or raw HTML.

Property-style: hostile snippets are generated from templates (inline, reference, autolink, bare-URL,
footnote and raw-HTML links and images) × URL spellings (case, entity-encoded schemes, protocol-relative,
javascript:/data:/vbscript:) × containers (quote, list, table, heading, emphasis); every output is parsed again
by markdown-it (with raw HTML and reference definitions on) *and* rendered by an independent parser
(Python-Markdown, which passes raw HTML through), and neither may hold a link, an image or a tag."""

from __future__ import annotations

import itertools
import re

import markdown as python_markdown
import pytest
from markdown_it import MarkdownIt

from ifworld.safe_text import inert_markdown, live_elements

URLS = ["http://127.0.0.1:9/b", "HTTP://127.0.0.1:9/B", "HtTpS://127.0.0.1:9/b", "javascript:alert(1)",
        "JAVASCRIPT:alert(1)", "&#106;avascript:alert(1)", "&#x6A;avascript:alert(1)", "//127.0.0.1:9/b",
        "data:text/html;base64,PHNjcmlwdD4=", "vbscript:msgbox(1)", "mailto:a@127.0.0.1", "ftp://127.0.0.1/b"]
TEMPLATES = [
    "[t]({u})", "[t]({u} \"title\")", "[t](<{u}>)", "![alt]({u})", "![alt]({u} 'x')", "[a [b] c]({u})",
    "[a [b [c]] d]({u})", "[![img]({u})]({u})", "<{u}>", "see {u} now", "www.127.0.0.1.nip.io/x",
    "mail me at victim@127.0.0.1.nip.io", "[t][r]\n\n[r]: {u}", "[t][]\n\n[t]: {u}", "[r]\n\n[r]: <{u}> \"t\"",
    "> [q]: {u}\n\n[see][q]", "- [q]: {u}\n\n[see][q]", "text[^1]\n\n[^1]: {u}", "[^n]: {u}",
    "<a href=\"{u}\">x</a>", "<A HREF={u}>x</A>", "<img src=\"{u}\">", "<iframe src=\"{u}\"></iframe>",
    "<svg><image href=\"{u}\"/></svg>", "<div style=\"background:url({u})\">x</div>", "<script src={u}></script>",
    "<style>@import '{u}';</style>", "\\[x]({u})", "[x\\]]({u})", "[x](\n{u}\n)", "**[b]({u})**",
    "`c` [x]({u}) `d`", "[x]({u}){{onclick=1}}", "&lt;a href='{u}'&gt;x&lt;/a&gt;", "<!-- {u} -->",
    "<{u}", "[x] ({u})", "![alt][img]\n\n[img]: {u}",
]
CONTAINERS = ["{s}", "> {s}", "- {s}", "1. {s}", "# {s}", "| h |\n| - |\n| {s} |", "*{s}*", "> - > {s}"]
TAG_RE = re.compile(r"<(?!/?(?:p|em|strong|code|pre|h[1-6]|ul|ol|li|blockquote|table|thead|tbody|tr|th|td|hr|br|"
                    r"del|s)\b[^>]*>)[a-zA-Z!/?]")


def _snippets() -> list[str]:
    out = []
    for template, container in itertools.product(TEMPLATES, CONTAINERS):
        urls = URLS if container == "{s}" else URLS[::4]  # every URL bare; a sample inside containers
        for url in urls:
            snippet = template.format(u=url)
            if "\n" in snippet and container != "{s}":  # multi-line snippets: container on the first line
                first, rest = snippet.split("\n", 1)
                out.append(container.format(s=first) + "\n" + rest)
            else:
                out.append(container.format(s=snippet))
    return out


SNIPPETS = _snippets()


def _live_in_html(html: str) -> list[str]:
    """Links, images and tags other than plain formatting in rendered HTML."""
    return TAG_RE.findall(html) + re.findall(r"<(?:a|img)\b[^>]*>", html)


def test_generated_hostile_snippets_render_nothing_live() -> None:
    assert len(SNIPPETS) > 1000
    reparse = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    failures = []
    for snippet in SNIPPETS:
        out = inert_markdown(snippet)
        live = live_elements(out)
        live += _live_in_html(reparse.render(out))
        live += _live_in_html(python_markdown.markdown(out, extensions=["tables"]))
        if live:
            failures.append((snippet, out, live))
    assert failures == [], f"{len(failures)} of {len(SNIPPETS)} outputs hold something live: {failures[:3]}"


def test_whole_documents_and_repeated_passes() -> None:
    doc = "\n\n".join(SNIPPETS[:: len(SNIPPETS) // 60])
    once = inert_markdown(doc)
    assert live_elements(once) == [] and live_elements(inert_markdown(once)) == []


@pytest.mark.parametrize("text", [
    "[a [b] c](javascript:alert(1))",  # the issue's three cases
    "Go to HTTP://127.0.0.1:9/x now",
    "> [q]: HTTP://127.0.0.1:9/x\n\n[see][q]",
])
def test_the_issue_cases(text: str) -> None:
    out = inert_markdown(text)
    assert live_elements(out) == [] and "<a" not in MarkdownIt("commonmark").render(out), out


ORDINARY = [
    "# Report\n\nSome *emphasis*, **strong** and `code`.",
    "- one\n- two\n  - nested\n\n1. first\n2. second",
    "1) a\n2) b\n\n   para in b",
    "> quoted\n> > nested quote\n\ntext",
    "| a | b |\n|:--|--:|\n| 1 | 2 |\n| x | y |",
    "```python\nprint('<b>')  # [x](y)\n```\n\n    indented code\n\nafter",
    "Heading\n=======\n\nSub\n---\n\n***\n\nend",
    "line one  \nline two\\\nline three",
    "Snake_case and 2 * 3 * 4, 50% of $5 — fine.",
    "- [ ] task\n- [x] done",
    "~~gone~~ and a \\*literal\\* star",
    "LaTeX stays: $\\alpha_1 * \\beta_2$ and $$\\frac{a_1}{b_2}$$; a literal \\$5 stays literal",
]


def _shape(markdown: str) -> list[tuple[str, str]]:
    """(token type, text) for every block and inline token: what a reader sees, not how it was spelled."""
    md = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    out = []
    for tok in md.parse(markdown):
        if tok.type == "inline":
            out += [(c.type, c.content) for c in tok.children or []]
        elif tok.type not in ("fence", "code_block"):
            out.append((tok.type, ""))
        else:
            out.append(("code", tok.content))
    return out


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_markdown_keeps_its_meaning(text: str) -> None:
    out = inert_markdown(text)
    assert _shape(out) == _shape(text), out


def test_math_is_kept_as_written() -> None:
    """Streamlit typesets $…$ with KaTeX from the raw text: escaping inside it would break the formula."""
    text = "Energy $E = mc^2$, $\\alpha_1 * \\beta_2$ and $$\\frac{a_1}{b_2}$$; costs \\$5."
    assert inert_markdown(text) == text


def test_an_uploaded_rws_item_renders_inert() -> None:
    """The RWS browse page shows a pasted dataset's question, hint and steps: hostile items load nothing."""
    import json

    from ifworld.rws import benchmark
    from tests.security.helpers import open_page

    item = json.loads(benchmark.SAMPLE_PATH.read_text(encoding="utf-8").splitlines()[0])
    hostile = "![q](http://127.0.0.1:9/q.png) [a [b] c](javascript:alert(1)) <img src=http://127.0.0.1:9/i.png>"
    item.update({"question": f"Q {hostile} $x_1$", "hint": hostile})
    at = open_page("rws_browse")
    at.radio(key="rwsbrowse_source").set_value("My JSONL").run()
    at.text_area(key="rwsbrowse_paste").set_value(json.dumps(item)).run()
    assert not at.exception
    shown = [str(e.value) for kind in ("markdown", "caption") for e in getattr(at, kind)]
    question = [s for s in shown if "Question." in s]
    assert question and "$x_1$" in question[0] and "image not loaded" in question[0]
    assert [s for s in shown if live_elements(s)] == []
