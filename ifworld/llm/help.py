"""The no-model help text, re-exported so the lazy front door can list it beside the model layer's names."""

from ifworld.config import NO_MODEL_HELP

__all__ = ["NO_MODEL_HELP"]
