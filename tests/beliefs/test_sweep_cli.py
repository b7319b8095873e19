"""Sweeps (local, resume, Dask), CLI sub-app, tables, figures, phase transition, animation."""

import json

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest
import yaml
from typer.testing import CliRunner

from ifworld.beliefs import animation, figures, tables
from ifworld.beliefs.cli import app
from ifworld.beliefs.config import BeliefConfig
from ifworld.beliefs.engine import simulate
from ifworld.beliefs.phase import (
    critical_ratio,
    crossing_table,
    phase_both_rules,
    phase_figure,
    phase_transition,
)
from ifworld.beliefs.sweep import SweepSpec, load_grid, partial_rows, parts_dir, read_table, run_sweep

GRID = {
    "base": {"facts": 8, "rounds": 6},
    "grid": {"agents": [6, 10], "bandwidth": [1, 3], "strategy": ["highest_confidence", "strategic"],
             "rule": ["additive", "bounded"], "threshold": [0.4, 0.6], "true_facts": [2, 4],
             "false_facts": [1, 2], "rounds": [4, 8]},
    "repeats": 1, "runs": 3, "chunk_size": 16,
}
SUMMARY = {"runs", "f1", "f1_std", "precision", "precision_std", "recall", "recall_std", "rounds_mean",
           "converged_rate"}


@pytest.fixture(scope="module")
def rows() -> pd.DataFrame:
    return run_sweep(SweepSpec.from_dict(GRID), workers=1)


def test_sweep_rows_tidy(rows):
    assert len(rows) == 2 ** 8 * 3
    for col in ("agents", "seed", "run", "f1", "precision", "recall", "rounds_used", "converged",
                "recall_negative", "missed_facts", "condition"):
        assert col in rows


def test_sweep_resume(tmp_path):
    spec = SweepSpec.from_dict({**GRID, "grid": {"agents": [4, 6, 8, 10]}, "repeats": 2, "chunk_size": 2})
    out = tmp_path / "res.csv"
    seen = []
    half = run_sweep(spec, out=out, max_chunks=2, progress=lambda d, t: seen.append((d, t)))
    assert len(list(parts_dir(out).glob("*.jsonl"))) == 2 and not out.exists() and len(half) == 12
    assert len(partial_rows(out)) == 12 and partial_rows(tmp_path / "none.csv").empty  # live partial results
    calls = []
    import ifworld.beliefs.sweep as sweep_mod
    original = sweep_mod.run_chunk
    sweep_mod.run_chunk = lambda chunk, runs: calls.append(chunk) or original(chunk, runs)
    try:
        full = run_sweep(spec, out=out, workers=1)
    finally:
        sweep_mod.run_chunk = original
    assert len(calls) == 2 and len(full) == 24 and out.exists()
    fresh = run_sweep(spec, workers=1)
    pd.testing.assert_frame_equal(full, fresh)
    pd.testing.assert_frame_equal(read_table(out), fresh.pipe(lambda f: read_back(f, tmp_path)))


def read_back(frame, tmp_path):
    frame.to_csv(tmp_path / "x.csv", index=False)
    return pd.read_csv(tmp_path / "x.csv")


def test_local_process_pool_matches_inline():
    spec = SweepSpec.from_dict({**GRID, "grid": {"agents": [4, 6, 8]}, "chunk_size": 1})
    pd.testing.assert_frame_equal(run_sweep(spec, workers=2), run_sweep(spec, workers=1))


@pytest.mark.cluster
def test_dask_matches_local():
    spec = SweepSpec.from_dict({**GRID, "grid": {"agents": [4, 6], "rule": ["additive", "bounded"]},
                                "chunk_size": 1})
    local = run_sweep(spec, workers=1)
    dask = run_sweep(spec, backend="dask", workers=2)
    pd.testing.assert_frame_equal(local, dask)


@pytest.mark.parametrize(
    ("grid", "key"),
    [({"grid": {"agentz": [1]}}, "agentz"), ({"grid": {"agents": 3}}, "grid.agents"),
     ({"grid": {"agents": [1]}}, "agents"), ({"runs": 0}, "runs"), ({"bogus": 1}, "bogus"),
     ({"base": {"threshold": 3}}, "threshold")],
)
def test_grid_validation_names_key(grid, key):
    with pytest.raises(ValueError, match=key):
        SweepSpec.from_dict(grid)


def test_cli_run_json_keys():
    res = CliRunner().invoke(app, ["run", "--runs", "10", "--seed", "1", "--json"])
    assert res.exit_code == 0
    assert set(json.loads(res.output)) == SUMMARY
    res = CliRunner().invoke(app, ["run", "--domain", "abstract", "--rule", "bounded", "--strategy",
                                   "strategic", "--runs", "5", "--json"])
    assert res.exit_code == 0 and json.loads(res.output)["runs"] == 5


@pytest.mark.parametrize("args", [["--agents", "1"], ["--threshold", "2"], ["--bandwidth", "0"],
                                  ["--stop-share", "0"], ["--runs", "0"], ["--rule", "magic"]])
def test_cli_bad_parameters_exit_2(args):
    res = CliRunner().invoke(app, ["run", *args, "--json"])
    assert res.exit_code == 2


def test_cli_sweep(tmp_path):
    grid = tmp_path / "grid.yaml"
    grid.write_text(yaml.safe_dump({**GRID, "grid": {"agents": [4, 6]}}))
    out = tmp_path / "r.csv"
    res = CliRunner().invoke(app, ["sweep", "--grid", str(grid), "--out", str(out), "--workers", "1"])
    assert res.exit_code == 0, res.output
    assert len(pd.read_csv(out)) == 6
    assert CliRunner().invoke(app, ["sweep", "--grid", str(grid), "--backend", "ray"]).exit_code == 2
    grid.write_text(yaml.safe_dump({"grid": {"nope": [1]}}))
    bad = CliRunner().invoke(app, ["sweep", "--grid", str(grid), "--out", str(out)])
    assert bad.exit_code == 2 and "nope" in bad.output
    assert load_grid is not None


def test_tables_shapes(rows):
    t1 = tables.table1_by_condition(rows)
    assert len(t1) == 2
    assert {"f1_mean", "f1_std", "precision_mean", "recall_mean", "rounds_used_mean"} <= set(t1)
    t2 = tables.table2_by_fact_type(rows)
    assert "negative" in set(t2["category"]) and t2["recall"].between(0, 1).all()
    t3 = tables.table3_most_missed(rows, top=5)
    assert len(t3) == 5 and t3["miss_rate"].is_monotonic_decreasing
    assert tables.table4_strategy_by_condition(rows).shape == (2, 2)
    t5 = tables.table5_convergence(rows)
    assert ((t5["converged_rate"] + t5["cap_rate"]) == 1).all()
    t6 = tables.table6_top_configurations(rows, top=3)
    assert len(t6) == 3 and t6["f1_mean"].is_monotonic_decreasing


def test_figures_build(rows):
    f1 = figures.figure1(rows)
    f2 = figures.figure2(rows)
    assert isinstance(f1, go.Figure) and isinstance(f2, go.Figure)
    assert len(f1.layout.annotations) == 12 and len(f2.layout.annotations) == 4


def test_phase_transition():
    curve = phase_transition(BeliefConfig(facts=10), range(0, 9, 2), runs=60, seed=0)
    assert len(curve) == 5 and curve["lock_share"].iloc[0] == 0
    assert curve["f1"].iloc[0] > curve["f1"].iloc[-1]
    assert (curve["f1_lo"] <= curve["f1"]).all() and (curve["f1"] <= curve["f1_hi"]).all()
    crit = critical_ratio(curve)
    assert crit is not None and 0 < crit <= 1.6
    assert isinstance(phase_figure(curve), go.Figure)
    assert (curve["false_majority"] <= curve["lock_share"]).all()  # more false than true implies >= 1 false


def test_phase_both_rules_crossings():
    curves = phase_both_rules(BeliefConfig(), range(0, 11), runs=100, seed=0)
    table = crossing_table(curves)
    assert list(table["Rule"]) == ["additive", "additive", "bounded", "bounded"]
    ratio = {(r, c): float(x) for r, c, x in zip(table["Rule"], table["Curve"], table["Crosses 0.5 at M_F/M_T"],
                                                 strict=True)}
    for rule in ("additive", "bounded"):  # any-false crosses well below the paper's 0.6; majority near 1
        assert ratio[(rule, "lock share")] < 0.5 < 0.8 < ratio[(rule, "false majority")] < 1.3
    assert len(phase_figure(curves).data) == 12  # 3 curves x (band + line) x 2 rules
    res = CliRunner().invoke(app, ["phase", "--max-false", "4", "--runs", "20"])
    assert res.exit_code == 0 and "false majority" in res.output and "bounded" in res.output


def test_animation_frames():
    cfg = BeliefConfig(agents=8, facts=6, rounds=5, noise=0.3)
    res = simulate(cfg, seed=4, runs=1, record=True)
    rec, dom = res.recording, res.domain
    data = animation.round_data(rec, dom, 0, 1)
    assert data["beliefs"].shape == (8, 12) and len(data["edges"]) == 4
    assert {c for *_, c in data["edges"]} <= {animation.EDGE_TRUE, animation.EDGE_FALSE, animation.EDGE_NONE}
    for fig in (animation.network_figure(rec, dom), animation.belief_heatmap_figure(rec, dom)):
        assert len(fig.frames) == rec.rounds + 1
    assert isinstance(animation.metrics_figure(rec), go.Figure)


def test_engine_never_imports_streamlit():
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[2] / "ifworld" / "beliefs"
    for path in root.glob("*.py"):
        assert "import streamlit" not in path.read_text(), path


def test_figures_readable(rows):
    f1 = figures.figure1(rows)
    colours = {}
    for trace in f1.data:  # one colour per condition across panels
        colour = getattr(getattr(trace, "line", None), "color", None) or getattr(
            getattr(trace, "marker", None), "color", None)
        if trace.name and isinstance(colour, str):
            colours.setdefault(trace.name, set()).add(colour)
    assert colours and all(len(c) == 1 for name, c in colours.items() if name.startswith("heuristic"))
    heat = [t for t in f1.data if t.type == "heatmap"]
    assert heat and heat[0].showscale and heat[0].zmin == 0 and heat[0].zmax == 1
    assert f1.layout.xaxis5.type == "category"  # strategy panel (row 2, col 2)
    f2 = figures.figure2(rows)
    assert all(list(v.span) == [0, 1] for v in f2.data if v.type == "violin")
    one = rows[rows["agents"] == 6]
    fixed = one[(one["bandwidth"] == 1) & (one["rounds"] == 4)]
    texts = [t.text[0] for t in figures.figure1(fixed).data if getattr(t, "mode", None) == "text"]
    assert any(t.startswith("not swept") for t in texts)


def test_readable_tables(rows):
    t1 = tables.readable(tables.table1_by_condition(rows))
    assert list(t1.columns[:3]) == ["Condition", "F1 (mean ± std)", "Precision (mean ± std)"]
    assert " ± " in t1.iloc[0, 1]
    t6 = tables.readable(tables.table6_top_configurations(rows, top=3))
    metric_cols = [i for i, c in enumerate(t6.columns) if "mean ± std" in c]
    param_words = {tables.WORDS[p] for p in tables.PARAMETERS}
    param_cols = [i for i, c in enumerate(t6.columns) if c in param_words]
    assert max(metric_cols) < min(param_cols)
    const = [c for c in t6.columns if c == "Domain"]
    assert const and t6.columns.get_loc("Domain") > t6.columns.get_loc("Agents N")  # constants last


@pytest.mark.skipif(not figures.HAS_KALEIDO, reason="kaleido (optional export extra) not installed")
def test_figure_export_png_svg(rows):
    fig = figures.figure2(rows.head(60))
    assert figures.figure_image(fig, "png")[:4] == b"\x89PNG"
    assert b"<svg" in figures.figure_image(fig, "svg")[:400]


def test_simulator_views_never_heard_agent_and_fact():
    cfg = BeliefConfig(agents=8, facts=6, rounds=5)
    res = simulate(cfg, seed=4, runs=3, record=True)
    rec, dom = res.recording, res.domain
    start = animation.round_data(rec, dom, run=1, t=0)["beliefs"]
    held = rec.beliefs[0, 1][:, animation.fact_order(dom)]
    pair_total = rec.beliefs[0, 1][:, 0::2] + rec.beliefs[0, 1][:, 1::2]
    assert np.isnan(start).sum() == 2 * (pair_total == 0).sum()  # never heard: blank, both members
    assert (start[~np.isnan(start)] >= 0).all() and (held[np.isnan(start)] == 0).all()
    history = animation.agent_history(rec, dom, run=1, agent=2)
    assert len(history) == int(rec.active[:, 1].sum()) and {"met", "sent", "received", "vote"} <= set(history[0])
    p = rec.partners[0, 1, 2]
    if p >= 0:
        assert history[0]["received"] == "; ".join(dom.labels[f] for f in rec.messages[0, 1, p] if f >= 0) or "—"
    fact = int(dom.true_facts[0])
    groups = animation.fact_holders(rec, dom, run=1, fact=fact, t=rec.rounds)
    assert sorted(sum(groups.values(), [])) == list(range(8))  # every agent in exactly one group
    assert isinstance(animation.agent_figure(rec, dom, 1, 2), go.Figure)


def test_network_samples_large_populations():
    res = simulate(BeliefConfig(agents=150, facts=5, rounds=2), seed=0, runs=1, record=True)
    fig = animation.network_figure(res.recording, res.domain)
    assert len(fig.data[-1].x) == animation.MAX_DRAWN_AGENTS and "60 of 150" in fig.layout.title.text
