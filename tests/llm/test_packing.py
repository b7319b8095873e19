"""The one packer (:mod:`ifworld.llm.packing`): whole when it fits, shortened in proportion across every part and
item when not (never "the first section that does not fit ends the text"), headings and first items kept, the
shortening said in the prompt and in the report, and a clear error when even that cannot fit."""

from __future__ import annotations

import random

import pytest

from ifworld.config import load_settings
from ifworld.llm import ContextTooSmall, ContextWindow, Joined, Part, Section, pack_messages, section
from ifworld.llm.context import estimate_tokens
from ifworld.llm.packing import FIRST_ITEM_MIN_CHARS, TokenCounter

TEMPLATE = "whatif/resolver"  # any prompt file with placeholders will do; the resolver's has two parts
COUNTER = TokenCounter(name="estimate", exact=False, count_fn=estimate_tokens)
rng = random.Random(7)


def _item(tag: str, n: int) -> str:
    return f"{tag} " + " ".join(rng.choice(["grid", "tide", "price", "harvest", "policy"]) for _ in range(n))


def _expert(name: str, items: int, words: int) -> Part:
    return Part(f"expert:{name}", (Section(f"[{name}]"),
                                   *(section(h, [_item(f"{name}-{h}-{i}", words) for i in range(items)])
                                     for h in ("Verdict", "Conclusions", "Assumptions", "Uncertainties"))),
                joiner="\n", label=f"{name} expert's output")


def _pack(window: int, parts: dict, max_tokens: int = 500):
    settings = load_settings({"base_url": "http://127.0.0.1:9/v1", "role_max_tokens": {"whatif.resolver": max_tokens}})
    fixed = {"proposition_block": "<proposition>What if?</proposition>", "round": 1, "room": "", "failed": "none"}
    return pack_messages("whatif.resolver", TEMPLATE, settings, parts, fixed,
                         window=ContextWindow(tokens=window, source="test"), counter=COUNTER)


def _parts(sizes: dict[str, tuple[int, int]]) -> dict:
    experts = [_expert(n, items, words) for n, (items, words) in sizes.items()]
    scenario = Part("scenario", (section("Premises", [_item("premise", 30) for _ in range(5)]),), label="scenario")
    return {"scenario": scenario, "outputs": Joined(tuple(experts))}


def test_everything_whole_when_it_fits():
    parts = _parts({"physics": (6, 40), "economics": (6, 40)})
    msgs, report = _pack(100_000, parts)
    text = msgs[1][1]
    assert not report.trimmed and all(p.share == 1.0 for p in report.parts)
    for slot in parts.values():
        for part in getattr(slot, "parts", (slot,)):
            for sec in part.sections:
                assert all(item in text for item in sec.items)
    assert "Shortened" not in text and text.count("\n---\n") == 1


def test_shortened_in_proportion_with_headings_and_first_items_kept():
    parts = _parts({"physics": (8, 60), "economics": (4, 60), "medicine": (8, 20)})
    whole = _pack(100_000, parts)[1].prompt_tokens
    msgs, report = _pack(whole // 2 + 500, parts)
    text = msgs[1][1]
    shares = report.shares()
    assert report.trimmed and report.prompt_tokens + 500 <= whole // 2 + 500
    experts = {k: v for k, v in shares.items() if k.startswith("expert:")}
    assert max(experts.values()) - min(experts.values()) < 0.2, experts  # one factor, not first-come-first-served
    assert all(0.2 < v < 1.0 for v in experts.values())
    for name in ("physics", "economics", "medicine"):
        for heading in ("Verdict:", "Conclusions:", "Assumptions:", "Uncertainties:"):
            assert f"{heading}\n- {name}-{heading[:-1]}-0" in text  # every heading, then its first item
    assert text.startswith("<proposition>") or "[Shortened to fit the model's context window of" in text
    assert "[Shortened to fit the model's context window of" in text and "physics expert's output" in text


def test_a_first_item_is_never_cut_below_its_floor():
    long_first = Part("x", (section("Notes", ["A" * 2_000] + [_item("n", 50) for _ in range(10)]),), label="x")
    msgs, report = _pack(1_400, {"scenario": long_first, "outputs": Joined(())}, max_tokens=200)
    assert "A" * (FIRST_ITEM_MIN_CHARS - 5) in msgs[1][1] and report.trimmed


def test_a_window_too_small_for_the_minimum_is_a_clear_error():
    parts = _parts({f"d{i}": (8, 60) for i in range(12)})
    with pytest.raises(ContextTooSmall, match=r"context window is 1,200 tokens \(test\).*llama.cpp: -c"):
        _pack(1_200, parts)
