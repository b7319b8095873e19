"""The one CSV writer: every CSV the product writes (downloads, ``whatif eval``, belief sweeps, the paper's
tables) goes through :func:`write_csv`, which neutralises spreadsheet formulas in text cells.

A spreadsheet opening a CSV evaluates a cell that starts with a formula character: ``=HYPERLINK(…)`` or
``=WEBSERVICE(…)`` from a model answer, an item id or a proposition would run on the reader's machine. The
OWASP "CSV Injection" page (owasp.org/www-community/attacks/CSV_Injection) recommends that no cell begin
with "Equals to (=), Plus (+), Minus (-), At (@), Tab (0x09), Carriage return (0x0D)", and, to make a
field read as text, to "prepend each cell field with a single quote" (with fields quoted and double quotes
doubled): text fields are written quoted (``QUOTE_NONNUMERIC``; pandas would otherwise leave a field holding
a carriage return unquoted, which splits the row in most readers). OWASP ASVS 5.0 requirement 1.2.10 adds the
null character
(0x00). That is exactly what :func:`safe_cell` does: only the first character counts, as both texts say.

Numbers stay numbers: the rule applies per column dtype. Text columns (object / string dtype, and the
header and index labels) are neutralised; numeric, boolean and datetime columns are written as pandas
writes them, so ``-3.2`` in a float column stays the number -3.2. A numeric-looking string inside a text
column (``"-3.2"`` as text) is text, and gets the quote like any other text cell.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pandas as pd

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\0")


def safe_cell(value: Any) -> Any:
    """``value`` with a leading single quote if it is text starting with a formula character."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def _is_text(dtype: Any) -> bool:
    return (pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype)
            or isinstance(dtype, pd.CategoricalDtype))


def safe_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` whose text cells, column names and index labels cannot start a formula."""
    out = frame.copy()
    for i in range(out.shape[1]):
        col = out.iloc[:, i]
        if _is_text(col.dtype):
            out.isetitem(i, col.astype(object).map(safe_cell))
    out.columns = _safe_labels(out.columns)
    out.index = _safe_labels(out.index)
    return out


def _safe_labels(labels: pd.Index) -> pd.Index:
    if isinstance(labels, pd.MultiIndex):
        return labels.set_levels([_safe_labels(level) for level in labels.levels])
    return labels.map(safe_cell) if _is_text(labels.dtype) else labels


def write_csv(frame: pd.DataFrame, path: str | Path | None = None, *, index: bool = False) -> str | None:
    """``frame`` as CSV (to ``path``, or returned as text when ``path`` is None), formulas neutralised."""
    return safe_frame(frame).to_csv(path, index=index, quoting=csv.QUOTE_NONNUMERIC)
