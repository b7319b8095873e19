"""Counter-based random words shared by the numpy engine and the compiled kernel.

Word i of a stream keyed by k is SplitMix64's output for state ``k + (i + 1) * GOLDEN`` (Steele,
Lea & Flood 2014; the generator of Java's SplittableRandom, passes BigCrush). Being a pure function
of (key, index), it can be computed where it is used: vectorised here, one word at a time in the
kernel, with identical bits. Keys come from the run's ``numpy.random.Generator`` (one draw per
round or block), so a seed still fixes everything.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import DTypeLike

GOLDEN = 0x9E3779B97F4A7C15
MIX1 = 0xBF58476D1CE4E5B9
MIX2 = 0x94D049BB133111EB
_G, _M1, _M2 = np.uint64(GOLDEN), np.uint64(MIX1), np.uint64(MIX2)
_S30, _S27, _S31, _S32 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(32)


def words(key: int, count: int, first: int = 0) -> np.ndarray:
    """(count,) uint64: words ``first .. first + count`` of the stream keyed by ``key``."""
    z = np.arange(first + 1, first + count + 1, dtype=np.uint64)
    z *= _G
    z += np.uint64(key)
    z ^= z >> _S30
    z *= _M1
    z ^= z >> _S27
    z *= _M2
    z ^= z >> _S31
    return z


def key(rng: np.random.Generator) -> int:
    """A fresh stream key from the generator (one raw 64-bit draw)."""
    return int(rng.bit_generator.random_raw())


def permutations(stream_key: int, runs: int, agents: int) -> np.ndarray:
    """(runs, agents) int64 uniformly random permutation per run: Fisher-Yates, step i of run r
    swapping position i with j = floor(u * (i + 1) / 2^32), u the high 32 bits of word r * agents + i
    (bias below (i + 1) / 2^32). Vectorised over runs; the kernel does the same per run."""
    perm = np.tile(np.arange(agents, dtype=np.int64), (runs, 1))
    if agents < 2:
        return perm
    w = words(stream_key, runs * agents).reshape(runs, agents)
    w >>= _S32
    rows = np.arange(runs)
    for i in range(agents - 1, 0, -1):
        j = ((w[:, i] * np.uint64(i + 1)) >> _S32).astype(np.int64)
        here = perm[:, i].copy()
        perm[:, i] = perm[rows, j]
        perm[rows, j] = here
    return perm


def units(stream_key: int, start: int, count: int, dtype: DTypeLike = np.uint8) -> np.ndarray:
    """(count,) ``dtype`` units ``start ..`` of the stream read as little-endian bytes (uint8: 8 per word)."""
    per = 8 // np.dtype(dtype).itemsize
    first, last = start // per, (start + count - 1) // per
    raw = words(stream_key, last - first + 1, first)
    off = start - first * per
    return raw.view("<u8").view(dtype)[off:off + count]


def below(stream_key: int, count: int, bound: int) -> np.ndarray:
    """(count,) int64 uniform integers in [0, bound): word i's high 32 bits scaled, ``(u * bound) >> 32``
    (bias below bound / 2^32; the kernel computes the same)."""
    u = words(stream_key, count)
    u >>= _S32
    u *= np.uint64(bound)
    u >>= _S32
    return u.astype(np.int64)
