"""Collective knowledge base and its scores against the ground truth.

Acceptance: for each pair the population mean (over agents) of normalised confidence is computed
for both members; the collective accepts the member whose mean exceeds the acceptance threshold and
is strictly larger than its negation's, so at most one fact per pair is accepted (a tie accepts
neither). Both comparisons are exact: means are summed in float64 and every comparison closer than
:data:`TIE_TOLERANCE` is decided again with exact rationals (``fractions.Fraction``) from the
agents' beliefs, and the threshold is read as the decimal it was written as (0.6 means 3/5).
Precision = |A ∩ T| / |A|, defined as 1.0 when nothing is accepted (no false claim was made; F1
is then 0 because recall is 0). Recall = |A ∩ T| / K. A run *locks onto falsehood* when its
collective accepts at least one false fact.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from ifworld.beliefs.domain import CATEGORIES, Domain
from ifworld.beliefs.rules import normalised

AGENT_BLOCK = 16_384  # agents normalised at once, to keep peak memory near the belief array
CELL_BLOCK = 1 << 16  # belief cells normalised at once (cache-sized blocks, small peak memory)
TIE_TOLERANCE = 1e-9  # float64 sums of <= 10^7 terms err far less; closer comparisons go exact
SUMMARY_KEYS = (
    "runs", "f1", "f1_std", "precision", "precision_std", "recall", "recall_std",
    "rounds_mean", "converged_rate",
)
EMPTY_PRECISION = 1.0


def mean_confidence(beliefs: np.ndarray, rule: Any = None) -> np.ndarray:
    """Population-mean confidence, (runs, agents, facts) -> (runs, facts) float64 (the rule's
    ``confidence`` hook, else normalised b_f / (b_f + b_¬f))."""
    confidence = getattr(rule, "confidence", None) or normalised
    runs, agents, facts = beliefs.shape
    total = np.zeros((runs, facts), dtype=np.float64)
    agent_block = min(AGENT_BLOCK, max(1, CELL_BLOCK // facts))
    run_block = max(1, CELL_BLOCK // (agents * facts))  # whole runs per block while they fit in cache
    for r in range(0, runs, run_block):
        for start in range(0, agents, agent_block):
            part = confidence(beliefs[r:r + run_block, start:start + agent_block], np.float64)
            total[r:r + run_block] += part.sum(axis=1)
    return total / agents


def accept(beliefs: np.ndarray, threshold: float, rule: Any = None, mean: np.ndarray | None = None) -> np.ndarray:
    """Collectively accepted facts, (runs, agents, facts) -> (runs, facts) bool, compared exactly.
    ``mean``: :func:`mean_confidence` when already computed (to within far less than TIE_TOLERANCE)."""
    mean = mean_confidence(beliefs, rule) if mean is None else mean
    if getattr(rule, "binary_confidence", False):  # each agent accepts a fact or not: compare counts exactly
        return _accept_counts(np.rint(mean * beliefs.shape[1]).astype(np.int64), beliefs.shape[1], threshold)
    accepted = accept_from_mean(mean, threshold)
    pair = mean.reshape(mean.shape[0], -1, 2)
    near = (np.abs(pair[..., 0] - pair[..., 1]) < TIE_TOLERANCE) | (
        np.abs(pair - threshold) < TIE_TOLERANCE).any(axis=-1)
    if near.any():
        runs, ks = np.nonzero(near)
        cells = beliefs.reshape(*beliefs.shape[:2], -1, 2)[runs, :, ks]  # (cells, agents, 2)
        exact = exact_pairs(cells, decimal_fraction(threshold), getattr(rule, "exact_confidence", None))
        view = accepted.reshape(accepted.shape[0], -1, 2)
        view[runs, ks] = exact
    return accepted


def _accept_counts(counts: np.ndarray, agents: int, threshold: float) -> np.ndarray:
    """(runs, 2K) agents accepting each fact -> the collective's acceptance: more than ``threshold`` of the
    agents (exact: the threshold as the decimal it was written as) and more than accept its negation."""
    limit = decimal_fraction(threshold)
    other = counts.reshape(counts.shape[0], -1, 2)[..., ::-1].reshape(counts.shape)
    return (counts * limit.denominator > limit.numerator * agents) & (counts > other)


def decimal_fraction(value: float) -> Fraction:
    """The rational a float was written as (``repr`` is the shortest decimal that round-trips)."""
    return Fraction(repr(float(value)))


def exact_pairs(cells: np.ndarray, limit: Fraction, exact_confidence: Any = None) -> np.ndarray:
    """(cells, 2) acceptance of pairs from their (cells, agents, 2) beliefs with exact rational means.

    Integer beliefs: where every agent that heard of the pair has the same pair total S (always so
    under ``bounded``), mean_f = sum(b_f) / (N S) and the comparisons are integer ones; otherwise the
    sums are taken over the least common multiple of the totals. Float beliefs (LLM agents) go
    through ``Fraction``, which is exact for binary floats; so does a rule's own ``exact_confidence``.
    Pairs where every agent holds both members equally have equal means: neither is accepted."""
    n, p, q = cells.shape[1], limit.numerator, limit.denominator
    out = np.zeros((len(cells), 2), dtype=bool)
    if exact_confidence is not None:
        _exact_by_groups(cells, limit, exact_confidence, out)
        return out
    if not np.issubdtype(cells.dtype, np.integer):
        for i, cell in enumerate(cells):
            out[i] = _fraction_pair(cell.tolist(), limit)
        return out
    wide = cells.astype(np.int64)
    total = wide.sum(axis=-1)
    heard = total > 0
    high = total.max(axis=1)
    uniform = (np.where(heard, total, high[:, None]) == high[:, None]).all(axis=1)
    sums = wide.sum(axis=1)  # (cells, 2)
    scale = n * high
    small = max(p, q) < 1 << 20
    if small and int(sums.max(initial=0)) < 1 << 40 and int(scale.max(initial=0)) < 1 << 40:
        a, b = sums[:, 0], sums[:, 1]  # int64 products cannot overflow within these bounds
        out[:, 0] = uniform & (a * q > p * scale) & (a > b)
        out[:, 1] = uniform & (b * q > p * scale) & (b > a)
        rest = np.flatnonzero(~uniform)
        if small and len(rest):
            rest = _common_denominator(wide[rest], total[rest], n, p, q, out, rest)
    else:
        rest = np.arange(len(cells))
    for i in rest.tolist():
        if uniform[i]:
            a, b, den = int(sums[i, 0]), int(sums[i, 1]), int(scale[i])
        else:
            a, b, den = _lcm_sums(wide[i].tolist(), n)
        out[i] = (a * q > p * den and a > b), (b * q > p * den and b > a)
    return out


def _exact_by_groups(cells: np.ndarray, limit: Fraction, exact_confidence: Any, out: np.ndarray) -> None:
    """Fill ``out`` from a rule's exact per-agent confidence: agents with equal beliefs add equal terms,
    and cells with the same count of each belief pair have the same means, so each distinct count
    vector is summed once with ``Fraction``s (the same decisions as summing every agent exactly)."""
    n = cells.shape[1]
    todo = np.flatnonzero(~(cells[..., 0] == cells[..., 1]).all(axis=1))  # all equal: equal means, neither
    if len(todo) == 0:
        return
    wide = cells[todo].astype(np.int64)
    values, which = np.unique(wide[..., 0] * (int(wide.max()) + 1) + wide[..., 1], return_inverse=True)
    pair_of = wide.reshape(-1, 2)[np.unique(which.reshape(-1), return_index=True)[1]].tolist()
    counts = np.zeros((len(todo), len(values)), dtype=np.int64)
    np.add.at(counts, (np.repeat(np.arange(len(todo)), n), which.reshape(-1)), 1)
    kinds, kind_of = np.unique(counts, axis=0, return_inverse=True)
    decided = np.zeros((len(kinds), 2), dtype=bool)
    conf = [(exact_confidence(a, b), exact_confidence(b, a)) for a, b in pair_of]
    for i, row in enumerate(kinds.tolist()):
        m0 = sum((k * conf[j][0] for j, k in enumerate(row) if k), Fraction(0))
        m1 = sum((k * conf[j][1] for j, k in enumerate(row) if k), Fraction(0))
        decided[i] = (m0 > limit * n and m0 > m1), (m1 > limit * n and m1 > m0)
    out[todo] = decided[kind_of.reshape(-1)]


def _common_denominator(cells: np.ndarray, total: np.ndarray, n: int, p: int, q: int, out: np.ndarray,
                        index: np.ndarray) -> np.ndarray:
    """Vectorised exact comparison over the lcm of each cell's pair totals (int64, with overflow
    guards); fills ``out[index]`` and returns the indices it could not decide within int64."""
    common = np.ones(len(cells), dtype=np.int64)
    overflow = np.zeros(len(cells), dtype=bool)
    for v in np.unique(total[total > 0]).tolist():
        present = (total == v).any(axis=1)
        step = common // np.gcd(common, v)
        overflow |= present & (step > (1 << 40) // v)
        common = np.where(present & ~overflow, step * v, common)
    weight = np.where(total > 0, common[:, None] // np.where(total > 0, total, 1), 0)
    ok = ~overflow & (weight.max(axis=1, initial=0) < (1 << 60) // max(1, n * int(cells.max(initial=1))))
    a = (cells[..., 0] * weight).sum(axis=1)
    b = (cells[..., 1] * weight).sum(axis=1)
    den = n * common
    ok &= (a < 1 << 42) & (b < 1 << 42) & (den < 1 << 42)
    out[index[ok], 0] = ((a * q > p * den) & (a > b))[ok]
    out[index[ok], 1] = ((b * q > p * den) & (b > a))[ok]
    return index[~ok]


def _lcm_sums(cell: list[list[int]], n: int) -> tuple[int, int, int]:
    """Numerators of both means over ``n * lcm(totals)``, and that denominator (Python ints)."""
    common = math.lcm(*{a + b for a, b in cell if a + b > 0})
    a_sum = sum(a * (common // (a + b)) for a, b in cell if a + b > 0)
    b_sum = sum(b * (common // (a + b)) for a, b in cell if a + b > 0)
    return a_sum, b_sum, n * common


def _fraction_pair(cell: list[list[float]], limit: Fraction) -> tuple[bool, bool]:
    means = [Fraction(0), Fraction(0)]
    for x, y in cell:
        a, b = Fraction(x), Fraction(y)
        if a + b > 0:
            means[0] += a / (a + b)
            means[1] += b / (a + b)
    n = len(cell)
    return (means[0] > limit * n and means[0] > means[1]), (means[1] > limit * n and means[1] > means[0])


def accept_from_mean(mean: np.ndarray, threshold: float) -> np.ndarray:
    """Acceptance from population-mean confidences: at most one fact per pair (float comparison;
    :func:`accept` re-decides near ties exactly)."""
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
