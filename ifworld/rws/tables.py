"""The paper's two benchmark tables, built from several saved benchmark records (no model call).

As the paper prints them (RWS §4, Tables 1–2): accuracy in **percent** with two decimals.

* Table 1 — single-shot accuracy (%) by model: one row per model, its accuracy with the ``single`` pattern
  ("Accuracy"; one column per dataset when the runs hold several).
* Table 2 — accuracy (%) by agent design pattern: one row per dataset (a run's ``data`` label, e.g. the file
  name of an RWS, GSM8K-style or MATH-style set converted with ``ifworld rws convert``), one column per agent
  design pattern of the registry, in its order (the paper's HMAW, PACE, PHASE, SCHEMA, then any pattern
  registered later; single-shot is Table 1's: ``in_table2=False``), and a **Macro-mean** row (the unweighted mean over
  datasets, so a large set does not dominate).

Runs of the same dataset are pooled; each run may be re-graded first (``benchmark.regrade``) so the tables use
the current grader.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pandas as pd

from ifworld.rws.benchmark import _md_table, results_frame
from ifworld.rws.patterns import REGISTRY
from ifworld.rws.records import BenchmarkRecord, load_benchmark_record

MACRO_MEAN = "Macro-mean"
DECIMALS = 2
Record = dict[str, Any] | BenchmarkRecord  # as stored, or already validated


def table2_columns() -> dict[str, str]:
    """Table 2's columns in registry order, pattern name → label (the single-shot baseline is Table 1's)."""
    return {spec.name: spec.label for spec in REGISTRY if spec.in_table2}


def _frame(records: Iterable[Record]) -> pd.DataFrame:
    frames = []
    for record in records:
        rec = load_benchmark_record(record)
        df = results_frame(rec)
        if not df.empty:
            frames.append(df.assign(dataset=rec.data or "data",
                                    correct=(df["verdict"] == "correct").astype(float)))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _percent(table: pd.DataFrame) -> pd.DataFrame:
    return (table * 100).round(DECIMALS)


def paper_table1(records: Iterable[Record]) -> pd.DataFrame:
    """Single-shot accuracy (%) by model: "Accuracy", or one column per dataset when there are several."""
    df = _frame(records)
    # The paper's Table 1 is about exactly one entry, the single-shot baseline: its name stays explicit here.
    if df.empty or "single" not in set(df["pattern"]):
        return pd.DataFrame()
    single = df[df["pattern"] == "single"]
    table = single.pivot_table(index="model", columns="dataset", values="correct", aggfunc="mean")
    if len(table.columns) == 1:
        table.columns = ["Accuracy"]
    table.index.name, table.columns.name = "Model", None
    return _percent(table)


def paper_table2(records: Iterable[Record], model: str | None = None) -> pd.DataFrame:
    """Accuracy (%) by dataset (rows) and agent design pattern (Table 2's columns), with a Macro-mean row.

    With several models in the runs, pass `model` to pick one (else all models' answers are pooled).
    """
    df = _frame(records)
    if df.empty:
        return pd.DataFrame()
    if model is not None:
        df = df[df["model"] == model]
    columns = table2_columns()
    df = df[df["pattern"].isin(list(columns))]
    if df.empty:
        return pd.DataFrame()
    table = df.pivot_table(index="dataset", columns="pattern", values="correct", aggfunc="mean")
    table = table[[p for p in columns if p in table.columns]].rename(columns=columns)
    table.loc[MACRO_MEAN] = table.mean(axis=0, skipna=True)
    table.index.name, table.columns.name = "Dataset", None
    return _percent(table)


def _shown(table: pd.DataFrame) -> pd.DataFrame:
    """Percentages with :data:`DECIMALS` decimals, as the paper prints them (35.44); a missing cell stays empty."""
    return table.apply(lambda col: col.map(lambda v: "" if pd.isna(v) else f"{v:.{DECIMALS}f}"))


def tables_markdown(records: Sequence[Record], model: str | None = None) -> str:
    """Both tables as Markdown."""
    table1, table2 = _md_table(_shown(paper_table1(records))), _md_table(_shown(paper_table2(records, model)))
    return ("### Table 1 — single-shot accuracy (%) by model\n\n" + table1
            + "\n\n### Table 2 — accuracy (%) by agent design pattern\n\n" + table2 + "\n")
