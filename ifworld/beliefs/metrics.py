"""Collective knowledge base and its scores against the ground truth.

Acceptance: for each pair the population mean (over agents) of normalised confidence is computed
for both members; the collective accepts the member whose mean exceeds the acceptance threshold and
is strictly larger than its negation's, so at most one fact per pair is accepted (a tie accepts
neither). Precision = |A ∩ T| / |A|, defined as 1.0 when nothing is accepted (no false claim was
made; F1 is then 0 because recall is 0). Recall = |A ∩ T| / K. A run *locks onto falsehood* when
its collective accepts at least one false fact.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ifworld.beliefs.domain import CATEGORIES, Domain
from ifworld.beliefs.rules import normalised

AGENT_BLOCK = 16_384  # agents normalised at once, to keep peak memory near the belief array
CELL_BLOCK = 1 << 16  # belief cells normalised at once (cache-sized float32 blocks, small peak memory)
SUMMARY_KEYS = (
    "runs", "f1", "f1_std", "precision", "precision_std", "recall", "recall_std",
    "rounds_mean", "converged_rate",
)
EMPTY_PRECISION = 1.0


def mean_confidence(beliefs: np.ndarray) -> np.ndarray:
    """Population-mean normalised confidence, (runs, agents, facts) -> (runs, facts) float64."""
    runs, agents, facts = beliefs.shape
    total = np.zeros((runs, facts), dtype=np.float64)
    agent_block = min(AGENT_BLOCK, max(1, CELL_BLOCK // facts))
    run_block = max(1, CELL_BLOCK // (agents * facts))  # whole runs per block while they fit in cache
    for r in range(0, runs, run_block):
        for start in range(0, agents, agent_block):
            part = normalised(beliefs[r:r + run_block, start:start + agent_block])
            total[r:r + run_block] += part.sum(axis=1, dtype=np.float64)
    return total / agents


def accept(beliefs: np.ndarray, threshold: float) -> np.ndarray:
    """Collectively accepted facts, (runs, agents, facts) -> (runs, facts) bool."""
    return accept_from_mean(mean_confidence(beliefs), threshold)


def accept_from_mean(mean: np.ndarray, threshold: float) -> np.ndarray:
    """Acceptance from population-mean confidences: at most one fact per pair."""
    pair = mean.reshape(*mean.shape[:-1], -1, 2)
    other = pair[..., ::-1]
    ok = (pair > threshold) & (pair > other)
    return ok.reshape(mean.shape)


def scores(accepted: np.ndarray, truth: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Precision, recall and F1 per run from accepted (runs, facts) and truth (facts,)."""
    n_acc = accepted.sum(axis=-1)
    tp = (accepted & truth).sum(axis=-1)
    k = truth.sum()
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(n_acc > 0, tp / np.maximum(n_acc, 1), EMPTY_PRECISION)
    recall = tp / k
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = np.where(precision + recall > 0, 2 * precision * recall / (precision + recall), 0.0)
    return precision.astype(float), recall.astype(float), f1.astype(float)


def category_recall(accepted: np.ndarray, domain: Domain) -> dict[str, np.ndarray]:
    """Recall per metric category (true negations form ``negative``); NaN where T has none."""
    cats = np.array(domain.categories())
    out: dict[str, np.ndarray] = {}
    for cat in CATEGORIES:
        mask = domain.truth & (cats == cat)
        if mask.any():
            out[cat] = accepted[..., mask].mean(axis=-1)
        else:
            out[cat] = np.full(accepted.shape[:-1], np.nan)
    return out


def missed_labels(accepted_row: np.ndarray, domain: Domain) -> list[str]:
    """Labels of true facts the collective failed to accept in one run."""
    return [domain.labels[f] for f in np.flatnonzero(domain.truth & ~accepted_row)]


def false_labels(accepted_row: np.ndarray, domain: Domain) -> list[str]:
    """Labels of false facts the collective accepted in one run."""
    return [domain.labels[f] for f in np.flatnonzero(~domain.truth & accepted_row)]


def summarise_arrays(
    precision: np.ndarray, recall: np.ndarray, f1: np.ndarray, rounds: np.ndarray, converged: np.ndarray
) -> dict[str, Any]:
    """The summary dict (exactly :data:`SUMMARY_KEYS`) from per-run arrays."""
    return {
        "runs": int(len(f1)),
        "f1": float(np.mean(f1)),
        "f1_std": float(np.std(f1)),
        "precision": float(np.mean(precision)),
        "precision_std": float(np.std(precision)),
        "recall": float(np.mean(recall)),
        "recall_std": float(np.std(recall)),
        "rounds_mean": float(np.mean(rounds)),
        "converged_rate": float(np.mean(converged)),
    }
