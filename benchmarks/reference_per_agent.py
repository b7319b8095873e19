"""Straightforward per-agent reference implementation of the heuristic belief exchange.

Same rules as :mod:`ifworld.beliefs.engine` (see its docstring), written with plain objects, dicts
and loops and Python's ``random`` module. Used to check the vectorised engine statistically and as
the baseline in ``bench_beliefs.py``. Run directly to print a summary.
"""

from __future__ import annotations

import random
import statistics
import sys

from ifworld.beliefs.config import (
    BOUNDED_INIT_STEP,
    BOUNDED_SCALE,
    BOUNDED_START,
    BOUNDED_STEP,
    STOP_CONFIDENCE_PCT,
    BeliefConfig,
)
from ifworld.beliefs.domain import build_domain


class Agent:
    """One agent: a dict fact -> belief (int units, as in the engine)."""

    def __init__(self, held: list[int], bounded: bool, liar: bool) -> None:
        self.bounded, self.liar = bounded, liar
        self.beliefs: dict[int, int] = {}
        held_set = set(held)
        for f in held_set:
            if bounded:
                self.beliefs[f] = self.get(f) + BOUNDED_INIT_STEP
                self.beliefs[f ^ 1] = self.get(f ^ 1) - BOUNDED_INIT_STEP
            else:
                self.beliefs[f] = 1

    def get(self, fact: int) -> int:
        return self.beliefs.get(fact, BOUNDED_START if self.bounded else 0)

    def believes(self, fact: int) -> bool:
        return self.get(fact) > (BOUNDED_START if self.bounded else 0)

    def choose(self, strategy: str, bandwidth: int, rng: random.Random) -> list[tuple[int, float]]:
        kb = [f for f in self.beliefs if self.believes(f)]
        rng.shuffle(kb)
        if strategy == "highest_confidence":
            kb.sort(key=self.get, reverse=True)  # stable sort keeps the random order within ties
        picks = kb[:bandwidth]
        return [(f, self.get(f) / (self.get(f) + self.get(f ^ 1))) for f in picks]

    def receive(self, reports: list[tuple[int, float]]) -> bool:
        before = dict(self.beliefs)
        delta: dict[int, int] = {}
        for fact, conf in reports:
            if self.bounded:
                step = BOUNDED_STEP if conf > 0.5 else -BOUNDED_STEP
                delta[fact] = delta.get(fact, 0) + step
                delta[fact ^ 1] = delta.get(fact ^ 1, 0) - step
            else:
                delta[fact] = delta.get(fact, 0) + 1
        for fact, d in delta.items():
            value = self.get(fact) + d
            self.beliefs[fact] = min(max(value, 0), BOUNDED_SCALE) if self.bounded else value
        default = BOUNDED_START if self.bounded else 0
        return any(before.get(f, default) != self.get(f) for f in delta)

    def sure(self, pairs: int) -> bool:
        for k in range(pairs):
            a, b = self.get(2 * k), self.get(2 * k + 1)
            hi, lo = max(a, b), min(a, b)
            if hi == 0 or (100 - STOP_CONFIDENCE_PCT) * hi < STOP_CONFIDENCE_PCT * lo:
                return False
        return True


def run_once(config: BeliefConfig, rng: random.Random) -> dict[str, float]:
    """One run; returns precision, recall, f1, rounds and converged."""
    domain = build_domain(config)
    true, false = list(domain.true_facts), list(domain.false_facts)
    n_liars = round(config.liars * config.agents)
    liar_ids = set(rng.sample(range(config.agents), n_liars))
    agents = []
    for i in range(config.agents):
        held = [rng.choice(true) for _ in range(config.true_facts)]
        held += [rng.choice(false) for _ in range(config.false_facts)]
        agents.append(Agent(held, config.rule == "bounded", i in liar_ids))
    rounds, converged = config.rounds, False
    for t in range(1, config.rounds + 1):
        order = list(range(config.agents))
        rng.shuffle(order)
        outbox = {i: agents[i].choose(config.strategy, config.bandwidth, rng) for i in order}
        for i, msgs in outbox.items():
            flipped = []
            for fact, conf in msgs:
                if agents[i].liar:
                    fact ^= 1
                if config.noise and rng.random() < config.noise:
                    fact ^= 1
                flipped.append((fact, conf))
            outbox[i] = flipped
        changed = [False] * config.agents
        for a, b in zip(order[0::2], order[1::2], strict=False):
            changed[a] = agents[a].receive(outbox[b])
            changed[b] = agents[b].receive(outbox[a])
        votes = sum(1 for i, ag in enumerate(agents) if not changed[i] or ag.sure(config.facts))
        if votes >= config.stop_share * config.agents:
            rounds, converged = t, True
            break
    return _score(config, domain, agents) | {"rounds": rounds, "converged": converged}


def _score(config: BeliefConfig, domain, agents: list[Agent]) -> dict[str, float]:
    accepted = []
    for k in range(config.facts):
        means = []
        for f in (2 * k, 2 * k + 1):
            total = 0.0
            for ag in agents:
                s = ag.get(f) + ag.get(f ^ 1)
                total += ag.get(f) / s if s > 0 else 0.0
            means.append(total / len(agents))
        for j, f in enumerate((2 * k, 2 * k + 1)):
            if means[j] > config.threshold and means[j] > means[1 - j]:
                accepted.append(f)
    tp = sum(1 for f in accepted if domain.truth[f])
    precision = tp / len(accepted) if accepted else 1.0
    recall = tp / config.facts
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1}


def simulate_reference(config: BeliefConfig, seed: int, runs: int) -> list[dict[str, float]]:
    """``runs`` independent reference runs from ``seed``."""
    rng = random.Random(seed)
    return [run_once(config, rng) for _ in range(runs)]


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    out = simulate_reference(BeliefConfig(), seed=0, runs=n)
    print({k: round(statistics.mean(r[k] for r in out), 4) for k in ("f1", "precision", "recall", "rounds")})
