"""Demo answers for the RWS verifier and the built-in answer patterns (keyed by role name).

Final answers come from the shipped sample set's gold when the question in the user message is found there,
and a fixed third of the items ("wrong first": id hashes to 0 mod 3) get a wrong first answer: single-shot
and HMAW keep it, while the PACE critic, PHASE evaluator and SCHEMA guard reject it and the retry gives the
gold. So a demo benchmark shows what the gates and retries do; its accuracy says nothing about any model.
The server puts the demo label in front of every plain-text answer and the free-text fields in
:data:`LABEL_KEYS`.
"""

from __future__ import annotations

import json
import re
import zlib
from functools import lru_cache
from typing import Any

from ifworld.llm.demo_answers import role_text
from ifworld.resources import data_path

SAMPLE_NAME = "rws_sample.jsonl"
FINAL_RE = re.compile(r"(?im)^\s*final answer\s*:\s*(.+?)\s*$")
NUMBER_RE = re.compile(r"-?\d+(?:\.\d+)?")


@lru_cache(maxsize=1)
def _items() -> list[dict[str, Any]]:
    rows = []
    for line in data_path(SAMPLE_NAME).read_text(encoding="utf-8").splitlines():
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return rows


def find_item(body: dict[str, Any]) -> dict[str, Any] | None:
    """The sample item whose question appears in the request's user text."""
    text = role_text(body, "user")
    for item in _items():
        if item["question"] in text:
            return item
    return None


def wrong_first(item: dict[str, Any] | None) -> bool:
    """Items that get a wrong first answer (fixed by gated patterns' retries)."""
    return item is not None and zlib.crc32(item["id"].encode()) % 3 == 0


def wrong_answer(item: dict[str, Any]) -> str:
    gold = item["final"]
    if item["type"] == "numeric":
        m = NUMBER_RE.search(gold)
        if m:
            return str(gold[: m.start()]) + f"{float(m.group()) * 2 + 1:g}" + str(gold[m.end():])
        return "0"
    if item["type"] == "symbolic":
        return "x = 0"
    return "It stays exactly the same."


def gold(item: dict[str, Any] | None) -> str:
    return item["final"] if item else "42"


def _answer(text: str, final: str) -> str:
    return f"Reasoning: {text}\nFinal Answer: {final}"


def first_answer(body: dict[str, Any]) -> str:
    item = find_item(body)
    final = wrong_answer(item) if item is not None and wrong_first(item) else gold(item)
    return _answer("Applied the governing relation and kept the units.", final)


def retry_answer(body: dict[str, Any]) -> str:
    return _answer("Applied the reviewer's fix and recomputed.", gold(find_item(body)))


def _last_final(text: str) -> str:
    found = FINAL_RE.findall(text)
    return found[-1].strip() if found else ""


def review(body: dict[str, Any]) -> dict[str, Any]:
    """Accept when the proposed answer's final line is the gold; otherwise reject with the gold as fix."""
    item = find_item(body)
    proposed = _last_final(role_text(body, "user"))
    if item is None:  # a reviewer that does not see the question (the PACE critic): spot the scripted wrong drafts
        if proposed in {wrong_answer(i) for i in _items() if wrong_first(i)}:
            return {"accept": False, "confidence": 0.4, "issues": ["the final value does not follow from the plan"],
                    "fix": "Redo the last step of the plan."}
        return {"accept": True, "confidence": 0.9, "issues": [], "fix": ""}
    if proposed == item["final"]:
        return {"accept": True, "confidence": 0.9, "issues": [], "fix": ""}
    return {"accept": False, "confidence": 0.8, "issues": ["the final value does not follow from the setup"],
            "fix": f"Redo the last step; the result should be {item['final']}."}


def enclose(body: dict[str, Any]) -> str:
    return _answer("Summary of the accepted solution.", _last_final(role_text(body, "user")) or gold(find_item(body)))


def plan(body: dict[str, Any]) -> dict[str, Any]:
    item = find_item(body) or {"type": "numeric"}
    return {"expected_type": item["type"], "required_units": "", "format_hints": "as the hint asks",
            "plan": ["identify the relation", "substitute", "check units"], "checks": ["units match"],
            "domain_hint": "heliophysics"}


HYPOTHESES = {"assumptions": ["steady state"], "knowns": ["given values"], "unknowns": ["the answer"],
              "constraints": [], "equations_latex": ["v = d/t"], "units": ["SI"], "required_units": "",
              "facts": ["1 AU = 1.496e11 m"]}
EXPERTS = [{"role": "Physics", "prompt": "Set up the relation.", "produces": "setup", "consumes": "question"},
           {"role": "Math", "prompt": "Evaluate it.", "produces": "value", "consumes": "setup"}]


def architecture(body: dict[str, Any]) -> dict[str, Any]:
    item = find_item(body) or {"type": "numeric"}
    return {"q_type": item["type"], "format_hints": "", "plan": ["set up", "evaluate"], "checks": ["units"],
            "expert_sequence": EXPERTS}


def allocation(body: dict[str, Any]) -> dict[str, Any]:
    item = find_item(body) or {"type": "numeric"}
    return {"steps": [{"id": f"S{i}", "role": e["role"].lower(), "prompt": e["prompt"], "expected_type": item["type"],
                       "produces": e["produces"], "acceptance": ["units stated"]} for i, e in enumerate(EXPERTS, 1)],
            "q_type": item["type"], "notes": "two steps: set up, then evaluate"}


def question_type(body: dict[str, Any]) -> dict[str, Any]:
    """The type the architecture names (this call sees no question)."""
    found = re.search(r'"q_type":\s*"(numeric|symbolic|textual)', role_text(body, "user"))
    return {"q_type": found.group(1) if found else "numeric", "format_hints": ""}


def parse(body: dict[str, Any]) -> dict[str, Any]:
    """The parser sees the prediction, the reference and the declared type (no question)."""
    text = role_text(body, "user")
    gt = re.search(r"Reference answer:\s*(.+)", text)
    kind = re.search(r"Declared answer type:\s*(numeric|symbolic|textual)", text)
    return {"pred_norm": _last_final(text) or text.split("<<<")[-1].split(">>>")[0].strip()[-200:],
            "gt_norm": gt.group(1).strip() if gt else "", "type": kind.group(1) if kind else "textual"}


def judge(body: dict[str, Any]) -> dict[str, Any]:
    text = role_text(body, "user")
    pred = re.search(r"Student answer \(normalised\):\s*(.+)", text)
    ref = re.search(r"Reference answer \(normalised\):\s*(.+)", text)
    p, g = (pred.group(1).strip() if pred else ""), (ref.group(1).strip() if ref else "")
    same = p.lower().strip(" .") == g.lower().strip(" .")
    return {"verdict": "correct" if same else "incorrect", "confidence": 0.9 if same else 0.8,
            "pred_extracted": p, "gt_extracted": g, "reason": "same answer" if same else "different answer"}


LABEL_KEYS = frozenset({"plan", "issues", "fix", "reason", "format_hints", "prompt", "notes"})

ANSWERS: dict[str, Any] = {
    "rws.verifier.parser": parse,
    "rws.verifier.judge": judge,
    "rws.single.answer": first_answer,
    "rws.hmaw.ceo": "Identify the relation, keep SI units, give one final line.",
    "rws.hmaw.manager": "1. List the knowns. 2. Apply the relation. 3. End with 'Final Answer: ...'.",
    "rws.hmaw.worker": first_answer,
    "rws.pace.planner": plan,
    "rws.pace.answer#retry": retry_answer,
    "rws.pace.answer": first_answer,
    "rws.pace.critic": review,
    "rws.pace.encloser": enclose,
    "rws.phase.planner": plan,
    "rws.phase.hypothesizer": HYPOTHESES,
    "rws.phase.analyzer": "Rearranged the relation and substituted.\nCandidate: see solver.",
    "rws.phase.solver#retry": retry_answer,
    "rws.phase.solver": first_answer,
    "rws.phase.evaluator": review,
    "rws.phase.finalizer": enclose,
    "rws.schema.architect": architecture,
    "rws.schema.allocator": allocation,
    "rws.schema.qtype": question_type,
    "rws.schema.expert": "Worked my step; values and units stated above.",
    "rws.schema.synthesizer#retry": retry_answer,
    "rws.schema.synthesizer": first_answer,
    "rws.schema.guard": review,
    "rws.schema.finalizer": enclose,
}
"""Answers by call name (see :mod:`ifworld.llm.wire`): ``#retry`` is a gated pattern's second attempt."""
