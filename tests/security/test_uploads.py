"""Bad uploads: the RWS loader, the RWS browse page's upload/paste path and the belief sweep's grid YAML.

Every case must give a clear error naming the bad lines, keep the good lines, and leave the page usable.
"""

from __future__ import annotations

import json
import time
import tomllib
from pathlib import Path

import pytest
import yaml

from ifworld.beliefs import sweep
from ifworld.limits import MAX_UPLOAD_BYTES
from ifworld.rws import dataset
from ifworld.rws.benchmark import SAMPLE_PATH
from ifworld.rws.dataset import MAX_DATASET_BYTES, DatasetTooLarge, load_items
from tests.security.helpers import ROOT, open_page, texts
from ui.rws_view import MAX_LISTED_ERRORS

GOOD = SAMPLE_PATH.read_text("utf-8").splitlines()
N_BAD = 1_000


def _mixed(n_bad: int = N_BAD) -> tuple[bytes, list[int]]:
    """Every good sample line, with ``n_bad`` broken lines interleaved; returns (data, bad line numbers)."""
    lines: list[bytes] = []
    bad: list[int] = []
    good = iter(GOOD)
    for i in range(n_bad + len(GOOD)):
        if i % 20 == 0 or len(bad) >= n_bad:
            item = next(good, None)
            if item is not None:
                lines.append(item.encode())
                continue
        kind = len(bad) % 4
        lines.append([b"{broken json", b'{"id": "no-question"}', b"\xff\xfe bytes that are not UTF-8",
                      b"just some prose, not JSON"][kind])
        bad.append(len(lines))
    return b"\n".join(lines) + b"\n", bad


# -- the loader ----------------------------------------------------------------------------------------
def test_upload_limit_matches_streamlit_config() -> None:
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text("utf-8"))
    assert config["server"]["maxUploadSize"] == 50
    # Streamlit's browser side counts 1 MB = 1,000,000 bytes (1024² only on Windows clients): the engine's
    # cap is the smaller, stated number, so no upload the page accepts is refused later, or vice versa.
    assert MAX_DATASET_BYTES == MAX_UPLOAD_BYTES == config["server"]["maxUploadSize"] * 1_000_000


def test_non_utf8_lines_are_named_and_good_lines_kept() -> None:
    data = b"\n".join([GOOD[0].encode(), b'{"id": "caf\xe9"}', GOOD[1].encode(), b"\x80\x81\x82"])
    loaded = load_items(data)
    assert [i.id for i in loaded.items] == [json.loads(GOOD[0])["id"], json.loads(GOOD[1])["id"]]
    assert [(e.line, e.reason.split(":")[0]) for e in loaded.errors] == [(2, "not UTF-8"), (4, "not UTF-8")]


def test_over_the_size_cap_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DatasetTooLarge, match="50,000,000-byte limit"):
        load_items(b"x" * (MAX_DATASET_BYTES + 1))
    big = tmp_path / "big.jsonl"
    with big.open("wb") as fh:  # sparse: the size check must come before reading
        fh.truncate(MAX_DATASET_BYTES + 1)
    start = time.monotonic()
    with pytest.raises(DatasetTooLarge, match="larger than the 50,000,000-byte limit"):
        load_items(big)
    assert time.monotonic() - start < 1.0


def test_json_array_is_accepted() -> None:
    loaded = load_items(("[" + ",\n".join(GOOD[:3]) + "]").encode())
    assert loaded.ok and len(loaded.items) == 3


@pytest.mark.parametrize("data, expected", [
    (json.dumps({"items": [json.loads(GOOD[0])]}, indent=2).encode(), "single JSON object"),
    (b'{"items": []}', "schema error"),
    (b"This is a dataset.\nIt has two lines of prose.\n", "bad JSON"),
    (b"[1, 2", "bad JSON array"),
    (b"[\xff]", "bad JSON array"),
])
def test_not_jsonl_is_a_clear_error(data: bytes, expected: str) -> None:
    loaded = load_items(data)
    assert not loaded.items and loaded.errors
    assert expected in loaded.errors[0].reason and loaded.errors[0].line == 1
    if expected == "single JSON object":
        assert len(loaded.errors) == 1 and "JSON array" in loaded.errors[0].reason


def test_thousand_bad_lines_among_good_ones_are_all_named() -> None:
    data, bad = _mixed()
    start = time.monotonic()
    loaded = load_items(data)
    assert time.monotonic() - start < 5.0
    assert len(loaded.items) == len(GOOD)
    assert [e.line for e in loaded.errors] == bad and len(bad) == N_BAD


# -- the RWS browse page -------------------------------------------------------------------------------
def _browse_mine():  # noqa: ANN202
    at = open_page("rws_browse")
    at.radio(key="rwsbrowse_source").set_value("My JSONL").run()
    assert not at.exception
    return at


def test_browse_upload_with_thousand_bad_lines_stays_readable_and_usable() -> None:
    data, bad = _mixed()
    at = _browse_mine()
    start = time.monotonic()
    at.file_uploader(key="rwsbrowse_upload").set_value(("items.jsonl", data, "application/octet-stream")).run()
    assert time.monotonic() - start < 30
    assert not at.exception, at.exception
    assert len(at.warning) == 1
    warning = at.warning[0].value
    assert f"{N_BAD} line(s) skipped, {len(GOOD)} item(s) kept" in warning
    assert f"line {bad[0]}:" in warning and f"line {bad[MAX_LISTED_ERRORS - 1]}:" in warning
    assert f"line {bad[MAX_LISTED_ERRORS]}:" not in warning  # only the first N are listed …
    assert f"… and {N_BAD - MAX_LISTED_ERRORS} more" in warning  # … plus a count
    assert warning.count("\n- line ") == MAX_LISTED_ERRORS
    assert len(at.selectbox(key="rwsbrowse_item").options) == len(GOOD)
    at.toggle(key="rwsbrowse_show").set_value(True).run()  # the page still answers
    assert not at.exception and "Reference answer" in texts(at)


@pytest.mark.parametrize("name, data, expected", [
    ("latin1.jsonl", b'{"id": "r\xe9sum\xe9"}\n' + GOOD[0].encode(), "line 1: not UTF-8"),
    ("object.json", json.dumps({"items": [1, 2]}, indent=2).encode(), "single JSON object"),
    ("prose.txt", b"Here are my questions.\nQ1: what is the solar wind?\n", "line 2: bad JSON"),
])
def test_browse_upload_bad_files_name_the_problem(name: str, data: bytes, expected: str) -> None:
    at = _browse_mine()
    at.file_uploader(key="rwsbrowse_upload").set_value((name, data, "application/octet-stream")).run()
    assert not at.exception, at.exception
    assert expected in at.warning[0].value
    kept = len(at.selectbox(key="rwsbrowse_item").options) if at.selectbox else 0
    assert kept == (1 if name == "latin1.jsonl" else 0)
    if not kept:
        assert any("Upload or paste" in i.value for i in at.info)


def test_browse_oversized_upload_and_paste_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dataset, "MAX_DATASET_BYTES", 4096)  # AppTest runs the page in this process
    at = _browse_mine()
    at.file_uploader(key="rwsbrowse_upload").set_value(("big.jsonl", b"\n".join(g.encode() for g in GOOD),
                                                        "application/octet-stream")).run()
    assert not at.exception
    assert "big.jsonl" in at.error[0].value and "limit" in at.error[0].value
    at.file_uploader(key="rwsbrowse_upload").set_value(None).run()
    at.text_area(key="rwsbrowse_paste").set_value("\n".join(GOOD)).run()
    assert not at.exception and "pasted JSONL" in at.error[0].value and "limit" in at.error[0].value
    at.text_area(key="rwsbrowse_paste").set_value(GOOD[0]).run()  # a normal paste right after works
    assert not at.error and len(at.selectbox(key="rwsbrowse_item").options) == 1


def test_browse_paste_with_thousand_bad_lines() -> None:
    data, _ = _mixed()
    at = _browse_mine()
    at.text_area(key="rwsbrowse_paste").set_value(data.decode("utf-8", "replace")).run()
    assert not at.exception
    assert f"{N_BAD} line(s) skipped" in at.warning[0].value
    assert at.warning[0].value.count("\n- line ") == MAX_LISTED_ERRORS


# -- the belief sweep page's grid YAML ---------------------------------------------------------------------
def _sweep_yaml():  # noqa: ANN202
    at = open_page("belief_sweep")
    at.radio(key="belief_sweep_source").set_value("YAML").run()
    assert not at.exception
    return at


def _grid_errors(at) -> list[str]:  # noqa: ANN001
    return [e.value for e in at.error if e.value.startswith("Grid error")]


@pytest.mark.parametrize("data, expected", [
    (b"grid:\n  agents: [5, 10]\n# caf\xe9\n", "not UTF-8"),
    (b"\x00\x01\x02\xff\xfe", "not UTF-8"),
    (b"- just\n- a list\n", "must be a mapping"),
    (b"This is prose, not a grid: it has: colons\n", "not valid YAML"),
    (yaml.safe_dump({"grid": {"agents": list(range(10, 40000))}}).encode(), "limit"),
    (yaml.safe_dump({"grid": {"agents": list(range(10, 60)), "facts": list(range(20, 70)),
                              "rounds": list(range(5, 55)), "bandwidth": list(range(1, 11))}}).encode(),
     "MAX_TASKS"),
])
def test_sweep_bad_grid_upload_is_an_error_and_page_responds(data: bytes, expected: str) -> None:
    at = _sweep_yaml()
    start = time.monotonic()
    at.file_uploader(key="belief_sweep_upload").set_value(("grid.yaml", data, "application/x-yaml")).run()
    assert time.monotonic() - start < 20
    assert not at.exception, at.exception
    errors = _grid_errors(at)
    assert errors and expected in errors[0], errors
    assert not any(b.label == "🚀 Run sweep" for b in at.button)  # no spec, nothing to run
    at.file_uploader(key="belief_sweep_upload").set_value(None).run()  # back to the text area: works again
    assert not at.exception and not _grid_errors(at)
    assert "Runs" in [m.label for m in at.metric]


def test_sweep_oversized_yaml_text_is_refused_before_parsing() -> None:
    at = _sweep_yaml()
    text = "grid:\n  agents: [" + ", ".join("10" for _ in range(sweep.MAX_GRID_YAML_BYTES // 3)) + "]\n"
    start = time.monotonic()
    at.text_area(key="belief_sweep_yaml").set_value(text)
    next(b for b in at.button if b.label == "Check grid").click().run()
    assert time.monotonic() - start < 10
    assert not at.exception and "MAX_GRID_YAML_BYTES" in _grid_errors(at)[0]
