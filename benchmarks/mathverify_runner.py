"""Math-Verify alone, used the way its documentation shows — the baseline our grader is compared with.

``verdict(pred, gold)``: ``verify(parse(gold), parse(answer))`` with Math-Verify's default extraction (LaTeX
and plain expressions) and its own signal-based time limits (valid here: the benchmark's main thread). A
gold or answer without any maths delimiter gets the ``$…$`` a model would write around it (Math-Verify extracts
LaTeX from delimiters); ``raw=True`` tries the answer as it is first. Math-Verify cannot abstain: a verdict is
True or False.

Run alone: ``python benchmarks/mathverify_runner.py < pairs.json`` (a JSON list of {pred, gt}) prints a JSON list
of {verdict, s}.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import time

from math_verify import parse, verify

logging.getLogger("math_verify").setLevel(logging.ERROR)
_DELIMITED = re.compile(r"\$|\\\(|\\\[|\\boxed")


def _wrap(text: str) -> str:
    return text if _DELIMITED.search(text) else f"${text}$"


def verdict(pred: str, gold: str, raw: bool = False) -> bool:
    """Math-Verify's verdict on one (answer, gold) pair; any failure is "not correct".

    By default a bare answer gets ``$…$`` like a bare gold; with `raw` the answer is parsed as it is first
    (Math-Verify's plain-number extraction then reads ``1 000`` and ``2,74``, but a bare ``\\{3, 1, 2\\}``
    becomes its last number).
    """
    try:
        answer = (parse(pred) or parse(_wrap(pred))) if raw else parse(_wrap(pred))
        return bool(verify(parse(_wrap(gold)), answer))
    except Exception:  # noqa: BLE001 - Math-Verify alone: a failure is a "not correct"
        return False


def main() -> None:
    out = []
    for row in json.load(sys.stdin):
        start = time.perf_counter()
        ok = verdict(row["pred"], row["gt"])
        out.append({"verdict": "correct" if ok else "incorrect", "s": time.perf_counter() - start})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
