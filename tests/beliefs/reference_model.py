"""An independent per-agent model of the belief exchange, written from the documented rules only.

It reads the rules as the README (Belief exchange → The heuristic engine) and the docstrings of
``config.py`` / ``rules.py`` state them, with plain lists, loops, Python's ``random`` and exact
rationals — it calls nothing of the engine except the fact universe (``build_domain``), which is
data, not dynamics. The statistical tests compare its distribution of F1 / precision / recall /
rounds with the engine's.

Rules (one round): a uniformly random perfect matching (odd N: one agent sits out); each agent
picks up to C facts it believes (``highest_confidence``: its C largest belief values, ties at
random; ``strategic``: C at random); a message carries the sender's normalised confidence
b_f / (b_f + b_¬f) in its own pick; a liar sends the negation of the pick, and noise flips each
sent fact with probability ``noise`` (the confidence travels unchanged: the lie is asserted as
strongly as the truth was believed). Receivers apply the rule to the round's messages; an agent
votes STOP when nothing changed or when every pair has an opinion at least 80 % sure; the run
stops when the STOP share reaches ``stop_share``. The collective accepts the member of a pair
whose mean normalised confidence exceeds the threshold and its negation's (exact rationals).
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import networkx as nx

SURE = Fraction(80, 100)
BOUNDED_TOP, BOUNDED_MID, BOUNDED_HELD = 10, 5, 2  # tenths: 1.0, 0.5, +-0.2 for a held fact
UNIT = 16  # discounted rule: evidence in 1/16 units
REFERENCE_RULES = ("additive", "bounded", "bayes", "discounted")
"""The rules this independent model implements, written out on purpose: it must not share code (nor the
registry) with the engine. test_agreement checks that every built-in rule is here."""


class Rule:
    """Belief units per rule, as documented."""

    def __init__(self, name: str, trust: float = 0.8, discount: float = 0.75) -> None:
        self.name = name
        trust_q = Fraction(repr(trust))
        self.ratio = trust_q / (1 - trust_q)  # bayes: odds multiplier of one report
        self.keep = Fraction(repr(discount))  # discounted: 1 - 2^-s
        self._odds: dict[int, Fraction] = {}

    def start(self, facts: int, held: set[int]) -> list:
        if self.name in ("additive", "bayes"):  # a count: 1 for a held fact
            return [1 if f in held else 0 for f in range(facts)]
        if self.name == "discounted":
            return [UNIT if f in held else 0 for f in range(facts)]
        if self.name == "bounded":  # tenths, 0.5 everywhere, held +0.2 / its negation -0.2
            b = [BOUNDED_MID] * facts
            for f in held:
                b[f] += BOUNDED_HELD
                b[f ^ 1] -= BOUNDED_HELD
            return b
        raise ValueError(self.name)

    def believes(self, b: list, f: int) -> bool:
        if self.name == "bayes":  # P(f) > 1/2
            return b[f] > b[f ^ 1]
        return b[f] > (BOUNDED_MID if self.name == "bounded" else 0)

    def rank(self, b: list, f: int) -> int:
        """What highest_confidence orders by: the belief value (bayes: the log-odds margin)."""
        return b[f] - b[f ^ 1] if self.name == "bayes" else b[f]

    def confidence(self, b: list, f: int) -> Fraction:
        """Confidence in f: b_f / (b_f + b_¬f), bayes r^e_f / (r^e_f + r^e_¬f); 0 if never heard of."""
        if b[f] + b[f ^ 1] == 0:
            return Fraction(0)
        if self.name == "bayes":
            d = b[f ^ 1] - b[f]
            if d not in self._odds:
                self._odds[d] = 1 / (1 + self.ratio ** d)
            return self._odds[d]
        return Fraction(b[f], b[f] + b[f ^ 1])

    def sure(self, b: list) -> bool:
        """Every pair heard of, its favourite at least 80 % sure."""
        return all(max(self.confidence(b, k), self.confidence(b, k + 1)) >= SURE for k in range(0, len(b), 2))

    def decay(self, b: list) -> None:
        if self.name == "discounted":
            drop = round(1 / (1 - self.keep))  # 2^s
            for i, v in enumerate(b):
                b[i] = v - v // drop

    def receive(self, b: list, reports: list[tuple[int, Fraction]]) -> bool:
        """Apply a round's reports; True when any belief value changed (counts: when anything arrived)."""
        before = list(b)
        if self.name in ("additive", "bayes", "discounted"):
            for f, _ in reports:
                b[f] += UNIT if self.name == "discounted" else 1
            return bool(reports)
        else:  # bounded: +-0.1 by the reported confidence, mirrored, summed, then clipped
            delta = [0] * len(b)
            for f, conf in reports:
                step = 1 if conf > Fraction(1, 2) else -1
                delta[f] += step
                delta[f ^ 1] -= step
            for i, d in enumerate(delta):
                if d:
                    b[i] = min(max(b[i] + d, 0), BOUNDED_TOP)
        return b != before


def confidence(b: list, f: int) -> Fraction:
    """Normalised confidence b_f / (b_f + b_¬f) (what a message carries)."""
    total = b[f] + b[f ^ 1]
    return Fraction(b[f], total) if total > 0 else Fraction(0)


def pick(rule: Rule, b: list, strategy: str, bandwidth: int, rng: random.Random) -> list[int]:
    kb = [f for f in range(len(b)) if rule.believes(b, f)]
    if strategy == "strategic":
        return rng.sample(kb, min(bandwidth, len(kb)))
    keyed = sorted(kb, key=lambda f: (rule.rank(b, f), rng.random()), reverse=True)
    return keyed[:bandwidth]


def accepted_facts(beliefs: list[list], threshold: float, rule: Rule | None = None) -> set[int]:
    """Exact collective acceptance: mean confidence > threshold and > the negation's."""
    n, limit, out = len(beliefs), Fraction(repr(float(threshold))), set()
    conf = rule.confidence if rule is not None else confidence
    for k in range(0, len(beliefs[0]), 2):
        means = [sum((conf(b, f) for b in beliefs), Fraction(0)) / n for f in (k, k + 1)]
        for j, f in enumerate((k, k + 1)):
            if means[j] > limit and means[j] > means[1 - j]:
                out.add(f)
    return out


def graph_edges(cfg: dict) -> list[tuple[int, int]] | None:
    """The documented interaction graph (None: everyone may meet everyone)."""
    topo, n, k, seed = cfg.get("topology", "complete"), cfg["agents"], cfg.get("degree", 4), cfg.get("graph_seed", 0)
    if topo == "complete":
        return None
    if topo == "ring":
        g = nx.watts_strogatz_graph(n, k, 0.0, seed=seed)
    elif topo == "small_world":
        g = nx.connected_watts_strogatz_graph(n, k, cfg.get("rewire", 0.1), tries=100, seed=seed)
    else:
        g = nx.barabasi_albert_graph(n, max(1, k // 2), seed=seed)
    return list(g.edges())


def pairs_of_round(n: int, edges: list[tuple[int, int]] | None, rng: random.Random) -> list[tuple[int, int]]:
    """Complete: a uniformly random perfect matching; a graph: edges in random order, taken when both free."""
    if edges is None:
        order = list(range(n))
        rng.shuffle(order)
        return list(zip(order[0::2], order[1::2], strict=False))
    shuffled = list(edges)
    rng.shuffle(shuffled)
    free, out = [True] * n, []
    for a, b in shuffled:
        if free[a] and free[b]:
            free[a] = free[b] = False
            out.append((a, b))
    return out


def run_once(cfg: dict, truth: list[bool], rng: random.Random) -> dict:
    """One run of the documented model; ``cfg`` holds the BeliefConfig fields by name."""
    rule = Rule(cfg["rule"], cfg.get("trust", 0.8), cfg.get("discount", 0.5))
    n, facts = cfg["agents"], len(truth)
    true_pool = [f for f in range(facts) if truth[f]]
    false_pool = [f for f in range(facts) if not truth[f]] if cfg.get("false_from") != "truths" else true_pool
    beliefs = []
    for _ in range(n):
        held: set[int] = set()
        for pool, m in ((true_pool, cfg["true_facts"]), (false_pool, cfg["false_facts"])):
            draws = [rng.choice(pool) for _ in range(m)] if cfg["with_replacement"] else rng.sample(pool, m)
            held.update(draws)
        beliefs.append(rule.start(facts, held))
    liars = set(rng.sample(range(n), round(cfg["liars"] * n)))
    edges = graph_edges(cfg)
    rounds, converged = cfg["rounds"], False
    for t in range(1, cfg["rounds"] + 1):
        pairs = pairs_of_round(n, edges, rng)
        outbox = {}
        for a in range(n):
            msgs = []
            for f in pick(rule, beliefs[a], cfg["strategy"], cfg["bandwidth"], rng):
                conf = confidence(beliefs[a], f)
                sent = f ^ 1 if a in liars else f
                if rng.random() < cfg["noise"]:
                    sent ^= 1
                msgs.append((sent, conf))
            outbox[a] = msgs
        for b in beliefs:
            rule.decay(b)
        changed = [False] * n
        for a, b in pairs:
            changed[a] = rule.receive(beliefs[a], outbox[b])
            changed[b] = rule.receive(beliefs[b], outbox[a])
        votes = sum(1 for a in range(n) if not changed[a] or rule.sure(beliefs[a]))
        if Fraction(votes, n) >= Fraction(repr(float(cfg["stop_share"]))):
            rounds, converged = t, True
            break
    acc = accepted_facts(beliefs, cfg["threshold"], rule)
    tp = sum(1 for f in acc if truth[f])
    precision = tp / len(acc) if acc else 1.0
    recall = tp / (facts // 2)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "rounds": rounds, "converged": converged}


def simulate_reference(cfg: dict, truth: list[bool], seed: int, runs: int) -> dict[str, list[float]]:
    """``runs`` independent runs; per-metric lists."""
    rng = random.Random(seed)
    out: dict[str, list[float]] = {"precision": [], "recall": [], "f1": [], "rounds": []}
    for _ in range(runs):
        res = run_once(cfg, truth, rng)
        for key in out:
            out[key].append(float(res[key]))
    return out


def z_score(a: list[float], b: list[float]) -> float:
    """Two-sample z statistic of the difference of means (0 when both samples are constant and equal)."""
    ma, mb = sum(a) / len(a), sum(b) / len(b)
    va = sum((x - ma) ** 2 for x in a) / max(1, len(a) - 1)
    vb = sum((x - mb) ** 2 for x in b) / max(1, len(b) - 1)
    se = math.sqrt(va / len(a) + vb / len(b))
    if se == 0:
        return 0.0 if ma == mb else math.inf
    return (ma - mb) / se
