"""Evaluation harness: methods × propositions (× repeats) → judged scores and the paper's tables.

Each cell runs a stored workflow and judges the saved record, so every score can be traced to its run.
Tables: macro-average per dimension ± std (macro over topics) with tokens per method beside the scores,
per-topic overall, and the ablation table (§3.4: ``--methods ablation --propositions ablation``).

Budgets (§3.1, "matched token budgets") are matched by default: IF-World (the registry's reference method)
runs first, and the baselines with a token budget (tree and debate) get its measured tokens *for the same
proposition* as their target (:mod:`ifworld.whatif.budget`);
each run's tokens, target, ratio and status are in the scores and ``evaluation.json``. The single agent
stays one call and is reported as unmatched; ``budget="none"`` runs the baselines at their fixed sizes.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ifworld import runs, safe_json
from ifworld.config import Settings, load_settings
from ifworld.errors import InputError
from ifworld.files import read_text_bounded
from ifworld.limits import MAX_ANSWER_FILE_BYTES
from ifworld.runs.store import RunStore, get_store
from ifworld.safe_csv import write_csv
from ifworld.safe_figure import inert_figure
from ifworld.whatif import service
from ifworld.whatif.budget import BUDGET_TOLERANCE, Budget, budget_of, budgeted, unbudgeted_status
from ifworld.whatif.judge import DIMENSIONS, JUDGE_ROLE, judge_record
from ifworld.whatif.methods import REGISTRY, paper_methods, reference_method
from ifworld.whatif.params import default_of, default_params, estimate_calls
from ifworld.whatif.progress import estimate
from ifworld.whatif.propositions import ABLATION_PROPOSITION, CLASSROOM_PRESETS, PAPER_PROPOSITIONS

EVAL_PARALLEL_RUNS = 4
ABLATIONS: dict[str, dict[str, Any]] = {
    "no_debate": {"no_debate": True}, "no_conflict": {"no_conflict": True},
    "no_shared_frame": {"no_shared_frame": True}, "no_refine": {"no_refine": True},
    "2x1": {"experts": ["physics", "economics"], "rounds": 1},
}
SCORE_COLUMNS = [*DIMENSIONS, "overall"]
BUDGET_COLUMNS = ("budget_target", "budget_ratio", "budget_status", "budget_steps", "budget_note")


def method_presets() -> dict[str, list[str]]:
    """``paper`` — §3.1's comparison (the specs with ``in_paper``: IF-World against single, tree and debate);
    ``ablation`` — §3.4, the reference method and Table 3's variants; ``all`` — every registered method."""
    ref = reference_method()
    return {"paper": paper_methods(), "ablation": [ref, *(f"{ref}:{a}" for a in ABLATIONS)],
            "all": list(REGISTRY.names())}


def method_order(names: Sequence[str]) -> list[str]:
    """Method specs (``tree``, ``ifworld:no_debate``) in registry order, each method's variants after it:
    the order of every comparison table."""
    rank = {name: i for i, name in enumerate(REGISTRY.names())}
    return sorted(names, key=lambda m: (rank.get(m.partition(":")[0], len(rank)), m.partition(":")[0],
                                        m.partition(":")[2]))


@dataclass
class EvalResult:
    scores: pd.DataFrame
    macro: pd.DataFrame
    per_topic: pd.DataFrame
    ablation: pd.DataFrame
    figures: dict[str, Any] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    budget: str = "matched"
    usage: pd.DataFrame | None = None


def parse_method(spec: str) -> tuple[str, dict[str, Any]]:
    """``"ifworld"`` or an ablation like ``"ifworld:no_debate"`` → (method, param overrides). A variant applies
    to a method whose spec lists its switches (or size parameters, for ``2x1``)."""
    method, _, variant = spec.strip().partition(":")
    ref = reference_method()
    if method not in REGISTRY:
        raise InputError(f"Unknown method {method!r}; choose from {REGISTRY.help_text(', ')} "
                         f"(ablations: {ref}:{f', {ref}:'.join(ABLATIONS)}).")
    found = REGISTRY.get(method)
    if variant and (variant not in ABLATIONS
                    or not set(ABLATIONS[variant]) <= {*found.switches, *found.size_params}):
        raise InputError(f"Unknown ablation {spec!r}; use {ref}:{f', {ref}:'.join(ABLATIONS)}.")
    return method, dict(ABLATIONS.get(variant, {}))


def resolve_methods(spec: str | Sequence[str]) -> list[str]:
    """Method specs from a comma-separated list or a list; ``paper`` and ``ablation`` expand
    and ``all`` expand (:func:`method_presets`). Every spec is checked (:func:`parse_method`)."""
    items = [m.strip() for m in (spec.split(",") if isinstance(spec, str) else spec) if m.strip()]
    presets = method_presets()
    out = list(dict.fromkeys(m for item in items for m in presets.get(item, [item])))
    if not out:
        raise InputError("No method given: name at least one, e.g. --methods ifworld,tree (or 'paper').")
    for m in out:
        parse_method(m)
    return out


def resolve_propositions(spec: str | Sequence[str]) -> list[str]:
    """``paper`` (§3.1's ten) / ``ablation`` (§3.4's topic) / ``classroom`` / a file (one per line, or a JSON
    list) / a list of propositions."""
    if not isinstance(spec, str):
        return list(spec)
    if spec == "paper":
        return list(PAPER_PROPOSITIONS)
    if spec == "ablation":
        return [ABLATION_PROPOSITION]
    if spec == "classroom":
        return list(CLASSROOM_PRESETS)
    path = Path(spec)
    if path.exists() or path.is_symlink():
        text = read_text_bounded(path, MAX_ANSWER_FILE_BYTES, what="propositions file",
                                 limit_name="MAX_ANSWER_FILE_BYTES")
        if text.lstrip().startswith("["):
            return json.loads(text)
        return [ln.strip() for ln in text.splitlines() if ln.strip()]
    raise InputError(f"--propositions must be 'paper', 'ablation', 'classroom' or a file; {spec!r} is none of "
                     "these.")


def parse_budget(budget: str | float | None) -> str | float:
    """``"matched"`` (the default), ``"none"`` (fixed sizes) or a positive number of tokens."""
    if budget is None or budget == "matched":
        return "matched"
    if isinstance(budget, str) and budget.strip().lower() in ("none", "off", "0"):
        return "none"
    try:
        value = float(budget)
    except (TypeError, ValueError):
        value = 0.0
    if value <= 0:
        raise InputError(f"--budget must be 'matched', 'none' or a positive number of tokens (got {budget!r}).")
    return value


def budget_params(method: str, target: float | None) -> dict[str, Any]:
    """Size parameters of a budgeted baseline: the target (the steps follow the measured tokens while the run
    goes; a tree keeps Appendix B.3's breadth of 3, the tree's declared default, and grows in
    depth); nothing for IF-World, the single agent or no target."""
    spec = budget_of(method)
    if spec is None or not target:
        return {}
    return {"budget_tokens": target, **({"breadth": default_of("breadth")} if spec.per_branch else {})}


def estimate_eval_calls(methods: Sequence[str], propositions: Sequence[str], repeats: int,
                        base: dict[str, Any] | None = None, budget: str | float = "matched") -> int:
    """Model calls an evaluation will make (every run's estimate plus one judge call per run), before it
    starts — the number the CLI compares with ``CONFIRM_CALLS``. A matched baseline is counted at the size
    IF-World's estimated tokens would buy it."""
    budget = parse_budget(budget)
    base = dict(base or {})
    total = 0
    for prop in propositions:
        target = (estimate(default_params(prop, reference_method(), **base)).tokens if budget == "matched" else
                  None if budget == "none" else float(budget))
        for spec in methods:
            method, overrides = parse_method(spec)
            params = default_params(prop, method, **{**base, **overrides, **budget_params(method, target)})
            total += (estimate_calls(params) + 1) * repeats
    return total


def _cell(spec: str, proposition: str, topic: int, repeat: int, settings: Settings, store: RunStore,
          base: dict[str, Any], target: float | None = None) -> dict[str, Any]:
    method, overrides = parse_method(spec)
    params = default_params(proposition, method, **{**base, **overrides, **budget_params(method, target)})
    row: dict[str, Any] = {"method": spec, "topic": topic + 1, "proposition": proposition, "repeat": repeat}
    start = time.perf_counter()
    try:
        run_id = runs.start_run(REGISTRY.get(method).workflow, params, store=store)
        row["run_id"] = run_id
        record = service.run(params, settings=settings, store=store, run_id=run_id)
        judged = judge_record(record, settings, run_id=run_id, store=store)
        judge_call = next((c for c in reversed(store.calls(run_id)) if c.get("role") == JUDGE_ROLE), {})
        row.update({k: judged[k] for k in SCORE_COLUMNS}, status="ok",
                   overall_mismatch=judged["overall_mismatch"], calls=record["usage"]["calls"],
                   tokens=record["usage"]["prompt_tokens"] + record["usage"]["completion_tokens"],
                   budget_params=json.dumps({k: params[k] for k in ("breadth", "depth", "debate_rounds")}),
                   judgement=judged, judge_raw=judge_call.get("output"), judge_retries=judge_call.get("retries"))
        spent = Budget.model_validate(record.get("budget") or {
            "tokens": row["tokens"], "status": unbudgeted_status(method)})
        row.update(budget_target=spent.target, budget_ratio=spent.ratio, budget_status=spent.status,
                   budget_steps=spent.steps, budget_note=spent.note)
    except Exception as exc:  # noqa: BLE001 — a failed cell is a row, not a crashed evaluation
        row.update({k: float("nan") for k in SCORE_COLUMNS}, status=f"failed: {exc}"[:300])
    row["wall_s"] = round(time.perf_counter() - start, 3)
    return row


def run_eval(methods: str | Sequence[str], propositions: str | Sequence[str], repeats: int = 1,
             settings: Settings | None = None, out_dir: str | Path | None = None,
             on_progress: Callable[[int, int, dict], None] | None = None, *, store: RunStore | None = None,
             base_params: dict[str, Any] | None = None, budget: str | float | None = "matched") -> EvalResult:
    """Run and judge every (method, proposition, repeat) cell; write CSV, HTML charts and ``evaluation.json``
    to ``out_dir``. ``budget="matched"`` (the default) runs IF-World first and gives the tree and debate
    baselines its mean measured tokens for the same proposition as their target; a number sets the target
    directly; ``"none"`` keeps their fixed sizes. Tokens per method are reported either way."""
    settings = settings or load_settings()
    store = store or get_store()
    props = resolve_propositions(propositions)
    specs = resolve_methods(methods)
    budget = parse_budget(budget)
    ref = reference_method()
    if budget == "matched" and ref not in specs and any(parse_method(m)[0] in budgeted() for m in specs):
        raise InputError("--budget matched gives the tree and debate baselines IF-World's measured tokens for "
                         "each proposition: add ifworld to --methods, give the budget as a number of tokens, "
                         "or use --budget none.")
    cells = [(m, p, i, k) for i, p in enumerate(props) for m in specs for k in range(repeats)]
    rows: list[dict[str, Any]] = []
    base = dict(base_params or {})

    def run(batch: list[tuple], targets: dict[int, float | None]) -> None:
        with ThreadPoolExecutor(max_workers=EVAL_PARALLEL_RUNS) as pool:
            futures = [pool.submit(_cell, m, p, i, k, settings, store, base, targets.get(i))
                       for m, p, i, k in batch]
            for fut in futures:
                rows.append(fut.result())
                if on_progress:
                    on_progress(len(rows), len(cells), rows[-1])

    if budget == "matched":  # IF-World (and its ablations) first: its tokens per proposition are the targets
        run([c for c in cells if parse_method(c[0])[0] == ref], {})
        targets = {i: ifworld_tokens(rows, i + 1) for i in range(len(props))}
        run([c for c in cells if parse_method(c[0])[0] != ref], targets)
        for row in rows:
            if parse_method(row["method"])[0] in budgeted() and targets[row["topic"] - 1] is None:
                row["budget_note"] = "IF-World failed on this proposition: run at the fixed size, unmatched."
    else:
        run(cells, {i: None if budget == "none" else float(budget) for i in range(len(props))})
    result = tables(pd.DataFrame(rows))
    result.budget = budget if isinstance(budget, str) else f"{budget:,.0f} tokens"
    if out_dir is not None:
        result.files = write_outputs(result, Path(out_dir))
    return result


def ifworld_tokens(rows: list[dict[str, Any]], topic: int) -> float | None:
    """IF-World's mean measured tokens per run on one topic (its repeats), or None when none finished."""
    measured = [r["tokens"] for r in rows if r["method"] == reference_method() and r["topic"] == topic
                and r.get("status") == "ok"]
    return sum(measured) / len(measured) if measured else None


def budget_summary(rows: pd.DataFrame) -> str:
    """One method's budget in a word or two: "reference" (IF-World), "unmatched" (single), "matched ×0.97"
    (mean tokens ÷ target), or how many runs missed the ±25 % band and which way."""
    method = parse_method(str(rows["method"].iloc[0]))[0]
    if rows["method"].iloc[0] == reference_method():
        return "reference"
    status = rows.get("budget_status", pd.Series(dtype=str)).dropna()
    if method in REGISTRY and unbudgeted_status(method) == "unmatched":
        return "unmatched"
    if method not in budgeted() or status.empty or (status == "none").all():
        return "—" if method not in budgeted() else "fixed size"
    ratio = pd.to_numeric(rows["budget_ratio"], errors="coerce").mean()
    missed = status[status != "matched"]
    share = "" if missed.empty else f"{len(status) - len(missed)}/{len(status)} "
    text = f"{share}matched ×{ratio:.2f}"
    return text + "".join(f"; {n} {k}" for k, n in missed.value_counts().items())


def tables(scores: pd.DataFrame) -> EvalResult:
    """Macro (per dimension mean ± std over topics), per-topic overall and ablation tables, plus figures."""
    ok = scores[scores["status"] == "ok"] if "status" in scores else scores
    per_prop = ok.groupby(["method", "topic"])[SCORE_COLUMNS].mean().reset_index()
    agg = per_prop.groupby("method")[SCORE_COLUMNS].agg(["mean", "std"]).fillna(0.0)
    agg = agg.reindex(method_order(list(agg.index)))  # registry order, not the alphabet
    macro = pd.DataFrame({c: [f"{agg.loc[m, (c, 'mean')]:.1f} ± {agg.loc[m, (c, 'std')]:.1f}" for m in agg.index]
                          for c in SCORE_COLUMNS}, index=agg.index)
    macro.attrs["numeric"] = agg
    per_topic = per_prop.pivot(index="topic", columns="method", values="overall") if len(per_prop) else pd.DataFrame()
    if len(per_topic.columns):
        per_topic = per_topic[method_order(list(per_topic.columns))]
    ref = reference_method()
    abl_rows = [m for m in agg.index if m == ref or m.startswith(f"{ref}:")]
    ablation = pd.DataFrame({"overall_mean": [agg.loc[m, ("overall", "mean")] for m in abl_rows],
                             "overall_std": [agg.loc[m, ("overall", "std")] for m in abl_rows]}, index=abl_rows)
    if ref in abl_rows:
        ablation["delta_vs_full"] = ablation["overall_mean"] - ablation.loc[ref, "overall_mean"]
    usage = ok.groupby("method")[["calls", "tokens"]].mean().round(0) if {"calls", "tokens"} <= set(ok) else None
    if usage is not None:  # tokens per method beside the scores (§3.1 compares at matched budgets)
        usage = usage.reindex(method_order(list(usage.index)))
        reference = usage["tokens"].get(ref)
        usage["tokens ÷ IF-World"] = (usage["tokens"] / reference).round(2) if reference else float("nan")
        usage["budget"] = [budget_summary(ok[ok["method"] == m]) for m in usage.index]
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
        write_csv(df, out_dir / name, index=name != "scores.csv")
        written.append(str(out_dir / name))
    for name, fig in result.figures.items():
        inert_figure(fig).write_html(out_dir / f"{name}.html", include_plotlyjs=True)  # works offline
        written.append(str(out_dir / f"{name}.html"))
    summary = {"macro": result.macro.to_dict(orient="index"), "budget": result.budget, "cells": len(result.scores),
               "failed": int((result.scores["status"] != "ok").sum())}
    (out_dir / "summary.json").write_text(safe_json.dumps(summary, indent=2), encoding="utf-8")
    (out_dir / "evaluation.json").write_text(safe_json.dumps(evaluation_log(result), indent=2, default=str,
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
                      **{k: row.get(k) for k in BUDGET_COLUMNS},
                      "judgement": judged, "raw_reply": row.get("judge_raw"), "retries": row.get("judge_retries"),
                      "seed": judged.get("seed"), "model": judged.get("model")})
    return {"budget": result.budget, "budget_tolerance": BUDGET_TOLERANCE, "cells": cells}
