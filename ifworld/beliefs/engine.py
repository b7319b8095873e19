"""Vectorised belief-exchange engine: many independent runs advance together as int16 arrays.

State is ``beliefs[run, agent, fact]`` (see :mod:`ifworld.beliefs.rules` for units). One round:
1. pairing - per run, agents are ordered by ``argsort`` of random keys and paired (0,1), (2,3), ...;
   with odd N the last agent of the permutation sits out;
2. sharing - each agent picks up to ``bandwidth`` facts from its knowledge base (the facts it
   believes): ``strategic`` = uniformly at random, ``highest_confidence`` = its largest beliefs with
   ties broken at random; liars send the negation of each pick, and ``noise`` flips each sent fact
   with that probability; every message carries the sender's normalised confidence in its pick;
3. update - reports reach the partner (reciprocal) and the rule applies them (``np.add.at``);
4. stop vote - an agent votes STOP when its beliefs did not change during the round, or when it
   has an opinion on every pair and each is at least
   ``STOP_CONFIDENCE_PCT`` % sure. A run ends when at least ``stop_share`` of its agents vote STOP
   (converged) or at the round cap; finished runs are dropped from the working arrays.

All randomness comes from one ``numpy.random.Generator`` seeded by ``SeedSequence(seed)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ifworld.beliefs.config import STOP_CONFIDENCE_PCT, BeliefConfig, condition_label
from ifworld.beliefs.domain import CATEGORIES, Domain, build_domain
from ifworld.beliefs.metrics import (
    accept,
    category_recall,
    false_labels,
    missed_labels,
    scores,
    summarise_arrays,
)
from ifworld.beliefs.recording import Recorder, Recording
from ifworld.beliefs.rules import UpdateRule, get_rule

ROW_BLOCK = 16_384  # agent rows whose share selection is computed at once (bounds temporaries)
MAX_RUNS = 10_000_000
LABEL_SEPARATOR = " | "


@dataclass(frozen=True)
class SimulationResult:
    """Per-run outcome of :func:`simulate` (arrays have one entry per run)."""

    config: BeliefConfig
    seed: int
    domain: Domain
    precision: np.ndarray
    recall: np.ndarray
    f1: np.ndarray
    rounds: np.ndarray
    converged: np.ndarray
    accepted: np.ndarray = field(repr=False)  # (runs, 2K) bool
    recording: Recording | None = field(default=None, repr=False)

    @property
    def runs(self) -> int:
        return int(len(self.f1))

    @property
    def locked_false(self) -> np.ndarray:
        """Runs whose collective accepted at least one false fact."""
        return (self.accepted & ~self.domain.truth).any(axis=1)

    def rows(self) -> list[dict[str, Any]]:
        """Tidy rows, one per run: all parameters, seed, run index, metrics, per-category recall,
        and the missed / falsely accepted fact labels (joined by `` | ``)."""
        params = self.config.to_dict()
        cats = category_recall(self.accepted, self.domain)
        locked = self.locked_false
        rows = []
        for r in range(self.runs):
            row = {**params, "condition": condition_label(self.config), "seed": self.seed, "run": r}
            row.update(
                precision=float(self.precision[r]), recall=float(self.recall[r]), f1=float(self.f1[r]),
                rounds_used=int(self.rounds[r]), converged=bool(self.converged[r]),
                locked_false=bool(locked[r]), n_accepted=int(self.accepted[r].sum()),
            )
            row.update({f"recall_{c}": float(cats[c][r]) for c in CATEGORIES})
            row["missed_facts"] = LABEL_SEPARATOR.join(missed_labels(self.accepted[r], self.domain))
            row["false_accepted"] = LABEL_SEPARATOR.join(false_labels(self.accepted[r], self.domain))
            rows.append(row)
        return rows


def summarise(result: SimulationResult) -> dict[str, Any]:
    """Mean and spread over runs: keys exactly runs, f1, f1_std, precision, precision_std, recall,
    recall_std, rounds_mean, converged_rate."""
    return summarise_arrays(result.precision, result.recall, result.f1, result.rounds, result.converged)


def simulate(config: BeliefConfig, seed: int = 0, runs: int = 1, record: bool = False) -> SimulationResult:
    """Run ``runs`` independent simulations of ``config`` from ``seed``; same inputs, same result.

    With ``record`` every round's beliefs, pairs, messages, votes and collective scores are kept for
    animation (memory grows with rounds x runs x agents x facts: record small runs only).
    """
    if isinstance(runs, bool) or not isinstance(runs, (int, np.integer)) or not 1 <= runs <= MAX_RUNS:
        raise ValueError(f"runs must be an integer in [1, {MAX_RUNS}], got {runs!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    domain = build_domain(config)
    rng = np.random.default_rng(np.random.SeedSequence(int(seed)))
    rule = get_rule(config.rule)
    beliefs = initial_beliefs(config, domain, rule, rng, int(runs))
    liars = choose_liars(config, rng, int(runs))
    recorder = Recorder(config, domain, beliefs, liars) if record else None
    out_rounds = np.full(runs, config.rounds, dtype=np.int32)
    converged = np.zeros(runs, dtype=bool)
    accepted = np.zeros((runs, 2 * config.facts), dtype=bool)
    ids = np.arange(runs)
    for t in range(1, config.rounds + 1):
        partners, sent, votes = step(beliefs, liars[ids], rule, config, rng)
        stop = votes.mean(axis=1) >= config.stop_share
        if recorder is not None:
            recorder.add(ids, beliefs, partners, sent, votes)
        if stop.any():
            done = ids[stop]
            out_rounds[done], converged[done] = t, True
            accepted[done] = accept(beliefs[stop], config.threshold)
            keep = ~stop
            ids, beliefs = ids[keep], beliefs[keep]
        if len(ids) == 0:
            break
    if len(ids):
        accepted[ids] = accept(beliefs, config.threshold)
    precision, recall, f1 = scores(accepted, domain.truth)
    recording = recorder.finish() if recorder is not None else None
    return SimulationResult(config, int(seed), domain, precision, recall, f1, out_rounds, converged,
                            accepted, recording)


def initial_beliefs(
    config: BeliefConfig, domain: Domain, rule: UpdateRule, rng: np.random.Generator, runs: int
) -> np.ndarray:
    """(runs, agents, 2K) int16 beliefs after each agent draws M_T facts from T and M_F from F."""
    n, k = config.agents, config.facts
    held = np.zeros((runs, n, 2 * k), dtype=bool)
    flat = held.reshape(-1)
    rows = np.arange(runs * n, dtype=np.int64)[:, None] * (2 * k)
    for pool, m in ((domain.true_facts, config.true_facts), (domain.false_facts, config.false_facts)):
        if m == 0:
            continue
        if config.with_replacement:
            draws = rng.integers(0, k, size=(runs * n, m))
        else:
            draws = np.argsort(rng.random((runs * n, k)), axis=1)[:, :m]
        flat[rows + pool[draws]] = True
    return rule.initial(held)


def choose_liars(config: BeliefConfig, rng: np.random.Generator, runs: int) -> np.ndarray:
    """(runs, agents) bool: round(liars x N) liars per run, chosen at random."""
    n_liars = int(round(config.liars * config.agents))
    if n_liars == 0:
        return np.zeros((runs, config.agents), dtype=bool)
    ranks = np.argsort(np.argsort(rng.random((runs, config.agents)), axis=1), axis=1)
    return ranks < n_liars


def pair_agents(rng: np.random.Generator, runs: int, agents: int) -> np.ndarray:
    """(runs, agents) partner index per agent, -1 for the one left out when N is odd."""
    perm = np.argsort(rng.random((runs, agents), dtype=np.float32), axis=1)
    half = agents // 2
    a, b = perm[:, 0:2 * half:2], perm[:, 1:2 * half:2]
    partners = np.full((runs, agents), -1, dtype=np.int64)
    r = np.arange(runs)[:, None]
    partners[r, a] = b
    partners[r, b] = a
    return partners


def select_shares(
    beliefs: np.ndarray, rule: UpdateRule, strategy: str, bandwidth: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Facts each agent shares (rows, C) int64 with -1 padding, and its normalised confidence."""
    b2 = beliefs.reshape(-1, beliefs.shape[-1])
    rows = b2.shape[0]
    out = np.full((rows, bandwidth), -1, dtype=np.int64)
    for start in range(0, rows, ROW_BLOCK):
        block = b2[start:start + ROW_BLOCK]
        known = rule.believes(block)
        # rank << 16 | random 16-bit tie-breaker; believed facts always outrank the others
        rank = block if strategy == "highest_confidence" else known
        key = np.frombuffer(rng.bytes(2 * block.size), dtype=np.uint16).reshape(block.shape).astype(np.int32)
        key |= rank.astype(np.int32) << 16
        ar = np.arange(block.shape[0])
        for c in range(bandwidth):
            j = key.argmax(axis=1)
            out[start:start + len(block), c] = np.where(known[ar, j], j, -1)
            key[ar, j] = -1
    safe = np.maximum(out, 0)
    mine = np.take_along_axis(b2, safe, axis=1).astype(np.float32)
    other = np.take_along_axis(b2, safe ^ 1, axis=1).astype(np.float32)
    with np.errstate(invalid="ignore", divide="ignore"):
        conf = np.where(mine + other > 0, mine / (mine + other), 0.0).astype(np.float32)
    return out, conf


def distort(sent: np.ndarray, liars: np.ndarray, noise: float, rng: np.random.Generator) -> np.ndarray:
    """Apply lying (negate every pick of a liar) and transmission noise (flip with prob ``noise``)."""
    valid = sent >= 0
    flips = np.broadcast_to(liars.reshape(-1, 1), sent.shape).copy()
    if noise > 0:
        flips ^= rng.random(sent.shape) < noise
    return np.where(valid & flips, sent ^ 1, sent)


def deliver(
    beliefs: np.ndarray, partners: np.ndarray, sent: np.ndarray, conf: np.ndarray, rule: UpdateRule
) -> np.ndarray:
    """Every agent receives its partner's messages; the rule updates ``beliefs`` in place.

    Returns (runs, agents) bool: whether the agent's beliefs changed this round."""
    runs, agents, facts = beliefs.shape
    row_of = np.arange(runs, dtype=np.int64)[:, None] * agents
    src = (row_of + np.maximum(partners, 0)).reshape(-1)
    got, got_conf = sent[src], conf[src]
    ok = (got >= 0) & (partners.reshape(-1, 1) >= 0)
    receivers = np.arange(runs * agents, dtype=np.int64)[:, None] * facts
    flat = beliefs.reshape(-1)
    targets = (receivers + got)[ok]
    before, before_neg = flat[targets], flat[targets ^ 1]
    rule.apply(flat, targets, got_conf[ok])
    hit = (flat[targets] != before) | (flat[targets ^ 1] != before_neg)
    changed = np.zeros(runs * agents, dtype=bool)
    changed[targets[hit] // facts] = True
    return changed.reshape(runs, agents)


def opinion_views(beliefs: np.ndarray) -> np.ndarray:
    """(runs, agents, K) int8: +1 favours p_k, -1 favours ¬p_k, 0 undecided or unaware."""
    pair = beliefs.reshape(*beliefs.shape[:-1], -1, 2)
    return np.sign(pair[..., 0] - pair[..., 1]).astype(np.int8)


def stop_votes(beliefs: np.ndarray, changed: np.ndarray) -> np.ndarray:
    """(runs, agents) STOP votes: beliefs unchanged this round, or every pair decided and sure."""
    b2 = beliefs.reshape(-1, beliefs.shape[-1])
    all_sure = np.empty(b2.shape[0], dtype=bool)
    for start in range(0, b2.shape[0], ROW_BLOCK):  # blocks keep temporaries small
        block = b2[start:start + ROW_BLOCK]
        b0, b1 = block[:, 0::2].astype(np.int32), block[:, 1::2].astype(np.int32)
        low = np.minimum(b0, b1)
        high = b0 + b1 - low
        # high / (high + low) >= pct  <=>  (100 - pct) * high >= pct * low, and the pair must be known
        sure = (high > 0) & ((100 - STOP_CONFIDENCE_PCT) * high >= STOP_CONFIDENCE_PCT * low)
        all_sure[start:start + ROW_BLOCK] = sure.all(axis=1)
    return ~changed | all_sure.reshape(changed.shape)


def step(
    beliefs: np.ndarray, liars: np.ndarray, rule: UpdateRule,
    config: BeliefConfig, rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Advance every active run by one round in place; returns partners, sent facts, STOP votes."""
    runs, agents, _ = beliefs.shape
    partners = pair_agents(rng, runs, agents)
    sent, conf = select_shares(beliefs, rule, config.strategy, config.bandwidth, rng)
    sent = distort(sent, liars, config.noise, rng)
    changed = deliver(beliefs, partners, sent, conf, rule)
    votes = stop_votes(beliefs, changed)
    return partners, sent.reshape(runs, agents, -1), votes
