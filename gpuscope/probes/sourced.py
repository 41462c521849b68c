"""A value with its source, or the reason it is missing: the one way every probe and reader
says where a value came from.

`sourced` builds one live reading (`Raw`) for the telemetry readers; `SightingBuilder`
collects a GPU's facts with their sources and the reasons for the missing ones, for the
inventory probes.
"""

from __future__ import annotations

import functools
import re
import string
from typing import Any

from gpuscope.i18n import join, message
from gpuscope.metrics import Raw
from gpuscope.model import GpuFacts, GpuSighting, Layer, ProbeResult, ProbeState, ProbeStatus


def sourced(value: float | None, source: str, why_missing: str) -> Raw:
    """(value, source) when there is a value, else (None, "<source>: <why_missing>")."""
    return ((value, source) if value is not None
            else (None, message("{source}: {reason}", source=source, reason=why_missing)))


def probe_bug(name: str, reason: str) -> ProbeResult:
    """A probe's own failure as its status (a probe never raises), asking for a report."""
    return ProbeResult(ProbeStatus(
        name, ProbeState.ERROR, reason=reason,
        hint=message("this is a gpuscope bug; please report it with a snapshot (gpuscope "
                     "snapshot)")))


def error_text(exc: BaseException) -> str:
    """An exception as a reason: "TypeError: ...", in every language (a message, so that a
    reason built from it stays translatable)."""
    return message("{error}", error=f"{type(exc).__name__}: {exc}")


def recorded_reason(text: str, *known: str) -> str:
    """A reason as a snapshot recorded it (in English): translatable when it is one of the
    `known` templates (constants marked with N_, "{name}" parts matching anything), else the
    machine's or the library's own words, as they are."""
    for template in known:
        match = _template_pattern(template).fullmatch(text)
        if match is not None:
            return message(template, **match.groupdict())
    return message("{error}", error=text)


@functools.lru_cache(maxsize=256)
def _template_pattern(template: str) -> re.Pattern[str]:
    pattern = []
    for literal, name, _spec, _conversion in string.Formatter().parse(template):
        pattern.append(re.escape(literal))
        if name:
            pattern.append(f"(?P<{name}>.*?)")
    return re.compile("".join(pattern), re.DOTALL)


class SightingBuilder:
    """One GPU's facts as a probe finds them: each value with its source, each missing field
    with the reason. A field that has a value never also has a reason."""

    def __init__(self, layer: Layer) -> None:
        self.layer = layer
        self.values: dict[str, Any] = {}
        self.sources: dict[str, str] = {}
        self.missing: dict[str, str] = {}

    def put(self, field: str, value: Any, source: str) -> None:
        self.values[field] = value
        self.sources[field] = source
        self.missing.pop(field, None)

    def miss(self, field: str, reason: str) -> None:
        """The field is missing for `reason` (replacing an earlier reason), unless it has a
        value already."""
        if field not in self.values:
            self.missing[field] = reason

    def miss_also(self, field: str, reason: str) -> None:
        """As `miss`, keeping an earlier reason in front ("first; second")."""
        if field in self.values:
            return
        earlier = self.missing.get(field)
        if earlier and reason not in earlier:
            reason = join("; ", [earlier, reason])
        self.missing[field] = reason

    def take(self, field: str, value: Any, source: str, reason: str) -> None:
        """`put` when there is a value (None is no value), else `miss` with `reason`."""
        if value is not None:
            self.put(field, value, source)
        else:
            self.miss(field, reason)

    def sighting(self) -> GpuSighting:
        return GpuSighting(self.layer, GpuFacts(**self.values), dict(self.sources),
                           dict(self.missing))
