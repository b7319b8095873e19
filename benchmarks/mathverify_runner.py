"""Grade (pred, gold) pairs with Math-Verify — run ONLY inside benchmarks/.venv-mathverify.

Reads a JSON list of {pred, gt, type} on stdin, writes a JSON list of verdicts ("correct" or
"incorrect"; Math-Verify cannot abstain) on stdout. This is Math-Verify's own documented use:
``verify(parse(gold), parse(answer))`` with its default extraction (LaTeX and plain expressions) and its
own signal-based timeouts — valid here, in this script's main thread.
"""

from __future__ import annotations

import json
import sys
import time

from math_verify import parse, verify


def _wrap(text: str) -> str:
    """Math-Verify extracts LaTeX from delimiters; give bare LaTeX the $…$ a model would write."""
    if "$" in text or "\\boxed" in text or "\\(" in text or "\\[" in text:
        return text
    return f"${text}$"


def main() -> None:
    pairs = json.load(sys.stdin)
    out = []
    for row in pairs:
        start = time.perf_counter()
        try:
            gold = parse(_wrap(row["gt"]))
            answer = parse(_wrap(row["pred"]))
            ok = bool(verify(gold, answer))
        except Exception:  # noqa: BLE001 - any failure is "not correct" for Math-Verify
            ok = False
        out.append({"verdict": "correct" if ok else "incorrect", "s": time.perf_counter() - start})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
