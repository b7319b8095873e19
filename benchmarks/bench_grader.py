"""Benchmark the RWS programmatic grader on our sample set (prints figures; no assertions).

Run: ``.venv/bin/python benchmarks/bench_grader.py``. Prints gold-as-prediction accuracy, cold and warm
grading time of the whole sample, the share of deliberately perturbed predictions that get the expected
verdict (per perturbation kind), the worst single symbolic check time against its limit, and the parse
rates of sympy's antlr and lark LaTeX backends.
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
    from ifworld.rws.units import find_number, join_thousands

    text = join_thousands(final)
    value, start, end = find_number(text)
    return f"{value * factor:.6g}{text[end:]}"


def _numeric_perturbations(final: str) -> list[tuple[str, str, str]]:
    """(kind, prediction, expected verdict) for one numeric final."""
    from ifworld.rws.units import parse_scalar, registry

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
            ("symbolic: right-hand side only", rhs, "correct"),
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
    """Grade and time it."""
    from ifworld.rws.grader import grade_many

    start = time.perf_counter()
    report = grade_many(items, predictions)
    return report, time.perf_counter() - start


def bench_gold() -> list:
    """Cold (imports + worker start-up included) and warm gold-as-prediction grading."""
    start = time.perf_counter()
    from ifworld.rws.dataset import load_items

    items = load_items(SAMPLE).items
    gold = {item.id: item.final for item in items}
    report, _ = _timed_grading(items, gold)
    cold = time.perf_counter() - start
    _, warm = _timed_grading(items, gold)
    print(f"sample: {len(items)} items, by type {dict(_count(items))}")
    print(f"gold as prediction: accuracy {report.accuracy:.1%}  by type {report.by_type}")
    print(f"cold grading of the whole sample (imports + worker start + grading): {cold:.2f} s")
    print(f"warm grading of the whole sample: {warm:.3f} s")
    print("SUMMARY " + json.dumps({"gold-as-prediction accuracy": report.accuracy,
                                   "cold grading of the sample (s)": round(cold, 2)}))
    return items


def _count(items: list) -> dict:
    counts: dict = defaultdict(int)
    for item in items:
        counts[item.type] += 1
    return counts


def bench_perturbations(items: list) -> None:
    """Share of perturbed predictions with the expected verdict, per kind; worst symbolic time."""
    from ifworld.rws.grader import DEFAULT_TIMEOUT_S, check

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
            tally[kind][0] += result.verdict == expected
            tally[kind][1] += 1
            if result.verdict != expected:
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

    from ifworld.rws.symbolic import clean_latex

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


def main() -> None:
    """Run every section."""
    items = bench_gold()
    bench_perturbations(items)
    print("\nLaTeX parser backends (sample symbolic finals + common model-output forms):")
    bench_backends(items)


if __name__ == "__main__":
    main()
