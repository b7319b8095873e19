"""Model text made safe to render and to export: no raw HTML, no images, no live links, no bidi tricks.

Model output is untrusted: a Markdown image (``![x](http://host/beacon.png)``) makes the browser call out
(with a Referer) the moment it is rendered, and raw HTML (``<script>``) kept in a Markdown export runs when
the export is opened in a viewer. :func:`inert_markdown` parses the text with markdown-it and writes it back
from the token tree: the rest of Markdown (headings, lists, quotes, emphasis, tables, code, math) keeps its
meaning, images and links become plain text, bare URLs code, HTML escaped text; :func:`live_elements` is the
check that nothing live is left.
:func:`demote_headings` keeps a model's own ``# Title`` below the headings of the page or export around it.
Pure functions, no streamlit.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from markdown_it import MarkdownIt
from markdown_it.tree import SyntaxTreeNode

# Bidirectional overrides/isolates/marks: can make a title read differently from what it is (U+202E …).
BIDI_RE = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")

# Model text is parsed by a CommonMark parser (with GFM tables and strikethrough, as Streamlit renders) and
# written back as Markdown from its token tree: structure (headings, lists, quotes, emphasis, tables, code) is
# re-emitted by us, every piece of text is escaped so it cannot open syntax when parsed again, and links,
# images, autolinks, raw HTML and bare URLs become text. Reference definitions are not recognised at all (the
# parser's "reference" rule is off), so ``[q]: http://…`` stays a visible line of text. The result is parsed
# once more and, should anything live remain (a bug, not an input), the whole text is shown as code instead.
_URL_RE = re.compile(r"(?i)(?:\b(?:https?|ftp)://|\bwww\.|\b(?:mailto|xmpp):)[^\s<>`]*[^\s<>`.,;:!?)'\"]"
                     r"|(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+")  # (an address starts where a run does: linear)
# What could open syntax when the text is parsed again: code, emphasis, HTML/autolink, table and strikethrough
# characters; an underscore at a word edge (inside a word it cannot); a bracket that could start an image,
# a footnote or a definition, or close a link text before "(", "[" or ":"; an entity. Anything this misses
# is caught by the final check (and the text shown as code).
_TEXT_ESCAPE_RE = re.compile(r"[\\`*<>|~]|(?<!\w)_|_(?!\w)|(?<=!)\[|^\[|\[(?=\^)|\](?=[(\[:])|&(?=#?\w+;)")
_LINE_START_RE = re.compile(r"^(?:([#=+-])|(\d{1,9})([.)]))", re.M)
_LIVE = {"link", "image", "html_inline", "html_block"}
_MATH_RE = re.compile(r"\$\$[^$]+\$\$|\$(?=\S)[^$\n]+?(?<=\S)\$")
_DOLLAR = "\ue000"  # an escaped ``\$`` (a literal dollar, never math) while the text is parsed


@cache
def _parser(checking: bool = False) -> MarkdownIt:
    """The parser that reads model text (raw HTML as text, no reference definitions) or, ``checking``, the
    one that looks for anything live in our output (raw HTML and reference definitions recognised)."""
    md = MarkdownIt("commonmark", {"html": checking}).enable(["table", "strikethrough"])
    if not checking:
        md.disable("reference")
    md.validateLink = lambda url: True  # type: ignore[method-assign]  # a javascript: link is a link too
    return md


def _code(text: str) -> str:
    """``text`` as one inline code span (a fence longer than any backtick run inside; never interpreted)."""
    text = " ".join(text.split("\n"))
    if not text.strip():
        return ""
    ticks = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text[0] in "` " or text[-1] in "` " else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _escape_plain(text: str) -> str:
    out, at = [], 0
    for match in _URL_RE.finditer(text):
        out += [_TEXT_ESCAPE_RE.sub(r"\\\g<0>", text[at:match.start()]), _code(match.group(0))]
        at = match.end()
    out.append(_TEXT_ESCAPE_RE.sub(r"\\\g<0>", text[at:]))
    return "".join(out)


def _escape_text(text: str) -> str:
    """Plain text that reads back as the same plain text: syntax characters escaped, URLs as code. Math
    (``$…$``, ``$$…$$``: Streamlit typesets it with KaTeX, which reads its content raw) is kept as written,
    so LaTeX still renders; should math hold Markdown that would be live elsewhere, the final check in
    :func:`inert_markdown` catches it."""
    out, at = [], 0
    for match in _MATH_RE.finditer(text):
        out += [_escape_plain(text[at:match.start()]), match.group(0)]
        at = match.end()
    out.append(_escape_plain(text[at:]))
    return "".join(out)


def _inline(node: SyntaxTreeNode, cell: bool = False) -> str:
    parts: list[str] = []
    for child in node.children:
        kind = child.type
        if kind == "text":
            parts.append(_escape_text(child.content))
        elif kind == "softbreak":
            parts.append("\n")
        elif kind == "hardbreak":
            parts.append("\\\n")
        elif kind == "code_inline":
            parts.append(_code(child.content.replace("|", "\\|") if cell else child.content))
        elif kind in ("em", "strong", "s"):
            parts.append(f"{child.markup}{_inline(child, cell)}{child.markup}")
        elif kind == "image":
            alt, src = _inline(child, cell).strip(), _code(str(child.attrs.get("src", "")))
            parts.append(f"\\[image not loaded: {alt or 'no description'}{' ' + src if src else ''}\\]")
        elif kind == "link":
            text, href = _inline(child, cell).strip(), str(child.attrs.get("href", ""))
            shown = _code(href)
            parts.append(shown if child.markup == "autolink" or not text else f"{text} ({shown})" if shown else text)
        else:  # html_inline, or anything a later parser version adds: its source, as text
            parts.append(_escape_text(child.content))
    return "".join(parts)


def _line_starts(text: str) -> str:
    """No line of ``text`` starts a block by accident (heading, list item, setext underline, thematic break)."""
    return _LINE_START_RE.sub(lambda m: f"\\{m[1]}" if m[1] else f"{m[2]}\\{m[3]}", text)


def _paragraph(node: SyntaxTreeNode) -> str:
    return _line_starts(_inline(node.children[0]) if node.children else "")


def _indent(text: str, first: str, rest: str, empty: str = "") -> str:
    lines = text.split("\n")
    return "\n".join([first + lines[0]] + [rest + line if line else empty for line in lines[1:]]).rstrip()


def _fence(content: str, info: str = "") -> str:
    longest = max((len(run) for run in re.findall(r"^[ ]{0,3}(`{3,}|~{3,})", content, re.M)), default=2)
    fence = "`" * max(3, longest + 1)
    info = info.replace("`", "").strip()
    return f"{fence}{info}\n{content}{'' if content.endswith(chr(10)) or not content else chr(10)}{fence}"


def _list(node: SyntaxTreeNode) -> str:
    tight = all(p.hidden for item in node.children for p in item.children if p.type == "paragraph")
    number = int(node.attrs.get("start", 1) or 1)
    items = []
    for item in node.children:
        marker = f"{number}{node.markup or '.'} " if node.type == "ordered_list" else f"{node.markup or '-'} "
        number += 1
        body = _blocks(item.children, "\n" if tight else "\n\n")
        items.append(_indent(body, marker, " " * len(marker)) if body else marker.rstrip())
    return ("\n" if tight else "\n\n").join(items)


def _table(node: SyntaxTreeNode) -> str:
    rows = [tr for part in node.children for tr in part.children]
    if not rows:
        return ""
    align = {"text-align:left": ":--", "text-align:right": "--:", "text-align:center": ":-:"}
    lines = ["| " + " | ".join(_inline(c.children[0], cell=True) if c.children else "" for c in tr.children) + " |"
             for tr in rows]
    delim = "| " + " | ".join(align.get(str(c.attrs.get("style", "")), "---") for c in rows[0].children) + " |"
    return "\n".join([lines[0], delim, *lines[1:]])


def _block(node: SyntaxTreeNode) -> str:
    kind = node.type
    if kind == "paragraph":
        return _paragraph(node)
    if kind == "heading":
        text = " ".join(_inline(node.children[0]).split("\n")) if node.children else ""
        return (node.tag[1:].isdigit() and "#" * int(node.tag[1:]) or "#") + (" " + text if text else "")
    if kind == "blockquote":
        return _indent(_blocks(node.children, "\n\n"), "> ", "> ", ">")
    if kind in ("bullet_list", "ordered_list"):
        return _list(node)
    if kind in ("fence", "code_block"):
        return _fence(node.content, node.info if kind == "fence" else "")
    if kind == "hr":
        return "***"
    if kind == "table":
        return _table(node)
    return _line_starts(_escape_text(node.content))  # html_block or unknown: its text


def _blocks(nodes: list[SyntaxTreeNode], sep: str) -> str:
    return sep.join(text for text in (_block(n) for n in nodes) if text)


def live_elements(markdown: str) -> list[str]:
    """What would be live if ``markdown`` were rendered: links, images, raw HTML and bare URLs (which GFM
    renderers such as Streamlit's turn into links), as ``kind: text`` lines; empty for inert Markdown."""
    found = []
    for token in _parser(checking=True).parse(markdown):
        if token.type in _LIVE:
            found.append(f"{token.type}: {token.content}")
        for child in token.children or []:
            if child.type in _LIVE or child.type.startswith(("link", "image")):
                found.append(f"{child.type}: {child.attrs.get('href') or child.attrs.get('src') or child.content}")
            elif child.type == "text" and _URL_RE.search(child.content):
                found.append(f"url: {child.content}")
    return found


# markdown-it is pure Python: a page-sized text parses in milliseconds, but 80 KB of dense emphasis took ~4 s per
# pass here. Longer text is shown as one code block (inert, and cheap); exports, built once on a click, allow more.
MAX_PARSED_CHARS = 50_000
MAX_EXPORT_PARSED_CHARS = 1_000_000


def inert_markdown(text: str, limit: int = MAX_PARSED_CHARS) -> str:
    """Markdown that renders without fetching anything, running anything or linking anywhere.

    The text is parsed (CommonMark + GFM tables and strikethrough) and written back from its tokens:
    headings, lists, quotes, emphasis, tables and code keep their meaning; raw HTML is shown as text,
    images become ``[image not loaded: alt `url`]``, links ``text (`url`)`` and bare URLs code, so the
    browser neither loads nor follows them. The output is checked by parsing it again (:func:`live_elements`);
    if anything would still be live the whole text is returned as one code block, as is text longer than
    ``limit`` characters.
    """
    if not text:
        return ""
    text = str(text).replace("\r\n", "\n").replace("\r", "\n")
    if len(text) > limit:
        return _fence(text) + "\n"
    parsed = _parser().parse(text.replace(_DOLLAR, "").replace("\\$", _DOLLAR))
    out = _blocks(SyntaxTreeNode(parsed).children, "\n\n").replace(_DOLLAR, "\\$")
    out += "\n" if text.endswith("\n") and out else ""
    return out if not live_elements(out) else _fence(text) + "\n"


_ASCII_PUNCT_RE = re.compile(r"[!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{}~]")


def typed_text(text: str) -> str:
    """A participant's words as one line of Markdown that shows exactly what was typed — in any CommonMark
    viewer and after :func:`inert_markdown`'s pass over a whole export: every ASCII punctuation character is
    backslash-escaped (CommonMark's own rule: ``\\*`` is a literal star, ``\\&lt;`` stays ``&lt;``), so bold,
    links, HTML, entities, ``$…$`` math and ``:directives[…]`` are text. Line breaks fold to spaces; a ``|`` is
    left for the table writer (``_cell``), the one place this goes into. Never use it for the app's own page:
    Streamlit turns a text ``:smile:`` into an emoji whatever the escapes, so a page shows participant text
    only in plain-text elements (``st.text``, table cells)."""
    return _ASCII_PUNCT_RE.sub(lambda m: "\\" + m.group(0), " ".join(str(text or "").split()))


def escape_export(text: str) -> str:
    """A Markdown export body safe to open in any Markdown viewer (same rules as :func:`inert_markdown`)."""
    return inert_markdown(text, MAX_EXPORT_PARSED_CHARS)


def strip_bidi(text: str) -> str:
    """Remove bidirectional override, isolate and mark characters."""
    return BIDI_RE.sub("", text)


def clean_title(text: str, limit: int = 300) -> str:
    """A one-line title: bidi controls and other control characters removed, whitespace folded, capped."""
    text = unicodedata.normalize("NFC", strip_bidi(str(text or "")))
    text = " ".join(_CONTROL_RE.sub(" ", text).split())
    return text[:limit]


MAX_HEADING_LEVEL = 6


@cache
def _block_parser() -> MarkdownIt:
    # block structure only matters here (headings, code, containers); raw HTML is never a heading
    return MarkdownIt("commonmark", {"html": False})


def _atx(line: str, level: int, new: int) -> str:
    at = line.index("#")  # container prefixes (spaces, ">", list markers) hold no "#": the first one opens
    return line[:at] + "#" * new + line[at + level:]


def _setext(line: str, content: str, new: int) -> str:
    """A setext heading (its text lines and underline) as one ATX line, keeping the first line's prefix."""
    first = content.split("\n", 1)[0].strip()
    at = line.find(first) if first else -1
    prefix = line[:at] if at >= 0 else line[:len(line) - len(line.lstrip(" \t>"))]
    return prefix + "#" * new + " " + " ".join(part.strip() for part in content.split("\n"))


def demote_headings(markdown: str, floor: int = 4) -> str:
    """``markdown`` with its headings moved down so the largest is level ``floor`` (relative levels kept,
    none below 6), for model text shown under a page's or an export's own headings.

    ATX (``# Title``) and setext (``Title`` underlined with ``===`` / ``---``, rewritten as ATX) headings are
    found by a CommonMark parser, so fenced and indented code, ``#hashtags``, ``\\#`` and raw HTML
    (``<h1>``, shown as text by :func:`inert_markdown`) are left alone, and headings inside lists and quotes
    keep their container prefix. Text whose headings already sit at ``floor`` or below is returned unchanged.
    """
    if not markdown or not any(mark in markdown for mark in "#=-"):
        return markdown or ""
    text = markdown.replace("\r\n", "\n").replace("\r", "\n")  # the parser's own line breaks
    floor = min(MAX_HEADING_LEVEL, max(1, int(floor)))
    tokens = _block_parser().parse(text)
    found = [(tok, tokens[i + 1]) for i, tok in enumerate(tokens) if tok.type == "heading_open" and tok.map]
    shift = floor - min((int(tok.tag[1]) for tok, _ in found), default=floor)
    if shift <= 0:
        return markdown
    lines = text.split("\n")
    for tok, inline in reversed(found):  # bottom up: a setext rewrite joins lines
        start, end = tok.map or (0, 0)
        level = int(tok.tag[1])
        new = min(MAX_HEADING_LEVEL, level + shift)
        if tok.markup.startswith("#"):
            lines[start] = _atx(lines[start], level, new)
        else:
            lines[start:end] = [_setext(lines[start], inline.content, new)]
    return "\n".join(lines)
