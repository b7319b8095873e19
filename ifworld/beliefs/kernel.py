"""Optional compiled round kernel (numba): the same round as the numpy engine, bit for bit.

The numpy engine spends most of a round building selection keys and taking ``bandwidth`` column
maxima over all facts, each a separate pass over memory. This kernel does select -> confidence ->
distort (phase 1) and deliver -> rule -> stop vote (phase 2) per chunk of columns in compiled loops,
so a chunk's keys stay in L1 cache and its inner loops run over columns (SIMD). It is serial:
``prange`` over chunks was measured slower on this shared 2-core machine (a parallel region waits
for a preempted thread).

Both paths draw the same randomness: the generator gives one 64-bit key per pairing, selection block
and initial draw, and the tie bytes, Fisher-Yates swaps and initial facts are words of counter-based
SplitMix64 streams under those keys (:mod:`ifworld.beliefs.streams`), which the kernel computes where
it uses them instead of reading arrays drawn in numpy. So a seed gives identical results with or
without it; the tests compare the two per seed across rules, strategies, liars, noise and topologies.
The top-``bandwidth`` keys are kept by a branch-free insertion (max/min per slot), which yields the
same distinct keys in the same order as the engine's repeated column maxima. The kernel also pairs
agents, counts STOP votes and sums the default confidence for acceptance (whose comparisons closer
than 1e-9 are decided exactly, so summation order cannot change what is accepted).

numba is an optional extra (``pip install 'ifworld[fast]'``). The engine uses the kernel when numba
imports and the configuration is supported (:func:`supported`), unless ``IFWORLD_BELIEFS_KERNEL=numpy``;
``IFWORLD_BELIEFS_KERNEL=numba`` insists on it (a clear error when numba is missing). The first call
in a fresh environment compiles (seconds); ``cache=True`` keeps the machine code on disk afterwards.
"""

from __future__ import annotations

import os
from math import gcd
from typing import Any

import numpy as np

from ifworld.beliefs import rules, streams
from ifworld.beliefs.config import BOUNDED_SCALE, EVIDENCE_UNIT, STOP_CONFIDENCE_PCT
from ifworld.errors import ConfigError, SimulationError

_G, _M1, _M2 = np.uint64(streams.GOLDEN), np.uint64(streams.MIX1), np.uint64(streams.MIX2)
_S30, _S27, _S31, _S32 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(32)
_LOADED: dict[str, Any] = {}  # numba module (or None) and the compiled block, on first use

KERNEL_ENV = "IFWORLD_BELIEFS_KERNEL"
CHOICES = ("auto", "numba", "numpy")
CHUNK = 512  # about this many columns (whole runs) per chunk: its beliefs and keys stay in L1 cache
KERNEL_RULES = {0: "counts, +1 per copy", 1: "tenths, ±0.1 mirrored and clipped", 2: "evidence counts ranked by "
                "log-odds margin", 3: "1/16 evidence units discounted each round"}
"""The rule arithmetics compiled into the block (its ``rid`` branches). A rule's spec names one in ``kernel``
(:class:`ifworld.beliefs.rules.RuleSpec`) when its arithmetic is exactly that one; any other rule runs on the
numpy path."""
MAX_FACTS = 256  # one tie-break byte per (fact, column): the engine's 8-bit key layout
BOUNDED_TOP = BOUNDED_SCALE  # bounded beliefs are clipped to 0..BOUNDED_SCALE


def wanted() -> bool:
    """Whether this call should use the kernel (environment switch, numba importable)."""
    choice = os.environ.get(KERNEL_ENV, "auto").strip().lower() or "auto"
    if choice not in CHOICES:
        raise ConfigError(f"{KERNEL_ENV} must be one of {', '.join(CHOICES)}; got {choice!r}")
    if choice == "numpy":
        return False
    if choice == "numba" and load_numba() is None:
        raise SimulationError(f"{KERNEL_ENV}=numba but numba is not installed: pip install 'ifworld[fast]'")
    return load_numba() is not None


def load_numba() -> Any:
    """The numba module, or None when it is not installed (imported on first use: ~0.3 s)."""
    if "numba" not in _LOADED:
        try:
            import numba

            _LOADED["numba"] = numba
        except ImportError:
            _LOADED["numba"] = None
    return _LOADED["numba"]


def compiled(name: str = "block") -> Any:
    """A compiled function (block, perm, mean, hold or count; numba's disk cache spares later processes
    the compiling)."""
    if name not in _LOADED:
        _LOADED[name] = load_numba().njit(cache=True, nogil=True)(_COMPILED[name])
    return _LOADED[name]


def permutations(stream_key: int, runs: int, agents: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`ifworld.beliefs.streams.permutations`, compiled (same permutations, bit for bit), and
    the partner columns of pairing them (0, 1), (2, 3), ... as the engine's ``pair_columns``."""
    out = np.empty((runs, agents), dtype=np.int64)
    partners = np.empty(runs * agents, dtype=np.int64)
    compiled("perm")(np.uint64(stream_key), out, partners)
    return out, partners


def hold_draws(held: np.ndarray, pool: np.ndarray, m: int, stream_key: int) -> None:
    """Mark ``pool[streams.below(stream_key, columns * m, len(pool))]`` held, column by column, in place."""
    compiled("hold")(held, np.ascontiguousarray(pool, dtype=np.int64), m, np.uint64(stream_key))


def _hold_py(held, pool, m, stream_key):  # pragma: no cover - compiled by numba
    cols, bound = held.shape[1], np.uint64(len(pool))
    for c in range(cols):
        for i in range(m):
            z = stream_key + np.uint64(c * m + i + 1) * _G  # SplitMix64, as streams.words
            z = (z ^ (z >> _S30)) * _M1
            z = (z ^ (z >> _S27)) * _M2
            z ^= z >> _S31
            held[pool[np.int64(((z >> _S32) * bound) >> _S32)], c] = True


def vote_counts(votes: np.ndarray, agents: int) -> np.ndarray:
    """(runs,) int64 STOP votes per run of (runs x agents,) bool votes."""
    out = np.empty(len(votes) // agents, dtype=np.int64)
    compiled("count")(votes, agents, out)
    return out


def _count_py(votes, agents, out):  # pragma: no cover - compiled by numba
    for r in range(len(out)):
        t = 0
        for c in range(r * agents, (r + 1) * agents):
            t += votes[c]
        out[r] = t


def mean_confidence(beliefs: np.ndarray, agents: int) -> np.ndarray:
    """(runs, facts) float64 population mean of b_f / (b_f + b_¬f) from facts-major beliefs (F, columns)
    (:func:`ifworld.beliefs.metrics.mean_confidence` with the default confidence; sums may round
    differently, which acceptance tolerates: it re-decides comparisons closer than 1e-9 exactly)."""
    out = np.empty((beliefs.shape[1] // agents, beliefs.shape[0]), dtype=np.float64)
    compiled("mean")(beliefs, agents, out)
    return out


def _mean_py(beliefs, agents, out):  # pragma: no cover - compiled by numba
    runs, facts = out.shape
    for k in range(0, facts, 2):
        one, other = beliefs[k], beliefs[k + 1]
        for r in range(runs):
            s0 = 0.0
            s1 = 0.0
            for c in range(r * agents, (r + 1) * agents):
                a, b = np.float64(one[c]), np.float64(other[c])
                t = a + b
                if t > 0:
                    s0 += a / t
                    s1 += b / t
            out[r, k] = s0 / agents
            out[r, k + 1] = s1 / agents


def _perm_py(stream_key, out, partners):  # pragma: no cover - compiled by numba
    runs, agents = out.shape
    cols = runs * agents
    for r in range(runs):
        row = out[r]
        for i in range(agents):
            row[i] = i
        for i in range(agents - 1, 0, -1):
            z = stream_key + np.uint64(r * agents + i + 1) * _G  # SplitMix64, as streams.words
            z = (z ^ (z >> _S30)) * _M1
            z = (z ^ (z >> _S27)) * _M2
            z ^= z >> _S31
            j = np.int64(((z >> _S32) * np.uint64(i + 1)) >> _S32)
            here = row[i]
            row[i] = row[j]
            row[j] = here
        base = r * agents
        for i in range(0, agents - 1, 2):
            partners[base + row[i]] = base + row[i + 1]
            partners[base + row[i + 1]] = base + row[i]
        if agents % 2:
            partners[base + row[agents - 1]] = cols


def kernel_id(rule: Any) -> int | None:
    """The compiled rule id of ``rule``: its spec's ``kernel``, for an object of the spec's own class (a wrapped
    or subclassed rule has other arithmetic), else None."""
    spec = rules.REGISTRY.get(rule.name) if getattr(rule, "name", None) in rules.REGISTRY else None
    if spec is None or spec.kernel not in KERNEL_RULES or type(rule) is not type(spec.rule):
        return None
    return spec.kernel


def supported(rule: Any, facts: int, dtype: np.dtype) -> bool:
    """The kernel covers rules whose spec declares a compiled rule id, with 8-bit tie keys and int8/int16
    beliefs."""
    dtype = np.dtype(dtype)
    return (kernel_id(rule) is not None and facts <= MAX_FACTS
            and np.issubdtype(dtype, np.integer) and dtype.itemsize <= 2)


def rule_params(rule: Any) -> tuple[int, int, int, int, int]:
    """(rule id, discount shift, sure a, sure c, bayes sure margin) as plain ints for the kernel."""
    g = gcd(100 - STOP_CONFIDENCE_PCT, STOP_CONFIDENCE_PCT)
    shift = getattr(rule, "shift", 0)
    margin = getattr(rule, "sure_margin", 0)
    rid = kernel_id(rule)
    if rid is None:
        raise SimulationError(f"rule {rule.name!r} has no compiled kernel (its spec's kernel is None)")
    return rid, shift, (100 - STOP_CONFIDENCE_PCT) // g, STOP_CONFIDENCE_PCT // g, margin


def play_block(
    beliefs: np.ndarray, start: int, n: int, tie_key: int, partners: np.ndarray, liars: np.ndarray,
    noise_draws: np.ndarray, noise: float, rule: Any, highest: bool, sent: np.ndarray, votes: np.ndarray,
    agents: int,
) -> None:
    """One block of whole runs (columns ``start .. start + n``): select, distort, deliver, vote; the tie
    byte of (fact f, block column j) is byte f * n + j of the stream ``tie_key``; ``sent`` (bandwidth,
    columns) and ``votes`` (columns,) are whole-round arrays."""
    rid, shift, sure_a, sure_c, margin = rule_params(rule)
    compiled()(beliefs, start, n, np.uint64(tie_key), partners, liars, noise_draws, noise, rid, shift, sure_a, sure_c,
               margin, int(rule.believe_min), highest, sent, votes, max(1, CHUNK // agents) * agents)


def _block_py(beliefs, start, n, tie_key, partners, liars, noise_draws, noise, rid, shift, sure_a, sure_c, margin,
              believe_min, highest, sent, votes, chunk):  # pragma: no cover - compiled by numba
    facts = beliefs.shape[0] - 2
    slots = sent.shape[0]
    wbuf = np.empty(chunk // 8 + 2, dtype=np.uint64)  # a chunk's tie words, read as bytes
    total = partners.shape[0]
    positive = np.zeros((slots, chunk), dtype=np.bool_)  # bounded: the sender is more sure of its pick
    floor = np.int32((believe_min if highest else 1) << 16)
    low_byte = np.int32(255)
    tops = np.empty((slots, chunk), dtype=np.int32)
    t0, t1, t2 = np.empty(chunk, np.int32), np.empty(chunk, np.int32), np.empty(chunk, np.int32)  # no aliasing
    key = np.empty(chunk, dtype=np.int32)
    sure = np.empty(chunk, dtype=np.bool_)
    changed = np.empty(chunk, dtype=np.bool_)
    before = np.empty((slots, 2), dtype=np.int32)
    got = np.empty(slots, dtype=np.int64)
    step = np.empty(slots, dtype=np.int64)
    for j0 in range(0, n, chunk):  # whole runs per chunk, so partners are in the chunk
        m = min(n, j0 + chunk) - j0
        c0 = start + j0
        tops[:, :m] = -1
        t0[:m] = -1
        t1[:m] = -1
        t2[:m] = -1
        for f in range(facts):
            fi = np.int32(f)
            row = beliefs[f, c0:c0 + m]
            lo = f * n + j0
            first = lo >> 3
            for q in range(((lo + m - 1) >> 3) - first + 1):
                z = tie_key + np.uint64(first + q + 1) * _G  # SplitMix64, as streams.words
                z = (z ^ (z >> _S30)) * _M1
                z = (z ^ (z >> _S27)) * _M2
                wbuf[q] = z ^ (z >> _S31)
            tie = wbuf.view(np.uint8)[lo - first * 8:lo - first * 8 + m]
            if rid != 2 and highest:  # the paper's case in one pass: key straight from the belief
                for jj in range(m):
                    r = np.int32(tie[jj])
                    key[jj] = (np.int32(row[jj]) << np.int32(16)) | (r << np.int32(8)) | (fi ^ r)
            else:
                for jj in range(m):
                    key[jj] = np.int32(row[jj])
                if rid == 2:  # bayes ranks by the log-odds margin where positive
                    neg = beliefs[f ^ 1, c0:c0 + m]
                    for jj in range(m):
                        key[jj] = max(key[jj] - np.int32(neg[jj]), np.int32(0))
                if not highest:
                    for jj in range(m):
                        key[jj] = np.int32(1) if key[jj] >= believe_min else np.int32(0)
                for jj in range(m):
                    r = np.int32(tie[jj])
                    key[jj] = (key[jj] << np.int32(16)) | (r << np.int32(8)) | (fi ^ r)
            if slots == 3:  # the paper's bandwidth: three slots in registers, one pass
                for jj in range(m):
                    k = key[jj]
                    a = t0[jj]
                    t0[jj] = max(a, k)
                    k = min(a, k)
                    a = t1[jj]
                    t1[jj] = max(a, k)
                    k = min(a, k)
                    t2[jj] = max(t2[jj], k)
            else:
                for c in range(slots):
                    for jj in range(m):
                        t = tops[c, jj]
                        k = key[jj]
                        tops[c, jj] = max(t, k)
                        key[jj] = min(t, k)
        if slots == 3:
            tops[0, :m] = t0[:m]
            tops[1, :m] = t1[:m]
            tops[2, :m] = t2[:m]
        for c in range(slots):  # the key's low bits name the fact; below the floor: "no fact" (F)
            picks, top = sent[c, c0:c0 + m], tops[c]
            for jj in range(m):
                t = top[jj]
                picks[jj] = ((t >> np.int32(8)) ^ t) & low_byte if t >= floor else np.int32(facts)
            if rid == 1:
                for jj in range(m):
                    positive[c, jj] = beliefs[picks[jj], c0 + jj] > beliefs[picks[jj] ^ 1, c0 + jj]
            for jj in range(m):  # liars negate every pick, noise flips each sent fact
                picks[jj] ^= np.int32(liars[c0 + jj])
            if noise > 0:
                for jj in range(m):
                    picks[jj] ^= np.int32(noise_draws[c, j0 + jj] < noise)
        # phase 2: deliver, apply the rule, vote (phase 1 above: select, confidence, distort)
        if rid == 3:  # discounted: old evidence fades before the partner's reports
            for f in range(facts):
                row = beliefs[f, c0:c0 + m]
                for jj in range(m):
                    row[jj] -= row[jj] >> shift
        for jj in range(m):
            col = c0 + jj
            p = partners[col]
            src = p - start if p < total else -1
            moved = False
            if rid == 1:  # sum the round's reports on p and its negation, then clip (as BoundedRule)
                for c in range(slots):
                    g = sent[c, start + src] if src >= 0 else facts
                    got[c] = g
                    step[c] = 1 if src >= 0 and positive[c, src - j0] else -1
                    before[c, 0] = beliefs[g, col]
                    before[c, 1] = beliefs[g ^ 1, col]
                for c in range(slots):
                    g = got[c]
                    beliefs[g, col] += step[c]
                    beliefs[g ^ 1, col] -= step[c]
                for c in range(slots):
                    g = got[c]
                    after0 = min(max(beliefs[g, col], 0), BOUNDED_TOP)
                    after1 = min(max(beliefs[g ^ 1, col], 0), BOUNDED_TOP)
                    beliefs[g, col] = after0
                    beliefs[g ^ 1, col] = after1
                    if g < facts and (after0 != before[c, 0] or after1 != before[c, 1]):
                        moved = True
            changed[jj] = moved
        if rid != 1:  # each slot's report of the partner (sent[c, p]) lands on this column
            add = EVIDENCE_UNIT if rid == 3 else 1
            for c in range(slots):
                srow = sent[c]
                for jj in range(m):
                    col = c0 + jj
                    p = partners[col]
                    g = srow[p] if p < total else facts
                    beliefs[g, col] += add
                    changed[jj] |= g < facts
        sure[:m] = True
        for k in range(0, facts, 2):
            one, other = beliefs[k, c0:c0 + m], beliefs[k + 1, c0:c0 + m]
            for jj in range(m):
                a, b = np.int32(one[jj]), np.int32(other[jj])
                if rid == 2:
                    ok = abs(a - b) >= margin
                else:
                    high = max(a, b)
                    ok = (high > 0) & (sure_a * high >= sure_c * min(a, b))
                sure[jj] &= ok
        for jj in range(m):
            votes[c0 + jj] = sure[jj] | ~changed[jj]


_COMPILED = {"block": _block_py, "perm": _perm_py, "mean": _mean_py, "hold": _hold_py, "count": _count_py}
