"""Configuration of a belief-exchange simulation: one frozen, validated dataclass.

Every impossible parameter is rejected in ``__post_init__`` with a ``ValueError`` that names the
parameter, so a run, a sweep row or a CLI call fails before any work starts.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

STRATEGIES = ("highest_confidence", "strategic")
RULES = ("additive", "bounded")
DOMAINS = ("family", "abstract")

MAX_AGENTS = 10_000_000
MAX_PAIRS = 100_000
MAX_ROUNDS = 10_000

# Bounded rule: confidences live on a grid of tenths, stored as int16 in [0, BOUNDED_SCALE].
BOUNDED_SCALE = 10
BOUNDED_START = 5  # 0.5: undecided
BOUNDED_STEP = 1  # 0.1 per received report
BOUNDED_INIT_STEP = 2  # 0.5 -> 0.7 for an initially held fact (and 0.3 for its negation)

# Stop vote: an agent also votes STOP once it has an opinion on every pair, each at least this sure.
STOP_CONFIDENCE_PCT = 80


@dataclass(frozen=True)
class BeliefConfig:
    """Parameters of one belief-exchange condition (paper defaults).

    ``facts`` is K, the number of proposition pairs (|U| = 2K); ``true_facts`` / ``false_facts`` are
    M_T / M_F, the facts each agent starts with (drawn with replacement unless ``with_replacement`` is
    False); ``threshold`` is the collective acceptance threshold on population-mean normalised
    confidence; ``liars`` is the fraction of agents that share negations of what they believe and
    ``noise`` the probability that a shared fact is flipped to its negation in transit.
    """

    agents: int = 20
    facts: int = 20
    true_facts: int = 5
    false_facts: int = 3
    bandwidth: int = 3
    rounds: int = 20
    strategy: str = "highest_confidence"
    rule: str = "additive"
    threshold: float = 0.5
    stop_share: float = 0.75
    domain: str = "family"
    domain_seed: int = 0
    liars: float = 0.0
    noise: float = 0.0
    with_replacement: bool = True

    def __post_init__(self) -> None:
        _check_int(self.agents, "agents", 2, MAX_AGENTS)
        _check_int(self.facts, "facts", 1, MAX_PAIRS)
        _check_int(self.true_facts, "true_facts", 0, None)
        _check_int(self.false_facts, "false_facts", 0, None)
        _check_int(self.bandwidth, "bandwidth", 1, None)
        _check_int(self.rounds, "rounds", 1, MAX_ROUNDS)
        _check_int(self.domain_seed, "domain_seed", 0, None)
        _check_choice(self.strategy, "strategy", STRATEGIES)
        _check_choice(self.rule, "rule", RULES)
        _check_choice(self.domain, "domain", DOMAINS)
        _check_unit(self.threshold, "threshold")
        _check_unit(self.liars, "liars")
        _check_unit(self.noise, "noise")
        if not isinstance(self.stop_share, (int, float)) or not 0 < self.stop_share <= 1:
            raise ValueError(f"stop_share must be in (0, 1], got {self.stop_share!r}")
        if not self.with_replacement:
            if self.true_facts > self.facts:
                raise ValueError(
                    f"true_facts ({self.true_facts}) cannot exceed facts ({self.facts}) "
                    "when drawing without replacement"
                )
            if self.false_facts > self.facts:
                raise ValueError(
                    f"false_facts ({self.false_facts}) cannot exceed facts ({self.facts}) "
                    "when drawing without replacement"
                )

    def to_dict(self) -> dict[str, Any]:
        """Plain dict of all parameters (for tidy rows, JSON and hashing)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BeliefConfig:
        """Build from a dict, rejecting unknown keys by name."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown parameter(s): {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        return cls(**data)


def condition_label(config: BeliefConfig) -> str:
    """Short name of the experimental condition (rule plus any adversarial extension).

    Tables group by it; an LLM population would report e.g. ``llm-<model>`` in the same column.
    """
    label = f"heuristic-{config.rule}"
    if config.liars > 0:
        label += f"+liars{config.liars:g}"
    if config.noise > 0:
        label += f"+noise{config.noise:g}"
    return label


def _check_int(value: Any, name: str, low: int, high: int | None) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if value < low:
        raise ValueError(f"{name} must be >= {low}, got {value}")
    if high is not None and value > high:
        raise ValueError(f"{name} must be <= {high}, got {value}")


def _check_choice(value: Any, name: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}; got {value!r}")


def _check_unit(value: Any, name: str) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise ValueError(f"{name} must be a number in [0, 1], got {value!r}")
