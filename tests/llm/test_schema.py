"""Schemas sent to models: standard JSON-Schema keywords only, every property required; empty replies fail."""

from __future__ import annotations

import importlib
import inspect
from typing import ClassVar, Literal

import pytest
from pydantic import BaseModel, Field

from ifworld.llm.schema import missing_content, nonstandard_keywords, sent_schema

STRUCTURED_MODULES = ("ifworld.whatif.schemas", "ifworld.rws.patterns.schemas", "ifworld.rws.verifier",
                      "ifworld.beliefs.llm_agents", "ifworld.llm.connection")


def structured_schemas() -> list[type[BaseModel]]:
    found = []
    for name in STRUCTURED_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError:
            continue
        found += [c for _, c in inspect.getmembers(module, inspect.isclass)
                  if issubclass(c, BaseModel) and c.__module__ == module.__name__]
    return found


def _objects(node, out):
    if isinstance(node, dict):
        if isinstance(node.get("properties"), dict) and node["properties"]:
            out.append(node)
        for v in node.values():
            _objects(v, out)
    elif isinstance(node, list):
        for v in node:
            _objects(v, out)
    return out


def test_every_structured_role_schema_sends_only_standard_keywords():
    schemas = structured_schemas()
    names = {s.__name__ for s in schemas}
    assert {"ExpertOutput", "Scenario", "Synthesis", "AgentReply", "Judgement"} <= names
    for schema in schemas:
        sent = sent_schema(schema)
        assert nonstandard_keywords(sent) == [], schema.__name__
        for obj in _objects(sent, []):
            assert obj["required"] == list(obj["properties"]), schema.__name__


class Hostile(BaseModel):
    kind: Literal["a", "b"]
    score: float = Field(0.5, ge=0, le=1, json_schema_extra={"x-ui": "slider"})
    tags: list[str] = []


def test_pydantic_extras_are_dropped_and_bounds_are_standard():
    raw = Hostile.model_json_schema()
    assert raw["properties"]["score"]["x-ui"] == "slider" and raw["required"] == ["kind"]
    sent = sent_schema(Hostile)
    assert sent["properties"]["score"] == {"default": 0.5, "maximum": 1, "minimum": 0, "type": "number"}
    assert sent["required"] == ["kind", "score", "tags"] and "title" not in sent
    assert sent["properties"]["tags"]["maxItems"] == 12  # a grammar cannot loop on items
    assert nonstandard_keywords(raw) == ["#/properties/score/x-ui"]
    sent["required"].clear()
    assert sent_schema(Hostile)["required"] == ["kind", "score", "tags"]  # callers get a copy


def test_missing_content():
    assert missing_content(Hostile, {"kind": "a"}) == []
    assert missing_content(Hostile, {"kind": ""}) == ["kind is empty"]
    assert missing_content(Hostile, {}) == ["kind is empty"]

    class Loose(BaseModel):
        REQUIRED_CONTENT: ClassVar[tuple[str, ...]] = ("text",)
        text: str = ""
        notes: list[str] = []

    assert missing_content(Loose, {"notes": ["x"]}) == ["text is empty"]

    class AllDefaults(BaseModel):
        a: str = ""
        b: list[int] = []

    assert missing_content(AllDefaults, {}) == ["every field is empty"]
    assert missing_content(AllDefaults, {"a": "  ", "b": []}) == ["every field is empty"]
    assert missing_content(AllDefaults, {"b": [0]}) == []


def test_free_text_is_bounded_in_the_grammar_but_not_in_the_prompt():
    jsonschema = pytest.importorskip("jsonschema")
    from ifworld.llm.schema import DEFAULT_MAX_LENGTH, shown_schema
    from ifworld.whatif.schemas import Synthesis

    sent = sent_schema(Synthesis)
    topic = sent["$defs"]["Conflict"]["properties"]["topic"]
    assert topic["maxLength"] == DEFAULT_MAX_LENGTH
    assert "maxLength" not in sent["$defs"]["Conflict"]["properties"]["kind"]  # an enum is bounded already
    assert sent["properties"]["consensus"]["minItems"] == 1
    # an independent validator reads the bound as we mean it: a looping string is refused, a paragraph passes
    reply = {k: [] for k in sent["properties"]}
    props = sent["$defs"]["ConsensusPoint"]["properties"]
    point = {k: ([] if v.get("type") == "array" else 0.5 if v.get("type") == "number" else "x")
             for k, v in props.items()}
    reply["consensus"] = [point | {"point": "y" * DEFAULT_MAX_LENGTH}]
    jsonschema.validate(reply, sent)
    reply["consensus"] = [point | {"point": ", ".join(map(str, range(400)))}]
    with pytest.raises(jsonschema.ValidationError, match="is too long"):
        jsonschema.validate(reply, sent)
    # the prompt shows the schema without the grammar's default bounds, keeping what tells the model to fill
    text = str(shown_schema(Synthesis))
    assert "maxLength" not in text and "maxItems" not in text and "'minItems': 1" in text
    assert shown_schema(Synthesis)["required"] == sent["required"]


def test_raw_control_characters_inside_strings_are_text():
    from ifworld.llm import extract_json

    assert extract_json('{"verdict": "line one\nline two\ttabbed"}') == {"verdict": "line one\nline two\ttabbed"}
    assert extract_json('noise {"a": "b\n"} tail') == {"a": "b\n"}
