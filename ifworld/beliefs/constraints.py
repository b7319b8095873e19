"""Domain constraints: the heuristic agent of §6.1 that "encodes domain constraints" when it accepts facts.

The paper credits the heuristic's perfect precision to "rule-based inference that encodes domain
constraints" (§6.1) without saying which. This module is our reading of that sentence, as a wrapper
around any update rule (:class:`ConstrainedRule`, switched on by ``BeliefConfig.constraints``):

- **Evidence is unchanged.** Belief scores still move by the wrapped rule (Eq. 2 for ``additive``), and
  the stop vote is the wrapped rule's.
- **Acceptance is constrained.** An agent's knowledge base is the consistent set it builds from its own
  scores: facts in decreasing order of support (``b_f - b_¬f``, ties by fact index) are accepted one by
  one when they, with everything they imply, contradict nothing accepted so far; implied facts are
  accepted with the support of the fact that implied them (the weakest premise). This is Brewka's
  "preferred subtheories" (1989) with the possibilistic weakest-link rule for derived facts.
- The agent shares from that set (``highest_confidence``: by support) and counts, for the collective,
  1 for a fact it accepts and 0 otherwise.

The constraints (:data:`RULES`) are what every family that :mod:`ifworld.beliefs.domain` draws obeys —
three generations: founding couples, their children (some married to people from outside), grandchildren;
every person has no parents or two married ones; nobody marries twice — grounded over the statements of
the universe U. They read only the statements' *vocabulary* (``pair_types``, ``subjects``), never the
ground truth, the tree, or anything the agent was not told; ``tests/beliefs/test_constraints.py`` checks
every ground clause against the truth of many random families and that no truth is read.

Written by hand rather than with networkx: the inference runs for every agent of every run in every round
(about 10^6 agent-rounds per sweep), so it is a few array operations over all agents at once; the clauses
are grounded once per universe by a join over its K statements.
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

import numpy as np

from ifworld.beliefs.config import STOP_CONFIDENCE_PCT
from ifworld.beliefs.domain import SYMMETRIC, Domain
from ifworld.errors import BeliefConfigError

MAX_PREMISES = 3


class Lit(NamedTuple):
    """``kind(x, y)`` (or its negation when ``positive`` is False) over variables x, y."""

    kind: str
    x: str
    y: str
    positive: bool = True


def _no(kind: str, x: str, y: str) -> Lit:
    return Lit(kind, x, y, False)


P, S, M, G, C = "parent", "sibling", "marriage", "grandparent", "cousin"
_ON_PAIR = (Lit(P, "x", "y"), Lit(P, "y", "x"), Lit(S, "x", "y"), Lit(M, "x", "y"), Lit(G, "x", "y"),
            Lit(G, "y", "x"), Lit(C, "x", "y"))
RULES: tuple[tuple[str, tuple[Lit, ...], Lit], ...] = (  # (why, premises, conclusion); variables all distinct
    # two people stand in at most one relation (parent-of is asymmetric: P(x,y) excludes P(y,x))
    *(("one relation per pair of people", (a,), Lit(b.kind, b.x, b.y, False))
      for a in _ON_PAIR for b in _ON_PAIR if a != b),
    ("nobody marries twice", (Lit(M, "x", "y"),), _no(M, "x", "z")),
    ("two parents of one child are married", (Lit(P, "x", "c"), Lit(P, "y", "c")), Lit(M, "x", "y")),
    ("at most two parents", (Lit(P, "x", "c"), Lit(P, "y", "c")), _no(P, "z", "c")),
    ("spouses share their children", (Lit(M, "x", "y"), Lit(P, "x", "c")), Lit(P, "y", "c")),
    ("spouses share their children", (Lit(M, "x", "y"), _no(P, "x", "c")), _no(P, "y", "c")),
    ("siblings share their parents", (Lit(S, "a", "b"), Lit(P, "p", "a")), Lit(P, "p", "b")),
    ("siblings share their parents", (Lit(S, "a", "b"), _no(P, "p", "a")), _no(P, "p", "b")),
    ("children of one parent are siblings", (Lit(P, "p", "a"), Lit(P, "p", "b")), Lit(S, "a", "b")),
    ("siblinghood is transitive", (Lit(S, "a", "b"), Lit(S, "b", "c")), Lit(S, "a", "c")),
    ("siblinghood is transitive", (Lit(S, "a", "b"), _no(S, "b", "c")), _no(S, "a", "c")),
    ("a grandparent is a parent's parent", (Lit(P, "g", "p"), Lit(P, "p", "c")), Lit(G, "g", "c")),
    ("siblings share their grandparents", (Lit(S, "a", "b"), Lit(G, "g", "a")), Lit(G, "g", "b")),
    ("siblings share their grandparents", (Lit(S, "a", "b"), _no(G, "g", "a")), _no(G, "g", "b")),
    ("cousins share their grandparents", (Lit(C, "a", "b"), Lit(G, "g", "a")), Lit(G, "g", "b")),
    ("cousins share their grandparents", (Lit(C, "a", "b"), _no(G, "g", "a")), _no(G, "g", "b")),
    ("children of siblings are cousins", (Lit(P, "x", "a"), Lit(P, "y", "b"), Lit(S, "x", "y")), Lit(C, "a", "b")),
    ("a cousin's sibling is a cousin", (Lit(C, "a", "b"), Lit(S, "b", "c")), Lit(C, "a", "c")),
    ("grandchildren of one grandparent are siblings or cousins",
     (Lit(G, "g", "a"), Lit(G, "g", "b"), _no(S, "a", "b")), Lit(C, "a", "b")),
    ("grandchildren of one grandparent are siblings or cousins",
     (Lit(G, "g", "a"), Lit(G, "g", "b"), _no(C, "a", "b")), Lit(S, "a", "b")),
    # three generations: grandparents are founders (no parents, siblings or cousins), grandchildren have
    # no children and do not marry, and whoever has a parent is nobody's grandparent
    *(("a grandparent is a founder", (Lit(G, "g", "c"),), lit) for lit in
      (_no(P, "w", "g"), _no(S, "g", "w"), _no(C, "g", "w"), _no(G, "w", "g"))),
    *(("a grandchild has no children and is unmarried", (Lit(G, "g", "c"),), lit) for lit in
      (_no(P, "c", "w"), _no(G, "c", "w"), _no(M, "c", "w"))),
    *(("cousins are grandchildren", (Lit(C, "a", "b"),), lit) for lit in
      (_no(P, "a", "w"), _no(G, "a", "w"), _no(M, "a", "w"))),
    ("whoever has a parent is nobody's grandparent", (Lit(P, "x", "y"),), _no(G, "y", "w")),
    ("whoever has a sibling is nobody's grandparent", (Lit(S, "a", "b"),), _no(G, "a", "w")),
    ("married people are not grandchildren", (Lit(M, "x", "y"),), _no(C, "x", "w")),
    ("married people are not grandchildren", (Lit(M, "x", "y"),), _no(G, "w", "x")),
)


class Clause(NamedTuple):
    """Premise facts (indices into U) imply the conclusion fact; ``why`` names the rule."""

    premises: tuple[int, ...]
    conclusion: int
    why: str


def ground(domain: Domain) -> tuple[Clause, ...]:
    """Every instance of :data:`RULES` whose statements are all in the universe of ``domain``.

    Reads ``pair_types`` and ``subjects`` only (the statements' vocabulary), never ``truth``."""
    if domain.name != "family" or len(domain.subjects) != domain.pairs:
        return ()
    return _ground(tuple(domain.pair_types), tuple(domain.subjects))


@functools.lru_cache(maxsize=32)
def _ground(pair_types: tuple[str, ...], subjects: tuple[tuple[str, str], ...]) -> tuple[Clause, ...]:
    by_kind: dict[str, list[tuple[str, str, int]]] = {}
    for k, (kind, (a, b)) in enumerate(zip(pair_types, subjects, strict=True)):
        by_kind.setdefault(kind, []).append((a, b, 2 * k))
        if kind in SYMMETRIC:
            by_kind[kind].append((b, a, 2 * k))
    out: dict[tuple[tuple[int, ...], int], str] = {}
    for why, premises, conclusion in RULES:
        lits = (*premises, conclusion)
        for facts in _matches(lits, by_kind, {}):
            body = tuple(sorted(set(facts[:-1])))
            if not {facts[-1], facts[-1] ^ 1} & set(body) and len({f // 2 for f in body}) == len(body):
                out.setdefault((body, facts[-1]), why)
    return tuple(Clause(body, head, why) for (body, head), why in out.items())


def _matches(lits: tuple[Lit, ...], by_kind: dict[str, list[tuple[str, str, int]]],
             bound: dict[str, str]) -> Any:
    """Fact indices of ``lits`` for every binding of their variables to distinct people (a join over U)."""
    if not lits:
        yield ()
        return
    lit, rest = lits[0], lits[1:]
    for a, b, fact in by_kind.get(lit.kind, ()):
        new = dict(bound)
        if not (_bind(new, lit.x, a) and _bind(new, lit.y, b)):
            continue
        for tail in _matches(rest, by_kind, new):
            yield (fact if lit.positive else fact + 1, *tail)


def _bind(bound: dict[str, str], var: str, person: str) -> bool:
    if var in bound:
        return bound[var] == person
    if person in bound.values():  # variables stand for distinct people
        return False
    bound[var] = person
    return True


class Closure:
    """Forward chaining over ground clauses for many agents at once (columns of a bool matrix)."""

    def __init__(self, clauses: tuple[Clause, ...], facts: int) -> None:
        self.facts = facts
        pad = facts  # an always-true row pads short premise lists
        order = sorted(clauses, key=lambda c: c.conclusion)
        self.premises = np.array([list(c.premises) + [pad] * (MAX_PREMISES - len(c.premises)) for c in order],
                                 dtype=np.intp).reshape(-1, MAX_PREMISES)
        heads = np.array([c.conclusion for c in order], dtype=np.intp)
        self.heads, self.starts = np.unique(heads, return_index=True) if len(heads) else (heads, heads)
        self.is_premise = np.zeros(facts + 1, dtype=bool)  # facts whose acceptance can imply something
        self.is_premise[self.premises.reshape(-1)] = True
        self.is_premise[facts] = False

    def close(self, held: np.ndarray) -> None:
        """In place: add to ``held`` ((facts + 1, n) bool, last row True) everything its clauses imply."""
        if not len(self.premises):
            return
        p = self.premises
        while True:
            fire = held[p[:, 0]] & held[p[:, 1]] & held[p[:, 2]]
            new = np.logical_or.reduceat(fire, self.starts, axis=0) & ~held[self.heads]
            if not new.any():
                return
            held[self.heads] |= new


def consistent_support(counts: np.ndarray, closure: Closure) -> np.ndarray:
    """(2K, n) support of each accepted fact (>= 1), 0 for facts not accepted, from scores (2K, n).

    Facts go in decreasing order of margin ``b_f - b_¬f`` (> 0 only; ties by fact index); a fact is
    accepted with its implications unless that makes some pair hold both members."""
    facts, n = counts.shape
    wide = counts.astype(np.int32)
    margin = wide - wide[np.arange(facts) ^ 1]
    order = np.argsort(-margin, axis=0, kind="stable")
    held = np.zeros((facts + 1, n), dtype=bool)
    held[facts] = True
    support = np.zeros((facts, n), dtype=np.int32)
    cols = np.arange(n)
    for j in range(int((margin > 0).sum(axis=0).max(initial=0))):
        f = order[j]
        m = margin[f, cols]
        live = (m > 0) & ~held[f, cols] & ~held[f ^ 1, cols]
        if not live.any():
            continue
        plain = live & ~closure.is_premise[f]  # implies nothing: accepted as it is
        held[f[plain], cols[plain]] = True
        support[f[plain], cols[plain]] = m[plain]
        live &= ~plain
        if not live.any():
            continue
        c, fl = cols[live], f[live]
        trial = held[:, c]
        trial[fl, np.arange(len(c))] = True
        closure.close(trial)
        ok = ~(trial[0:facts:2] & trial[1:facts:2]).any(axis=0)
        c, trial, ml = c[ok], trial[:, ok], m[live][ok]
        fresh = trial[:facts] & ~held[:facts, c]
        support[:, c] = np.where(fresh, ml, support[:, c])
        held[:, c] = trial
    return support


class ConstrainedRule:
    """An update rule whose agents accept (and share) only a consistent set under the domain constraints.

    Delegates evidence (``initial``, ``apply``, ``dtype``) and the stop vote to the wrapped rule; adds the
    ``rank`` and ``confidence`` hooks the engine and metrics use (see the module docstring)."""

    believe_min = 1  # rank() is the support of an accepted fact, >= 1
    binary_confidence = True  # metrics decide the collective's acceptance on counts of agents

    def __init__(self, inner: Any, clauses: tuple[Clause, ...], facts: int) -> None:
        self.inner, self.name, self.uses_confidence = inner, inner.name, inner.uses_confidence
        self.clauses = clauses
        self.closure = Closure(clauses, facts)

    def all_sure(self, block: np.ndarray) -> np.ndarray:
        """The stop vote stays the wrapped rule's, on its evidence (not the 0/1 :meth:`confidence` below): its
        own ``all_sure``, else every pair has an opinion at least ``STOP_CONFIDENCE_PCT`` % sure by the values
        (the engine's default ``all_sure``, written out: high / (high + low) >= pct)."""
        own = getattr(self.inner, "all_sure", None)
        if own is not None:
            return own(block)
        b0, b1 = block[0::2].astype(np.int64), block[1::2].astype(np.int64)
        low, high = np.minimum(b0, b1), np.maximum(b0, b1)
        sure = ((100 - STOP_CONFIDENCE_PCT) * high >= STOP_CONFIDENCE_PCT * low) & (high > 0)
        return np.asarray(sure.all(axis=0))

    def dtype(self, rounds: int, bandwidth: int) -> Any:
        return self.inner.dtype(rounds, bandwidth)

    def initial(self, held: np.ndarray, axis: int = -1, dtype: Any = np.int16) -> np.ndarray:
        return self.inner.initial(held, axis=axis, dtype=dtype)

    def apply(self, beliefs: np.ndarray, got: np.ndarray, cols: np.ndarray, reported: np.ndarray | None) -> np.ndarray:
        return self.inner.apply(beliefs, got, cols, reported)

    def rank(self, block: np.ndarray) -> np.ndarray:
        """(2K, n) facts-major scores -> the support of each accepted fact (0: not accepted)."""
        return np.minimum(consistent_support(block, self.closure), np.iinfo(block.dtype).max).astype(block.dtype)

    def confidence(self, beliefs: np.ndarray, dtype: Any = np.float64) -> np.ndarray:
        """(..., 2K) beliefs -> 1.0 where the agent accepts the fact, else 0.0."""
        facts = beliefs.shape[-1]
        flat = beliefs.reshape(-1, facts).T
        accepted = consistent_support(flat, self.closure) > 0
        return accepted.T.reshape(beliefs.shape).astype(dtype)


def constrained(inner: Any, domain: Domain) -> ConstrainedRule:
    """``inner`` with the constraints of ``domain`` (for the abstract domain: a fact excludes its negation)."""
    if len(domain.labels) != 2 * domain.pairs:
        raise BeliefConfigError("domain constraints need a universe of K fact / negation pairs")
    return ConstrainedRule(inner, ground(domain), len(domain.labels))
