"""MkDocs hook: fill ``<!-- registry-table: POINT -->`` markers with the extension point's generated table.

The docs tables of what-if methods, experts, belief rules and topologies and RWS patterns are derived from the
registries at build time (:func:`ifworld.registry.markdown_table`), so a new entry appears in the docs with
no edit and a table can never go stale. An unknown point fails the ``--strict`` build.
"""

from __future__ import annotations

import re

from ifworld.registry import markdown_table

MARKER = re.compile(r"<!--\s*registry-table:\s*([a-z.]+)\s*-->")


def fill_registry_tables(markdown: str) -> str:
    return MARKER.sub(lambda m: markdown_table(m.group(1)), markdown)


def on_page_markdown(markdown: str, **_: object) -> str:
    return fill_registry_tables(markdown)
