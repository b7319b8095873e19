"""RWS dataset: the item schema, a forgiving JSONL/JSON loader and grouping of multi-part problems.

The loader never crashes on a bad upload: every unusable line is reported with its 1-based line number
and the reason, and the good lines are kept, so a page or the CLI can show both at once.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ifworld.errors import DatasetError
from ifworld.files import FileTooLarge, read_bounded
from ifworld.limits import MAX_UPLOAD_BYTES

MAX_DATASET_BYTES = MAX_UPLOAD_BYTES  # one cap for pages and engine: 50,000,000 bytes
"""Uploads larger than this are refused outright (the whole file would sit in memory)."""

ItemType = Literal["numeric", "symbolic", "textual"]
_TYPE_ALIASES = {"text": "textual", "numerical": "numeric", "number": "numeric", "expression": "symbolic"}


class DatasetTooLarge(DatasetError):
    """Raised when a dataset exceeds :data:`MAX_DATASET_BYTES`."""


class HubUnavailable(DatasetError, RuntimeError):
    """Loading by hub name needs the optional ``datasets`` package (and network); load a file instead."""


class RWSItem(BaseModel):
    """One RWS question: a (sub-)question, its reference reasoning and ground-truth final answer."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    id: str = Field(min_length=1)
    q_id: int
    sub_id: str = ""
    preamble: list[str] = Field(default_factory=list)
    question: str = Field(min_length=1)
    hint: str = ""
    step: list[str] = Field(default_factory=list)
    final: str = Field(min_length=1)
    type: ItemType
    meta: dict[str, Any] = Field(default_factory=dict)

    @field_validator("type", mode="before")
    @classmethod
    def _alias_type(cls, value: Any) -> Any:
        """Accept "text" (used by the original RWS release) and a few other spellings."""
        if isinstance(value, str):
            low = value.strip().lower()
            return _TYPE_ALIASES.get(low, low)
        return value

    @field_validator("sub_id", "id", "final", "question", mode="before")
    @classmethod
    def _number_as_text(cls, value: Any) -> Any:
        """Text fields accept JSON numbers (``sub_id: 1``, ``id: 7``, ``final: 72``) the way ``q_id`` accepts
        ``"2"``; a null sub_id means none. Booleans are not numbers here."""
        if value is None:
            return ""
        if isinstance(value, bool):
            return value
        return str(value) if isinstance(value, (int, float)) else value

    @field_validator("hint", mode="before")
    @classmethod
    def _none_hint(cls, value: Any) -> Any:
        """A JSON null hint means no hint."""
        return "" if value is None else value

    @field_validator("step", "preamble", mode="before")
    @classmethod
    def _str_to_list(cls, value: Any) -> Any:
        """A single string where a list is expected is taken as a one-element list."""
        if value is None:
            return []
        return [value] if isinstance(value, str) else value

    @property
    def source_id(self) -> str:
        """The problem's source id: the item id without its trailing question/sub-question parts."""
        parts = self.id.split("_")
        if len(parts) >= 3 and parts[-2].isdigit():
            return "_".join(parts[:-2])
        if len(parts) >= 2 and parts[-1].isdigit():
            return "_".join(parts[:-1])
        return str(self.meta.get("source_id", self.id))


class LineError(BaseModel):
    """One unusable line of an upload: where it is and why it was skipped."""

    model_config = ConfigDict(frozen=True)

    line: int
    reason: str


class LoadResult(BaseModel):
    """What a load produced: the good items, the bad lines and the ids seen more than once."""

    items: list[RWSItem] = Field(default_factory=list)
    errors: list[LineError] = Field(default_factory=list)
    duplicates: list[str] = Field(default_factory=list)
    gold_problems: list[LineError] = Field(default_factory=list)
    """Items kept but whose gold answer cannot be graded for its declared type (they would be unscored)."""

    @property
    def ok(self) -> bool:
        """True when every line loaded and no id was duplicated."""
        return not self.errors and not self.duplicates


def _read_bytes(source: str | bytes | Path) -> bytes:
    """Return raw bytes from a path, raw bytes, or text already in memory."""
    if isinstance(source, bytes):
        data = source
    elif isinstance(source, Path) or (isinstance(source, str) and "\n" not in source and len(source) < 4096
                                      and Path(source).is_file()):
        try:
            data = read_bounded(source, MAX_DATASET_BYTES, what="dataset", limit_name="MAX_DATASET_BYTES")
        except FileTooLarge as exc:
            raise DatasetTooLarge(str(exc)) from None
    else:
        data = source.encode("utf-8")
    if len(data) > MAX_DATASET_BYTES:
        raise DatasetTooLarge(f"dataset is larger than the {MAX_DATASET_BYTES:,}-byte limit")
    return data


def _schema_reason(exc: ValidationError) -> str:
    """Condense a pydantic error into one readable line."""
    parts = []
    for err in exc.errors()[:3]:
        loc = ".".join(str(p) for p in err["loc"]) or "item"
        parts.append(f"{loc}: {err['msg']}")
    return "schema error: " + "; ".join(parts)


def _validate_record(obj: Any, line: int, model: type[BaseModel], out: list, errors: list) -> None:
    """Validate one decoded record, appending either the model or a LineError."""
    if not isinstance(obj, dict):
        errors.append(LineError(line=line, reason=f"expected a JSON object, got {type(obj).__name__}"))
        return
    try:
        out.append((line, model.model_validate(obj)))
    except ValidationError as exc:
        errors.append(LineError(line=line, reason=_schema_reason(exc)))
    except RecursionError:
        errors.append(LineError(line=line, reason="nested too deeply"))


def _decode(text: str) -> Any:
    """json.loads that turns Python's own limits into ValueError with a readable reason.

    A line nested 200,000 levels deep raises RecursionError, an integer over 4,300 digits a bare
    ValueError — both must become that line's error, never a crash of the whole load.
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DatasetError(f"bad JSON: {exc.msg} at column {exc.colno}") from exc
    except RecursionError as exc:
        raise DatasetError("bad JSON: nested too deeply") from exc
    except ValueError as exc:
        if "digits" in str(exc):
            raise DatasetError("bad JSON: an integer with more than 4,300 digits") from exc
        raise DatasetError(f"bad JSON: {str(exc)[:120]}") from exc


def parse_records(source: str | bytes | Path, model: type[BaseModel]) -> tuple[list, list[LineError]]:
    """Decode JSONL (or a JSON array) into validated models, keeping (line, model) pairs and errors.

    Shared by the item loader and the predictions loader so both report bad lines the same way.
    """
    data = _read_bytes(source)
    if data.startswith(b"\xef\xbb\xbf"):  # a UTF-8 byte-order mark must not cost line 1
        data = data[3:]
    good: list = []
    errors: list[LineError] = []
    stripped = data.lstrip()
    if stripped.startswith(b"["):
        try:
            records = _decode(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            return [], [LineError(line=1, reason=f"bad JSON array: {exc}")]
        if not isinstance(records, list):
            return [], [LineError(line=1, reason="bad JSON array: not a list")]
        for index, obj in enumerate(records, start=1):
            _validate_record(obj, index, model, good, errors)
        return good, errors
    if stripped.startswith(b"{") and b"\n" in stripped.rstrip():
        try:
            whole = _decode(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            whole = None
        if isinstance(whole, dict):  # one pretty-printed object: say so once instead of once per line
            return [], [LineError(line=1, reason="the file is a single JSON object spread over several lines, "
                                  "not JSONL: put one item per line, or wrap the items in a JSON array")]
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            errors.append(LineError(line=number, reason=f"not UTF-8: byte {exc.start} ({exc.reason})"))
            continue
        try:
            obj = _decode(text)
        except ValueError as exc:
            errors.append(LineError(line=number, reason=str(exc)))
            continue
        _validate_record(obj, number, model, good, errors)
    return good, errors


def load_items(source: str | bytes | Path, check_gold: bool = False) -> LoadResult:
    """Load RWS items from a JSONL/JSON file path, raw bytes or text (e.g. a page upload).

    Bad lines are reported (line number + reason) and skipped; for duplicate ids the first is kept.
    With `check_gold`, every gold answer is graded against itself in the grading worker and those that
    cannot be graded for their declared type are listed in ``gold_problems`` with their line numbers
    (the items are kept; they would grade not_sure). Raises :class:`DatasetTooLarge` above
    :data:`MAX_DATASET_BYTES`.
    """
    good, errors = parse_records(source, RWSItem)
    seen: set[str] = set()
    items: list[RWSItem] = []
    lines: dict[str, int] = {}
    duplicates: list[str] = []
    for line, item in good:
        if item.id in seen:
            duplicates.append(item.id)
            errors.append(LineError(line=line, reason=f"duplicate id {item.id!r} (first kept)"))
            continue
        seen.add(item.id)
        items.append(item)
        lines[item.id] = line
    problems = gold_problems(items, lines) if check_gold else []
    return LoadResult(items=items, errors=errors, duplicates=duplicates, gold_problems=problems)


GOLD_CHECK_TIMEOUT_S = 60.0
"""Budget for checking every gold answer of an upload (one worker request)."""


def gold_problems(items: list[RWSItem], lines: dict[str, int] | None = None) -> list[LineError]:
    """Gold answers that do not grade as correct against themselves, with line numbers (or 1-based index)."""
    from ifworld.rws.grading.sandbox import run_validate  # the worker: sympy never enters this process

    if not items:
        return []
    reply = run_validate([(item.type, item.final) for item in items], GOLD_CHECK_TIMEOUT_S)
    if reply is None:
        return [LineError(line=0, reason=f"gold answers not checked: over {GOLD_CHECK_TIMEOUT_S:g} s")]
    out = []
    for index, reason in reply.get("problems", []):
        item = items[int(index)]
        where = (lines or {}).get(item.id, int(index) + 1)
        out.append(LineError(line=where, reason=f"gold answer of {item.id!r} ({item.type}) cannot be graded: "
                                                f"{reason}"))
    return out


def _sub_key(sub_id: str) -> tuple[int, str]:
    """Order sub-questions "a" < "b" < … and "1" < "2" < "10"."""
    return (int(sub_id), "") if sub_id.isdigit() else (len(sub_id), sub_id)


def group_items(items: list[RWSItem]) -> OrderedDict[tuple[str, int], list[RWSItem]]:
    """Group items by (source id, q_id), sub-questions in order, so multi-part problems stay linked."""
    groups: OrderedDict[tuple[str, int], list[RWSItem]] = OrderedDict()
    for item in items:
        groups.setdefault((item.source_id, item.q_id), []).append(item)
    for key, members in groups.items():
        groups[key] = sorted(members, key=lambda it: _sub_key(it.sub_id))
    return groups


def load_hub(name: str, split: str = "test") -> LoadResult:
    """Load an RWS-schema dataset from the Hugging Face hub by name (optional, needs `datasets` + network).

    Raises :class:`HubUnavailable` (a ``RuntimeError``) with a clear message when the `datasets` package is not
    installed.
    """
    try:
        import datasets  # noqa: PLC0415 - optional dependency, imported only when asked for
    except ImportError as exc:
        raise HubUnavailable(
            "loading by hub name needs the optional 'datasets' package (pip install datasets) and network "
            "access; download the JSONL yourself and load it from a file instead"
        ) from exc
    rows = datasets.load_dataset(name, split=split)
    text = "\n".join(json.dumps(dict(row), default=str) for row in rows)
    return load_items(text.encode("utf-8"))
