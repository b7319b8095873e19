"""After SIGINT, SIGTERM or SIGHUP mid-run the CLI says how to resume (issue #22 item 11).

A what-if run is stopped by each signal once its first model call has answered; stderr must name the run with
``resume with: ifworld runs resume ID``, the exit code is 128 + the signal, and the run reads as resumable.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from ifworld.runs.store import RESUMABLE, RunStore
from tests.reliability.test_kill_resume import IFWORLD, WHATIF_ARGS, _env

SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]


def _wait(condition, timeout_s: float, what: str) -> None:  # noqa: ANN001 - a small polling helper
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def _as_in_a_terminal() -> None:
    """The child starts with default dispositions, as from a terminal. A test run started in the background
    (``cmd &`` ignores SIGINT) or under ``nohup`` (ignores SIGHUP) passes SIG_IGN on through exec, and the CLI
    rightly keeps ignoring what its parent chose to ignore: that, not the CLI, failed this test in CI."""
    for sig in SIGNALS:
        signal.signal(sig, signal.SIG_DFL)


@pytest.mark.parametrize("sig", SIGNALS, ids=[s.name for s in SIGNALS])
def test_signal_mid_run_prints_the_resume_command(fake_server, tmp_path: Path, sig: signal.Signals) -> None:
    fake_server.latency = 0.5
    db = tmp_path / "runs.sqlite"
    err_path = tmp_path / "stderr.txt"
    with err_path.open("w") as err:
        child = subprocess.Popen(IFWORLD + WHATIF_ARGS, env=_env(fake_server, db), cwd=tmp_path,
                                 stdout=subprocess.DEVNULL, stderr=err, preexec_fn=_as_in_a_terminal)
    _wait(lambda: "run id:" in err_path.read_text() and any(r.end for r in fake_server.requests), 120,
          "the first answered call")
    os.kill(child.pid, sig)
    code = child.wait(timeout=120)
    stderr = err_path.read_text()
    run_id = re.search(r"run id: (\S+)", stderr).group(1)
    assert f"resume with: ifworld runs resume {run_id}" in stderr, stderr[-2000:]
    assert code == 128 + sig and "Traceback" not in stderr
    assert RunStore(db).get_run(run_id).status in RESUMABLE
