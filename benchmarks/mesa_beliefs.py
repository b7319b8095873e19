"""The belief-exchange heuristic as a Mesa 3 model — what a modeller would otherwise write.

Runs inside the benchmark's own virtual environment (``bench_beliefs.py`` creates it and installs
Mesa there; the product never depends on Mesa). It imports nothing from ``ifworld``: the fact
universe's ground truth comes in as a JSON list, and the rules are written from the README:
additive counts (paper Eq. 2) or bounded tenths, ``highest_confidence`` / ``strategic`` sharing from
the agent's knowledge base, a random perfect matching each round, STOP votes (no change, or every
pair at least 80 % sure) ending a run at ``stop_share``, collective acceptance on the population-mean
normalised confidence. Prints one JSON line: runs, seconds, runs/s and mean F1 / precision / recall.

    python mesa_beliefs.py --runs 200 --truth '[true, false, ...]' [--rule additive] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import mesa

HELD_BOUNDED, MID, TOP = 2, 5, 10


class Believer(mesa.Agent):
    """One agent: a belief per fact (list), what it is about to send, whether it changed this round."""

    def __init__(self, model: BeliefModel, held: set[int]) -> None:
        super().__init__(model)
        f = model.n_facts
        if model.rule == "additive":
            self.beliefs = [1 if i in held else 0 for i in range(f)]
        else:
            self.beliefs = [MID] * f
            for i in held:
                self.beliefs[i] += HELD_BOUNDED
                self.beliefs[i ^ 1] -= HELD_BOUNDED
        self.outbox: list[tuple[int, float]] = []
        self.changed = False

    def believes(self, i: int) -> bool:
        return self.beliefs[i] > (0 if self.model.rule == "additive" else MID)

    def choose(self) -> None:
        """Pick up to C believed facts and the confidence in each."""
        kb = [i for i in range(self.model.n_facts) if self.believes(i)]
        rng = self.model.random
        if self.model.strategy == "strategic":
            picks = rng.sample(kb, min(self.model.bandwidth, len(kb)))
        else:
            picks = sorted(kb, key=lambda i: (self.beliefs[i], rng.random()), reverse=True)[:self.model.bandwidth]
        self.outbox = []
        for i in picks:
            total = self.beliefs[i] + self.beliefs[i ^ 1]
            self.outbox.append((i, self.beliefs[i] / total if total else 0.0))

    def receive(self, messages: list[tuple[int, float]]) -> None:
        before = list(self.beliefs)
        if self.model.rule == "additive":
            for i, _ in messages:
                self.beliefs[i] += 1
        else:
            delta = [0] * self.model.n_facts
            for i, conf in messages:
                step = 1 if conf > 0.5 else -1
                delta[i] += step
                delta[i ^ 1] -= step
            for i, d in enumerate(delta):
                if d:
                    self.beliefs[i] = min(max(self.beliefs[i] + d, 0), TOP)
        self.changed = self.beliefs != before

    def votes_stop(self) -> bool:
        if not self.changed:
            return True
        b = self.beliefs
        for k in range(0, self.model.n_facts, 2):
            hi, lo = max(b[k], b[k + 1]), min(b[k], b[k + 1])
            if hi == 0 or hi * 20 < lo * 80:
                return False
        return True


class BeliefModel(mesa.Model):
    """One run: agents draw M_T true and M_F false facts, then pair, share, update and vote."""

    def __init__(self, truth: list[bool], agents: int = 20, true_facts: int = 5, false_facts: int = 3,
                 bandwidth: int = 3, rounds: int = 20, strategy: str = "highest_confidence",
                 rule: str = "additive", threshold: float = 0.5, stop_share: float = 0.75, seed: int = 0) -> None:
        super().__init__(seed=seed)
        self.truth, self.n_facts = truth, len(truth)
        self.bandwidth, self.max_rounds, self.strategy, self.rule = bandwidth, rounds, strategy, rule
        self.threshold, self.stop_share = threshold, stop_share
        true_pool = [i for i, t in enumerate(truth) if t]
        false_pool = [i for i, t in enumerate(truth) if not t]
        for _ in range(agents):
            held = {self.random.choice(true_pool) for _ in range(true_facts)}
            held |= {self.random.choice(false_pool) for _ in range(false_facts)}
            Believer(self, held)
        self.rounds_used, self.converged = rounds, False

    def step(self) -> None:
        self.agents.do("choose")
        order = list(self.agents)
        self.random.shuffle(order)
        for agent in order[2 * (len(order) // 2):]:
            agent.changed = False  # odd N: the one left out hears nothing
        for a, b in zip(order[0::2], order[1::2], strict=False):
            a_out, b_out = list(a.outbox), list(b.outbox)
            a.receive(b_out)
            b.receive(a_out)
        stops = sum(1 for agent in self.agents if agent.votes_stop())
        if stops >= self.stop_share * len(self.agents):
            self.rounds_used, self.converged = self.steps, True
            self.running = False
        elif self.steps >= self.max_rounds:
            self.running = False

    def scores(self) -> dict[str, float]:
        n, accepted = len(self.agents), []
        for k in range(0, self.n_facts, 2):
            means = []
            for i in (k, k + 1):
                total = 0.0
                for agent in self.agents:
                    s = agent.beliefs[i] + agent.beliefs[i ^ 1]
                    total += agent.beliefs[i] / s if s else 0.0
                means.append(total / n)
            for j, i in enumerate((k, k + 1)):
                if means[j] > self.threshold and means[j] > means[1 - j]:
                    accepted.append(i)
        tp = sum(1 for i in accepted if self.truth[i])
        p = tp / len(accepted) if accepted else 1.0
        r = tp / (self.n_facts // 2)
        return {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--truth", required=True, help="JSON list of booleans, one per fact (2K)")
    ap.add_argument("--rule", default="additive")
    ap.add_argument("--strategy", default="highest_confidence")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    truth = json.loads(args.truth)
    start = time.perf_counter()
    out = []
    for r in range(args.runs):
        model = BeliefModel(truth, rule=args.rule, strategy=args.strategy, seed=args.seed * 1_000_003 + r)
        while model.running:
            model.step()
        out.append(model.scores() | {"rounds": model.rounds_used})
    seconds = time.perf_counter() - start
    print(json.dumps({"runs": args.runs, "seconds": seconds, "runs_per_s": args.runs / seconds,
                      "mesa": mesa.__version__,
                      **{k: statistics.mean(o[k] for o in out) for k in ("f1", "precision", "recall", "rounds")}}))


if __name__ == "__main__":
    main()
