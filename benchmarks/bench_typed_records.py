"""What validating a what-if record once at the edge costs, beside the work done on it.

A synthetic record of 4 rounds × 6 experts × 10 causal edges (240 edges, full expert outputs) is validated
into a ``WhatIfRecord`` and its causal graph built; figures are best-of-5 means, measured side by side.
"""

from __future__ import annotations

import copy
import json
import random
import sys
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ifworld import compare  # noqa: E402
from ifworld.whatif import causal  # noqa: E402
from ifworld.whatif.models import load_record  # noqa: E402
from tests.whatif_causal.records import sample_record  # noqa: E402

ROUNDS, EXPERTS, EDGES, NUMBER = 4, 6, 10, 50


def big_record() -> dict:
    rng = random.Random(0)
    rec = sample_record()
    template = rec["rounds"][0]["experts"]["geophysics"]
    rounds = []
    for r in range(ROUNDS):
        experts = {}
        for e in range(EXPERTS):
            out = copy.deepcopy(template)
            out["key_causal_edges"] = [{"source": f"n{rng.randrange(30)}", "target": f"n{rng.randrange(30)}",
                                        "sign": rng.choice("+-"), "strength": rng.randint(1, 3),
                                        "domains": [f"d{e}"], "mechanism": "m"} for _ in range(EDGES)]
            experts[f"d{e}"] = out
        rounds.append({"round": r + 1, "experts": experts, "failed": {}, "frame": rec["rounds"][0]["frame"]})
    return {**rec, "rounds": rounds}


def ms(fn) -> float:  # noqa: ANN001
    return min(timeit.repeat(fn, number=NUMBER, repeat=5)) / NUMBER * 1000


def main() -> None:
    raw = big_record()
    typed = load_record(raw)
    figures = {"validate (load_record)": ms(lambda: load_record(raw)),
               "causal graph from the typed record": ms(lambda: causal.build_causal_graph(typed)),
               "report sections from the typed record": ms(lambda: compare.report_sections(typed)),
               "record replay steps from the typed record": ms(lambda: compare.record_steps(typed))}
    for name, value in figures.items():
        print(f"{name:42s} {value:7.2f} ms")
    share = figures["validate (load_record)"] / (figures["validate (load_record)"]
                                                 + figures["causal graph from the typed record"])
    print(f"validation share of a causal map built from a stored record: {share:.0%}")
    print("SUMMARY " + json.dumps({"record validation ms (240 edges)": round(figures["validate (load_record)"], 2),
                                   "validation share of causal map": round(share, 2)}))


if __name__ == "__main__":
    main()
