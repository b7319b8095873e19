"""Per-round snapshots of a simulation, kept only when ``simulate(..., record=True)``.

Renderers (:mod:`ifworld.beliefs.animation`) build frames from a :class:`Recording`; the engine
never draws. Index 0 of ``beliefs``/``precision``/... is the initial state; index t >= 1 is after
round t. A run that already stopped keeps its final beliefs and has no pairs/messages later.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ifworld.beliefs.config import BeliefConfig
from ifworld.beliefs.domain import Domain
from ifworld.beliefs.metrics import accept, scores
from ifworld.beliefs.rules import get_rule


@dataclass(frozen=True)
class Recording:
    """Stacked snapshots; T = rounds actually simulated, R runs, N agents, C bandwidth, F = 2K."""

    rule: str
    beliefs: np.ndarray = field(repr=False)  # (T+1, R, N, F) int16, rule units
    partners: np.ndarray = field(repr=False)  # (T, R, N) int64, -1 = no partner / run stopped
    messages: np.ndarray = field(repr=False)  # (T, R, N, C) int64 fact sent, -1 = none
    message_true: np.ndarray = field(repr=False)  # (T, R, N, C) bool, sent fact is in T
    votes: np.ndarray = field(repr=False)  # (T, R, N) bool STOP votes
    active: np.ndarray = field(repr=False)  # (T, R) bool, run was still exchanging in round t
    precision: np.ndarray = field(repr=False)  # (T+1, R) collective scores per round
    recall: np.ndarray = field(repr=False)
    f1: np.ndarray = field(repr=False)
    liars: np.ndarray = field(repr=False)  # (R, N) bool
    trust: float = 0.8  # the bayes rule's trust (how its evidence counts map to confidence)

    @property
    def rounds(self) -> int:
        """Number of simulated rounds T."""
        return int(self.partners.shape[0])


class Recorder:
    """Accumulates snapshots from the engine's compacted working arrays."""

    def __init__(self, config: BeliefConfig, domain: Domain, beliefs: np.ndarray, liars: np.ndarray):
        self._config, self._domain = config, domain
        self._runs, self._agents = beliefs.shape[:2]
        self._beliefs = [beliefs.copy()]
        self._scores: list[tuple[np.ndarray, ...]] = [self._score(beliefs)]
        self._liars = liars.copy()
        self._partners: list[np.ndarray] = []
        self._messages: list[np.ndarray] = []
        self._votes: list[np.ndarray] = []
        self._active: list[np.ndarray] = []

    def _score(self, beliefs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return scores(accept(beliefs, self._config.threshold, get_rule(self._config.rule, self._config)),
                      self._domain.truth)

    def add(self, ids: np.ndarray, beliefs: np.ndarray, partners: np.ndarray, sent: np.ndarray,
            votes: np.ndarray) -> None:
        """Store round state of the active runs ``ids`` (working arrays are indexed by position)."""
        full = self._beliefs[-1].copy()
        full[ids] = beliefs
        self._beliefs.append(full)
        prev = tuple(s.copy() for s in self._scores[-1])
        for arr, new in zip(prev, self._score(beliefs), strict=True):
            arr[ids] = new
        self._scores.append(prev)
        r, n = self._runs, self._agents
        p = np.full((r, n), -1, dtype=np.int64)
        p[ids] = partners
        m = np.full((r, n, sent.shape[-1]), -1, dtype=np.int64)
        m[ids] = sent
        v = np.zeros((r, n), dtype=bool)
        v[ids] = votes
        a = np.zeros(r, dtype=bool)
        a[ids] = True
        self._partners.append(p)
        self._messages.append(m)
        self._votes.append(v)
        self._active.append(a)

    def finish(self) -> Recording:
        """Stack everything into a frozen :class:`Recording`."""
        messages = np.stack(self._messages)
        truth = self._domain.truth
        message_true = np.where(messages >= 0, truth[np.maximum(messages, 0)], False)
        p, rc, f = (np.stack([s[i] for s in self._scores]) for i in range(3))
        return Recording(
            rule=self._config.rule, beliefs=np.stack(self._beliefs), partners=np.stack(self._partners),
            messages=messages, message_true=message_true, votes=np.stack(self._votes),
            active=np.stack(self._active), precision=p, recall=rc, f1=f, liars=self._liars,
            trust=self._config.trust,
        )
