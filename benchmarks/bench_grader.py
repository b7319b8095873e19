"""Benchmark the RWS programmatic grader (prints figures; no assertions).

Run: ``.venv/bin/python benchmarks/bench_grader.py [--quick]``. Prints:

* the 53-item sample graded with the gold answers as predictions: accuracy, cold time (a fresh process:
  imports, worker start, Math-Verify warm-up, grading; best and median of 3), warm time (the same process
  again), warm time on answers the workers have not seen, and the slowest single item;
* the share of deliberately perturbed predictions that get the expected verdict;
* our grader and Math-Verify alone (``benchmarks/mathverify_runner.py``, its documented use) side by side on
  every case table in tests/rws/cases, by category: right verdicts, wrong "correct"s, agreement, time per item,
  and every disagreement;
* issue #32's kinds (``tests/rws/cases/kind_*.jsonl``): ours vs Math-Verify alone per kind, and the independent
  references (sympy's ``parse_expr``, pint: ``benchmarks/grader_references.py``) where they can read the rows,
  with every disagreement, its note and our reason.

* issue #43's classes (``tests/rws/cases/written_*.jsonl``): ours vs Math-Verify alone per class, with every
  disagreement on the maths rows (``--written`` prints only this section; ``--endings`` the same for the second
  set of tables, ``tests/rws/cases/endings_*.jsonl``; ``--outside`` for the third, ``outside_*.jsonl``, written after
  ``bench_grader_peer.py`` graded Math-Verify's own test cases).

``--quick`` skips the cold-start repeats; ``--kinds`` prints only the per-kind section.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
SAMPLE = ROOT / "data" / "rws_sample.jsonl"
CASES = ROOT / "tests" / "rws" / "cases"

CATEGORIES = {  # category → case tables (all written for this project)
    "answers inside solutions": ("solutions",),
    "several answers": ("several",),
    "sets, intervals, relations": ("sets",),
    "number formats": ("formats",),
    "plain-text maths": ("plaintext",),
    "gameable values": ("gameable",),
    "time limits": ("timeouts",),
    "general maths": ("general",),
    "heliophysics: numbers and units": ("numeric", "numbers"),
    "heliophysics: symbolic": ("symbolic", "kinds"),
    "heliophysics: false-correct traps": ("false_positive",),
    "heliophysics: near misses": ("helio",),
    "textual": ("textual",),
}
HELIOPHYSICS = tuple(name for name in CATEGORIES if name.startswith("heliophysics"))
TABLE_TYPE = {"kinds": "symbolic", "numbers": "numeric", "numeric": "numeric", "symbolic": "symbolic",
              "textual": "textual"}

COLD_SCRIPT = """
import time; start = time.perf_counter()
from ifworld.rws.dataset import load_items
from ifworld.rws.grading.grader import grade_many
items = load_items({sample!r}).items
gold = {{item.id: item.final for item in items}}
report = grade_many(items, gold)
cold = time.perf_counter() - start
start = time.perf_counter(); again = grade_many(items, gold); warm = time.perf_counter() - start
print(cold, warm, report.accuracy, again.accuracy)
"""


def _load() -> str:
    try:
        return "load %.1f" % os.getloadavg()[0]
    except OSError:
        return "load ?"


def bench_sample(repeats: int) -> list:
    """Cold and warm gold-as-prediction grading of the sample, each cold run in a fresh process."""
    from ifworld.rws.dataset import load_items

    items = load_items(SAMPLE).items
    colds, warms, accuracy = [], [], 0.0
    for _ in range(repeats):
        out = subprocess.run([sys.executable, "-c", COLD_SCRIPT.format(sample=str(SAMPLE))], cwd=ROOT,
                             capture_output=True, text=True, timeout=600)
        cold, warm, accuracy, _ = (float(x) for x in out.stdout.split())
        colds.append(cold)
        warms.append(warm)
    print(f"sample: {len(items)} items, by type {dict(_count(items))}  ({_load()}, {os.cpu_count()} cores)")
    print(f"gold as prediction: accuracy {accuracy:.1%}")
    print(f"cold grading of the whole sample (fresh process: imports, workers, Math-Verify, grading): best "
          f"{min(colds):.2f} s, median {statistics.median(colds):.2f} s of {repeats}")
    print(f"warm grading of the whole sample (same answers again): best {min(warms):.3f} s")
    fresh, slowest = _warm_new_answers(items)
    print(f"warm grading of answers the worker has not seen (one perturbed answer per item): {fresh:.2f} s")
    print(f"slowest of those items: {slowest[0]:.3f} s ({slowest[1]})")
    print("SUMMARY " + json.dumps({"gold-as-prediction accuracy": accuracy, "cold grading of the sample (s)":
                                   round(min(colds), 2), "warm grading of the sample (s)": round(min(warms), 3),
                                   "slowest item (s)": round(slowest[0], 3)}))
    return items


def _warm_new_answers(items: list) -> tuple[float, tuple[float, str]]:
    """Grade, one by one on a warm worker, a perturbed answer per item (answers the worker has not seen)."""
    from ifworld.rws.grading.grader import grade_item, grade_many

    grade_many(items, {item.id: item.final for item in items})  # this process's worker: warm
    total, worst = 0.0, (0.0, "")
    for item in items:
        start = time.perf_counter()
        grade_item(item, _perturb(item))
        elapsed = time.perf_counter() - start
        total += elapsed
        worst = max(worst, (elapsed, item.id))
    return total, worst


def _perturb(item) -> str:  # noqa: ANN001 - an RWSItem
    if item.type == "numeric":
        return _numeric_perturbations(item.final)[0][1]
    if item.type == "symbolic":
        return _symbolic_perturbations(item.final)[-1][1]
    return f"Final Answer: {item.final}"


def _count(items: list) -> dict:
    counts: dict = defaultdict(int)
    for item in items:
        counts[item.type] += 1
    return counts


def _scale_numeric(final: str, factor: float) -> str:
    """Multiply the first number in a numeric final by factor (keeping the unit text)."""
    from ifworld.rws.grading.units import find_number, join_thousands

    text = join_thousands(final)
    value, start, end = find_number(text)
    return f"{value * factor:.6g}{text[end:]}"


def _numeric_perturbations(final: str) -> list[tuple[str, str, str]]:
    """(kind, prediction, expected verdict) for one numeric final."""
    from ifworld.rws.grading.units import parse_scalar, registry

    scalar = parse_scalar(final)
    rows = [("numeric: off by 10 %", _scale_numeric(final, 1.10), "incorrect"),
            ("numeric: off by 3 %", _scale_numeric(final, 1.03), "correct"),
            ("numeric: sign flipped", _scale_numeric(final, -1.0), "incorrect")]
    unit = scalar.unit
    if unit is None or str(unit) in ("degree", "percent"):
        rows.append(("numeric: wrong units", f"{scalar.value:.6g} km", "incorrect"))
        return rows
    rows.append(("numeric: wrong units", f"{scalar.value:.6g} kg", "incorrect"))
    rows.append(("numeric: missing units", f"{scalar.value:.6g}", "not correct"))
    base = registry().Quantity(scalar.value, unit).to_base_units()
    rows.append(("numeric: unit conversion", f"{base.magnitude:.6g} {base.units:~}", "correct"))
    return rows


def _symbolic_perturbations(final: str) -> list[tuple[str, str, str]]:
    """(kind, prediction, expected verdict) for one symbolic final."""
    if "=" not in final:
        return [("symbolic: sign error", f"-({final})", "incorrect")]
    lhs, rhs = (part.strip() for part in final.split("=", 1))
    rows = [("symbolic: sides swapped", f"{rhs} = {lhs}", "correct"),
            ("symbolic: scaled by 3", f"3 {lhs} = 3 \\left({rhs}\\right)", "correct"),
            ("symbolic: moved to one side", f"{lhs} - \\left({rhs}\\right) = 0", "correct"),
            ("symbolic: sign error", f"{lhs} = -\\left({rhs}\\right)", "incorrect")]
    squared = re.compile(r"\^(?:\{2\}|2)")
    if squared.search(rhs):
        cubed = squared.sub("^{3}", rhs, count=1)
        rows.append(("symbolic: wrong exponent", f"{lhs} = {cubed}", "incorrect"))
    return rows


def _textual_perturbations(final: str) -> list[tuple[str, str, str]]:
    """(kind, prediction, expected verdict) for one textual final."""
    import unicodedata

    plain = "".join(c for c in unicodedata.normalize("NFKD", final) if not unicodedata.combining(c))
    return [("textual: case/accents/punctuation", plain.upper() + ".", "correct"),
            ("textual: inside a sentence", f"Final Answer: The answer is {final}.", "correct"),
            ("textual: unrelated paraphrase", "a phenomenon described in the question", "not_sure")]


def _agrees(verdict: str, expected: str) -> bool:
    return verdict == expected or (expected == "not correct" and verdict != "correct")


def bench_perturbations(items: list) -> None:
    """Share of perturbed predictions (with the item's hint) that get the expected verdict, per kind."""
    from ifworld.rws.grading.grader import grade_item

    makers = {"numeric": _numeric_perturbations, "symbolic": _symbolic_perturbations,
              "textual": _textual_perturbations}
    tally: dict = defaultdict(lambda: [0, 0])
    misses: list[str] = []
    for item in items:
        for kind, pred, expected in makers[item.type](item.final):
            result = grade_item(item, pred)
            ok = _agrees(result.verdict, expected)
            tally[kind][0] += ok
            tally[kind][1] += 1
            if not ok:
                misses.append(f"  {item.id} [{kind}] got {result.verdict}: {result.reason[:100]}")
    print("\nperturbed predictions (graded with the item's hint) — share with the expected verdict:")
    for kind in sorted(tally):
        ok, total = tally[kind]
        print(f"  {kind:40s} {ok:3d}/{total:<3d} {ok / total:6.1%}")
    total_ok = sum(v[0] for v in tally.values())
    total = sum(v[1] for v in tally.values())
    print(f"  {'all':40s} {total_ok:3d}/{total:<3d} {total_ok / total:6.1%}")
    if misses:
        print("misses:\n" + "\n".join(misses))
    print("SUMMARY " + json.dumps({"perturbed predictions right": f"{total_ok}/{total}"}))


def case_pairs() -> list[dict]:
    """Every row of our case tables as {category, table, note, pred, gt, type, hint, units, timeout_s, want}.

    `want` is "correct" or "not correct" (incorrect and not_sure both count as not correct: a grader that
    cannot abstain is scored on whether it avoided a wrong "correct" and found the right ones).
    """
    rows = []
    for category, tables in CATEGORIES.items():
        for table in tables:
            for line in (CASES / f"{table}.jsonl").read_text("utf-8").splitlines():
                if not line.strip():
                    continue
                row = json.loads(line)
                if "pred" not in row:
                    continue
                kind = row.get("type") or TABLE_TYPE[table]
                want = "not correct" if table == "false_positive" or row.get("verdict") != "correct" else "correct"
                rows.append({"category": category, "table": table, "note": row.get("note", ""), "pred": row["pred"],
                             "gt": row["gt"], "type": kind, "hint": row.get("hint"), "units": row.get("units"),
                             "timeout_s": row.get("timeout_s"), "want": want})
    return rows


def bench_side_by_side() -> None:
    """Our grader and Math-Verify alone on the same pairs, by category (Math-Verify both ways of reading a bare
    answer: wrapped in $…$ and raw)."""
    from mathverify_runner import verdict as mathverify_verdict

    from ifworld.rws.grading.grader import DEFAULT_TIMEOUT_S, check

    pairs = case_pairs()
    check("x", "x", "symbolic")  # the worker is started: per-item times are for grading, not start-up
    ours, theirs, raw, ours_s, theirs_s = [], [], [], [], []
    for row in pairs:
        start = time.perf_counter()
        result = check(row["pred"], row["gt"], row["type"], units=row["units"], hint=row["hint"],
                       timeout_s=row["timeout_s"] or DEFAULT_TIMEOUT_S)
        ours_s.append(time.perf_counter() - start)
        ours.append(result.verdict)
        start = time.perf_counter()
        theirs.append("correct" if mathverify_verdict(row["pred"], row["gt"]) else "incorrect")
        theirs_s.append(time.perf_counter() - start)
        raw.append("correct" if mathverify_verdict(row["pred"], row["gt"], raw=True) else "incorrect")
    print(f"\nside by side on {len(pairs)} pairs from tests/rws/cases ({_load()}): right verdicts / wrong "
          "'correct' / agreement / mean time per item")
    print(f"  {'category':36s} {'n':>4s}  {'ours':>9s} {'MV alone':>9s} {'raw':>4s}  {'wrong correct':>13s}  "
          f"{'agree':>6s}  {'ours s':>7s} {'MV s':>7s}")
    summary: dict = {}
    totals = defaultdict(int)
    for category in CATEGORIES:
        idx = [i for i, row in enumerate(pairs) if row["category"] == category]
        right = sum((ours[i] == "correct") == (pairs[i]["want"] == "correct") for i in idx)
        right_mv = sum((theirs[i] == "correct") == (pairs[i]["want"] == "correct") for i in idx)
        wrong = sum(ours[i] == "correct" and pairs[i]["want"] != "correct" for i in idx)
        wrong_mv = sum(theirs[i] == "correct" and pairs[i]["want"] != "correct" for i in idx)
        agree = sum((ours[i] == "correct") == (theirs[i] == "correct") for i in idx)
        mean = sum(ours_s[i] for i in idx) / len(idx)
        mean_mv = sum(theirs_s[i] for i in idx) / len(idx)
        right_raw = sum((raw[i] == "correct") == (pairs[i]["want"] == "correct") for i in idx)
        flag = "" if right >= max(right_mv, right_raw) else "  <- Math-Verify alone ahead"
        print(f"  {category:36s} {len(idx):4d}  {right:4d}/{len(idx):<4d} {right_mv:4d}/{len(idx):<4d} {right_raw:4d}  "
              f"{wrong:5d} / {wrong_mv:<5d}  {agree / len(idx):6.0%}  {mean:7.3f} {mean_mv:7.3f}{flag}")
        for key, value in (("n", len(idx)), ("ours", right), ("mv", right_mv), ("raw", right_raw), ("wrong", wrong),
                           ("wrong_mv", wrong_mv), ("agree", agree)):
            totals[key] += value
        summary[f"{category}: ours / MV"] = f"{right}/{right_mv} of {len(idx)}"
    n = totals["n"]
    print(f"  {'all':36s} {n:4d}  {totals['ours']:4d}/{n:<4d} {totals['mv']:4d}/{n:<4d} {totals['raw']:4d}  "
          f"{totals['wrong']:5d} / {totals['wrong_mv']:<5d}  {totals['agree'] / n:6.0%}  {sum(ours_s) / n:7.3f} "
          f"{sum(theirs_s) / n:7.3f}")
    print("  (MV alone: bare answers get $…$ as the gold does; raw: the answer parsed as it is first)")
    helio = [i for i, row in enumerate(pairs) if row["category"] in HELIOPHYSICS]
    helio_wrong = sum(ours[i] == "correct" and pairs[i]["want"] != "correct" for i in helio)
    helio_wrong_mv = sum(theirs[i] == "correct" and pairs[i]["want"] != "correct" for i in helio)
    print(f"  wrong 'correct' on the {len(helio)} heliophysics rows: ours {helio_wrong}, Math-Verify alone "
          f"{helio_wrong_mv}")
    print("  disagreements (category | want | ours | Math-Verify alone | pred vs gold):")
    for category in CATEGORIES:
        for i, row in enumerate(pairs):
            if row["category"] == category and (ours[i] == "correct") != (theirs[i] == "correct"):
                print(f"    {category:28s} | {row['want']:11s} | {ours[i]:9s} | {theirs[i]:9s} | "
                      f"{row['pred'][:48]!r} vs {row['gt'][:40]!r}")
    summary.update({"ours right": f"{totals['ours']}/{n}", "Math-Verify alone right": f"{totals['mv']}/{n}",
                    "ours wrong correct": totals["wrong"], "Math-Verify wrong correct": totals["wrong_mv"],
                    "heliophysics wrong correct (ours)": helio_wrong})
    print("SUMMARY " + json.dumps(summary))


KINDS = {  # issue #32's kinds → (case table, the independent reference that can read its rows)
    "plain-text / programming maths": ("kind_plaintext", "sympy"),
    "answers inside worked solutions": ("kind_extraction", None),
    "equation vs expression (sides)": ("kind_sides", "sympy"),
    "words for units and percent": ("kind_units", "pint"),
    "stated precision": ("kind_precision", "sympy"),
    "two answers written as one": ("kind_two_answers", None),
    "never a wrong correct": ("kind_never_wrong", None),
}


def _kind_rows(table: str) -> list[dict]:
    return [json.loads(line) for line in (CASES / f"{table}.jsonl").read_text("utf-8").splitlines() if line.strip()]


def _grade_kind(rows: list[dict], reference: str | None) -> list[dict]:
    """Each row graded by ours, Math-Verify alone and the reference (None where it cannot read the row)."""
    from grader_references import pint_verdict, sympy_verdict
    from mathverify_runner import verdict as mathverify_verdict

    from ifworld.rws.grading.grader import check

    refs = {"sympy": sympy_verdict, "pint": pint_verdict}
    out = []
    for row in rows:
        start = time.perf_counter()
        result = check(row["pred"], row["gt"], row["type"], hint=row.get("hint"))
        ours_s = time.perf_counter() - start
        start = time.perf_counter()
        mv = mathverify_verdict(row["pred"], row["gt"])
        mv_s = time.perf_counter() - start
        ref = refs[reference](row["pred"], row["gt"]) if reference else None
        out.append({**row, "ours": result.verdict == "correct", "verdict_ours": result.verdict, "mv": mv, "ref": ref,
                    "ours_s": ours_s,
                    "mv_s": mv_s, "reason": result.reason, "want": row["verdict"] == "correct"})
    return out


def bench_kinds() -> None:
    """Per kind of issue #32: right verdicts of ours, Math-Verify alone and the independent reference."""
    from ifworld.rws.grading.grader import check

    check("x", "x", "symbolic")  # the worker is started: per-item times are for grading, not start-up
    print(f"\nissue #32 kinds: our case tables tests/rws/cases/kind_*.jsonl ({_load()}) — right verdicts "
          "(correct vs not correct), wrong 'correct', reference = sympy parse_expr or pint where it reads both sides")
    print(f"  {'kind':34s} {'n':>3s} {'look-alikes':>11s}  {'ours':>7s} {'MV alone':>8s}  {'wrong correct':>13s}  "
          f"{'reference: read, right':>24s}  {'ours s':>6s} {'MV s':>6s}")
    summary, graded = {}, {}
    for kind, (table, reference) in KINDS.items():
        rows = graded[kind] = _grade_kind(_kind_rows(table), reference)
        n = len(rows)
        right = sum(r["ours"] == r["want"] for r in rows)
        right_mv = sum(r["mv"] == r["want"] for r in rows)
        wrong, wrong_mv = (sum(r[key] and not r["want"] for r in rows) for key in ("ours", "mv"))
        read = [r for r in rows if r["ref"] is not None]
        ref = f"{reference}: {len(read)}, {sum(r['ref'] == r['want'] for r in read)}/{len(read)}" if reference else "-"
        print(f"  {kind:34s} {n:3d} {sum(not r['want'] for r in rows):11d}  {right:3d}/{n:<3d} {right_mv:4d}/{n:<3d}  "
              f"{wrong:5d} / {wrong_mv:<5d}  {ref:>24s}  {sum(r['ours_s'] for r in rows) / n:6.3f} "
              f"{sum(r['mv_s'] for r in rows) / n:6.3f}")
        summary[kind] = f"ours {right}/{n}, MV {right_mv}/{n}, wrong correct {wrong}/{wrong_mv}"
    _kind_disagreements(graded)
    print("SUMMARY " + json.dumps(summary))


def _kind_disagreements(graded: dict[str, list[dict]]) -> None:
    print("  where ours and Math-Verify alone disagree (kind | want | ours | MV | pred vs gold | the case's note):")
    for kind, rows in graded.items():
        for r in rows:
            if r["ours"] != r["mv"]:
                print(f"    {kind[:22]:22s} | {'C' if r['want'] else '-'} | {'C' if r['ours'] else '-'} | "
                      f"{'C' if r['mv'] else '-'} | {r['pred'][-36:]!r} vs {r['gt'][:30]!r} | {r['note'][:60]}")
    print("  where ours and the reference disagree (it read both sides), with our reason:")
    for kind, rows in graded.items():
        for r in rows:
            if r["ref"] is not None and r["ref"] != r["ours"]:
                print(f"    {kind[:22]:22s} | want {'C' if r['want'] else '-'} | ours {'C' if r['ours'] else '-'} | "
                      f"ref {'C' if r['ref'] else '-'} | {r['pred'][:30]!r} vs {r['gt'][:26]!r} | {r['reason'][:90]}")


WRITTEN = {  # issue #43's classes → case table suffix (written_* and, written apart from them, endings_*)
    "1 closing, debris, think": "closing",
    "2 several boxes": "boxes",
    "3 numbers as written": "numbers",
    "4 identical answers": "identical",
    "5 functions and symbols": "symbols",
    "6 text without a model": "text",
    "7 chained working": "chains",
}


def bench_written(prefix: str = "written") -> None:
    """Per class of issue #43: right verdicts (a row marked exact needs its very verdict) of ours and of
    Math-Verify alone (which cannot abstain: its "not correct" counts as right for an exact not_sure row only
    when ours would be judged the same way — here it is simply correct vs not correct), wrong "correct"s."""
    from ifworld.rws.grading.grader import check

    check("x", "x", "symbolic")
    print(f"\nissue #43 classes: tests/rws/cases/{prefix}_*.jsonl ({_load()}) — right verdicts, wrong 'correct'")
    print(f"  {'class':26s} {'n':>3s} {'look-alikes':>11s}  {'ours':>7s} {'MV alone':>8s}  {'wrong correct':>13s}")
    summary, graded = {}, {}
    for name, table in WRITTEN.items():
        if not (CASES / f"{prefix}_{table}.jsonl").exists():  # the third set (outside_*) covers three classes
            continue
        rows = graded[name] = _grade_kind(_kind_rows(f"{prefix}_{table}"), None)
        n = len(rows)
        right = sum(r["ours"] == r["want"] and (not r.get("exact") or r["verdict_ours"] == r["verdict"])
                    for r in rows)
        right_mv = sum(r["mv"] == r["want"] for r in rows)
        wrong, wrong_mv = (sum(r[key] and not r["want"] for r in rows) for key in ("ours", "mv"))
        print(f"  {name:26s} {n:3d} {sum(not r['want'] for r in rows):11d}  {right:3d}/{n:<3d} {right_mv:4d}/{n:<3d}  "
              f"{wrong:5d} / {wrong_mv:<5d}")
        summary[name] = f"ours {right}/{n}, MV {right_mv}/{n}, wrong correct {wrong}/{wrong_mv}"
    print("  where ours and Math-Verify alone disagree (class | want | ours | MV | pred vs gold | note):")
    for name, rows in graded.items():
        for r in rows:
            if r["ours"] != r["mv"] and r["type"] != "textual":
                print(f"    {name[:22]:22s} | {'C' if r['want'] else '-'} | {'C' if r['ours'] else '-'} | "
                      f"{'C' if r['mv'] else '-'} | {r['pred'][-40:]!r} vs {r['gt'][:30]!r} | {r['note'][:50]}")
    print("SUMMARY " + json.dumps(summary))


def main() -> None:
    """Run every section."""
    if "--kinds" in sys.argv:
        bench_kinds()
        return
    for flag in ("--written", "--endings", "--outside"):
        if flag in sys.argv:
            bench_written(flag.removeprefix("--"))
            return
    items = bench_sample(1 if "--quick" in sys.argv else 3)
    bench_perturbations(items)
    bench_side_by_side()
    bench_kinds()


if __name__ == "__main__":
    main()
