"""Vendor, device and board names from the system's PCI ID database (pci.ids, from hwdata or
pciutils).

The database is ~1.3 MB, too large to keep whole in every snapshot, so each lookup is one
library answer (`system.library("pci.ids:...")`): a snapshot keeps the names that were found
and the database version they came from.

File format (pci.ids header): a vendor line at column 0 (`1002  Advanced Micro Devices, Inc.
[AMD/ATI]`), its devices one tab in (`\\t744c  Navi 31 [...]`), a device's boards two tabs in
(`\\t\\t1da2 e471  NITRO+ RX 7900 XTX Vapor-X`); `#` starts a comment line.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from gpuscope.evidence import System
from gpuscope.i18n import N_, message
from gpuscope.model import JsonValue, ProbeState
from gpuscope.probes.sourced import recorded_reason

# Where distributions install pci.ids: hwdata (Fedora, Arch), pci.ids/pciutils (Debian,
# Ubuntu), and older or hand-installed copies.
PCI_IDS_PATHS: tuple[str, ...] = (
    "/usr/share/hwdata/pci.ids",
    "/usr/share/misc/pci.ids",
    "/usr/share/pci.ids",
    "/usr/local/share/pci.ids",
)
MISSING_ERROR = N_("no pci.ids database found (install hwdata or pciutils)")

_ID_RE = re.compile(r"^(?:0x)?([0-9a-f]{1,4})$")
_VENDOR_RE = re.compile(r"^([0-9a-fA-F]{4})\s+(.*?)\s*$")
_DEVICE_RE = re.compile(r"^\t([0-9a-fA-F]{4})\s+(.*?)\s*$")
_SUBSYSTEM_RE = re.compile(r"^\t\t([0-9a-fA-F]{4})\s+([0-9a-fA-F]{4})\s+(.*?)\s*$")
_VERSION_RE = re.compile(r"^#\s*Version:\s*(\S+)")


@dataclass(frozen=True, slots=True)
class PciNames:
    """What pci.ids says about one PCI function. A name it does not list is None, and
    `reason` says why (no database, an old database, not captured in a replay)."""

    vendor_name: str | None = None
    device_name: str | None = None
    subsystem_name: str | None = None
    database: str | None = None  # the pci.ids file the names came from
    database_version: str | None = None  # its `# Version:` header, e.g. "2026.08.22"
    state: ProbeState = ProbeState.OK
    reason: str | None = None
    source: str | None = None  # the library key that answered, for field_sources


# ----------------------------------------------------------------------------- pure parsing


def normalise_pci_id(value: str | None) -> str | None:
    """`0x744C` / `744c` -> `744c` (4 hex digits, no prefix); anything else -> None."""
    if value is None:
        return None
    match = _ID_RE.match(value.strip().lower())
    return match.group(1).zfill(4) if match else None


def scan_pci_ids(
    lines: Iterable[str],
    vendor: str,
    device: str,
    subvendor: str | None = None,
    subdevice: str | None = None,
) -> dict[str, str | None]:
    """Look one function up in pci.ids lines. Ids are 4 lower-case hex digits without `0x`.
    Returns version, vendor_name, device_name and subsystem_name (None where not listed).
    Stops at the end of the vendor's block."""
    found: dict[str, str | None] = {
        "version": None, "vendor_name": None, "device_name": None, "subsystem_name": None,
    }
    in_vendor = in_device = False
    for raw in lines:
        line = raw.rstrip("\r\n")
        if not line:
            continue
        if line.startswith("#"):
            if found["version"] is None and (match := _VERSION_RE.match(line)):
                found["version"] = match.group(1)
            continue
        if not line.startswith("\t"):
            if in_vendor:
                break  # the next vendor (or the device-class section): our block is over
            match = _VENDOR_RE.match(line)
            if match and match.group(1).lower() == vendor:
                in_vendor = True
                found["vendor_name"] = match.group(2)
            continue
        if not in_vendor:
            continue
        if line.startswith("\t\t"):
            match = _SUBSYSTEM_RE.match(line)
            if (in_device and match and subvendor is not None
                    and match.group(1).lower() == subvendor
                    and match.group(2).lower() == subdevice):
                found["subsystem_name"] = match.group(3)
            continue
        match = _DEVICE_RE.match(line)
        in_device = match is not None and match.group(1).lower() == device
        if match is not None and in_device:
            found["device_name"] = match.group(2)
    return found


# ----------------------------------------------------------------------------- collect


def library_key(vendor: str, device: str, subvendor: str | None, subdevice: str | None) -> str:
    def part(value: str | None) -> str:
        return f"0x{value}" if value is not None else "-"

    return f"pci.ids:{part(vendor)}:{part(device)}:{part(subvendor)}:{part(subdevice)}"


@functools.lru_cache(maxsize=512)
def _collect_cached(vendor: str, device: str, subvendor: str | None, subdevice: str | None,
                    paths: tuple[str, ...]) -> tuple[tuple[str, str | None], ...]:
    # pci.ids is a reference database installed with the OS, not evidence about the GPU, and
    # too large to record; so it is read here directly, and only the answer is recorded.
    for path in paths:
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                found = scan_pci_ids(handle, vendor, device, subvendor, subdevice)
        except FileNotFoundError:
            continue
        except OSError as exc:
            return (("status", "error"), ("error", f"cannot read {path}: {exc.strerror}"),
                    ("file", path))
        return (("status", "ok"), ("file", path), *found.items())
    return (("status", "library_missing"), ("error", MISSING_ERROR))


def collect_pci_names(
    vendor: str,
    device: str,
    subvendor: str | None = None,
    subdevice: str | None = None,
    paths: tuple[str, ...] = PCI_IDS_PATHS,
) -> dict[str, JsonValue]:
    """The library answer: reads the first pci.ids in `paths`. Cached per process."""
    return dict(_collect_cached(vendor, device, subvendor, subdevice, paths))


# ----------------------------------------------------------------------------- lookup


def lookup_pci_names(
    system: System,
    vendor_id: str,
    device_id: str,
    subsystem_vendor_id: str | None = None,
    subsystem_device_id: str | None = None,
) -> PciNames:
    """Names for a PCI function (ids as `0x1002` or `1002`). Never raises."""
    vendor, device = normalise_pci_id(vendor_id), normalise_pci_id(device_id)
    if vendor is None or device is None:
        return PciNames(state=ProbeState.ERROR,
                        reason=message("not a PCI vendor/device id: {vendor!r} {device!r}",
                                       vendor=vendor_id, device=device_id))
    subvendor = normalise_pci_id(subsystem_vendor_id)
    subdevice = normalise_pci_id(subsystem_device_id)
    if subvendor is None or subdevice is None:
        subvendor = subdevice = None
    key = library_key(vendor, device, subvendor, subdevice)
    answer = system.library(key, lambda: collect_pci_names(vendor, device, subvendor, subdevice))
    return parse_pci_names_answer(answer, key, f"0x{vendor}:0x{device}")


def parse_pci_names_answer(answer: JsonValue, key: str,
                           what: str | None = None) -> PciNames:
    """The library answer (JSON) to PciNames; pure."""
    if not isinstance(answer, dict):
        return PciNames(state=ProbeState.ERROR, source=key,
                        reason=message("malformed pci.ids answer: {answer}",
                                       answer=f"{answer!r:.80}"))

    def text(name: str) -> str | None:
        value = answer.get(name)
        return value if isinstance(value, str) and value else None

    status = text("status") or "error"
    if status == "not_captured":
        return PciNames(state=ProbeState.NOT_CAPTURED, source=key,
                        reason=message("pci.ids lookup not captured in this snapshot"))
    error = text("error")
    recorded = recorded_reason(error, MISSING_ERROR) if error else None
    if status == "library_missing":
        return PciNames(state=ProbeState.LIBRARY_MISSING, source=key,
                        reason=recorded or message(MISSING_ERROR))
    if status != "ok":
        try:
            state = ProbeState(status)
        except ValueError:
            state = ProbeState.ERROR
        return PciNames(state=state, source=key,
                        reason=recorded or message("pci.ids lookup failed ({status})",
                                                   status=status))
    database, version = text("file"), text("version")
    names = PciNames(vendor_name=text("vendor_name"), device_name=text("device_name"),
                     subsystem_name=text("subsystem_name"), database=database,
                     database_version=version, source=key)
    if names.device_name is None:
        where = dict(what=what or message("this device"), database=database or "pci.ids",
                     version=version)
        reason = (message("{what} is not listed in {database} (version {version}); a newer "
                          "pci.ids (update-pciids, or the hwdata package) may name it", **where)
                  if version else
                  message("{what} is not listed in {database}; a newer pci.ids (update-pciids, "
                          "or the hwdata package) may name it", **where))
        return PciNames(names.vendor_name, None, None, database, version, ProbeState.OK,
                        reason, key)
    return names
