"""Import pasted or captured outputs (rocminfo, nvidia-smi, collect_env, ...) as one machine.

Several files given together describe one machine: their sightings join into GPUs the same
way live probes' do, and the result is labelled imported in every view.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from gpuscope.inventory import assemble
from gpuscope.model import (
    Fact,
    Framework,
    Host,
    Inventory,
    Origin,
    OriginKind,
    ParsedOutput,
    ProbeResult,
    ProbeState,
    ProbeStatus,
    Signal,
)
from gpuscope.parsers import parse_any

# A pasted file larger than this is not an output of these tools.
MAX_FILE_BYTES = 20_000_000


@dataclass(frozen=True, slots=True)
class ImportedMachine:
    inventory: Inventory
    frameworks: tuple[Framework, ...]
    signals: tuple[Signal, ...]
    parsed: tuple[ParsedOutput, ...]


class InputFileError(Exception):
    """A file that cannot be read at all (missing, unreadable, too large)."""


def read_input(path: str) -> tuple[str, str]:
    """(source name, text) for a path, or '-' for standard input."""
    if path == "-":
        return "stdin", sys.stdin.read()
    file = Path(path)
    try:
        size = file.stat().st_size
        if size > MAX_FILE_BYTES:
            raise InputFileError(f"{path}: {size:,} bytes is too large for a tool output")
        data = file.read_bytes()
    except OSError as exc:
        raise InputFileError(f"cannot read {path}: {exc.strerror or exc}") from exc
    return file.name, data.decode("utf-8", errors="replace")


def _host_from_facts(facts: Iterable[Fact]) -> Host | None:
    values: dict[str, object] = {}
    sources: dict[str, str] = {}
    for fact in facts:
        if fact.value is None or fact.key in values:
            continue
        values[fact.key] = fact.value
        if fact.source:
            sources[fact.key] = fact.source
    if not values:
        return None
    os_name = str(values.get("os", "unknown"))
    return Host(
        os=os_name,
        distro=_str(values.get("distro")),
        kernel=_str(values.get("kernel")),
        cpu_model=_str(values.get("cpu_model")),
        wsl=os_name == "wsl",
        container=bool(values.get("container", False)),
        virtual_machine=bool(values.get("virtual_machine", False)),
        field_sources=sources,
    )


def _str(value: object) -> str | None:
    return None if value is None else str(value)


def import_texts(texts: Sequence[tuple[str, str]]) -> ImportedMachine:
    """(source name, text) pairs, as one machine."""
    parsed = tuple(parse_any(text, source) for source, text in texts)
    results = [
        ProbeResult(
            ProbeStatus(
                f"import:{p.source}",
                ProbeState.OK if p.format != "unknown" else ProbeState.ERROR,
                reason=(f"{p.format}" + (f" ({'; '.join(p.problems)})" if p.problems else "")),
            ),
            sightings=p.sightings,
            stack_facts=p.stack_facts,
        )
        for p in parsed
    ]
    host = _host_from_facts(f for p in parsed for f in p.host_facts)
    if host is not None:
        results.append(ProbeResult(ProbeStatus("import:host", ProbeState.OK), host=host))
    origin = Origin(kind=OriginKind.IMPORTED, source=", ".join(source for source, _ in texts))
    inventory = assemble(results, origin)
    frameworks = tuple(f for p in parsed for f in p.frameworks)
    signals = tuple(s for p in parsed for s in p.signals)
    return ImportedMachine(inventory, frameworks, signals, parsed)


def import_files(paths: Sequence[str]) -> ImportedMachine:
    return import_texts([read_input(path) for path in paths])
