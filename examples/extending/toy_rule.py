"""A belief update rule in one file: "stubborn" agents believe a fact only once they have heard it
COPIES times (a fact they start with counts as heard COPIES times).

Counts work like the paper's additive rule, +1 per copy heard; only the threshold of belief differs. The rule
has no compiled kernel, so its rounds run on the numpy path, and the run record says so.
Register it (``register()``), then ``ifworld beliefs run --rule stubborn`` and the Beliefs page offer it.
"""

from __future__ import annotations

import numpy as np

from ifworld.beliefs import SCRATCH_ROWS, UPDATE_RULES, RuleSpec

COPIES = 3  # copies an agent must hear before it believes (and passes on) a fact


class StubbornRule:
    """The UpdateRule contract: name, believe_min, uses_confidence, dtype, initial, apply (no optional hooks)."""

    name = "stubborn"
    believe_min = COPIES
    uses_confidence = False  # apply() ignores the senders' reported confidences

    def dtype(self, rounds: int, bandwidth: int) -> type[np.signedinteger]:
        """Large enough for COPIES plus one copy per slot and round."""
        return np.int16 if COPIES + rounds * bandwidth < np.iinfo(np.int16).max else np.int32

    def initial(self, held: np.ndarray, axis: int = -1, dtype: type[np.signedinteger] = np.int16) -> np.ndarray:
        """What an agent starts with, it holds as firmly as if it had heard it COPIES times."""
        return held.astype(dtype) * dtype(COPIES)

    def apply(self, beliefs: np.ndarray, got: np.ndarray, cols: np.ndarray,
              reported: np.ndarray | None) -> np.ndarray:
        """+1 for each copy column ``cols[i]`` receives (``got[slot, i]``; a value past the facts is "nothing"
        and lands in a scratch row); returns which columns' counts moved (they then do not vote STOP)."""
        flat = beliefs.reshape(-1)
        for slot in got:  # within one slot a column appears once, so a fancy add counts every copy
            flat[slot.astype(np.intp) * beliefs.shape[1] + cols] += 1
        return (got < beliefs.shape[0] - SCRATCH_ROWS).any(axis=0)


SPEC = RuleSpec(name="stubborn", label=f"Stubborn ({COPIES} copies)", rule=StubbornRule(),
                help=f"Counts copies like additive, but an agent believes a fact only after {COPIES} copies.")


def register() -> RuleSpec:
    """Add the rule to the registry (an outside package would do this when imported)."""
    return UPDATE_RULES.register(SPEC)
