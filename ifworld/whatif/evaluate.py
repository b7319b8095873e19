"""Evaluation harness: methods × propositions (× repeats) → judged scores and the paper's tables.

Each cell runs a stored workflow and judges the saved record, so every score can be traced to its run.
Tables: macro-average per dimension ± std (macro over topics), per-topic overall, and the ablation table.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ifworld import runs
from ifworld.config import Settings, load_settings
from ifworld.errors import InputError
from ifworld.runs.store import RunStore, get_store
from ifworld.whatif import service
from ifworld.whatif.judge import DIMENSIONS, JUDGE_ROLE, judge_record
from ifworld.whatif.params import default_params, estimate_calls
from ifworld.whatif.progress import TOKENS_PER_CALL
from ifworld.whatif.propositions import (
    CLASSROOM_PRESETS,
    MAX_BREADTH,
    MAX_DEBATE_ROUNDS,
    MAX_DEPTH,
    METHODS,
    PAPER_PROPOSITIONS,
)

EVAL_PARALLEL_RUNS = 4
ABLATIONS: dict[str, dict[str, Any]] = {
    "no_debate": {"no_debate": True}, "no_conflict": {"no_conflict": True},
    "no_shared_frame": {"no_shared_frame": True}, "no_refine": {"no_refine": True},
    "2x1": {"experts": ["physics", "economics"], "rounds": 1},
}
SCORE_COLUMNS = [*DIMENSIONS, "overall"]


@dataclass
class EvalResult:
    scores: pd.DataFrame
    macro: pd.DataFrame
    per_topic: pd.DataFrame
    ablation: pd.DataFrame
    figures: dict[str, Any] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    budget_tokens: float | None = None
    usage: pd.DataFrame | None = None


def parse_method(spec: str) -> tuple[str, dict[str, Any]]:
    """``"ifworld"`` or an ablation like ``"ifworld:no_debate"`` → (method, param overrides)."""
    method, _, variant = spec.strip().partition(":")
    if method not in METHODS:
        raise InputError(f"Unknown method {method!r}; choose from {', '.join(METHODS)} "
                         f"(ablations: ifworld:{', ifworld:'.join(ABLATIONS)}).")
    if variant and (method != "ifworld" or variant not in ABLATIONS):
        raise InputError(f"Unknown ablation {spec!r}; use ifworld:{', ifworld:'.join(ABLATIONS)}.")
    return method, dict(ABLATIONS.get(variant, {}))


def resolve_propositions(spec: str | Sequence[str]) -> list[str]:
    """``paper`` / ``classroom`` / a file (one per line, or a JSON list) / a list of propositions."""
    if not isinstance(spec, str):
        return list(spec)
    if spec == "paper":
        return list(PAPER_PROPOSITIONS)
    if spec == "classroom":
        return list(CLASSROOM_PRESETS)
    path = Path(spec)
    if path.is_file():
        text = path.read_text(encoding="utf-8")
        if text.lstrip().startswith("["):
            return json.loads(text)
        return [ln.strip() for ln in text.splitlines() if ln.strip()]
    raise InputError(f"--propositions must be 'paper', 'classroom' or a file; {spec!r} is none of these.")


def match_budget(method: str, tokens: float) -> dict[str, Any]:
    """Baseline size parameters whose expected tokens come closest to ``tokens`` (within the bounds):
    tree breadth × depth from its 2 + 2·b·d calls, debate rounds from its 2·r + 1 calls; single has none."""
    calls = max(1.0, tokens / TOKENS_PER_CALL[method]) if method in TOKENS_PER_CALL else 1.0
    if method == "tree":
        area = max(1.0, (calls - 2) / 2)
        depth = min(MAX_DEPTH, max(1, round(math.sqrt(area))))
        return {"breadth": min(MAX_BREADTH, max(1, round(area / depth))), "depth": depth}
    if method == "debate":
        return {"debate_rounds": min(MAX_DEBATE_ROUNDS, max(1, round((calls - 1) / 2)))}
    return {}


def estimate_eval_calls(methods: Sequence[str], propositions: Sequence[str], repeats: int,
                        base: dict[str, Any] | None = None) -> int:
    """Model calls an evaluation will make (every run's estimate plus one judge call per run), before it
    starts — the number the CLI compares with ``CONFIRM_CALLS``. A matched budget is counted at the
    documented maxima of the baselines, the most it can cost."""
    base = {k: v for k, v in (base or {}).items() if k != "budget_tokens"}
    total = 0
    for spec in methods:
        method, overrides = parse_method(spec)
        params = default_params(propositions[0] if propositions else "What if?", method, **{**base, **overrides})
        total += (estimate_calls(params) + 1) * len(propositions) * repeats
    return total


def _cell(spec: str, proposition: str, topic: int, repeat: int, settings: Settings, store: RunStore,
          base: dict[str, Any]) -> dict[str, Any]:
    method, overrides = parse_method(spec)
    if method != "ifworld" and base.get("budget_tokens"):
        overrides = {**match_budget(method, base["budget_tokens"]), **overrides}
    base = {k: v for k, v in base.items() if k != "budget_tokens"}
    params = default_params(proposition, method, **{**base, **overrides})
    row: dict[str, Any] = {"method": spec, "topic": topic + 1, "proposition": proposition, "repeat": repeat}
    start = time.perf_counter()
    try:
        run_id = runs.start_run(f"whatif.{method}", params, store=store)
        row["run_id"] = run_id
        record = service.run(params, settings=settings, store=store, run_id=run_id)
        judged = judge_record(record, settings, run_id=run_id, store=store)
        judge_call = next((c for c in reversed(store.calls(run_id)) if c.get("role") == JUDGE_ROLE), {})
        row.update({k: judged[k] for k in SCORE_COLUMNS}, status="ok",
                   overall_mismatch=judged["overall_mismatch"], calls=record["usage"]["calls"],
                   tokens=record["usage"]["prompt_tokens"] + record["usage"]["completion_tokens"],
                   budget_params=json.dumps({k: params[k] for k in ("breadth", "depth", "debate_rounds")}),
                   judgement=judged, judge_raw=judge_call.get("output"), judge_retries=judge_call.get("retries"))
    except Exception as exc:  # noqa: BLE001 — a failed cell is a row, not a crashed evaluation
        row.update({k: float("nan") for k in SCORE_COLUMNS}, status=f"failed: {exc}"[:300])
    row["wall_s"] = round(time.perf_counter() - start, 3)
    return row


def run_eval(methods: Sequence[str], propositions: str | Sequence[str], repeats: int = 1,
             settings: Settings | None = None, out_dir: str | Path | None = None,
             on_progress: Callable[[int, int, dict], None] | None = None, *, store: RunStore | None = None,
             base_params: dict[str, Any] | None = None, budget: str | float | None = None) -> EvalResult:
    """Run and judge every (method, proposition, repeat) cell; write CSV, HTML charts and ``evaluation.json``
    to ``out_dir``. ``budget="matched"`` sizes the tree and debate baselines to IF-World's measured mean
    tokens per run (a number sets the token budget directly); tokens per method are reported either way."""
    settings = settings or load_settings()
    store = store or get_store()
    props = resolve_propositions(propositions)
    for spec in methods:
        parse_method(spec)
    cells = [(m, p, i, k) for i, p in enumerate(props) for m in methods for k in range(repeats)]
    rows: list[dict[str, Any]] = []
    base = dict(base_params or {})

    def run(batch: list[tuple]) -> None:
        with ThreadPoolExecutor(max_workers=EVAL_PARALLEL_RUNS) as pool:
            futures = [pool.submit(_cell, m, p, i, k, settings, store, base) for m, p, i, k in batch]
            for fut in futures:
                rows.append(fut.result())
                if on_progress:
                    on_progress(len(rows), len(cells), rows[-1])

    if budget == "matched":  # IF-World first: the baselines get its measured mean tokens per run
        run([c for c in cells if c[0] == "ifworld"])
        measured = [r["tokens"] for r in rows if r["method"] == "ifworld" and r.get("status") == "ok"]
        if measured:
            base["budget_tokens"] = sum(measured) / len(measured)
        run([c for c in cells if c[0] != "ifworld"])
    else:
        if budget:
            base["budget_tokens"] = float(budget)
        run(cells)
    result = tables(pd.DataFrame(rows))
    result.budget_tokens = base.get("budget_tokens")
    if out_dir is not None:
        result.files = write_outputs(result, Path(out_dir))
    return result


def tables(scores: pd.DataFrame) -> EvalResult:
    """Macro (per dimension mean ± std over topics), per-topic overall and ablation tables, plus figures."""
    ok = scores[scores["status"] == "ok"] if "status" in scores else scores
    per_prop = ok.groupby(["method", "topic"])[SCORE_COLUMNS].mean().reset_index()
    agg = per_prop.groupby("method")[SCORE_COLUMNS].agg(["mean", "std"]).fillna(0.0)
    macro = pd.DataFrame({c: [f"{agg.loc[m, (c, 'mean')]:.1f} ± {agg.loc[m, (c, 'std')]:.1f}" for m in agg.index]
                          for c in SCORE_COLUMNS}, index=agg.index)
    macro.attrs["numeric"] = agg
    per_topic = per_prop.pivot(index="topic", columns="method", values="overall") if len(per_prop) else pd.DataFrame()
    abl_rows = [m for m in agg.index if m == "ifworld" or m.startswith("ifworld:")]
    ablation = pd.DataFrame({"overall_mean": [agg.loc[m, ("overall", "mean")] for m in abl_rows],
                             "overall_std": [agg.loc[m, ("overall", "std")] for m in abl_rows]}, index=abl_rows)
    if "ifworld" in abl_rows:
        ablation["delta_vs_full"] = ablation["overall_mean"] - ablation.loc["ifworld", "overall_mean"]
    usage = ok.groupby("method")[["calls", "tokens"]].mean().round(0) if {"calls", "tokens"} <= set(ok) else None
    if usage is not None:
        macro = macro.join(usage.rename(columns={"calls": "calls per run", "tokens": "tokens per run"}))
        macro.attrs["numeric"] = agg
    return EvalResult(scores=scores, macro=macro, per_topic=per_topic, ablation=ablation,
                      figures=figures(agg, per_topic, ablation), usage=usage)


def figures(agg: pd.DataFrame, per_topic: pd.DataFrame, ablation: pd.DataFrame) -> dict[str, Any]:
    """Plotly charts: macro scores by dimension, per-topic overall, ablation deltas."""
    import plotly.graph_objects as go

    from ifworld.figstyle import styled

    macro = go.Figure([go.Bar(name=m, x=list(DIMENSIONS), y=[agg.loc[m, (d, "mean")] for d in DIMENSIONS],
                              error_y={"type": "data", "array": [agg.loc[m, (d, "std")] for d in DIMENSIONS]})
                       for m in agg.index])
    macro.update_layout(barmode="group", title="Macro-average score per dimension (± std over topics)",
                        yaxis_title="score")
    topic = go.Figure([go.Bar(name=str(m), x=[str(t) for t in per_topic.index], y=per_topic[m].tolist())
                       for m in per_topic.columns])
    topic.update_layout(barmode="group", title="Overall score per topic", xaxis_title="topic", yaxis_title="overall")
    abl = go.Figure([go.Bar(x=list(ablation.index), y=ablation["overall_mean"].tolist(),
                            error_y={"type": "data", "array": ablation["overall_std"].tolist()})])
    abl.update_layout(title="Ablations (overall)", yaxis_title="overall")
    return {"macro": styled(macro), "per_topic": styled(topic), "ablation": styled(abl)}


def write_outputs(result: EvalResult, out_dir: Path) -> list[str]:
    out_dir.mkdir(parents=True, exist_ok=True)
    log_columns = [c for c in ("judgement", "judge_raw", "judge_retries") if c in result.scores]
    files = {"scores.csv": result.scores.drop(columns=log_columns), "macro.csv": result.macro,
             "per_topic.csv": result.per_topic, "ablation.csv": result.ablation}
    written = []
    for name, df in files.items():
        df.to_csv(out_dir / name, index=name != "scores.csv")
        written.append(str(out_dir / name))
    for name, fig in result.figures.items():
        fig.write_html(out_dir / f"{name}.html", include_plotlyjs=True)  # works offline
        written.append(str(out_dir / f"{name}.html"))
    summary = {"macro": result.macro.to_dict(orient="index"), "cells": len(result.scores),
               "failed": int((result.scores["status"] != "ok").sum())}
    (out_dir / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    (out_dir / "evaluation.json").write_text(json.dumps(evaluation_log(result), indent=2, default=str,
                                                        ensure_ascii=False), encoding="utf-8")
    return [*written, str(out_dir / "summary.json"), str(out_dir / "evaluation.json")]


def evaluation_log(result: EvalResult) -> dict[str, Any]:
    """The paper's ``evaluation.json``: every judgement with its raw reply, retries, model and seed."""
    cells = []
    for row in result.scores.to_dict(orient="records"):
        judged = row.get("judgement") if isinstance(row.get("judgement"), dict) else {}
        cells.append({"method": row["method"], "topic": row["topic"], "proposition": row["proposition"],
                      "repeat": row["repeat"], "run_id": row.get("run_id"), "status": row["status"],
                      "calls": row.get("calls"), "tokens": row.get("tokens"), "budget_params": row.get("budget_params"),
                      "judgement": judged, "raw_reply": row.get("judge_raw"), "retries": row.get("judge_retries"),
                      "seed": judged.get("seed"), "model": judged.get("model")})
    return {"budget_tokens": result.budget_tokens, "cells": cells}
