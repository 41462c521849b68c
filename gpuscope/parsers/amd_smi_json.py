"""`amd-smi --json` (see amd_smi.py for the outputs and what they yield): JSON values that
start a line, each searched for GPU records (`"gpu": N` with amd-smi's keys) and version
records; a record's facts are found again in the text by their keys, for the line numbers of
the evidence."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence

from gpuscope.model import JsonValue, ParsedOutput
from gpuscope.parsers._common import never_raises
from gpuscope.parsers.amd_smi_fields import (
    NOT_AVAILABLE,
    AmdSmiCollector,
    AmdSmiGpu,
    apply_field,
)

_JSON_START = re.compile(r"^[ \t]*[\[{]", re.MULTILINE)
_MAX_JSON_FAILURES = 50
_MAX_JSON_DEPTH = 12  # amd-smi nests 4 deep; records deeper are no amd-smi's
# A key starts at a quote no backslash escapes: a line of escaped quotes is read once.
_KEY_IN_LINE = re.compile(r'(?<!\\)"((?:[^"\\\n]|\\.){1,200})"[ \t]{0,20}:')
_MAX_RECORD_LINES = 50_000
_GPU_KEY = re.compile(r'"gpu"\s*:\s*\d')
_JSON_GPU_KEYS = {"asic", "bus", "bdf", "uuid", "kfd_id", "vram", "board", "driver",
                  "partition", "node_id",
                  # monitor and process records
                  "power_usage", "hotspot_temperature", "memory_temperature", "gfx_clk",
                  "vram_used", "vram_total", "process_list"}
_JSON_GPU_KEY = re.compile(
    r'"(asic|bdf|kfd_id|market_name|bus|vram|power_usage|hotspot_temperature|gfx_clk|'
    r'vram_used|vram_total|process_list)"\s*:')


def looks_like_json(head: str) -> bool:
    """Whether the head of a paste is amd-smi's JSON, by its keys."""
    return bool(_JSON_START.search(head)) and (
        '"amdsmi_library_version"' in head or '"gpu_data"' in head
        or bool(_GPU_KEY.search(head) and _JSON_GPU_KEY.search(head)))


def _json_documents(text: str) -> Iterator[tuple[JsonValue, int]]:
    """Every JSON value that starts a line, with its 1-based starting line. Failed attempts
    (a cut-off document fails at its end from every inner line) may read the text about
    three times over in all, then the search stops: linear in the size of the text."""
    decoder = json.JSONDecoder()
    position = 0
    failures = 0
    budget = 3 * len(text) + 1_000_000  # characters failed attempts may read
    line, counted = 1, 0
    while failures < _MAX_JSON_FAILURES and budget > 0:
        match = _JSON_START.search(text, position)
        if match is None:
            return
        start = match.end() - 1
        try:
            value, end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError) as exc:
            failures += 1
            budget -= (exc.pos if isinstance(exc, json.JSONDecodeError) else len(text)) - start
            position = match.end()
            continue
        line += text.count("\n", counted, start)
        counted = start
        yield value, line
        position = end


def _gpu_records(value: JsonValue, depth: int = 0) -> Iterator[Mapping[str, JsonValue]]:
    if depth > _MAX_JSON_DEPTH:
        return
    if isinstance(value, dict):
        if isinstance(value.get("gpu"), int) and not isinstance(value.get("gpu"), bool) and (
                _JSON_GPU_KEYS & set(value)):
            yield value
            return
        for item in value.values():
            yield from _gpu_records(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            yield from _gpu_records(item, depth + 1)


def _version_records(value: JsonValue, depth: int = 0) -> Iterator[Mapping[str, JsonValue]]:
    if depth > _MAX_JSON_DEPTH:
        return
    if isinstance(value, dict):
        if "amdsmi_library_version" in value or "rocm_version" in value:
            yield value
        for item in value.values():
            if isinstance(item, (dict, list)):
                yield from _version_records(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            yield from _version_records(item, depth + 1)


@never_raises("amd-smi-json")  # a failure while reading JSON is reported as JSON
def parse_json(text: str, source: str) -> ParsedOutput:
    """amd-smi JSON to sightings, stack/host facts and signals; never raises."""
    collector = AmdSmiCollector.of_paste(text, source)
    lines = collector.lines
    documents = list(_json_documents(text))
    if not documents:
        collector.problems.append(f"{source}: no valid JSON found")
    for document, start_line in documents:
        for record in _version_records(document):
            _json_versions(collector, record, start_line)
        cursor = start_line
        for record in _gpu_records(document):
            index = record["gpu"]
            assert isinstance(index, int)
            record_line = _find_line(lines, cursor, '"gpu"') or cursor
            cursor = record_line + 1
            gpu = collector.gpu(index, collector.where(record_line))
            _json_record(collector, gpu, record, _KeyLines(lines, record_line))
    return collector.finish("amd-smi-json")


def _json_versions(collector: AmdSmiCollector, record: Mapping[str, JsonValue], line: int) -> None:
    lines = collector.lines
    for key, fact in (("amdsmi_library_version", "amdsmi_library_version"),
                      ("rocm_version", "rocm_version")):
        value = record.get(key)
        if isinstance(value, str) and value.upper() not in NOT_AVAILABLE:
            collector.stack_fact(fact, value,
                                 collector.where(_find_line(lines, line, f'"{key}"') or line))
    amdgpu = record.get("amdgpu_version")
    if isinstance(amdgpu, str):
        collector.driver_version(
            amdgpu, collector.where(_find_line(lines, line, '"amdgpu_version"') or line))


def _json_record(collector: AmdSmiCollector, gpu: AmdSmiGpu, record: Mapping[str, JsonValue],
                 keys: _KeyLines) -> None:
    def apply(path: tuple[str, ...], value: JsonValue, key: str) -> None:
        raw, unit = _value_unit(value)
        if raw is None or isinstance(raw, (dict, list)):
            return
        done = (gpu.index, path, str(raw), unit)
        if done in collector.applied:  # a repeated record: its facts are set
            return
        collector.applied.add(done)
        number = keys.find(key)
        apply_field(collector, gpu, path, raw, unit,
               collector.where(number, f"gpu {gpu.index} {key}"), collector.ref(number))

    for key, value in record.items():
        upper = str(key).upper()
        if isinstance(value, dict) and not _is_value_unit(value):
            for sub_key, sub_value in value.items():
                if isinstance(sub_value, dict) and not _is_value_unit(sub_value):
                    for leaf_key, leaf in sub_value.items():  # e.g. limit.ppt0.*
                        apply((upper, str(sub_key).upper(), str(leaf_key).upper()), leaf,
                              str(leaf_key))
                    continue
                path = (upper, str(sub_key).upper())
                if upper == "LIMIT" and path[1].startswith("PPT"):
                    continue
                apply(path, sub_value, str(sub_key))
        elif upper in {"BDF", "UUID", "KFD_ID", "NODE_ID", "CARD", "RENDER"}:
            apply((upper,), value, str(key))


def _is_value_unit(value: Mapping[str, JsonValue]) -> bool:
    return "value" in value and set(value) <= {"value", "unit"}


def _value_unit(value: JsonValue) -> tuple[object, str | None]:
    if isinstance(value, dict) and _is_value_unit(value):
        unit = value.get("unit")
        return value.get("value"), unit if isinstance(unit, str) else None
    return value, None


def _find_line(lines: Sequence[str], start: int, needle: str) -> int | None:
    """The first line at or after `start` (1-based) that holds `needle`, within the record
    and the next `_MAX_RECORD_LINES` lines."""
    for index in range(max(start - 1, 0), min(len(lines), start - 1 + _MAX_RECORD_LINES)):
        line = lines[index]
        if needle in line:
            return index + 1
        if index > start - 1 and needle != '"gpu"' and _GPU_KEY.search(line):
            return None
    return None


class _KeyLines:
    """The first line of each key of one GPU record, read in one pass over the record (from
    its line to the next `"gpu": N`, at most `_MAX_RECORD_LINES` lines)."""

    def __init__(self, lines: Sequence[str], start: int) -> None:
        self.lines = lines
        self.start = start
        self.first: dict[str, int] | None = None  # read on the first `find`

    def find(self, key: str) -> int | None:
        if self.first is None:
            self.first = {}
            lines, start = self.lines, self.start
            for index in range(max(start - 1, 0),
                               min(len(lines), start - 1 + _MAX_RECORD_LINES)):
                line = lines[index]
                if index > start - 1 and _GPU_KEY.search(line):
                    break
                if '"' in line:
                    for match in _KEY_IN_LINE.finditer(line):
                        self.first.setdefault(match.group(1), index + 1)
        return self.first.get(key)
