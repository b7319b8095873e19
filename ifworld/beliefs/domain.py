"""Fact universes: a consistent random family tree (default) and an abstract p1..pK domain.

Fact indexing (a contract used by the engine, metrics and renderers): pair k owns facts ``2k``
(the positive statement p_k) and ``2k + 1`` (its negation ¬p_k), so ``fact ^ 1`` is the negation of
``fact``. Exactly one fact of each pair is in the ground truth T; the other is in F = U \\ T.
Metrics put every true negation in its own category ``negative``; positive facts keep their type.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np

from ifworld import resources
from ifworld.beliefs.config import BeliefConfig

FAMILY_TYPES = ("parent", "sibling", "marriage", "grandparent", "cousin")
ABSTRACT_TYPE = "abstract"
NEGATIVE_CATEGORY = "negative"
SYMMETRIC = frozenset({"sibling", "marriage", "cousin"})
CATEGORIES = (*FAMILY_TYPES, ABSTRACT_TYPE, NEGATIVE_CATEGORY)
NEGATIVE_TRUTH_SHARE = 0.3  # share of pairs whose true member is the negation
NAMES_FILE = resources.data_path("family_names.txt")
PAIRS_PER_FOUNDING_COUPLE = 12
CHILDREN_RANGE = (2, 4)  # children per couple: integers in [low, high)
MARRY_PROBABILITY = 0.8

_TEMPLATES = {
    "parent": ("{a} is the parent of {b}", "{a} is not the parent of {b}"),
    "sibling": ("{a} and {b} are siblings", "{a} and {b} are not siblings"),
    "marriage": ("{a} is married to {b}", "{a} is not married to {b}"),
    "grandparent": ("{a} is a grandparent of {b}", "{a} is not a grandparent of {b}"),
    "cousin": ("{a} and {b} are cousins", "{a} and {b} are not cousins"),
}


@dataclass(frozen=True)
class Domain:
    """A universe of 2K facts with its ground truth (see module docstring for indexing)."""

    name: str
    labels: tuple[str, ...]
    pair_types: tuple[str, ...]
    truth: np.ndarray = field(repr=False)  # (2K,) bool, True for facts in T
    people: tuple[str, ...] = ()
    parent_edges: tuple[tuple[str, str], ...] = ()  # (parent, child)
    marriages: tuple[tuple[str, str], ...] = ()
    subjects: tuple[tuple[str, str], ...] = ()  # (a, b) each pair's statement is about (family only)

    @property
    def pairs(self) -> int:
        """K, the number of proposition pairs."""
        return len(self.pair_types)

    @property
    def true_facts(self) -> np.ndarray:
        """Indices of the K facts in T, one per pair, in pair order."""
        return np.flatnonzero(self.truth)

    @property
    def false_facts(self) -> np.ndarray:
        """Indices of the K facts in F, one per pair, in pair order."""
        return np.flatnonzero(~self.truth)

    def category(self, fact: int) -> str:
        """Metric category of a fact: ``negative`` for negations, else the pair's type."""
        return NEGATIVE_CATEGORY if fact % 2 else self.pair_types[fact // 2]

    def categories(self) -> tuple[str, ...]:
        """Metric category of every fact, indexed like ``labels``."""
        return tuple(self.category(f) for f in range(len(self.labels)))


def build_domain(config: BeliefConfig) -> Domain:
    """The domain a config describes; deterministic in (domain, facts, domain_seed)."""
    return _cached_domain(config.domain, config.facts, config.domain_seed)


@functools.lru_cache(maxsize=64)
def _cached_domain(kind: str, pairs: int, seed: int) -> Domain:
    rng = np.random.default_rng(np.random.SeedSequence([seed, pairs]))
    if kind == "abstract":
        return abstract_domain(pairs, rng)
    return family_domain(pairs, rng)


def abstract_domain(pairs: int, rng: np.random.Generator) -> Domain:
    """p1..pK with a random mix of positive and negated truths."""
    labels: list[str] = []
    for k in range(1, pairs + 1):
        labels += [f"p{k}", f"¬p{k}"]
    negated = rng.random(pairs) < NEGATIVE_TRUTH_SHARE
    return Domain("abstract", tuple(labels), (ABSTRACT_TYPE,) * pairs, _truth(negated))


def load_names() -> list[str]:
    """Given names from ``data/family_names.txt`` (comments and blanks skipped)."""
    if not NAMES_FILE.exists():
        return [f"Person{i}" for i in range(1, 61)]
    lines = NAMES_FILE.read_text(encoding="utf-8").splitlines()
    return [s.strip() for s in lines if s.strip() and not s.startswith("#")]


def family_domain(pairs: int, rng: np.random.Generator) -> Domain:
    """K relation statements about one random, consistent family tree.

    About ``NEGATIVE_TRUTH_SHARE`` of the pairs are about relations that do not hold, so their true
    member is the negation ("Ana is not the parent of Ben"); types are spread round-robin.
    """
    couples = max(2, math.ceil(pairs / PAIRS_PER_FOUNDING_COUPLE))
    while True:
        tree = _FamilyTree(rng, couples)
        chosen = tree.sample_pairs(rng, pairs)
        if chosen is not None:
            break
        couples += 1
    labels: list[str] = []
    types: list[str] = []
    negated: list[bool] = []
    subjects: list[tuple[str, str]] = []
    for kind, a, b, holds in chosen:
        pos, neg = _TEMPLATES[kind]
        labels += [pos.format(a=a, b=b), neg.format(a=a, b=b)]
        types.append(kind)
        negated.append(not holds)
        subjects.append((a, b))
    return Domain(
        "family", tuple(labels), tuple(types), _truth(np.array(negated)),
        people=tuple(tree.names), parent_edges=tuple(tree.parent_edges()), marriages=tuple(tree.marriages),
        subjects=tuple(subjects),
    )


def _truth(negated: np.ndarray) -> np.ndarray:
    truth = np.zeros(2 * len(negated), dtype=bool)
    truth[2 * np.arange(len(negated)) + negated.astype(int)] = True
    return truth


class _FamilyTree:
    """Three generations: founding couples, their (often married) children, grandchildren."""

    def __init__(self, rng: np.random.Generator, couples: int) -> None:
        pool = load_names()
        order = rng.permutation(len(pool))
        self._pool = [pool[i] for i in order]
        self.names: list[str] = []
        self.parents: dict[str, tuple[str, ...]] = {}
        self.marriages: list[tuple[str, str]] = []
        for _ in range(couples):
            a, b = self._new(()), self._new(())
            self.marriages.append((a, b))
            for child in self._children(rng, (a, b)):
                if rng.random() < MARRY_PROBABILITY:
                    spouse = self._new(())
                    self.marriages.append((child, spouse))
                    self._children(rng, (child, spouse))

    def _new(self, parents: tuple[str, ...]) -> str:
        i = len(self.names)
        base = self._pool[i % len(self._pool)]
        name = base if i < len(self._pool) else f"{base} {i // len(self._pool) + 1}"
        self.names.append(name)
        self.parents[name] = parents
        return name

    def _children(self, rng: np.random.Generator, couple: tuple[str, str]) -> list[str]:
        return [self._new(couple) for _ in range(int(rng.integers(*CHILDREN_RANGE)))]

    def parent_edges(self) -> list[tuple[str, str]]:
        return [(p, c) for c, ps in self.parents.items() for p in ps]

    def holds(self, kind: str, a: str, b: str) -> bool:
        """Whether relation ``kind`` holds from a to b in this tree."""
        pa, pb = self.parents[a], self.parents[b]
        if kind == "parent":
            return a in pb
        if kind == "sibling":
            return bool(pa) and pa == pb
        if kind == "marriage":
            return (a, b) in self.marriages or (b, a) in self.marriages
        if kind == "grandparent":
            return any(a in self.parents[p] for p in pb)
        return any(x != y and self.holds("sibling", x, y) for x in pa for y in pb)  # cousin (siblings are not)

    def sample_pairs(self, rng: np.random.Generator, pairs: int) -> list[tuple[str, str, str, bool]] | None:
        """K distinct (type, a, b, holds) statements, or None if the tree is too small."""
        everyone = self.names
        positives = {
            kind: [(kind, a, b) for a in everyone for b in everyone
                   if a != b and (kind not in SYMMETRIC or a < b) and self.holds(kind, a, b)]
            for kind in FAMILY_TYPES
        }
        n_neg = int(round(pairs * NEGATIVE_TRUTH_SHARE))
        chosen: list[tuple[str, str, str, bool]] = []
        seen: set[tuple[str, str, str]] = set()
        for i in range(pairs - n_neg):
            kinds = [k for k in FAMILY_TYPES if any(c not in seen for c in positives[k])]
            if not kinds:
                return None
            kind = kinds[i % len(kinds)]
            options = [c for c in positives[kind] if c not in seen]
            pick = options[int(rng.integers(len(options)))]
            seen.add(pick)
            chosen.append((*pick, True))
        attempts = 0
        while len(chosen) < pairs:
            attempts += 1
            if attempts > 1000 * pairs:
                return None
            kind = FAMILY_TYPES[len(chosen) % len(FAMILY_TYPES)]
            a, b = (everyone[int(i)] for i in rng.choice(len(everyone), 2, replace=False))
            if kind in SYMMETRIC:
                a, b = min(a, b), max(a, b)
            if (kind, a, b) in seen or self.holds(kind, a, b):
                continue
            seen.add((kind, a, b))
            chosen.append((kind, a, b, False))
        order = rng.permutation(len(chosen))
        return [chosen[i] for i in order]
