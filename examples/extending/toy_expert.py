"""Register the toy expert of toy_expert.yaml (an outside package's import would do exactly this)."""

from pathlib import Path

from ifworld.whatif import EXPERTS, ExpertSpec, expert_from_file

TOY_EXPERT = Path(__file__).with_name("toy_expert.yaml")


def register() -> ExpertSpec:
    """Offer the toy expert on the panel, at review, in `--experts` and in the docs table."""
    return EXPERTS.register(expert_from_file(TOY_EXPERT))
