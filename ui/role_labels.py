"""Agent roles in people's words: live text is labelled "Debate — con side", never ``whatif.debate.con``."""

from __future__ import annotations

ROLE_LABELS = {
    "whatif.refiner": "Problem refiner", "whatif.expert": "Expert", "whatif.resolver": "Conflict resolver",
    "whatif.repair": "Consistency repair", "whatif.report": "Report writer", "whatif.single": "Single agent",
    "whatif.debate.pro": "Debate — pro side", "whatif.debate.con": "Debate — con side",
    "whatif.debate.judge": "Debate judge", "whatif.tree.draft": "Tree of thoughts — first drafts",
    "whatif.tree.expand": "Tree of thoughts — expansion", "whatif.tree.critic": "Tree of thoughts — critic",
    "whatif.judge": "Judge", "connection": "Connection test",
}


def role_label(role: str) -> str:
    """The role's name for people: a known role's label, else its id made readable ("rws.pace.critic" →
    "Pace critic"). Exact roles first, then their dotted prefixes ("whatif.report.core" → "Report writer")."""
    parts = role.split(".")
    for i in range(len(parts), 0, -1):
        label = ROLE_LABELS.get(".".join(parts[:i]))
        if label:
            return label
    words = " ".join(p.replace("_", " ") for p in parts[1:] or parts)
    return words[:1].upper() + words[1:]
