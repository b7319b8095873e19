"""The RWS LLM verifier: a Parser agent then a Judge agent, consulted only when the programmatic grader says
"incorrect" or "not_sure" (plugged into :func:`ifworld.rws.grading.grader.grade_item`'s ``verifier`` hook).

It sees what the paper's verifier is given (§4.1, Appendix D): the Parser the prediction, the ground truth and
the declared type; the Judge the two normalised answers and the type — not the question, and not the
programmatic grader's reason, unless ``sees_grader`` is set (``--verifier-sees-grader``), which adds the grader's
note to the Judge's input. The Parser extracts and normalises the predicted and gold answers and the answer
type; the Judge applies the type's rule (numeric: within 5 % with compatible units; symbolic: algebraically
equivalent; textual: strictly the same meaning) and returns a verdict with a confidence. A confidence at or below
:data:`NOT_SURE_AT_OR_BELOW` is reported as "not_sure" whatever the Judge said. The result's ``stage`` is
"verifier" and its reason names the agent that decided; each call's input and output are kept in
:attr:`LLMVerifier.traces` so a page or a benchmark record can show them.

:func:`grade_output` grades one saved raw output (programmatic first, then a saved or live verifier verdict):
the single function the pattern runs, the benchmark's re-grading and the pages share.
"""

from __future__ import annotations

import json
import threading
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ifworld import llm, prompts
from ifworld.config import Settings
from ifworld.rws.dataset import RWSItem
from ifworld.rws.grading.constants import DEFAULT_TIMEOUT_S, REL_TOLERANCE
from ifworld.rws.grading.grader import Verifier, grade_item
from ifworld.rws.grading.result import CheckResult

NOT_SURE_AT_OR_BELOW = 0.6
"""Judge confidence at or below this turns any verdict into "not_sure"."""
JUDGE_TEMPERATURE = 1.0
"""The paper's judge temperature (its verifier samples the judge at 1.0); the parser keeps the run's."""
PARSER_ROLE = "rws.verifier.parser"
JUDGE_ROLE = "rws.verifier.judge"
MAX_PREDICTION_CHARS = 6000


class ParsedAnswers(BaseModel):
    """Parser output: both answers extracted and normalised, and the answer type (the paper's three keys; a
    ``units`` key some models add is kept but not asked for)."""

    model_config = ConfigDict(extra="ignore")

    pred_norm: str = ""
    gt_norm: str = ""
    type: Literal["numeric", "symbolic", "textual"] = "textual"
    units: str = ""

    @field_validator("pred_norm", "gt_norm", "units", mode="before")
    @classmethod
    def _text(cls, v: Any) -> Any:
        return "" if v is None else str(v)

    @field_validator("type", mode="before")
    @classmethod
    def _type(cls, v: Any) -> Any:
        low = str(v or "textual").strip().lower()
        return {"text": "textual", "numerical": "numeric", "number": "numeric", "expression": "symbolic"}.get(low, low)


class Judgement(BaseModel):
    """Judge output."""

    model_config = ConfigDict(extra="ignore")

    verdict: Literal["correct", "incorrect", "not_sure"]
    confidence: float = Field(ge=0.0, le=1.0)
    pred_extracted: str = ""
    gt_extracted: str = ""
    reason: str = ""

    @field_validator("verdict", mode="before")
    @classmethod
    def _verdict(cls, v: Any) -> Any:
        return str(v).strip().lower().replace(" ", "_").replace("-", "_")

    @field_validator("confidence", mode="before")
    @classmethod
    def _percent(cls, v: Any) -> Any:
        return v / 100 if isinstance(v, (int, float)) and 1 < v <= 100 else v


def _messages(name: str, user: str = "user", **values: Any) -> list[tuple[str, str]]:
    return prompts.messages(f"rws/verifier/{name}", user, **values)


def _entry(role: str, messages: list[tuple[str, str]], output: Any, status: str = "ok", error: str = "") -> dict:
    text = output if isinstance(output, str) else json.dumps(output)
    entry = {"role": role, "step": role.rsplit(".", 1)[-1], "input": messages[-1][1], "output": text,
             "status": status}
    if error:
        entry["error"] = error
    return entry


def verify(item: RWSItem, prediction: str, result: CheckResult, settings: Settings, *, sees_grader: bool = False,
           ) -> tuple[CheckResult | None, list[dict]]:
    """Parser → Judge on one graded item; (verifier result or None to keep the programmatic one, trace).

    ``sees_grader`` adds the programmatic grader's reason to the Judge's input (the paper's Judge does not see it).
    """
    trace: list[dict] = []
    meta = {"system": "rws"}
    msgs = _messages("parser", gold=item.final, prediction=prediction[-MAX_PREDICTION_CHARS:], type=item.type)
    try:
        parsed = llm.structured(PARSER_ROLE, msgs, ParsedAnswers, settings=settings, meta=meta)
        trace.append(_entry(PARSER_ROLE, msgs, parsed.model_dump()))
    except llm.StructuredOutputError as exc:
        trace.append(_entry(PARSER_ROLE, msgs, exc.raw, "degraded", str(exc)))
        parsed = ParsedAnswers(pred_norm=result.pred_norm, gt_norm=result.gt_norm or item.final, type=item.type)
    kind = parsed.type if parsed.type in ("numeric", "symbolic", "textual") else item.type
    extra = {"user": "user_with_grader", "programmatic": result.reason} if sees_grader else {}
    msgs = _messages("judge", type=kind, pred=parsed.pred_norm or "(nothing extracted)",
                     gold=parsed.gt_norm or item.final, tolerance=f"{REL_TOLERANCE:.0%}", **extra)
    try:
        judge_settings = settings.model_copy(update={"temperature": JUDGE_TEMPERATURE})
        judged = llm.structured(JUDGE_ROLE, msgs, Judgement, settings=judge_settings, meta=meta)
    except llm.StructuredOutputError as exc:
        trace.append(_entry(JUDGE_ROLE, msgs, exc.raw, "degraded", str(exc)))
        return None, trace
    trace.append(_entry(JUDGE_ROLE, msgs, judged.model_dump()))
    return to_result(judged, result, parsed), trace


def to_result(judged: Judgement, result: CheckResult, parsed: ParsedAnswers | None = None) -> CheckResult:
    """The Judge's verdict as a CheckResult (stage "verifier"); low confidence becomes not_sure."""
    verdict = judged.verdict
    notes = list(result.annotations)
    if judged.confidence <= NOT_SURE_AT_OR_BELOW:
        verdict = "not_sure"
        notes.append(f"verifier confidence {judged.confidence:.2f} ≤ {NOT_SURE_AT_OR_BELOW}")
    reason = (f"LLM verifier (judge, confidence {judged.confidence:.2f}): {judged.reason or judged.verdict}; "
              f"programmatic said {result.verdict} ({result.reason})")
    return CheckResult(verdict=verdict, type=result.type, reason=reason,
                       pred_norm=judged.pred_extracted or (parsed.pred_norm if parsed else result.pred_norm),
                       gt_norm=judged.gt_extracted or (parsed.gt_norm if parsed else result.gt_norm),
                       stage="verifier", annotations=notes, rel_error=result.rel_error)


class LLMVerifier:
    """The grader hook: ``LLMVerifier(settings)(item, prediction, result)``; keeps each item's trace.
    ``sees_grader=True`` shows the Judge the programmatic grader's reason (off by default, as in the paper)."""

    def __init__(self, settings: Settings, *, sees_grader: bool = False) -> None:
        self.settings = settings
        self.sees_grader = sees_grader
        self.traces: dict[str, list[dict]] = {}
        self._lock = threading.Lock()

    def __call__(self, item: RWSItem, prediction: str, result: CheckResult) -> CheckResult | None:
        verdict, trace = verify(item, prediction, result, self.settings, sees_grader=self.sees_grader)
        with self._lock:
            self.traces[item.id] = trace
        return verdict


def grade_output(item: RWSItem | dict, raw_output: str, *, verifier: LLMVerifier | None = None,
                 saved: dict | None = None, timeout_s: float | None = None) -> dict[str, Any]:
    """Grade a saved raw output: programmatic first; if not correct, a ``saved`` verifier grade (re-scoring
    without a model), else the live ``verifier`` (if any). Returns the grade as a plain dict, with the
    verifier's trace under ``verifier_trace`` when it was consulted. ``timeout_s`` bounds the programmatic grade
    (default: the batch limit, ``DEFAULT_TIMEOUT_S``; a person waiting passes ``INTERACTIVE_TIMEOUT_S``)."""
    item = item if isinstance(item, RWSItem) else RWSItem.model_validate(item)
    hook: Verifier | None = None
    if saved and saved.get("stage") == "verifier":
        def saved_grade(_item: RWSItem, _pred: str, _result: CheckResult) -> CheckResult:
            return CheckResult.model_validate({k: v for k, v in saved.items() if k in CheckResult.model_fields})
        hook = saved_grade
    elif verifier is not None:
        hook = verifier
    result = grade_item(item, raw_output, hook, timeout_s=DEFAULT_TIMEOUT_S if timeout_s is None else timeout_s)
    grade = result.model_dump()
    if verifier is not None and hook is verifier and item.id in verifier.traces:
        grade["verifier_trace"] = verifier.traces.pop(item.id)
    elif saved and saved.get("verifier_trace"):
        grade["verifier_trace"] = saved["verifier_trace"]
    return grade
