"""Bad input in a real browser: a JSONL upload with 1,000 bad lines, a hostile answer in the grade box, and the
known key on no page and in no store file."""

from __future__ import annotations

import time
from pathlib import Path

from tests.browser.conftest import KNOWN_KEY, ROOT, e2e_db, open_page, wait_idle

PAGES = ["", "whatif", "causal_map", "runs", "rws_browse", "rws_benchmark", "beliefs", "belief_sweep", "settings"]
N_BAD = 1_000
LISTED = 50  # ui.rws_view.MAX_LISTED_ERRORS


def _mixed_jsonl(path: Path) -> int:
    """The sample set with N_BAD broken lines interleaved; returns the number of good lines."""
    good = (ROOT / "data" / "rws_sample.jsonl").read_text("utf-8").splitlines()
    bad = [b"{broken json", b'{"id": "no-question"}', b"\xff\xfe not UTF-8", b"just prose"]
    lines = [g.encode() for g in good] + [bad[i % 4] for i in range(N_BAD)]
    lines[::2], lines[1::2] = lines[: (len(lines) + 1) // 2], lines[(len(lines) + 1) // 2:]  # interleave
    path.write_bytes(b"\n".join(lines) + b"\n")
    return len(good)


def test_upload_with_thousand_bad_lines_shows_summary_and_responds(page, tmp_path: Path) -> None:
    n_good = _mixed_jsonl(tmp_path / "items.jsonl")
    open_page(page, "rws_browse", expect="Grade your own answer")
    page.get_by_text("My JSONL").click()
    wait_idle(page)
    start = time.monotonic()
    page.locator("[data-testid=stFileUploader] input[type=file]").set_input_files(str(tmp_path / "items.jsonl"))
    summary = page.get_by_text(f"{N_BAD} line(s) skipped, {n_good} item(s) kept")
    summary.wait_for(timeout=30_000)
    wait_idle(page)
    assert time.monotonic() - start < 30
    alert = page.locator("[data-testid=stAlert]").filter(has_text="line(s) skipped")
    assert alert.locator("li").count() == LISTED + 1  # the first N lines plus "… and M more"
    assert f"and {N_BAD - LISTED} more" in alert.inner_text()
    page.get_by_text("Show reference steps and answer").click()  # the page still answers a click
    page.get_by_text("Reference answer").first.wait_for(timeout=20_000)
    wait_idle(page)


def test_hostile_answer_in_grade_box_then_a_normal_one(page, tmp_path: Path) -> None:
    open_page(page, "rws_browse", expect="Grade your own answer")
    box = page.get_by_label("Your answer")
    box.fill("__import__('os').system('touch " + str(tmp_path / "MARKER") + "') + x^{99999999}")
    box.press("Enter")
    wait_idle(page)
    start = time.monotonic()
    page.get_by_role("button", name="Grade").click()
    page.get_by_text("decided by").first.wait_for(timeout=30_000)
    wait_idle(page)
    assert time.monotonic() - start < 20
    assert not (tmp_path / "MARKER").exists()
    box.fill("definitely not the answer 12345 parsecs")
    box.press("Enter")
    wait_idle(page)
    page.get_by_role("button", name="Grade").click()
    page.get_by_text("decided by").first.wait_for()
    wait_idle(page)
    assert page.get_by_text("Grading failed").count() == 0


def test_known_key_on_no_page_and_in_no_store_file(page, tmp_path_factory) -> None:  # noqa: ANN001
    for path in PAGES:
        open_page(page, path, expect="Model connection")
        assert KNOWN_KEY not in page.content(), f"/{path} shows the key"
    db = e2e_db(tmp_path_factory)
    files = [p for p in db.parent.iterdir() if p.is_file()]  # runs.sqlite, -wal, -shm, streamlit.log
    assert db in files
    assert [f.name for f in files if KNOWN_KEY.encode() in f.read_bytes()] == []
