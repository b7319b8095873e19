"""Model text made safe to render and to export: no raw HTML, no images, no live links, no bidi tricks.

Model output is untrusted: a Markdown image (``![x](http://host/beacon.png)``) makes the browser call out
(with a Referer) the moment it is rendered, and raw HTML (``<script>``) kept in a Markdown export runs when
the export is opened in a viewer. :func:`inert_markdown` keeps the rest of Markdown (headings, lists,
emphasis, tables, code) and turns images and links into plain text, bare URLs into code, and escapes
HTML. Top-level fenced code blocks are left alone: nothing inside them is interpreted by a renderer.
:func:`demote_headings` keeps a model's own ``# Title`` below the headings of the page or export around it.
Pure functions, no streamlit.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from markdown_it import MarkdownIt

# Bidirectional overrides/isolates/marks: can make a title read differently from what it is (U+202E …).
BIDI_RE = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")

# One left-to-right scan. Only fenced blocks are left alone, and only ones no renderer can read otherwise:
# the opener at column 0 (a top-level fence: block structure is parsed before inline syntax, so nothing
# can turn it into something else), a closer accepted generously (closing early only escapes more), and an
# unclosed fence is not treated as code at all. Inline code spans are *not* exempt: where a span ends depends
# on link brackets and escapes around it, so guessing wrong could let an image through — inside them a
# stray backslash is the price.
_TOKEN_RE = re.compile(
    r"(?P<fence>^(?P<ticks>`{3,}(?=[^`\n]*$)|~{3,})[^\n]*\n(?:.*?\n)??[ ]{0,3}(?P=ticks)[`~]*[ \t]*(?:\n|\Z))"
    r"|(?P<escape>\\[!-/:-@\[-`{-~])"  # a backslash escape: consumed whole, never opens syntax
    r"|(?P<image>!\[(?P<alt>[^\]\n]*)\]\((?P<src>[^)\n]*)\))"
    r"|(?P<link>\[(?P<text>[^\]\n]*)\]\((?P<href>[^)\n]*)\))"
    r"|(?P<refdef>^[ ]{0,3}\[(?=[^\]\n]+\]:))"
    r"|(?P<bang>!\[)"
    r"|(?P<url>(?:https?://|www\.|ftp://|mailto:)[^\s<>`]*[^\s<>`.,;:!?)'\"])"
    r"|(?P<html><)",
    re.M | re.S,
)


def _code(text: str) -> str:
    text = text.replace("`", "").strip()
    return f"`{text}`" if text else ""


def _dest(raw: str) -> str:
    """The URL part of a link destination (drops angle brackets and a title)."""
    raw = raw.strip()
    if raw.startswith("<") and ">" in raw:
        return raw[1:raw.index(">")]
    return raw.split()[0] if raw.split() else ""


def _replace(match: re.Match[str]) -> str:
    kind = match.lastgroup
    if match.group("escape") or match.group("fence"):
        return match.group(0)
    if match.group("image") is not None:
        alt = inert_markdown(match.group("alt")).strip()
        src = _code(_dest(match.group("src")))
        return f"\\[image not loaded: {alt or 'no description'}{' ' + src if src else ''}\\]"
    if match.group("link") is not None:
        text = inert_markdown(match.group("text")).strip()
        href = _code(_dest(match.group("href")))
        return f"{text} ({href})" if href else text
    if match.group("refdef") is not None:
        return match.group(0)[:-1] + "\\["
    if kind == "bang":
        return "!\\["
    if kind == "url":
        return _code(match.group(0))
    return "\\<"  # html


def inert_markdown(text: str) -> str:
    """Markdown that renders without fetching anything or running anything.

    Raw HTML is escaped (shown as text), images become ``[image not loaded: alt `url`]``, links become
    ``text (`url`)`` and bare URLs are shown as code, so the browser neither loads nor autolinks them.
    """
    if not text:
        return ""
    return _TOKEN_RE.sub(_replace, str(text))


def escape_export(text: str) -> str:
    """A Markdown export body safe to open in any Markdown viewer (same rules as :func:`inert_markdown`)."""
    return inert_markdown(text)


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
