"""Paper-style tables (DataFrames) from tidy sweep rows (:meth:`SimulationResult.rows` / sweeps).

Rows carry per-category recall (``recall_<category>``) and the labels of missed true facts
(``missed_facts``, joined by `` | ``), so Tables 2 and 3 need no side data.
"""

from __future__ import annotations

import pandas as pd

from ifworld.beliefs.domain import CATEGORIES
from ifworld.beliefs.engine import LABEL_SEPARATOR

PARAMETERS = ("agents", "facts", "true_facts", "false_facts", "bandwidth", "rounds", "strategy", "rule",
              "threshold", "stop_share", "domain", "liars", "noise", "topology", "degree", "rewire", "trust",
              "discount", "false_from")
DEFAULT_TOP = 10


def _mean_std(rows: pd.DataFrame, by: list[str], cols: list[str]) -> pd.DataFrame:
    agg = rows.groupby(by)[cols].agg(["mean", "std"])
    agg.columns = [f"{c}_{s}" for c, s in agg.columns]
    agg["runs"] = rows.groupby(by).size()
    return agg.reset_index()


def table1_by_condition(rows: pd.DataFrame) -> pd.DataFrame:
    """Table 1: F1, precision, recall and rounds used (mean and std) per condition."""
    return _mean_std(rows, ["condition"], ["f1", "precision", "recall", "rounds_used"])


def table2_by_fact_type(rows: pd.DataFrame) -> pd.DataFrame:
    """Table 2: recall per fact category (true negations = ``negative``) per condition, long form."""
    cols = [f"recall_{c}" for c in CATEGORIES if f"recall_{c}" in rows]
    long = rows.melt(id_vars=["condition"], value_vars=cols, var_name="category", value_name="value")
    long["category"] = long["category"].str.removeprefix("recall_")
    long = long.dropna(subset=["value"])
    out = long.groupby(["condition", "category"])["value"].agg(["mean", "std", "count"]).reset_index()
    return out.rename(columns={"mean": "recall", "std": "recall_std", "count": "runs"})


def table3_most_missed(rows: pd.DataFrame, top: int = DEFAULT_TOP) -> pd.DataFrame:
    """Table 3: true facts most often missed by the collective (miss rate over runs of its domain)."""
    runs_per_domain = rows.groupby(["domain", "domain_seed", "facts"]).size().rename("domain_runs")
    missed = rows[["domain", "domain_seed", "facts", "missed_facts"]].copy()
    missed["fact"] = missed["missed_facts"].fillna("").astype(str).str.split(LABEL_SEPARATOR, regex=False)
    missed = missed.explode("fact")
    missed = missed[missed["fact"].astype(bool)]
    counts = missed.groupby(["domain", "domain_seed", "facts", "fact"]).size().rename("misses").reset_index()
    counts = counts.join(runs_per_domain, on=["domain", "domain_seed", "facts"])
    counts["miss_rate"] = counts["misses"] / counts["domain_runs"]
    return counts.sort_values(["miss_rate", "fact"], ascending=[False, True]).head(top).reset_index(drop=True)


def table4_strategy_by_condition(rows: pd.DataFrame) -> pd.DataFrame:
    """Table 4: mean F1 by sharing strategy (rows) and condition (columns)."""
    return rows.pivot_table(index="strategy", columns="condition", values="f1", aggfunc="mean")


def table5_convergence(rows: pd.DataFrame) -> pd.DataFrame:
    """Table 5: share of runs that converged (STOP quorum) vs hit the cap, and rounds used."""
    out = _mean_std(rows, ["condition"], ["rounds_used"])
    out["converged_rate"] = rows.groupby("condition")["converged"].mean().to_numpy()
    out["cap_rate"] = 1 - out["converged_rate"]
    return out


def table6_top_configurations(rows: pd.DataFrame, top: int = DEFAULT_TOP) -> pd.DataFrame:
    """Table 6: parameter combinations with the highest mean F1."""
    params = [p for p in PARAMETERS if p in rows]
    out = _mean_std(rows, params, ["f1", "precision", "recall"])
    return out.sort_values("f1_mean", ascending=False).head(top).reset_index(drop=True)


def varying_parameters(rows: pd.DataFrame) -> list[str]:
    """Parameters that take more than one value in ``rows`` (the swept ones)."""
    return [p for p in PARAMETERS if p in rows and rows[p].nunique() > 1]


WORDS = {
    "condition": "Condition", "strategy": "Strategy", "category": "Fact type", "fact": "Fact", "f1": "F1",
    "precision": "Precision", "recall": "Recall", "rounds_used": "Rounds used", "runs": "Runs",
    "converged_rate": "Stopped by vote", "cap_rate": "Hit the round cap", "miss_rate": "Miss rate",
    "misses": "Misses", "domain_runs": "Runs of this domain", "agents": "Agents N", "facts": "Fact pairs K",
    "true_facts": "True facts each", "false_facts": "False facts each", "bandwidth": "Bandwidth C",
    "rounds": "Round cap", "rule": "Rule", "false_from": "False facts from", "threshold": "Threshold",
    "stop_share": "STOP share",
    "domain": "Domain", "domain_seed": "Domain seed", "liars": "Liars", "noise": "Noise", "topology": "Topology",
    "degree": "Degree", "rewire": "Rewiring", "trust": "Trust", "discount": "Discount",
}
LABELS = ("condition", "category", "fact")


def readable(table: pd.DataFrame, digits: int = 3) -> pd.DataFrame:
    """A table for people: word headers, ``x_mean``/``x_std`` pairs as one "mean ± std" column,
    metrics before parameters, parameters that take one value in the table moved to the end."""
    out = pd.DataFrame(index=table.index)
    cols = list(table.columns)
    labels = [c for c in cols if c in LABELS]
    for c in labels:
        out[WORDS[c]] = table[c]
    metrics = []
    for c in cols:
        if c.endswith("_mean"):
            base = c.removesuffix("_mean")
            std = table.get(f"{base}_std", pd.Series(0.0, index=table.index)).fillna(0.0)
            out[WORDS.get(base, base) + " (mean ± std)"] = [f"{m:.{digits}f} ± {s:.{digits}f}"
                                                           for m, s in zip(table[c], std, strict=True)]
            metrics.append(base)
    rest = [c for c in cols if c not in labels and not c.endswith(("_mean", "_std"))]
    params = [c for c in rest if c in PARAMETERS]
    others = [c for c in rest if c not in PARAMETERS]
    for c in others:  # metrics without a spread (rates, counts)
        values = table[c]
        out[WORDS.get(c, str(c))] = values.map(lambda v: f"{v:.{digits}f}") if values.dtype.kind == "f" else values
    varying = [c for c in params if table[c].nunique() > 1]
    for c in varying + [c for c in params if c not in varying]:
        out[WORDS.get(c, c)] = table[c]
    return out.reset_index(drop=True)
