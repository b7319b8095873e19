"""Our grader on answers nobody here wrote: Math-Verify's own test cases (prints figures; no assertions).

Run: ``.venv/bin/python benchmarks/bench_grader_peer.py [--sdist PATH]``.

The cases are read from the source distribution of the Math-Verify release we install (``pip download
--no-binary :all: math-verify==<version>``, from the package registry, into a temporary directory) — never copied
into this repository. Its ``tests/*.py`` hold ``(gold, pred, expected)`` tuples in ``pytest.mark.parametrize``
lists; they are read with :func:`ast.literal_eval` (their code is never imported or run), and a list that is not a
plain literal is skipped and counted.

Each pair is graded by ours as a symbolic item (general maths has no units or tolerance) and by Math-Verify the
way its tests call it (``compare_strings``: LaTeX with ``boxed_match_priority=0`` then plain expressions,
``verify(strict=…, float_rounding=precision)``, the row's own options), which should agree with its labels: a
check that the harness reads the rows right. Printed per test list: rows, ours agreeing with the label,
Math-Verify agreeing, our "correct" where the label says 0, our misses; then every row where ours and the label
differ, with our deciding step and reason — where we differ on purpose (a false link in a chain, ``f(x)`` and
``f(y)``, Math-Verify's extraction limits) is said in docs/grading.md.
"""

from __future__ import annotations

import argparse
import ast
import importlib.metadata
import json
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
LABELS = ("expected", "result")
"""The name a test list gives its 0/1 label."""


def fetch_sdist(into: Path) -> Path:
    """The installed Math-Verify release's source distribution, downloaded from the package registry."""
    version = importlib.metadata.version("math-verify")
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                    f"math-verify=={version}", "-d", str(into)], check=True)
    return next(into.glob("math_verify-*.tar.gz"))


def read_cases(sdist: Path) -> tuple[list[dict], int]:
    """Every literal (gold, pred, label) row of the sdist's test lists, and how many lists were skipped."""
    rows, skipped = [], 0
    with tarfile.open(sdist) as archive:
        for member in sorted(archive.getmembers(), key=lambda m: m.name):
            if not re.search(r"/tests/test_[^/]+\.py$", member.name):
                continue
            source = archive.extractfile(member).read().decode("utf-8")  # type: ignore[union-attr]
            for node in ast.walk(ast.parse(source)):
                if isinstance(node, ast.FunctionDef):
                    for decorator in node.decorator_list:
                        found = _rows(decorator, Path(member.name).name, node.name)
                        skipped += found is None
                        rows += found or []
    return rows, skipped


def _rows(decorator: ast.expr, file: str, test: str) -> list[dict] | None:
    """The rows of one ``parametrize`` decorator ([] when it is not one with gold and pred; None if not literal)."""
    if not (isinstance(decorator, ast.Call) and getattr(decorator.func, "attr", "") == "parametrize"):
        return []
    try:
        names = ast.literal_eval(decorator.args[0])
        values = ast.literal_eval(decorator.args[1])
    except (ValueError, SyntaxError, IndexError):
        return None
    names = [name.strip() for name in (names.split(",") if isinstance(names, str) else names)]
    label = next((name for name in LABELS if name in names), None)
    if "gold" not in names or "pred" not in names or label is None:
        return []
    rows = []
    for value in values:
        row = dict(zip(names, value, strict=True))
        options = {key: row[key] for key in names if key not in ("gold", "pred", label)}
        rows.append({"list": f"{file}::{test}", "gold": row["gold"], "pred": row["pred"],
                     "label": int(row[label]), "options": options})
    return rows


def mathverify_as_its_tests(row: dict) -> bool:
    """Math-Verify's verdict called as its own tests call it (``compare_strings`` with the row's options)."""
    from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse, verify

    options = row["options"]
    targets = [LatexExtractionConfig(boxed_match_priority=0), ExprExtractionConfig()]
    gold, pred = parse(row["gold"], targets), parse(row["pred"], targets)
    return bool(verify(gold, pred, float_rounding=options.get("precision", 6), strict=options.get("strict", True),
                       allow_set_relation_comp=options.get("allow_set_relation_comp", False)))


def _bare(gold: str) -> str:
    """The reference without the ``$…$`` its tests wrap it in (our references are bare LaTeX)."""
    match = re.fullmatch(r"\s*\$\$?(.*?)\$?\$\s*", gold, re.S)
    return match.group(1) if match else gold


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sdist", type=Path, help="a math_verify-*.tar.gz already on disk (else downloaded)")
    args = parser.parse_args()
    from ifworld.rws.grading.grader import check

    with tempfile.TemporaryDirectory() as tmp:
        sdist = args.sdist or fetch_sdist(Path(tmp))
        rows, skipped = read_cases(sdist)
    check("x", "x", "symbolic")  # the worker is started: times are for grading
    start = time.perf_counter()
    for row in rows:
        result = check(row["pred"], _bare(row["gold"]), "symbolic")
        row.update(ours=result.verdict, step=result.decided_by, reason=result.reason)
    ours_s = time.perf_counter() - start
    for row in rows:
        row["mv"] = mathverify_as_its_tests(row)
    print(f"Math-Verify's own test cases ({sdist.name}): {len(rows)} rows, {skipped} lists skipped (not literals)")
    print(f"  {'test list':58s} {'n':>4s} {'ours':>5s} {'MV':>5s} {'our correct, label 0':>21s} {'our misses':>10s}")
    by_list: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_list[row["list"]].append(row)
    totals: Counter = Counter()
    for name, group in by_list.items():
        counts = Counter(n=len(group), ours=sum((r["ours"] == "correct") == bool(r["label"]) for r in group),
                         mv=sum(r["mv"] == bool(r["label"]) for r in group),
                         wrong=sum(r["ours"] == "correct" and not r["label"] for r in group),
                         missed=sum(r["ours"] != "correct" and r["label"] for r in group))
        totals.update(counts)
        print(f"  {name:58s} {counts['n']:4d} {counts['ours']:5d} {counts['mv']:5d} {counts['wrong']:21d} "
              f"{counts['missed']:10d}")
    print(f"  {'all':58s} {totals['n']:4d} {totals['ours']:5d} {totals['mv']:5d} {totals['wrong']:21d} "
          f"{totals['missed']:10d}   (ours {ours_s / max(len(rows), 1):.3f} s a row)")
    differ = [r for r in rows if (r["ours"] == "correct") != bool(r["label"])]
    print(f"  where ours and the label differ, by our deciding step: {dict(Counter(r['step'] for r in differ))}")
    for row in differ:
        options = f" {row['options']}" if row["options"] else ""
        print(f"    label {row['label']} | ours {row['ours']:9s} | {row['list'].split('::')[1]}{options}\n"
              f"      gold {row['gold'][:70]!r}\n      pred {row['pred'][-90:]!r}\n      {row['reason'][:150]}")
    print("SUMMARY " + json.dumps({"rows": totals["n"], "ours agree": totals["ours"], "Math-Verify agrees":
                                   totals["mv"], "ours correct where label 0": totals["wrong"],
                                   "ours not correct where label 1": totals["missed"]}))


if __name__ == "__main__":
    main()
