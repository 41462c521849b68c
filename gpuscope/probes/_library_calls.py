"""Calling a vendor library one field at a time, each call's value or error kept as JSON."""

from __future__ import annotations

from collections.abc import Callable
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
