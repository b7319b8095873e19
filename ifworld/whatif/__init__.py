"""IF-World: cross-disciplinary what-if reasoning (engine only; never imports streamlit).

A vague counterfactual is refined into a structured scenario; a panel of domain experts analyses it in
parallel over rounds; a conflict resolver plus a pro/con debate build the shared frame of the next round; a
report generator writes a decision-centric report. Baselines (single, tree, debate) and a judge compare methods.

Front door: pages, ``ui/`` and the CLI import only the names in ``__all__`` (listed with their types in
``__init__.pyi``; loaded on first use, so importing this package is cheap). Modules:

- ``propositions`` — validation of a proposition, the paper's propositions, classroom presets.
- ``experts`` — expert domains as data (``prompts/whatif/experts/``): the ``whatif.experts`` registry, panels,
  personas; ``custom_experts`` — a facilitator's own experts kept with the run store (caller checked).
- ``run_params`` — the typed run parameters (``RunParams``: shared fields + each method's own, declared in its
  ``MethodSpec.params``): the one source of defaults, bounds, labels and help for page, CLI and record;
  ``params`` — ``default_params`` and the call estimate; ``progress`` — estimate and ETA.
- ``schemas`` — what a model returns (refined scenario, expert output, conflicts, report parts).
- ``records`` — the typed run record and progress events that cross to pages; ``load_record`` validates.
- ``agents`` — prompt assembly, one model call per role; ``frame`` — the shared frame between rounds.
- ``methods`` — the registry of what-if methods (``METHOD_REGISTRY``: IF-World and the baselines, in
  ``builtin_methods``; a new method is one module, see docs/extending.md).
- ``graph`` — the IF-World LangGraph; ``baselines`` — single, tree and debate graphs; ``workflows`` —
  their registration with ``ifworld.runs``; ``service`` — running and loading runs for CLI and pages.
- ``session`` — the session's states and legal transitions (page, CLI and workshop call the same ones).
- ``workshop``, ``workshop_models``, ``workshop_export`` — the room: joining by device, predictions,
  contributions, votes and the facilitator's decisions (every facilitator action takes the caller,
  :mod:`ifworld.access`), the folded event log, the reveal and the export section; ``workshop_roster`` — roster
  mode (a class list, one personal code per student, one device each).
- ``room`` — one typed room contribution from the phone page to the prompt, fenced and escaped as data.
- ``review`` — human-in-the-loop pauses (review of the scenario, contributions between rounds).
- ``report``, ``export``, ``consistency`` — the report, its exports and its deterministic checks.
- ``budget`` — matched token budgets of the tree and debate baselines (§3.1).
- ``rubric`` — the judge's rubric (§3.2) and the blinding every method's text goes through; ``judge``,
  ``evaluate``, ``compare`` — the rubric judge, the evaluation harness (matched token budgets), side-by-side
  comparison;
  ``steps`` — replay steps named in the user's words (checkpoint history and saved records).
- ``causal``, ``figures``, ``numbers`` — the causal map, charts and the one number formatter.
- ``cli`` — ``ifworld whatif …``.
"""

import lazy_loader as _lazy

from ifworld.llm.demo_answers import add_source as _add_demo_source, spec_answers as _spec_answers
from ifworld.llm.demo_answers.whatif import ExpertWords as _ExpertWords, use_expert_words as _use_expert_words

__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)


def _demo_words(domain: str) -> _ExpertWords | None:
    from ifworld.whatif.experts import demo_words

    return demo_words(domain)


def _demo_panel() -> list[str]:
    from ifworld.whatif.experts import default_experts

    return default_experts()


# The model layer imports no engine: this package hands the demo model its experts' words (read on first use,
# so this stays cheap) — in the app, the CLI (``ifworld demo-server`` too: the command mounts ``whatif``) and tests.
_use_expert_words(_demo_words, _demo_panel)


def _method_demo_answers() -> list[tuple[str, object]]:
    from ifworld.whatif.method_spec import REGISTRY

    return [row for spec in REGISTRY for row in _spec_answers(f"whatif.{spec.name}", spec.demo_answer)]


# The demo model answers a method's roles with what its spec declares (``demo_answer``), asked per request.
_add_demo_source(_method_demo_answers)
