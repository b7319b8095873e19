"""Validating a stored run record into its typed model, once, at the edge — shared by every engine.

The store keeps records as plain JSON; each engine has a lenient pydantic model of its record (unknown keys
ignored, missing sections defaulted, so records of earlier versions load) and a ``load_*`` function that
calls :func:`validate_record`. A record that still cannot be read raises :class:`RecordError`, whose message
names the run and the first offending field — instead of a ``KeyError`` deep inside a renderer.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from ifworld.errors import RecordError

__all__ = ["LenientModel", "RecordError", "validate_record"]

M = TypeVar("M", bound=BaseModel)


class LenientModel(BaseModel):
    """Base of stored-record models: unknown keys are ignored and a ``null`` reads as the field's default
    (earlier writers stored None for an absent value), so records of earlier versions load."""

    model_config = ConfigDict(extra="ignore")

    @model_validator(mode="before")
    @classmethod
    def _nulls_are_missing(cls, data: Any) -> Any:
        return {k: v for k, v in data.items() if v is not None} if isinstance(data, dict) else data



def validate_record(model: type[M], record: dict[str, Any] | M | None, *, run_id: str | None = None,
                    label: str = "run") -> M:
    """``record`` as a ``model`` (an empty one for ``None``; a ``model`` instance as it is). ``label`` names
    the kind in messages ("what-if", "RWS benchmark", …): ``"<label> run <id>: field <path>: <problem>"``."""
    if isinstance(record, model):
        return record
    if run_id is None and isinstance(record, dict) and isinstance(record.get("run_id"), str):
        run_id = record["run_id"]  # an exported record carries its id
    where = f"{label} run {run_id}" if run_id else f"{label} record"
    if record is not None and not isinstance(record, dict):
        raise RecordError(f"{where}: the record is a {type(record).__name__}, not an object", run_id)
    try:
        return model.model_validate(record or {})
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(map(str, first["loc"])) or "(record)"
        more = f" (and {exc.error_count() - 1} more problem(s))" if exc.error_count() > 1 else ""
        raise RecordError(f"{where}: field {field}: {first['msg']}{more}", run_id, field) from exc
