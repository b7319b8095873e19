"""Prompt files: strict rendering, inheritance, section references, and the shared-prefix layout."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

from ifworld import prompts
from ifworld.whatif import service
from ifworld.whatif.params import default_params
from ifworld.whatif.propositions import DEFAULT_EXPERTS

PREFIX_TARGET = 0.80


@pytest.fixture
def tmp_prompts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(prompts, "prompts_dir", lambda: tmp_path)
    prompts.load.cache_clear()
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "common.yaml").write_text("system: |\n  Shared rules for {topic}.\n")
    (tmp_path / "t" / "role.yaml").write_text(
        "base: t/common\nuser: |\n  Body {x}.\n\n  {role}\nrole: |\n  You are {who}. Braces {{kept}}.\n"
        "user_retry: |\n  Again {x}: {fix}\n")
    yield tmp_path
    prompts.load.cache_clear()


def test_messages_inherit_system_and_fill_section_references(tmp_prompts):
    msgs = prompts.messages("t/role", topic="tides", x=1, who="the critic")
    assert msgs == [("system", "Shared rules for tides."), ("user", "Body 1.\n\nYou are the critic. Braces {kept}.")]
    assert prompts.fields("t/role") == {"x", "who"} and prompts.sections("t/role") == ["role", "system", "user",
                                                                                       "user_retry"]
    assert prompts.messages("t/role", "user_retry", topic="t", x=2, fix="f")[1] == ("user", "Again 2: f")


@pytest.mark.parametrize("values, message", [
    ({"topic": "t", "x": 1}, r"needs \['who'\]"),
    ({"topic": "t", "x": 1, "who": "w", "typo": 2}, r"does not use \['typo'\]"),
    ({"topic": "t", "x": 1, "who": "w", "fix": "f"}, r"does not use \['fix'\]"),  # fix belongs to user_retry
])
def test_rendering_is_strict(tmp_prompts, values, message):
    with pytest.raises(prompts.PromptError, match=message):
        prompts.messages("t/role", **values)


def test_bad_files_and_names_are_clear_errors(tmp_prompts):
    with pytest.raises(prompts.PromptError, match="no prompt 't/missing'"):
        prompts.load("t/missing")
    with pytest.raises(prompts.PromptError, match="no section 'user_nope'"):
        prompts.messages("t/role", "user_nope", topic="t", x=1, who="w")
    (tmp_prompts / "t" / "list.yaml").write_text("- a\n- b\n")
    with pytest.raises(prompts.PromptError, match="must map section names"):
        prompts.load("t/list")
    (tmp_prompts / "t" / "loop.yaml").write_text("base: t/loop\nuser: x\n")
    with pytest.raises(prompts.PromptError, match="deeper than"):
        prompts.load("t/loop")


def test_shipped_prompts_are_found_through_resources():
    from ifworld.resources import prompts_dir

    assert prompts.names("whatif") and all((prompts_dir() / f"{n}.yaml").is_file() for n in prompts.names())
    assert not list(prompts_dir().rglob("*.txt")), "prompts are one YAML file per role"


def test_role_text_comes_after_everything_shared():
    """In every IF-World / RWS user section the role part is the last placeholder (shared text first)."""
    for name in prompts.names("whatif") + prompts.names("rws"):
        secs = prompts.load(name)
        for sec in (s for s in secs if s.startswith("user")):
            refs = [f for f in prompts._placeholders(secs[sec]) if f.startswith("role")]
            if refs:
                assert secs[sec].rstrip().endswith("{" + refs[0] + "}") or name == "whatif/expert", (name, sec)


def test_experts_of_a_round_share_most_of_their_prompt(settings, store, fake_server):
    """9 experts x 2 rounds against the fake server: ≥ 80 % of each expert request is a prefix the round's
    experts share byte for byte (the role, domain and own digest come last)."""
    params = default_params("What if the Moon disappeared overnight?", "ifworld", experts=list(DEFAULT_EXPERTS),
                            rounds=2)
    service.run(params, settings=settings.model_copy(update={"max_concurrency": 9}), store=store)
    by_round: dict[int, list[str]] = defaultdict(list)
    for r in fake_server.requests:
        if r.role == "whatif.expert":
            by_round[2 if "<shared_frame>" in str(r.body) else 1].append(prompts.flatten(r.body["messages"]))
    assert sorted(len(v) for v in by_round.values()) == [9, 9]
    for texts in by_round.values():
        shared = prompts.shared_prefix(texts)
        assert min(shared / len(t) for t in texts) >= PREFIX_TARGET
