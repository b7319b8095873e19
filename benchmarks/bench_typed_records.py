"""What validating a what-if record once at the edge costs, beside the work done on it.

A synthetic record of 4 rounds × 6 experts × 10 causal edges (240 edges, full expert outputs) is validated
into a ``WhatIfRecord`` and its causal graph built; an RWS benchmark record (the stored 16-task test record
repeated to 320 tasks, role traces included) is validated into a ``BenchmarkRecord`` beside building its two
tables and Markdown export; an LLM belief record is validated beside rebuilding its animation recording.
Figures are best-of-5 means, measured side by side.
"""

from __future__ import annotations

import copy
import json
import random
import sys
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ifworld.whatif import (
    causal,  # noqa: E402
    compare,  # noqa: E402
    steps,  # noqa: E402
)
from ifworld.whatif.records import load_record  # noqa: E402
from tests.whatif.records import sample_record  # noqa: E402

TASK_COPIES = 20  # 16 stored tasks × 20 = 320 (item, pattern, model) tasks

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
               "record replay steps from the typed record": ms(lambda: steps.record_steps(typed))}
    for name, value in figures.items():
        print(f"{name:42s} {value:7.2f} ms")
    share = figures["validate (load_record)"] / (figures["validate (load_record)"]
                                                 + figures["causal graph from the typed record"])
    print(f"validation share of a causal map built from a stored record: {share:.0%}")
    rws = rws_figures()
    beliefs = belief_figures()
    print("SUMMARY " + json.dumps({"record validation ms (240 edges)": round(figures["validate (load_record)"], 2),
                                   "validation share of causal map": round(share, 2),
                                   "RWS record validation ms (320 tasks)": round(rws["validate"], 2),
                                   "RWS tables + markdown ms": round(rws["render"], 2),
                                   "belief record validation ms": round(beliefs["validate"], 3),
                                   "belief recording rebuild ms": round(beliefs["rebuild"], 3)}))


def rws_figures() -> dict[str, float]:
    from ifworld.rws import benchmark
    from ifworld.rws.records import load_benchmark_record
    from tests.rws.bench_records import run_record

    raw = run_record()
    raw["results"] = [{**r, "item_id": f"{r['item_id']}#{i}"} for i in range(TASK_COPIES) for r in raw["results"]]
    typed = load_benchmark_record(raw)
    out = {"validate": ms(lambda: load_benchmark_record(raw)),
           "render": ms(lambda: (benchmark.table1(typed), benchmark.table2(typed), benchmark.markdown(typed)))}
    print(f"{'RWS: validate 320 tasks':42s} {out['validate']:7.2f} ms")
    print(f"{'RWS: table 1 + table 2 + markdown (typed)':42s} {out['render']:7.2f} ms")
    return out


def belief_figures() -> dict[str, float]:
    from ifworld.beliefs.graph import recording_of
    from ifworld.beliefs.records import load_belief_record
    from tests.beliefs.belief_records import llm_record

    raw = llm_record()
    typed = load_belief_record(raw)
    out = {"validate": ms(lambda: load_belief_record(raw)), "rebuild": ms(lambda: recording_of(typed))}
    print(f"{'beliefs: validate an LLM run record':42s} {out['validate']:7.3f} ms")
    print(f"{'beliefs: rebuild its animation recording':42s} {out['rebuild']:7.3f} ms")
    return out


if __name__ == "__main__":
    main()
