"""The paper's two benchmark tables, built from several saved benchmark records (no model call).

* Table 1 — model × single-shot accuracy: one row per model, its accuracy with the ``single`` pattern on each
  dataset and overall.
* Table 2 — dataset × pattern: one row per dataset (a run's ``data`` label, e.g. the file name of an RWS,
  GSM8K-style or MATH-style set converted with ``ifworld rws convert``), one column per pattern, and a
  **macro mean** row (the unweighted mean over datasets, so a large set does not dominate).

Runs of the same dataset are pooled; each run may be re-graded first (``benchmark.regrade``) so the tables use
the current grader.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pandas as pd

from ifworld.rws.benchmark import _md_table, results_frame
from ifworld.rws.records import BenchmarkRecord, load_benchmark_record

MACRO_MEAN = "macro mean"
Record = dict[str, Any] | BenchmarkRecord  # as stored, or already validated


def _frame(records: Iterable[Record]) -> pd.DataFrame:
    frames = []
    for record in records:
        rec = load_benchmark_record(record)
        df = results_frame(rec)
        if not df.empty:
            frames.append(df.assign(dataset=rec.data or "data",
                                    correct=(df["verdict"] == "correct").astype(float)))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def paper_table1(records: Iterable[Record]) -> pd.DataFrame:
    """Single-shot accuracy: model (rows) × dataset (columns), plus the model's accuracy over all items."""
    df = _frame(records)
    if df.empty or "single" not in set(df["pattern"]):
        return pd.DataFrame()
    single = df[df["pattern"] == "single"]
    table = single.pivot_table(index="model", columns="dataset", values="correct", aggfunc="mean")
    table["all items"] = single.groupby("model")["correct"].mean()
    return table.round(4)


def paper_table2(records: Iterable[Record], model: str | None = None) -> pd.DataFrame:
    """Accuracy: dataset (rows) × pattern (columns), with a macro-mean row over datasets.

    With several models in the runs, pass `model` to pick one (else all models' answers are pooled).
    """
    df = _frame(records)
    if df.empty:
        return pd.DataFrame()
    if model is not None:
        df = df[df["model"] == model]
    table = df.pivot_table(index="dataset", columns="pattern", values="correct", aggfunc="mean")
    order = [p for p in ("single", "hmaw", "pace", "phase", "schema") if p in table.columns]
    table = table[order]
    table.loc[MACRO_MEAN] = table.mean(axis=0, skipna=True)
    return table.round(4)


def tables_markdown(records: Sequence[Record], model: str | None = None) -> str:
    """Both tables as Markdown."""
    return ("### Table 1 — single-shot accuracy by model\n\n" + _md_table(paper_table1(records)) +
            "\n\n### Table 2 — accuracy by dataset and pattern\n\n" + _md_table(paper_table2(records, model)) + "\n")
