"""Calling a vendor library one field at a time, each call's value or error kept as JSON."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from gpuscope.i18n import N_, message
from gpuscope.model import JsonValue, ProbeState, ProbeStatus
from gpuscope.probes.sourced import recorded_reason

# What `attempt_call` records when the binding lacks a call (a known reason when read back).
NO_SUCH_CALL = N_("this {library} has no {call}")


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
        record.update(error=NO_SUCH_CALL.format(library=library, call=call),
                      error_class="AttributeError")
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
    no_record: str = N_("not read"),
) -> tuple[JsonValue, str | None, str | None]:
    """The parse-side twin of `attempt_call`: (value, source call, reason it failed) of one
    recorded call. `no_record` is a constant marked with N_."""
    record = as_dict(record_set.get(key))
    if record is None:
        return None, None, message(no_record)
    source = as_str(record.get("call"))
    if "error" in record or "error_class" in record:
        return None, source, failure_reason(record)
    if "value" not in record:
        return None, source, message("{library} gave no value", library=library)
    return record.get("value"), source, None


@dataclass(frozen=True, slots=True)
class LibraryCalls:
    """`attempt_call` and `recorded_field` as one vendor library's probe words them."""

    probe: str  # the probe's name in its status
    binding: str  # the Python package, in "this <binding> has no <call>"
    library: str  # the library, in "<library> gave no value"
    error_record: Callable[[BaseException], dict[str, JsonValue]]
    failure_reason: Callable[[Mapping[str, JsonValue]], str]
    no_record: str  # marked with N_
    # The texts the collect step records as the probe's error (marked with N_), so that a
    # recorded reason reads back translatable.
    known_reasons: tuple[str, ...] = ()

    def attempt(self, module: Any, call: str, args: tuple[Any, ...],
                convert: Callable[[Any], JsonValue], label: str | None = None,
                ) -> dict[str, JsonValue]:
        return attempt_call(module, call, args, convert, library=self.binding,
                            error_record=self.error_record, label=label)

    def field(self, record_set: Mapping[str, JsonValue], key: str,
              ) -> tuple[JsonValue, str | None, str | None]:
        """(value, source call, reason it failed) of one recorded call."""
        return recorded_field(record_set, key, library=self.library,
                              failure_reason=self.failure_reason, no_record=self.no_record)

    def status(self, answer: JsonValue,
               hint: Callable[[Mapping[str, JsonValue], ProbeState], str | None]) -> ProbeStatus:
        """The probe's status as the collect step recorded it: OK, not captured, or a failure
        with its recorded reason and `hint(answer, state)`."""
        if not isinstance(answer, dict):
            return ProbeStatus(self.probe, ProbeState.ERROR,
                               message("{library}'s answer is not a JSON object",
                                       library=self.library))
        raw_state = answer.get("status")
        try:
            state = ProbeState(raw_state) if isinstance(raw_state, str) else ProbeState.ERROR
        except ValueError:
            return ProbeStatus(self.probe, ProbeState.ERROR,
                               message("unknown {library} status {state!r}",
                                       library=self.library, state=raw_state))
        if state is ProbeState.OK:
            return ProbeStatus(self.probe, state)
        if state is ProbeState.NOT_CAPTURED:
            return ProbeStatus(
                self.probe, state,
                message("{library} was not captured in this snapshot", library=self.library),
                message("Take a new snapshot on that machine to include {library}'s answer.",
                        library=self.library),
            )
        error = as_str(answer.get("error"))
        reason = (recorded_reason(error, *self.known_reasons) if error
                  else message("{library} unavailable ({state})", library=self.library,
                               state=state.value))
        return ProbeStatus(self.probe, state, reason, hint(answer, state))
