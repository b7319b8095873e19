"""Update rules: how a received fact changes an agent's belief array (pluggable, vectorised).

Beliefs are small signed integers (see :meth:`UpdateRule.dtype`); pairs sit at facts ``2k``/``2k+1``:
- ``additive`` (paper Eq. 2): a count, 1 for an initially held fact and 0 otherwise; each received
  copy of a fact adds 1. An agent believes every fact with a positive count.
- ``bounded``: confidence in tenths (0..10 stands for 0.0..1.0), 0.5 everywhere at the start, an
  initially held fact raised to 0.7 and its negation lowered to 0.3 (both held: both stay 0.5). A
  report with confidence > 0.5 adds 0.1, any other report subtracts 0.1; the competing negation
  moves the other way; values are clipped to [0, 1] after the round's reports are summed. An agent
  believes a fact whose confidence exceeds 0.5. Because every change is mirrored, p and ¬p always
  sum to 1.

The engine keeps beliefs *facts-major*: ``beliefs[fact, column]`` with one column per (run, agent)
and :data:`SCRATCH_ROWS` extra fact rows at the end. "No message" is sent as fact ``F`` (the first
scratch row; its negation ``F ^ 1`` is the second), so deliveries need no masks.

- ``bayes`` and ``discounted`` (beyond the paper): see :class:`BayesRule` and :class:`DiscountedRule`.

To add a rule, implement :class:`UpdateRule` (the contract below) and register a :class:`RuleSpec` in
:data:`REGISTRY` (``ifworld.registry``'s ``beliefs.rules``): its name is then a config value, a CLI choice,
a page option and a docs-table row. A rule runs on the numpy path unless its spec names a compiled kernel
(``kernel``; only the built-in rules have one), and the run record says which path ran. The contract is what
the engine calls, nothing more: the required members of :class:`UpdateRule`, and the optional hooks of
:data:`OPTIONAL_HOOKS` when a rule has them. The knowledge base an agent shares from is
``rank(beliefs) >= believe_min`` (:func:`believed`); the stop vote's sureness test is :func:`stop_test`.
See docs/extending.md ("Add a belief update rule").
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Protocol

import numpy as np
from numpy.typing import DTypeLike
from pydantic import Field, model_validator

from ifworld.beliefs.config import (
    BOUNDED_INIT_STEP,
    BOUNDED_SCALE,
    BOUNDED_START,
    BOUNDED_STEP,
    DISCOUNT_SHIFTS,
    EVIDENCE_UNIT,
    STOP_CONFIDENCE_PCT,
)
from ifworld.errors import BeliefConfigError
from ifworld.registry import Registry, Spec

OPTIONAL_HOOKS: dict[str, str] = {
    "configured": "configured(config) -> a copy with the config's parameters (the spec's options)",
    "rank": "rank(block) -> what highest_confidence orders by and the knowledge base is read from "
            "(>= believe_min: believed); default: the belief values themselves",
    "all_sure": "all_sure(block) -> (columns,) bool, the stop vote's sureness test; default: every pair has an "
                "opinion at least STOP_CONFIDENCE_PCT % sure, by the rule's confidence hook if it has one, else "
                "by b_f / (b_f + b_¬f)",
    "confidence": "confidence(beliefs, dtype) -> per-agent confidence in each fact, (..., 2K) agents-major; "
                  "default b_f / (b_f + b_¬f) (the collective's acceptance and the stop vote read it)",
    "exact_confidence": "exact_confidence(a, b) -> Fraction, the confidence of a pair's member with beliefs "
                        "(a, b), to decide ties exactly",
    "binary_confidence": "True when confidence() is 0 or 1 per agent: the collective then compares counts of "
                         "agents exactly",
    "shown": "shown(beliefs) -> confidences as the round player draws them, NaN for a pair never heard of",
}
"""The optional hooks of an update rule: name → what the engine, the metrics or the player call it for."""
REQUIRED_MEMBERS = ("name", "believe_min", "uses_confidence", "dtype", "initial", "apply")
"""What every update rule defines (:class:`UpdateRule`); :class:`RuleSpec` refuses a rule that lacks one."""
REPORT_BELIEVED = 0.5  # a reported confidence above this counts as support under the bounded rule
SCRATCH_ROWS = 2  # fact rows F and F ^ 1 that absorb "no message" deliveries
STOP_SURE = Fraction(STOP_CONFIDENCE_PCT, 100)


class UpdateRule(Protocol):
    """What the engine needs from an update rule (the contract a new rule implements).

    Beliefs are signed integers in the rule's own units, facts-major (see the module docstring). A rule
    defines: ``name`` (its registered name), ``believe_min`` (smallest believed value), ``uses_confidence``
    (whether :meth:`apply` reads the senders' reported confidences; if False the engine does not compute them),
    and the three methods below. Everything else is an optional hook (:data:`OPTIONAL_HOOKS`).
    """

    name: str
    believe_min: int  # smallest believed value (the knowledge base is rank(beliefs) >= believe_min)
    uses_confidence: bool  # whether apply() reads the reported confidences

    def dtype(self, rounds: int, bandwidth: int) -> type[np.signedinteger]:
        """Smallest signed integer type that holds every value a run can reach (incl. a round's sums)."""
        ...

    def initial(self, held: np.ndarray, axis: int = -1, dtype: type[np.signedinteger] = np.int16) -> np.ndarray:
        """Beliefs from a bool mask of initially held facts (fact axis ``axis``, same shape)."""
        ...

    def apply(
        self, beliefs: np.ndarray, got: np.ndarray, cols: np.ndarray, reported: np.ndarray | None
    ) -> np.ndarray:
        """Apply received reports in place and return (len(cols),) bool: beliefs changed.

        ``beliefs`` is C-contiguous facts-major (F + SCRATCH_ROWS, columns); column ``cols[i]``
        receives fact ``got[s, i]`` in message slot s (>= F: nothing) with the sender's confidence
        ``reported[s, i]``. Within one slot every column appears once.
        """
        ...


def smallest_int(bound: int) -> type[np.signedinteger]:
    """Smallest signed integer type holding ``-bound .. bound``."""
    for dt in (np.int8, np.int16, np.int32):
        if bound <= np.iinfo(dt).max:
            return dt
    return np.int64


def flat_index(beliefs: np.ndarray, got: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Flat indices of ``beliefs[got[..., i], cols[i]]`` in a C-contiguous facts-major array."""
    idx = got.astype(np.intp)
    idx *= beliefs.shape[1]
    idx += cols
    return idx


def any_rows(mask: np.ndarray) -> np.ndarray:
    """``mask.any(axis=0)`` for a short (slots, n) mask, as row ORs (faster than the reduction)."""
    out = mask[0].copy()
    for row in mask[1:]:
        out |= row
    return out


class AdditiveRule:
    """B <- B + 1 for each received fact (paper Eq. 2)."""

    name = "additive"
    believe_min = 1
    uses_confidence = False

    def dtype(self, rounds: int, bandwidth: int) -> type[np.signedinteger]:
        return smallest_int(1 + rounds * bandwidth)

    def initial(self, held: np.ndarray, axis: int = -1, dtype: type[np.signedinteger] = np.int16) -> np.ndarray:
        return held.astype(dtype)

    def apply(
        self, beliefs: np.ndarray, got: np.ndarray, cols: np.ndarray, reported: np.ndarray | None
    ) -> np.ndarray:
        flat = beliefs.reshape(-1)
        for row in got:  # a column appears once per slot, so a fancy add counts every copy
            flat[flat_index(beliefs, row, cols)] += 1
        return any_rows(got < beliefs.shape[0] - SCRATCH_ROWS)  # a count always moves


class BoundedRule:
    """±0.1 per report depending on the reported confidence, mirrored on the negation, clipped."""

    name = "bounded"
    believe_min = BOUNDED_START + 1
    uses_confidence = True

    def dtype(self, rounds: int, bandwidth: int) -> type[np.signedinteger]:
        return smallest_int(BOUNDED_SCALE + bandwidth * BOUNDED_STEP)

    def initial(self, held: np.ndarray, axis: int = -1, dtype: type[np.signedinteger] = np.int16) -> np.ndarray:
        h = held.astype(dtype)
        swapped = np.take(h, np.arange(h.shape[axis]) ^ 1, axis=axis)  # each fact's negation
        h -= swapped
        h *= BOUNDED_INIT_STEP
        h += BOUNDED_START
        return h

    def shown(self, beliefs: np.ndarray) -> np.ndarray:
        """Confidences as the player draws them: the tenths themselves (every pair is 'heard of')."""
        return beliefs / BOUNDED_SCALE

    def apply(
        self, beliefs: np.ndarray, got: np.ndarray, cols: np.ndarray, reported: np.ndarray | None
    ) -> np.ndarray:
        flat = beliefs.reshape(-1)
        assert reported is not None, "the bounded rule reads the reported confidences (uses_confidence)"
        idx, neg = flat_index(beliefs, got, cols), flat_index(beliefs, got ^ 1, cols)
        step = np.where(reported > REPORT_BELIEVED, BOUNDED_STEP, -BOUNDED_STEP).astype(beliefs.dtype)
        touched = np.concatenate([idx, neg])
        before = flat[touched]
        for c in range(len(idx)):  # sum the round's reports, then clip
            flat[idx[c]] += step[c]
            flat[neg[c]] -= step[c]
        after = np.clip(flat[touched], 0, BOUNDED_SCALE)
        flat[touched] = after
        moved = after != before
        moved &= np.concatenate([got, got]) < beliefs.shape[0] - SCRATCH_ROWS
        return any_rows(moved)


class BayesRule(AdditiveRule):
    """Bayesian log-odds with a trust parameter (beyond the paper).

    Each report is independent evidence that is right with probability ``trust``: it multiplies the
    odds of the reported fact by r = trust / (1 - trust). Stored as evidence counts (1 for an initially
    held fact, +1 per report), so P(f) = r^e_f / (r^e_f + r^e_¬f) depends on e_f - e_¬f only. An agent
    believes f when P(f) > 1/2 (e_f > e_¬f); it is sure of a pair when its P is at least 0.8. Reports
    are evidence whatever the sender's confidence (a liar's negation counts like any report).
    """

    name = "bayes"

    def __init__(self, trust: float = 0.8) -> None:
        self.trust = trust
        self.ratio = Fraction(repr(float(trust))) / (1 - Fraction(repr(float(trust))))
        self.log_ratio = math.log(trust / (1 - trust))
        sure_at = 1
        while self.ratio ** sure_at < Fraction(STOP_SURE, 1 - STOP_SURE):  # P >= 0.8  <=>  r^d >= 4
            sure_at += 1
        self.sure_margin = sure_at
        self._exact: dict[int, Fraction] = {}

    def configured(self, config: Any) -> BayesRule:
        return BayesRule(config.trust)

    def rank(self, block: np.ndarray) -> np.ndarray:
        """Log-odds margin e_f - e_¬f where positive (the facts believed), else 0."""
        margin = np.empty_like(block)  # each pair's difference once, written to both rows
        np.subtract(block[0::2], block[1::2], out=margin[0::2])
        np.negative(margin[0::2], out=margin[1::2])
        np.maximum(margin, 0, out=margin)
        return margin

    def all_sure(self, block: np.ndarray) -> np.ndarray:
        """(columns,) every pair has |e_f - e_¬f| >= the margin where P reaches 0.8."""
        wide = np.int16 if block.dtype.itemsize == 1 else np.int64  # the difference of two int8 fits int16
        diff = np.subtract(block[0::2], block[1::2], dtype=wide)
        np.abs(diff, out=diff)
        return (diff >= self.sure_margin).all(axis=0)

    def confidence(self, beliefs: np.ndarray, dtype: DTypeLike = np.float64) -> np.ndarray:
        """P(f) = 1 / (1 + r^(e_¬f - e_f)); 0 for a pair never heard of."""
        b = beliefs.astype(np.float64)
        a, c = b[..., 0::2], b[..., 1::2]
        with np.errstate(over="ignore"):
            p = 1.0 / (1.0 + np.exp((c - a) * self.log_ratio))
        heard = (a + c) > 0
        out = np.empty(b.shape, dtype=dtype)
        out[..., 0::2] = np.where(heard, p, 0.0)
        out[..., 1::2] = np.where(heard, 1.0 - p, 0.0)
        return out

    def shown(self, beliefs: np.ndarray) -> np.ndarray:
        """P(f) as the player draws it (float32), NaN for a pair never heard of."""
        shown = self.confidence(beliefs, np.float32)
        unheard = (beliefs[..., 0::2] + beliefs[..., 1::2]) == 0
        shown[..., 0::2][unheard] = np.nan
        shown[..., 1::2][unheard] = np.nan
        return shown

    def exact_confidence(self, a: int, b: int) -> Fraction:
        """P(f) as an exact rational (for tie decisions); cached per log-odds margin."""
        if a + b == 0:
            return Fraction(0)
        margin = b - a
        if margin not in self._exact:
            self._exact[margin] = 1 / (1 + self.ratio ** margin)
        return self._exact[margin]


class DiscountedRule(AdditiveRule):
    """Discounted evidence (beyond the paper): old evidence fades, so agents can change their minds.

    Evidence is kept in 1/16 units (:data:`EVIDENCE_UNIT`): 16 for an initially held fact, +16 per
    received copy, and every round (after choosing what to share, before hearing its partner) each
    agent keeps a share ``discount`` of what it had (integer arithmetic: e <- e - e >> s with
    discount = 1 - 2^-s, rounding down, so evidence nobody repeats is eventually forgotten).
    Confidence is e_f / (e_f + e_¬f) as for ``additive``; an
    agent believes a fact it still has evidence for.
    """

    name = "discounted"

    def __init__(self, discount: float = 0.75) -> None:
        self.discount = discount
        self.shift = DISCOUNT_SHIFTS[discount]

    def configured(self, config: Any) -> DiscountedRule:
        return DiscountedRule(config.discount)

    def dtype(self, rounds: int, bandwidth: int) -> type[np.signedinteger]:
        return smallest_int(EVIDENCE_UNIT * (1 + bandwidth * (1 << self.shift)) + bandwidth * EVIDENCE_UNIT)

    def initial(self, held: np.ndarray, axis: int = -1, dtype: type[np.signedinteger] = np.int16) -> np.ndarray:
        return held.astype(dtype) * dtype(EVIDENCE_UNIT)

    def apply(
        self, beliefs: np.ndarray, got: np.ndarray, cols: np.ndarray, reported: np.ndarray | None
    ) -> np.ndarray:
        facts = beliefs.shape[0] - SCRATCH_ROWS
        block = beliefs[:facts, int(cols[0]):int(cols[-1]) + 1]  # the engine passes a contiguous range
        block -= block >> self.shift
        flat = beliefs.reshape(-1)
        for row in got:
            flat[flat_index(beliefs, row, cols)] += EVIDENCE_UNIT
        return any_rows(got < facts)


class RuleSpec(Spec):
    """A belief update rule as the product lists it: the rule, its parameters and how it is computed.

    ``options`` are the :class:`~ifworld.beliefs.config.BeliefConfig` fields the rule reads (its
    ``configured`` hook takes them from the config); their defaults, bounds, labels and help come from the
    config, so the page draws their inputs and sweeps vary them like any other parameter. ``kernel`` is the
    compiled kernel's rule id (:data:`ifworld.beliefs.kernel.KERNEL_RULES`) whose arithmetic this rule's is,
    bit for bit, or None: the rule runs on the numpy path.
    """

    rule: Any = Field(description="the UpdateRule object (defaults for its options)")
    options: tuple[str, ...] = Field(default=(), description="BeliefConfig fields the rule reads")
    uses_confidence: bool = Field(default=False, description="apply() reads the reported confidences")
    kernel: int | None = Field(default=None, ge=0, description="compiled kernel rule id, None = numpy path")

    @model_validator(mode="before")
    @classmethod
    def _from_rule(cls, data: Any) -> Any:
        if isinstance(data, dict) and "rule" in data:
            data = {"uses_confidence": bool(getattr(data["rule"], "uses_confidence", False)), **data}
        return data

    @model_validator(mode="after")
    def _rule_fits(self) -> RuleSpec:
        missing = [a for a in REQUIRED_MEMBERS if not hasattr(self.rule, a)]
        if missing:
            raise BeliefConfigError(f"rule {self.name!r} lacks {', '.join(missing)} (see UpdateRule)")
        if self.rule.name != self.name:
            raise BeliefConfigError(f"rule object is named {self.rule.name!r}, its spec {self.name!r}")
        if bool(self.rule.uses_confidence) != self.uses_confidence:
            raise BeliefConfigError(f"rule {self.name!r}: uses_confidence differs between the rule and its spec")
        return self

    @property
    def path(self) -> str:
        """Where its rounds run when numba is there: ``compiled kernel`` or ``numpy``."""
        return "numpy" if self.kernel is None else "compiled kernel"


REGISTRY: Registry[RuleSpec] = Registry("beliefs.rules", RuleSpec, noun="rule")
"""The belief update rules, in the order pages, tables and docs list them (the paper's two first)."""
UPDATE_RULES = REGISTRY  # the front door's name for it (``from ifworld.beliefs import UPDATE_RULES``)

DOC_COLUMNS = {"Name": lambda s: f"`{s.name}`", "Label": lambda s: s.label, "What it does": lambda s: s.help,
               "Parameters": lambda s: ", ".join(f"`{o}`" for o in s.options) or "—",
               "Reads reported confidence": lambda s: "yes" if s.uses_confidence else "no",
               "Compiled kernel": lambda s: "no: numpy path" if s.kernel is None else f"yes (rule id {s.kernel})"}

for _spec in (
    RuleSpec(name="additive", label="Additive (paper Eq. 2)", rule=AdditiveRule(), kernel=0,
             help="+1 per copy heard; an agent believes every fact with a positive count (paper Eq. 2)."),
    RuleSpec(name="bounded", label="Bounded confidence", rule=BoundedRule(), kernel=1,
             help="±0.1 per report depending on the reported confidence, mirrored on the negation, clipped to "
                  "[0, 1] (the paper's second rule)."),
    RuleSpec(name="bayes", label="Bayesian log-odds", rule=BayesRule(), options=("trust",), kernel=2,
             help="Log-odds: each report is right with probability `trust` (beyond the paper)."),
    RuleSpec(name="discounted", label="Discounted evidence", rule=DiscountedRule(), options=("discount",),
             kernel=3, help="Old evidence fades by `discount` per round, so agents can change their minds "
                            "(beyond the paper)."),
):
    REGISTRY.register(_spec)


def rule_names() -> tuple[str, ...]:
    """Registered rule names, in registry order (what config validation, the CLI and the page offer)."""
    return REGISTRY.names()


def get_rule(name: str, config: Any = None) -> UpdateRule:
    """The registered rule called ``name``, with its parameters taken from ``config`` when given."""
    try:
        rule = REGISTRY.get(name).rule
    except KeyError:  # UnknownEntry: its message lists the registered rules
        raise BeliefConfigError(f"rule must be one of {', '.join(rule_names())}; got {name!r}") from None
    configured = getattr(rule, "configured", None)
    rule = configured(config) if configured is not None and config is not None else rule
    if config is not None and getattr(config, "constraints", False):  # §6.1's domain constraints (a reading)
        from ifworld.beliefs.constraints import constrained
        from ifworld.beliefs.domain import build_domain

        return constrained(rule, build_domain(config))
    return rule


def believed(rule: UpdateRule, beliefs: np.ndarray) -> np.ndarray:
    """The knowledge base as the engine reads it: (F, columns) facts-major beliefs -> bool, believed facts
    (``rank(beliefs) >= believe_min``; without a ``rank`` hook, the beliefs themselves)."""
    rank = getattr(rule, "rank", None)
    return (beliefs if rank is None else rank(beliefs)) >= rule.believe_min


def normalised(beliefs: np.ndarray, dtype: DTypeLike = np.float32) -> np.ndarray:
    """Per-agent normalised confidence b_f / (b_f + b_¬f) (float32 unless ``dtype``); 0 for pairs never
    heard of. Same formula for both rules (bounded pairs always sum to 1, so it is the confidence itself).
    """
    b = beliefs.astype(dtype)
    total = b[..., 0::2] + b[..., 1::2]
    total[~(total > 0)] = np.inf  # x / inf = 0: unknown pairs normalise to 0 without a masked divide
    b[..., 0::2] /= total
    b[..., 1::2] /= total
    return b
