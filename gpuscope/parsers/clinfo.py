"""`clinfo` as people paste it: the ocl-icd `clinfo` (aligned columns, `Device Topology (AMD)
PCI-E, 0b:00.0`), `clinfo -l` / `--list`, and AMD's own ROCm clinfo
(`/opt/rocm/opencl/bin/clinfo`: `Key:\\t\\t value`, `Device Topology: PCI[ B#3, D#0, F#0 ]`).

What it yields: one `Layer.OPENCL` sighting per AMD or NVIDIA GPU device of a vendor platform
(AMD APP, NVIDIA CUDA). CPU devices are no GPUs; Intel devices are left to other importers;
devices of Mesa's Clover/rusticl and of PoCL are not sightings (they carry no PCI address and
would count the same card twice). A topology without a PCI domain is read as domain 0000.
OpenCL's "Max compute units" counts work-group processors (two CUs) on RDNA, so it becomes
`compute_units` only for GCN/CDNA and NVIDIA (SMs). NVIDIA's "Driver Version" is the NVIDIA
driver (stack fact `nvidia_driver_version`); AMD's is the OpenCL runtime build, not a driver.

Signals emitted:
- `opencl.platform_present`: an OpenCL platform is installed; detail = its name.
- `opencl.no_devices`: a platform with no device; detail = its name.
- `opencl.no_platforms` (new): "Number of platforms 0": no ICD is installed or loads.
- `rocm.path_version`: a `/opt/rocm-X.Y.Z` path in the paste; detail = the version.
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
    LineReads,
    integrated_reason,
    never_raises,
    none_on_error,
    read_lines,
    virtual_function_reason,
)

FORMATS: tuple[str, ...] = ("clinfo",)

_PLATFORMS = re.compile(r"^\s*Number of platforms:?\s+(\d+)\s*$")
_DEVICES = re.compile(r"^\s*Number of devices:?\s+(\d+)\s*$")
_LIST_PLATFORM = re.compile(r"^\s*Platform #(\d+):(.*)$")
_LIST_DEVICE = re.compile(r"Device #(\d+):(.*)$")
_TWO_SPACES = re.compile(r"\s\s")
# Sniffing and layout tests over the whole text: [ \t], never \s, so that no match crosses a
# line (a run of blank lines would make `^\s*` quadratic).
_PLATFORMS_LINE = re.compile(r"^[ \t]*Number of platforms:?[ \t]+\d+[ \t\r]*$",
                             re.MULTILINE)
_PLATFORM_HASH_LINE = re.compile(r"^[ \t]*Platform #\d+:", re.MULTILINE)
_PLATFORM_NAME_LINE = re.compile(r"^[ \t]*Platform Name:?[ \t]+\S", re.MULTILINE)
_DEVICES_LINE = re.compile(r"^[ \t]*Number of devices:?[ \t]+\d+", re.MULTILINE)
_COLON_LAYOUT = re.compile(r"^[ \t]*(?:Number of platforms|Platform Name):",
                           re.MULTILINE)
_STOP = re.compile(r"^\s*(NULL platform behavior|ICD loader properties)")
_TOPOLOGY_PCIE = re.compile(
    r"PCI-E,\s*(?:([0-9a-fA-F]{4,8}):)?([0-9a-fA-F]{1,2}):([0-9a-fA-F]{1,2})\.([0-7])")
_TOPOLOGY_AMD = re.compile(r"PCI\[\s*B#(\d+),\s*D#(\d+),\s*F#(\d+)\s*\]")
_BOARD_ID = re.compile(r"^Device ([0-9a-fA-F]{4})$")
_GFX = re.compile(r"^gfx([0-9a-f]{3,5})$")
_INT = re.compile(r"^(\d+)")
_NON_VENDOR_PLATFORMS = ("clover", "rusticl", "portable computing language", "pocl", "mesa")


@dataclass
class _Device:
    platform: str
    line: int
    values: dict[str, tuple[str, int]] = field(default_factory=dict)
    listed_only: bool = False

    def get(self, *keys: str) -> tuple[str, int] | None:
        for key in keys:
            if key in self.values:
                return self.values[key]
        return None


@dataclass
class _Platform:
    name: str
    line: int
    vendor: str = ""
    device_count: int | None = None
    count_line: int = 0
    listed_devices: int = 0


@none_on_error
def sniff(text: str) -> tuple[str, float] | None:
    """clinfo by its platform/device headers; never raises."""
    head = text[:SNIFF_CHARS]
    if _PLATFORMS_LINE.search(head):
        return ("clinfo", 0.95)
    if _PLATFORM_HASH_LINE.search(head):
        return ("clinfo", 0.9)
    if _PLATFORM_NAME_LINE.search(head) and _DEVICES_LINE.search(head):
        return ("clinfo", 0.85)
    return None


def _colon_kv(line: str) -> tuple[str, str] | None:
    """`Key:  value` (AMD's clinfo): a key that starts with a letter and holds no tab."""
    body = line.strip()
    key, colon, value = body.partition(":")
    key = key.rstrip()
    if not colon or not key or not key[0].isascii() or not key[0].isalpha() or "\t" in key:
        return None
    return key, value.strip()


def _column_kv(line: str) -> tuple[str, str] | None:
    """`Key   value` (ocl-icd's clinfo): two or more blanks part the key from the value."""
    body = line.strip()
    gap = _TWO_SPACES.search(body)
    if gap is None:
        return None
    return body[:gap.start()], body[gap.end():].strip()


# What a line is, for the parse loop (see `_classify`).
_BLANK, _STOP_LINE, _PLATFORM_COUNT, _LIST_PLATFORM_LINE, _OTHER = range(5)
_Line = tuple[tuple[str, ...], int, object, int | None, tuple[str, str] | None]
# Devices kept: a paste of one clinfo repeated has no thousands of devices, and the work per
# device past these stays a dictionary lookup per line.
_MAX_DEVICES = 256


def _classify(raw: str, colon_layout: bool) -> _Line:
    """What one line is, whatever comes before it: (its ROCm path versions, its kind, and
    for `_PLATFORM_COUNT` the count, for `_LIST_PLATFORM_LINE` the name, for `_OTHER` the
    name of a `clinfo -l` device (or None), the count of "Number of devices" (or None) and
    the normalised key and value (or None))."""
    line = raw.rstrip()
    versions = tuple(ROCM_PATH_RE.findall(line))
    if not line.strip():
        return versions, _BLANK, None, None, None
    if _STOP.match(line):
        return versions, _STOP_LINE, None, None, None
    if (match := _PLATFORMS.match(line)) is not None:
        return versions, _PLATFORM_COUNT, int(match.group(1)), None, None
    if (match := _LIST_PLATFORM.match(line)) is not None:
        return versions, _LIST_PLATFORM_LINE, match.group(2).strip(), None, None
    listed = None
    if (match := _LIST_DEVICE.search(line)) is not None and (
            "--" in line or "──" in line or line.lstrip().startswith(("`", "+", "|"))):
        listed = match.group(2).strip()
    count = int(match.group(1)) if (match := _DEVICES.match(line)) is not None else None
    found = _colon_kv(line) if colon_layout else _column_kv(line)
    pair = (" ".join(found[0].lower().split()), found[1]) if found is not None else None
    return versions, _OTHER, listed, count, pair


@never_raises("clinfo")
def parse(text: str, source: str) -> ParsedOutput:
    """clinfo text to OpenCL sightings and signals; never raises."""
    lines, cut = read_lines(text)
    out = Collector(source, lines, cut=cut)
    # a literal test first: the search of a paste without a match tries every character
    colon_layout = ("Number of platforms:" in text or "Platform Name:" in text) and bool(
        _COLON_LAYOUT.search(text))
    platforms: dict[str, _Platform] = {}
    order: list[str] = []
    devices: list[_Device] = []
    current: str | None = None
    listing = False  # inside "Number of devices" (the per-device part)
    device: _Device | None = None
    no_platforms_line: int | None = None
    dropped = _Device(platform="", line=0)  # stands for the devices past the limit
    left_out = 0
    reads: LineReads[str, _Line] = LineReads(lambda raw: _classify(raw, colon_layout))

    def platform(name: str, number: int) -> _Platform:
        if name not in platforms:
            platforms[name] = _Platform(name=name, line=number)
            order.append(name)
        return platforms[name]

    stopped = False
    for number, raw in enumerate(lines, start=1):
        read = reads[raw]
        versions, kind, value, count, pair = read
        for version in versions:
            out.signal_at("rocm.path_version", version, number)
        if stopped or kind == _BLANK:
            continue
        if kind == _STOP_LINE:
            stopped = True
            continue
        if kind == _PLATFORM_COUNT:
            if value == 0:
                no_platforms_line = number
            continue
        if kind == _LIST_PLATFORM_LINE:
            current = str(value)
            platform(current, number)
            device = None
            continue
        if value is not None and current is not None:
            platforms[current].listed_devices += 1
            if len(devices) < _MAX_DEVICES:
                listed = _Device(platform=current, line=number, listed_only=True)
                listed.values["device name"] = (str(value), number)
                devices.append(listed)
            else:
                left_out += 1
            device = None
            continue
        if count is not None:
            if current is not None:
                entry = platforms[current]
                entry.device_count = count
                entry.count_line = number
            listing = True
            device = None
            continue
        if pair is None:
            continue
        key, text_value = pair
        if key == "platform name":
            current = text_value
            platform(current, number)
            listing = False
            device = None
            continue
        if key == "platform vendor" and current is not None and not listing:
            platforms[current].vendor = text_value
            continue
        if not listing or current is None:
            continue
        starts_device = key == ("device type" if colon_layout else "device name")
        if starts_device or device is None:
            if len(devices) < _MAX_DEVICES:
                device = _Device(platform=current, line=number)
                devices.append(device)
            else:
                left_out += 1
                device = dropped
        if device is not dropped:
            device.values.setdefault(key, (text_value, number))

    if left_out:
        out.problems.append(f"more than {_MAX_DEVICES} OpenCL devices: {left_out:,} more "
                            "were not read")
    if no_platforms_line is not None and not platforms:
        out.signal_at("opencl.no_platforms", None, no_platforms_line)
    is_list = _is_list(text)  # once: a search of the whole text per platform is quadratic
    for name in order:
        entry = platforms[name]
        out.signal_at("opencl.platform_present", name, entry.line)
        if entry.device_count == 0:
            out.signal_at("opencl.no_devices", name, entry.count_line)
        elif entry.device_count is None and entry.listed_devices == 0 and is_list:
            out.signal_at("opencl.no_devices", name, entry.line)

    sightings: list[GpuSighting] = []
    for dev in devices:
        built = _sighting(dev, platforms[dev.platform], out)
        if built is not None:
            sightings.append(built)
    return out.result("clinfo", sightings)


def _is_list(text: str) -> bool:
    return "Platform #" in text and bool(_PLATFORM_HASH_LINE.search(text))


def _vendor(dev: _Device, platform: _Platform) -> Vendor | None:
    vendor_id = dev.get("device vendor id", "vendor id")
    if vendor_id is not None:
        token = vendor_id[0].strip().lower().rstrip("h")
        try:
            number = int(token, 16)
        except ValueError:
            number = -1
        if number >= 0:
            return Vendor.from_pci_vendor_id(f"0x{number:04x}")
    text = " ".join(v[0] for v in (dev.get("device vendor", "vendor"),) if v) + " " + (
        platform.vendor + " " + platform.name)
    lowered = text.lower()
    if "advanced micro devices" in lowered or "amd accelerated" in lowered:
        return Vendor.AMD
    if "nvidia" in lowered:
        return Vendor.NVIDIA
    if "intel" in lowered:
        return Vendor.INTEL
    return None


def _is_gpu(dev: _Device, vendor: Vendor | None) -> bool:
    device_type = dev.get("device type")
    if device_type is not None:
        return "GPU" in device_type[0].upper()
    if not dev.listed_only:
        return False
    name = (dev.get("device name") or ("", 0))[0]
    if vendor is Vendor.NVIDIA:
        return True
    if vendor is Vendor.AMD:
        lowered = name.lower()
        return _canonical_gfx(name) is not None or not (
            "cpu" in lowered or "processor" in lowered or "ryzen" in lowered
            or "epyc" in lowered or "xeon" in lowered or "core(tm)" in lowered)
    return False


def _sighting(dev: _Device, platform: _Platform, out: Collector) -> GpuSighting | None:
    if any(word in platform.name.lower() or word in platform.vendor.lower()
           for word in _NON_VENDOR_PLATFORMS):
        return None
    vendor = _vendor(dev, platform)
    if vendor not in (Vendor.AMD, Vendor.NVIDIA) or not _is_gpu(dev, vendor):
        return None
    source = out.source
    values: dict[str, object] = {"vendor": vendor}
    sources: dict[str, str] = {"vendor": f"{source}:{dev.line}"}
    missing: dict[str, str] = {}

    def put(name: str, value: object, line: int) -> None:
        if name not in values:
            values[name] = value
            sources[name] = f"{source}:{line}"

    device_name = dev.get("device name", "name")
    board = dev.get("device board name (amd)", "board name")
    gfx = _canonical_gfx(device_name[0]) if device_name else None
    if vendor is Vendor.AMD:
        if gfx is not None and device_name is not None:
            put("gfx_target", gfx, device_name[1])
        if board is not None and board[0] and (match := _BOARD_ID.match(board[0])):
            # An unnamed board reads "Device 687f": the PCI device id, not a name.
            put("pci_device_id", f"0x{match.group(1).lower()}", board[1])
        elif board is not None and board[0]:
            put("name", board[0], board[1])
        elif device_name is not None and gfx is None and device_name[0]:
            put("name", device_name[0], device_name[1])
        pcie_id = dev.get("device pci-e id (amd)")
        if pcie_id is not None and re.fullmatch(r"(0x)?[0-9a-fA-F]{1,4}", pcie_id[0]):
            put("pci_device_id", f"0x{int(pcie_id[0], 16):04x}", pcie_id[1])
    elif device_name is not None and device_name[0]:
        put("name", device_name[0], device_name[1])
    if "name" not in values:
        missing["name"] = message("{where}: OpenCL gives no board name for this device",
                                  where=f"{source}:{dev.line}")

    topology = dev.get("device topology (amd)", "device topology (nv)", "device topology")
    bus = _topology_bus(topology[0]) if topology else None
    if bus is not None and topology is not None:
        put("pci_bus", bus, topology[1])
    else:
        missing["pci_bus"] = (
            message("{where}: no PCI topology (clinfo -l lists names only)",
                    where=f"{source}:{dev.line}") if dev.listed_only
            else message("{where}: no PCI topology", where=f"{source}:{dev.line}"))

    memory = dev.get("global memory size")
    if memory is not None and (match := _INT.match(memory[0])) and int(match.group(1)) > 0:
        put("vram_total_bytes", int(match.group(1)), memory[1])

    units = dev.get("max compute units")
    if units is not None and (match := _INT.match(units[0])) and int(match.group(1)) > 0:
        if vendor is Vendor.AMD and _is_rdna(gfx, dev):
            missing["compute_units"] = message(
                "{where}: on RDNA OpenCL counts work-group processors (two CUs each)",
                where=f"{source}:{units[1]}")
        else:
            put("compute_units", int(match.group(1)), units[1])

    clock = dev.get("max clock frequency")
    if clock is not None and (match := _INT.match(clock[0])) and int(match.group(1)) > 0:
        put("max_graphics_clock_mhz", int(match.group(1)), clock[1])

    capability = dev.get("nvidia compute capability")
    if capability is not None and re.fullmatch(r"\d+\.\d+", capability[0]):
        put("compute_capability", capability[0], capability[1])

    unified = dev.get("unified memory for host and device")
    if unified is not None and unified[0].strip().lower() in {"yes", "1", "true"}:
        put("kind", GpuKind.INTEGRATED, unified[1])
    if vendor is Vendor.AMD and "kind" not in values:
        name = values.get("name")
        device_id = values.get("pci_device_id")
        line = (board or device_name or ("", dev.line))[1]
        if virtual_function_reason(name if isinstance(name, str) else None,
                                   device_id if isinstance(device_id, str) else None):
            put("kind", GpuKind.VIRTUAL, line)
            out.signal_at("gpu.virtual_function", str(values.get("pci_bus", name)), line)
        elif integrated_reason(name if isinstance(name, str) else None, gfx,
                               device_id if isinstance(device_id, str) else None):
            put("kind", GpuKind.INTEGRATED, line)

    driver = dev.get("driver version")
    if (vendor is Vendor.NVIDIA and driver is not None
            and re.fullmatch(r"\d+(\.\d+)+", driver[0])):
        out.stack_fact("nvidia_driver_version", driver[0], out.where(driver[1]))

    facts = GpuFacts(**values)  # type: ignore[arg-type]
    return GpuSighting(layer=Layer.OPENCL, facts=facts, field_sources=sources,
                       missing_reasons=missing)


def _is_rdna(gfx: str | None, dev: _Device) -> bool:
    if gfx is not None:
        return gfx.startswith("gfx1") and len(gfx) >= 7  # gfx10xx and later
    graphics_ip = dev.get("graphics ip (amd)")
    if graphics_ip is not None and (match := _INT.match(graphics_ip[0])):
        return int(match.group(1)) >= 10
    return False


def _topology_bus(value: str) -> str | None:
    if (match := _TOPOLOGY_PCIE.search(value)) is not None:
        domain = int(match.group(1) or "0", 16)
        bus, device, function = int(match.group(2), 16), int(match.group(3), 16), match.group(4)
        return f"{domain:04x}:{bus:02x}:{device:02x}.{function}"
    if (match := _TOPOLOGY_AMD.search(value)) is not None:
        bus, device, function = (int(g) for g in match.groups())
        if bus > 0xFF or device > 0x1F or function > 7:
            return None
        return f"0000:{bus:02x}:{device:02x}.{function}"
    return None


def _canonical_gfx(value: str) -> str | None:
    """'gfx906:sramecc-:xnack-' / 'gfx906+sram-ecc' -> 'gfx906'; anything else -> None."""
    token = re.split(r"[:+\s]", value.strip().lower(), maxsplit=1)[0]
    return token if _GFX.match(token) else None
