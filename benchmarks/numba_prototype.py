"""Prototype: the additive / highest_confidence heuristic as one numba-compiled kernel, to measure the
gain a compiled engine could bring before deciding whether to ship one (it is not part of the product).

Same rules as the engine (random perfect matching, C largest counts with random tie-breaks, liars,
STOP votes on "no change" or "every pair >= 80 % sure", collective acceptance on mean normalised
confidence) but its own random stream (numba's per-thread ``np.random``), so results agree in
distribution, not per seed. Runs in the benchmark venv (``pip install numba``); prints one JSON line.

    python numba_prototype.py --truth '[true, false, ...]' [--runs 20000]
"""

from __future__ import annotations

import argparse
import json
import time

import numba
import numpy as np


@numba.njit(cache=True)
def _run(truth, agents, m_true, m_false, bandwidth, rounds, stop_share, threshold, liars, seed, out):
    np.random.seed(seed)
    facts = truth.shape[0]
    pairs = facts // 2
    true_pool = np.flatnonzero(truth)
    false_pool = np.flatnonzero(~truth)
    runs = out.shape[0]
    b = np.zeros((agents, facts), np.int32)
    sent = np.full((agents, bandwidth), -1, np.int64)
    changed = np.zeros(agents, np.bool_)
    taken = np.zeros(facts, np.bool_)
    order = np.arange(agents)
    for r in range(runs):
        b[:] = 0
        for a in range(agents):
            for _ in range(m_true):
                b[a, true_pool[np.random.randint(0, pairs)]] = 1
            for _ in range(m_false):
                b[a, false_pool[np.random.randint(0, pairs)]] = 1
        liar = np.zeros(agents, np.bool_)
        liar[np.random.permutation(agents)[:int(round(liars * agents))]] = True
        used, conv = rounds, 0.0
        for t in range(1, rounds + 1):
            for a in range(agents):  # C passes of max; ties by reservoir sampling (random only on ties)
                taken[:] = False
                for c in range(bandwidth):
                    best, pick, ties = 0, -1, 0
                    for f in range(facts):
                        v = b[a, f]
                        if v <= 0 or taken[f]:
                            continue
                        if v > best:
                            best, pick, ties = v, f, 1
                        elif v == best:
                            ties += 1
                            if np.random.randint(0, ties) == 0:
                                pick = f
                    if pick >= 0:
                        taken[pick] = True
                        sent[a, c] = pick ^ 1 if liar[a] else pick
                    else:
                        sent[a, c] = -1
            np.random.shuffle(order)
            changed[:] = False
            for i in range(0, agents - 1, 2):
                x, y = order[i], order[i + 1]
                for c in range(bandwidth):
                    if sent[y, c] >= 0:
                        b[x, sent[y, c]] += 1
                        changed[x] = True
                    if sent[x, c] >= 0:
                        b[y, sent[x, c]] += 1
                        changed[y] = True
            votes = 0
            for a in range(agents):
                sure = True
                for k in range(pairs):
                    hi, lo = max(b[a, 2 * k], b[a, 2 * k + 1]), min(b[a, 2 * k], b[a, 2 * k + 1])
                    if hi == 0 or 20 * hi < 80 * lo:
                        sure = False
                        break
                if sure or not changed[a]:
                    votes += 1
            if votes >= stop_share * agents:
                used, conv = t, 1.0
                break
        tp, acc = 0, 0
        for k in range(pairs):
            m0, m1 = 0.0, 0.0
            for a in range(agents):
                s = b[a, 2 * k] + b[a, 2 * k + 1]
                if s > 0:
                    m0 += b[a, 2 * k] / s
                    m1 += b[a, 2 * k + 1] / s
            m0, m1 = m0 / agents, m1 / agents
            for j, m, o in ((0, m0, m1), (1, m1, m0)):
                if m > threshold and m > o:
                    acc += 1
                    tp += 1 if truth[2 * k + j] else 0
        p = tp / acc if acc else 1.0
        rc = tp / pairs
        out[r, 0], out[r, 1] = p, rc
        out[r, 2] = 2 * p * rc / (p + rc) if p + rc > 0 else 0.0
        out[r, 3], out[r, 4] = used, conv


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--truth", required=True)
    ap.add_argument("--runs", type=int, default=20_000)
    args = ap.parse_args()
    truth = np.array(json.loads(args.truth), dtype=np.bool_)
    out = np.zeros((100, 5))
    _run(truth, 20, 5, 3, 3, 20, 0.75, 0.5, 0.0, 0, out)  # compile (cached)
    best = 0.0
    for rep in range(3):
        out = np.zeros((args.runs, 5))
        start = time.perf_counter()
        _run(truth, 20, 5, 3, 3, 20, 0.75, 0.5, 0.0, rep + 1, out)
        best = max(best, args.runs / (time.perf_counter() - start))
    print(json.dumps({"runs_per_s": best, "f1": float(out[:, 2].mean()), "precision": float(out[:, 0].mean()),
                      "recall": float(out[:, 1].mean()), "numba": numba.__version__}))


if __name__ == "__main__":
    main()
