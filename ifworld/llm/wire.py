"""Who is asking, on the wire: every chat request the product sends names its agent role in a header.

``chat_model(role, …)`` puts ``X-IFWorld-Role: <call name>`` on each request it sends (JSON or streamed, plain
or structured). The call name is the role (``whatif.expert``, ``rws.pace.critic``), or ``role#variant`` when
one role makes calls of different kinds (a report part: ``whatif.report#core``; a retry: ``rws.pace.answer#retry``).
OpenAI and the local servers (llama.cpp, vLLM, Ollama, LM Studio) ignore headers they do not know; the demo
model and the tests' fake server answer by this name and never by the prompt's words.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

__all__ = ["ROLE_HEADER", "call_name", "role_candidates", "role_of", "split_call"]

ROLE_HEADER = "X-IFWorld-Role"
VARIANT_SEP = "#"


def call_name(role: str, variant: str = "") -> str:
    """What the header carries for a call of ``role`` (``variant`` names one kind of call of that role)."""
    return f"{role}{VARIANT_SEP}{variant}" if variant else role


def split_call(name: str) -> tuple[str, str]:
    """(role, variant) of a call name."""
    role, _, variant = name.partition(VARIANT_SEP)
    return role, variant


class Headers(Protocol):
    """What :func:`role_of` reads: ``http.server``'s message headers (case-insensitive) or a dict."""

    def get(self, name: str, /) -> str | None: ...


def role_of(headers: Headers | None) -> str | None:
    """The call name a request carries (None without the header, or with an empty one)."""
    if headers is None:
        return None
    value = headers.get(ROLE_HEADER)
    if value is None and isinstance(headers, dict):  # a plain dict: look the name up without regard to case
        value = next((v for k, v in headers.items() if k.lower() == ROLE_HEADER.lower()), None)
    return (value or "").strip() or None


def role_candidates(name: str) -> Iterator[str]:
    """Table keys that answer a call name, most specific first: the name itself, its role without the variant,
    then the role's dotted prefixes (``rws.pace.critic`` → ``rws.pace`` → ``rws``)."""
    role, variant = split_call(name)
    if variant:
        yield name
    parts = role.split(".")
    for n in range(len(parts), 0, -1):
        yield ".".join(parts[:n])
