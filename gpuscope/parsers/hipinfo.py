"""`hipInfo` (the HIP SDK's `hipInfo.exe` on Windows, `hipInfo` on Linux), and `hipconfig` /
`hipcc --version` (`HIP version: 6.2.41512-db3292736`, `HIP_PATH`, `ROCM_PATH`, `HIP_PLATFORM`).

hipInfo prints one block per device (hip-tests samples/1_Utils/hipInfo/hipInfo.cpp):
`device#  0`, then `Key:  value` lines: `Name`, `pciBusID`/`pciDeviceID`/`pciDomainID`
(decimal: bus, device number, domain), `multiProcessorCount`, `totalGlobalMem` ("23.98 GB": GiB
with two decimals), `isIntegrated`, `gcnArchName` ("gfx1010:xnack-"). Pastes quoted with "> "
and pastes whose line breaks a GitHub issue form collapsed into one line are read too.

What it yields: one `Layer.ROCM` sighting per device (HIP's runtime sees it), with the gfx
target without feature suffixes. On RDNA (gfx10 and later) HIP counts work-group processors,
two CUs each, by default (https://github.com/ROCm/hip/issues/3767), so `multiProcessorCount`
becomes `compute_units` only before gfx10. Stack facts: `hip_runtime_version` ("6.2.41512"),
`hip_path`, `rocm_path`, `hip_platform`, and on Windows `hip_sdk_version` (the SDK release,
"6.2"). Host fact os=windows where the paste shows a Windows path or `hipInfo.exe`.

Signals emitted:
- `rocm.path_version`: a `/opt/rocm-X.Y.Z` path in the paste; detail = the version.
- `hip.no_device`: hipInfo's `checkHipErrors() HIP API error = 0100 "no ROCm-capable device is
  detected"` (hipErrorNoDevice): the HIP runtime enumerated no GPU.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gpuscope.i18n import message
from gpuscope.model import GpuFacts, GpuKind, GpuSighting, Layer, ParsedOutput, Vendor
from gpuscope.parsers._common import (
    ROCM_PATH_RE,
    SNIFF_CHARS,
    Collector,
    decode_gfx_version,
    integrated_reason,
    never_raises,
    none_on_error,
    read_lines,
)
from gpuscope.parsers._windows_text import (
    clean_windows_text,
    host_windows,
    unquoted,
    windows_sign_line,
)

FORMATS: tuple[str, ...] = ("hipinfo", "hipconfig")

# The keys hipInfo prints, in its order: a line where a GitHub form collapsed the breaks is cut
# before each of them.
_KEYS = (
    "Name", "pciBusID", "pciDeviceID", "pciDomainID", "multiProcessorCount",
    "maxThreadsPerMultiProcessor", "isMultiGpuBoard", "clockRate", "memoryClockRate",
    "memoryBusWidth", "totalGlobalMem", "totalConstMem", "sharedMemPerBlock",
    "canMapHostMemory", "regsPerBlock", "warpSize", "l2CacheSize", "computeMode",
    "maxThreadsPerBlock", "maxThreadsDim.x", "maxThreadsDim.y", "maxThreadsDim.z",
    "maxGridSize.x", "maxGridSize.y", "maxGridSize.z", "major", "minor", "concurrentKernels",
    "cooperativeLaunch", "cooperativeMultiDeviceLaunch", "isIntegrated", "maxTexture1D",
    "maxTexture2D.width", "maxTexture2D.height", "maxTexture3D.width", "maxTexture3D.height",
    "maxTexture3D.depth", "hostNativeAtomicSupported", "isLargeBar", "asicRevision",
    "maxSharedMemoryPerMultiProcessor", "clockInstructionRate", "gcnArchName", "gcnArch",
    "maxAvailableVgprsPerThread", "peers", "non-peers", "memInfo.total", "memInfo.free",
)
_SPLIT = re.compile(
    r"[ \t]+(?=(?:device#|(?:" + "|".join(re.escape(k) for k in _KEYS) + r"):)[ \t])")
_DEVICE = re.compile(r"^\s*device#\s*(\d{1,3})\s*$")
_PAIR = re.compile(r"^\s*([A-Za-z][\w.\-]{0,40}):\s*(.*?)\s*$")
_GIB = re.compile(r"^(\d{1,6}(?:\.\d{1,4})?)\s*GB$")
_INT = re.compile(r"^-?\d{1,10}$")
_HIP_VERSION = re.compile(r"\bHIP version\s*:\s*(\d{1,3}\.\d{1,3}(?:\.\d{1,7})?)(?:-(\w+))?")
_BARE_VERSION = re.compile(r"^\s*(\d{1,2}\.\d{1,2}\.\d{4,6})-([0-9a-f]{6,12})\s*$")
_CONFIG = re.compile(r"^\s*(HIP_PATH|ROCM_PATH|HIP_PLATFORM|HIP_COMPILER|HIP_RUNTIME)\s*:\s*(.*?)"
                     r"\s*$")
# The SDK's folder names its release: C:\Program Files\AMD\ROCm\6.2\.
_SDK_FOLDER = re.compile(r"\\ROCm[\\/](\d{1,2}\.\d{1,2})(?![\d.])", re.IGNORECASE)
_NO_DEVICE = re.compile(r"no ROCm-capable device is detected|hipErrorNoDevice\b")
_GFX10_OR_LATER = re.compile(r"^gfx1\d[0-9a-f]{2}$")

_SNIFF_DEVICE = re.compile(r"^[ \t>]*device#[ \t]*\d", re.MULTILINE)
_SNIFF_FLAT = re.compile(r"device#[ \t]*\d{1,3}[ \t]+Name:")
_SNIFF_CONFIG = re.compile(r"^[ \t>]*==[ \t]?hipconfig\b", re.MULTILINE)
_SNIFF_VERSION = re.compile(r"^[ \t>]*HIP version[ \t]*:[ \t]*\d", re.MULTILINE)
_MAX_DEVICES = 64


@none_on_error
def sniff(text: str) -> tuple[str, float] | None:
    """hipInfo by its `device#` blocks, hipconfig by its `==hipconfig` or `HIP version:`
    line; never raises."""
    head = clean_windows_text(text[:SNIFF_CHARS])
    arch = "gcnArchName:" in head or "multiProcessorCount:" in head
    if arch and _SNIFF_DEVICE.search(head):
        return ("hipinfo", 0.95)
    if arch and _SNIFF_FLAT.search(head):
        return ("hipinfo", 0.9)
    if "checkHipErrors()" in head and _NO_DEVICE.search(head):
        return ("hipinfo", 0.9)  # hipInfo that found no device
    if _SNIFF_CONFIG.search(head):
        return ("hipconfig", 0.95)
    if _SNIFF_VERSION.search(head):
        return ("hipconfig", 0.85)
    if len(head) < 200 and _BARE_VERSION.match(head.strip()):  # `hipconfig --version`
        return ("hipconfig", 0.6)
    return None


@dataclass
class _Device:
    index: int
    line: int
    values: dict[str, tuple[str, int]] = field(default_factory=dict)


def _unfolded(raw_lines: list[str]) -> list[tuple[int, str]]:
    """(line number, text) of each line, unquoted, a collapsed line cut before each key."""
    found: list[tuple[int, str]] = []
    for number, raw in enumerate(raw_lines, start=1):
        line = unquoted(raw)
        if "device#" in line or line.count(":") >= 3:
            found += [(number, part) for part in _SPLIT.split(line) if part.strip()]
        else:
            found.append((number, line))
    return found


@never_raises("hipinfo")
def parse(text: str, source: str) -> ParsedOutput:
    """hipInfo / hipconfig text to ROCm-layer sightings and stack facts; never raises."""
    lines, cut = read_lines(clean_windows_text(text))
    out = Collector(source, lines, cut=cut)
    devices: list[_Device] = []
    device: _Device | None = None
    left_out = 0
    windows = windows_sign_line(lines)
    for number, line in _unfolded(lines):
        for version in ROCM_PATH_RE.findall(line):
            out.signal_at("rocm.path_version", version, number)
        if _NO_DEVICE.search(line):
            out.signal_at("hip.no_device", None, number)
            continue
        if (match := _HIP_VERSION.search(line)) is not None:
            _hip_version(out, match.group(1), number)
            continue
        if (match := _CONFIG.match(line)) is not None:
            _config(out, match.group(1), match.group(2), number)
            continue
        if (match := _DEVICE.match(line)) is not None:
            if len(devices) < _MAX_DEVICES:
                device = _Device(index=int(match.group(1)), line=number)
                devices.append(device)
            else:
                left_out += 1
                device = None
            continue
        if device is not None and (match := _PAIR.match(line)) is not None:
            device.values.setdefault(match.group(1), (match.group(2), number))
    filled = [(n, line) for n, line in enumerate(lines[:3], start=1) if line.strip()]
    if len(filled) == 1 and (match := _BARE_VERSION.match(filled[0][1])) is not None:
        _hip_version(out, match.group(1), filled[0][0])  # `hipconfig --version`
    if left_out:
        out.problems.append(f"more than {_MAX_DEVICES} HIP devices: {left_out:,} more were "
                            "not read")
    if windows is not None:
        host_windows(out, windows)
        _sdk_version(out, lines)
    sightings = [_sighting(d, out) for d in devices]
    fmt = "hipinfo" if devices else "hipconfig"
    if not devices and not out.stack and not out.signals:
        out.problems.append(f"{source}: no hipInfo device and no HIP version found")
    return out.result(fmt, sightings)


def _hip_version(out: Collector, version: str, number: int) -> None:
    out.stack_fact("hip_runtime_version", version, out.where(number))


def _config(out: Collector, key: str, value: str, number: int) -> None:
    if not value:
        return
    keys = {"HIP_PATH": "hip_path", "ROCM_PATH": "rocm_path", "HIP_PLATFORM": "hip_platform",
            "HIP_COMPILER": "hip_compiler", "HIP_RUNTIME": "hip_runtime"}
    out.stack_fact(keys[key], value, out.where(number))


def _sdk_version(out: Collector, lines: list[str]) -> None:
    """The HIP SDK release on Windows: the major.minor of HIP's version, or the version
    folder of HIP_PATH (C:\\Program Files\\AMD\\ROCm\\6.2\\)."""
    runtime = out.stack.get("hip_runtime_version")
    if runtime is not None and isinstance(runtime.value, str):
        short = ".".join(runtime.value.split(".")[:2])
        out.stack_fact("hip_sdk_version", short, runtime.source or out.source)
        return
    for number, line in enumerate(lines[:5000], start=1):
        if (match := _SDK_FOLDER.search(line[:2000])) is not None:
            out.stack_fact("hip_sdk_version", match.group(1), out.where(number))
            return


def _number(device: _Device, key: str) -> tuple[int, int] | None:
    found = device.values.get(key)
    if found is None or not _INT.match(found[0]):
        return None
    return int(found[0]), found[1]


_NVIDIA_NAME = re.compile(r"\b(?:NVIDIA|GeForce|Quadro|Tesla)\b", re.IGNORECASE)


def _sighting(device: _Device, out: Collector) -> GpuSighting:
    source = out.source
    name = device.values.get("Name")
    # hipInfo built for HIP's NVIDIA platform shows CUDA devices: no gcnArchName there.
    nvidia = "gcnArchName" not in device.values and bool(name and _NVIDIA_NAME.search(name[0]))
    values: dict[str, object] = {"vendor": Vendor.NVIDIA if nvidia else Vendor.AMD}
    sources: dict[str, str] = {"vendor": f"{source}:{device.line}"}
    missing: dict[str, str] = {}

    def put(name: str, value: object, line: int) -> None:
        values[name] = value
        sources[name] = f"{source}:{line}"

    if name is not None and name[0]:
        put("name", name[0], name[1])
    if nvidia:
        return _nvidia_sighting(device, out, values, sources)
    arch = device.values.get("gcnArchName")
    gfx = decode_gfx_version(arch[0]) if arch is not None else None
    if gfx is not None and arch is not None:
        put("gfx_target", gfx, arch[1])
    elif arch is None:
        missing["gfx_target"] = message("{where}: hipInfo shows no gcnArchName for this device",
                                        where=f"{source}:{device.line}")
    bus, slot, domain = (_number(device, k) for k in ("pciBusID", "pciDeviceID", "pciDomainID"))
    if bus is not None and slot is not None and 0 <= bus[0] <= 255 and 0 <= slot[0] <= 31:
        domain_number = domain[0] if domain is not None and 0 <= domain[0] <= 0xFFFF else 0
        put("pci_bus", f"{domain_number:04x}:{bus[0]:02x}:{slot[0]:02x}.0", bus[1])
    else:
        missing["pci_bus"] = message("{where}: hipInfo shows no PCI bus for this device",
                                     where=f"{source}:{device.line}")
    memory = device.values.get("totalGlobalMem")
    if memory is not None and (match := _GIB.match(memory[0])) and float(match.group(1)) > 0:
        put("vram_total_bytes", round(float(match.group(1)) * (1 << 30)), memory[1])
    units = _number(device, "multiProcessorCount")
    if units is not None and units[0] > 0:
        if gfx is not None and _GFX10_OR_LATER.match(gfx):
            missing["compute_units"] = message(
                "{where}: on RDNA HIP counts work-group processors (two CUs each)",
                where=f"{source}:{units[1]}")
        else:
            put("compute_units", units[0], units[1])
    integrated = _number(device, "isIntegrated")
    if integrated is not None and integrated[0] == 1:
        put("kind", GpuKind.INTEGRATED, integrated[1])
    elif integrated_reason(name[0] if name else None, gfx) is not None:
        put("kind", GpuKind.INTEGRATED, (arch or name or ("", device.line))[1])
    return GpuSighting(layer=Layer.ROCM, facts=GpuFacts(**values),  # type: ignore[arg-type]
                       field_sources=sources, missing_reasons=missing)


def _nvidia_sighting(device: _Device, out: Collector, values: dict[str, object],
                     sources: dict[str, str]) -> GpuSighting:
    """A CUDA device as HIP's NVIDIA platform shows it: SMs and compute capability."""
    major, minor = _number(device, "major"), _number(device, "minor")
    if major is not None and minor is not None:
        values["compute_capability"] = f"{major[0]}.{minor[0]}"
        sources["compute_capability"] = f"{out.source}:{major[1]}"
    units = _number(device, "multiProcessorCount")
    if units is not None and units[0] > 0:
        values["compute_units"] = units[0]
        sources["compute_units"] = f"{out.source}:{units[1]}"
    memory = device.values.get("totalGlobalMem")
    if memory is not None and (match := _GIB.match(memory[0])) and float(match.group(1)) > 0:
        values["vram_total_bytes"] = round(float(match.group(1)) * (1 << 30))
        sources["vram_total_bytes"] = f"{out.source}:{memory[1]}"
    return GpuSighting(layer=Layer.ROCM, facts=GpuFacts(**values),  # type: ignore[arg-type]
                       field_sources=sources)
