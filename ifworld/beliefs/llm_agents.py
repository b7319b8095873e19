"""LLM belief agents: the reply schema, prompts, model assignment and the pure bookkeeping of a round.

An LLM agent is one model call per round (role ``beliefs.agent``). It sees its current beliefs, the
facts it was told this round and its last :data:`HISTORY_LEN` interactions, all as readable sentences
with ids (``[f12] Ana is the parent of Ben``; at the start every held statement at confidence 1, §3.2, even one
held together with its negation), and answers with :class:`AgentReply` — the structure of the
paper's Appendix A prompt (inputs; revise, choose what to pass on, vote CONTINUE / STOP; a JSON reply) in
our own words. The sharing strategy sets what it is asked to pass on (:data:`SHARING`): ``strategic``
lets the model choose (Appendix A); ``highest_confidence`` passes on its most confident statements
(:func:`most_confident`, §3.3's definition), whatever the model lists. Its beliefs are a
``{fact index: confidence}`` mapping; :func:`belief_matrix` turns a population into the engine's
belief array so the engine's metrics, tables and animation builders apply unchanged (rule ``"llm"``:
per-pair normalised confidence, 0 for pairs an agent never heard of).

Everything here is pure and JSON-able so the graph (:mod:`ifworld.beliefs.graph`) can checkpoint
it; randomness comes from ``SeedSequence([seed, ...])`` so a resumed run pairs agents identically.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, Field

from ifworld import prompts
from ifworld.beliefs.config import LLM_INITIAL_CONFIDENCE, LLM_PAIRED_CONFIDENCE, BeliefConfig
from ifworld.beliefs.domain import Domain
from ifworld.beliefs.metrics import accept, scores
from ifworld.beliefs.topology import build_edges, match_columns
from ifworld.errors import BeliefConfigError

ROLE = "beliefs.agent"
RULE_LABEL = "llm"  # Recording.rule for LLM populations (animation shows normalised confidence)
HISTORY_LEN = 5
MAX_LLM_AGENTS = 200
MAX_LLM_ROUNDS = 50
DEFAULT_MODEL_SLOTS = 4
FACT_ID_RE = re.compile(r"^\s*\[?\s*f?(\d+)\s*\]?\s*$", re.I)
TOPICS = {
    "family": "one family: who is whose parent, sibling, spouse, grandparent or cousin",
    "abstract": "abstract propositions named p1, p2, … and their negations",
}
COUNT_KEYS = ("unknown_facts", "malformed", "kept_beliefs", "extra_shares")
NEGATION_HINT = ("\n- Every statement has an opposite (for example \"X is the parent of Y\" and \"X is not the parent "
                 "of Y\"). At most one of the two is true, so more trust in one means less trust in the other.")
"""The ``negation_hint`` option (ours): a rule Appendix A does not give (the paper reports LLM agents weak on
negation, §5.2); off by default so the LLM rows reproduce the paper's setup."""
SHARING = {  # what an agent is asked to pass on, by sharing strategy (§3.3's two methods)
    "strategic": "Choose up to {bandwidth} statement ids to pass on next round: the ones you expect to help the "
                 "group most, such as statements you trust or ones that correct what partners seem to get wrong. "
                 "List them in facts_to_share.",
    "highest_confidence": "Pass on next round the {bandwidth} statements you are most confident are true: list in "
                          "facts_to_share the ids with your highest confidences after this round's revision. (The "
                          "game passes on exactly those, whatever else you list.)",
}


class AgentReply(BaseModel):
    """What an agent returns each round."""

    updated_beliefs: dict[str, float] = Field(
        default_factory=dict, description="statement id (e.g. f12) -> confidence in [0, 1] that it is true")
    facts_to_share: list[str] = Field(default_factory=list, description="statement ids to pass on next round")
    vote: Literal["CONTINUE", "STOP"] = Field(description="STOP when further exchange will not change your mind")


# ---------------------------------------------------------------------------------------------------
# Parameters and model assignment
# ---------------------------------------------------------------------------------------------------
def make_params(config: BeliefConfig, seed: int = 0, models: list[str] | None = None,
                shares: list[float] | None = None, negation_hint: bool = False,
                initial_confidence: float = LLM_INITIAL_CONFIDENCE, pair_negations: bool = False) -> dict[str, Any]:
    """Validated, JSON-able run parameters (what the run store keeps and the graph is built from).

    ``models`` empty = homogeneous with the configured model; several models = heterogeneous with
    ``shares`` (default equal). Our options, each off by default (the paper's setup): ``negation_hint`` adds
    :data:`NEGATION_HINT` to the agents' rules (Appendix A has no such rule); ``initial_confidence`` other than
    :data:`~ifworld.beliefs.config.LLM_INITIAL_CONFIDENCE` (§3.2's 1) starts every held fact there;
    ``pair_negations`` starts a fact held together with its negation at 0.5. Raises ``ValueError`` naming the bad
    parameter.
    """
    if config.agents > MAX_LLM_AGENTS:
        raise BeliefConfigError(f"agents must be <= {MAX_LLM_AGENTS} for LLM agents (one call each per round)")
    if config.rounds > MAX_LLM_ROUNDS:
        raise BeliefConfigError(f"rounds must be <= {MAX_LLM_ROUNDS} for LLM agents")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise BeliefConfigError(f"seed must be a non-negative integer, got {seed!r}")
    if (isinstance(initial_confidence, bool) or not isinstance(initial_confidence, int | float)
            or not 0 < initial_confidence <= 1):
        raise BeliefConfigError(f"initial_confidence must be a number in (0, 1], got {initial_confidence!r} "
                                "(0 would mean the fact is not held, §3.2)")
    models = [m.strip() for m in models or [] if m and m.strip()]
    shares = normalise_shares(models, shares)
    return {"config": config.to_dict(), "seed": seed, "models": models, "shares": shares,
            "agent_models": assign_models(config.agents, models, shares, seed), "negation_hint": bool(negation_hint),
            "initial_confidence": float(initial_confidence), "pair_negations": bool(pair_negations)}


def start_options(params: Mapping[str, Any]) -> dict[str, Any]:
    """The initial-confidence options of stored run parameters (the paper's values when absent)."""
    return {"initial_confidence": float(params.get("initial_confidence", LLM_INITIAL_CONFIDENCE)),
            "pair_negations": bool(params.get("pair_negations", False))}


def departures(negation_hint: bool = False, initial_confidence: float | None = None,
                pair_negations: bool = False) -> list[str]:
    """Our options in use, in words (empty = Appendix A's prompt and §3.2's start); ``initial_confidence``
    None = not recorded (runs made before the option)."""
    out = ["agents are told a statement and its opposite cannot both be true"] if negation_hint else []
    if initial_confidence is not None and initial_confidence != LLM_INITIAL_CONFIDENCE:
        out.append(f"held statements start at confidence {initial_confidence:.2f} (the paper: "
                   f"{LLM_INITIAL_CONFIDENCE:g}, §3.2)")
    if pair_negations:
        out.append(f"a statement held with its opposite starts at {LLM_PAIRED_CONFIDENCE:.2f}, both")
    return out


def normalise_shares(models: list[str], shares: list[float] | None) -> list[float]:
    """Shares summing to 1, one per model (equal when not given)."""
    if not models:
        if shares:
            raise BeliefConfigError("shares given without models: name a model for each share, or leave shares out")
        return []
    if not shares:
        return [1 / len(models)] * len(models)
    if len(shares) != len(models):
        raise BeliefConfigError(f"shares has {len(shares)} values but models has {len(models)}")
    if any(not isinstance(s, int | float) or math.isnan(s) or s < 0 for s in shares) or sum(shares) <= 0:
        raise BeliefConfigError("shares must be non-negative numbers with a positive sum")
    total = float(sum(shares))
    return [float(s) / total for s in shares]


def assign_models(agents: int, models: list[str], shares: list[float], seed: int) -> list[str]:
    """Per-agent model: counts by largest remainder of ``shares × agents``, placed in seeded order.

    ``""`` stands for the configured model (homogeneous runs)."""
    if not models:
        return [""] * agents
    exact = np.asarray(shares, dtype=float) * agents
    counts = np.floor(exact).astype(int)
    for i in np.argsort(-(exact - counts), kind="stable")[: agents - counts.sum()]:
        counts[i] += 1
    order = [m for m, c in zip(models, counts, strict=True) for _ in range(c)]
    perm = np.random.default_rng(np.random.SeedSequence([seed, 7])).permutation(agents)
    return [order[i] for i in perm]


def condition_name(models: list[str]) -> str:
    """Table condition label: ``llm-<model>`` or ``llm-mixed`` (heterogeneous)."""
    distinct = sorted(set(models))
    return f"llm-{distinct[0]}" if len(distinct) == 1 else "llm-mixed"


# ---------------------------------------------------------------------------------------------------
# Initial population
# ---------------------------------------------------------------------------------------------------
def initial_population(config: BeliefConfig, domain: Domain, seed: int,
                       initial_confidence: float = LLM_INITIAL_CONFIDENCE,
                       pair_negations: bool = False) -> dict[str, Any]:
    """Beliefs, known facts and liars at the start (each agent draws M_T true and M_F false facts).

    Every held fact starts at ``initial_confidence`` (§3.2: B_i(f, 0) = 1), whether or not the agent also holds
    its negation — unless ``pair_negations`` (ours) starts both members of such a pair at
    :data:`~ifworld.beliefs.config.LLM_PAIRED_CONFIDENCE`."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, 1]))
    beliefs, known = [], []
    for _ in range(config.agents):
        held: set[int] = set()
        false_pool = domain.true_facts if config.false_from == "truths" else domain.false_facts
        for pool, m in ((domain.true_facts, config.true_facts), (false_pool, config.false_facts)):
            if m:
                picks = rng.integers(0, len(pool), m) if config.with_replacement else rng.permutation(len(pool))[:m]
                held |= {int(pool[i]) for i in picks}
        conf = {str(f): (LLM_PAIRED_CONFIDENCE if pair_negations and f ^ 1 in held else float(initial_confidence))
                for f in sorted(held)}
        beliefs.append(conf)
        known.append(sorted(held))
    n_liars = int(round(config.liars * config.agents))
    liars = np.zeros(config.agents, dtype=bool)
    liars[rng.permutation(config.agents)[:n_liars]] = True
    return {"beliefs": beliefs, "known": known, "liars": liars.tolist()}


# ---------------------------------------------------------------------------------------------------
# Prompts and replies
# ---------------------------------------------------------------------------------------------------
def _line(domain: Domain, fact: int) -> str:
    return f"[f{fact}] {domain.labels[fact]}"


def agent_messages(task: Mapping[str, Any], domain: Domain) -> list[tuple[str, str]]:
    """System and user messages for one agent's call this round."""
    cfg = task["config"]
    beliefs = task["beliefs"]
    lines = [f"- {_line(domain, int(f))} — confidence {c:.2f}" for f, c in
             sorted(beliefs.items(), key=lambda kv: int(kv[0]))]
    received = [f"- {_line(domain, m['fact'])} — from agent {m['from']}, who is {m['confidence']:.2f} sure"
                for m in task["inbox"]]
    sharing = SHARING[cfg.get("strategy", "strategic")].format(bandwidth=cfg["bandwidth"])
    return prompts.messages("beliefs/agent", agent=task["agent"], round=task["round"],
                            bandwidth=cfg["bandwidth"], sharing=sharing, history_len=HISTORY_LEN,
                            negation=NEGATION_HINT if task.get("negation_hint") else "",
                            topic=TOPICS.get(cfg["domain"], TOPICS["abstract"]),
                            beliefs="\n".join(lines) or "(none yet)",
                            received="\n".join(received) or "(nothing this round)",
                            history="\n".join(f"- {h}" for h in task["history"]) or "(none yet)")


def parse_fact(key: Any, domain: Domain) -> int | None:
    """Fact index from an id (``f12``, ``[f12]``, ``12``) or the exact sentence; None if unknown."""
    text = str(key)
    m = FACT_ID_RE.match(text)
    if m:
        f = int(m.group(1))
        return f if f < len(domain.labels) else None
    try:
        return domain.labels.index(text.strip())
    except ValueError:
        return None


def apply_reply(task: Mapping[str, Any], reply: AgentReply | None, domain: Domain, model: str) -> dict[str, Any]:
    """The agent's result for the round: new beliefs, shares, vote and counts.

    Facts the agent was never told are ignored and counted; a missing (malformed) reply keeps the old
    beliefs; shares beyond the bandwidth are dropped and counted."""
    allowed = set(task["known"]) | {m["fact"] for m in task["inbox"]}
    counts = dict.fromkeys(COUNT_KEYS, 0)
    out = {"agent": task["agent"], "round": task["round"], "model": model, "counts": counts}
    if reply is None:
        counts["malformed"] = counts["kept_beliefs"] = 1
        return {**out, "beliefs": task["beliefs"], "share": [], "vote": "CONTINUE", "known": sorted(allowed)}
    beliefs = dict(task["beliefs"])
    for key, conf in reply.updated_beliefs.items():
        f = parse_fact(key, domain)
        if f is None or f not in allowed or not isinstance(conf, int | float) or math.isnan(conf):
            counts["unknown_facts"] += 1
            continue
        beliefs[str(f)] = float(min(1.0, max(0.0, conf)))
    if reply.updated_beliefs and beliefs == task["beliefs"] and counts["unknown_facts"] == len(reply.updated_beliefs):
        counts["kept_beliefs"] = 1  # nothing usable in the reply
    share: list[int] = []
    for key in reply.facts_to_share:
        f = parse_fact(key, domain)
        if f is None or f not in allowed:
            counts["unknown_facts"] += 1
        elif f not in share:
            share.append(f)
    limit = task["config"]["bandwidth"]
    counts["extra_shares"] = max(0, len(share) - limit)
    if task["config"].get("strategy") == "highest_confidence":
        share = most_confident(beliefs, limit)
    return {**out, "beliefs": beliefs, "share": share[:limit], "vote": reply.vote, "known": sorted(allowed)}


def most_confident(beliefs: Mapping[str, float], limit: int) -> list[int]:
    """The ``limit`` believed statements (confidence above 0.5) with the highest confidence, ties by id:
    what a ``highest_confidence`` agent passes on (§3.3), taken from the model's own revised confidences."""
    ranked = sorted(((-c, int(f)) for f, c in beliefs.items() if c > 0.5))
    return [f for _, f in ranked[:limit]]


# ---------------------------------------------------------------------------------------------------
# Population arrays and metrics
# ---------------------------------------------------------------------------------------------------
def belief_matrix(beliefs: list[dict[str, float]], facts: int) -> np.ndarray:
    """(agents, 2K) float32 in the engine's layout: a stated confidence c for f gives b_f = c and, if the
    negation was not stated, b_¬f = 1 - c; pairs never mentioned stay 0 (unaware)."""
    out = np.zeros((len(beliefs), facts), dtype=np.float32)
    for a, conf in enumerate(beliefs):
        stated = {int(f): float(c) for f, c in conf.items()}
        for f, c in stated.items():
            out[a, f] = c
            if f ^ 1 not in stated:
                out[a, f ^ 1] = 1.0 - c
    return out


def collective_scores(matrix: np.ndarray, config: BeliefConfig, domain: Domain) -> dict[str, Any]:
    """Precision, recall, F1 and the accepted facts of one population (engine metrics)."""
    accepted = accept(matrix[None], config.threshold)
    p, r, f1 = scores(accepted, domain.truth)
    return {"precision": float(p[0]), "recall": float(r[0]), "f1": float(f1[0]),
            "accepted": [int(f) for f in np.flatnonzero(accepted[0])]}


def graph_edges(config: BeliefConfig) -> np.ndarray | None:
    """The condition's interaction graph, as the engine builds it (None = complete: anyone meets anyone)."""
    return build_edges(config.topology, config.agents, config.degree, config.rewire, config.graph_seed)


def pair_agents(agents: int, seed: int, round_: int, edges: np.ndarray | None = None) -> list[int]:
    """Partner per agent for a round, -1 for an agent that sits out; seeded by seed and round only, so a
    resumed run pairs identically.

    ``edges`` None (complete): a uniformly random perfect matching (one sits out when N is odd).
    Otherwise the engine's random maximal matching of the graph (:func:`topology.match_columns`, one
    run): an agent only ever meets a neighbour, and sits out when all its neighbours are taken."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, round_, 2]))
    if edges is not None:
        return [int(p) if p < agents else -1 for p in match_columns(edges, rng, 1, agents)]
    perm = rng.permutation(agents)
    partners = [-1] * agents
    for i in range(0, agents - 1, 2):
        a, b = int(perm[i]), int(perm[i + 1])
        partners[a], partners[b] = b, a
    return partners


def distort(share: list[int], liar: bool, noise: float, rng: np.random.Generator) -> list[int]:
    """Liars send the negation of each pick; noise flips each sent fact with probability ``noise``."""
    out = []
    for f in share:
        flip = liar ^ bool(noise > 0 and rng.random() < noise)
        out.append(f ^ 1 if flip else f)
    return out


def interaction_note(round_: int, partner: int, sent: list[int], got: list[int]) -> str:
    """One line of an agent's interaction history."""
    if partner < 0:
        return f"Round {round_}: you sat out (no partner)."
    fmt = ", ".join
    return (f"Round {round_}: you met agent {partner}; you passed on {fmt(f'f{f}' for f in sent) or 'nothing'}; "
            f"you heard {fmt(f'f{f}' for f in got) or 'nothing'}.")
