"""The built wheel, installed in a fresh virtual environment outside the checkout, works on its own.

This is what a user gets from `pip install ifworld` / `pipx install`: no editable install, no PYTHONPATH, no
repository files reachable from the working directory. The fake model server (tests/fixtures) is the only
thing taken from the checkout, and it talks to the installed CLI over HTTP like a real endpoint would.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.browser.conftest import BROWSER_ARGS, CHROMIUM, START_TIMEOUT_S, _free_port
from tests.fixtures.fake_openai import FakeOpenAI

ROOT = Path(__file__).resolve().parents[2]
INSTALL_TIMEOUT_S = 1200  # a cold pip cache on a 2-core machine; normally a few minutes
SOURCE_IGNORE = (".git", ".venv*", "build", "dist", "*.egg-info", "test-artifacts", "__pycache__", "secrets.toml",
                 ".pytest_cache", ".ruff_cache")
KEY = "sk-wheel-KNOWN-FAKE-KEY-51c0"


class Installed:
    def __init__(self, venv: Path, work: Path, wheel: Path) -> None:
        self.venv, self.work, self.wheel = venv, work, wheel

    def env(self, **extra: str) -> dict[str, str]:
        """The environment without anything that could point back at the checkout."""
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("IFWORLD_") and k not in ("OPENAI_API_KEY", "PYTHONPATH", "VIRTUAL_ENV")}
        env.update({"IFWORLD_DB": str(self.work / "runs.sqlite"), "PATH": f"{self.venv / 'bin'}:{env['PATH']}"},
                   **extra)
        return env

    def run(self, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(self.venv / "bin" / "ifworld"), *args], cwd=self.work, env=self.env(**extra),
                              capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    base = tmp_path_factory.mktemp("wheel")
    # Build from a clean copy: setuptools reuses an existing build/ directory, which could smuggle stale modules
    # into the wheel, and a user's .venv or secrets must not be anywhere near it.
    source = base / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*SOURCE_IGNORE))
    dist = base / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(dist), str(source)],
                   check=True, cwd=base, timeout=INSTALL_TIMEOUT_S)
    wheel = next(dist.glob("ifworld-*.whl"))
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(wheel)],
                   check=True, cwd=base, timeout=INSTALL_TIMEOUT_S)
    work = base / "elsewhere"
    work.mkdir()
    yield Installed(venv, work, wheel)


def test_wheel_carries_app_prompts_and_data(installed: Installed) -> None:
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    for required in ("ifworld/_bundle/app.py", "ifworld/_bundle/app_pages/whatif.py", "ifworld/_bundle/ui/common.py",
                     "ifworld/_bundle/data/rws_sample.jsonl", "ifworld/_bundle/.streamlit/config.toml",
                     "ifworld/_bundle/data/abbreviations.tsv", "ifworld/_bundle/data/antonyms.tsv"):
        assert required in names
    assert any(n.startswith("ifworld/_bundle/prompts/whatif/") for n in names)
    assert not any("secrets.toml" in n or "__pycache__" in n for n in names)
    assert not any(n.startswith(("ui/", "app_pages/", "tests/")) for n in names), "no generic top-level packages"


def test_version_and_resources_come_from_site_packages(installed: Installed) -> None:
    res = installed.run("--version")
    assert res.returncode == 0 and res.stdout.startswith("ifworld ")
    probe = subprocess.run(
        [str(installed.venv / "bin" / "python"), "-c",
         "import ifworld, ifworld.resources as r; print(ifworld.__file__); print(r.root())"],
        cwd=installed.work, env=installed.env(), capture_output=True, text=True, check=True)
    module, root = probe.stdout.split()
    assert str(installed.venv) in module and str(installed.venv) in root
    assert str(ROOT) not in probe.stdout


def test_belief_run(installed: Installed) -> None:
    res = installed.run("beliefs", "run", "--runs", "20", "--seed", "3", "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["runs"] == 20 and 0 < out["f1"] <= 1 and 0 <= out["precision"] <= 1


def test_rws_grade_of_the_sample_set(installed: Installed) -> None:
    data = installed.work / "items.jsonl"
    data.write_text((ROOT / "data" / "rws_sample.jsonl").read_text(encoding="utf-8"), encoding="utf-8")
    items = [json.loads(line) for line in data.read_text(encoding="utf-8").splitlines() if line.strip()]
    preds = installed.work / "preds.jsonl"
    preds.write_text("".join(json.dumps({"id": it["id"], "prediction": it["final"]}) + "\n" for it in items))
    res = installed.run("rws", "grade", "--data", str(data), "--predictions", str(preds),
                        "--out", str(installed.work / "graded.json"))
    assert res.returncode == 0, res.stderr
    graded = json.loads((installed.work / "graded.json").read_text())
    assert len(graded["items"]) == len(items)
    assert graded["accuracy"] == 1.0, [i for i in graded["items"] if i["verdict"] != "correct"]


def test_whatif_run_against_the_fake_server(installed: Installed) -> None:
    with FakeOpenAI(latency=0.0) as fake:
        res = installed.run("whatif", "run", "What if the Moon disappeared?", "--experts", "physics,economics",
                            "--rounds", "1", "--out", str(installed.work / "run.json"),
                            IFWORLD_BASE_URL=fake.url, IFWORLD_MODEL="fake-model", IFWORLD_API_KEY=KEY)
    assert res.returncode == 0, res.stderr[-3000:]
    record = json.loads((installed.work / "run.json").read_text())
    assert record["method"] == "ifworld" and len(record["rounds"]) == 1
    assert set(record["rounds"][0]["experts"]) == {"physics", "economics"}
    assert record["report"] and record["calls"]
    assert KEY not in (installed.work / "runs.sqlite").read_bytes().decode("latin-1")


def test_ifworld_app_serves_a_page_that_renders(installed: Installed) -> None:
    if not Path(CHROMIUM).exists():
        pytest.skip("Chromium is not installed (scripts/browser.sh installs Debian's chromium)")
    from playwright.sync_api import sync_playwright

    port = _free_port()
    log = (installed.work / "app.log").open("w")
    proc = subprocess.Popen([str(installed.venv / "bin" / "ifworld"), "app", "--port", str(port)], cwd=installed.work,
                            env=installed.env(), stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while proc.poll() is None and time.monotonic() < deadline:
            try:
                if httpx.get(f"{url}/_stcore/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.3)
        assert proc.poll() is None, (installed.work / "app.log").read_text()[-2000:]
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
            page = browser.new_page()
            page.set_default_timeout(60_000)
            for path, expect in (("", "IF-World Studio"), ("beliefs", "Run simulation"),
                                 ("rws_browse", "Reasoning With a Star")):
                page.goto(f"{url}/{path}")
                page.get_by_text(expect, exact=False).first.wait_for()
                page.locator("[data-testid=stSidebar]").get_by_text("Model connection").first.wait_for()
                assert page.locator("[data-testid=stException]").count() == 0, f"/{path} raised"
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        log.close()
