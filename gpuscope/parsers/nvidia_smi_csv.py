"""nvidia-smi's query output, ``nvidia-smi --query-gpu=<fields> --format=csv[,noheader][,nounits]``,
as people paste it: the header names the fields in the order asked ("name, pci.bus_id,
driver_version, memory.total [MiB]"; aliases such as gpu_name, gpu_bus_id, gpu_uuid), one row
per GPU ("NVIDIA GeForce RTX 4090, 00000000:01:00.0, 550.54.14, 24564 MiB"; without units under
nounits, the unit then only in the header). Without a header the fields come from the command
line when the paste shows it (``--query-gpu=name,compute_cap``), else from what the values are
(a GPU's name beside a UUID, a bus address, a compute capability or a three-part driver
version). A paste that glued two rows onto one line (a run of spaces between them) is read as
two rows; repeated queries (a second paste, ``-l`` loops) join the GPUs by index, UUID or bus.
Other queries (``--query-compute-apps``: processes, not GPUs) are not read.

Every row is a GPU seen by NVML (`Layer.NVML`); ``driver_version`` is the stack's
`nvidia_driver_version`. Signal: ``nvidia.mig_enabled`` from ``mig.mode.current``.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from gpuscope.model import GpuKind, GpuSighting
from gpuscope.parsers import nvidia_smi_fields as smi

# A query of every field (monitoring tools ask for some 250) makes a header of 7,000
# characters: lines are read this far, still a bound per line.
MAX_LINE_CHARS = 20_000
_MAX_LINES = 200_000
_SNIFF_LINES = 60
_MAX_FIELDS = 400
_MAX_BLOCKS = 64
_MAX_ROWS = 20_000  # rows read per paste (a long `-l` loop repeats the same GPUs)
_QUERY_NAME = re.compile(r"[a-z][A-Za-z0-9_]{0,60}(?:\.[A-Za-z0-9_]{1,60}){0,6}")
_HEADER_TOKEN = re.compile(
    r"(?P<name>[a-z][A-Za-z0-9_]{0,60}(?:\.[A-Za-z0-9_]{1,60}){0,6})"
    r"(?: \[(?P<unit>[A-Za-z%]{1,8})\])?")
_COMMAND = re.compile(r"--query-gpu[= ][\"']?(?P<fields>[a-z0-9_.,]{1,1000})")
_NOHEADER = re.compile(r"--format[= ][\"']?csv[a-z,]{0,30}noheader")
_ONE_GPU = re.compile(r"(?:^|\s)(?:-i|--id)[= ]\S")  # the query asked for one GPU
_GLUED = re.compile(r"\s{2,}")
_BUS = re.compile(r"[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]")
_UUID = re.compile(r"(?:GPU|MIG)-[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")
_CC = re.compile(r"\d{1,2}\.\d")
_DRIVER3 = re.compile(r"\d{3}\.\d{2,3}\.\d{2,3}")
_GPU_NAME = re.compile(r"\b(?:NVIDIA|GeForce|Quadro|Tesla|TITAN|RTX|GTX|GRID)\b")
_VALUE_UNIT = re.compile(r"(?P<number>-?\d{1,12}(?:\.\d{1,6})?)(?: ?(?P<unit>[A-Za-z%]{1,8}))?")

# Query fields that identify a GPU (one of them makes a header a GPU query), and the fields of
# other queries that make it not one (--query-compute-apps, --query-accounted-apps).
_IDENTIFYING = frozenset({
    "name", "gpu_name", "uuid", "gpu_uuid", "pci.bus_id", "gpu_bus_id", "index",
    "compute_cap", "driver_version", "memory.total", "pci.device_id", "serial", "gpu_serial",
    "vbios_version",
})
_OTHER_QUERIES = frozenset({"pid", "process_name", "used_gpu_memory", "used_memory",
                            "gpu_utilization", "mem_utilization", "max_memory_usage", "time"})
# The --query-gpu fields without a dot (nvidia-smi --help-query-gpu, drivers 470 to 610): any
# other plain word makes a header some other CSV's ("name, version").
_PLAIN_FIELDS = frozenset({
    "addressing_mode", "compute_cap", "compute_mode", "count", "display_active",
    "display_attached", "display_mode", "driver_version", "edpp_multiplier", "gpu_bus_id",
    "gpu_name", "gpu_recovery_action", "gpu_serial", "gpu_uuid", "hostname", "index",
    "kmd_version", "name", "persistence_mode", "pstate", "serial", "timestamp", "uuid",
    "vbios_version",
})
_ALIASES = {"gpu_name": "name", "gpu_uuid": "uuid", "gpu_bus_id": "pci.bus_id",
            "gpu_serial": "serial", "clocks.max.gr": "clocks.max.graphics",
            "clocks.max.mem": "clocks.max.memory", "enforced.power.limit": "power.limit"}
_TEXT_FIELDS = {"name": "name", "uuid": "uuid", "serial": "serial_number",
                "vbios_version": "vbios_version", "compute_cap": "compute_capability"}
_NUMBER_FIELDS = {"power.limit": ("power_cap_w", float),
                  "power.max_limit": ("power_cap_max_w", float),
                  "clocks.max.graphics": ("max_graphics_clock_mhz", int),
                  "clocks.max.memory": ("max_memory_clock_mhz", int)}
_LINK_FIELDS = ("pcie.link.gen.max", "pcie.link.gen.current", "pcie.link.width.max",
                "pcie.link.width.current")
_READ_FIELDS = frozenset({
    *_TEXT_FIELDS, *_NUMBER_FIELDS, *_LINK_FIELDS, "pci.bus_id", "index", "driver_version",
    "memory.total", "pci.device_id", "pci.sub_device_id", "mig.mode.current",
    "driver_model.current"})
_MEMORY_SCALE = {"b": 1, "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30}


@dataclasses.dataclass
class _Block:
    """One query's rows: its fields (canonical names), their header units, where it starts."""

    fields: list[str]
    units: list[str | None]
    start: int  # 0-based index of the first row line
    begins: int  # 0-based index of its first line (the header's, else the first row's)

    @property
    def read(self) -> list[int]:
        """The columns gpuscope reads (a wide query has hundreds it does not)."""
        return [i for i, name in enumerate(self.fields) if name in _READ_FIELDS]


def header(line: str, asked: Sequence[str] = ()) -> tuple[list[str], list[str | None]] | None:
    """A --query-gpu header line -> (canonical field names, units); None when it is not one.
    `asked`: the fields of the command line before it, which make even one word a header."""
    tokens = [t.strip() for t in line.strip().split(",")]
    if not 1 <= len(tokens) <= _MAX_FIELDS:
        return None
    fields: list[str] = []
    units: list[str | None] = []
    for token in tokens:
        found = _HEADER_TOKEN.fullmatch(token)
        if found is None or ("." not in token and found.group("name") not in _PLAIN_FIELDS
                             and found.group("name") not in _OTHER_QUERIES):
            return None
        fields.append(_ALIASES.get(found.group("name"), found.group("name")))
        units.append(found.group("unit"))
    if _OTHER_QUERIES.intersection(fields) or not _IDENTIFYING.intersection(fields):
        return None
    # A single word ("name", "index") is a header only beside a unit or the command asking it.
    if (len(fields) == 1 and "." not in fields[0] and "_" not in fields[0] and not units[0]
            and fields != list(asked)):
        return None
    return fields, units


def _asked(line: str) -> list[str]:
    """The fields a `nvidia-smi --query-gpu=...` command line asks for ([] when none)."""
    command = _COMMAND.search(line) if "--query-gpu" in line else None
    if command is None:
        return []
    return [_ALIASES.get(f, f) for f in command.group("fields").split(",") if f]


def _row_values(line: str, width: int) -> list[list[str]] | None:
    """The rows a line holds: `width` values each (two rows glued by a run of spaces are two);
    None when the line is not rows of this width."""
    if not line.strip():
        return None
    values: list[str] = []
    for token in line.strip().split(","):
        values += _GLUED.split(token.strip()) if "  " in token.strip() else [token.strip()]
        if len(values) > width * _MAX_FIELDS:
            return None
    if not values or len(values) % width:
        return None
    return [values[i:i + width] for i in range(0, len(values), width)]


def _inferred(rows: Sequence[Sequence[str]]) -> list[str] | None:
    """Without a header or a command line: the fields the values show, when one column is a
    GPU's name and another says what it is."""
    width = len(rows[0])
    fields: list[str] = []
    for column in range(width):
        cells = [row[column] for row in rows]
        if all(_UUID.fullmatch(c) for c in cells):
            fields.append("uuid")
        elif all(_BUS.fullmatch(c) for c in cells):
            fields.append("pci.bus_id")
        elif all(_CC.fullmatch(c) for c in cells):
            fields.append("compute_cap")
        elif all(_DRIVER3.fullmatch(c) for c in cells):
            fields.append("driver_version")
        elif all(_GPU_NAME.search(c) and not c[:1].isdigit() for c in cells):
            fields.append("name")
        else:
            fields.append("")
    if fields.count("name") != 1 or sum(1 for f in fields if f) < 2:
        return None
    return fields


def _uniform_rows(lines: Sequence[str]) -> list[list[str]]:
    """The rows of the most common width among `lines` (a line's width: its comma fields)."""
    widths: dict[int, int] = {}
    for line in lines:
        if line.strip():
            width = line.count(",") + 1
            widths[width] = widths.get(width, 0) + 1
    if not widths:
        return []
    width = max(widths, key=lambda w: (widths[w], w))
    return [row for line in lines if line.strip() for row in (_row_values(line, width) or [])]


def read_lines(text: str, max_lines: int = _MAX_LINES) -> list[str]:
    """The lines of a paste, each cut to `MAX_LINE_CHARS` (a CRLF's "\r" dropped)."""
    lines = text.split("\n", max_lines)[:max_lines]
    return [(line[:-1] if line[-1:] == "\r" else line)[:MAX_LINE_CHARS] for line in lines]


def sniff(text: str) -> float | None:
    """How sure this is --query-gpu CSV output, from its first non-blank lines."""
    head = [line for line in read_lines(text[:400_000], _SNIFF_LINES * 4)
            if line.strip()][:_SNIFF_LINES]
    asked: list[str] = []
    for index, line in enumerate(head[:-1]):
        asked = _asked(line) or asked
        found = header(line, asked)
        if found is not None and _row_values(head[index + 1], len(found[0])):
            return 0.9
    if any("--query-gpu" in line and _NOHEADER.search(line) for line in head):
        return 0.85
    rows = _uniform_rows(head[:20])
    if rows and len(rows[0]) >= 2 and _inferred(rows) is not None:
        return 0.6
    return None


def _blocks(out: smi.Output) -> list[_Block]:
    """Where each query's rows start, with their fields (header, else command, else values)."""
    lines = out.lines
    blocks: list[_Block] = []
    pending: list[str] | None = None  # the fields of a command line without a header
    asked: list[str] = []
    for index, line in enumerate(lines):
        if len(blocks) >= _MAX_BLOCKS:
            break
        if fields := _asked(line):
            asked = fields
            pending = asked if _NOHEADER.search(line) and all(
                _QUERY_NAME.fullmatch(f) for f in asked) else None
            continue
        if "," in line or pending is None:
            found = header(line, asked) if line.strip() else None
            if found is not None:
                blocks.append(_Block(found[0], found[1], index + 1, index))
                pending = None
                continue
        if pending is not None and line.strip():
            blocks.append(_Block(pending, [None] * len(pending), index, index))
            pending = None
    if not blocks:
        rows = _uniform_rows(lines[:200])
        shown = _inferred(rows) if rows else None
        first = next((i for i, line in enumerate(lines) if line.strip()), 0)
        if shown is not None:
            blocks.append(_Block(shown, [None] * len(shown), first, first))
    return blocks


def read(out: smi.Output) -> list[GpuSighting]:
    """The GPUs of every --query-gpu block in the paste, joined across blocks."""
    one_gpu = any("--query-gpu" in line and _ONE_GPU.search(line) for line in out.lines)
    gpus: list[smi.Facts] = []
    blocks = _blocks(out)
    read_rows = 0
    for number, block in enumerate(blocks):
        position = 0
        columns = block.read
        # a block's rows end where the next query begins: every line is read once
        end = blocks[number + 1].begins if number + 1 < len(blocks) else len(out.lines)
        for index in range(block.start, end):
            rows = _row_values(out.lines[index], len(block.fields))
            if rows is None:
                break
            read_rows += len(rows)
            if read_rows > _MAX_ROWS:
                out.problems.append(f"more than {_MAX_ROWS:,} rows: the rest were not read")
                return [f.sighting() for f in gpus]
            for row in rows:
                facts = _gpu_for(out, gpus, block, columns, row,
                                 position if number else None)
                if facts is None:
                    out.problems.append(f"more than {smi.MAX_GPUS} GPUs: the rest were not read")
                    return [f.sighting() for f in gpus]
                _fill(out, facts, block, columns, row, index, None if one_gpu else position)
                position += 1
    return [f.sighting() for f in gpus]


def _ids(block: _Block, columns: Sequence[int], row: Sequence[str]) -> dict[str, str]:
    found = {}
    for column in columns:
        name, value = block.fields[column], row[column]
        if name in ("uuid", "pci.bus_id", "index") and smi.clean(value):
            found[name] = (smi.normalise_bus(value) or value) if name == "pci.bus_id" else value
    return found


def _gpu_for(out: smi.Output, gpus: list[smi.Facts], block: _Block, columns: Sequence[int],
             row: Sequence[str], later_position: int | None) -> smi.Facts | None:
    """The GPU this row describes: one already read with the same index, UUID or bus; else,
    for a row without those in a later query, the GPU at the same position in the first; else
    a new one (None past the limit)."""
    ids = _ids(block, columns, row)
    key = {"uuid": "uuid", "pci.bus_id": "pci_bus", "index": "smi_index"}
    for facts in gpus:
        for name, value in ids.items():
            known = facts.values.get(key[name])
            if known is not None and str(known) == value:
                return facts
    if not ids and later_position is not None and later_position < len(gpus):
        return gpus[later_position]
    if len(gpus) >= smi.MAX_GPUS:
        return None
    gpus.append(smi.Facts(out))
    return gpus[-1]


def _fill(out: smi.Output, facts: smi.Facts, block: _Block, columns: Sequence[int],
          row: Sequence[str], index: int, position: int | None) -> None:
    where = out.where(index + 1)
    link: dict[str, str | None] = {}
    mig = False
    for column in columns:
        name, unit, value = block.fields[column], block.units[column], smi.clean(row[column])
        if value is None:
            continue
        if name in _TEXT_FIELDS:
            facts.set(_TEXT_FIELDS[name], value, index)
        elif name == "pci.bus_id":
            facts.set("pci_bus", smi.normalise_bus(value), index)
        elif name == "index" and value.isdigit():
            facts.set("smi_index", int(value), index)
        elif name == "driver_version":
            out.fact("nvidia_driver_version", value, index)
        elif name == "memory.total":
            facts.set("vram_total_bytes", _memory_bytes(value, unit), index)
        elif name in ("pci.device_id", "pci.sub_device_id"):
            pair = smi.pci_id_pair(value)
            prefix = "pci" if name == "pci.device_id" else "pci_subsystem"
            if pair is not None:
                facts.set(f"{prefix}_device_id", pair[0], index)
                facts.set(f"{prefix}_vendor_id", pair[1], index)
        elif name in _NUMBER_FIELDS:
            field_name, kind = _NUMBER_FIELDS[name]
            found = smi.first_number(value)
            facts.set(field_name, kind(found) if found is not None else None, index)
        elif name in _LINK_FIELDS:
            link[name] = value
        elif name == "mig.mode.current" and value == "Enabled":
            mig = True
        elif name == "driver_model.current" and value in ("WDDM", "TCC", "MCDM"):
            out.host_fact("os", "windows", where)
    if link:
        facts.set("pcie_link", smi.pcie_link(*(link.get(f) for f in _LINK_FIELDS)), index)
    if mig:  # named by the GPU's bus (or UUID), whichever column comes first in the row
        gpu = facts.values.get("pci_bus") or facts.values.get("uuid")
        out.signal_at("nvidia.mig_enabled", str(gpu) if gpu else None, index + 1)
    if position is not None and "index" not in block.fields:
        facts.set("smi_index", position, index)  # rows come in nvidia-smi's index order
    gpu_name = facts.values.get("name")
    if isinstance(gpu_name, str) and smi.VGPU_NAME_RE.search(gpu_name):
        facts.set("kind", GpuKind.VIRTUAL, index)
    for field_name in ("vendor", "kind"):
        facts.sources.setdefault(field_name, where)
    smi.common_gpu_facts(facts)


def _memory_bytes(value: str, header_unit: str | None) -> int | None:
    found = _VALUE_UNIT.fullmatch(value.strip())
    if found is None:
        return None
    unit = (found.group("unit") or header_unit or "MiB").lower()
    scale = _MEMORY_SCALE.get(unit)
    return int(float(found.group("number")) * scale) if scale else None
