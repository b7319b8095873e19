"""Markdown (the scenario, the shared frame, the report) as plain blocks for the phone page to draw with
``textContent``: headings, paragraphs, list items, code and table rows, each a list of text runs marked bold or
not. Nothing in a block is markup — a link is its words, an image its alt text, raw HTML its characters — so
the page never parses what a model wrote. markdown-it (the parser the app already uses for model text,
:mod:`ifworld.safe_text`) reads it; this module only flattens its tree.
"""

from __future__ import annotations

from functools import cache
from typing import Literal

from markdown_it import MarkdownIt
from markdown_it.tree import SyntaxTreeNode
from pydantic import BaseModel

MAX_DOC_CHARS = 200_000  # a report is 10–40 KB; a hostile model's megabytes are cut before parsing
Kind = Literal["h", "p", "li", "pre", "row"]


class Block(BaseModel):
    kind: Kind
    runs: list[tuple[str, bool]]  # (text, bold)


@cache
def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])


def _runs(node: SyntaxTreeNode, bold: bool = False) -> list[tuple[str, bool]]:
    out: list[tuple[str, bool]] = []
    for child in node.children:
        if child.type in ("text", "code_inline", "html_inline"):
            out.append((child.content, bold))
        elif child.type in ("softbreak", "hardbreak"):
            out.append((" " if child.type == "softbreak" else "\n", bold))
        elif child.type == "image":
            out.append((child.content or str(child.attrs.get("alt") or ""), bold))
        else:  # strong, em, s, link: their words
            out.extend(_runs(child, bold or child.type == "strong"))
    merged: list[tuple[str, bool]] = []
    for text, b in out:
        if merged and merged[-1][1] == b:
            merged[-1] = (merged[-1][0] + text, b)
        elif text:
            merged.append((text, b))
    return merged


def _walk(node: SyntaxTreeNode, out: list[Block]) -> None:
    for child in node.children:
        if child.type == "heading":
            out.append(Block(kind="h", runs=_runs(child.children[0]) if child.children else []))
        elif child.type == "paragraph":
            out.append(Block(kind="p", runs=_runs(child.children[0]) if child.children else []))
        elif child.type in ("bullet_list", "ordered_list"):
            for item in child.children:
                inner: list[Block] = []
                _walk(item, inner)
                first, rest = (inner[0], inner[1:]) if inner else (Block(kind="p", runs=[]), [])
                out.append(Block(kind="li", runs=first.runs))
                out.extend(rest)
        elif child.type in ("fence", "code_block", "html_block"):
            out.append(Block(kind="pre", runs=[(child.content.rstrip("\n"), False)]))
        elif child.type == "table":
            for row in (r for section in child.children for r in section.children):
                cells = [" ".join(t for t, _ in _runs(c.children[0])) if c.children else "" for c in row.children]
                out.append(Block(kind="row", runs=[(" · ".join(cells), row.children[0].type == "th")]))
        elif child.type == "blockquote":
            _walk(child, out)
        elif child.children:
            _walk(child, out)


def doc_blocks(markdown: str) -> list[Block]:
    """``markdown`` as blocks of plain text runs (empty text: no blocks)."""
    if not markdown.strip():
        return []
    out: list[Block] = []
    _walk(SyntaxTreeNode(_parser().parse(markdown[:MAX_DOC_CHARS])), out)
    return [b for b in out if any(t.strip() for t, _ in b.runs)]
