"""Entry point of the grading worker process (``python -m ifworld.rws.grading.symworker``).

Protocol: one JSON request per stdin line, one JSON reply per stdout line.

* ``{"id", "op": "check", "pred", "gold", "type", "units", "hint", "timeout_s"}`` → a CheckResult dict;
* ``{"id", "op": "validate", "golds": [[type, gold], …]}`` → ``{"problems": [[index, reason], …]}``.

The worker caps its own address space (RLIMIT_AS), imports the light stages (pint, text), announces
``{"ready": true}`` and then warms sympy in a background thread, so numeric and textual items grade while
sympy imports. Every reply says whether sympy is warm (``"warm"``) so the parent can give the first
symbolic item the start-up budget. It exits when stdin closes; the parent kills it on a timeout.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from typing import Any

MEMORY_LIMIT_BYTES = 2 * 1024**3
"""Address-space cap for the worker; a blow-up becomes a MemoryError here, not a frozen machine."""

SYMPY_LOCK = threading.Lock()
WARM = threading.Event()


def _limit_memory() -> None:
    """Apply RLIMIT_AS where the platform supports it."""
    try:
        import resource
    except ImportError:  # pragma: no cover - non-POSIX
        return
    limit = int(os.environ.get("IFWORLD_SYMWORKER_MEM", MEMORY_LIMIT_BYTES))
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


WARM_UP = (
    r"v_A = \frac{B}{\sqrt{\mu_0 n m_p}}", r"\tan\psi = \frac{\Omega r}{V}", r"r = L R_E \cos^2\lambda",
    r"x^{2} + 3 \cdot (y - z)^{1/6}", r"\sin^2\alpha_{lc} = \frac{B_{eq}}{B_m}",
)
"""Typical shapes parsed once at start-up so antlr's prediction caches are warm for real requests."""


def _warm_sympy() -> None:
    """Import sympy and antlr and parse typical shapes once (holding the lock symbolic checks take)."""
    with SYMPY_LOCK:
        try:
            from ifworld.rws.grading.symbolic import check_symbolic

            for text in WARM_UP:  # exercise the parser and comparison; slow first parses happen here
                check_symbolic(text, text)
        except Exception:  # noqa: BLE001, S110 - a failed warm-up only means a slower first check
            pass
        finally:
            WARM.set()


def _validate(golds: list) -> dict:
    """Which gold answers cannot be graded for their declared type (gold checked against itself)."""
    from ifworld.rws.grading.chain import check_local

    problems = []
    for index, (kind, gold) in enumerate(golds):
        if kind == "symbolic":
            SYMPY_LOCK.acquire()
        try:
            result = check_local(str(gold), str(gold), str(kind))
        finally:
            if kind == "symbolic":
                SYMPY_LOCK.release()
        if result.verdict != "correct":
            problems.append([index, result.reason])
    return {"problems": problems}


def _serve(request: dict) -> dict:
    from ifworld.rws.grading.chain import check_local

    if request.get("op") == "validate":
        return _validate(list(request.get("golds", [])))
    kind = str(request["type"])
    if kind == "symbolic":
        with SYMPY_LOCK:
            result = check_local(str(request["pred"]), str(request["gold"]), kind, request.get("units"),
                                 request.get("hint"), float(request.get("timeout_s", 5.0)))
    else:
        result = check_local(str(request["pred"]), str(request["gold"]), kind, request.get("units"),
                             request.get("hint"), float(request.get("timeout_s", 5.0)))
    return result.model_dump()


OPTIONAL_PINT_BACKENDS = ("dask",)
"""Array libraries pint probes for on import (``dask.base``: 0.1–0.3 s of a cold ``rws check``); grading
hands pint plain floats only, so the worker tells pint they are absent."""


def _skip_optional_pint_backends() -> None:
    """Mark pint's optional array backends as not installed in this process (a None entry in ``sys.modules``
    makes ``import`` fail and ``find_spec`` answer None), unless something here already imported them."""
    for name in OPTIONAL_PINT_BACKENDS:
        sys.modules.setdefault(name, None)  # type: ignore[arg-type]


def main() -> None:
    """Serve requests until stdin closes."""
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # anything sympy/antlr prints goes to stderr, never into the protocol
    _limit_memory()
    # antlr's parse of a long flat sum recurses once per term; Python >= 3.11 keeps pure-Python calls off
    # the C stack, so a higher limit is safe here (the parent's kill and RLIMIT_AS still bound the rest)
    sys.setrecursionlimit(8000)
    _skip_optional_pint_backends()
    import ifworld.rws.grading.chain  # noqa: F401 - light stages first
    from ifworld.rws.grading.units import registry

    registry()
    proto.write(json.dumps({"ready": True}) + "\n")
    threading.Thread(target=_warm_sympy, name="sympy-warm-up", daemon=True).start()
    for line in sys.stdin:
        request: Any = {}  # parsed JSON of any shape: a non-object fails in _serve and is reported
        try:
            request = json.loads(line)
            reply = _serve(request)
        except MemoryError:
            reply = {"verdict": "not_sure", "reason": "memory limit exceeded", "annotations": ["timeout"]}
        except RecursionError:
            reply = {"verdict": "not_sure", "reason": "recursion limit reached", "annotations": ["parse failure"]}
        except Exception as exc:  # noqa: BLE001 - report, keep serving
            reply = {"verdict": "not_sure", "reason": f"worker error: {type(exc).__name__}",
                     "annotations": ["parse failure"]}
        reply["id"] = request.get("id") if isinstance(request, dict) else None
        reply["warm"] = WARM.is_set()
        proto.write(json.dumps(reply) + "\n")


if __name__ == "__main__":
    main()
