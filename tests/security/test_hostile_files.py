"""Hostile files given to every command that reads a file (issue #22 item 5).

``whatif judge /dev/zero`` once grew to 23.7 GB; ``beliefs sweep --grid /dev/zero`` and ``runs resume --edit
/dev/zero`` passed the size cap (a special file reports size 0); a FIFO blocks the open forever. Each file
argument gets /dev/zero, a FIFO, a directory and a (sparse) file one byte over its cap: the command must refuse
it with exit 2 and a message naming the problem, without a traceback, within seconds, with a small peak RSS.
The child runs under RLIMIT_AS (a regression fails here instead of swapping the machine) and is killed after
:data:`LIMIT_S` (a FIFO open that blocks fails instead of hanging). Peak RSS per case is printed (``-s``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from ifworld.beliefs.sweep import MAX_GRID_YAML_BYTES
from ifworld.files import FileRefused, FileTooLarge, read_bounded, read_text_bounded
from ifworld.limits import MAX_ANSWER_FILE_BYTES, MAX_UPLOAD_BYTES
from ifworld.runs.store import RunStore
from ifworld.rws.dataset import MAX_DATASET_BYTES

ROOT = Path(__file__).resolve().parents[2]
LIMIT_S = 60.0
ADDRESS_SPACE = 3 * 1024**3
PEAK_RSS_MAX_MB = 400
EXPECTED = {"zero": "character device", "fifo": "FIFO", "dir": "directory", "big": "larger than"}

pytestmark = pytest.mark.skipif(not Path("/dev/zero").exists() or not hasattr(os, "mkfifo"), reason="POSIX only")


def _hostile(tmp_path: Path, kind: str, cap: int) -> Path:
    if kind == "zero":
        return Path("/dev/zero")
    if kind == "fifo":
        path = tmp_path / "pipe"
        os.mkfifo(path)
        return path
    if kind == "dir":
        path = tmp_path / "a-directory"
        path.mkdir()
        return path
    path = tmp_path / "big.txt"
    with path.open("wb") as handle:  # sparse: one byte over the cap costs no disk
        handle.truncate(cap + 1)
    return path


# A launcher sets the limit, runs the CLI in its own (freshly exec'd) process and writes that process's VmHWM at
# exit. wait4's ru_maxrss would carry the forking pytest process's size over the exec (570 MB in the slow tier,
# against 116-178 MB for the CLI itself); VmHWM belongs to the post-exec memory only.
LAUNCHER = """
import atexit, resource, runpy, sys
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
def peak():
    hwm = [line for line in open('/proc/self/status') if line.startswith('VmHWM:')][0].split()[1]
    open({out!r}, 'w').write(hwm)
atexit.register(peak)
sys.argv = ['ifworld', *sys.argv[1:]]
runpy.run_module('ifworld.cli', run_name='__main__')
"""


def run_cli(args: list[str], tmp_path: Path) -> tuple[int, str, float]:
    """Exit code, stderr and peak RSS (MB; infinite when the process died before saying) of ``ifworld ARGS``
    (killed after LIMIT_S)."""
    err_path, peak_path = tmp_path / "stderr.txt", tmp_path / "peak_kb.txt"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "IFWORLD_DB": str(tmp_path / "runs.sqlite")}
    with err_path.open("w") as err:
        launcher = LAUNCHER.format(limit=ADDRESS_SPACE, out=str(peak_path))
        proc = subprocess.Popen([sys.executable, "-c", launcher, *args], cwd=tmp_path, env=env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
        timer = threading.Timer(LIMIT_S, proc.kill)
        timer.start()
        _, status, _ = os.wait4(proc.pid, 0)
        timer.cancel()
    proc.returncode = os.waitstatus_to_exitcode(status)
    peak_mb = int(peak_path.read_text()) / 1024 if peak_path.exists() else float("inf")
    return proc.returncode, err_path.read_text(errors="replace"), peak_mb


def _paused_run(tmp_path: Path) -> str:
    store = RunStore(tmp_path / "runs.sqlite")
    run_id = store.create_run("whatif", "whatif.session", {}, "paused for an answer")
    store.set_status(run_id, "paused")
    return run_id


# command name, cap, how to build the arguments from the hostile path
COMMANDS = {
    "whatif judge": (MAX_UPLOAD_BYTES, lambda p, t: ["whatif", "judge", str(p)]),
    "beliefs sweep --grid": (MAX_GRID_YAML_BYTES, lambda p, t: ["beliefs", "sweep", "--grid", str(p),
                                                                "--out", str(t / "out.csv")]),
    "runs resume --edit": (MAX_ANSWER_FILE_BYTES, lambda p, t: ["runs", "resume", _paused_run(t), "--edit", str(p)]),
    "rws grade --data": (MAX_DATASET_BYTES, lambda p, t: ["rws", "grade", "--data", str(p),
                                                          "--predictions", str(_small(t))]),
    "rws grade --predictions": (MAX_DATASET_BYTES, lambda p, t: ["rws", "grade", "--data", str(_small(t)),
                                                                 "--predictions", str(p)]),
    "rws convert": (MAX_DATASET_BYTES, lambda p, t: ["rws", "convert", str(p), "--format", "gsm8k"]),
    "whatif eval --propositions": (MAX_ANSWER_FILE_BYTES, lambda p, t: ["whatif", "eval", "--propositions", str(p)]),
}


def _small(tmp_path: Path) -> Path:
    path = tmp_path / "small.jsonl"
    path.write_text('{"id": "a", "question": "q", "answer": "1", "type": "numeric", "prediction": "1"}\n')
    return path


@pytest.mark.slow
@pytest.mark.parametrize("kind", list(EXPECTED))
@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_file_argument_refuses_hostile_files(tmp_path: Path, command: str, kind: str) -> None:
    if command == "beliefs sweep --grid" and kind == "dir":
        pytest.skip("typer's dir_okay=False refuses a directory before the command runs (tested by typer)")
    cap, build = COMMANDS[command]
    code, stderr, peak_mb = run_cli(build(_hostile(tmp_path, kind, cap), tmp_path), tmp_path)
    print(f"{command} {kind}: exit {code}, peak RSS {peak_mb:.0f} MB")
    assert code == 2, (code, stderr[-2000:])
    assert EXPECTED[kind] in stderr and "Traceback" not in stderr, stderr[-2000:]
    assert peak_mb < PEAK_RSS_MAX_MB


def test_reader_refuses_special_files_without_opening_them(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # opened for reading without O_NONBLOCK, this would block until a writer came
    for path, words in ((Path("/dev/zero"), "character device"), (fifo, "FIFO"), (tmp_path, "directory"),
                        (tmp_path / "missing", "does not exist")):
        with pytest.raises(FileRefused, match=words):
            read_bounded(path, 10)


def test_reader_reads_at_most_cap_plus_one_bytes(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(b"x" * 10)
    assert read_bounded(path, 10) == b"x" * 10
    with pytest.raises(FileTooLarge, match="larger than the 9-byte limit \\(CAP\\)"):
        read_bounded(path, 9, limit_name="CAP")
    path.write_bytes(b"\xef\xbb\xbfok\n")
    assert read_text_bounded(path, 10) == "ok\n"
    path.write_bytes(b"\xff\xfe")
    with pytest.raises(FileRefused, match="not UTF-8"):
        read_text_bounded(path, 10)


# -- outputs (issue #22 item 11): refused before any work, no *.parts left behind ------------------------------
@pytest.mark.parametrize("target", ["/dev/full", "dir"])
def test_whatif_run_refuses_an_unusable_out_before_any_model_call(fake_server, tmp_path: Path, target: str) -> None:
    out = tmp_path if target == "dir" else Path(target)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "IFWORLD_DB": str(tmp_path / "runs.sqlite"),
           "IFWORLD_BASE_URL": fake_server.url, "IFWORLD_MODEL": "fake-model"}
    result = subprocess.run([sys.executable, "-m", "ifworld.cli", "whatif", "run", "What if tides stopped?",
                             "--out", str(out)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and ("character device" in result.stderr or "directory" in result.stderr)
    assert fake_server.requests == [], "model calls were made before the output path was checked"


def test_sweep_to_dev_full_leaves_no_parts(tmp_path: Path) -> None:
    grid = tmp_path / "grid.yaml"
    grid.write_text("base: {agents: 10, facts: 5, rounds: 3}\ngrid: {bandwidth: [1, 2]}\nseeds: [0]\nruns: 2\n")
    existed = Path("/dev/full.parts").exists()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "IFWORLD_DB": str(tmp_path / "runs.sqlite")}
    result = subprocess.run([sys.executable, "-m", "ifworld.cli", "beliefs", "sweep", "--grid", str(grid), "--out",
                             "/dev/full"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    left = Path("/dev/full.parts").exists() and not existed
    if left:  # clean up what a regression created
        __import__("shutil").rmtree("/dev/full.parts", ignore_errors=True)
    assert result.returncode == 2 and "character device" in result.stderr, result.stderr[-2000:]
    assert not left


def test_a_failed_sweep_removes_the_parts_folder_it_created(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ifworld.beliefs import sweep

    spec = sweep.SweepSpec.from_dict({"base": {"agents": 10, "facts": 5, "rounds": 3}, "seeds": [0], "runs": 2})
    out = tmp_path / "rows.csv"

    def broken(*_args, **_kwargs) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(sweep, "run_local", broken)
    with pytest.raises(OSError):
        sweep.run_sweep(spec, out=out)
    assert not sweep.parts_dir(out).exists()
    monkeypatch.undo()
    monkeypatch.setattr(sweep.pd.DataFrame, "to_csv", broken)  # the chunks finish, the table cannot be written
    with pytest.raises(OSError):
        sweep.run_sweep(spec, out=out)
    assert list(sweep.parts_dir(out).glob("*.jsonl")), "finished chunks are kept for resume"
    assert not out.exists() and not list(tmp_path.glob(".*.tmp"))


def test_rws_grade_with_nothing_usable_exits_non_zero(tmp_path: Path) -> None:
    data, preds = tmp_path / "items.jsonl", tmp_path / "preds.jsonl"
    data.write_text('{"id": "q1", "question": "2+2?", "answer": "4", "type": "numeric"}\n')
    preds.write_text("not json\n{\"id\": \"other\", \"prediction\": \"4\"}\n")
    code, stderr, _ = run_cli(["rws", "grade", "--data", str(data), "--predictions", str(preds)], tmp_path)
    assert code == 2 and "nothing to grade" in stderr, stderr[-2000:]


def test_the_null_device_is_a_valid_output(tmp_path: Path) -> None:
    """`--out /dev/null` means "discard the file": taken, while /dev/full and other devices are refused."""
    from ifworld.files import FileRefused, check_output

    assert check_output("/dev/null") == Path("/dev/null")
    with pytest.raises(FileRefused):
        check_output("/dev/full")
    with pytest.raises(FileRefused):
        check_output("/dev/zero")
