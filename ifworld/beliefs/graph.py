"""The LLM belief-exchange run as a LangGraph ``StateGraph`` (workflow ``beliefs.llm``).

One round = one superstep of ``agent`` tasks (a ``Send`` per agent, run concurrently) followed by
``join``: it pairs agents (seeded by seed and round, within the condition's interaction graph),
delivers each agent's shared facts to its partner (liars and noise applied in transit), scores the
collective with the engine's metrics, counts STOP votes and either loops to the next round's fan-out
or ends. The state is plain JSON, so the run store's checkpointer keeps it; when one agent's call
fails the others' writes are kept and resuming re-runs only that agent, then carries on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, TypedDict

import numpy as np
from langgraph.graph import END, START, StateGraph
from langgraph.types import Send

from ifworld import llm
from ifworld.beliefs import llm_agents as la
from ifworld.beliefs.config import BeliefConfig
from ifworld.beliefs.domain import CATEGORIES, Domain, build_domain
from ifworld.beliefs.engine import LABEL_SEPARATOR
from ifworld.beliefs.metrics import category_recall, false_labels, missed_labels
from ifworld.beliefs.recording import Recording
from ifworld.beliefs.records import LLMBeliefRecord, load_llm_record
from ifworld.config import Settings
from ifworld.errors import SimulationError
from ifworld.runs.events import emit

SNAPSHOT_DIGITS = 3
SNAPSHOT_KEYS = ("beliefs", "partners", "messages", "votes", "precision", "recall", "f1")


def reset_or_add(left: list | None, right: list | None) -> list:
    """Reducer for a round's replies: agents append, the join resets with ``None``."""
    return [] if right is None else (left or []) + right


class BeliefRunState(TypedDict, total=False):
    round: int
    beliefs: list[dict[str, float]]
    known: list[list[int]]
    inbox: list[list[dict]]
    history: list[list[str]]
    liars: list[bool]
    agent_models: list[str]
    replies: Annotated[list[dict], reset_or_add]
    metrics: list[dict]
    snapshots: dict[str, list]
    counts: dict[str, int]
    converged: bool
    done: bool


def agent_settings(settings: Settings, model: str) -> Settings:
    """Settings for one agent's model on the configured endpoint (role overrides for agents dropped)."""
    if not model:
        return settings
    roles = {k: v for k, v in settings.role_models.items() if k not in ("beliefs", la.ROLE, "agent")}
    return settings.model_copy(update={"model": model, "role_models": roles})


class AgentTask(TypedDict):
    """What one agent's call is sent this round (its own view of the population state)."""

    agent: int
    round: int
    config: dict[str, Any]
    model: str
    beliefs: dict[str, float]
    known: list[int]
    inbox: list[dict[str, Any]]
    history: list[str]


def initial(params: dict[str, Any]) -> dict[str, Any]:
    """Round-1 state: the seeded initial population and its scores as snapshot 0."""
    config = BeliefConfig.from_dict(params["config"])
    domain = build_domain(config)
    pop = la.initial_population(config, domain, int(params["seed"]), **la.start_options(params))
    n = config.agents
    matrix = la.belief_matrix(pop["beliefs"], 2 * config.facts)
    sc = la.collective_scores(matrix, config, domain)
    snapshots: dict[str, list] = {k: [] for k in SNAPSHOT_KEYS}
    snapshots["beliefs"].append(_rounded(matrix))
    for k in ("precision", "recall", "f1"):
        snapshots[k].append(sc[k])
    return {"round": 1, **pop, "inbox": [[] for _ in range(n)], "history": [[] for _ in range(n)],
            "agent_models": list(params["agent_models"]), "replies": [], "metrics": [],
            "snapshots": snapshots, "counts": dict.fromkeys(la.COUNT_KEYS, 0), "converged": False, "done": False}


def _rounded(matrix: np.ndarray) -> list[list[float]]:
    return np.round(matrix.astype(float), SNAPSHOT_DIGITS).tolist()


def build(params: dict[str, Any], settings: Settings) -> StateGraph:
    """The round loop: fan-out of agent calls → join → next round or END."""
    config = BeliefConfig.from_dict(params["config"])
    domain = build_domain(config)
    seed = int(params["seed"])
    default_model = settings.model_for(la.ROLE)

    def fan_out(state: BeliefRunState) -> list[Send]:
        t = state["round"]
        return [Send("agent", {"agent": a, "round": t, "config": params["config"],
                               "negation_hint": bool(params.get("negation_hint")),
                               "model": state["agent_models"][a], "beliefs": state["beliefs"][a],
                               "known": state["known"][a], "inbox": state["inbox"][a],
                               "history": state["history"][a]})
                for a in range(config.agents)]

    def agent(state: AgentTask) -> dict[str, Any]:
        model = state["model"] or default_model
        emit("agent_started", node="agent", agent=state["agent"], round=state["round"], model=model)
        try:
            reply = llm.structured(la.ROLE, la.agent_messages(state, domain), la.AgentReply,
                                   settings=agent_settings(settings, state["model"]),
                                   meta={"system": "beliefs", "round": state["round"]})
        except llm.StructuredOutputError:
            reply = None  # after the one repair turn: the agent keeps its beliefs this round
        result = la.apply_reply(state, reply, domain, model)
        emit("agent_done", node="agent", agent=state["agent"], round=state["round"], model=model,
             vote=result["vote"], shared=len(result["share"]), **result["counts"])
        return {"replies": [result]}

    def join(state: BeliefRunState) -> dict[str, Any]:
        return join_round(state, config, domain, seed)

    def route(state: BeliefRunState) -> Any:
        return END if state.get("done") else fan_out(state)

    g = StateGraph(BeliefRunState)
    g.add_node("agent", agent)
    g.add_node("join", join)
    g.add_conditional_edges(START, fan_out, ["agent"])
    g.add_edge("agent", "join")
    g.add_conditional_edges("join", route, ["agent", END])
    return g


def join_round(state: Mapping[str, Any], config: BeliefConfig, domain: Domain, seed: int) -> dict[str, Any]:
    """Deliver shared facts, score the collective, count votes; the state update of one round."""
    t, n = state["round"], config.agents
    by_agent = {r["agent"]: r for r in state["replies"]}
    missing = [a for a in range(n) if a not in by_agent]
    if missing:
        raise SimulationError(f"round {t}: no reply from agent(s) {missing}")
    replies = [by_agent[a] for a in range(n)]
    beliefs = [r["beliefs"] for r in replies]
    partners = la.pair_agents(n, seed, t, la.graph_edges(config))
    rng = np.random.default_rng(np.random.SeedSequence([seed, t, 3]))
    sent = [la.distort(r["share"], state["liars"][a], config.noise, rng) for a, r in enumerate(replies)]
    conf = [[float(beliefs[a].get(str(f), 0.5)) for f in r["share"]] for a, r in enumerate(replies)]
    inbox = [[{"fact": f, "from": p, "confidence": c} for f, c in zip(sent[p], conf[p], strict=True)]
             if p >= 0 else [] for p in partners]
    history = [(state["history"][a] + [la.interaction_note(t, p, sent[a], sent[p] if p >= 0 else [])])
               [-la.HISTORY_LEN:] for a, p in enumerate(partners)]
    matrix = la.belief_matrix(beliefs, 2 * config.facts)
    sc = la.collective_scores(matrix, config, domain)
    votes = [r["vote"] == "STOP" for r in replies]
    stop_share = float(np.mean(votes))
    converged = stop_share >= config.stop_share
    counts = {k: state["counts"].get(k, 0) + sum(r["counts"].get(k, 0) for r in replies) for k in la.COUNT_KEYS}
    snaps = {k: list(v) for k, v in state["snapshots"].items()}
    snaps["beliefs"].append(_rounded(matrix))
    snaps["partners"].append(partners)
    width = config.bandwidth
    snaps["messages"].append([s[:width] + [-1] * (width - len(s[:width])) for s in sent])
    snaps["votes"].append(votes)
    for k in ("precision", "recall", "f1"):
        snaps[k].append(sc[k])
    row = {"round": t, "precision": sc["precision"], "recall": sc["recall"], "f1": sc["f1"],
           "stop_share": stop_share, "accepted": len(sc["accepted"])}
    emit("round_done", node="join", **row)
    done = converged or t >= config.rounds
    return {"round": t if done else t + 1, "beliefs": beliefs, "known": [r["known"] for r in replies],
            "inbox": inbox, "history": history, "agent_models": [r["model"] for r in replies],
            "replies": None, "metrics": state["metrics"] + [row], "snapshots": snaps, "counts": counts,
            "converged": converged, "done": done}


# ---------------------------------------------------------------------------------------------------
# Record
# ---------------------------------------------------------------------------------------------------
def finalize(state: dict[str, Any], params: dict[str, Any], calls: list[dict]) -> dict[str, Any]:
    """The stored record: config, per-round metrics, final metrics, accepted facts, per-agent model,
    counts, animation snapshots and one tidy row (same columns as the engine's rows)."""
    config = BeliefConfig.from_dict(params["config"])
    domain = build_domain(config)
    snaps = state["snapshots"]
    matrix = np.asarray(snaps["beliefs"][-1], dtype=np.float32)
    sc = la.collective_scores(matrix, config, domain)
    accepted = np.zeros(2 * config.facts, dtype=bool)
    accepted[sc["accepted"]] = True
    models = list(state.get("agent_models") or [])
    rounds_used = len(snaps["partners"])
    final = {"precision": sc["precision"], "recall": sc["recall"], "f1": sc["f1"], "rounds_used": rounds_used,
             "converged": bool(state.get("converged")),
             "locked_false": bool((accepted & ~domain.truth).any()), "n_accepted": int(accepted.sum())}
    cats = category_recall(accepted[None], domain)
    row = {**config.to_dict(), "condition": la.condition_name(models), "seed": int(params["seed"]), "run": 0,
           **{k: final[k] for k in ("precision", "recall", "f1", "rounds_used", "converged", "locked_false",
                                    "n_accepted")},
           **{f"recall_{c}": float(cats[c][0]) for c in CATEGORIES},
           "missed_facts": LABEL_SEPARATOR.join(missed_labels(accepted, domain)),
           "false_accepted": LABEL_SEPARATOR.join(false_labels(accepted, domain))}
    return {"config": config.to_dict(), "seed": int(params["seed"]), "models": params.get("models") or [],
            "negation_hint": bool(params.get("negation_hint")), **la.start_options(params),
            "shares": params.get("shares") or [], "agent_models": models, "condition": row["condition"],
            "rounds": state.get("metrics") or [], "final": final,
            "accepted": [domain.labels[f] for f in sc["accepted"]], "accepted_ids": sc["accepted"],
            "counts": dict(state.get("counts") or {}), "snapshots": snaps, "liars": state.get("liars") or [],
            "rows": [row], "calls": len(calls)}


def recording_of(record: dict[str, Any] | LLMBeliefRecord) -> tuple[Recording, Domain]:
    """The engine's :class:`Recording` (one run) and domain rebuilt from an LLM run record (stored or typed;
    a malformed one raises :class:`~ifworld.runs.records.RecordError`), so the engine's animation builders draw it."""
    rec = load_llm_record(record)
    config = rec.config
    domain = build_domain(config)
    s = rec.snapshots
    beliefs = np.asarray(s.beliefs, dtype=np.float32)[:, None]
    t, n = len(s.partners), config.agents
    partners = np.asarray(s.partners, dtype=np.int64).reshape(t, 1, n)
    messages = np.asarray(s.messages, dtype=np.int64).reshape(t, 1, n, config.bandwidth)
    message_true = np.where(messages >= 0, domain.truth[np.maximum(messages, 0)], False)
    votes = np.asarray(s.votes, dtype=bool).reshape(t, 1, n)
    scores = [np.asarray(v, dtype=float)[:, None] for v in (s.precision, s.recall, s.f1)]
    liars = np.asarray(rec.liars or [False] * n, dtype=bool)[None]
    recording = Recording(rule=la.RULE_LABEL, beliefs=beliefs, partners=partners, messages=messages,
                          message_true=message_true, votes=votes, active=np.ones((t, 1), dtype=bool),
                          precision=scores[0], recall=scores[1], f1=scores[2], liars=liars)
    return recording, domain


def title(params: dict[str, Any]) -> str:
    cfg = params["config"]
    models = params.get("models") or []
    who = ", ".join(models) if models else "configured model"
    return f"LLM beliefs: {cfg['agents']} agents, {cfg['facts']} facts, {cfg['rounds']} rounds ({who})"


def markdown(record: dict[str, Any]) -> str:
    """Human export: final metrics, per-round table, counts, accepted facts."""
    f = record.get("final", {})
    lines = ["## LLM belief exchange", "",
             f"F1 {f.get('f1', 0):.3f} · precision {f.get('precision', 0):.3f} · recall {f.get('recall', 0):.3f} · "
             f"{f.get('rounds_used')} rounds ({'converged' if f.get('converged') else 'round cap'})", "",
             "| round | F1 | precision | recall | STOP share |", "|---|---|---|---|---|"]
    lines += [f"| {r['round']} | {r['f1']:.3f} | {r['precision']:.3f} | {r['recall']:.3f} | {r['stop_share']:.2f} |"
              for r in record.get("rounds", [])]
    lines += ["", "Counts: " + ", ".join(f"{k} {v}" for k, v in (record.get("counts") or {}).items()), "",
              "### Accepted facts", ""] + [f"- {a}" for a in record.get("accepted", [])]
    return "\n".join(lines)
