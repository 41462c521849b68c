"""Windows' names for a PCI device: the PnP device id and the location text.

`PCI\\VEN_1002&DEV_744C&SUBSYS_471E1DA2&REV_C8\\6&2A1F3B1D&0&00000019` is what
`Win32_VideoController.PNPDeviceID`, dxdiag and the registry's `MatchingDeviceId`
(`pci\\ven_1002&dev_744c&rev_c8`, often without SUBSYS) say. `SUBSYS_ddddvvvv` holds the
subsystem *device* id first and the subsystem *vendor* id last
(https://learn.microsoft.com/en-us/windows-hardware/drivers/install/identifiers-for-pci-devices).

The registry's `LocationInformation` is "PCI bus 3, device 0, function 0", translated with
Windows' display language ("PCI-Bus 3, Gerät 0, Funktion 0", "PCI 总线 3、设备 0、功能 0"): the
three numbers in order are read whatever the words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PNP = re.compile(
    r"PCI\\+VEN_(?P<vendor>[0-9A-F]{4})&DEV_(?P<device>[0-9A-F]{4})"
    r"(?:&SUBSYS_(?P<subsys>[0-9A-F]{8}))?(?:&REV_(?P<rev>[0-9A-F]{2}))?",
    re.IGNORECASE)
_LOCATION = re.compile(r"^\D{0,40}?(\d{1,3})\D{1,40}?(\d{1,2})\D{1,40}?(\d)\D{0,10}$")


@dataclass(frozen=True, slots=True)
class PnpIds:
    """The PCI ids of a PnP device id, lower-case hex with 0x as in the rest of gpuscope."""

    vendor_id: str  # "0x1002"
    device_id: str  # "0x744c"
    subsystem_vendor_id: str | None = None  # "0x1da2"
    subsystem_device_id: str | None = None  # "0x471e"
    revision: str | None = None  # "0xc8"

    def facts(self) -> dict[str, str]:
        """The ids as GpuFacts fields ("pci_vendor_id", ...), those known."""
        return {name: value for name, value in (
            ("pci_vendor_id", self.vendor_id), ("pci_device_id", self.device_id),
            ("pci_subsystem_vendor_id", self.subsystem_vendor_id),
            ("pci_subsystem_device_id", self.subsystem_device_id),
            ("pci_revision", self.revision)) if value is not None}


def parse_pnp_device_id(text: str) -> PnpIds | None:
    """The PCI ids in a PnP device id (or a text holding one), or None when there is none."""
    match = _PNP.search(text)
    if match is None:
        return None
    subsys = match.group("subsys")
    rev = match.group("rev")
    return PnpIds(
        vendor_id="0x" + match.group("vendor").lower(),
        device_id="0x" + match.group("device").lower(),
        subsystem_vendor_id="0x" + subsys[4:].lower() if subsys else None,
        subsystem_device_id="0x" + subsys[:4].lower() if subsys else None,
        revision="0x" + rev.lower() if rev else None,
    )


def pci_bus_from_location(text: str) -> str | None:
    """"PCI bus 3, device 0, function 0" (in any language) -> "0000:03:00.0"; None when the
    text is not three numbers in words. Windows does not name the PCI domain there; it is 0 on
    the desktops this is read on."""
    match = _LOCATION.match(text.strip())
    if match is None:
        return None
    bus, device, function = (int(g) for g in match.groups())
    if bus > 255 or device > 31 or function > 7:
        return None
    return f"0000:{bus:02x}:{device:02x}.{function:x}"
