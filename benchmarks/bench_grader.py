"""Benchmark the RWS programmatic grader (prints figures; no assertions).

Run: ``.venv/bin/python benchmarks/bench_grader.py [--no-mathverify]``. Prints gold-as-prediction accuracy,
cold and warm grading time of the whole sample (and the slowest item against its limit), the share of
deliberately perturbed predictions that get the expected verdict, the parse rates of sympy's antlr and lark
LaTeX backends, latex2sympy2_extended alone and as a fallback (when installed), and — side by side on the
same pairs — our grader and Math-Verify on every case table in tests/rws/cases (Math-Verify runs in its own
venv, benchmarks/.venv-mathverify, created here on first use; it is not a project dependency).
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SAMPLE = ROOT / "data" / "rws_sample.jsonl"

MODEL_FORMS = [  # common shapes of model output for symbolic answers, beyond the sample's gold
    r"v_A = \frac{B}{\sqrt{\mu_0 \rho}}", r"\beta_0 \left(1 + \frac{r}{R}\right)", r"\tan\psi = \Omega r / V",
    r"n(r,\theta) = n_0 (r_0/r)^2", r"\frac{\partial f}{\partial t} = \kappa \nabla^2 f", r"B(r) = B_0 (R_E/r)^3",
    r"r_L = \frac{m v_\perp}{|q| B}", r"\omega_{pe} = \sqrt{n e^2/(\epsilon_0 m_e)}", r"E = \frac{1}{2} m v^2",
    r"\lambda_D \approx 7.43 \sqrt{T_e/n}", r"\psi = \tan^{-1}(\Omega r/V)", r"x = \frac{-b \pm \sqrt{b^2-4ac}}{2a}",
    r"f_{ce} = \frac{e B}{2 \pi m_e}", r"p = n k_B T", r"\mathbf{E} = -\mathbf{v} \times \mathbf{B}",
    r"H = \frac{k_B T}{m g}", r"\rho V^2 = \frac{B^2}{2\mu_0}", r"\mu = \frac{m v_\perp^2}{2 B}",
]


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
    rows.append(("numeric: missing units", f"{scalar.value:.6g}", "incorrect"))
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
            ("symbolic: right-hand side only", rhs, "not correct"),
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


def _timed_grading(items: list, predictions: dict) -> tuple[object, float]:
    """Grade and time it (also the slowest single item, graded one by one afterwards)."""
    from ifworld.rws.grading.grader import grade_many

    start = time.perf_counter()
    report = grade_many(items, predictions)
    return report, time.perf_counter() - start


def _slowest_item(items: list, predictions: dict) -> tuple[float, str]:
    from ifworld.rws.grading.grader import grade_item

    worst = (0.0, "")
    for item in items:
        start = time.perf_counter()
        grade_item(item, predictions[item.id])
        elapsed = time.perf_counter() - start
        worst = max(worst, (elapsed, item.id))
    return worst


def bench_gold() -> list:
    """Cold (imports + worker start-up included) and warm gold-as-prediction grading."""
    start = time.perf_counter()
    from ifworld.rws.dataset import load_items

    items = load_items(SAMPLE).items
    gold = {item.id: item.final for item in items}
    report, _ = _timed_grading(items, gold)
    cold = time.perf_counter() - start
    _, warm = _timed_grading(items, gold)
    slowest = _slowest_item(items, gold)
    print(f"sample: {len(items)} items, by type {dict(_count(items))}")
    print(f"slowest single item (warm): {slowest[0]:.3f} s ({slowest[1]})")
    print(f"gold as prediction: accuracy {report.accuracy:.1%}  by type {report.by_type}")
    print(f"cold grading of the whole sample (imports + worker start + grading): {cold:.2f} s")
    print(f"warm grading of the whole sample: {warm:.3f} s")
    print("SUMMARY " + json.dumps({"gold-as-prediction accuracy": report.accuracy,
                                   "cold grading of the sample (s)": round(cold, 2),
                                   "slowest item (s)": round(slowest[0], 3)}))
    return items


def _count(items: list) -> dict:
    counts: dict = defaultdict(int)
    for item in items:
        counts[item.type] += 1
    return counts


def bench_perturbations(items: list) -> None:
    """Share of perturbed predictions with the expected verdict, per kind; worst symbolic time."""
    from ifworld.rws.grading.grader import DEFAULT_TIMEOUT_S, check

    makers = {"numeric": _numeric_perturbations, "symbolic": _symbolic_perturbations,
              "textual": _textual_perturbations}
    tally: dict = defaultdict(lambda: [0, 0])
    misses: list[str] = []
    worst = (0.0, "")
    for item in items:
        for kind, pred, expected in makers[item.type](item.final):
            start = time.perf_counter()
            result = check(pred, item.final, item.type)
            elapsed = time.perf_counter() - start
            if item.type == "symbolic" and elapsed > worst[0]:
                worst = (elapsed, f"{item.id}: {kind}")
            tally[kind][0] += result.verdict == expected or (expected == "not correct" and result.verdict != "correct")
            tally[kind][1] += 1
            if result.verdict != expected and not (expected == "not correct" and result.verdict != "correct"):
                misses.append(f"  {item.id} [{kind}] got {result.verdict}: {result.reason}")
    print("\nperturbed predictions — share with the expected verdict:")
    for kind in sorted(tally):
        ok, total = tally[kind]
        print(f"  {kind:40s} {ok:3d}/{total:<3d} {ok / total:6.1%}")
    total_ok = sum(v[0] for v in tally.values())
    total = sum(v[1] for v in tally.values())
    print(f"  {'all':40s} {total_ok:3d}/{total:<3d} {total_ok / total:6.1%}")
    if misses:
        print("misses:")
        print("\n".join(misses))
    print(f"\nworst single symbolic check: {worst[0]:.3f} s ({worst[1]}) vs limit {DEFAULT_TIMEOUT_S:g} s")
    print("SUMMARY " + json.dumps({"worst symbolic check (s)": round(worst[0], 3),
                                   "symbolic time limit (s)": DEFAULT_TIMEOUT_S}))


def bench_backends(items: list) -> None:
    """Parse rate and mean time of sympy's antlr and lark LaTeX backends on cleaned inputs."""
    from sympy.parsing.latex import parse_latex

    from ifworld.rws.grading.symbolic import clean_latex

    raw = [item.final for item in items if item.type == "symbolic"] + MODEL_FORMS
    for label, use_clean in (("raw", False), ("cleaned by ifworld", True)):
        texts = [clean_latex(t, {}) if use_clean else t for t in raw]
        for backend in ("antlr", "lark"):
            ok, start = 0, time.perf_counter()
            for text in texts:
                try:
                    parse_latex(text, strict=True, backend=backend) if backend == "antlr" else \
                        parse_latex(text, backend=backend)
                    ok += 1
                except ImportError:
                    print(f"  {backend}: backend not installed")
                    break
                except Exception:  # noqa: BLE001, S112 - counting failures is the point
                    continue
            mean = (time.perf_counter() - start) / len(texts)
            print(f"  {label:20s} {backend:5s} parsed {ok:2d}/{len(texts)}  mean {mean * 1000:.0f} ms")


CASE_TABLES = ("numeric", "symbolic", "textual", "kinds", "numbers", "general", "false_positive")
MV_VENV = ROOT / "benchmarks" / ".venv-mathverify"
MV_REQUIREMENT = "math-verify[antlr4_13_2]==0.9.0"


def case_pairs() -> list[dict]:
    """Every row of our case tables as {table, note, pred, gt, type, hint, want}.

    `want` is "correct" or "not correct" (incorrect and not_sure both count as not correct: a grader that
    cannot abstain is scored on whether it avoided a wrong "correct" and found the right ones).
    """
    rows = []
    for table in CASE_TABLES:
        path = ROOT / "tests" / "rws" / "cases" / f"{table}.jsonl"
        for line in path.read_text("utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            kind = row.get("type") or {"kinds": "symbolic", "numbers": "numeric"}.get(table, table)
            want = "not correct" if table == "false_positive" or row.get("verdict") != "correct" else "correct"
            rows.append({"table": table, "note": row.get("note", ""), "pred": row["pred"], "gt": row["gt"],
                         "type": kind, "hint": row.get("hint"), "units": row.get("units"), "want": want})
    return rows


def _mathverify_python() -> Path | None:
    """The benchmark venv's python with Math-Verify installed (created on first use), or None."""
    import subprocess

    python = MV_VENV / "bin" / "python"
    if not python.exists():
        print(f"creating {MV_VENV.relative_to(ROOT)} with {MV_REQUIREMENT} …", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(MV_VENV)], check=True)
    probe = subprocess.run([str(python), "-c", "import math_verify"], capture_output=True)
    if probe.returncode != 0:
        done = subprocess.run([str(python), "-m", "pip", "install", "--quiet", MV_REQUIREMENT],
                              capture_output=True, text=True)
        if done.returncode != 0:
            print(f"Math-Verify could not be installed: {done.stderr.strip()[-300:]}")
            return None
    return python


def bench_side_by_side() -> None:
    """Our grader and Math-Verify on the same pairs: binary accuracy, false "correct"s, disagreements."""
    import subprocess

    from ifworld.rws.grading.grader import check

    pairs = case_pairs()
    ours = []
    start = time.perf_counter()
    for row in pairs:
        result = check(row["pred"], row["gt"], row["type"], units=row["units"], hint=row["hint"])
        ours.append(result.verdict)
    ours_s = time.perf_counter() - start
    python = _mathverify_python()
    theirs: list[str] | None = None
    if python is not None:
        start = time.perf_counter()
        done = subprocess.run([str(python), str(ROOT / "benchmarks" / "mathverify_runner.py")],
                              input=json.dumps(pairs), capture_output=True, text=True, timeout=900)
        mv_s = time.perf_counter() - start
        if done.returncode == 0:
            theirs = [r["verdict"] for r in json.loads(done.stdout)]
        else:
            print(f"Math-Verify runner failed: {done.stderr.strip()[-300:]}")

    def score(verdicts: list[str]) -> tuple[int, int, int]:
        hits = sum((v == "correct") == (row["want"] == "correct") for v, row in zip(verdicts, pairs, strict=True))
        false_correct = sum(v == "correct" and row["want"] != "correct"
                            for v, row in zip(verdicts, pairs, strict=True))
        missed = sum(v != "correct" and row["want"] == "correct" for v, row in zip(verdicts, pairs, strict=True))
        return hits, false_correct, missed

    n = len(pairs)
    print(f"\nside by side on {n} pairs from tests/rws/cases ({', '.join(CASE_TABLES)}):")
    summary = {}
    for label, verdicts, seconds in (("ours", ours, ours_s), ("Math-Verify", theirs, None if theirs is None else mv_s)):
        if verdicts is None:
            print(f"  {label:12s} not run")
            continue
        hits, false_correct, missed = score(verdicts)
        unsure = sum(v == "not_sure" for v in verdicts)
        print(f"  {label:12s} accuracy {hits}/{n} = {hits / n:.1%}   false correct {false_correct}   "
              f"missed correct {missed}   not_sure {unsure}   {seconds:.1f} s")
        summary[f"{label} accuracy"] = round(hits / n, 3)
        summary[f"{label} false correct"] = false_correct
    if theirs is not None:
        print("  per table (ours / Math-Verify hits):")
        for table in CASE_TABLES:
            idx = [i for i, row in enumerate(pairs) if row["table"] == table]
            mine = sum((ours[i] == "correct") == (pairs[i]["want"] == "correct") for i in idx)
            mv = sum((theirs[i] == "correct") == (pairs[i]["want"] == "correct") for i in idx)
            print(f"    {table:15s} {mine:3d} / {mv:3d} of {len(idx)}")
        print("  disagreements (want | ours | Math-Verify | table: pred vs gold):")
        for i, row in enumerate(pairs):
            if (ours[i] == "correct") != (theirs[i] == "correct"):
                print(f"    {row['want']:11s} | {ours[i]:9s} | {theirs[i]:9s} | {row['table']}: "
                      f"{row['pred'][:50]!r} vs {row['gt'][:50]!r}")
    print("SUMMARY " + json.dumps(summary))


def bench_l2s(items: list) -> None:
    """Parse rate of latex2sympy2_extended (our second parser) on the same inputs as the backends."""
    import importlib.util

    from ifworld.rws.grading.symbolic import clean_latex
    from ifworld.rws.grading.symcompare import parse

    raw = [item.final for item in items if item.type == "symbolic"] + MODEL_FORMS
    parsers = ["antlr"] + (["latex2sympy2_extended"] if importlib.util.find_spec("latex2sympy2_extended") else [])
    for parser in parsers:
        ok = 0
        start = time.perf_counter()
        for text in raw:
            for side in text.split("="):
                try:
                    parse(clean_latex(side, {}), parser, True)
                    ok += 1
                except Exception:  # noqa: BLE001, S112 - counting failures is the point
                    continue
        sides = sum(len(t.split("=")) for t in raw)
        print(f"  ours + {parser:22s} parsed {ok:2d}/{sides} sides  {(time.perf_counter() - start) * 1000:.0f} ms")


def bench_parser_orders() -> None:
    """The symbolic case pairs graded with antlr only, latex2sympy2_extended only, and both in order."""
    import importlib.util
    import os

    from ifworld.rws.grading import sandbox
    from ifworld.rws.grading.grader import check

    if importlib.util.find_spec("latex2sympy2_extended") is None:
        print("\nparser order: latex2sympy2_extended not installed (pip install latex2sympy2_extended==1.11.0)")
        return
    pairs = [row for row in case_pairs() if row["type"] == "symbolic"]
    print(f"\nparser order on the {len(pairs)} symbolic case pairs (hits / false correct / not_sure / s):")
    summary = {}
    for order in ("antlr", "latex2sympy2_extended", "antlr,latex2sympy2_extended"):
        os.environ["IFWORLD_RWS_PARSERS"] = order
        sandbox.worker().close()  # the worker reads the order at start
        check("x", "x", "symbolic")
        start = time.perf_counter()
        verdicts = [check(row["pred"], row["gt"], "symbolic").verdict for row in pairs]
        seconds = time.perf_counter() - start
        hits = sum((v == "correct") == (row["want"] == "correct") for v, row in zip(verdicts, pairs, strict=True))
        false_correct = sum(v == "correct" and row["want"] != "correct" for v, row in zip(verdicts, pairs, strict=True))
        unsure = sum(v == "not_sure" for v in verdicts)
        print(f"  {order:30s} {hits:3d}/{len(pairs)}   {false_correct}   {unsure:3d}   {seconds:.1f}")
        summary[f"{order} hits"] = hits
    os.environ.pop("IFWORLD_RWS_PARSERS", None)
    sandbox.worker().close()
    print("SUMMARY " + json.dumps(summary))


def main() -> None:
    """Run every section."""
    items = bench_gold()
    bench_perturbations(items)
    print("\nLaTeX parser backends (sample symbolic finals + common model-output forms):")
    bench_backends(items)
    bench_l2s(items)
    bench_parser_orders()
    if "--no-mathverify" not in sys.argv:
        bench_side_by_side()


if __name__ == "__main__":
    main()
