"""`rocm-smi` as people paste it: `--json` (ROCm 4.x to 7.x key sets) and the text layouts.

JSON: `card0..cardN` objects and a `system` object (`Driver version`); text: the concise
default table of ROCm 3/4/5 (`GPU Temp AvgPwr SCLK ...`), of ROCm 6.0/6.1
(`Device [Model : Revision] ...` with a name line under each row) and of ROCm 6.2+ (`Device
Node IDs (DID, GUID) ... Partitions (Mem, Compute, ID)`), plus the `GPU[n]\t\t: Key: value`
sections of `--showproductname`, `-i`/`--showid`, `--showbus`, `--showmeminfo vram`,
`--showuniqueid`, `--showserial`, `--showvbios`, `--showcomputepartition`,
`--showmemorypartition`, `--showdriverversion` and `-a`, and the `--showhw` (`-hw`) table in
all its layouts: `GPU DID ECC VBIOS` (ROCm 1.x/2.x), `GPU DID GFX RAS SDMA RAS UMC RAS VBIOS
BUS` (ROCm 3 to 5; DID without 0x), and `GPU NODE DID GUID GFX VER ... VBIOS BUS PARTITION ID`
(ROCm 6.1+). Several outputs in one paste are merged per GPU index. GPUs that share one PCI
address (the partitions of an MI300 in `--showhw`) are partitions: they keep no bus, so that
they are not joined into one GPU.

A rocm-smi listing proves that amdgpu drives the GPU and that rocm_smi reads it (stack fact
`amdgpu_loaded`); it proves nothing about KFD/ROCm compute, so no kfd facts come from here.
Each GPU becomes a `Layer.ROCM_SMI` sighting with `smi_index`; gfx targets come from the
`GFX Version` key (rocm_smi of ROCm 6.x writes some decimal-packed: `gfx11001` is gfx1101,
`gfx9010` is gfx90a) and are otherwise left to the inventory's device table. `Driver version`
is the amdgpu-dkms version, or the kernel release when the driver is the in-tree one (rocm_smi
falls back to uname); the latter becomes the host fact `kernel`, not a driver version.

Signals emitted:
- `gpu.partition_mode`: a GPU in a compute partition mode other than SPX (DPX/TPX/QPX/CPX);
  detail = the mode. Such sightings get `kind = partition`.
- `amdgpu.no_drm_devices` (new): "/sys/class/drm is empty or missing" / "No DRM devices
  available": no GPU is bound to a DRM driver at all.
- `rocm.path_version`: a `/opt/rocm-X.Y.Z` path in the paste; detail = the version.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

from gpuscope.i18n import message
from gpuscope.model import EvidenceRef, Fact, GpuKind, GpuSighting, Layer, ParsedOutput, Vendor
from gpuscope.parsers._common import (
    ROCM_PATH_RE,
    LineReads,
    SmiCollector,
    SmiGpu,
    line_of,
    never_raises,
    none_on_error,
    pci_bus,
)
from gpuscope.parsers._common import decode_gfx_version as decode_gfx_version

FORMATS: tuple[str, ...] = ("rocm-smi-text", "rocm-smi-json")

_BANNER = re.compile(r"ROCm System Management Interface|End of ROCm SMI Log")
_GPU_LINE = re.compile(r"^[ \t]*GPU\[(\d+)\][ \t]*:(.*)$")
_CARD_KEY = re.compile(r'"card\d+"\s*:\s*\{')
_NO_DRM = re.compile(r"/sys/class/drm is empty or missing|No DRM devices available")
_DRIVER_LINE = re.compile(r"^[ \t]*Driver version:[ \t]*(\S+)[ \t]*$", re.IGNORECASE)
_SECTION_TITLE = re.compile(r"^=+[ \t]*[A-Za-z]")
_HEX = re.compile(r"^0x[0-9a-fA-F]+$")
_DKMS_VERSION = re.compile(r"^\d+\.\d+(?:\.\d+)?$")
_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?")
_PARTITION_MODES = ("SPX", "DPX", "TPX", "QPX", "CPX")
_QUOTE = re.compile(r"^\s*>(?: |$)")

# Concise table rows of the three layouts.
_ROW_START = re.compile(r"^\s*(\d+)\s+\S")
_ROW_IDS = re.compile(r"^\s*(\d+)\s+(\d+)\s+(0x[0-9a-fA-F]+|\d+),\s*(\d+|N/A)\s")
_ROW_MODEL = re.compile(r"^\s*(\d+)\s+\[(0x[0-9a-fA-F]+)\s*:\s*(0x[0-9a-fA-F]+)\]")
_ROW_PARTITIONS = re.compile(
    r"\b(NPS\d|N/A),[ \t]{0,20}(SPX|DPX|TPX|QPX|CPX|N/A)(?:,[ \t]{0,20}(\d+|N/A))?")
# Searched, so it starts only where a number starts (the lookbehind): linear on digit runs.
_ROW_TAIL = re.compile(
    r"(?<![\d.])(\d+(?:\.\d+)?)W[ \t]{1,20}(\d+)%[ \t]{1,20}(\d+)%[ \t]*$")

# The --showhw table: a header that starts with GPU and names DID (and VBIOS or BUS); columns
# are two or more spaces apart, the values left-justified under them.
_HW_HEADER = re.compile(r"^[ \t]*GPU[ \t]+(?:NODE[ \t]+)?DID[ \t]", re.MULTILINE)
_COLUMN_GAP = re.compile(r"[ \t]{2,}")
_HEX_DID = re.compile(r"^(?:0[xX])?([0-9a-fA-F]{1,4})$")
# Lines of a paste read (rocm-smi of a 64-partition node has a few thousand), each cut: the
# work per paste stays linear in its size.
_MAX_LINES = 200_000
_MAX_LINE_CHARS = 2000
_MAX_GPUS = 256  # GPU indexes kept: no machine has more


@none_on_error
def sniff(text: str) -> tuple[str, float] | None:
    """rocm-smi JSON by its `cardN` objects, text by its banner or `GPU[n]` lines."""
    head = text[:200_000]
    stripped = head.lstrip()
    if _CARD_KEY.search(head) and "{" in stripped[:4000]:
        return ("rocm-smi-json", 0.93)
    if _BANNER.search(head):
        return ("rocm-smi-text", 0.95)
    if _NO_DRM.search(head):
        return ("rocm-smi-text", 0.8)
    if _HW_HEADER.search(head) and "VBIOS" in head:
        return ("rocm-smi-text", 0.85)
    if re.search(r"^[ \t]*GPU\[\d+\][ \t]*:[ \t]*\S", head, re.MULTILINE):
        return ("rocm-smi-text", 0.75)
    return None


@never_raises("rocm-smi-text")
def parse(text: str, source: str) -> ParsedOutput:
    """rocm-smi JSON or text to sightings, stack facts and signals; never raises."""
    found = sniff(text)
    if found is not None and found[0] == "rocm-smi-json":
        parsed = _parse_json(text, source)
        if parsed is not None:
            return parsed
    return _parse_text(text, source)


# ----------------------------------------------------------------------------- shared


class _Collector(SmiCollector[SmiGpu]):
    def __init__(self, source: str, lines: list[str]) -> None:
        super().__init__(source, lines, SmiGpu)
        self.max_evidence = 20  # lines kept per signal: a paste of repeated lines stays linear
        # GPU index -> (--showhw's PARTITION ID, where it was read)
        self.partition_ids: dict[int, tuple[int, str]] = {}
        self.left_out = False  # GPUs past `_MAX_GPUS` were seen

    def gpu(self, index: int, where: str) -> SmiGpu:
        if index not in self.gpus and len(self.gpus) >= _MAX_GPUS:
            self.left_out = True
            return SmiGpu(index, where)  # read, not kept
        return super().gpu(index, where)

    def driver_version(self, value: str, number: int | None) -> None:
        value = value.strip()
        if not value or value.upper() == "N/A":
            return
        if "amdgpu_driver_version" in self.stack or "kernel" in self.host:
            return
        if _DKMS_VERSION.match(value):
            self.stack_fact("amdgpu_driver_version", value, self.where(number))
        else:
            # rocm_smi reports uname's release when /sys/module/amdgpu/version is absent,
            # i.e. for the in-tree driver: that is the kernel, not an amdgpu-dkms version.
            self.host_fact("kernel", value, self.where(number))
            self.stack_fact(
                "amdgpu_driver_version", None, self.where(number),
                missing_reason=message("rocm-smi shows the kernel release {release}: the "
                                       "in-tree amdgpu driver, no amdgpu-dkms version",
                                       release=value))

    def scan_messages(self) -> None:
        spent: set[str] = set()  # lines whose signals hold all the evidence they keep
        for number, line in enumerate(self.lines, start=1):
            # `_NO_DRM` needs "drm" or "DRM", `ROCM_PATH_RE` "rocm-"
            if not ("rocm-" in line or "drm" in line or "DRM" in line) or line in spent:
                continue
            no_drm = _NO_DRM.search(line) is not None
            if no_drm:
                self.signal_at("amdgpu.no_drm_devices", None, number)
            versions = ROCM_PATH_RE.findall(line)
            for version in versions:
                self.signal_at("rocm.path_version", version, number)
            if (not no_drm or self.signal_full("amdgpu.no_drm_devices", None)) and all(
                    self.signal_full("rocm.path_version", version) for version in versions):
                spent.add(line)

    def mark_shared_buses(self) -> None:
        """GPUs at one PCI address are partitions of one GPU (an MI300 in CPX shows one bus
        per physical GPU in --showhw and --showbus): each keeps its index, not the bus, so
        that joining by address does not fold them into one; a non-zero PARTITION ID says
        the same of a single row."""
        by_bus: dict[object, list[SmiGpu]] = {}
        for gpu in self.gpus.values():
            if "pci_bus" in gpu.values:
                by_bus.setdefault(gpu.values["pci_bus"], []).append(gpu)
        for bus, shared in by_bus.items():
            if len(shared) < 2:
                continue
            for gpu in shared:
                where = gpu.sources.pop("pci_bus", "")
                del gpu.values["pci_bus"]
                gpu.missing["pci_bus"] = message(
                    "{where}: {count} partitions share the PCI address {bus}", where=where,
                    count=len(shared), bus=bus)
                gpu.put("kind", GpuKind.PARTITION, where)
        for index, (partition_id, where) in self.partition_ids.items():
            if partition_id > 0 and index in self.gpus:
                self.gpus[index].put("kind", GpuKind.PARTITION, where)

    def finish(self, fmt: str) -> ParsedOutput:
        sightings: list[GpuSighting] = []
        self.mark_shared_buses()
        for index in sorted(self.gpus):
            gpu = self.gpus[index]
            self.mark_partition(gpu)
            self.mark_identity(gpu)
            gpu.missing.setdefault("gfx_target",
                                   message("rocm-smi shows no GFX Version for this GPU"))
            sightings.append(gpu.sighting(Layer.ROCM_SMI))
        if sightings:
            first = next(iter(sightings[0].field_sources.values()), self.source)
            self.stack = {"amdgpu_loaded": Fact("amdgpu_loaded", True, first), **self.stack}
        if self.left_out:
            self.problems.append(f"more than {_MAX_GPUS} GPUs: the rest were not read")
        return self.result(fmt, sightings)


def _apply(collector: _Collector, gpu: SmiGpu, key: str, value: str, where: str,
           ref: EvidenceRef) -> None:
    """One `Key: value` of a card (JSON or text) into the GPU's facts."""
    key = " ".join(key.lower().replace("\t", " ").split()).rstrip(":")
    value = value.strip()
    if not value or value.upper() in {"N/A", "NA", "UNKNOWN", "NONE"}:
        return
    if key in {"device id", "gpu id"}:
        if (hex_id := _hex_id(value, 4)) is not None:
            gpu.put("pci_device_id", hex_id, where)
    elif key == "device rev":
        if (rev := _hex_id(value, 2)) is not None:
            gpu.put("pci_revision", rev, where)
    elif key == "subsystem id":
        if (sub := _hex_id(value, 4)) is not None:
            gpu.put("pci_subsystem_device_id", sub, where)
    elif key in {"card series", "device name"}:
        if _is_name(value):
            gpu.put("name", value, where)
        else:
            gpu.missing.setdefault("name", message("{where}: rocm-smi shows {value}, not a name",
                                                   where=where, value=value))
    elif key == "card vendor":
        if "advanced micro devices" in value.lower() or value.lower() == "0x1002":
            gpu.put("vendor", Vendor.AMD, where)
    elif key == "card model":
        # Hex here is the device or the subsystem id depending on the release: not a name.
        if _is_name(value):
            gpu.put("board_name", value, where)
    elif key == "gfx version":
        if (gfx := decode_gfx_version(value)) is not None:
            gpu.put("gfx_target", gfx, where)
    elif key == "pci bus":
        if (bus := pci_bus(value)) is not None:
            gpu.put("pci_bus", bus, where)
    elif key == "vram total memory (b)":
        if value.isdigit():
            gpu.put("vram_total_bytes", int(value), where)
    elif key == "vis_vram total memory (b)":
        if value.isdigit():
            gpu.put("visible_vram_total_bytes", int(value), where)
    elif key == "gtt total memory (b)":
        if value.isdigit():
            gpu.put("gtt_total_bytes", int(value), where)
    elif key == "unique id":
        gpu.put("uuid", value, where)
    elif key == "serial number":
        gpu.put("serial_number", value, where)
    elif key == "vbios version":
        gpu.put("vbios_version", value, where)
    elif key == "max graphics package power (w)":
        if (watts := _number(value)) is not None and watts > 0:
            gpu.put("power_cap_w", watts, where)
    elif key == "node id":
        if value.isdigit():
            gpu.put("kfd_node", int(value), where)
    elif key == "guid":
        if value.isdigit():
            gpu.put("kfd_gpu_id", int(value), where)
    elif key == "driver version":
        collector.driver_version(value, line_of(where))
    elif key in {"compute partition", "current compute partition"}:
        mode = value.split()[0].upper()
        if mode in _PARTITION_MODES and gpu.partition is None:
            gpu.partition = (mode, ref)


def _is_name(value: str) -> bool:
    return bool(value) and not _HEX.match(value) and not value.isdigit()


def _hex_id(value: str, width: int) -> str | None:
    token = value.strip().split()[0] if value.strip() else ""
    try:
        number = int(token, 16) if token.lower().startswith("0x") else int(token)
    except ValueError:
        return None
    return f"0x{number:0{width}x}" if number >= 0 else None


def _number(value: str) -> float | None:
    match = _NUMBER.match(value.strip())
    return float(match.group(0)) if match else None


# ----------------------------------------------------------------------------- JSON


@never_raises("rocm-smi-json")  # a failure while reading JSON is reported as JSON
def _parse_json(text: str, source: str) -> ParsedOutput | None:
    start = text.find("{")
    if start < 0:
        return None
    lines = _read_lines(text)[0]
    collector = _Collector(source, lines)
    collector.scan_messages()
    blocks: Mapping[str, Mapping[str, object]]
    try:
        document, end = json.JSONDecoder().raw_decode(text[start:])
    except (ValueError, RecursionError) as exc:
        # Cut or hand-edited: read the "key": "value" pairs in order instead.
        scanned = _scan_pairs(text)
        collector.problems.append(f"{source}: rocm-smi JSON is not valid JSON ({exc}); "
                                  "read pair by pair")
        blocks = {name: {key: value for key, (value, _) in pairs.items()}
                  for name, (_, pairs) in scanned.items()}
    else:
        if not isinstance(document, dict):
            return None
        # The lines of the document's pairs: what follows it (the same document pasted
        # again) only repeats them, and the first line of each pair is kept.
        scanned = _scan_pairs(text[:start + end])
        blocks = {str(k): v for k, v in document.items() if isinstance(v, Mapping)}
    for name, block in blocks.items():
        block_line, pairs = scanned.get(name, (None, {}))
        match = re.fullmatch(r"card(\d+)", name)
        if match is not None:
            gpu = collector.gpu(int(match.group(1)), collector.where(block_line, name))
            for key, raw in block.items():
                if not isinstance(raw, (str, int, float)) or isinstance(raw, bool):
                    continue
                number = pairs.get(str(key), (None, None))[1]
                _apply(collector, gpu, str(key), str(raw),
                       collector.where(number, f"{name} {key!r}"), collector.ref(number))
        elif name.lower() == "system":
            for key, raw in block.items():
                if str(key).lower() == "driver version" and isinstance(raw, str):
                    collector.driver_version(raw, pairs.get(str(key), (None, None))[1])
    return collector.finish("rocm-smi-json")


# Keys and values of rocm-smi are short: the bounds, and a key that starts only at a quote no
# backslash escapes, keep a paste of quotes linear (each start reads at most 200 characters).
_PAIR = re.compile(
    r'(?<!\\)"((?:[^"\\\n]|\\.){0,200})"[ \t]{0,20}:[ \t]{0,20}'
    r'(\{|"((?:[^"\\\n]|\\.){0,200})")')


def _scan_pairs(text: str) -> dict[str, tuple[int, dict[str, tuple[str, int]]]]:
    """Object name -> (its line, {key: (string value, line)}) for the flat two-level JSON of
    rocm-smi, in one pass; works on cut documents and on single-line output alike."""
    found: dict[str, tuple[int, dict[str, tuple[str, int]]]] = {}
    current: dict[str, tuple[str, int]] | None = None
    line = 1
    position = 0
    for match in _PAIR.finditer(text):
        line += text.count("\n", position, match.start())
        position = match.start()
        key = _unescape(match.group(1))
        if match.group(2) == "{":
            current = found.setdefault(key, (line, {}))[1]
        elif current is not None and key not in current:
            current[key] = (_unescape(match.group(3)), line)
    return found


def _unescape(value: str) -> str:
    if "\\" not in value:
        return value
    try:
        decoded = json.loads(f'"{value}"')
    except ValueError:
        return value
    return decoded if isinstance(decoded, str) else value


# ----------------------------------------------------------------------------- text


def _read_lines(text: str) -> tuple[list[str], str | None]:
    """The first `_MAX_LINES` lines, each cut to `_MAX_LINE_CHARS`, and a problem when some
    were left out."""
    lines = text.splitlines()
    note = None
    if len(lines) > _MAX_LINES:
        note = f"only the first {_MAX_LINES:,} of {len(lines):,} lines were read"
        del lines[_MAX_LINES:]
    return [line[:_MAX_LINE_CHARS] for line in lines], note


class _Line:
    """One line as `_parse_text` reads it, whatever comes before it."""

    __slots__ = ("driver", "end", "gpu", "hw", "line", "row_start", "sclk", "stripped")

    def __init__(self, raw: str) -> None:
        # a paste quoted in markdown ("> ...") is read without its quote marks
        line = _QUOTE.sub("", raw, count=1).rstrip() if ">" in raw else raw.rstrip()
        self.line = line
        self.stripped = line.strip()
        self.hw = _hw_header(line) if "DID" in line else None
        self.row_start = _ROW_START.match(line) is not None
        match = _GPU_LINE.match(line) if "GPU[" in line else None
        self.gpu = (int(match.group(1)), match.group(2)) if match is not None else None
        match = _DRIVER_LINE.match(line) if ":" in line else None
        self.driver = match.group(1) if match is not None else None
        self.sclk = line.split() if "SCLK" in line and "MCLK" in line and re.match(
            r"^\s*(GPU|Device)\b", line) else None
        self.end = bool(_SECTION_TITLE.match(self.stripped)) or "End of ROCm SMI Log" in line


def _parse_text(text: str, source: str) -> ParsedOutput:
    lines, note = _read_lines(text)
    collector = _Collector(source, lines)
    if note:
        collector.problems.append(f"{source}: {note}")
    collector.scan_messages()
    header: list[str] | None = None
    hw_columns: list[tuple[str, int]] | None = None
    hw_line = ""  # the header line of `hw_columns`
    last_row: SmiGpu | None = None
    reads = LineReads(_Line)
    # Lines whose facts were taken (a GPU's facts are first-wins: the same line again adds
    # nothing), and the GPU of each concise row read.
    done: set[str | tuple[str, str]] = set()
    rows: dict[str, SmiGpu] = {}
    for number, raw in enumerate(lines, start=1):
        read = reads[raw]
        line = read.line
        if read.hw is not None:
            hw_columns, hw_line, header = read.hw, line, None
            continue
        if hw_columns is not None:
            if read.row_start:
                if (hw_line, line) not in done:
                    done.add((hw_line, line))
                    _hw_row(collector, hw_columns, line, number)
                continue
            if read.stripped:
                hw_columns = None  # the table ended; read the line as anything else
        if read.gpu is not None:
            header = None
            if line not in done:
                done.add(line)
                index, rest = read.gpu
                gpu = collector.gpu(index, collector.where(number))
                key, sep, value = rest.partition(":")
                if sep:
                    _apply(collector, gpu, key, value, collector.where(number),
                           collector.ref(number))
            continue
        if read.driver is not None:
            collector.driver_version(read.driver, number)
            continue
        if read.sclk is not None:
            header = read.sclk
            last_row = None
            continue
        if header is None:
            continue
        if read.end:
            header = None
            continue
        if read.row_start:
            if line in rows:
                last_row = rows[line]
            else:
                last_row = _concise_row(collector, line, number)
                rows[line] = last_row
            continue
        stripped = read.stripped
        if (last_row is not None and stripped and not stripped.startswith(("(", "="))
                and "[Model" in " ".join(header)):
            # ROCm 6.0/6.1 print the name (at most 20 characters) under each row.
            if len(stripped) < 20:
                last_row.put("name", stripped, collector.where(number))
            else:
                last_row.missing["name"] = message(
                    "{where}: the concise table cuts names at 20 characters",
                    where=collector.where(number))
            last_row = None
    return collector.finish("rocm-smi-text")


def _concise_row(collector: _Collector, line: str, number: int) -> SmiGpu:
    where = collector.where(number)
    ref = collector.ref(number)
    index = int(line.split()[0])
    gpu = collector.gpu(index, where)
    if (match := _ROW_IDS.match(line)) is not None:
        gpu.put("kfd_node", int(match.group(2)), where)
        if (device := _hex_id(match.group(3), 4)) is not None:
            gpu.put("pci_device_id", device, where)
        if match.group(4).isdigit():
            gpu.put("kfd_gpu_id", int(match.group(4)), where)
    elif (match := _ROW_MODEL.match(line)) is not None:
        if (device := _hex_id(match.group(2), 4)) is not None:
            gpu.put("pci_device_id", device, where)
        if (rev := _hex_id(match.group(3), 2)) is not None:
            gpu.put("pci_revision", rev, where)
    if (match := _ROW_PARTITIONS.search(line)) is not None:
        mode = match.group(2).upper()
        if mode in _PARTITION_MODES and gpu.partition is None:
            gpu.partition = (mode, ref)
    if (match := _ROW_TAIL.search(line)) is not None:
        watts = float(match.group(1))
        if watts > 0:
            gpu.put("power_cap_w", watts, where)
    return gpu


def _hw_header(line: str) -> list[tuple[str, int]] | None:
    """The --showhw header's columns as (name, start offset), or None for another line."""
    if not _HW_HEADER.match(line) or "SCLK" in line:
        return None
    columns: list[tuple[str, int]] = []
    position = 0
    for name in _COLUMN_GAP.split(line.strip()):
        position = line.find(name, position)
        columns.append((name.upper(), position))
        position += len(name)
    names = {name for name, _ in columns}
    return columns if names & {"VBIOS", "BUS"} else None


def _hw_cells(columns: list[tuple[str, int]], line: str) -> list[str]:
    """One row's values: by whitespace when there are as many as columns (a paste that lost
    the alignment), else by the header's offsets (a value left empty or holding a space)."""
    tokens = line.split()
    if len(tokens) == len(columns):
        return tokens
    offsets = [start for _, start in columns] + [len(line)]
    return [line[offsets[i]:offsets[i + 1]].strip() for i in range(len(columns))]


def _hw_row(collector: _Collector, columns: list[tuple[str, int]], line: str,
            number: int) -> None:
    where = collector.where(number)
    cells = dict(zip((name for name, _ in columns), _hw_cells(columns, line), strict=True))
    index = cells.get("GPU", "")
    if not index.isdigit():
        return
    gpu = collector.gpu(int(index), where)

    def value(name: str) -> str | None:
        cell = cells.get(name, "")
        return cell if cell and cell.upper() not in {"N/A", "NONE", "UNKNOWN"} else None

    if (did := value("DID")) is not None and (match := _HEX_DID.match(did)) is not None:
        gpu.put("pci_device_id", f"0x{int(match.group(1), 16):04x}", where)
    if (rev := value("DREV")) is not None and (match := _HEX_DID.match(rev)) is not None:
        gpu.put("pci_revision", f"0x{int(match.group(1), 16):02x}", where)
    if (node := value("NODE")) is not None and node.isdigit():
        gpu.put("kfd_node", int(node), where)
    if (guid := value("GUID")) is not None and guid.isdigit():
        gpu.put("kfd_gpu_id", int(guid), where)
    if (gfx := value("GFX VER")) is not None and (target := decode_gfx_version(gfx)):
        gpu.put("gfx_target", target, where)
    if (vbios := value("VBIOS")) is not None:
        gpu.put("vbios_version", vbios, where)
    if (bus := value("BUS")) is not None and (address := pci_bus(bus)) is not None:
        gpu.put("pci_bus", address, where)
    if (partition := value("PARTITION ID")) is not None and partition.isdigit():
        collector.partition_ids.setdefault(gpu.index, (int(partition), where))
