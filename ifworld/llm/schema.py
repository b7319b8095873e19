"""The JSON schema *sent* to a model for a pydantic output type, and the check that a reply has content.

Parsing stays lenient (the pydantic models coerce and default), but what we send is strict about shape:

- only standard JSON-Schema keywords (servers turn the schema into a grammar; an unknown keyword is at best
  ignored, at worst a 400/500), and no ``title`` noise (it costs prompt tokens and says nothing);
- every property of every object is ``required``, so a grammar-constrained model cannot answer ``{}``;
- arrays without a bound get ``maxItems`` (:data:`DEFAULT_MAX_ITEMS`) and free-text strings ``maxLength``
  (:data:`DEFAULT_MAX_LENGTH`): servers that turn the schema into a grammar (llama.cpp, vLLM) then cannot
  let a small model loop on list items, or inside one string ("1, 2, 3, … 100, …" was seen with a 270M
  model), until the token bound; the grammar closes the string and the reply goes on. llama-cpp-python
  unrolls ``maxLength`` into nested optional groups; 20 fields at 1,000 still worked and generated as fast.

A reply that validates but leaves the content the product needs empty is still a failed call
(:func:`missing_content`): the caller repairs, then retries, instead of reporting an empty success.
A schema class may name that content in ``REQUIRED_CONTENT: ClassVar[tuple[str, ...]]``; without it the
fields pydantic itself requires are checked, and a reply whose every field is empty always fails.
"""

from __future__ import annotations

import copy
from functools import lru_cache
from typing import Any

from pydantic import BaseModel

STANDARD_KEYWORDS = frozenset({
    # core
    "$schema", "$id", "$ref", "$defs", "$anchor", "$dynamicRef", "$dynamicAnchor", "$comment", "definitions",
    # applicators
    "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "prefixItems", "items",
    "contains", "properties", "patternProperties", "additionalProperties", "propertyNames",
    "unevaluatedItems", "unevaluatedProperties",
    # validation
    "type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
    "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxContains", "minContains",
    "maxProperties", "minProperties", "required", "dependentRequired",
    # format and annotations
    "format", "title", "description", "default", "deprecated", "readOnly", "writeOnly", "examples",
    "contentEncoding", "contentMediaType", "contentSchema",
})
DROPPED = frozenset({"title"})
DEFAULT_MAX_ITEMS = 12
DEFAULT_MAX_LENGTH = 600  # characters, ~120 words: a paragraph, far above what one field needs
_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_ONE = ("items", "not", "if", "then", "else", "contains", "additionalProperties", "propertyNames",
        "unevaluatedItems", "unevaluatedProperties", "contentSchema")


def sent_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema to send for ``model``: standard keywords only, every object property required."""
    return copy.deepcopy(_sent(model))


@lru_cache(maxsize=128)
def _sent(model: type[BaseModel]) -> dict[str, Any]:
    schema: dict[str, Any] = _clean(model.model_json_schema())
    # Content the product needs must be non-empty in the grammar itself: a grammar-constrained small model
    # otherwise answers every list with [] (seen on llama.cpp with a 270M model), which only fails later.
    for name in required_content(model) if getattr(model, "REQUIRED_CONTENT", None) else ():
        prop = schema.get("properties", {}).get(name)
        if isinstance(prop, dict) and prop.get("type") == "array":
            prop["minItems"] = max(1, prop.get("minItems", 0))
        elif isinstance(prop, dict) and prop.get("type") == "string":
            prop["minLength"] = max(1, prop.get("minLength", 0))
    return schema


def shown_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The schema as written into the prompt: the sent one without the default bounds, which are there for
    the grammar (a model does not need them to answer, and on every string they cost ~400 prompt tokens)."""
    shown: dict[str, Any] = _without_bounds(sent_schema(model))
    return shown


def _without_bounds(node: Any) -> Any:
    if isinstance(node, list):
        return [_without_bounds(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {k: _without_bounds(v) for k, v in node.items()}
    if out.get("maxItems") == DEFAULT_MAX_ITEMS:
        del out["maxItems"]
    if out.get("maxLength") == DEFAULT_MAX_LENGTH:
        del out["maxLength"]
    return out


def _clean(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key not in STANDARD_KEYWORDS or key in DROPPED:
            continue
        if key in _MAPS and isinstance(value, dict):
            out[key] = {k: _clean(v) for k, v in value.items()}
        elif key in _LISTS and isinstance(value, list):
            out[key] = [_clean(v) for v in value]
        elif key in _ONE:
            out[key] = _clean(value)
        else:
            out[key] = value
    if isinstance(out.get("properties"), dict) and out["properties"]:
        out["required"] = list(out["properties"])
    kind = out.get("type")
    if kind == "array" and "maxItems" not in out:
        out["maxItems"] = max(DEFAULT_MAX_ITEMS, out.get("minItems", 0))
    if kind == "string" and not ({"maxLength", "enum", "const", "format", "pattern"} & out.keys()):
        out["maxLength"] = max(DEFAULT_MAX_LENGTH, out.get("minLength", 0))
    return out


def nonstandard_keywords(schema: Any, path: str = "#") -> list[str]:
    """Paths of keywords in a schema that are not standard JSON Schema (for tests and diagnostics)."""
    found: list[str] = []
    if not isinstance(schema, dict):
        return found
    for key, value in schema.items():
        here = f"{path}/{key}"
        if key not in STANDARD_KEYWORDS:
            found.append(here)
        elif key in _MAPS and isinstance(value, dict):
            for k, v in value.items():
                found += nonstandard_keywords(v, f"{here}/{k}")
        elif key in _LISTS and isinstance(value, list):
            for i, v in enumerate(value):
                found += nonstandard_keywords(v, f"{here}/{i}")
        elif key in _ONE:
            found += nonstandard_keywords(value, here)
    return found


def required_content(model: type[BaseModel]) -> tuple[str, ...]:
    """Fields (by their JSON names) whose emptiness makes a reply a failed call."""
    named = getattr(model, "REQUIRED_CONTENT", None)
    fields = model.model_fields
    names = named if named is not None else tuple(n for n, f in fields.items() if f.is_required())
    return tuple((fields[n].alias or n) if n in fields else n for n in names)


def is_empty(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, str):
        return not value.strip()
    if isinstance(value, list | dict | tuple | set):
        return len(value) == 0
    return False


def missing_content(model: type[BaseModel], data: Any) -> list[str]:
    """Why a parsed reply has no usable content (empty list = it has). ``data`` is the raw JSON value."""
    if not isinstance(data, dict):
        return []  # not an object: validation reports it
    missing = [name for name in required_content(model) if is_empty(data.get(name))]
    if missing:
        return [f"{name} is empty" for name in missing]
    keys = {(f.alias or n) for n, f in model.model_fields.items()}
    if keys and all(is_empty(data.get(k)) for k in keys):
        return ["every field is empty"]
    return []
