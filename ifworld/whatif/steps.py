"""What-if replay in the user's words: names for the steps of every what-if graph, and a replay rebuilt
from a saved record when a run has no checkpoint history (imported or pruned).

:func:`namer` gives each method's workflow (its spec names its namer: IF-World and the single, tree and
debate baselines have theirs here) its :data:`~ifworld.runs.StepNamer` — "Refined the scenario", "Round 1 —
economics expert", "Debate for round 2", "Shared frame for round 2", "Paused for review", "Report written",
"Tree search — step 1, branch 2", "Debate — Pro, turn 1" … — registered with the workflows so
:func:`ifworld.runs.replay` uses it.
:func:`record_steps` returns the same :class:`~ifworld.runs.ReplayStep` shape, numbered from 1.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ifworld.runs.steps import ReplayStep, StepContext, StepNamer, changed_keys
from ifworld.whatif.methods import REGISTRY
from ifworld.whatif.records import WhatIfRecord, load_record

REPORT_PARTS = {"report_core": "verdict", "report_analysis": "analysis tables", "report_scenarios": "scenarios"}


def _report_label(method: str) -> str:
    """A baseline's own answer, as its spec names it ("Tree search — best leaf's answer")."""
    return REGISTRY.get(method).report_label


def _int(value: Any, default: int = 1) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _and(items: list[str]) -> str:
    """"a", "a and b", "a, b and c" (repeats and blanks left out)."""
    items = list(dict.fromkeys(i for i in items if i))
    if len(items) < 2:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _written(writes: list[Any], key: str) -> list[dict[str, Any]]:
    """The items a group of tasks appended to ``key`` (e.g. each expert's ``outputs`` entry)."""
    return [item for w in writes if isinstance(w, dict) for item in w.get(key) or [] if isinstance(item, dict)]


def _experts(ctx: StepContext, writes: list[Any], r: int) -> str:
    items = _written(writes, "outputs")
    done = [i["domain"] for i in items if "output" in i and i.get("domain")]
    failed = [i["domain"] for i in items if "error" in i and i.get("domain")]
    if not done and not failed:
        return f"Round {r} — experts" + ("" if ctx.finished else " at work")
    parts = [f"{_and(done)} expert{'s' if len(done) > 1 else ''}"] if done else []
    parts += [f"{_and(failed)} expert{'s' if len(failed) > 1 else ''} failed"] if failed else []
    return f"Round {r} — " + "; ".join(parts)


def _pipeline(ctx: StepContext, node: str, writes: list[Any]) -> str:
    r = _int(ctx.before.get("round"))
    if node == "refine":
        return "Refined the scenario"
    if node == "review":
        return "Paused for review" if ctx.paused or not ctx.finished else "Scenario reviewed"
    if node == "facilitate":
        done = r - 1  # the round counter already points at the next round here
        return (f"Paused for contributions after round {done}" if ctx.paused or not ctx.finished
                else f"Contributions after round {done}")
    if node == "expert":
        return _experts(ctx, writes, r)
    fixed = {"start_round": f"Round {r} begins", "collect": f"Round {r} — answers collected",
             "resolve": f"Round {r} — conflicts resolved", "final_resolve": f"Round {r} — final conflicts resolved",
             "debate_judge": f"Debate for round {r + 1} — judged", "frame": f"Shared frame for round {r + 1}",
             "assemble": "Report written"}
    return fixed.get(node, "")


def _sides(nodes: list[str]) -> str:
    return _and([n.removeprefix("debate_").title() for n in nodes])


def _group(ctx: StepContext) -> list[tuple[str, list[Any]]]:
    """Tasks grouped by node name in order of first appearance, with what each wrote."""
    groups: dict[str, list[Any]] = {}
    for i, node in enumerate(ctx.nodes):
        groups.setdefault(node, []).append(ctx.writes[i] if i < len(ctx.writes) else None)
    return list(groups.items())


def label_ifworld(ctx: StepContext) -> str | None:
    """IF-World pipeline steps. Parallel nodes of one step share a label: "Round 1 — conflicts resolved ·
    Debate for round 2 — Pro and Con"; report parts are one phrase."""
    groups = _group(ctx)
    debate = [n for n, _ in groups if n in ("debate_pro", "debate_con")]
    parts = [n for n, _ in groups if n in REPORT_PARTS]
    labels = []
    for node, writes in groups:
        if node in ("debate_pro", "debate_con"):
            label = f"Debate for round {_int(ctx.before.get('round')) + 1} — {_sides(debate)}" \
                if node == debate[0] else ""
        elif node in REPORT_PARTS:
            label = ("Writing the report — " + _and([REPORT_PARTS[p] for p in parts])) if node == parts[0] else ""
        else:
            label = _pipeline(ctx, node, writes)
            if not label:
                return None  # a node this namer does not know: the generic label says what it is
        labels.append(label)
    return " · ".join(label for label in labels if label) or None


def _branches(writes: list[Any]) -> list[str]:
    ids = [str(n.get("id", "")) for n in _written(writes, "nodes")]
    return [i.rsplit(".", 1)[-1] for i in ids if "." in i]


def label_tree(ctx: StepContext) -> str | None:
    """Tree-search baseline: first draft, the branches of each step, the best leaf so far, the answer."""
    d = _int(ctx.before.get("depth"), 0)
    (node, writes), *rest = _group(ctx)
    if rest:
        return None
    if node == "expand":
        branches = _branches(writes)
        which = (f"branch {branches[0]}" if len(branches) == 1 else f"branches {_and(branches)}") if branches \
            else "branches" + ("" if ctx.finished else " at work")
        return f"Tree search — step {d}, {which}"
    return {"draft": "Tree search — first draft", "select": f"Tree search — step {d}, best leaf so far picked",
            "finish": _report_label("tree")}.get(node)


def label_debate(ctx: StepContext) -> str | None:
    """Pro/Con debate baseline: each turn's sides, the turn's end, the judge's synthesis."""
    turn = _int(ctx.before.get("round"))
    names = [n for n, _ in _group(ctx)]
    if set(names) <= {"debate_pro", "debate_con"}:
        return f"Debate — {_sides(names)}, turn {turn}"
    if len(names) == 1:
        return {"turn": f"Debate — turn {turn} done", "synthesis": _report_label("debate")}.get(names[0])
    return None


def label_single(ctx: StepContext) -> str | None:
    """Single-agent baseline: one step."""
    return _report_label("single") if ctx.nodes == ["single"] else None


def namer(method: str) -> StepNamer | None:
    """The step namer of a what-if method's workflow (its spec's ``step_namer``; None: node names)."""
    found: Callable[[StepContext], str | None] | None = REGISTRY.get(method).hook("step_namer")
    return found


# -- replay from a saved record ---------------------------------------------------------------------------
def record_steps(record: WhatIfRecord | dict[str, Any] | None) -> list[ReplayStep]:
    """A replay built from the final record alone (no checkpoints needed), numbered from 1: the refined
    scenario, each expert of each round, the round's debate and shared frame, then the report. The states are
    plain JSON, like a checkpoint's; a record with nothing in it gives no steps."""
    rec = load_record(record)
    steps: list[ReplayStep] = []
    state: dict[str, Any] = {"proposition": rec.proposition or None, "rounds": []}
    previous = _copy(state)

    def push(label: str, nodes: list[str], nxt: list[str]) -> None:
        nonlocal previous
        values = _copy(state)
        steps.append(ReplayStep(number=len(steps) + 1, label=label, nodes=nodes, values=values, next=nxt,
                                changed=changed_keys(previous, values)))
        previous = values

    if rec.scenario is not None:
        state["scenario"] = rec.scenario.model_dump(mode="json")
        push("Refined the scenario", ["refine"], ["experts"])
    for i, rnd in enumerate(rec.rounds):
        last = i + 1 == len(rec.rounds)
        current: dict[str, Any] = {"round": rnd.round, "experts": {}, "failed": {}, "frame": None, "debate": None}
        state["rounds"].append(current)
        for domain, output in rnd.experts.items():
            current["experts"][domain] = output.model_dump(mode="json")
            push(f"Round {rnd.round} — {domain} expert", [f"expert:{domain}"], ["experts"])
        for domain, error in rnd.failed.items():
            current["failed"][domain] = error
            push(f"Round {rnd.round} — {domain} expert failed", [f"expert:{domain}"], ["experts"])
        if rnd.debate is not None:
            current["debate"] = rnd.debate.model_dump(mode="json")
            # the debate baseline's record: its rounds are the debate's turns (the layout of its own graph)
            debate_only = rec.method == "debate"
            push(f"Debate — Pro and Con, turn {rnd.round}" if debate_only else f"Debate for round {rnd.round + 1}",
                 ["debate"], ["debate"] if debate_only and not last else ["frame"])
        if rnd.frame is not None:
            current["frame"] = rnd.frame.model_dump(mode="json")
            push(f"Round {rnd.round} — final synthesis" if last else f"Shared frame for round {rnd.round + 1}",
                 ["frame"], ["report"] if last else ["experts"])
    if rec.report is not None:
        state["report"] = rec.report.model_dump(mode="json")
        spec = REGISTRY.get(rec.method) if rec.method in REGISTRY else None
        label = spec.report_label if spec is not None and rec.report.natural else "Report written"
        push(label, ["report"], [])
    return steps


def _copy(state: dict[str, Any]) -> dict[str, Any]:
    return {**state, "rounds": [{**r, "experts": dict(r["experts"]), "failed": dict(r["failed"])}
                                for r in state.get("rounds", [])]}
