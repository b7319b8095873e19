"""AppTest: a what-if run shows what each agent read (issue #39) — per round, a warning when a core role read less
than all of its input, and where the tokens went per role; the exports carry the same lines."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from ifworld.whatif.export import record_markdown
from ifworld.whatif.reading import readings, short_reads, tokens_by_role


def _call(role: str, rnd: int, shares: dict[str, float], window: int = 131_072, source: str = "server") -> dict:
    parts = {name: {"label": name if not name.startswith("expert:") else f"{name[7:]} expert's output",
                    "share": share, "tokens": 100} for name, share in shares.items()}
    return {"role": role, "round": rnd, "prompt_tokens": 1000, "completion_tokens": 200, "status": "ok",
            "inputs": {"window": window, "window_source": source, "counter": "test", "budget": 1,
                       "prompt_tokens": 1000, "parts": parts}}


def record(trimmed: bool) -> dict:
    share = 0.62 if trimmed else 1.0
    calls = [_call("whatif.expert", 1, {"scenario": 1.0}),
             _call("whatif.resolver", 1, {"scenario": 1.0, "expert:physics": share, "expert:economics": 1.0},
                   window=8_192 if trimmed else 131_072),
             _call("whatif.report.core", 1, {"frames": 1.0})]
    expert = {"verdict": "v", "domain": "physics"}
    return {"proposition": "What if the Moon disappeared?", "method": "ifworld", "calls": calls,
            "rounds": [{"round": 1, "experts": {"physics": expert, "economics": {**expert, "domain": "economics"}},
                        "failed": {}, "frame": None, "debate": None}], "usage": {"calls": 3}}


def _page(trimmed: bool) -> None:
    from tests.pages.test_what_each_agent_read import record
    from ui.whatif_view import render_whatif_record

    render_whatif_record(record(trimmed), "t")


def test_the_sentences_say_who_read_what() -> None:
    whole = {r.role: r.sentence() for r in readings(record(False)["calls"])}
    assert whole["whatif.resolver"] == "Round 1 — conflict resolver read 100 % of: 2 experts' outputs and scenario."
    (short,) = short_reads(record(True)["calls"])
    assert short.sentence() == ("Round 1 — conflict resolver read 2 experts' outputs and scenario, trimmed to 62 % "
                                "(the least kept part) to fit a context window of 8,192 tokens (server).")
    assert [(r.role, r.calls, r.prompt_tokens) for r in tokens_by_role(record(False)["calls"])][0][1:] == (1, 1000)


def test_a_whole_run_says_so_per_round_without_a_warning() -> None:
    at = AppTest.from_function(_page, args=(False,), default_timeout=30).run()
    assert not at.exception, at.exception
    captions = " ".join(c.value for c in at.caption)
    assert "What each agent read: Round 1 — experts read 100 % of: scenario." in captions
    assert not [w for w in at.warning if "read less" in w.value or "trimmed" in w.value]
    assert "Where the tokens went (by role)" in [e.label for e in at.expander]


def test_a_trimmed_run_warns_above_the_report_and_in_its_round() -> None:
    at = AppTest.from_function(_page, args=(True,), default_timeout=30).run()
    assert not at.exception, at.exception
    warnings = [w.value for w in at.warning]
    assert any(w.startswith("Some agents read less than all of their input") for w in warnings)
    assert any("trimmed to 62 %" in w and "8,192 tokens" in w for w in warnings)


def test_the_export_carries_what_each_agent_read() -> None:
    text = record_markdown(record(True))
    assert "## What each agent read" in text and "**Warning:** 1 core step(s) read less" in text
    assert "trimmed to 62 %" in text
    assert "## What each agent read" in record_markdown(record(False))
