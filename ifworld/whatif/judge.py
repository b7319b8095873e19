"""Independent judge: pointwise rubric scores for a saved run's report.

The judge sees only the proposition and the rendered report, blinded the same way for every method
(:mod:`ifworld.whatif.rubric`) and read whole within its model's window (:mod:`ifworld.llm.packing`; the
judgement records the share it read), uses a role-neutral system message with the paper's rubric (§3.2, Appendix C)
at temperature 0 and strict JSON (``llm.structured`` makes one repair turn). ``overall`` is
recomputed from the five dimensions and a mismatch with the model's own sum is flagged. Judgements are
stored with the run (``record["judge"]`` plus the ``judgements`` log) so results can be re-scored later.
"""

from __future__ import annotations

import time
from typing import Any

from ifworld import llm
from ifworld.access import OPERATOR, Caller, require_facilitator
from ifworld.config import Settings, load_settings
from ifworld.runs.store import RunStore, get_store
from ifworld.whatif.agents import proposition_block
from ifworld.whatif.records import WhatIfRecord, load_record
from ifworld.whatif.report import render_report_markdown
from ifworld.whatif.rubric import JUDGE_MAXIMA, judge_text, rubric_text
from ifworld.whatif.schemas import Judgement

JUDGE_ROLE = "whatif.judge"
JUDGE_SEED = 20250101  # sent as the OpenAI ``seed`` so endpoints that support it sample reproducibly
DIMENSIONS = tuple(JUDGE_MAXIMA)
OVERALL_TOLERANCE = 0.05  # the judge's own sum of float scores may round differently


def report_markdown(record: WhatIfRecord | dict[str, Any]) -> str:
    """The run's report as Markdown, whatever the method (a baseline's natural text, IF-World's rendering)."""
    report = load_record(record).report
    return (report.markdown or render_report_markdown(report.model_dump(mode="json"))) if report else ""


def judged_markdown(record: WhatIfRecord | dict[str, Any]) -> str:
    """The run's report as the judge reads it (§3.1, blind): its content without our pipeline's bookkeeping
    (check table, repair notes, rule labels, degraded steps — :func:`render_report_markdown` ``judged``)."""
    rec = load_record(record)
    if rec.report is None:
        return ""
    return render_report_markdown(rec.report.model_dump(mode="json"), rec.proposition, judged=True)


def analysis_text(record: WhatIfRecord | dict[str, Any]) -> str:
    """What the judge is given of a run, whatever its method: its judged report (:func:`judged_markdown`),
    blinded."""
    return judge_text(judged_markdown(record))


def analysis_part(analysis: str) -> llm.Part:
    """The analysis as one part of paragraphs, so a window too small for it shortens every paragraph alike."""
    paragraphs = tuple(p for p in analysis.split("\n\n") if p.strip())
    return llm.Part("analysis", (llm.Section("", paragraphs, bullets=False, sep="\n\n"),),
                    label="the analysis judged")


def judge_report(proposition: str, analysis: str, settings: Settings | None = None,
                 callbacks: list | None = None, seed: int = JUDGE_SEED) -> dict[str, Any]:
    """Score one analysis text; returns the five dimensions, recomputed ``overall`` and the mismatch flag."""
    settings = (settings or load_settings()).model_copy(update={"temperature": 0.0})
    msgs, packed = llm.pack_messages(JUDGE_ROLE, "whatif/judge", settings, {"analysis": analysis_part(analysis)},
                                     {"proposition_block": proposition_block(proposition), "rubric": rubric_text()},
                                     schema=Judgement)
    j = llm.structured(JUDGE_ROLE, msgs, Judgement, settings=settings, callbacks=callbacks, seed=seed,
                       meta={"round": None, "system": "whatif", "inputs": packed.record()})
    share = packed.parts[0].share
    scores = {d: round(float(getattr(j, d)), 2) for d in DIMENSIONS}
    total = round(sum(scores.values()), 2)  # the weights are the ranges: 25 + 25 + 20 + 15 + 15 = 100
    return {**scores, "overall": total, "reported_overall": j.overall,
            "overall_mismatch": abs(j.overall - total) > OVERALL_TOLERANCE,
            "rationale": j.rationale, "model": settings.model_for(JUDGE_ROLE), "seed": seed, "temperature": 0.0,
            "judged_at": time.time(), "analysis_share": round(share, 4), "analysis_cut": share < 1.0,
            "window": packed.window}


def judge_record(record: dict[str, Any], settings: Settings | None = None, *, run_id: str | None = None,
                 store: RunStore | None = None, caller: Caller = OPERATOR) -> dict[str, Any]:
    """Judge a run record (validated here, once: :class:`RecordError` names the field of a malformed one).
    With a run id (argument or ``record["run_id"]``) the judgement and its model call are logged with the
    stored run; returns the judgement dict. The facilitator's alone (``caller``): it spends the model."""
    require_facilitator(caller, "judge a run")
    run_id = run_id or (record.get("run_id") if isinstance(record.get("run_id"), str) else None)
    rec = load_record(record, run_id)
    info = None
    if run_id:
        store = store or get_store()
        try:
            info = store.get_run(run_id)
        except KeyError:
            info = None
    callbacks = None
    if info is not None and store is not None and run_id:  # the judgement's model call is logged with the run
        log, log_id = store, run_id
        callbacks = [llm.UsageTracker(sink=lambda call: log.add_call(log_id, call.to_dict()))]
    text = analysis_text(rec)
    result = {**judge_report(rec.proposition, text, settings, callbacks), "analysis_chars": len(text)}
    if info is not None and store is not None and run_id:
        stored = info.record or dict(record)
        stored["judge"] = result
        stored["judgements"] = [*stored.get("judgements", []), result]
        store.save_partial(run_id, stored)
    return result
