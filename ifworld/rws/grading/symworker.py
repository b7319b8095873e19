"""Entry point of the grading worker process (``python -m ifworld.rws.grading.symworker``).

Protocol: one JSON request per stdin line, one JSON reply per stdout line.

* ``{"id", "op": "check", "pred", "gold", "type", "units", "hint", "timeout_s"}`` → a CheckResult dict;
* ``{"id", "op": "validate", "golds": [[type, gold], …]}`` → ``{"problems": [[index, reason], …]}``;
* notices without an id: ``{"ready": true}`` once the light stages (pint, text) are loaded, then
  ``{"warm": true}`` once sympy and Math-Verify are imported and exercised (in a background thread, so
  textual items grade meanwhile). The parent starts an item's time limit only after the notice it needs.

The worker caps its own address space (RLIMIT_AS), exits when stdin closes or its parent process ends
(:func:`ifworld.procs.die_with_parent`); the parent kills it on a timeout.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from typing import IO

from ifworld.procs import die_with_parent

MEMORY_LIMIT_BYTES = 2 * 1024**3
"""Address-space cap for the worker; a blow-up becomes a MemoryError here, not a frozen machine."""

SYMPY_LOCK = threading.Lock()
WARM = threading.Event()
_WRITE = threading.Lock()

WARM_UP = (r"v_A = \frac{B}{\sqrt{\mu_0 n m_p}}", r"v_A = B/\sqrt{\mu_0 m_p n}", "symbolic")
"""One typical item graded at start-up: sympy, Math-Verify and the parser's tables are loaded before the first
item's time limit starts. (More warm-up shapes cost more start-up than they save the first items: measured.)"""


def _limit_memory() -> None:
    """Apply RLIMIT_AS where the platform supports it."""
    try:
        import resource
    except ImportError:  # pragma: no cover - non-POSIX
        return
    limit = int(os.environ.get("IFWORLD_SYMWORKER_MEM", MEMORY_LIMIT_BYTES))
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _send(proto: IO[str], message: dict) -> None:
    with _WRITE:
        proto.write(json.dumps(message) + "\n")


def _warm_up(proto: IO[str]) -> None:
    """Import sympy and Math-Verify and grade one typical item (holding the lock sympy items take)."""
    with SYMPY_LOCK:
        try:
            from ifworld.rws.grading.chain import check_local

            check_local(*WARM_UP)
        except Exception:  # noqa: BLE001, S110 - a failed warm-up only means a slower first check
            pass
        finally:
            WARM.set()
    _send(proto, {"warm": True})


def _validate(golds: list) -> dict:
    """Which gold answers cannot be graded for their declared type (gold checked against itself)."""
    from ifworld.rws.grading.chain import check_local

    problems = []
    for index, (kind, gold) in enumerate(golds):
        with SYMPY_LOCK:
            result = check_local(str(gold), str(gold), str(kind), same_text=False)
        if result.verdict != "correct":
            problems.append([index, result.reason])
    return {"problems": problems}


def _serve(request: dict) -> dict:
    from ifworld.rws.grading.chain import check_local

    if request.get("op") == "validate":
        return _validate(list(request.get("golds", [])))
    kind = str(request["type"])
    args = (str(request["pred"]), str(request["gold"]), kind, request.get("units"), request.get("hint"),
            float(request.get("timeout_s", 5.0)))
    if kind == "textual":
        return check_local(*args).model_dump()
    with SYMPY_LOCK:
        return check_local(*args).model_dump()


def main() -> None:
    """Serve requests until stdin closes (or the parent process ends: then at once, even mid-item)."""
    die_with_parent()
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # anything sympy/antlr prints goes to stderr, never into the protocol
    _limit_memory()
    # antlr's parse of a long flat sum recurses once per term; Python >= 3.11 keeps pure-Python calls off
    # the C stack, so a higher limit is safe here (the parent's kill and RLIMIT_AS still bound the rest)
    sys.setrecursionlimit(8000)
    import ifworld.rws.grading.chain  # noqa: F401 - light stages first
    from ifworld.rws.grading.units import registry

    registry()
    _send(proto, {"ready": True})
    threading.Thread(target=_warm_up, args=(proto,), name="sympy-warm-up", daemon=True).start()
    for line in sys.stdin:
        request: object = {}
        try:
            request = json.loads(line)
            reply = _serve(request)  # type: ignore[arg-type]
        except MemoryError:
            reply = {"verdict": "not_sure", "reason": "memory limit exceeded", "annotations": ["timeout"]}
        except RecursionError:
            reply = {"verdict": "not_sure", "reason": "recursion limit reached", "annotations": ["parse failure"]}
        except Exception as exc:  # noqa: BLE001 - report, keep serving
            reply = {"verdict": "not_sure", "reason": f"worker error: {type(exc).__name__}",
                     "annotations": ["parse failure"]}
        reply["id"] = request.get("id") if isinstance(request, dict) else None
        reply["warm"] = WARM.is_set()
        _send(proto, reply)


if __name__ == "__main__":
    main()
