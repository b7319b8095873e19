"""Sharing: which facts each agent passes on in a round, and how sure it is of them (facts-major arrays).

Split from :mod:`ifworld.beliefs.engine` (which calls these every round): selection builds one integer key
per (fact, agent) from the rule's rank and a random tie byte and takes column maxima, per cache-sized block.
The compiled kernel (:mod:`ifworld.beliefs.kernel`) makes the same picks from the same random streams.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from ifworld.beliefs import streams
from ifworld.beliefs.rules import flat_index

KEY_CELLS = 1 << 19  # cells per selection / delivery / vote block (2 MB int32 keys; measured best)
TIE_BITS = 8  # random tie-breaker bits per (agent, fact) and round (16 when F > 256)


class Buffers:
    """Scratch arrays reused across blocks and rounds (fresh multi-MB arrays cost page faults)."""

    def __init__(self) -> None:
        self._arrays: dict[str, np.ndarray] = {}

    def get(self, name: str, size: int, dtype: DTypeLike) -> np.ndarray:
        """A 1-D array of ``size`` elements of ``dtype``; contents undefined."""
        arr = self._arrays.get(name)
        if arr is None or arr.size < size or arr.dtype != dtype:
            arr = self._arrays[name] = np.empty(size, dtype=dtype)
        return arr[:size]


def select_facts_major(
    beliefs: np.ndarray, believe_min: int, strategy: str, bandwidth: int, rng: np.random.Generator,
    out: np.ndarray | None = None, buffers: Buffers | None = None, rank: Any = None,
) -> np.ndarray:
    """(bandwidth, columns) int32 facts each column shares, F (= no fact) past its knowledge base.

    ``beliefs`` is (F, columns), any strides. Per block the key of (fact f, column) is
    ``rank << 2w | r << w | (f ^ r)`` with r a fresh w-bit random number (w = 8, or 16 when F > 256):
    r orders equal ranks at random, and when two r collide, ``f ^ r`` orders them either way with
    probability 1/2. Each pick is a column maximum; ``(key ^ key >> w) & (2^w - 1)`` names its fact.
    ``rank(block)``, when given, maps belief values to what is ranked (a rule's ``rank`` hook).
    """
    facts, cols = beliefs.shape
    w = TIE_BITS if facts <= 1 << TIE_BITS else 2 * TIE_BITS
    rank_bits = 1 if strategy != "highest_confidence" else 8 * beliefs.dtype.itemsize - 1
    kdt = np.int32 if rank_bits + 2 * w <= 31 else np.int64
    floor = (believe_min if strategy == "highest_confidence" else 1) << 2 * w
    width = min(cols, max(1, KEY_CELLS // facts))
    buffers = buffers if buffers is not None else Buffers()
    key_buf, tie_buf = buffers.get("key", facts * width, kdt), buffers.get("tie", facts * width, kdt)
    idx = np.arange(facts, dtype=kdt)[:, None]
    rdt = np.uint8 if w == TIE_BITS else np.uint16
    out = out if out is not None else np.empty((bandwidth, cols), dtype=np.int32)
    stream_key = streams.key(rng)  # tie unit of (fact f, column c): unit f * cols + c of this stream
    for s in range(0, cols, width):
        n = min(width, cols - s)
        key, tie = key_buf[:facts * n].reshape(facts, n), tie_buf[:facts * n].reshape(facts, n)
        block = beliefs[:, s:s + n] if rank is None else rank(beliefs[:, s:s + n])
        key[...] = block if strategy == "highest_confidence" else block >= believe_min
        key <<= 2 * w
        if n == cols:
            tie[...] = streams.units(stream_key, 0, facts * n, rdt).reshape(facts, n)
        else:
            for f in range(facts):
                tie[f] = streams.units(stream_key, f * cols + s, n, rdt)
        tie *= (1 << w) + 1  # r << w | r
        key |= tie
        key ^= idx
        _top_picks(key, out[:, s:s + n], facts, floor, w)
    return out


def _top_picks(key: np.ndarray, out: np.ndarray, facts: int, floor: int, w: int) -> None:
    """Write the ``len(out)`` largest keys' fact ids per column (F below ``floor``); clobbers key."""
    flat, n, low = key.reshape(-1), key.shape[1], (1 << w) - 1
    picks = min(len(out), facts)
    tops = np.empty((picks, n), dtype=key.dtype)
    col = np.arange(n, dtype=key.dtype)
    spot = np.empty(n, dtype=key.dtype)
    for c in range(picks):
        key.max(axis=0, out=tops[c])
        if c + 1 < picks:  # knock the pick out: its flat index is fact * n + column
            np.right_shift(tops[c], w, out=spot)
            spot ^= tops[c]
            spot &= low
            spot *= n
            spot += col
            flat[spot] = -1
    fact = tops >> w
    fact ^= tops
    fact &= low
    out[:picks] = np.where(tops >= floor, fact, facts)
    out[picks:] = facts


def confidence_facts_major(beliefs: np.ndarray, sent: np.ndarray, start: int = 0) -> np.ndarray:
    """(slots, n) float32 normalised confidence of columns ``start ..`` in their picks (0 for no fact).

    ``beliefs`` is the whole C-contiguous facts-major array (flat gathers beat 2-D fancy indexing)."""
    flat, cols = beliefs.reshape(-1), np.arange(start, start + sent.shape[1], dtype=np.intp)
    mine = flat[flat_index(beliefs, sent, cols)].astype(np.float32)
    total = mine + flat[flat_index(beliefs, sent ^ 1, cols)]
    total[~(total > 0)] = np.inf  # x / inf = 0: nothing sent, or a pair never heard of
    mine /= total
    return mine
