"""Vectorised belief-exchange engine: many independent runs advance together as small-integer arrays.

State is kept *facts-major*, ``beliefs[fact, column]`` with one column per (run, agent) (run-major)
plus two scratch fact rows (see :mod:`ifworld.beliefs.rules` for units), so every per-agent
reduction is a SIMD pass over contiguous columns instead of a short row. One round:
1. pairing - per run, agents are put in a uniformly random order (Fisher-Yates) and paired (0,1),
   (2,3), ...; with odd N the last agent of the permutation sits out;
2. sharing - each agent picks up to ``bandwidth`` facts from its knowledge base (the facts it
   believes): ``strategic`` = uniformly at random, ``highest_confidence`` = its largest beliefs with
   ties broken at random; liars send the negation of each pick, and ``noise`` flips each sent fact
   with that probability; every message carries the sender's normalised confidence in its pick.
   Selection takes ``bandwidth`` column maxima of a key ``rank | random byte r | fact id ^ r`` built
   per cache-sized block (r orders ties; when two r are equal, ``id ^ r`` orders the two facts
   either way with probability 1/2, independently per agent);
3. update - reports reach the partner (reciprocal) and the rule applies them slot by slot (a
   receiver appears once per slot, so plain fancy adds are exact);
4. stop vote - an agent votes STOP when its beliefs did not change during the round, or when it
   has an opinion on every pair and each is at least ``STOP_CONFIDENCE_PCT`` % sure (the rule's ``all_sure``
   hook, else by its ``confidence`` hook: :func:`stop_test`). A run ends when at least ``stop_share`` of its
   agents vote STOP (converged) or at the round cap; finished runs are dropped from the working arrays.

With numba installed, steps 2-4 (and 1 on the complete graph) run in :mod:`ifworld.beliefs.kernel`
(compiled, identical results per seed) for a rule whose spec declares a compiled kernel;
``IFWORLD_BELIEFS_KERNEL=numpy`` keeps them here, and so does any other rule. :attr:`SimulationResult.path`
says which ran (the run record and the page show it). Step 2's selection is :mod:`ifworld.beliefs.selection`.

All randomness comes from one ``numpy.random.Generator`` over ``SFC64`` seeded by
``SeedSequence(seed)``: it draws the liars, noise, and one 64-bit key per pairing, selection block and
initial draw; the many small draws under a key (tie bytes, Fisher-Yates swaps, initial facts) are
words of a counter-based SplitMix64 stream (:mod:`ifworld.beliefs.streams`), so the compiled kernel
computes them where it uses them and both paths give the same bits.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from math import gcd
from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from ifworld.beliefs import kernel, streams
from ifworld.beliefs.config import MAX_RUNS, STOP_CONFIDENCE_PCT, BeliefConfig, condition_label
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
from ifworld.beliefs.rules import SCRATCH_ROWS, UpdateRule, get_rule
from ifworld.beliefs.selection import KEY_CELLS, Buffers, confidence_facts_major, select_facts_major
from ifworld.beliefs.topology import build_edges, check_edges, match_columns
from ifworld.errors import BeliefConfigError

MAX_CELLS = 400_000_000  # runs x agents x 2K belief cells in one call (int8: 400 MB; ~2x that at peak)
MAX_RECORDED_CELLS = 20_000_000  # rounds x runs x agents x 2K kept by record=True (int16: 40 MB)
LABEL_SEPARATOR = " | "
KERNEL_PATH, NUMPY_PATH = "compiled kernel", "numpy"


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
    path: str = NUMPY_PATH  # which code computed the rounds: "compiled kernel" or "numpy"

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



def simulate(config: BeliefConfig, seed: int = 0, runs: int = 1, record: bool = False,
             progress: Callable[[int, int], None] | None = None) -> SimulationResult:
    """Run ``runs`` independent simulations of ``config`` from ``seed``; same inputs, same result.

    With ``record`` every round's beliefs, pairs, messages, votes and collective scores are kept for
    animation (memory grows with rounds x runs x agents x facts: record small runs only). ``progress(round,
    rounds)`` is called after each round (a long simulation shows a progress bar; see
    :func:`ifworld.beliefs.cost.estimate_cost`).
    """
    if isinstance(runs, bool) or not isinstance(runs, (int, np.integer)) or not 1 <= runs <= MAX_RUNS:
        raise BeliefConfigError(f"runs must be an integer in [1, {MAX_RUNS}], got {runs!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise BeliefConfigError(f"seed must be a non-negative integer, got {seed!r}")
    runs, n = int(runs), config.agents
    check_size(config, runs, record)
    domain = build_domain(config)
    rng = np.random.Generator(np.random.SFC64(np.random.SeedSequence(int(seed))))
    rule = get_rule(config.rule, config)
    beliefs = initial_facts_major(config, domain, rule, rng, runs)
    path = round_path(rule, 2 * config.facts, beliefs.dtype)
    liars = choose_liars(config, rng, runs)
    edges = build_edges(config.topology, n, config.degree, config.rewire, config.graph_seed)
    recorder = Recorder(config, domain, runs_view(beliefs, runs, n, np.int16), liars) if record else None
    out_rounds = np.full(runs, config.rounds, dtype=np.int32)
    converged = np.zeros(runs, dtype=bool)
    accepted = np.zeros((runs, 2 * config.facts), dtype=bool)
    ids, liar_cols, buffers = np.arange(runs), liars.reshape(-1), Buffers()
    for t in range(1, config.rounds + 1):
        partners, sent, votes = play_round(beliefs, liar_cols, rule, config, rng, buffers, edges)
        stop = _stops(votes, n, config.stop_share)
        if recorder is not None:
            snapshot = _record_view(partners, sent, votes, n, 2 * config.facts)
            recorder.add(ids, runs_view(beliefs, len(ids), n, np.int16), *snapshot)
        if stop.any():
            done, cols = ids[stop], np.repeat(stop, n)
            out_rounds[done], converged[done] = t, True
            accepted[done] = _accept(np.compress(cols, beliefs, axis=1), len(done), n, config.threshold, rule)
            beliefs, liar_cols, ids = np.compress(~cols, beliefs, axis=1), liar_cols[~cols], ids[~stop]
        if progress is not None:
            progress(t, config.rounds)
        if len(ids) == 0:
            break
    if len(ids):
        accepted[ids] = _accept(beliefs, len(ids), n, config.threshold, rule)
    precision, recall, f1 = scores(accepted, domain.truth)
    recording = recorder.finish() if recorder is not None else None
    return SimulationResult(config, int(seed), domain, precision, recall, f1, out_rounds, converged,
                            accepted, recording, path)


def round_path(rule: UpdateRule, facts: int, dtype: DTypeLike) -> str:
    """Which code plays the rounds of ``rule``: the compiled kernel (numba there, not switched off, and the
    rule's spec names a kernel for this size and dtype) or the numpy path (every rule runs there)."""
    return KERNEL_PATH if kernel.wanted() and kernel.supported(rule, facts, np.dtype(dtype)) else NUMPY_PATH


def _stops(votes: np.ndarray, agents: int, share: float) -> np.ndarray:
    """(runs,) bool: the run's share of STOP votes (votes / agents, float64) is at least ``share``."""
    if not kernel.wanted():
        return votes.reshape(-1, agents).mean(axis=1) >= share
    least = next(c for c in range(agents + 2) if c > agents or c / agents >= share)  # same comparison
    return kernel.vote_counts(votes, agents) >= least


def _accept(beliefs: np.ndarray, runs: int, agents: int, threshold: float, rule: UpdateRule) -> np.ndarray:
    """:func:`accept` of facts-major beliefs; the kernel sums the default confidence when numba is used."""
    mean = None
    if kernel.wanted() and getattr(rule, "confidence", None) is None:
        mean = kernel.mean_confidence(beliefs[:beliefs.shape[0] - SCRATCH_ROWS], agents)
    return accept(runs_view(beliefs, runs, agents), threshold, rule, mean)


def check_size(config: BeliefConfig, runs: int, record: bool = False) -> None:
    """Refuse a call whose belief arrays or graph would not fit the documented bounds (clear error, no work
    done, nothing allocated)."""
    check_edges(config.topology, config.agents, config.degree)
    cells = runs * config.agents * 2 * config.facts
    if cells > MAX_CELLS:
        raise BeliefConfigError(f"runs x agents x 2K = {cells:,} belief cells is more than MAX_CELLS={MAX_CELLS:,}; "
                                "use fewer runs (a sweep splits them into tasks), agents or facts")
    if record and cells * (config.rounds + 1) > MAX_RECORDED_CELLS:
        raise BeliefConfigError(f"recording {config.rounds + 1} rounds of {cells:,} cells is more than "
                                f"MAX_RECORDED_CELLS={MAX_RECORDED_CELLS:,}; "
                                "record fewer runs, agents, facts or rounds")


def recordable_runs(config: BeliefConfig) -> int:
    """How many runs of ``config`` fit the recording bound (0: not even one)."""
    return MAX_RECORDED_CELLS // (config.agents * 2 * config.facts * (config.rounds + 1))


def runs_view(beliefs: np.ndarray, runs: int, agents: int, dtype: DTypeLike | None = None) -> np.ndarray:
    """(runs, agents, 2K) C-contiguous copy of facts-major beliefs (metrics, recording, public API)."""
    facts = beliefs.shape[0] - SCRATCH_ROWS
    return np.ascontiguousarray(beliefs[:facts].T.reshape(runs, agents, facts), dtype=dtype)


def to_facts_major(beliefs: np.ndarray) -> np.ndarray:
    """(runs, agents, 2K) -> C-contiguous (2K + scratch, runs x agents) copy, scratch rows zero."""
    facts = beliefs.shape[-1]
    out = np.zeros((facts + SCRATCH_ROWS, beliefs.size // facts), dtype=beliefs.dtype)
    out[:facts] = beliefs.reshape(-1, facts).T
    return out


def initial_facts_major(
    config: BeliefConfig, domain: Domain, rule: UpdateRule, rng: np.random.Generator, runs: int
) -> np.ndarray:
    """(2K + scratch, runs x agents) beliefs after each agent draws M_T facts from T and M_F from F."""
    k, cols = config.facts, runs * config.agents
    held = np.zeros((2 * k + SCRATCH_ROWS, cols), dtype=bool)
    flat = held.reshape(-1)
    col = np.arange(cols, dtype=np.int64)[:, None]
    false_pool = domain.true_facts if config.false_from == "truths" else domain.false_facts
    for pool, m in ((domain.true_facts, config.true_facts), (false_pool, config.false_facts)):
        if m == 0:
            continue
        if config.with_replacement:  # draw i of column c: word c * m + i of a fresh stream
            stream_key = streams.key(rng)
            if kernel.wanted():
                kernel.hold_draws(held, pool, m, stream_key)
                continue
            draws = streams.below(stream_key, cols * m, k).reshape(cols, m)
        else:
            draws = np.argsort(rng.random((cols, k)), axis=1)[:, :m]
        flat[pool[draws].astype(np.int64) * cols + col] = True
    beliefs = rule.initial(held, axis=0, dtype=rule.dtype(config.rounds, config.bandwidth))
    beliefs[2 * k:] = 0
    return beliefs


def initial_beliefs(
    config: BeliefConfig, domain: Domain, rule: UpdateRule, rng: np.random.Generator, runs: int
) -> np.ndarray:
    """(runs, agents, 2K) int16 beliefs after each agent draws M_T facts from T and M_F from F."""
    return runs_view(initial_facts_major(config, domain, rule, rng, runs), runs, config.agents, np.int16)


def choose_liars(config: BeliefConfig, rng: np.random.Generator, runs: int) -> np.ndarray:
    """(runs, agents) bool: round(liars x N) liars per run, chosen at random."""
    n_liars = int(round(config.liars * config.agents))
    if n_liars == 0:
        return np.zeros((runs, config.agents), dtype=bool)
    ranks = np.argsort(np.argsort(rng.random((runs, config.agents)), axis=1), axis=1)
    return ranks < n_liars


def permutations(rng: np.random.Generator, runs: int, agents: int) -> np.ndarray:
    """(runs, agents) uniformly random permutation of the agents per run: Fisher-Yates on a
    counter-based stream keyed by one draw (:mod:`ifworld.beliefs.streams`; with numba the kernel
    computes the same permutations in compiled code)."""
    stream_key = streams.key(rng)
    if kernel.wanted():
        return kernel.permutations(stream_key, runs, agents)[0]
    return streams.permutations(stream_key, runs, agents)


def pair_columns(rng: np.random.Generator, runs: int, agents: int) -> np.ndarray:
    """(runs x agents,) partner column per column; ``runs x agents`` for the one left out (odd N).
    Consumes the draws of :func:`permutations` and pairs its order (0, 1), (2, 3), ..."""
    stream_key = streams.key(rng)
    if kernel.wanted():
        return kernel.permutations(stream_key, runs, agents)[1]
    perm = streams.permutations(stream_key, runs, agents)
    half = agents // 2
    base = np.arange(runs, dtype=np.int64)[:, None] * agents
    a, b = base + perm[:, 0:2 * half:2], base + perm[:, 1:2 * half:2]
    partners = np.full(runs * agents, runs * agents, dtype=np.int64)
    partners[a] = b
    partners[b] = a
    return partners


def pair_agents(rng: np.random.Generator, runs: int, agents: int) -> np.ndarray:
    """(runs, agents) partner index per agent, -1 for the one left out when N is odd."""
    cols = pair_columns(rng, runs, agents)
    return np.where(cols < len(cols), cols % agents, -1).reshape(runs, agents)


def distort(sent: np.ndarray, liars: np.ndarray, noise: float, rng: np.random.Generator) -> None:
    """In place: liars negate every pick, transmission noise flips each sent fact with prob ``noise``.

    ``sent`` is (slots, columns) facts-major; flipping "no fact" (F <-> F ^ 1) keeps it "no fact".
    """
    if liars.any():
        sent ^= liars.astype(sent.dtype)
    if noise > 0:
        sent ^= (rng.random(sent.shape) < noise).astype(sent.dtype)


def deliver_facts_major(
    beliefs: np.ndarray, partners: np.ndarray, sent: np.ndarray, conf: np.ndarray | None, rule: UpdateRule,
    start: int = 0,
) -> np.ndarray:
    """Columns ``start ..`` receive their partner columns' messages (``sent`` holds the same, whole
    runs); returns (columns,) bool: beliefs changed. Scratch rows are left dirty."""
    facts, n = beliefs.shape[0] - SCRATCH_ROWS, sent.shape[1]
    src = partners - start
    if src.max(initial=0) >= n:  # odd N: a column without partner reads an extra "nothing" column
        np.minimum(src, n, out=src)
        sent = np.concatenate([sent, np.full((len(sent), 1), facts, dtype=sent.dtype)], axis=1)
        conf = None if conf is None else np.concatenate([conf, np.zeros((len(conf), 1), conf.dtype)], axis=1)
    got = np.take(sent, src, axis=1)
    reported = None if conf is None else np.take(conf, src, axis=1)
    return rule.apply(beliefs, got, np.arange(start, start + n, dtype=np.int64), reported)


def all_sure(beliefs: np.ndarray) -> np.ndarray:
    """(columns,) bool: every pair has an opinion at least ``STOP_CONFIDENCE_PCT`` % sure.

    ``beliefs`` is (F, columns), non-negative. high / (high + low) >= pct  <=>  a * high >= c * low
    with (a, c) = (100 - pct, pct) / gcd; for pct = 80 that is low <= high >> 2, with no widening.
    """
    facts, cols = beliefs.shape
    g = gcd(100 - STOP_CONFIDENCE_PCT, STOP_CONFIDENCE_PCT)
    a, c = (100 - STOP_CONFIDENCE_PCT) // g, STOP_CONFIDENCE_PCT // g
    shift = c.bit_length() - 1 if a == 1 and c & (c - 1) == 0 else None
    out = np.empty(cols, dtype=bool)
    width = max(1, 2 * KEY_CELLS // facts)
    for s in range(0, cols, width):
        b0, b1 = beliefs[0::2, s:s + width], beliefs[1::2, s:s + width]
        low, high = np.minimum(b0, b1), np.maximum(b0, b1)
        if shift is not None:
            sure = low <= (high >> shift)
        else:
            sure = a * high.astype(np.int64) >= c * low.astype(np.int64)
        sure &= high > 0
        out[s:s + width] = sure.all(axis=0)
    return out


def sure_by_confidence(confidence: Callable[..., np.ndarray], block: np.ndarray) -> np.ndarray:
    """(columns,) bool: every pair has a member the rule's ``confidence`` hook puts at least
    ``STOP_CONFIDENCE_PCT`` % sure (a pair never heard of, confidence 0 and 0, is not sure)."""
    conf = confidence(np.ascontiguousarray(block.T), np.float64)  # (columns, F): the hook's agents-major layout
    return (np.maximum(conf[:, 0::2], conf[:, 1::2]) >= STOP_CONFIDENCE_PCT / 100).all(axis=1)


def stop_test(rule: UpdateRule) -> Callable[[np.ndarray], np.ndarray]:
    """The stop vote's sureness test of ``rule``: its ``all_sure`` hook; else :func:`sure_by_confidence` of its
    ``confidence`` hook; else :func:`all_sure` on the belief values (b_f / (b_f + b_¬f))."""
    own = getattr(rule, "all_sure", None)
    if own is not None:
        return own
    confidence = getattr(rule, "confidence", None)
    if confidence is None:
        return all_sure
    return lambda block: sure_by_confidence(confidence, block)


def play_round(
    beliefs: np.ndarray, liars: np.ndarray, rule: UpdateRule, config: BeliefConfig, rng: np.random.Generator,
    buffers: Buffers | None = None, edges: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Advance every active run by one round in place; returns partner columns, sent facts, STOP votes.

    Pairing is a random perfect matching, or a random maximal matching of ``edges`` (a graph
    topology). After the pairing, blocks of whole runs go through select, deliver and vote in cache."""
    facts, cols, n = beliefs.shape[0] - SCRATCH_ROWS, beliefs.shape[1], config.agents
    if edges is None:
        partners = pair_columns(rng, cols // n, n)
    else:
        partners = match_columns(edges, rng, cols // n, n)
    sent = np.empty((config.bandwidth, cols), dtype=np.int32)
    votes = np.empty(cols, dtype=bool)
    width = max(1, KEY_CELLS // (facts * n)) * n
    if round_path(rule, facts, beliefs.dtype) == KERNEL_PATH:
        _kernel_blocks(beliefs, liars, rule, config, rng, partners, sent, votes, width)
        return partners, sent, votes
    sure = stop_test(rule)
    for s in range(0, cols, width):
        block, out = beliefs[:, s:s + width], sent[:, s:s + width]
        select_facts_major(block[:facts], rule.believe_min, config.strategy, config.bandwidth, rng, out, buffers,
                           getattr(rule, "rank", None))
        # the confidence is the sender's in its own pick: a liar (or a flip in transit) asserts the
        # negation as strongly as the sender believes the original
        conf = confidence_facts_major(beliefs, out, s) if rule.uses_confidence else None
        distort(out, liars[s:s + width], config.noise, rng)
        changed = deliver_facts_major(beliefs, partners[s:s + width], out, conf, rule, s)
        vote = votes[s:s + width]
        vote[...] = sure(block[:facts])
        vote |= ~changed
    beliefs[facts:] = 0
    return partners, sent, votes


def _kernel_blocks(beliefs: np.ndarray, liars: np.ndarray, rule: UpdateRule, config: BeliefConfig,
                   rng: np.random.Generator, partners: np.ndarray, sent: np.ndarray, votes: np.ndarray,
                   width: int) -> None:
    """The compiled round over the same blocks, fed the random draws the numpy path makes in its order."""
    facts, cols = beliefs.shape[0] - SCRATCH_ROWS, beliefs.shape[1]
    liars = np.ascontiguousarray(liars)
    for s in range(0, cols, width):
        n = min(width, cols - s)
        tie_key = streams.key(rng)  # the block's tie bytes: words of this stream, as select_facts_major
        draws = rng.random((config.bandwidth, n)) if config.noise > 0 else np.empty((0, 0))
        kernel.play_block(beliefs, s, n, tie_key, partners, liars, draws, config.noise, rule,
                          config.strategy == "highest_confidence", sent, votes, config.agents)
    beliefs[facts:] = 0


def _record_view(partners: np.ndarray, sent: np.ndarray, votes: np.ndarray, agents: int, facts: int):
    """Partners (runs, agents) with -1, messages (runs, agents, C) with -1, votes (runs, agents)."""
    cols = len(partners)
    runs = cols // agents
    local = np.where(partners < cols, partners % agents, -1).reshape(runs, agents)
    messages = np.where(sent < facts, sent, -1).T.reshape(runs, agents, -1).astype(np.int64)
    return local, messages, votes.reshape(runs, agents)


def select_shares(
    beliefs: np.ndarray, rule: UpdateRule, strategy: str, bandwidth: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Facts each agent shares (rows, C) int64 with -1 padding, and its normalised confidence."""
    facts = beliefs.shape[-1]
    fm = to_facts_major(beliefs)
    sent = select_facts_major(fm[:facts], rule.believe_min, strategy, bandwidth, rng, rank=getattr(rule, "rank", None))
    conf = confidence_facts_major(fm, sent)
    return np.where(sent < facts, sent, -1).T.astype(np.int64), np.ascontiguousarray(conf.T)


def deliver(
    beliefs: np.ndarray, partners: np.ndarray, sent: np.ndarray, conf: np.ndarray, rule: UpdateRule
) -> np.ndarray:
    """Every agent receives its partner's messages; the rule updates ``beliefs`` (runs, agents, 2K) in place.

    ``partners`` is (runs, agents) with -1 for none, ``sent``/``conf`` (runs x agents, C) with -1 for
    no fact. Returns (runs, agents) bool: whether the agent's beliefs changed this round."""
    runs, agents, facts = beliefs.shape
    fm = to_facts_major(beliefs)
    cols = runs * agents
    base = np.arange(runs, dtype=np.int64)[:, None] * agents
    part = np.where(partners >= 0, base + partners, cols).reshape(-1)
    fm_sent = np.where(sent >= 0, sent, facts).T.astype(np.int32)
    changed = deliver_facts_major(fm, part, np.ascontiguousarray(fm_sent), np.ascontiguousarray(conf.T), rule)
    fm[facts:] = 0
    beliefs[...] = fm[:facts].T.reshape(beliefs.shape)
    return changed.reshape(runs, agents)
