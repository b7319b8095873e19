"""Update rules: how a received fact changes an agent's belief array (pluggable, vectorised).

Beliefs are int16 arrays whose last axis is the fact axis (pairs at ``2k``/``2k+1``):
- ``additive`` (paper Eq. 2): a count, 1 for an initially held fact and 0 otherwise; each received
  copy of a fact adds 1. An agent believes every fact with a positive count.
- ``bounded``: confidence in tenths (0..10 stands for 0.0..1.0), 0.5 everywhere at the start, an
  initially held fact raised to 0.7 and its negation lowered to 0.3 (both held: both stay 0.5). A
  report with confidence > 0.5 adds 0.1, any other report subtracts 0.1; the competing negation
  moves the other way; values are clipped to [0, 1] after the round's reports are summed. An agent
  believes a fact whose confidence exceeds 0.5. Because every change is mirrored, p and ¬p always
  sum to 1.

To add a rule, implement :class:`UpdateRule` and register it in :data:`RULE_REGISTRY`.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from ifworld.beliefs.config import BOUNDED_INIT_STEP, BOUNDED_SCALE, BOUNDED_START, BOUNDED_STEP

REPORT_BELIEVED = 0.5  # a reported confidence above this counts as support under the bounded rule


class UpdateRule(Protocol):
    """What the engine needs from an update rule."""

    name: str

    def initial(self, held: np.ndarray) -> np.ndarray:
        """int16 beliefs from a bool mask of initially held facts (same shape)."""
        ...

    def believes(self, beliefs: np.ndarray) -> np.ndarray:
        """Bool mask of the knowledge base: facts the agent currently believes."""
        ...

    def apply(self, flat: np.ndarray, targets: np.ndarray, reported: np.ndarray) -> None:
        """Apply received reports in place; ``targets`` index the flattened belief array."""
        ...


class AdditiveRule:
    """B <- B + 1 for each received fact (paper Eq. 2)."""

    name = "additive"

    def initial(self, held: np.ndarray) -> np.ndarray:
        return held.astype(np.int16)

    def believes(self, beliefs: np.ndarray) -> np.ndarray:
        return beliefs > 0

    def apply(self, flat: np.ndarray, targets: np.ndarray, reported: np.ndarray) -> None:
        np.add.at(flat, targets, np.int16(1))


class BoundedRule:
    """±0.1 per report depending on the reported confidence, mirrored on the negation, clipped."""

    name = "bounded"

    def initial(self, held: np.ndarray) -> np.ndarray:
        h = held.astype(np.int16)
        diff = h - h.reshape(*h.shape[:-1], -1, 2)[..., ::-1].reshape(h.shape)
        return (BOUNDED_START + BOUNDED_INIT_STEP * diff).astype(np.int16)

    def believes(self, beliefs: np.ndarray) -> np.ndarray:
        return beliefs > BOUNDED_START

    def apply(self, flat: np.ndarray, targets: np.ndarray, reported: np.ndarray) -> None:
        delta = np.where(reported > REPORT_BELIEVED, BOUNDED_STEP, -BOUNDED_STEP).astype(np.int16)
        np.add.at(flat, targets, delta)
        np.add.at(flat, targets ^ 1, -delta)
        touched = np.concatenate([targets, targets ^ 1])
        flat[touched] = np.clip(flat[touched], 0, BOUNDED_SCALE)


RULE_REGISTRY: dict[str, UpdateRule] = {"additive": AdditiveRule(), "bounded": BoundedRule()}


def get_rule(name: str) -> UpdateRule:
    """The registered rule called ``name``."""
    try:
        return RULE_REGISTRY[name]
    except KeyError:
        raise ValueError(f"rule must be one of {', '.join(RULE_REGISTRY)}; got {name!r}") from None


def normalised(beliefs: np.ndarray) -> np.ndarray:
    """Per-agent normalised confidence b_f / (b_f + b_¬f) as float32; 0 for pairs never heard of.

    Same formula for both rules (bounded pairs always sum to 1, so it is the confidence itself).
    """
    b = beliefs.astype(np.float32)
    pair = b.reshape(*b.shape[:-1], -1, 2)
    total = pair.sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(total > 0, pair / total, 0.0)
    return out.reshape(b.shape).astype(np.float32)
