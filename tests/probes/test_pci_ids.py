"""pci.ids lookups: the pure scanner on an excerpt in the real format, the collect step on
files, and the lookup through replayed library answers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpuscope.evidence import LiveSystem, RecordingSystem, ReplaySystem, Snapshot
from gpuscope.model import ProbeState
from gpuscope.probes.pci_ids import (
    MISSING_ERROR,
    PCI_IDS_PATHS,
    _collect_cached,
    collect_pci_names,
    library_key,
    lookup_pci_names,
    normalise_pci_id,
    parse_pci_names_answer,
    scan_pci_ids,
)

SNAPSHOTS = Path(__file__).resolve().parent.parent / "fixtures" / "snapshots"

# Lines of pciutils/pciids pci.ids (version 2026.05.24), cut down; comments, a comment inside
# a device block, a vendor after AMD's and the device-class section are kept on purpose.
EXCERPT = """\
#
#\tList of PCI IDs
#
#\tVersion: 2026.05.24
#\tDate:    2026-05-24 03:15:02
#

# Syntax:
# vendor  vendor_name
#\tdevice  device_name\t\t\t\t<-- single tab
#\t\tsubvendor subdevice  subsystem_name\t<-- two tabs

1001  Kolter Electronic
\t0010  PCI 1616 Measurement card with 32 digital I/O lines
# nee ATI Technologies, Inc.
1002  Advanced Micro Devices, Inc. [AMD/ATI]
\t1478  Navi 10 XL Upstream Port of PCI Express Switch
\t1479  Navi 10 XL Downstream Port of PCI Express Switch
\t164e  Raphael
\t73a5  Navi 21 [Radeon RX 6950 XT]
# Reference
\t\t1002 0e3a  Radeon RX 6950 XT
\t\t1da2 441d  Navi 21 [Sapphire Nitro+ Radeon RX 6950 XT]
\t73df  Navi 22 [Radeon RX 6700/6700 XT/6750 XT / 6800M/6850M XT]
\t\t1da2 445e  Radeon RX 6700 XT GAMING OC 12G [Sapphire PULSE]
\t744c  Navi 31 [Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M]
\t\t1002 0e3b  RX 7900 XTX / RX 7900 GRE [XFX]
\t\t1da2 e471  NITRO+ RX 7900 XTX Vapor-X
\t7551  Navi 48 [Radeon AI PRO R9700]
100b  DP83815 (MacPhyter) Ethernet Controller
10de  NVIDIA Corporation
\t2684  AD102 [GeForce RTX 4090]

# List of known device classes, subclasses and programming interfaces

C 03  Display controller
\t00  VGA compatible controller
"""


def scan(*ids: str | None) -> dict[str, str | None]:
    vendor, device, *sub = ids
    assert vendor is not None and device is not None
    return scan_pci_ids(EXCERPT.splitlines(keepends=True), vendor, device, *sub)


def test_scan_finds_vendor_device_and_board() -> None:
    assert scan("1002", "744c", "1da2", "e471") == {
        "version": "2026.05.24",
        "vendor_name": "Advanced Micro Devices, Inc. [AMD/ATI]",
        "device_name": "Navi 31 [Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M]",
        "subsystem_name": "NITRO+ RX 7900 XTX Vapor-X",
    }


def test_scan_without_a_board_and_with_an_unlisted_board() -> None:
    assert scan("1002", "164e")["device_name"] == "Raphael"
    assert scan("1002", "164e")["subsystem_name"] is None
    unlisted = scan("1002", "7551", "1002", "0e4a")
    assert unlisted["device_name"] == "Navi 48 [Radeon AI PRO R9700]"
    assert unlisted["subsystem_name"] is None


def test_a_board_belongs_to_its_own_device_only() -> None:
    assert scan("1002", "73df", "1da2", "e471")["subsystem_name"] is None
    assert scan("1002", "73df", "1da2", "445e")["subsystem_name"] == (
        "Radeon RX 6700 XT GAMING OC 12G [Sapphire PULSE]")


def test_a_comment_inside_a_device_block_does_not_end_it() -> None:
    assert scan("1002", "73a5", "1da2", "441d")["subsystem_name"] == (
        "Navi 21 [Sapphire Nitro+ Radeon RX 6950 XT]")


def test_device_ids_are_per_vendor() -> None:
    assert scan("10de", "744c")["device_name"] is None
    assert scan("10de", "2684")["device_name"] == "AD102 [GeForce RTX 4090]"
    assert scan("10de", "2684")["vendor_name"] == "NVIDIA Corporation"
    assert scan("1001", "744c")["device_name"] is None


def test_unknown_vendor_and_the_class_section() -> None:
    found = scan("abcd", "0001")
    assert found["vendor_name"] is None and found["device_name"] is None
    assert found["version"] == "2026.05.24"
    assert scan("0003", "0000")["vendor_name"] is None  # "C 03" is a class, not a vendor


def test_crlf_lines() -> None:
    lines = EXCERPT.replace("\n", "\r\n").splitlines(keepends=True)
    assert scan_pci_ids(lines, "1002", "744c", "1002", "0e3b")["subsystem_name"] == (
        "RX 7900 XTX / RX 7900 GRE [XFX]")


HEX4 = st.text(alphabet="0123456789abcdef", min_size=4, max_size=4)
NAME = st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")),
               min_size=1, max_size=30).map(str.strip).filter(bool)


@given(st.lists(st.text(), max_size=30), HEX4, HEX4)
def test_scan_takes_any_lines(lines: list[str], vendor: str, device: str) -> None:
    found = scan_pci_ids(lines, vendor, device, vendor, device)
    assert set(found) == {"version", "vendor_name", "device_name", "subsystem_name"}


@given(st.dictionaries(HEX4, st.tuples(NAME, st.dictionaries(HEX4, NAME, max_size=4)),
                       min_size=1, max_size=5))
def test_scan_finds_every_device_of_a_generated_database(
        vendors: dict[str, tuple[str, dict[str, str]]]) -> None:
    lines = ["# Version: 2030.01.01\n"]
    for vendor, (vendor_name, devices) in sorted(vendors.items()):
        lines.append(f"{vendor}  {vendor_name}\n")
        lines.extend(f"\t{device}  {name}\n" for device, name in sorted(devices.items()))
    for vendor, (vendor_name, devices) in vendors.items():
        for device, name in devices.items():
            found = scan_pci_ids(lines, vendor, device)
            assert found["vendor_name"] == vendor_name
            assert found["device_name"] == name
            assert found["version"] == "2030.01.01"


# ----------------------------------------------------------------------------- collect


def test_collect_reads_the_first_existing_database(tmp_path: Path) -> None:
    database = tmp_path / "pci.ids"
    database.write_text(EXCERPT, encoding="utf-8")
    paths = (str(tmp_path / "missing.ids"), str(database))
    answer = collect_pci_names("1002", "744c", "1da2", "e471", paths=paths)
    assert answer == {
        "status": "ok", "file": str(database), "version": "2026.05.24",
        "vendor_name": "Advanced Micro Devices, Inc. [AMD/ATI]",
        "device_name": "Navi 31 [Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M]",
        "subsystem_name": "NITRO+ RX 7900 XTX Vapor-X",
    }
    hits = _collect_cached.cache_info().hits
    assert collect_pci_names("1002", "744c", "1da2", "e471", paths=paths) == answer
    assert _collect_cached.cache_info().hits == hits + 1  # read once per process


def test_collect_without_a_database_is_library_missing(tmp_path: Path) -> None:
    answer = collect_pci_names("1002", "744c", paths=(str(tmp_path / "nope" / "pci.ids"),))
    assert answer == {"status": "library_missing", "error": MISSING_ERROR}
    assert MISSING_ERROR == "no pci.ids database found (install hwdata or pciutils)"


def test_live_lookup_on_this_machine() -> None:
    # The development machine has no pci.ids; one with hwdata installed names the device.
    recording = RecordingSystem(LiveSystem())
    names = lookup_pci_names(recording, "0x1002", "0x744c")
    key = "pci.ids:0x1002:0x744c:-:-"
    assert key in recording.snapshot.libraries
    if any(os.path.exists(path) for path in PCI_IDS_PATHS):
        assert names.state is ProbeState.OK and names.database in PCI_IDS_PATHS
        assert names.vendor_name is not None
    else:
        assert names.state is ProbeState.LIBRARY_MISSING
        assert names.reason == MISSING_ERROR
        assert recording.snapshot.libraries[key] == {
            "status": "library_missing", "error": MISSING_ERROR}


# ----------------------------------------------------------------------------- lookup


def test_lookup_replays_the_fixture_answer() -> None:
    system = ReplaySystem.from_file(SNAPSHOTS / "rx7900xtx_rocm.json")
    names = lookup_pci_names(system, "0x1002", "0x744C", "0x1da2", "0xe471")
    assert names.state is ProbeState.OK
    assert names.device_name == "Navi 31 [Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M]"
    assert names.subsystem_name == "NITRO+ RX 7900 XTX Vapor-X"
    assert names.database == "/usr/share/misc/pci.ids"
    assert names.database_version == "2026.05.24"
    assert names.source == "pci.ids:0x1002:0x744c:0x1da2:0xe471"
    assert names.reason is None


def test_lookup_not_captured() -> None:
    names = lookup_pci_names(ReplaySystem(Snapshot()), "1002", "744c")
    assert names.state is ProbeState.NOT_CAPTURED
    assert names.reason == "pci.ids lookup not captured in this snapshot"
    assert names.device_name is None


def test_lookup_of_a_device_an_old_database_does_not_list() -> None:
    key = library_key("1002", "7551", None, None)
    snapshot = Snapshot(libraries={key: {
        "status": "ok", "file": "/usr/share/misc/pci.ids", "version": "2022.01.22",
        "vendor_name": "Advanced Micro Devices, Inc. [AMD/ATI]", "device_name": None,
        "subsystem_name": None}})
    names = lookup_pci_names(ReplaySystem(snapshot), "0x1002", "0x7551")
    assert names.state is ProbeState.OK
    assert names.vendor_name == "Advanced Micro Devices, Inc. [AMD/ATI]"
    assert names.device_name is None
    assert "0x1002:0x7551 is not listed in /usr/share/misc/pci.ids (version 2022.01.22)" in (
        names.reason or "")


@pytest.mark.parametrize(("answer", "state"), [
    ({"status": "library_missing", "error": MISSING_ERROR}, ProbeState.LIBRARY_MISSING),
    ({"status": "error", "error": "cannot read /usr/share/hwdata/pci.ids: Permission denied"},
     ProbeState.ERROR),
    ({"status": "timeout"}, ProbeState.TIMEOUT),
    ({"status": "weird"}, ProbeState.ERROR),
    ("not a dict", ProbeState.ERROR),
])
def test_answers_that_are_not_ok(answer: object, state: ProbeState) -> None:
    names = parse_pci_names_answer(answer, "pci.ids:0x1002:0x744c:-:-")  # type: ignore[arg-type]
    assert names.state is state
    assert names.reason
    assert names.device_name is None


def test_bad_ids_and_half_a_subsystem() -> None:
    assert lookup_pci_names(ReplaySystem(Snapshot()), "AMD", "0x744c").state is ProbeState.ERROR
    recording = RecordingSystem(ReplaySystem(Snapshot()))
    lookup_pci_names(recording, "0x1002", "0x744c", "0x1da2", None)
    assert list(recording.snapshot.libraries) == ["pci.ids:0x1002:0x744c:-:-"]


@pytest.mark.parametrize(("value", "expected"), [
    ("0x744C", "744c"), ("744c", "744c"), ("0x2", "0002"), (" 1002 ", "1002"),
    ("0x12345", None), ("xyz", None), ("", None), (None, None),
])
def test_normalise_pci_id(value: str | None, expected: str | None) -> None:
    assert normalise_pci_id(value) == expected
