"""``benchmarks/bench_grader_peer.py`` reads a peer's test lists as data: every literal ``(gold, pred, label)`` row
of a ``parametrize`` list, with the row's other options; a list that is not a plain literal is skipped and counted,
and no code of the archive is run. Tested on a source archive built here from our own rows."""

from __future__ import annotations

import io
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

TEST_FILE = '''
import pytest
RAN = open("/tmp/should-never-exist", "w")  # module code: never executed by the reader

@pytest.mark.parametrize("gold,pred,expected", [("$7$", "\\\\boxed{7}", 1), ("$7$", "8", 0)])
def test_plain(gold, pred, expected):
    pass

@pytest.mark.parametrize("gold, pred, result, strict", [("$g(u)$", "$g(v)$", 1, False)])
def test_options(gold, pred, result, strict):
    pass

@pytest.mark.parametrize("gold,pred,expected", [(f"{3}", "3", 1)])
def test_not_literal(gold, pred, expected):
    pass

@pytest.mark.parametrize("text", ["no gold here"])
def test_other(text):
    pass
'''


def _archive(tmp_path: Path) -> Path:
    path = tmp_path / "peer-1.0.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        for name, text in (("peer-1.0/tests/test_rows.py", TEST_FILE), ("peer-1.0/src/peer/test_x.py", TEST_FILE)):
            data = text.encode("utf-8")
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


def test_rows_are_read_as_data(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    sys.modules.pop("bench_grader_peer", None)
    from bench_grader_peer import read_cases

    rows, skipped = read_cases(_archive(tmp_path))
    assert skipped == 1  # the f-string list
    assert [(r["gold"], r["pred"], r["label"], r["options"]) for r in rows] == [
        ("$7$", "\\boxed{7}", 1, {}), ("$7$", "8", 0, {}), ("$g(u)$", "$g(v)$", 1, {"strict": False})]
    assert all(r["list"].startswith("test_rows.py::") for r in rows)  # only tests/, not a test_ file elsewhere
    assert not Path("/tmp/should-never-exist").exists()
