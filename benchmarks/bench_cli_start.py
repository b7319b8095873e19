"""CLI cold start: seconds from launching ``python -m ifworld.cli …`` to its exit, for four commands.

Each command runs N times in a fresh process (best and median kept): ``--help`` (target 0.5 s) and a numeric
``rws check`` (target 1.5 s, grading worker start included) carry targets; ``whatif --help`` and a 10-run
``beliefs run`` are shown for reference. ``--before REV`` measures another revision side by side (a git
revision exported with ``git archive`` to a temporary directory, or the path of a checkout), alternating
the two per repeat so both see the same machine load. Beside wall time the CPU seconds of the process and
its children are shown (best run): on a shared, loaded machine they stay close to the wall time the same
start takes on an idle one, so PASS/FAIL is judged on wall time and repeated on CPU time when the load
average exceeds the core count. A figure, not a test: nothing here asserts.

    .venv/bin/python benchmarks/bench_cli_start.py [--repeats 5] [--before d7616fb]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMANDS: list[tuple[str, list[str], float | None]] = [
    ("ifworld --help", ["--help"], 0.5),
    ('ifworld rws check --type numeric "5 km" "5000 m"', ["rws", "check", "--type", "numeric", "5 km", "5000 m"],
     1.5),
    ("ifworld whatif --help", ["whatif", "--help"], None),
    ("ifworld beliefs run --runs 10 --json", ["beliefs", "run", "--runs", "10", "--json"], None),
]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_once(checkout: Path, args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one fresh ``python -m ifworld.cli ARGS`` importing the package from ``checkout``
    (CPU: the process and the children it waited for, e.g. the grading worker)."""
    cpu, start = _children_cpu(), time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "ifworld.cli", *args], cwd=checkout, capture_output=True,
                          env={**env, "PYTHONPATH": str(checkout)}, timeout=120)
    elapsed, cpu = time.perf_counter() - start, _children_cpu() - cpu
    if proc.returncode != 0:
        raise RuntimeError(f"{args} exited {proc.returncode} in {checkout}: {proc.stderr.decode()[-500:]}")
    return elapsed, cpu


def export_revision(rev: str, into: Path) -> Path:
    """A plain copy of the repository at ``rev`` (``git archive``: no worktree, nothing left registered)."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", rev], check=True,
                             capture_output=True).stdout
    tar_path = into / "rev.tar"
    tar_path.write_bytes(archive)
    with tarfile.open(tar_path) as tar:
        tar.extractall(into / "src", filter="data")
    return into / "src"


Times = dict[str, dict[str, list[tuple[float, float]]]]


def measure(checkouts: dict[str, Path], repeats: int) -> Times:
    """{label: {command: [(wall, CPU) seconds, …]}}, the checkouts alternating within each repeat."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("IFWORLD_")}  # no model, no store of yours
    times: Times = {label: {name: [] for name, _, _ in COMMANDS} for label in checkouts}
    with tempfile.TemporaryDirectory() as home:
        env["IFWORLD_DB"] = str(Path(home) / "runs.sqlite")
        for checkout in checkouts.values():  # one untimed pass: bytecode compiled, files in the page cache
            for _, args, _ in COMMANDS:
                time_once(checkout, args, env)
        for _ in range(repeats):
            for name, args, _ in COMMANDS:
                for label, checkout in checkouts.items():
                    times[label][name].append(time_once(checkout, args, env))
    return times


def _verdict(seconds: float, target: float | None) -> str:
    return "—" if target is None else ("PASS" if seconds <= target else "FAIL")


def table(times: Times, loaded: bool) -> tuple[str, dict[str, float]]:
    """The Markdown table (wall best / median and CPU best per revision, target, PASS/FAIL on this checkout)
    and the summary figures."""
    labels = list(times)
    head = ["command", "target (s)"] + [f"{label}: wall best / median, CPU (s)" for label in labels] + ["wall"]
    head += ["CPU"] if loaded else []
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    summary: dict[str, float] = {}
    for name, _, target in COMMANDS:
        cells = [name, f"{target:.1f}" if target else "—"]
        for label in labels:
            walls, cpus = [w for w, _ in times[label][name]], [c for _, c in times[label][name]]
            cells.append(f"{min(walls):.2f} / {statistics.median(walls):.2f}, {min(cpus):.2f}")
            summary[f"{name} [{label}] wall best (s)"] = round(min(walls), 3)
            summary[f"{name} [{label}] CPU best (s)"] = round(min(cpus), 3)
        mine = times[labels[0]][name]
        cells.append(_verdict(min(w for w, _ in mine), target))
        cells += [_verdict(min(c for _, c in mine), target)] if loaded else []
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines), summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="Cold starts per command (best and median kept).")
    parser.add_argument("--before", default=None,
                        help="A git revision (exported to a temporary directory) or a checkout to compare with.")
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        checkouts = {"this checkout": ROOT}
        if opts.before:
            before = Path(opts.before)
            checkouts[f"before ({opts.before})"] = (before if before.is_dir()
                                                    else export_revision(opts.before, Path(scratch)))
        times = measure(checkouts, opts.repeats)
    load, cores = os.getloadavg()[0], os.cpu_count() or 1
    text, summary = table(times, loaded=load > cores)
    print(f"CLI cold start, {opts.repeats} fresh processes per command, {cores} cores, load {load:.1f}; "
          f"PASS/FAIL on this checkout's best" + (" (machine loaded: see the CPU column)" if load > cores else ""))
    print(text)
    print("SUMMARY " + json.dumps(summary))


if __name__ == "__main__":
    main()
