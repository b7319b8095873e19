"""Deterministic consistency check of a what-if report's scenario structure (code, not a model).

The report is written in parts by different calls, so its numbers and branch references can disagree. After
assembly the structure is first *normalised* (fixes that need no judgement: missing ids, probabilities
written as fractions, a branch named instead of referenced by id, a reversed interval), then *checked*:

- ``probabilities_sum``: the branches' probabilities sum to 100 ± :data:`PROBABILITY_TOLERANCE`;
- ``intervals_nest``: every calibration range has 50 / 80 / 95 % intervals with low < high, and
  50 ⊂ 80 ⊂ 95;
- ``branch_references``: branch ids are unique, and every timeline event and decision rule points to an
  existing branch;
- ``indicators_in_scenario``: every decision-table indicator is one of the branches' indicators;
- ``variant_probabilities``: the panel gives a probability to every variant the scenario fixed at the review,
  by its id (V1, V2, …; the ids the room predicted on), once each, and to no id the run does not have;
- ``numbers_finite``: no number in the report is NaN or ±Infinity (a model's ``1e400`` reads as infinity;
  the JSON export writes such numbers as null and lists their paths).

Violations get one targeted repair turn (only the part at fault is re-asked, with the list of violations);
what is still wrong afterwards is listed in the report's "Consistency checks" section.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ifworld.safe_json import non_finite_paths
from ifworld.whatif.numbers import interval, num, pct

PROBABILITY_TOLERANCE = 1.0
CHECKS: dict[str, str] = {
    "probabilities_sum": "Branch probabilities sum to 100 ± 1 %",
    "intervals_nest": "Calibration intervals are non-degenerate and nest 50 ⊂ 80 ⊂ 95 %",
    "branch_references": "Every referenced branch exists (timeline, decision table)",
    "indicators_in_scenario": "Every decision-table indicator appears in the scenario branches",
    "variant_probabilities": "Every scenario variant has the panel's probability, by its id",
    "numbers_finite": "Every number is finite (no NaN or Infinity)",
}
# Which report part a violation is repaired in, and the fields that part owns.
CHECK_PART = {"probabilities_sum": "scenarios", "branch_references": "scenarios",
              "indicators_in_scenario": "scenarios", "intervals_nest": "analysis",
              "variant_probabilities": "scenarios"}
PART_FIELDS = {"scenarios": ("scenarios", "timeline", "decision_table", "variant_probabilities"),
               "analysis": ("calibration_ranges",)}
FIELD_PART = {field: part for part, fields in PART_FIELDS.items() for field in fields}
LEVELS = ("ci50", "ci80", "ci95")
_WORD_RE = re.compile(r"[^a-z0-9]+")

Repair = Callable[[str, dict[str, Any], list[str]], dict[str, Any]]


@dataclass(frozen=True)
class Violation:
    check: str
    message: str
    field: str = ""  # the report field at fault, where the check alone does not say which part owns it

    @property
    def part(self) -> str:
        return CHECK_PART.get(self.check) or FIELD_PART.get(self.field, "")


def _key(text: Any) -> str:
    return _WORD_RE.sub(" ", str(text or "").lower()).strip()


# -- normalisation ------------------------------------------------------------------------------------
def _ensure_ids(branches: list[dict], notes: list[str]) -> None:
    seen: set[str] = set()
    for i, b in enumerate(branches, start=1):
        bid = str(b.get("id") or "").strip()
        if not bid or bid.lower() in seen:
            new = next(f"B{n}" for n in range(i, i + len(branches) + 2) if f"b{n}" not in seen)
            notes.append(f"branch '{b.get('name', '?')}' had {'a duplicate' if bid else 'no'} id; now {new}")
            bid = new
        b["id"] = bid
        seen.add(bid.lower())


def _as_percent(branches: list[dict], notes: list[str]) -> None:
    probs = [float(b.get("probability_pct") or 0) for b in branches]
    if len(probs) >= 2 and all(p <= 1 for p in probs) and abs(sum(probs) - 1) <= 0.01:
        for b in branches:
            b["probability_pct"] = round(100 * float(b.get("probability_pct") or 0), 4)
        notes.append("branch probabilities were written as fractions of 1; read as percentages")


def _resolve_ref(ref: str, branches: list[dict]) -> str | None:
    """The id a reference means: an id (any case), or a branch's name or condition."""
    key = _key(ref)
    for b in branches:
        if str(b["id"]).lower() == str(ref).strip().lower():
            return b["id"]
    for b in branches:
        if key and key in (_key(b.get("name")), _key(b.get("condition"))):
            return b["id"]
    return None


def _relink(items: list[dict], where: str, branches: list[dict], notes: list[str]) -> None:
    for item in items:
        ref = str(item.get("branch_id") or "").strip()
        if not ref:
            continue
        bid = _resolve_ref(ref, branches)
        if bid and bid != ref:
            if bid.lower() != ref.lower():
                notes.append(f"{where} named branch '{ref}'; linked to its id {bid}")
            item["branch_id"] = bid


def normalise(report: dict[str, Any]) -> list[str]:
    """Fix, in place, what needs no judgement; return a note for every change."""
    notes: list[str] = []
    branches = report.setdefault("scenarios", [])
    _ensure_ids(branches, notes)
    _as_percent(branches, notes)
    _relink(report.setdefault("timeline", []), "a timeline event", branches, notes)
    _relink(report.setdefault("decision_table", []), "a decision rule", branches, notes)
    for cal in report.setdefault("calibration_ranges", []):
        for level in LEVELS:
            pair = cal.get(level) or []
            if len(pair) == 2 and pair[0] > pair[1]:
                cal[level] = [pair[1], pair[0]]
                notes.append(f"{cal.get('quantity')}: {level[2:]} % interval was reversed; reordered")
    return notes


# -- checks ------------------------------------------------------------------------------------------
def _check_probabilities(report: dict) -> list[Violation]:
    branches = report.get("scenarios") or []
    if not branches:
        return [Violation("probabilities_sum", "the report has no scenario branches")]
    total = sum(float(b.get("probability_pct") or 0) for b in branches)
    if abs(total - 100) > PROBABILITY_TOLERANCE:
        listing = ", ".join(f"{b['id']} {pct(b.get('probability_pct'))}" for b in branches)
        return [Violation("probabilities_sum", f"branch probabilities sum to {num(total)} %, not 100 ({listing})")]
    return []


def _check_intervals(report: dict) -> list[Violation]:
    out = []
    for cal in report.get("calibration_ranges") or []:
        name, unit = cal.get("quantity", "?"), cal.get("unit", "")
        pairs = {lvl: cal.get(lvl) or [] for lvl in LEVELS}
        bad = [lvl for lvl, p in pairs.items() if len(p) != 2]
        if bad:
            out.append(Violation("intervals_nest", f"{name}: missing the {', '.join(b[2:] + ' %' for b in bad)} "
                                                   "interval"))
            continue
        flat = [lvl for lvl, p in pairs.items() if not p[0] < p[1]]
        if flat:
            out += [Violation("intervals_nest", f"{name}: the {lvl[2:]} % interval {interval(pairs[lvl], unit)} "
                                                "is degenerate (low must be below high)") for lvl in flat]
            continue
        for inner, outer in (("ci50", "ci80"), ("ci80", "ci95")):
            (a, b), (c, d) = pairs[inner], pairs[outer]
            if a < c or b > d:
                out.append(Violation("intervals_nest", f"{name}: the {inner[2:]} % interval {interval([a, b], unit)} "
                                                       f"is not inside the {outer[2:]} % interval "
                                                       f"{interval([c, d], unit)}"))
    return out


def _check_references(report: dict) -> list[Violation]:
    ids = [str(b.get("id")) for b in report.get("scenarios") or []]
    out = [Violation("branch_references", f"branch id {i} is used by more than one branch")
           for i in sorted({i for i in ids if ids.count(i) > 1})]
    known = {i.lower() for i in ids}
    for where, field in (("timeline event", "timeline"), ("decision rule", "decision_table")):
        for item in report.get(field) or []:
            ref = str(item.get("branch_id") or "")
            label = item.get("event") or item.get("indicator") or "?"
            if field == "decision_table" and not ref:
                out.append(Violation("branch_references", f"{where} '{label}' points to no branch"))
            elif ref and ref.lower() not in known:
                out.append(Violation("branch_references", f"{where} '{label}' points to unknown branch '{ref}'"))
    return out


def _check_indicators(report: dict) -> list[Violation]:
    listed = [_key(i) for b in report.get("scenarios") or [] for i in b.get("indicators") or []]
    out = []
    for rule in report.get("decision_table") or []:
        key = _key(rule.get("indicator"))
        if key and not any(key in text or (text and text in key) for text in listed):
            out.append(Violation("indicators_in_scenario", f"decision-table indicator '{rule.get('indicator')}' "
                                                           "is not among any branch's indicators"))
    return out


def _check_variants(report: dict, variant_ids: Sequence[str]) -> list[Violation]:
    given = [str(v.get("variant_id") or "").strip().upper() for v in report.get("variant_probabilities") or []]
    known = [i.upper() for i in variant_ids]
    out = [Violation("variant_probabilities", f"variant {i} has no probability (give one in variant_probabilities)")
           for i in known if i not in given]
    out += [Violation("variant_probabilities", f"variant {i} is given more than one probability")
            for i in sorted({i for i in given if i in known and given.count(i) > 1})]
    out += [Violation("variant_probabilities", f"'{i}' is not a variant id of this scenario (ids: "
                                               f"{', '.join(known) or 'none'})")
            for i in dict.fromkeys(given) if i not in known]
    return out


def _check_finite(report: dict) -> list[Violation]:
    fields = [k for k in report if k != "consistency_checks"]
    return [Violation("numbers_finite", f"{path[2:]} is not a finite number (NaN or Infinity)", field)
            for field in fields for path in non_finite_paths({field: report[field]})]


def check(report: dict[str, Any], variant_ids: Sequence[str] = ()) -> list[Violation]:
    """Every violation of :data:`CHECKS` in ``report`` (a Report dict), in check order; ``variant_ids`` are the
    ids of the variants the run's scenario fixed (the ids the room predicted on)."""
    return [*_check_probabilities(report), *_check_intervals(report), *_check_references(report),
            *_check_indicators(report), *_check_variants(report, variant_ids), *_check_finite(report)]


# -- orchestration ------------------------------------------------------------------------------------
def _by_part(violations: list[Violation]) -> dict[str, list[Violation]]:
    parts: dict[str, list[Violation]] = {}
    for v in violations:
        parts.setdefault(v.part, []).append(v)
    return parts


def reconcile(report: dict[str, Any], repair: Repair | None = None,
              variant_ids: Sequence[str] = ()) -> dict[str, Any]:
    """Normalise, check, give each faulty part one repair turn, and record the outcome in
    ``report["consistency_checks"]`` (checks passed/failed, normalised, repaired, violations)."""
    notes = normalise(report)
    before = check(report, variant_ids)
    repaired: list[str] = []
    if before and repair is not None:
        for part, items in _by_part(before).items():
            if part not in PART_FIELDS:  # a fault outside the repairable parts stays listed
                continue
            current = {f: report.get(f) or [] for f in PART_FIELDS[part]}
            try:
                fixed = repair(part, current, [v.message for v in items])
            except Exception as exc:  # noqa: BLE001 — a failed repair leaves the violations listed, not the run failed
                notes.append(f"the repair turn for the {part} part failed: {str(exc)[:200]}")
                continue
            candidate = {**report, **{f: fixed.get(f, current[f]) for f in PART_FIELDS[part]}}
            cand_notes = normalise(candidate)
            still = [v for v in check(candidate, variant_ids) if v.part == part]
            if len(still) < len(items):  # keep the repair only if it helped
                report.update({f: candidate[f] for f in PART_FIELDS[part]})
                notes += cand_notes
                repaired += [v.message for v in items if v not in still]
    after = check(report, variant_ids)
    failed = {v.check for v in after}
    cc = report.setdefault("consistency_checks", {})
    cc["checks"] = [{"name": name, "passed": name not in failed,
                     "details": [v.message for v in after if v.check == name]} for name in CHECKS]
    cc["normalised"], cc["repaired"] = list(dict.fromkeys(notes)), repaired
    cc["violations"] = [v.message for v in after]
    return report
