"""Hostile inputs: YAML alias bombs, model text that would make the browser call out or run script, titles
with bidirectional overrides, long error messages, and long LLM jobs that need confirmation."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest

from ifworld import runs
from ifworld.limits import CONFIRM_CALLS, MAX_ERROR_CHARS, needs_confirmation
from ifworld.runs.store import RunStore
from ifworld.safe_text import clean_title, escape_export, inert_markdown, live_elements
from ifworld.safe_yaml import load_yaml
from tests.security.helpers import open_page

ROOT = Path(__file__).resolve().parents[2]
# 9 levels of 9-fold aliases: 9**9 = 387,420,489 leaves from ~450 bytes (the 452-byte bomb ran 90 s+, 4.2 GB)
BOMB = "a: &a [x,x,x,x,x,x,x,x,x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]\n" for i in range(8))
BOMB_GRID = BOMB + "grid: {agents: *i}\n"


def test_alias_bomb_is_refused_before_expanding() -> None:
    assert len(BOMB_GRID.encode()) < 500
    tracemalloc.start()
    start = time.perf_counter()
    with pytest.raises(ValueError, match="anchors and aliases .* are not allowed") as err:
        load_yaml(BOMB_GRID)
    elapsed, peak = time.perf_counter() - start, tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert elapsed < 0.5 and peak < 5_000_000, (elapsed, peak)
    assert len(str(err.value)) < 300
    assert load_yaml("grid: {agents: [1, 2]}\nseeds: [0]\n") == {"grid": {"agents": [1, 2]}, "seeds": [0]}


def test_alias_bomb_on_the_cli_and_the_page(tmp_path: Path) -> None:
    grid = tmp_path / "bomb.yaml"
    grid.write_text(BOMB_GRID)
    start = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "ifworld.cli", "beliefs", "sweep", "--grid", str(grid), "--out",
                             str(tmp_path / "o.csv")], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "anchors and aliases" in result.stderr
    assert len(result.stderr) < 1000 and time.monotonic() - start < 30
    at = open_page("belief_sweep")
    at.radio(key="belief_sweep_source").set_value("YAML").run()
    start = time.monotonic()
    at.file_uploader(key="belief_sweep_upload").set_value(("bomb.yaml", BOMB_GRID.encode(), "application/x-yaml"))
    at.run()
    assert time.monotonic() - start < 10 and not at.exception
    errors = [e.value for e in at.error if "anchors and aliases" in e.value]
    assert errors and len(errors[0]) < MAX_ERROR_CHARS


def test_long_yaml_error_is_capped() -> None:
    with pytest.raises(ValueError) as err:
        load_yaml("key: [" + "'x" * 20_000)
    assert len(str(err.value)) <= 600


BEACON = "![x](http://127.0.0.1:9/beacon.png)"
HOSTILE = (f"Result {BEACON} and <script>alert(1)</script> <img src=http://127.0.0.1:9/i.png> "
           "[click](javascript:alert(1)) see http://127.0.0.1:9/page")


def test_inert_markdown_has_no_image_link_or_html() -> None:
    out = inert_markdown(HOSTILE)
    assert "![" not in out.replace("!\\[", "") and "<script" not in out.replace("\\<script", "")
    assert "<img" not in out.replace("\\<img", "") and "](" not in out
    assert "`http://127.0.0.1:9/beacon.png`" in out and "click (`javascript:alert(1)`)" in out
    # ordinary Markdown survives
    md = "# Report\n\n- **bold** and *em*\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n\n```\n<kept> ![in](code)\n```\n"
    assert inert_markdown(md) == md
    assert escape_export(HOSTILE) == inert_markdown(HOSTILE)


@pytest.mark.parametrize("text", ["\\![x](u)", "!\\[x](u)", "[![a](u)](v)", "![a\nb](u)", "![a][ref]\n\n[ref]: u",
                                  "``` a`b\n![x](u)\n```", "~~~\n~~~\n![x](u)", "```\n![x](u)"])
def test_inert_markdown_edge_cases_keep_no_image(text: str) -> None:
    out = inert_markdown(text)
    assert live_elements(out) == [], out  # parsed again (raw HTML and reference definitions on): nothing live


def test_exports_and_pages_render_model_text_inert(store: RunStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IFWORLD_DB", str(store.path))
    run_id = store.create_run("whatif", "demo.fanout", {"topic": "t"}, "Hostile run")
    store.finish_run(run_id, {"summary": HOSTILE, "answers": [], "calls": 0})
    store.set_status(run_id, "failed", error=HOSTILE)
    md = runs.export_run(run_id, "md", store=store)
    assert BEACON not in md and "<script>" not in md and "\\<script\\>" in md
    html = runs.export_run(run_id, "html", store=store)
    assert "<script" not in html and "&lt;script" in html and "default-src 'none'" in html
    at = open_page("runs")
    at.selectbox(key="runs_open").set_value(run_id).run()
    assert not at.exception
    shown = [w.value for w in at.warning if "Last error" in w.value]
    assert shown and BEACON not in shown[0] and "<script>" not in shown[0].replace("\\<script>", "")


def test_titles_lose_bidi_overrides_and_control_characters(store: RunStore) -> None:
    hostile = "invoice\u202efdp.exe\u2066 \u200fx\n\ty" + "z" * 400
    assert clean_title(hostile) == ("invoicefdp.exe x y" + "z" * 400)[:300]
    run_id = store.create_run("whatif", "demo.fanout", {}, hostile)
    title = store.get_run(run_id).title
    assert not any(ch in title for ch in "\u202e\u2066\u200f\n\t") and len(title) == 300
    with store._tx() as c:  # a row written by older code is cleaned on the way out too
        c.execute("UPDATE ifw_runs SET title=? WHERE id=?", ("a\u202eb", run_id))
    assert store.get_run(run_id).title == "ab"


def test_stored_errors_are_capped(store: RunStore) -> None:
    run_id = store.create_run("whatif", "demo.fanout", {})
    store.set_status(run_id, "failed", error="boom " * 100_000)
    error = store.get_run(run_id).error
    assert len(error) < MAX_ERROR_CHARS + 60 and error.endswith("more characters cut]")
    store.add_call(run_id, {"call_id": "c1", "error": "e" * 50_000})
    assert len(store.calls(run_id)[0]["error"]) < MAX_ERROR_CHARS + 60


def test_confirmation_threshold_and_cli_yes(store: RunStore, monkeypatch: pytest.MonkeyPatch) -> None:
    assert not needs_confirmation(CONFIRM_CALLS) and needs_confirmation(CONFIRM_CALLS + 1)
    assert not needs_confirmation(None)
    from typer.testing import CliRunner

    from ifworld.cli import app
    from ifworld.runs import Workflow, get_workflow, register

    base = get_workflow("demo.fanout")
    register(Workflow("demo.big", "whatif", base.build, base.initial, base.finalize,
                      estimate_calls=lambda p: p["workers"] + 1))
    monkeypatch.setenv("IFWORLD_DB", str(store.path))
    run_id = store.create_run("whatif", "demo.big", {"topic": "t", "workers": CONFIRM_CALLS + 5})
    result = CliRunner().invoke(app, ["runs", "resume", run_id])
    assert result.exit_code == 2 and "estimated at 206 model calls" in result.stderr and "--yes" in result.stderr
    assert store.get_run(run_id).status == "pending"  # nothing was started


def test_recursion_limit_grows_with_the_configured_loops() -> None:
    from langgraph.graph import END, START, StateGraph

    g = StateGraph(dict)
    for name in ("a", "b", "c"):
        g.add_node(name, lambda s: s)
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", "c")
    g.add_edge("c", END)
    compiled = g.compile()
    # the loop params are the workflow's declaration (#41), never guessed from key names
    wf = dataclasses.replace(runs.get_workflow("demo.fanout"), loop_params=("config.rounds", "debate_rounds"))
    small = runs.recursion_limit(wf, {"config": {"rounds": 2}}, compiled)
    big = runs.recursion_limit(wf, {"config": {"rounds": 300}, "debate_rounds": 400}, compiled)
    undeclared = runs.recursion_limit(wf, {"rounds": 300, "depth": 400}, compiled)
    assert small == undeclared == runs.RECURSION_LIMIT
    assert big >= 2 * len(compiled.nodes) * 701 and big <= runs.MAX_RECURSION_LIMIT
