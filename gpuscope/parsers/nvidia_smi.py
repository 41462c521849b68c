"""nvidia-smi as people paste it: the default table (drivers 3xx to 5xx, the pre-MIG, MIG-era
and 530+ layouts), ``-q`` text, ``-q -x`` XML (nvidia_smi_xml.py), ``-L``, ``--query-gpu`` CSV
(nvidia_smi_csv.py) and its error messages; what they share is in nvidia_smi_fields.py.

Every physical GPU becomes a sighting of the NVML layer (nvidia-smi is NVML's command line);
MIG devices are instances of a GPU, never GPUs. The header's "CUDA Version" is the newest CUDA
the driver supports (`cuda_driver_version`), not an installed toolkit.

Signal kinds emitted:

- ``nvidia.mig_enabled``: MIG mode is on (detail = PCI bus; for ``-L``, which shows no bus,
  the GPU UUID).
- ``nvml.driver_library_mismatch``: "Failed to initialize NVML: Driver/library version mismatch".
- ``nvml.init_failed``: any other "Failed to initialize NVML: <reason>" (detail = reason).
- ``nvml.library_missing``: "NVIDIA-SMI couldn't find libnvidia-ml.so library".
- ``nvidia.driver_not_loaded``: "NVIDIA-SMI has failed because it couldn't communicate with the
  NVIDIA driver".
- ``nvidia.no_devices``: "No devices were found".
- ``nvidia.gpu_unreachable``: "Unable to determine the device handle for GPU ...: <reason>"
  (detail = PCI bus), e.g. a GPU that fell off the bus.
- ``platform.wsl``: the table's NVIDIA-SMI version differs from its driver version, which only
  happens under WSL2 (Linux nvidia-smi over the Windows driver).
"""

from __future__ import annotations

import dataclasses
import re

from gpuscope.i18n import message
from gpuscope.model import GpuKind, GpuSighting, ParsedOutput
from gpuscope.parsers import nvidia_smi_csv
from gpuscope.parsers._common import lines_holding, never_raises, read_lines, sniff_lines
from gpuscope.parsers.nvidia_smi_fields import (
    BUS_RE,
    MAX_GPUS,
    VGPU_NAME_RE,
    Facts,
    Output,
    clean,
    common_gpu_facts,
    first_number,
    normalise_bus,
    pci_id_pair,
    pcie_link,
    size_bytes,
    virtualization,
)
from gpuscope.parsers.nvidia_smi_xml import parse_xml

FORMATS: tuple[str, ...] = (
    "nvidia-smi-table", "nvidia-smi-q", "nvidia-smi-xml", "nvidia-smi-list", "nvidia-smi-csv",
    "nvidia-smi-error",
)

_SNIFF_CHARS = 200_000
_MAX_SCAN = 2000  # characters of a line worth matching (nvidia-smi's are far shorter)

_TABLE_HEADER_RE = re.compile(
    r"NVIDIA-SMI\s+(?P<smi>[\w.]+)\s+Driver Version:\s*(?P<driver>[\w.]+)"
    r"(?:\s+CUDA Version:\s*(?P<cuda>[\w./]+))?")
_ROW_MODES = ("On", "Off", "WDDM", "TCC", "MCDM", "N/A")
# Numbers found by search start only where a number starts (the lookbehind): linear.
_MEMORY_RE = re.compile(
    r"(?<!\d)(?P<used>\d+)[ \t]{0,8}MiB[ \t]{0,8}/[ \t]{0,8}(?P<total>\d+)[ \t]{0,8}MiB")
_LIST_RE = re.compile(r"^GPU (?P<index>\d+): (?P<name>\S.*)$")
_UUID_RE = re.compile(r"[^)\s]+")
_LIST_UUID_RE = re.compile(r"^GPU \d+: .+ \(UUID: GPU-[0-9A-Fa-f-]+\)[ \t\r]*$", re.MULTILINE)
_MIG_LINE_RE = re.compile(
    r"^\s+MIG\s+\S+\s+Device\s+(?P<index>\d+):\s*\(UUID:\s*(?P<uuid>[^)\s]+)\)")
_Q_GPU_RE = re.compile(r"^GPU\s+(?P<bus>[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])\s*$")
_Q_MAX_DEPTH = 8  # section nesting of -q (four levels deep at most in real output)

_NVML_MISMATCH_RE = re.compile(r"Failed to initialize NVML:\s*Driver/library version mismatch",
                               re.IGNORECASE)
_NVML_FAILED_RE = re.compile(r"Failed to initialize NVML:[ \t]*(?P<reason>\S.*)$")
_NVML_VERSION_RE = re.compile(r"NVML library version:\s*(?P<version>[\d.]+)")
_NOT_COMMUNICATE_RE = re.compile(
    r"NVIDIA-SMI has failed because it couldn.{1,3}t communicate with the NVIDIA driver")
_NO_DEVICES_RE = re.compile(r"^\s*No devices were found\s*$")
_NO_LIBRARY_RE = re.compile(r"couldn.{1,3}t find libnvidia-ml\.so")
_HANDLE_RE = re.compile(
    r"Unable to determine the device handle for (?:GPU|gpu)\s*(?P<bus>[0-9A-Fa-f:.]+):"
    r"\s*(?P<reason>.*)$")
# Every error expression needs one of these in the line: a cheap test first.
_ERROR_WORDS = ("NVML", "nvml", "NVIDIA-SMI", "No devices", "libnvidia-ml", "device handle")
_ERROR_SNIFF_RES = (_NVML_FAILED_RE, _NOT_COMMUNICATE_RE, _NO_LIBRARY_RE, _HANDLE_RE)



# ----------------------------------------------------------------------------------- sniff

def sniff(text: str) -> tuple[str, float] | None:
    """Which nvidia-smi output this is, by content."""
    head = text[:_SNIFF_CHARS]
    if "<nvidia_smi_log" in head:
        return ("nvidia-smi-xml", 0.97)
    if _TABLE_HEADER_RE.search(head) or ("| GPU  Name" in head and "Bus-Id" in head):
        return ("nvidia-smi-table", 0.95)
    if "NVSMI LOG" in head or (
            re.search(r"^Attached GPUs\s+:", head, re.MULTILINE)
            and re.search(r"^[ \t]+Product Name[ \t]+:", head, re.MULTILINE)):
        return ("nvidia-smi-q", 0.95)
    if _LIST_UUID_RE.search(head):
        return ("nvidia-smi-list", 0.9)
    csv = nvidia_smi_csv.sniff(head)
    if csv is not None:
        return ("nvidia-smi-csv", csv)
    lines = sniff_lines(head)
    if len(lines) <= 30 and any(
            pattern.search(line) for line in lines for pattern in _ERROR_SNIFF_RES):
        return ("nvidia-smi-error", 0.85)
    if 0 < len(lines) <= 5 and any(_NO_DEVICES_RE.match(line) for line in lines):
        return ("nvidia-smi-error", 0.8)
    return None


# ----------------------------------------------------------------------------------- parse

@never_raises("nvidia-smi")
def parse(text: str, source: str) -> ParsedOutput:
    """nvidia-smi output of any of the FORMATS, to sightings, stack facts and signals."""
    found = sniff(text)
    fmt = found[0] if found else "nvidia-smi-error"
    lines, cut = read_lines(text)
    lines = [line[:_MAX_SCAN] for line in lines]
    out = Output(source, lines, cut)
    if fmt == "nvidia-smi-xml":
        parse_xml(text, out)
    elif fmt == "nvidia-smi-table":
        _parse_table(out)
    elif fmt == "nvidia-smi-q":
        _parse_q(out)
    elif fmt == "nvidia-smi-list":
        _parse_list(out)
    elif fmt == "nvidia-smi-csv":
        out.lines = nvidia_smi_csv.read_lines(text)  # a wide query's lines are long
        out.sightings = nvidia_smi_csv.read(out)
    _scan_errors(out)
    if found is None and not out.signals:
        out.problems.append(f"{source}: not nvidia-smi output")
    return out.result(fmt, out.sightings)


def _row_name(cell: str) -> tuple[int, str, str] | None:
    """The first cell of a GPU row, "0  NVIDIA GeForce RTX 4090   Off" -> (0, name, mode)."""
    words = cell.split(None, 1)
    if len(words) < 2 or not words[0].isdigit():
        return None
    rest = words[1].rstrip()
    name, _, mode = rest.rpartition(" ")
    name = name.strip()
    if mode not in _ROW_MODES or not name:
        return None
    return int(words[0]), name, mode


def _listed(line: str) -> tuple[int, str, str | None] | None:
    """nvidia-smi -L: "GPU 0: NAME (UUID: GPU-...)" -> (0, NAME, the UUID)."""
    match = _LIST_RE.match(line.strip())
    if match is None:
        return None
    name, uuid = match.group("name").rstrip(), None
    cut = name.rfind(" (UUID: ")
    if cut >= 0 and name.endswith(")") and _UUID_RE.fullmatch(name[cut + 8:-1]):
        name, uuid = name[:cut], name[cut + 8:-1]
    return int(match.group("index")), name.strip(), uuid


def _q_kv(body: str) -> tuple[str, str] | None:
    """`-q`'s "Product Name                    : NVIDIA A100" (stripped) -> (key, value): the
    key ends where a blank meets the first such colon."""
    separator = body.find(" :")
    if separator < 0:
        return None
    key = body[:separator].rstrip()
    if not key:
        return None
    return key, body[separator + 2:].strip()




# ----------------------------------------------------------------------------------- table

def _parse_table(out: Output) -> None:
    header_index = None
    for index, line in enumerate(out.lines):
        match = _TABLE_HEADER_RE.search(line)
        if match:
            header_index = index
            driver = clean(match.group("driver"))
            out.fact("nvidia_driver_version", driver, index)
            out.fact("cuda_driver_version", clean(match.group("cuda")), index)
            smi = clean(match.group("smi"))
            if smi and driver and smi != driver:
                # Only WSL2 pairs a Linux nvidia-smi with a (Windows) driver of another version.
                out.signal_at("platform.wsl", None, index + 1)
                out.host_fact("os", "wsl", out.where(index + 1))
            break
    has_mig_column = any("MIG M." in line for line in out.lines)
    for index, line in enumerate(out.lines):
        cells = _cells(line)
        if len(cells) < 3:
            continue
        row = _row_name(cells[0])
        bus = BUS_RE.search(cells[1])
        if not row or not bus:
            continue
        if out.full():
            break
        facts = Facts(out)
        where = out.where(index + 1)
        facts.set("smi_index", row[0], index)
        facts.set("name", row[1], index)
        if VGPU_NAME_RE.search(row[1]):  # a vGPU profile: "GRID T4-16Q", "NVIDIA A100-4C"
            facts.set("kind", GpuKind.VIRTUAL, index)
            out.signal_at("gpu.virtual_function", normalise_bus(bus.group("bus")), index + 1)
        facts.set("pci_bus", normalise_bus(bus.group("bus")), index)
        for name in ("vendor", "kind"):
            facts.sources[name] = where
        common_gpu_facts(facts)
        if row[2] in ("WDDM", "TCC", "MCDM"):
            out.host_fact("os", "windows", out.where(index + 1))
        memory_cells = _cells(out.lines[index + 1]) if index + 1 < len(out.lines) else []
        memory = _MEMORY_RE.search(memory_cells[1]) if len(memory_cells) >= 2 else None
        if memory:
            facts.set("vram_total_bytes", int(memory.group("total")) * 1024**2, index + 1)
        else:
            facts.miss("vram_total_bytes", message("no memory cell under the GPU row"))
        if has_mig_column and index + 2 < len(out.lines):
            mig_cells = _cells(out.lines[index + 2])
            if mig_cells and mig_cells[-1].strip() == "Enabled":
                out.signal_at("nvidia.mig_enabled", facts.values.get("pci_bus"), index + 3)
        out.sightings.append(facts.sighting())
    if header_index is None and not out.sightings:
        out.problems.append("no nvidia-smi header or GPU rows found")


def _cells(line: str) -> list[str]:
    stripped = line.strip()
    if not stripped.startswith("|") or stripped.count("|") < 3:
        return []
    return stripped.split("|")[1:-1]


# ----------------------------------------------------------------------------------- -q text

@dataclasses.dataclass
class _QGpu:
    bus: str
    line: int
    entries: dict[tuple[str, ...], tuple[str, int]] = dataclasses.field(default_factory=dict)

    def get(self, *path: str) -> tuple[str | None, int | None]:
        value = self.entries.get(path)
        return (value[0], value[1]) if value else (None, None)


def _parse_q(out: Output) -> None:
    gpus: list[_QGpu] = []
    current: _QGpu | None = None
    stack: list[tuple[int, str]] = []
    attached: tuple[int, int] | None = None
    sections = 0  # GPU sections, those past the cap included
    for index, raw in enumerate(out.lines):
        if current is None and sections > MAX_GPUS and raw[:1] == " ":
            continue  # a line of a GPU section past the cap
        line = raw.expandtabs(4) if "\t" in raw else raw
        body = line.strip()
        if not body or body[0] == "=":
            continue
        gpu_match = _Q_GPU_RE.match(line) if line.startswith("GPU ") else None
        if gpu_match:
            sections += 1
            current = _QGpu(bus=gpu_match.group("bus"), line=index)
            if sections > MAX_GPUS:  # `full` says so when the sightings are made
                current = None
                continue
            gpus.append(current)
            stack = []
            continue
        indent = len(line) - len(line.lstrip(" "))
        kv = _q_kv(body)
        if indent == 0:
            current = None if kv else current
            if kv:
                key, value = kv
                if key == "Driver Version":
                    out.fact("nvidia_driver_version", clean(value), index)
                elif key == "CUDA Version":
                    out.fact("cuda_driver_version", clean(value), index)
                elif key == "Attached GPUs":
                    number = first_number(value)
                    attached = (int(number), index) if number is not None else None
            continue
        if current is None:
            continue
        while stack and stack[-1][0] >= indent:
            stack.pop()
        if kv:
            path = tuple(key for _, key in stack)
            current.entries.setdefault((*path, kv[0]), (kv[1], index))
        elif len(stack) < _Q_MAX_DEPTH:
            stack.append((indent, body))
    for order, gpu in enumerate(gpus):
        if out.full():
            break
        out.sightings.append(_q_sighting(out, gpu, order))
    if sections > len(gpus):
        out.full()
    if attached is not None and attached[0] > sections and not out.has_signal(
            "nvidia.mig_enabled"):
        out.problems.append(f"'Attached GPUs' says {attached[0]} but {sections} GPU sections "
                            "are present (output cut?)")


def _q_sighting(out: Output, gpu: _QGpu, order: int) -> GpuSighting:
    facts = Facts(out)
    bus = normalise_bus(gpu.get("PCI", "Bus Id")[0]) or normalise_bus(gpu.bus)
    facts.set("pci_bus", bus, gpu.get("PCI", "Bus Id")[1] or gpu.line)
    facts.set("smi_index", order, gpu.line)
    for field_name in ("vendor", "kind"):
        facts.sources[field_name] = out.where(gpu.line + 1)
    common_gpu_facts(facts)
    product, line = gpu.get("Product Name")
    facts.set("name", clean(product), line)
    arch, line = gpu.get("Product Architecture")
    facts.set("architecture", clean(arch), line)
    ids, line = gpu.get("PCI", "Device Id")
    pair = pci_id_pair(ids)
    if pair:
        facts.set("pci_device_id", pair[0], line)
        facts.set("pci_vendor_id", pair[1], line)
    sub, line = gpu.get("PCI", "Sub System Id")
    sub_pair = pci_id_pair(sub)
    if sub_pair:
        facts.set("pci_subsystem_device_id", sub_pair[0], line)
        facts.set("pci_subsystem_vendor_id", sub_pair[1], line)
    total, line = gpu.get("FB Memory Usage", "Total")
    facts.set("vram_total_bytes", size_bytes(total), line)
    for field_name, key in (("uuid", "GPU UUID"), ("serial_number", "Serial Number"),
                            ("vbios_version", "VBIOS Version")):
        value, line = gpu.get(key)
        facts.set(field_name, clean(value), line)
    for field_name, section, key in (("max_graphics_clock_mhz", "Max Clocks", "Graphics"),
                                     ("max_memory_clock_mhz", "Max Clocks", "Memory")):
        value, line = gpu.get(section, key)
        number = first_number(value)
        facts.set(field_name, int(number) if number is not None else None, line)
    for section in ("GPU Power Readings", "Power Readings"):
        for field_name, key in (("power_cap_w", "Current Power Limit"),
                                ("power_cap_w", "Power Limit"),
                                ("power_cap_max_w", "Max Power Limit")):
            value, line = gpu.get(section, key)
            facts.set(field_name, first_number(value), line)
    link_path = ("PCI", "GPU Link Info")
    max_gen, gen_line = gpu.get(*link_path, "PCIe Generation", "Max")
    link = pcie_link(max_gen, gpu.get(*link_path, "PCIe Generation", "Current")[0],
                     gpu.get(*link_path, "Link Width", "Max")[0],
                     gpu.get(*link_path, "Link Width", "Current")[0])
    facts.set("pcie_link", link, gen_line)
    driver_model, line = gpu.get("Driver Model", "Current")
    if clean(driver_model) in ("WDDM", "TCC", "MCDM") and line is not None:
        out.host_fact("os", "windows", out.where(line + 1))
    mig, line = gpu.get("MIG Mode", "Current")
    if clean(mig) == "Enabled" and line is not None:
        out.signal_at("nvidia.mig_enabled", bus, line + 1)
    mode, line = gpu.get("GPU Virtualization Mode", "Virtualization Mode")
    virtualization(out, facts, clean(mode), line, bus)
    return facts.sighting()




# ----------------------------------------------------------------------------------- -L

def _parse_list(out: Output) -> None:
    current_uuid: str | None = None
    for index, line in enumerate(out.lines):
        match = _listed(line) if line.startswith("GPU ") else None
        if match and out.full():
            break
        if match:
            facts = Facts(out)
            facts.set("smi_index", match[0], index)
            facts.set("name", match[1], index)
            current_uuid = match[2]
            facts.set("uuid", current_uuid, index)
            for name in ("vendor", "kind"):
                facts.sources[name] = out.where(index + 1)
            common_gpu_facts(facts)
            facts.miss("pci_bus", message("nvidia-smi -L does not show PCI addresses"))
            out.sightings.append(facts.sighting())
            continue
        if _MIG_LINE_RE.match(line):
            out.signal_at("nvidia.mig_enabled", current_uuid, index + 1)


# ----------------------------------------------------------------------------------- errors

def _scan_errors(out: Output) -> None:
    for index in lines_holding(out.lines, _ERROR_WORDS):
        line = out.lines[index]
        if _NVML_MISMATCH_RE.search(line):
            out.signal_at("nvml.driver_library_mismatch", None, index + 1)
        elif (failed := _NVML_FAILED_RE.search(line)) is not None:
            out.signal_at("nvml.init_failed", failed.group("reason").strip()[:200], index + 1)
        version = _NVML_VERSION_RE.search(line)
        if version:
            out.fact("nvml_library_version", version.group("version"), index)
        if _NOT_COMMUNICATE_RE.search(line):
            out.signal_at("nvidia.driver_not_loaded", None, index + 1)
        if _NO_DEVICES_RE.match(line):
            out.signal_at("nvidia.no_devices", None, index + 1)
        if _NO_LIBRARY_RE.search(line):
            out.signal_at("nvml.library_missing", None, index + 1)
        handle = _HANDLE_RE.search(line)
        if handle:
            out.signal_at("nvidia.gpu_unreachable", normalise_bus(handle.group("bus")), index + 1)

