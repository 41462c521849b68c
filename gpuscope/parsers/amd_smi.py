"""`amd-smi` as people paste it: text and `--json` of `version`, `list`, `static`, the
default table (`amd-smi` without a subcommand, AMD SMI 25.x/26.x), `monitor` (alias `dmon`,
with `--watch` timestamps and the `--process` table), `process` and `metric`.

Shapes differ between releases, so everything is read defensively: JSON may be a list or an
object (`{"gpu_data": [...]}`), values may be plain or `{"value": 16, "unit": "GT/s"}`;
text keys may be `MARKET_NAME` or `Market Name`, and a blog may indent the whole output.
Several outputs in one paste (`version` + `list` + `static`) are merged per GPU index.

What it yields: one `Layer.AMDSMI` sighting per GPU (`smi_index` = amd-smi's GPU number;
`monitor` and `process` name nothing else: their readings are no GPU facts, but amd-smi saw the
GPU) and
the stack facts `amdsmi_library_version`, `rocm_version`, `amdgpu_driver_version` (an
amdgpu-dkms version; an in-tree driver shows the kernel release, which becomes the host fact
`kernel` instead). Host fact `virtual_machine` when amd-smi names a guest platform.

Signals emitted:
- `gpu.partition_mode`: a compute/accelerator partition other than SPX; detail = the mode.
  Such sightings get `kind = partition`.
- `gpu.virtual_function`: amd-smi names the GPU a VF ("AMD Instinct Mi325X VF") or its device
  id is a VF's; detail = the PCI address or the GPU number. Such sightings get `kind =
  virtual`; an APU's (MI300A, gfx1150, an iGPU device id) get `kind = integrated`.
- `amdsmi.driver_not_loaded` (new): `AMDSMI_STATUS_DRIVER_NOT_LOADED` in the paste.
- `amdsmi.library_missing` (new): "Unable to find libamd_smi.so".
- `rocm.path_version`: a `/opt/rocm-X.Y.Z` path in the paste; detail = the version.

Here the text; amd_smi_json.py reads the JSON, and amd_smi_fields.py what each field means.
"""

from __future__ import annotations

import re

from gpuscope.i18n import message
from gpuscope.model import ParsedOutput
from gpuscope.parsers import amd_smi_json
from gpuscope.parsers._common import LineReads, never_raises, none_on_error, pci_bus
from gpuscope.parsers.amd_smi_fields import (
    NOT_AVAILABLE,
    PARTITION_MODES,
    AmdSmiCollector,
    AmdSmiGpu,
    apply_field,
)

FORMATS: tuple[str, ...] = ("amd-smi-text", "amd-smi-json")

_TOOL_LINE = re.compile(r"AMDSMI Tool:|AMDSMI Library version|AMD System Management Interface \|")
# Over the whole head of a paste: [ \t], not \s, so that `^` does not run across blank lines.
_TABLE_HEAD_LINE = re.compile(r"^[ \t]*\|[ \t]*AMD-SMI[ \t]+\S", re.MULTILINE)
_GPU_HEAD = re.compile(r"^(\s*)GPU:\s*(\d+)\s*$")
_OTHER_HEAD = re.compile(r"^(\s*)(CPU|CORE|NIC|SWITCH)\w*:\s*\d+\s*$", re.IGNORECASE)
_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_ ()/.#-]*")
_ROW_BUS = re.compile(r"^([0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\s")
# Numbers found by search start only where a number starts (the lookbehind), so that a long
# run of digits is not rescanned from each of its digits.
_ROW_POWER = re.compile(
    r"(?<![\d.])(\d+(?:\.\d+)?)[ \t]{0,8}/[ \t]{0,8}(\d+(?:\.\d+)?)[ \t]{0,8}W\b")
_ROW_MEMORY = re.compile(r"(?<!\d)(\d+)[ \t]{0,8}/[ \t]{0,8}(\d+)[ \t]{0,8}MB\b")
_NAME_COUNT = re.compile(r"\(\d+\)$")
_MAX_VALUE_CHARS = 300

# `amd-smi monitor`: a header of upper-case column names after GPU (after TIMESTAMP with
# --watch) and one row per GPU, its number first; `--process` adds a "PROCESS INFO:" table
# whose rows start with the GPU number too. Columns come and go between releases (GPU_TEMP
# became GPU_T, XCP and PWR_CAP were added), so any upper-case name counts as long as one of
# these does.
_MONITOR_COLUMNS = frozenset({
    "XCP", "POWER", "PWR_CAP", "GPU_T", "GPU_TEMP", "MEM_T", "MEM_TEMP", "GFX_CLK", "GFX_CLOCK",
    "GFX%", "GFX_UTIL", "MEM%", "MEM_UTIL", "MEM_CLOCK", "ENC%", "ENC_UTIL", "ENC_CLOCK", "DEC%",
    "DEC_UTIL", "DEC_CLOCK", "THROTTLE", "SINGLE_ECC", "DOUBLE_ECC", "PCIE_REPLAY", "VRAM_USED",
    "VRAM_TOTAL", "VRAM_USAGE", "GTT_USAGE", "PCIE_BW", "PVIOL", "TVIOL", "PHOT_TVIOL",
    "VR_TVIOL", "HBM_TVIOL",
    # the process table
    "PID", "GTT_MEM", "CPU_MEM", "VRAM_MEM", "MEM_USAGE",
})
_COLUMN_NAME = re.compile(r"[A-Z][A-Z0-9_]{0,40}%?")
_MAX_COLUMNS = 60
_MONITOR_HEAD_LINE = re.compile(r"^[ \t]*(?:TIMESTAMP[ \t]+)?GPU[ \t]+[A-Z]", re.MULTILINE)
_MONITOR_ROW = re.compile(r"[ \t]{0,60}(\d{1,4})(?:[ \t]|$)")
_WATCH_ROW = re.compile(r"[ \t]{0,60}\d{1,12}[ \t]+(\d{1,4})(?:[ \t]|$)")
# `GPU: N` blocks of `process`, `metric`, `static --limit` and the like: upper-case sections.
_SECTION_AFTER_GPU = re.compile(r"^[ \t]*GPU:[ \t]*\d+[ \t]*\r?\n[ \t]+[A-Z][A-Z0-9_]{1,40}:",
                                re.MULTILINE)


@none_on_error
def sniff(text: str) -> tuple[str, float] | None:
    """amd-smi JSON by its keys, text by its version line, table header or `GPU: n` blocks."""
    head = text[:200_000]
    if re.search(r'"card\d+"\s*:', head):
        return None  # rocm-smi --json
    if amd_smi_json.looks_like_json(head):
        return ("amd-smi-json", 0.92)
    if _TOOL_LINE.search(head) or _TABLE_HEAD_LINE.search(head):
        return ("amd-smi-text", 0.95)
    if re.search(r"^[ \t]*GPU:[ \t]*\d+[ \t]*\r?\n[ \t]+(ASIC|BDF|BUS|UUID|MARKET_NAME|"
                 r"Market Name)[ \t]*:",
                 head, re.MULTILINE):
        return ("amd-smi-text", 0.88)
    if _monitor_table_in(head):
        return ("amd-smi-text", 0.88)
    if _SECTION_AFTER_GPU.search(head):
        return ("amd-smi-text", 0.8)
    return None


def _monitor_header(line: str) -> int | None:
    """Where the GPU number stands in the rows (0, or 1 after a --watch timestamp) when this
    line is the header of an `amd-smi monitor` table or of its process table, else None."""
    words = line.split(None, _MAX_COLUMNS + 2)
    start = 1 if words[:1] == ["TIMESTAMP"] else 0
    if words[start:start + 1] != ["GPU"] or len(words) < start + 2 \
            or len(words) > _MAX_COLUMNS + 2:
        return None
    columns = words[start + 1:]
    if not all(_COLUMN_NAME.fullmatch(c) for c in columns):
        return None
    return start if any(c in _MONITOR_COLUMNS for c in columns) else None


def _monitor_row(line: str, position: int) -> int | None:
    """The GPU number of a row of a monitor table, else None."""
    match = (_WATCH_ROW if position else _MONITOR_ROW).match(line)
    return int(match.group(1)) if match else None


def _monitor_table_in(head: str) -> bool:
    """A monitor header with a row after it (blank lines between are allowed)."""
    for found, match in enumerate(_MONITOR_HEAD_LINE.finditer(head)):
        if found >= 20:
            return False
        end = head.find("\n", match.start())
        line = head[match.start():end if end >= 0 else len(head)]
        position = _monitor_header(line[:2000])
        if position is None or end < 0:
            continue
        for following in head[end + 1:end + 4000].split("\n")[:4]:
            if following.strip():
                if _monitor_row(following, position) is not None:
                    return True
                break
    return False


@never_raises("amd-smi-text")
def parse(text: str, source: str) -> ParsedOutput:
    """amd-smi text or JSON to sightings, stack/host facts and signals; never raises."""
    found = sniff(text)
    if found is not None and found[0] == "amd-smi-json":
        return amd_smi_json.parse_json(text, source)
    return _parse_text(text, source)


# ----------------------------------------------------------------------------- text


def _cells(line: str) -> tuple[str, str] | None:
    """`| first cell | the other cells |` -> (first cell, the rest between its outer bars)."""
    body = line.strip()
    if len(body) < 3 or body[0] != "|" or body[-1] != "|":
        return None
    first, bar, rest = body[1:-1].partition("|")
    return (first.strip(), rest) if bar else None


def _row_one(line: str) -> tuple[str, str] | None:
    """The first row of a GPU in the default table: (its bus address, its name cell)."""
    cells = _cells(line)
    if cells is None or (bus := _ROW_BUS.match(cells[0] + " ")) is None:
        return None
    return bus.group(1), cells[0][bus.end():].strip()


def _row_two(line: str) -> tuple[str, str, str] | None:
    """The second row: (GPU number, partition mode cell, the other cells)."""
    cells = _cells(line)
    if cells is None:
        return None
    words = cells[0].split()
    if len(words) != 4 or not words[0].isdigit():
        return None
    return words[0], words[3], cells[1]


def _key_value(line: str) -> tuple[int, str, str] | None:
    """(indent, key, value) of an indented `KEY: value` line."""
    body = line.lstrip()
    key, colon, value = body.partition(":")
    key = key.rstrip()
    if not colon or not _KEY.fullmatch(key):
        return None
    return len(line) - len(body), key, value.strip()[:_MAX_VALUE_CHARS]


def _parse_text(text: str, source: str) -> ParsedOutput:
    collector = AmdSmiCollector.of_paste(text, source)
    gpu: AmdSmiGpu | None = None
    base_indent = 0
    sections: list[tuple[int, str]] = []
    table_gpu: tuple[str, str, int] | None = None  # (bus, name cell, line) of a table row
    monitor: int | None = None  # where the GPU number stands in a monitor table's rows
    # A paste repeats its lines (`--watch` repeats the header every interval, a table or
    # block pasted again its own lines): each distinct line is read once.
    key_values = LineReads(_key_value)
    first_rows = LineReads(_row_one)
    headers = LineReads(_monitor_header)
    rows_read: set[tuple[tuple[str, str], tuple[str, str, str]]] = set()
    for number, raw in enumerate(collector.lines, start=1):
        line = (raw.replace("\t", "    ") if "\t" in raw else raw).rstrip()
        body = line.lstrip()
        if not body:
            continue
        if monitor is not None:
            index = _monitor_row(line, monitor)
            if index is not None:
                if index not in collector.gpus:
                    collector.gpu(index, collector.where(number))
                continue
            monitor = None
        if body.startswith(("GPU ", "TIMESTAMP ")) and (
                position := headers[line]) is not None:
            monitor, gpu = position, None
            continue
        row = first_rows[line] if "|" in line else None
        if row is not None:
            # The first row of a GPU in the default table; its number is on the second row.
            table_gpu = (row[0], row[1], number)
            continue
        if table_gpu is not None and (second := _row_two(line)) is not None:
            if (table_gpu[:2], second) not in rows_read:  # first wins: a repeat is a no-op
                rows_read.add((table_gpu[:2], second))
                _table_row(collector, table_gpu, second, number)
            table_gpu = None
            continue
        if body.startswith("GPU") and (match := _GPU_HEAD.match(line)) is not None:
            gpu = collector.gpu(int(match.group(2)), collector.where(number))
            base_indent = len(match.group(1))
            sections = []
            continue
        if body[0] in "CcNnSs\u017f" and _OTHER_HEAD.match(line):
            gpu = None
            continue
        if gpu is None:
            continue
        found = key_values[line]
        if found is None:
            continue
        indent = found[0]
        if indent <= base_indent:
            gpu = None
            continue
        key = found[1].upper().replace(" ", "_")
        value = found[2]
        while sections and sections[-1][0] >= indent:
            sections.pop()
        if not value:
            sections.append((indent, key))
            continue
        path = (*[name for _, name in sections], key)
        if (gpu.index, path, value, None) in collector.applied:  # a repeated block
            continue
        collector.applied.add((gpu.index, path, value, None))
        apply_field(collector, gpu, path, value, None, collector.where(number),
               collector.ref(number))
    return collector.finish("amd-smi-text")


def _table_row(collector: AmdSmiCollector, row: tuple[str, str, int],
               second: tuple[str, str, str], number: int) -> None:
    bus, name_cell, first_line = row
    gpu = collector.gpu(int(second[0]), collector.where(first_line))
    where_first = collector.where(first_line)
    where = collector.where(number)
    if (address := pci_bus(bus)) is not None:
        gpu.put("pci_bus", address, where_first)
    name = _NAME_COUNT.sub("", name_cell.rstrip()).strip()
    if name.startswith("...") or name.endswith("..."):
        gpu.missing.setdefault("name", message("{where}: the table cuts the name ({name})",
                                               where=where_first, name=name))
    elif name and name.upper() not in NOT_AVAILABLE:
        gpu.put("name", name, where_first)
    mode = second[1].split("/")[0].upper()
    if mode in PARTITION_MODES and gpu.partition is None:
        gpu.partition = (mode, collector.ref(number))
    first_cells = collector.line(first_line) or ""
    if (power := _ROW_POWER.search(first_cells)) is not None and float(power.group(2)) > 0:
        gpu.put("power_cap_w", float(power.group(2)), where_first)
    if (memory := _ROW_MEMORY.search(second[2])) is not None:
        gpu.put("vram_total_bytes", int(memory.group(2)) * 1024**2, where)

