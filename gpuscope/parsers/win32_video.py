"""`Win32_VideoController` as Windows users paste it: PowerShell's list layout
(`Get-CimInstance Win32_VideoController`, `Get-WmiObject ...`, `| Format-List *`, `Name : ...`),
its table layout (`| Format-Table Name, DriverVersion`, `| Select Name, AdapterRAM`), its JSON
(`| ConvertTo-Json`: one object or a list; the raw `CimInstanceProperties` list too), and
`wmic path win32_VideoController get Name,DriverVersion,AdapterRAM,PNPDeviceID` (columns, often
saved as UTF-16) or `... get /value` (`Name=...`).

What it yields: one `Layer.WINDOWS` sighting per PCI display adapter (Windows' display driver
sees it): the name, vendor and PCI ids from `PNPDeviceID` (or the device id in `VideoProcessor`,
"AMD Radeon Graphics Processor (0x744C)"), and Windows' driver version ("31.0.24033.1003").
`AdapterRAM` is a uint32 (https://learn.microsoft.com/en-us/windows/win32/cimwin32prov/win32-videocontroller):
it stops at 4 GB, so it becomes VRAM only below that. Adapters that are not PCI devices
(remote and virtual displays) are not sightings. Host fact os=windows; an NVIDIA adapter's
driver version gives the stack fact `nvidia_driver_version` ("32.0.15.8180" -> "581.80").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping

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
from gpuscope.parsers.windows_ids import parse_pnp_device_id
from gpuscope.untrusted import UntrustedInputError, load_json

FORMATS: tuple[str, ...] = ("win32-videocontroller",)

# Properties of the class that a paste of it shows (a header or list needs two of them).
_PROPERTIES = frozenset({
    "AdapterCompatibility", "AdapterDACType", "AdapterRAM", "Caption", "CurrentRefreshRate",
    "CurrentHorizontalResolution", "CurrentVerticalResolution", "Description", "DeviceID",
    "DriverDate", "DriverVersion", "InfFilename", "InfSection", "InstalledDisplayDrivers",
    "Name", "PNPDeviceID", "Status", "VideoModeDescription", "VideoProcessor",
    "VideoArchitecture", "VideoMemoryType", "Availability", "ConfigManagerErrorCode",
})
_IDENTITY = ("PNPDeviceID", "Name", "Caption", "Description", "VideoProcessor")
# The RAM a uint32 can hold: 4 GiB less one; Windows reports 4293918720 (4 GiB less 1 MiB) for
# any card of 4 GB or more, so only a value below that is a size.
_ADAPTER_RAM_CAP = 4293918720
_LIST_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]{1,40})\s*:\s?(.*?)\s*$")
_VALUE_LINE = re.compile(r"^\s*([A-Za-z][A-Za-z0-9]{1,40})=(.*?)\s*$")
_PROCESSOR_ID = re.compile(r"\(0x([0-9A-Fa-f]{4})\)")
_CLASS_NAME = re.compile(r"win32_videocontroller", re.IGNORECASE)
_SNIFF_LIST = re.compile(
    r"^[ \t>]*(?:AdapterRAM|AdapterCompatibility|PNPDeviceID|VideoProcessor|AdapterDACType|"
    r"VideoModeDescription|InfSection)[ \t]*[:=]", re.MULTILINE)
# A property as a JSON key ("AdapterRAM": 4293918720) or, in the raw CIM instance, as a name
# ("Name": "AdapterRAM", "Value": ...).
_SNIFF_JSON = re.compile(r'"(?:AdapterRAM|AdapterCompatibility|VideoProcessor|AdapterDACType)"'
                         r'\s*[:,]')
_SNIFF_HEADER = re.compile(
    r"^[ \t]*(?:[A-Za-z]+[ \t]+)*(?:AdapterRAM|DriverVersion|PNPDeviceID|VideoProcessor|"
    r"AdapterCompatibility)(?:[ \t]+[A-Za-z]+)*[ \t]*$", re.MULTILINE)
_MAX_ADAPTERS = 64
_Record = dict[str, tuple[str, int]]


@none_on_error
def sniff(text: str) -> tuple[str, float] | None:
    """Win32_VideoController by its property names; never raises."""
    head = clean_windows_text(text[:SNIFF_CHARS])
    named = bool(_CLASS_NAME.search(head))
    lines = len(_SNIFF_LIST.findall(head))
    if lines >= 2 or (named and lines >= 1):
        return ("win32-videocontroller", 0.92)
    if _SNIFF_JSON.search(head):
        return ("win32-videocontroller", 0.9)
    if _SNIFF_HEADER.search(head):
        return ("win32-videocontroller", 0.85)
    if named and re.search(r"^[ \t]*Name[ \t]*$", head, re.MULTILINE):
        return ("win32-videocontroller", 0.8)  # `wmic path win32_VideoController get name`
    return None


@never_raises("win32-videocontroller")
def parse(text: str, source: str) -> ParsedOutput:
    """Win32_VideoController text or JSON to Windows-layer sightings; never raises."""
    cleaned = clean_windows_text(text)
    lines, cut = read_lines(cleaned)
    lines = [unquoted(line) for line in lines]
    out = Collector(source, lines, cut=cut)
    records = _json_records(cleaned, out)
    if records is None:
        records = _list_records(lines) or _value_records(lines) or _table_records(lines)
    host_windows(out, None)
    if len(records) > _MAX_ADAPTERS:
        out.problems.append(f"more than {_MAX_ADAPTERS} display adapters: "
                            f"{len(records) - _MAX_ADAPTERS:,} more were not read")
    sightings = [s for s in (_sighting(r, out) for r in records[:_MAX_ADAPTERS]) if s]
    if not records:
        out.problems.append(f"{source}: no Win32_VideoController adapter found")
    return out.result("win32-videocontroller", sightings)


# ----------------------------------------------------------------------------- layouts


def _list_records(lines: list[str]) -> list[_Record]:
    """`Key : value` blocks; a record ends at a blank line after its keys, or where a key
    it already holds comes again."""
    records: list[_Record] = []
    record: _Record = {}
    for number, line in enumerate(lines, start=1):
        match = _LIST_LINE.match(line)
        if match is None:
            if not line.strip() and _is_adapter(record):
                records.append(record)
                record = {}
            continue  # a wrapped value's continuation, a prompt, prose
        key, value = match.group(1), match.group(2)
        if key in record:
            if _is_adapter(record):
                records.append(record)
            record = {}
        record[key] = (value, number)
    if _is_adapter(record):
        records.append(record)
    return records


def _value_records(lines: list[str]) -> list[_Record]:
    """`wmic ... get /value` and `/format:list`: `Key=value` lines, blank lines between."""
    return _list_records([_as_list_line(line) for line in lines])


def _as_list_line(line: str) -> str:
    match = _VALUE_LINE.match(line)
    return f"{match.group(1)} : {match.group(2)}" if match else ("" if not line.strip()
                                                                   else "\x00")


def _is_adapter(record: Mapping[str, tuple[str, int]]) -> bool:
    return (sum(1 for key in record if key in _PROPERTIES) >= 2
            and any(record.get(key, ("", 0))[0] for key in _IDENTITY))


def _table_records(lines: list[str]) -> list[_Record]:
    """A column table (PowerShell's `Format-Table`, `wmic ... get A,B`): the header's words
    are property names; each value starts at its column's start (PowerShell's dash line
    gives the spans when there is one)."""
    for index, line in enumerate(lines):
        words = line.split()
        if not words or not all(w in _PROPERTIES for w in words):
            continue
        if len(words) < 2 and words != ["Name"]:
            continue
        starts = [m.start() for m in re.finditer(r"\S+", line)]
        first = index + 1
        if first < len(lines) and lines[first].strip() and set(lines[first].strip()) <= {"-", " "}:
            starts = [m.start() for m in re.finditer(r"-+", lines[first])]
            first += 1
        if len(starts) != len(words):
            continue
        records = _rows(lines, first, words, starts)
        if records:
            return records
    return []


def _rows(lines: list[str], first: int, words: list[str], starts: list[int]) -> list[_Record]:
    """The rows of a table from line index `first` to the first blank line after a row."""
    records: list[_Record] = []
    for index in range(first, len(lines)):
        row = lines[index]
        if not row.strip():
            if records:
                break
            continue
        record: _Record = {}
        for column, (key, start) in enumerate(zip(words, starts, strict=True)):
            end = starts[column + 1] if column + 1 < len(starts) else None
            value = row[start:end].strip()
            if value:
                record[key] = (value, index + 1)
        if not any(record.get(key, ("", 0))[0] for key in _IDENTITY):
            break  # prose or a prompt after the table
        records.append(record)
    return records


def _json_records(text: str, out: Collector) -> list[_Record] | None:
    """`ConvertTo-Json` output; None when the paste holds no JSON document."""
    start = min((i for i in (text.find("{"), text.find("[")) if i >= 0), default=-1)
    if start < 0 or not _SNIFF_JSON.search(text[start:start + SNIFF_CHARS]):
        return None
    end = max(text.rfind("}"), text.rfind("]"))
    try:
        doc = load_json(text[start:end + 1], name=out.source)
    except UntrustedInputError as exc:
        out.problems.append(str(exc))
        return None
    items = doc if isinstance(doc, list) else [doc]
    line = text.count("\n", 0, start) + 1
    records: list[_Record] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        flat: dict[str, object] = dict(item)
        properties = item.get("CimInstanceProperties")
        if isinstance(properties, list):  # the raw CIM instance: [{"Name": .., "Value": ..}]
            flat = {p["Name"]: p.get("Value") for p in properties
                    if isinstance(p, dict) and isinstance(p.get("Name"), str)}
        record = {str(k): (_json_text(v), line) for k, v in flat.items() if _json_text(v)}
        if _is_adapter(record):
            records.append(record)
    return records


def _json_text(value: object) -> str:
    if isinstance(value, bool) or value is None or isinstance(value, (dict, list)):
        return ""
    return str(value).strip()


# ----------------------------------------------------------------------------- sightings


def _first(record: Mapping[str, tuple[str, int]], keys: Iterable[str]) -> tuple[str, int] | None:
    for key in keys:
        found = record.get(key)
        if found is not None and found[0]:
            return found
    return None


def _sighting(record: _Record, out: Collector) -> GpuSighting | None:
    source = out.source
    values: dict[str, object] = {}
    sources: dict[str, str] = {}
    missing: dict[str, str] = {}

    def put(name: str, value: object, line: int) -> None:
        values[name] = value
        sources[name] = f"{source}:{line}"

    pnp = record.get("PNPDeviceID")
    ids = parse_pnp_device_id(pnp[0]) if pnp is not None else None
    if pnp is not None and pnp[0] and ids is None:
        return None  # ROOT\..., SWD\...: a virtual or remote display, no GPU
    name = _first(record, ("Name", "Caption", "Description"))
    if name is not None:
        put("name", name[0], name[1])
    processor = record.get("VideoProcessor")
    if ids is not None and pnp is not None:
        for field_name, value in ids.facts().items():
            put(field_name, value, pnp[1])
        vendor = Vendor.from_pci_vendor_id(ids.vendor_id)
        put("vendor", vendor, pnp[1])
    else:
        vendor = _vendor_from_text(record)
        if vendor is not None:
            put("vendor", vendor, (_first(record, ("AdapterCompatibility",)) or name
                                   or ("", 0))[1])
        if processor is not None and (match := _PROCESSOR_ID.search(processor[0])):
            put("pci_device_id", "0x" + match.group(1).lower(), processor[1])
    if vendor is None and "pci_device_id" not in values:
        return None
    driver = record.get("DriverVersion")
    if driver is not None and re.fullmatch(r"\d+(?:\.\d+){1,3}", driver[0]):
        put("driver_version", driver[0], driver[1])
        release = nvidia_release(driver[0]) if vendor is Vendor.NVIDIA else None
        if release is not None:
            out.stack_fact("nvidia_driver_version", release, out.where(driver[1]))
    _adapter_ram(record.get("AdapterRAM"), put, missing, source)
    missing["pci_bus"] = message("Win32_VideoController gives no PCI bus address")
    device_id = values.get("pci_device_id")
    if integrated_reason(name[0] if name else None, None,
                         device_id if isinstance(device_id, str) else None):
        put("kind", GpuKind.INTEGRATED, (name or processor or pnp or ("", 0))[1])
    return GpuSighting(layer=Layer.WINDOWS, facts=GpuFacts(**values),  # type: ignore[arg-type]
                       field_sources=sources, missing_reasons=missing)


def _vendor_from_text(record: _Record) -> Vendor | None:
    return vendor_from_text(" ".join(v for v, _ in (record.get(k, ("", 0)) for k in (
        "AdapterCompatibility", "Name", "Caption", "VideoProcessor"))))


def _adapter_ram(found: tuple[str, int] | None, put: Callable[[str, object, int], None],
                 missing: dict[str, str], source: str) -> None:
    if found is None or not re.fullmatch(r"-?\d{1,20}", found[0]):
        return
    value = int(found[0])
    if 0 < value < _ADAPTER_RAM_CAP:
        put("vram_total_bytes", value, found[1])
    else:
        missing["vram_total_bytes"] = message(
            "{where}: AdapterRAM is a 32-bit value that stops at 4 GB ({value}); the true "
            "VRAM is in the registry (HardwareInformation.qwMemorySize)",
            where=f"{source}:{found[1]}", value=value)
