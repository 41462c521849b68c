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
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from gpuscope.model import (
    EvidenceRef,
    GpuSighting,
    JsonValue,
    Layer,
    ParsedOutput,
    PcieLink,
    Vendor,
)
from gpuscope.parsers._common import (
    ROCM_PATH_RE,
    SmiCollector,
    SmiGpu,
    decode_gfx_version,
    lines_holding,
    never_raises,
    none_on_error,
    pci_bus,
    read_lines,
)

FORMATS: tuple[str, ...] = ("amd-smi-text", "amd-smi-json")

_TOOL_LINE = re.compile(r"AMDSMI Tool:|AMDSMI Library version|AMD System Management Interface \|")
_TABLE_HEAD = re.compile(r"^\s*\|\s*AMD-SMI\s+\S+")
# Over the whole head of a paste: [ \t], not \s, so that `^` does not run across blank lines.
_TABLE_HEAD_LINE = re.compile(r"^[ \t]*\|[ \t]*AMD-SMI[ \t]+\S", re.MULTILINE)
_GPU_HEAD = re.compile(r"^(\s*)GPU:\s*(\d+)\s*$")
_OTHER_HEAD = re.compile(r"^(\s*)(CPU|CORE|NIC|SWITCH)\w*:\s*\d+\s*$", re.IGNORECASE)
_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_ ()/.#-]*")
_LIBRARY = re.compile(r"AMDSMI Library [Vv]ersion:\s*([^|\s]+)")
_ROCM = re.compile(r"ROCm [Vv]ersion:\s*(\d+(?:\.\d+)+)")
_AMDGPU = re.compile(r"amdgpu [Vv]ersion:\s*([^|\s]+)")
_PLATFORM = "Platform:"
# What every line `scan_text` reads holds (the version regexes' "ersion:", ROCm paths' "rocm-").
_SCAN_NEEDLES = ("ersion:", _PLATFORM, "AMDSMI_STATUS_DRIVER_NOT_LOADED",
                 "Unable to find libamd_smi", "rocm-")
_KERNEL_IN_VERSION = re.compile(r"Linux\s*version\s*([^\s(]+)", re.IGNORECASE)
_DKMS_VERSION = re.compile(r"^\d+\.\d+(?:\.\d+)?$")
_ROW_BUS = re.compile(r"^([0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\s")
# Numbers found by search start only where a number starts (the lookbehind), so that a long
# run of digits is not rescanned from each of its digits.
_ROW_POWER = re.compile(
    r"(?<![\d.])(\d+(?:\.\d+)?)[ \t]{0,8}/[ \t]{0,8}(\d+(?:\.\d+)?)[ \t]{0,8}W\b")
_ROW_MEMORY = re.compile(r"(?<!\d)(\d+)[ \t]{0,8}/[ \t]{0,8}(\d+)[ \t]{0,8}MB\b")
_NAME_COUNT = re.compile(r"\(\d+\)$")
_JSON_START = re.compile(r"^[ \t]*[\[{]", re.MULTILINE)
_NUMBER = re.compile(r"^(-?\d+(?:\.\d+)?)\s*([A-Za-z/]*)")
_NOT_AVAILABLE = {"", "N/A", "NA", "NONE", "UNKNOWN", "NOT SUPPORTED"}
_PARTITION_MODES = ("SPX", "DPX", "TPX", "QPX", "CPX")
_SIZE_UNITS = {"B": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3, "TB": 1024**4,
               "KIB": 1024, "MIB": 1024**2, "GIB": 1024**3, "TIB": 1024**4}
_MAX_JSON_FAILURES = 50
_MAX_JSON_DEPTH = 12  # amd-smi nests 4 deep; records deeper are no amd-smi's
# A key starts at a quote no backslash escapes: a line of escaped quotes is read once.
_KEY_IN_LINE = re.compile(r'(?<!\\)"((?:[^"\\\n]|\\.){1,200})"[ \t]{0,20}:')
_MAX_RECORD_LINES = 50_000
_GPU_KEY = re.compile(r'"gpu"\s*:\s*\d')
_MAX_VALUE_CHARS = 300
_JSON_GPU_KEYS = {"asic", "bus", "bdf", "uuid", "kfd_id", "vram", "board", "driver",
                  "partition", "node_id",
                  # monitor and process records
                  "power_usage", "hotspot_temperature", "memory_temperature", "gfx_clk",
                  "vram_used", "vram_total", "process_list"}
_JSON_GPU_KEY = re.compile(
    r'"(asic|bdf|kfd_id|market_name|bus|vram|power_usage|hotspot_temperature|gfx_clk|'
    r'vram_used|vram_total|process_list)"\s*:')

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


@dataclass
class _Gpu(SmiGpu):
    pcie_max_width: tuple[int, str] | None = None
    pcie_max_speed: tuple[float, str] | None = None


@none_on_error
def sniff(text: str) -> tuple[str, float] | None:
    """amd-smi JSON by its keys, text by its version line, table header or `GPU: n` blocks."""
    head = text[:200_000]
    if re.search(r'"card\d+"\s*:', head):
        return None  # rocm-smi --json
    if _JSON_START.search(head) and (
            '"amdsmi_library_version"' in head or '"gpu_data"' in head
            or (_GPU_KEY.search(head) and _JSON_GPU_KEY.search(head))):
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
        return _parse_json(text, source)
    return _parse_text(text, source)


# ----------------------------------------------------------------------------- shared


class _Collector(SmiCollector[_Gpu]):
    def __init__(self, source: str, lines: list[str]) -> None:
        super().__init__(source, lines, _Gpu)
        # (GPU, field path, value, unit) already applied: first wins, so a repeat is a no-op
        self.applied: set[tuple[int, tuple[str, ...], str, str | None]] = set()

    def driver_version(self, value: str, where: str) -> None:
        value = value.strip()
        if value.upper() in _NOT_AVAILABLE:
            return
        if _DKMS_VERSION.match(value):
            self.stack_fact("amdgpu_driver_version", value, where)
            return
        kernel = _KERNEL_IN_VERSION.search(value)
        release = kernel.group(1) if kernel else value
        self.host_fact("kernel", release, where)
        self.stack_fact("amdgpu_driver_version", None, where,
                        missing_reason=f"amd-smi shows the kernel release {release}: the "
                                       "in-tree amdgpu driver, no amdgpu-dkms version")

    def scan_text(self) -> None:
        """Version lines, error messages and paths anywhere in the paste."""
        for index in lines_holding(self.lines, _SCAN_NEEDLES):
            number, line = index + 1, self.lines[index]
            where = self.where(number)
            if (match := _LIBRARY.search(line)) is not None:
                self.stack_fact("amdsmi_library_version", match.group(1), where)
            if (match := _ROCM.search(line)) is not None:
                self.stack_fact("rocm_version", match.group(1), where)
            if (match := _AMDGPU.search(line)) is not None:
                self.driver_version(match.group(1), where)
            if _PLATFORM in line and (
                    "AMD System Management Interface" in line or _TABLE_HEAD.search(line)
                    or line.strip().startswith(("|", _PLATFORM))):
                value = line.split(_PLATFORM, 1)[1].split("|", 1)[0].strip()
                if value:
                    self.platform(value, where)
            if "AMDSMI_STATUS_DRIVER_NOT_LOADED" in line:
                self.signal("amdsmi.driver_not_loaded", None, self.ref(number))
            if "Unable to find libamd_smi" in line:
                self.signal("amdsmi.library_missing", None, self.ref(number))
            for version in ROCM_PATH_RE.findall(line):
                self.signal("rocm.path_version", version, self.ref(number))

    def platform(self, value: str, where: str) -> None:
        if "guest" in value.lower():
            self.host_fact("virtual_machine", True, where)

    def finish(self, fmt: str) -> ParsedOutput:
        sightings: list[GpuSighting] = []
        for index in sorted(self.gpus):
            gpu = self.gpus[index]
            self.mark_partition(gpu)
            self.mark_identity(gpu)
            sightings.append(_sighting(gpu))
        return self.result(fmt, sightings)


def _sighting(gpu: _Gpu) -> GpuSighting:
    extra: dict[str, tuple[object, str]] = {}
    if gpu.pcie_max_width is not None or gpu.pcie_max_speed is not None:
        link = PcieLink(
            max_speed_gt_s=gpu.pcie_max_speed[0] if gpu.pcie_max_speed else None,
            max_width=gpu.pcie_max_width[0] if gpu.pcie_max_width else None,
            measured_at="amd-smi static (the GPU's own link)",
        )
        extra["pcie_link"] = (link, (gpu.pcie_max_speed or gpu.pcie_max_width or (0, ""))[1])
    return gpu.sighting(Layer.AMDSMI, extra)


def _apply(collector: _Collector, gpu: _Gpu, path: tuple[str, ...], raw: object,
           unit: str | None, where: str, ref: EvidenceRef) -> None:
    """One amd-smi field (by its section path, upper-case) into the GPU's facts."""
    if raw is None or isinstance(raw, (dict, list)):
        return
    value = str(raw).strip()
    if value.upper() in _NOT_AVAILABLE:
        return
    key = path[-1]
    section = path[0] if len(path) > 1 else ""
    if key == "BDF" and section in {"", "BUS"}:
        if (bus := pci_bus(value)) is not None:
            gpu.put("pci_bus", bus, where)
    elif key == "UUID" and section == "":
        gpu.put("uuid", value, where)
    elif key == "KFD_ID" and section == "":
        if value.isdigit():
            gpu.put("kfd_gpu_id", int(value), where)
    elif key == "NODE_ID" and section == "":
        if value.isdigit():
            gpu.put("kfd_node", int(value), where)
    elif key == "CARD" and section == "":
        if re.fullmatch(r"card\d+", value):
            gpu.put("drm_card", value, where)
    elif key == "RENDER" and section == "":
        if (match := re.fullmatch(r"renderD(\d+)", value)) is not None:
            gpu.put("drm_render_minor", int(match.group(1)), where)
    elif section == "ASIC":
        _apply_asic(gpu, key, value, where)
    elif section == "BUS" and key == "MAX_PCIE_WIDTH":
        if (width := _number(value)) is not None and gpu.pcie_max_width is None:
            gpu.pcie_max_width = (int(width[0]), where)
    elif section == "BUS" and key == "MAX_PCIE_SPEED":
        speed = _number(value)
        if speed is not None and gpu.pcie_max_speed is None:
            number, text_unit = speed
            unit_name = (unit or text_unit or "GT/s").upper()
            gpu.pcie_max_speed = (number / 1000 if unit_name == "MT/S" else number, where)
    elif section == "VRAM" and key in {"SIZE", "VRAM_SIZE", "VRAM_SIZE_MB", "TOTAL"}:
        size = _number(value)
        if size is not None:
            size_unit = (unit or size[1] or "MB").upper()  # amd-smi's MB are MiB
            gpu.put("vram_total_bytes", int(size[0] * _SIZE_UNITS.get(size_unit, 1024**2)),
                    where)
    elif section == "DRIVER" and key in {"NAME", "DRIVER_NAME"}:
        gpu.put("kernel_driver", value, where)
    elif section == "DRIVER" and key in {"VERSION", "DRIVER_VERSION"}:
        if _DKMS_VERSION.match(value):
            gpu.put("driver_version", value, where)
        else:
            gpu.missing["driver_version"] = (f"{where}: the in-tree amdgpu of the kernel, "
                                             "no amdgpu-dkms version")
        collector.driver_version(value, where)
    elif section == "BOARD" and key == "PRODUCT_NAME":
        gpu.put("board_name", value, where)
    elif section == "BOARD" and key == "PRODUCT_SERIAL":
        gpu.put("serial_number", value, where)
    elif section in {"VBIOS", "IFWI"} and key in {"PART_NUMBER", "VBIOS_PART_NUMBER"}:
        gpu.put("vbios_version", value, where)
    elif section == "PARTITION" and key in {"COMPUTE_PARTITION", "ACCELERATOR_PARTITION",
                                             "CURRENT_PARTITION"}:
        mode = value.split()[0].upper().replace("_DISABLED", "")
        if mode in _PARTITION_MODES and gpu.partition is None:
            gpu.partition = (mode, ref)
    elif section == "LIMIT":
        watts = _number(value)
        if watts is None or watts[0] <= 0:
            return
        if key in {"SOCKET_POWER", "SOCKET_POWER_LIMIT", "POWER_CAP"}:
            gpu.put("power_cap_w", watts[0], where)
        elif key in {"MAX_POWER", "MAX_POWER_LIMIT", "MAX_POWER_CAP"}:
            gpu.put("power_cap_max_w", watts[0], where)


def _apply_asic(gpu: _Gpu, key: str, value: str, where: str) -> None:
    if key == "MARKET_NAME":
        if re.fullmatch(r"0x[0-9a-fA-F]+", value):
            gpu.missing["name"] = f"{where}: amd-smi shows {value}, not a name"
        else:
            gpu.put("name", value, where)
    elif key == "VENDOR_ID":
        if (vendor_id := _hex_id(value, 4)) is not None:
            gpu.put("pci_vendor_id", vendor_id, where)
            vendor = Vendor.from_pci_vendor_id(vendor_id)
            if vendor is not None:
                gpu.put("vendor", vendor, where)
    elif key == "SUBVENDOR_ID":
        if (sub := _hex_id(value, 4)) is not None:
            gpu.put("pci_subsystem_vendor_id", sub, where)
    elif key == "DEVICE_ID":
        if (device := _hex_id(value, 4)) is not None:
            gpu.put("pci_device_id", device, where)
    elif key == "SUBSYSTEM_ID":
        if (sub := _hex_id(value, 4)) is not None:
            gpu.put("pci_subsystem_device_id", sub, where)
    elif key == "REV_ID":
        if (rev := _hex_id(value, 2)) is not None:
            gpu.put("pci_revision", rev, where)
    elif key in {"NUM_COMPUTE_UNITS", "NUM_OF_COMPUTE_UNITS"}:
        if value.isdigit() and int(value) > 0:
            gpu.put("compute_units", int(value), where)
    elif key == "TARGET_GRAPHICS_VERSION" and (gfx := decode_gfx_version(value)) is not None:
        gpu.put("gfx_target", gfx, where)


def _hex_id(value: str, width: int) -> str | None:
    token = value.strip().split()[0] if value.strip() else ""
    try:
        number = int(token, 16)  # amd-smi ids are hex, with or without 0x
    except ValueError:
        return None
    return f"0x{number:0{width}x}" if number >= 0 else None


def _number(value: str) -> tuple[float, str] | None:
    match = _NUMBER.match(value.strip())
    return (float(match.group(1)), match.group(2)) if match else None


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
    lines, cut = read_lines(text)
    collector = _Collector(source, lines)
    if cut:
        collector.problems.append(cut)
    collector.scan_text()
    gpu: _Gpu | None = None
    base_indent = 0
    sections: list[tuple[int, str]] = []
    table_gpu: tuple[str, str, int] | None = None  # (bus, name cell, line) of a table row
    monitor: int | None = None  # where the GPU number stands in a monitor table's rows
    key_values: dict[str, tuple[int, str, str] | None] = {}
    first_rows: dict[str, tuple[str, str] | None] = {}
    headers: dict[str, int | None] = {}  # `--watch` repeats the header every interval
    rows_read: set[tuple[tuple[str, str], tuple[str, str, str]]] = set()
    for number, raw in enumerate(lines, start=1):
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
        if body.startswith(("GPU ", "TIMESTAMP ")) and (position := (
                headers[line] if line in headers
                else headers.setdefault(line, _monitor_header(line)))) is not None:
            monitor, gpu = position, None
            continue
        if "|" in line:
            if line not in first_rows:  # a table pasted again repeats its lines
                first_rows[line] = _row_one(line)
            row = first_rows[line]
        else:
            row = None
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
        if line in key_values:  # the blocks of a long paste repeat their lines
            found = key_values[line]
        else:
            found = key_values[line] = _key_value(line)
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
        _apply(collector, gpu, path, value, None, collector.where(number),
               collector.ref(number))
    return collector.finish("amd-smi-text")


def _table_row(collector: _Collector, row: tuple[str, str, int],
               second: tuple[str, str, str], number: int) -> None:
    bus, name_cell, first_line = row
    gpu = collector.gpu(int(second[0]), collector.where(first_line))
    where_first = collector.where(first_line)
    where = collector.where(number)
    if (address := pci_bus(bus)) is not None:
        gpu.put("pci_bus", address, where_first)
    name = _NAME_COUNT.sub("", name_cell.rstrip()).strip()
    if name.startswith("...") or name.endswith("..."):
        gpu.missing.setdefault("name", f"{where_first}: the table cuts the name ({name})")
    elif name and name.upper() not in _NOT_AVAILABLE:
        gpu.put("name", name, where_first)
    mode = second[1].split("/")[0].upper()
    if mode in _PARTITION_MODES and gpu.partition is None:
        gpu.partition = (mode, collector.ref(number))
    first_cells = collector.line(first_line) or ""
    if (power := _ROW_POWER.search(first_cells)) is not None and float(power.group(2)) > 0:
        gpu.put("power_cap_w", float(power.group(2)), where_first)
    if (memory := _ROW_MEMORY.search(second[2])) is not None:
        gpu.put("vram_total_bytes", int(memory.group(2)) * 1024**2, where)


# ----------------------------------------------------------------------------- JSON


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
def _parse_json(text: str, source: str) -> ParsedOutput:
    lines, cut = read_lines(text)
    collector = _Collector(source, lines)
    if cut:
        collector.problems.append(cut)
    collector.scan_text()
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


def _json_versions(collector: _Collector, record: Mapping[str, JsonValue], line: int) -> None:
    lines = collector.lines
    for key, fact in (("amdsmi_library_version", "amdsmi_library_version"),
                      ("rocm_version", "rocm_version")):
        value = record.get(key)
        if isinstance(value, str) and value.upper() not in _NOT_AVAILABLE:
            collector.stack_fact(fact, value,
                                 collector.where(_find_line(lines, line, f'"{key}"') or line))
    amdgpu = record.get("amdgpu_version")
    if isinstance(amdgpu, str):
        collector.driver_version(
            amdgpu, collector.where(_find_line(lines, line, '"amdgpu_version"') or line))


def _json_record(collector: _Collector, gpu: _Gpu, record: Mapping[str, JsonValue],
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
        _apply(collector, gpu, path, raw, unit,
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
