"""Entry point of the sandboxed symbolic worker process (``python -m ifworld.rws.symworker``).

Protocol: one JSON request per stdin line ``{"id", "pred", "gold"}``, one JSON reply per stdout line.
The worker caps its own address space (RLIMIT_AS) before importing sympy, announces ``{"ready": true}``
once warm, and exits when stdin closes. The parent kills it on a timeout and starts a new one.
"""

from __future__ import annotations

import json
import os
import sys

MEMORY_LIMIT_BYTES = 2 * 1024**3
"""Address-space cap for the worker; a blow-up becomes a MemoryError here, not a frozen machine."""


def _limit_memory() -> None:
    """Apply RLIMIT_AS where the platform supports it."""
    try:
        import resource
    except ImportError:  # pragma: no cover - non-POSIX
        return
    limit = int(os.environ.get("IFWORLD_SYMWORKER_MEM", MEMORY_LIMIT_BYTES))
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def main() -> None:
    """Serve comparison requests until stdin closes."""
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # anything sympy/antlr prints goes to stderr, never into the protocol
    _limit_memory()
    from ifworld.rws.symcompare import compare, warm_up  # slow import: sympy + antlr

    warm_up()
    proto.write(json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        request: object = {}
        try:
            request = json.loads(line)
            reply = compare(str(request["pred"]), str(request["gold"]))
        except MemoryError:
            reply = {"verdict": "not_sure", "reason": "memory limit exceeded", "annotations": ["timeout"]}
        except Exception as exc:  # noqa: BLE001 - report, keep serving
            reply = {"verdict": "not_sure", "reason": f"worker error: {type(exc).__name__}",
                     "annotations": ["parse failure"]}
        reply["id"] = request.get("id") if isinstance(request, dict) else None
        proto.write(json.dumps(reply) + "\n")


if __name__ == "__main__":
    main()
