"""`dxdiag /t` text (DirectX Diagnostic Tool, "Save All Information"), whole or in part.

Its sections sit between dashed lines ("Display Devices" between "---------------" lines);
each value is `Key: value`, the keys right-aligned. A display device starts at `Card name:`
and shows `Manufacturer`, `Chip type`, `Device Key` (`Enum\\PCI\\VEN_1002&DEV_67B0&...`),
`Dedicated Memory` ("4070 MB": MiB as DXGI counts them), `Driver Version` (Windows' driver
version, "21.19.413.0"), `Vendor ID`/`Device ID`/`SubSys ID`/`Revision ID` (hex). "System
Information" holds `Operating System: Windows 11 Pro 64-bit (10.0, Build 26100) (...)`.
Excerpts people paste often keep only some lines, without the section headers: a `Card name:`
line starts a device wherever it is, outside the sections of other devices (sound, input,
system devices).

What it yields: one `Layer.WINDOWS` sighting per display device with a PCI id; host facts
os=windows, `distro` (the Windows edition and build as dxdiag writes it), `kernel` (NT
version and build, "10.0.26100") and `cpu_model`; an NVIDIA device's driver version gives
`nvidia_driver_version` ("32.0.15.8180" -> "581.80").
"""

from __future__ import annotations

import re

from gpuscope.i18n import message
from gpuscope.model import GpuFacts, GpuKind, GpuSighting, Layer, ParsedOutput, Vendor
from gpuscope.parsers._common import (
    SNIFF_CHARS,
    Collector,
    integrated_reason,
    never_raises,
    none_on_error,
    read_lines,
)
from gpuscope.parsers._windows_text import (
    clean_windows_text,
    host_windows,
    nvidia_release,
    unquoted,
    vendor_from_text,
)
from gpuscope.parsers.windows_ids import parse_pnp_device_id, pci_bus_from_location

FORMATS: tuple[str, ...] = ("dxdiag",)

_PAIR = re.compile(r"^\s*([A-Za-z][A-Za-z0-9 /.()'-]{1,40}?):\s?(.*?)\s*$")
_DASHES = re.compile(r"^\s*-{4,}\s*$")
_OS = re.compile(r"^(.*?\(\d{1,2}\.\d{1,2}, Build (\d{4,6})\))")
_NT = re.compile(r"\((\d{1,2}\.\d{1,2}), Build (\d{4,6})\)")
_CPU_COUNT = re.compile(r"\s*\(\d{1,4} CPUs\),.*$")  # "... i5-14400F (16 CPUs), ~2.5GHz"
_MEGABYTES = re.compile(r"^(\d{1,9})\s*MB$")
_HEX = re.compile(r"^0x([0-9A-Fa-f]{1,8})$")
_VERSION = re.compile(r"^\d+(?:\.\d+){1,3}$")
_SNIFF_CARD = re.compile(r"^[ \t>]*Card name:[ \t]*\S", re.MULTILINE)
_SNIFF_OTHER = re.compile(
    r"^[ \t>]*(?:Chip type|Dedicated Memory|DirectX Version|Device Key|DAC type|"
    r"Display Memory):", re.MULTILINE)
_SNIFF_SECTION = re.compile(r"^[ \t]*(?:System Information|Display Devices)[ \t]*$", re.MULTILINE)
_OTHER_SECTIONS = ("sound devices", "sound capture devices", "video capture devices",
                   "directinput devices", "usb devices", "gameport devices", "ps/2 devices",
                   "disk & dvd/cd-rom drives", "system devices", "directshow filters",
                   "evr power information", "diagnostics", "dxva2 modes")
_MAX_DEVICES = 32
_Device = dict[str, tuple[str, int]]


@none_on_error
def sniff(text: str) -> tuple[str, float] | None:
    """dxdiag by its `Card name:` and display keys or its section titles; never raises."""
    head = clean_windows_text(text[:SNIFF_CHARS])
    card = bool(_SNIFF_CARD.search(head))
    others = len(_SNIFF_OTHER.findall(head))
    if card and (others >= 1 or _SNIFF_SECTION.search(head)):
        return ("dxdiag", 0.93)
    if "DxDiag" in head and (card or others >= 2):
        return ("dxdiag", 0.9)
    return None


@never_raises("dxdiag")
def parse(text: str, source: str) -> ParsedOutput:
    """dxdiag text to Windows-layer sightings and host facts; never raises."""
    lines, cut = read_lines(clean_windows_text(text))
    lines = [unquoted(line) for line in lines]
    out = Collector(source, lines, cut=cut)
    host_windows(out, None)
    devices: list[_Device] = []
    device: _Device | None = None
    section = ""
    left_out = 0
    for number, line in enumerate(lines, start=1):
        if _DASHES.match(line) and number >= 2 and not _DASHES.match(lines[number - 2]):
            section = lines[number - 2].strip().lower()
            device = None
            continue
        match = _PAIR.match(line)
        if match is None:
            continue
        key, value = match.group(1).strip(), match.group(2).strip()
        if key == "Operating System":
            _operating_system(out, value, number)
        elif key == "Processor" and value:
            out.host_fact("cpu_model", _CPU_COUNT.sub("", value), out.where(number))
        if section in _OTHER_SECTIONS:
            continue
        if key == "Card name":
            if len(devices) < _MAX_DEVICES:
                device = {}
                devices.append(device)
            else:
                left_out += 1
                device = None
        if device is not None:
            device.setdefault(key, (value, number))
    if left_out:
        out.problems.append(f"more than {_MAX_DEVICES} display devices: {left_out:,} more "
                            "were not read")
    sightings = [s for s in (_sighting(d, out) for d in devices) if s is not None]
    if not devices:
        out.problems.append(f"{source}: no dxdiag display device found")
    return out.result("dxdiag", sightings)


def _operating_system(out: Collector, value: str, number: int) -> None:
    """"Windows 11 Pro 64-bit (10.0, Build 26100) (26100.ge_release...)": the edition and
    build as `distro`, "10.0.26100" as `kernel`."""
    where = out.where(number)
    edition = _OS.match(value)
    out.host_fact("distro", edition.group(1) if edition else value, where)
    if (nt := _NT.search(value)) is not None:
        out.host_fact("kernel", f"{nt.group(1)}.{nt.group(2)}", where)


def _hex_id(device: _Device, key: str, digits: int) -> tuple[str, int] | None:
    found = device.get(key)
    if found is None or (match := _HEX.match(found[0])) is None:
        return None
    return f"0x{int(match.group(1), 16):0{digits}x}", found[1]


def _sighting(device: _Device, out: Collector) -> GpuSighting | None:
    source = out.source
    values: dict[str, object] = {}
    sources: dict[str, str] = {}
    missing: dict[str, str] = {}

    def put(name: str, value: object, line: int) -> None:
        values[name] = value
        sources[name] = f"{source}:{line}"

    card = device.get("Card name")
    if card is not None and card[0]:
        put("name", card[0], card[1])
    key = device.get("Device Key")
    ids = parse_pnp_device_id(key[0]) if key is not None else None
    vendor_line = 0  # the line the vendor id is read from
    if ids is not None and key is not None:
        vendor_line = key[1]
        for name, id_value in ids.facts().items():
            put(name, id_value, key[1])
    for field_name, dx_key, digits in (("pci_vendor_id", "Vendor ID", 4),
                                       ("pci_device_id", "Device ID", 4),
                                       ("pci_revision", "Revision ID", 2)):
        if field_name not in values and (found := _hex_id(device, dx_key, digits)):
            put(field_name, *found)
            if field_name == "pci_vendor_id":
                vendor_line = found[1]
    subsys = _hex_id(device, "SubSys ID", 8)
    if subsys is not None and "pci_subsystem_device_id" not in values:
        put("pci_subsystem_device_id", "0x" + subsys[0][2:6], subsys[1])
        put("pci_subsystem_vendor_id", "0x" + subsys[0][6:], subsys[1])
    vendor_id = values.get("pci_vendor_id")
    if isinstance(vendor_id, str):
        vendor = Vendor.from_pci_vendor_id(vendor_id)
        put("vendor", vendor, vendor_line)
    else:  # an excerpt without the ids; a remote or virtual display has none either
        maker = device.get("Manufacturer") or card
        vendor = vendor_from_text(" ".join(v for v, _ in (maker or ("", 0), card or ("", 0))))
        if vendor is None or maker is None:
            return None
        put("vendor", vendor, maker[1])
    location = device.get("Location")
    bus = pci_bus_from_location(location[0]) if location is not None else None
    if bus is not None and location is not None:
        put("pci_bus", bus, location[1])
    else:
        missing["pci_bus"] = message("{where}: dxdiag gives no PCI bus address for this device",
                                     where=f"{source}:{(card or ('', 0))[1]}")
    memory = device.get("Dedicated Memory")
    if memory is not None and (match := _MEGABYTES.match(memory[0])) and int(match.group(1)):
        put("vram_total_bytes", int(match.group(1)) << 20, memory[1])
    driver = device.get("Driver Version")
    if driver is not None and _VERSION.match(driver[0]):
        put("driver_version", driver[0], driver[1])
        release = nvidia_release(driver[0]) if vendor is Vendor.NVIDIA else None
        if release is not None:
            out.stack_fact("nvidia_driver_version", release, out.where(driver[1]))
    device_id = values.get("pci_device_id")
    if integrated_reason(card[0] if card else None, None,
                         device_id if isinstance(device_id, str) else None):
        put("kind", GpuKind.INTEGRATED, (card or ("", 0))[1])
    return GpuSighting(layer=Layer.WINDOWS, facts=GpuFacts(**values),  # type: ignore[arg-type]
                       field_sources=sources, missing_reasons=missing)
