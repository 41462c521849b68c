"""What amd-smi's fields mean, whichever layout shows them (the text of `static` and the
default table, or `--json`): the GPUs of one paste with their facts, the version lines and
messages found anywhere in it, and one field put into a GPU's facts (amd_smi.py reads the
text, amd_smi_json.py the JSON)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpuscope.i18n import message
from gpuscope.model import EvidenceRef, GpuSighting, Layer, ParsedOutput, PcieLink, Vendor
from gpuscope.parsers._common import (
    ROCM_PATH_RE,
    SmiCollector,
    SmiGpu,
    decode_gfx_version,
    lines_holding,
    pci_bus,
    read_lines,
)

_TABLE_HEAD = re.compile(r"^\s*\|\s*AMD-SMI\s+\S+")
_LIBRARY = re.compile(r"AMDSMI Library [Vv]ersion:\s*([^|\s]+)")
_ROCM = re.compile(r"ROCm [Vv]ersion:\s*(\d+(?:\.\d+)+)")
_AMDGPU = re.compile(r"amdgpu [Vv]ersion:\s*([^|\s]+)")
_PLATFORM = "Platform:"
# What every line `scan_text` reads holds (the version regexes' "ersion:", ROCm paths' "rocm-").
_SCAN_NEEDLES = ("ersion:", _PLATFORM, "AMDSMI_STATUS_DRIVER_NOT_LOADED",
                 "Unable to find libamd_smi", "rocm-")
_KERNEL_IN_VERSION = re.compile(r"Linux\s*version\s*([^\s(]+)", re.IGNORECASE)
_DKMS_VERSION = re.compile(r"^\d+\.\d+(?:\.\d+)?$")
_NUMBER = re.compile(r"^(-?\d+(?:\.\d+)?)\s*([A-Za-z/]*)")
NOT_AVAILABLE = {"", "N/A", "NA", "NONE", "UNKNOWN", "NOT SUPPORTED"}
PARTITION_MODES = ("SPX", "DPX", "TPX", "QPX", "CPX")
_SIZE_UNITS = {"B": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3, "TB": 1024**4,
               "KIB": 1024, "MIB": 1024**2, "GIB": 1024**3, "TIB": 1024**4}


@dataclass
class AmdSmiGpu(SmiGpu):
    """One GPU as amd-smi numbers it, with the PCIe link it says the GPU can reach (value,
    where it was read)."""

    pcie_max_width: tuple[int, str] | None = None
    pcie_max_speed: tuple[float, str] | None = None


class AmdSmiCollector(SmiCollector[AmdSmiGpu]):
    """The GPUs, facts, signals and problems of one amd-smi paste."""

    def __init__(self, source: str, lines: list[str]) -> None:
        super().__init__(source, lines, AmdSmiGpu)
        # (GPU, field path, value, unit) already applied: first wins, so a repeat is a no-op
        self.applied: set[tuple[int, tuple[str, ...], str, str | None]] = set()

    @classmethod
    def of_paste(cls, text: str, source: str) -> AmdSmiCollector:
        """The collector of a paste: its lines, and what `scan_text` finds anywhere in it."""
        lines, cut = read_lines(text)
        collector = cls(source, lines)
        if cut:
            collector.problems.append(cut)
        collector.scan_text()
        return collector

    def driver_version(self, value: str, where: str) -> None:
        value = value.strip()
        if value.upper() in NOT_AVAILABLE:
            return
        if _DKMS_VERSION.match(value):
            self.stack_fact("amdgpu_driver_version", value, where)
            return
        kernel = _KERNEL_IN_VERSION.search(value)
        release = kernel.group(1) if kernel else value
        self.host_fact("kernel", release, where)
        self.stack_fact("amdgpu_driver_version", None, where,
                        missing_reason=message(
                            "amd-smi shows the kernel release {release}: the in-tree amdgpu "
                            "driver, no amdgpu-dkms version", release=release))

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


def _sighting(gpu: AmdSmiGpu) -> GpuSighting:
    extra: dict[str, tuple[object, str]] = {}
    if gpu.pcie_max_width is not None or gpu.pcie_max_speed is not None:
        link = PcieLink(
            max_speed_gt_s=gpu.pcie_max_speed[0] if gpu.pcie_max_speed else None,
            max_width=gpu.pcie_max_width[0] if gpu.pcie_max_width else None,
            measured_at="amd-smi static (the GPU's own link)",
        )
        extra["pcie_link"] = (link, (gpu.pcie_max_speed or gpu.pcie_max_width or (0, ""))[1])
    return gpu.sighting(Layer.AMDSMI, extra)


def apply_field(collector: AmdSmiCollector, gpu: AmdSmiGpu, path: tuple[str, ...], raw: object,
                unit: str | None, where: str, ref: EvidenceRef) -> None:
    """One amd-smi field (by its section path, upper-case) into the GPU's facts."""
    if raw is None or isinstance(raw, (dict, list)):
        return
    value = str(raw).strip()
    if value.upper() in NOT_AVAILABLE:
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
            gpu.missing["driver_version"] = message(
                "{where}: the in-tree amdgpu of the kernel, no amdgpu-dkms version", where=where)
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
        if mode in PARTITION_MODES and gpu.partition is None:
            gpu.partition = (mode, ref)
    elif section == "LIMIT":
        watts = _number(value)
        if watts is None or watts[0] <= 0:
            return
        if key in {"SOCKET_POWER", "SOCKET_POWER_LIMIT", "POWER_CAP"}:
            gpu.put("power_cap_w", watts[0], where)
        elif key in {"MAX_POWER", "MAX_POWER_LIMIT", "MAX_POWER_CAP"}:
            gpu.put("power_cap_max_w", watts[0], where)


def _apply_asic(gpu: AmdSmiGpu, key: str, value: str, where: str) -> None:
    if key == "MARKET_NAME":
        if re.fullmatch(r"0x[0-9a-fA-F]+", value):
            gpu.missing["name"] = message("{where}: amd-smi shows {value}, not a name",
                                          where=where, value=value)
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
