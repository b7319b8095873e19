"""Display names in a workshop: who a participant may not pose as (part of :mod:`ifworld.whatif.workshop`; the
Unicode rules themselves are :mod:`ifworld.names`)."""

from __future__ import annotations

from typing import Any

from ifworld.errors import WorkshopError
from ifworld.names import NameRefused, clean_display_name, name_key
from ifworld.whatif.experts import REGISTRY as expert_registry, lookup as expert_named
from ifworld.whatif.workshop_models import MAX_NAME_CHARS

__all__ = ["NAME_CHARS_HELP", "RESERVED_WORDS", "clean_name"]

NAME_CHARS_HELP = "letters, digits, spaces and . ' - _"
RESERVED_WORDS = frozenset({"facilitator", "moderator", "teacher", "admin", "administrator", "system", "expert",
                            "experts", "panel", "resolver", "judge", "assistant", "host", "organiser", "organizer"})


def clean_name(value: Any) -> str:
    """A display name as stored (:func:`ifworld.names.clean_display_name`: NFKC, visible characters only,
    :data:`NAME_CHARS_HELP`, a visible letter, no tag words) that does not pose — in any script — as the
    facilitator, the panel or one of its experts (refused with the reason)."""
    try:
        name = clean_display_name(value, limit=MAX_NAME_CHARS, reserved=RESERVED_WORDS, help_text=NAME_CHARS_HELP)
    except NameRefused as exc:
        raise WorkshopError(str(exc)) from None
    experts = {name_key(str(x)) for s in expert_registry for x in (s.name, s.label, *s.aliases)}
    if expert_named(name) is not None or name_key(name) in experts:
        raise WorkshopError("choose another display name: it may not look like the facilitator, the panel or "
                            "one of its experts")
    return name
