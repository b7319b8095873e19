"""How fast each long-running command stops after SIGTERM, and how many model requests it still sends.

Each command of ``tests/reliability/test_stop_signals.py`` (what-if run, RWS run, belief LLM run) is started as
from a terminal against the tests' fake server (every request takes ``--latency`` seconds), given SIGTERM once a
model request is under way, and timed to its exit. Before ``ifworld.stopping`` the worker threads went on with
every queued task: ``rws run`` sent 17 more requests and stopped 9.8 s after the signal (16–17 s on a busy
machine, past the test's 10 s).

    python benchmarks/bench_stop.py --repeat 3
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fixtures.fake_openai import FakeOpenAI  # noqa: E402
from tests.reliability.test_kill_resume import IFWORLD, _env  # noqa: E402
from tests.reliability.test_signal_hints import _as_in_a_terminal  # noqa: E402
from tests.reliability.test_stop_signals import COMMANDS  # noqa: E402

MODEL_COMMANDS = [name for name in COMMANDS if name != "beliefs sweep"]  # the sweep has no model call


def stop_once(name: str, latency: float) -> tuple[float, int]:
    """Seconds from SIGTERM to exit, and model requests started after the signal."""
    with FakeOpenAI(latency=latency) as fake, tempfile.TemporaryDirectory() as tmp:
        err_path = Path(tmp) / "stderr.txt"
        with err_path.open("w") as err:
            child = subprocess.Popen(IFWORLD + COMMANDS[name], env=_env(fake, Path(tmp) / "runs.sqlite"), cwd=tmp,
                                     stdout=subprocess.DEVNULL, stderr=err, preexec_fn=_as_in_a_terminal)
        deadline = time.monotonic() + 120
        while not ("run id:" in err_path.read_text() and fake.requests):
            if time.monotonic() > deadline or child.poll() is not None:
                raise SystemExit(f"{name} never got busy: {err_path.read_text()[-500:]}")
            time.sleep(0.02)  # polling the condition above
        start = time.monotonic()
        os.kill(child.pid, signal.SIGTERM)
        child.wait(timeout=120)
        took = time.monotonic() - start
        return took, sum(1 for r in fake.requests if r.start > start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--latency", type=float, default=1.0, help="seconds each model request takes")
    args = parser.parse_args()
    print(f"SIGTERM → exit, fake model requests of {args.latency:g} s, {args.repeat} run(s) each, load "
          f"{os.getloadavg()[0]:.1f}")
    print(f"{'command':<14} {'median s':>9} {'max s':>7} {'requests after the signal':>26}")
    for name in MODEL_COMMANDS:
        runs = [stop_once(name, args.latency) for _ in range(args.repeat)]
        times = [t for t, _ in runs]
        print(f"{name:<14} {statistics.median(times):>9.2f} {max(times):>7.2f} {max(n for _, n in runs):>26}")


if __name__ == "__main__":
    main()
