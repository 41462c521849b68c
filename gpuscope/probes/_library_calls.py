"""Calling a vendor library one field at a time, each call's value or error kept as JSON."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from gpuscope.model import JsonValue


def attempt_call(
    module: Any,
    call: str,
    args: tuple[Any, ...],
    convert: Callable[[Any], JsonValue],
    *,
    library: str,
    error_record: Callable[[BaseException], dict[str, JsonValue]],
    label: str | None = None,
) -> dict[str, JsonValue]:
    """`{"call", "value"}`, or `{"call", "error", "error_class", ...}`: one field's failure is
    evidence for that field, never the end of the probe."""
    record: dict[str, JsonValue] = {"call": label or call}
    function = getattr(module, call, None)
    if function is None:
        record.update(error=f"this {library} has no {call}", error_class="AttributeError")
        return record
    try:
        record["value"] = convert(function(*args))
    except Exception as exc:  # recorded with its class and code; the parse step explains it
        record.update(error_record(exc))
    return record


def as_dict(value: JsonValue) -> dict[str, JsonValue] | None:
    return value if isinstance(value, dict) else None


def as_str(value: JsonValue) -> str | None:
    return value if isinstance(value, str) else None


def as_int(value: JsonValue) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def recorded_field(
    record_set: Mapping[str, JsonValue],
    key: str,
    *,
    library: str,
    failure_reason: Callable[[Mapping[str, JsonValue]], str],
    no_record: str = "not read",
) -> tuple[JsonValue, str | None, str | None]:
    """The parse-side twin of `attempt_call`: (value, source call, reason it failed) of one
    recorded call."""
    record = as_dict(record_set.get(key))
    if record is None:
        return None, None, no_record
    source = as_str(record.get("call"))
    if "error" in record or "error_class" in record:
        return None, source, failure_reason(record)
    if "value" not in record:
        return None, source, f"{library} gave no value"
    return record.get("value"), source, None
