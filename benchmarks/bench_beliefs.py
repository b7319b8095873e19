"""Belief-exchange benchmarks: runs/s (vectorised vs per-agent reference vs Mesa) and one large run.

Prints measured figures; targets: >= 20,000 runs/s, >= 50x the reference and >= 200x a Mesa 3
model of the same heuristic (stop votes included, ``mesa_beliefs.py``) at paper defaults; N=100,000,
K=100, 20 rounds in seconds with peak memory ~2x the belief array. The machine is shared, so the
engine, the reference and Mesa are timed side by side in each of REPEATS repeats and the best of
each is kept (ratio = best / best; the per-repeat ratios are printed too). Mesa lives only in the
benchmark's own virtual environment (MESA_VENV, created on first use with ``pip install mesa``).
With numba installed (the ``fast`` extra) the engine is timed both on its numpy path and with the
compiled kernel (IFWORLD_BELIEFS_KERNEL switches), alternating. ``python bench_beliefs.py mesa jit``
runs only the named parts (rate, mesa, scale, jit).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
import venv
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from reference_per_agent import simulate_reference  # noqa: E402

from ifworld.beliefs.config import BeliefConfig  # noqa: E402
from ifworld.beliefs.engine import simulate  # noqa: E402
from ifworld.beliefs.rules import SCRATCH_ROWS, get_rule  # noqa: E402

VECTOR_RUNS = 10_000
REFERENCE_RUNS = 300
MESA_RUNS = 300
MESA_SPEC = "mesa>=3.3,<3.4"
MESA_VENV = Path(os.environ.get("IFWORLD_MESA_VENV", Path.home() / ".cache" / "ifworld-bench" / "mesa-venv"))
HERE = Path(__file__).resolve().parent
KERNEL_ENV = "IFWORLD_BELIEFS_KERNEL"
REPEATS = 3
SCALE = BeliefConfig(agents=100_000, facts=100, rounds=20, domain="abstract")
MB = 1e6


def _rate(fn, runs: int) -> float:
    start = time.perf_counter()
    fn()
    return runs / (time.perf_counter() - start)


def mesa_python() -> Path:
    """The benchmark venv's interpreter, with Mesa installed there (never in the product's env)."""
    py = MESA_VENV / "bin" / "python"
    if not py.exists():
        venv.create(MESA_VENV, with_pip=True)
    check = subprocess.run([py, "-c", "import mesa"], capture_output=True)
    if check.returncode:
        subprocess.run([py, "-m", "pip", "install", "--quiet", MESA_SPEC], check=True)
    return py


def mesa_rate(py: Path, cfg: BeliefConfig, seed: int, runs: int = MESA_RUNS) -> dict:
    """runs/s and mean scores of the Mesa model (timed inside its own process, start-up excluded)."""
    from ifworld.beliefs.domain import build_domain

    truth = json.dumps([bool(t) for t in build_domain(cfg).truth])
    out = subprocess.run([py, str(HERE / "mesa_beliefs.py"), "--runs", str(runs), "--truth", truth,
                          "--rule", cfg.rule, "--seed", str(seed)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def _engine_rate(cfg: BeliefConfig, seed: int, kernel: str) -> float:
    os.environ[KERNEL_ENV] = kernel
    return _rate(lambda: simulate(cfg, seed=seed, runs=VECTOR_RUNS), VECTOR_RUNS)


def mesa_side_by_side() -> None:
    """Engine (numpy path, and the numba kernel when installed) vs Mesa at paper defaults (both
    rules), best of REPEATS, plus agreement of mean F1."""
    py = mesa_python()
    kernels = ("numpy", "numba") if kernel_available() else ("numpy",)
    summary = {}
    for rule in ("additive", "bounded"):
        cfg = BeliefConfig(rule=rule)
        for k in kernels:  # warm-up (and numba's compilation or its disk cache)
            os.environ[KERNEL_ENV] = k
            simulate(cfg, seed=0, runs=200)
        vec, mes, f1 = {k: [] for k in kernels}, [], {}
        for rep in range(REPEATS):
            for k in kernels:
                vec[k].append(_engine_rate(cfg, 1 + rep, k))
            m = mesa_rate(py, cfg, seed=1 + rep)
            mes.append(m["runs_per_s"])
            f1 = {"mesa": m["f1"], "engine": float(simulate(cfg, seed=rep, runs=5000).f1.mean()), "mesa_v": m["mesa"]}
            engines = " | ".join(f"engine ({k}) {vec[k][-1]:,.0f} runs/s" for k in kernels)
            ratios = ", ".join(f"{vec[k][-1] / mes[-1]:,.0f}x" for k in kernels)
            print(f"  {rule} repeat {rep + 1}: {engines} | Mesa {mes[-1]:,.0f} runs/s | ratio {ratios}")
        for k in kernels:
            print(f"{rule}, paper defaults (best of {REPEATS}): engine ({k}) {max(vec[k]):,.0f} | Mesa {f1['mesa_v']} "
                  f"{max(mes):,.0f} runs/s | ratio {max(vec[k]) / max(mes):,.0f}x | mean F1 engine {f1['engine']:.3f} "
                  f"vs Mesa {f1['mesa']:.3f} ({MESA_RUNS} runs)")
            summary[f"engine ({k}) / Mesa ({rule})"] = round(max(vec[k]) / max(mes), 1)
        summary[f"Mesa runs/s ({rule})"] = round(max(mes))
    os.environ.pop(KERNEL_ENV, None)
    print(f"load average: {os.getloadavg()[0]:.2f}")
    print("SUMMARY " + json.dumps(summary))


def kernel_available() -> bool:
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def jit_cost() -> None:
    """First call of the numba kernel in a fresh process: compiling (no disk cache) vs loading the cache."""
    if not kernel_available():
        print("numba not installed: no compiled kernel")
        return
    code = ("import time, os; t = time.perf_counter(); from ifworld.beliefs.engine import simulate; "
            "from ifworld.beliefs.config import BeliefConfig; simulate(BeliefConfig(), seed=0, runs=20); "
            "print(round(time.perf_counter() - t, 2))")
    times = {}
    for label, cache in (("compile", tempfile.mkdtemp()), ("cached", None)):
        env = {**os.environ, KERNEL_ENV: "numba"}
        if cache:
            env["NUMBA_CACHE_DIR"] = cache
        times[label] = float(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                            check=True).stdout.split()[-1])
    env = {**os.environ, KERNEL_ENV: "numpy"}
    times["numpy"] = float(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                          check=True).stdout.split()[-1])
    print(f"first call in a fresh process (import + 20 runs): numba compiling {times['compile']} s, numba from its "
          f"disk cache {times['cached']} s, numpy path {times['numpy']} s")
    print("SUMMARY " + json.dumps({"kernel first call, compiling (s)": times["compile"],
                                   "kernel first call, cached (s)": times["cached"]}))


def runs_per_second() -> None:
    """Paper defaults: vectorised and reference runs/s side by side, best of REPEATS."""
    cfg = BeliefConfig()
    simulate(cfg, seed=0, runs=200)  # warm-up
    vec, ref = [], []
    for rep in range(REPEATS):
        vec.append(_rate(lambda rep=rep: simulate(cfg, seed=1 + rep, runs=VECTOR_RUNS), VECTOR_RUNS))
        ref.append(_rate(lambda rep=rep: simulate_reference(cfg, seed=1 + rep, runs=REFERENCE_RUNS), REFERENCE_RUNS))
        print(f"  repeat {rep + 1}: vectorised {vec[-1]:,.0f} runs/s | reference {ref[-1]:,.0f} runs/s"
              f" | ratio {vec[-1] / ref[-1]:,.0f}x")
    print(f"paper defaults (best of {REPEATS}): vectorised {max(vec):,.0f} runs/s | reference {max(ref):,.0f} runs/s"
          f" | ratio {max(vec) / max(ref):,.0f}x")
    print("SUMMARY " + json.dumps({"belief engine runs/s (paper defaults)": round(max(vec)),
                                   "per-agent reference runs/s": round(max(ref)),
                                   "engine / reference": round(max(vec) / max(ref), 1)}))


def scale_run() -> None:
    """N=100,000, K=100, 20 rounds: best time of REPEATS, then peak traced memory of one run."""
    cells = SCALE.agents * 2 * SCALE.facts
    int16_mb = cells * 2 / MB  # a (runs, agents, 2K) int16 belief array
    dtype = np.dtype(get_rule(SCALE.rule).dtype(SCALE.rounds, SCALE.bandwidth))
    working_mb = SCALE.agents * (2 * SCALE.facts + SCRATCH_ROWS) * dtype.itemsize / MB
    best = min(_rate(lambda: simulate(SCALE, seed=0, runs=1), 1) ** -1 for _ in range(REPEATS))
    tracemalloc.start()
    res = simulate(SCALE, seed=0, runs=1)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"scale N={SCALE.agents:,} K={SCALE.facts} rounds={int(res.rounds[0])}: {best:.2f} s (best of {REPEATS}), "
          f"peak {peak / MB:,.0f} MB = {peak / MB / working_mb:.1f}x the {dtype.name} working belief array "
          f"({working_mb:,.0f} MB), {peak / MB / int16_mb:.1f}x an int16 belief array ({int16_mb:,.0f} MB); "
          f"F1 {res.f1[0]:.3f}")
    print("SUMMARY " + json.dumps({"N=100,000 K=100 20-round run (s)": round(best, 2),
                                   "its peak memory / belief array": round(peak / MB / working_mb, 2)}))


if __name__ == "__main__":
    only = sys.argv[1:]  # e.g. "mesa" or "jit"; default: everything
    for name, fn in (("rate", runs_per_second), ("mesa", mesa_side_by_side), ("scale", scale_run), ("jit", jit_cost)):
        if not only or name in only:
            fn()
