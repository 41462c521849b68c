"""The amdgpu sysfs probe against the AMD replay fixtures and small hand-built sysfs trees."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpuscope.evidence import FileRead, ReplaySystem, Snapshot
from gpuscope.model import GpuSighting, Layer, PcieLink, ProbeState, Vendor
from gpuscope.probes.amdgpu_sysfs import (
    current_dpm_mhz,
    drm_cards,
    max_dpm_mhz,
    microwatts_to_watts,
    parse_dpm_levels,
    parse_hex_id,
    parse_int,
    parse_link_speed,
    parse_link_width,
    probe_amdgpu_sysfs,
    read_pcie_link,
)

SNAPSHOTS = Path(__file__).resolve().parent.parent / "fixtures" / "snapshots"
LINUX = {"/proc/version": {"text": "Linux version 6.8.0-49-generic (buildd@lcy02) #49-Ubuntu\n"}}


def fixture(name: str) -> ReplaySystem:
    return ReplaySystem.from_file(SNAPSHOTS / name)


def by_bus(sightings: tuple[GpuSighting, ...]) -> dict[str | None, GpuSighting]:
    return {s.facts.pci_bus: s for s in sightings}


def files(values: dict[str, str]) -> dict[str, dict[str, Any]]:
    return {path: {"text": text + "\n"} for path, text in values.items()}


def pci_function(path: str, vendor: str, device: str, link: tuple[str, int, str, int]
                 ) -> dict[str, str]:
    speed, width, max_speed, max_width = link
    return {f"{path}/vendor": vendor, f"{path}/device": device,
            f"{path}/current_link_speed": speed, f"{path}/current_link_width": str(width),
            f"{path}/max_link_speed": max_speed, f"{path}/max_link_width": str(max_width)}


# ----------------------------------------------------------------------------- fixtures


def test_rx7900xtx_fixture_reports_the_card_with_its_sources() -> None:
    result = probe_amdgpu_sysfs(fixture("rx7900xtx_rocm.json"))
    assert result.status.name == "amdgpu_sysfs"
    assert result.status.state is ProbeState.OK
    assert result.status.reason == "1 DRM GPU (1 amdgpu)"
    (gpu,) = result.sightings  # card1-DP-1 and renderD128 are not GPUs
    facts = gpu.facts
    assert gpu.layer is Layer.SYSFS
    assert facts.vendor is Vendor.AMD
    assert (facts.pci_vendor_id, facts.pci_device_id) == ("0x1002", "0x744c")
    assert (facts.pci_subsystem_vendor_id, facts.pci_subsystem_device_id) == ("0x1da2", "0xe471")
    assert facts.pci_revision == "0xc8"
    assert facts.pci_bus == "0000:03:00.0"
    assert facts.kernel_driver == "amdgpu"
    assert facts.drm_card == "card1" and facts.drm_render_minor == 128
    assert facts.boot_vga is True
    assert facts.vram_total_bytes == 25753026560
    assert facts.visible_vram_total_bytes == 25753026560
    assert facts.gtt_total_bytes == 33549606912
    assert facts.max_graphics_clock_mhz == 2526 and facts.max_memory_clock_mhz == 1250
    assert facts.power_cap_w == 355.0 and facts.power_cap_max_w == 408.0
    assert facts.vbios_version == "113-4E4710U-T4Y"
    # No product_name on this board: the name and the board come from the recorded pci.ids.
    assert facts.name == "Navi 31 [Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M]"
    assert facts.board_name == "NITRO+ RX 7900 XTX Vapor-X"
    assert gpu.field_sources["name"] == "pci.ids 2026.05.24 (/usr/share/misc/pci.ids)"
    assert facts.gfx_target is None
    assert facts.pcie_link == PcieLink(16.0, 16, 16.0, 16, "slot (upstream port 0000:01:00.0)")
    assert gpu.field_sources["vram_total_bytes"] == (
        "/sys/class/drm/card1/device/mem_info_vram_total")
    assert gpu.field_sources["kernel_driver"] == "realpath of /sys/class/drm/card1/device/driver"
    assert "0000:01:00.0/current_link_speed" in gpu.field_sources["pcie_link"]
    assert "ENOENT" in gpu.missing_reasons["serial_number"]


def test_without_pci_ids_the_name_is_missing_with_the_reason() -> None:
    snapshot = Snapshot.load(SNAPSHOTS / "rx7900xtx_rocm.json")
    snapshot.libraries = {k: v for k, v in snapshot.libraries.items()
                          if not k.startswith("pci.ids:")}
    gpu = probe_amdgpu_sysfs(ReplaySystem(snapshot)).sightings[0]
    assert gpu.facts.name is None and gpu.facts.board_name is None
    assert "not captured" in gpu.missing_reasons["name"]


def test_apu_dgpu_fixture_reports_both_gpus_and_the_slot_link_of_the_rdna4_card() -> None:
    result = probe_amdgpu_sysfs(fixture("apu_dgpu.json"))
    assert result.status.state is ProbeState.OK
    assert result.status.reason == "2 DRM GPUs (2 amdgpu)"
    gpus = by_bus(result.sightings)
    r9700, igpu = gpus["0000:03:00.0"].facts, gpus["0000:13:00.0"].facts
    assert r9700.pci_device_id == "0x7551" and igpu.pci_device_id == "0x164e"
    assert (r9700.drm_card, r9700.drm_render_minor) == ("card1", 128)
    assert (igpu.drm_card, igpu.drm_render_minor) == ("card2", 129)
    assert r9700.vram_total_bytes == 34208743424
    assert igpu.vram_total_bytes == 536870912
    assert r9700.uuid == "ae866dfe401a6542"
    assert r9700.boot_vga is True and igpu.boot_vga is False
    # The GPU function says 32 GT/s (its internal link); the slot runs at 16 GT/s.
    assert r9700.pcie_link == PcieLink(16.0, 16, 32.0, 16, "slot (upstream port 0000:01:00.0)")
    assert igpu.pcie_link is not None
    assert igpu.pcie_link.measured_at == "GPU function 0000:13:00.0"
    assert igpu.power_cap_w is None
    assert "power1_cap" in gpus["0000:13:00.0"].missing_reasons["power_cap_w"]
    assert igpu.max_graphics_clock_mhz == 2200


def test_no_access_fixture_reads_sysfs_without_any_group() -> None:
    result = probe_amdgpu_sysfs(fixture("amd_kfd_no_access.json"))
    (gpu,) = result.sightings
    assert gpu.facts.pci_device_id == "0x73df"
    assert gpu.facts.vram_total_bytes == 12868124672
    assert gpu.facts.visible_vram_total_bytes == 268435456
    assert gpu.facts.pcie_link == PcieLink(8.0, 16, 16.0, 16, "slot (upstream port 0000:0a:00.0)")
    assert gpu.facts.power_cap_w == 186.0


# ----------------------------------------------------------------------------- PCIe link


SWITCH_ROOT = "/sys/devices/pci0000:00/0000:00:01.1"
SWITCH_UP = f"{SWITCH_ROOT}/0000:01:00.0"
SWITCH_DOWN = f"{SWITCH_UP}/0000:02:00.0"
SWITCH_GPU = f"{SWITCH_DOWN}/0000:03:00.0"


def switch_tree(up_link: tuple[str, int, str, int]) -> dict[str, str]:
    # RX 9070 XT in github.com/ilya-zlobintsev/LACT/issues/593: the GPU says 32 GT/s x16,
    # the slot is x2.
    return {
        **pci_function(SWITCH_UP, "0x1002", "0x1478", up_link),
        **pci_function(SWITCH_DOWN, "0x1002", "0x1479", ("32.0 GT/s PCIe", 16,
                                                         "32.0 GT/s PCIe", 16)),
        **pci_function(SWITCH_GPU, "0x1002", "0x7550", ("32.0 GT/s PCIe", 16,
                                                        "32.0 GT/s PCIe", 16)),
    }


def test_link_behind_the_amd_switch_is_read_at_the_upstream_port() -> None:
    system = ReplaySystem(Snapshot(files=files(switch_tree(
        ("16.0 GT/s PCIe", 2, "32.0 GT/s PCIe", 16)))))
    link, source = read_pcie_link(system, SWITCH_GPU)
    assert link == PcieLink(16.0, 2, 32.0, 16, "slot (upstream port 0000:01:00.0)")
    assert source.startswith(f"{SWITCH_UP}/current_link_speed")


def test_link_of_a_gpu_directly_on_the_root_port_is_its_own() -> None:
    gpu = "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0"
    tree = {**pci_function("/sys/devices/pci0000:00/0000:00:01.0", "0x8086", "0xa70d",
                           ("16.0 GT/s PCIe", 16, "32.0 GT/s PCIe", 16)),
            **pci_function(gpu, "0x10de", "0x2684", ("2.5 GT/s PCIe", 16, "16.0 GT/s PCIe", 16))}
    link, source = read_pcie_link(ReplaySystem(Snapshot(files=files(tree))), gpu)
    assert link == PcieLink(2.5, 16, 16.0, 16, "GPU function 0000:01:00.0")
    assert source == f"{gpu}/current_link_speed"


def test_a_downstream_port_without_the_amd_upstream_port_is_not_the_switch() -> None:
    tree = switch_tree(("16.0 GT/s PCIe", 2, "32.0 GT/s PCIe", 16))
    tree[f"{SWITCH_UP}/device"] = "0x43f4"  # a chipset switch, not the card's own
    link, _ = read_pcie_link(ReplaySystem(Snapshot(files=files(tree))), SWITCH_GPU)
    assert link is not None and link.measured_at == "GPU function 0000:03:00.0"
    assert link.current_speed_gt_s == 32.0


def test_upstream_port_without_link_files_falls_back_to_the_gpu_function() -> None:
    tree = switch_tree(("16.0 GT/s PCIe", 2, "32.0 GT/s PCIe", 16))
    for name in ("current_link_speed", "current_link_width", "max_link_speed",
                 "max_link_width"):
        del tree[f"{SWITCH_UP}/{name}"]
    link, _ = read_pcie_link(ReplaySystem(Snapshot(files=files(tree))), SWITCH_GPU)
    assert link is not None and link.measured_at == "GPU function 0000:03:00.0"


# ----------------------------------------------------------------------------- other GPUs


def mixed_machine() -> Snapshot:
    intel = "/sys/devices/pci0000:00/0000:00:02.0"
    nvidia = "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0"
    tree = {
        **pci_function(intel, "0x8086", "0xa780", ("Unknown", 0, "Unknown", 0)),
        **pci_function(nvidia, "0x10de", "0x2684", ("16.0 GT/s PCIe", 16, "16.0 GT/s PCIe", 16)),
        f"{intel}/boot_vga": "1", f"{nvidia}/boot_vga": "0",
        f"{nvidia}/subsystem_vendor": "0x10de", f"{nvidia}/subsystem_device": "0x167c",
        f"{nvidia}/revision": "0xa1", f"{nvidia}/drm/renderD129/dev": "226:129",
        f"{intel}/drm/renderD128/dev": "226:128",
        "/sys/class/drm/version": "drm 1.1.0 20060810",
    }
    return Snapshot(files={**LINUX, **files(tree)}, realpaths={
        "/sys/class/drm/card0/device": intel,
        "/sys/class/drm/card0/device/driver": "/sys/bus/pci/drivers/i915",
        "/sys/class/drm/card0-eDP-1": f"{intel}/drm/card0/card0-eDP-1",
        "/sys/class/drm/card1/device": nvidia,
        "/sys/class/drm/card1/device/driver": "/sys/bus/pci/drivers/nvidia",
        "/sys/class/drm/renderD128": f"{intel}/drm/renderD128",
    })


def test_intel_and_nvidia_gpus_are_reported_without_amdgpu_files() -> None:
    result = probe_amdgpu_sysfs(ReplaySystem(mixed_machine()))
    assert result.status.state is ProbeState.OK
    assert result.status.reason == "2 DRM GPUs (0 amdgpu)"
    gpus = by_bus(result.sightings)
    intel, nvidia = gpus["0000:00:02.0"], gpus["0000:01:00.0"]
    assert intel.facts.vendor is Vendor.INTEL and intel.facts.kernel_driver == "i915"
    assert intel.facts.boot_vga is True and intel.facts.drm_render_minor == 128
    assert nvidia.facts.vendor is Vendor.NVIDIA and nvidia.facts.kernel_driver == "nvidia"
    assert nvidia.facts.pci_device_id == "0x2684" and nvidia.facts.pci_revision == "0xa1"
    assert nvidia.facts.vram_total_bytes is None
    assert "bound to nvidia, not amdgpu" in nvidia.missing_reasons["vram_total_bytes"]
    assert "power_cap_w" not in nvidia.missing_reasons  # amdgpu files were not tried
    assert nvidia.facts.pcie_link == PcieLink(16.0, 16, 16.0, 16, "GPU function 0000:01:00.0")
    assert nvidia.facts.drm_render_minor == 129
    # The iGPU's link attributes say Unknown: it has no external link to report.
    assert intel.facts.pcie_link is None
    assert "Unknown" in intel.missing_reasons["pcie_link"]


@pytest.mark.parametrize(("entries", "expected"), [
    (["card0", "card0-DP-1", "renderD128", "version"], ["card0"]),
    (["card10", "card2", "card1-HDMI-A-1", "card1"], ["card1", "card2", "card10"]),
    ([], []),
])
def test_drm_cards_skips_connectors_and_render_nodes(entries: list[str],
                                                     expected: list[str]) -> None:
    assert drm_cards(entries) == expected


def test_a_drm_card_without_a_pci_device_is_not_a_gpu() -> None:
    snapshot = Snapshot(files={**LINUX, "/sys/class/drm/card0/dev": {"text": "226:0\n"}})
    result = probe_amdgpu_sysfs(ReplaySystem(snapshot))
    assert result.status.state is ProbeState.NOT_APPLICABLE
    assert result.status.reason == "no GPU in /sys/class/drm"


# ----------------------------------------------------------------------------- status


def test_linux_without_gpus_is_not_applicable() -> None:
    result = probe_amdgpu_sysfs(ReplaySystem(Snapshot(files=LINUX)))
    assert result.status.state is ProbeState.NOT_APPLICABLE
    assert result.status.reason == "no GPU in /sys/class/drm"
    assert result.sightings == ()


def test_non_linux_is_not_applicable() -> None:
    result = probe_amdgpu_sysfs(ReplaySystem(Snapshot()))
    assert result.status.state is ProbeState.NOT_APPLICABLE
    assert result.status.reason == "sysfs is Linux-only"


def test_wsl_says_where_the_gpu_is() -> None:
    snapshot = Snapshot(files={"/proc/version": {
        "text": "Linux version 5.15.167.4-microsoft-standard-WSL2 (root@f9c826d3017f)\n"}})
    result = probe_amdgpu_sysfs(ReplaySystem(snapshot))
    assert result.status.state is ProbeState.NOT_APPLICABLE
    assert "/dev/dxg" in (result.status.reason or "")


def test_unlistable_drm_class_is_an_error() -> None:
    snapshot = Snapshot(files=LINUX, dirs={"/sys/class/drm": {"error": "EACCES"}})
    result = probe_amdgpu_sysfs(ReplaySystem(snapshot))
    assert result.status.state is ProbeState.ERROR
    assert "EACCES" in (result.status.reason or "")


class ExplodingSystem(ReplaySystem):
    def read_text(self, path: str) -> FileRead:
        if path.startswith("/sys/"):
            raise RuntimeError("boom")
        return super().read_text(path)


def test_the_probe_never_raises() -> None:
    system = ExplodingSystem(Snapshot.load(SNAPSHOTS / "rx7900xtx_rocm.json"))
    result = probe_amdgpu_sysfs(system)
    assert result.status.state is ProbeState.ERROR
    assert result.status.reason == "RuntimeError: boom"


# ----------------------------------------------------------------------------- parsers


def test_dpm_levels() -> None:
    text = "0: 500Mhz\n1: 1253Mhz *\n2: 2526Mhz\n"
    assert [(lv.level, lv.mhz, lv.current) for lv in parse_dpm_levels(text)] == [
        (0, 500.0, False), (1, 1253.0, True), (2, 2526.0, False)]
    assert max_dpm_mhz(text) == 2526
    assert current_dpm_mhz(text) == 1253.0
    assert max_dpm_mhz("S: 19Mhz *\n") is None  # the deep-sleep line is no level
    assert current_dpm_mhz("0: 500Mhz\n") is None


@pytest.mark.parametrize(("text", "expected"), [
    ("16.0 GT/s PCIe\n", 16.0), ("8 GT/s", 8.0), ("2.5 GT/s PCIe", 2.5),
    ("32.0 GT/s PCIe", 32.0), ("Unknown", None), ("", None), ("0 GT/s", None),
])
def test_link_speed(text: str, expected: float | None) -> None:
    assert parse_link_speed(text) == expected


def test_small_parsers() -> None:
    assert parse_hex_id("0x744C\n") == "0x744c"
    assert parse_hex_id("744c") == "0x744c"
    assert parse_hex_id("navi") is None
    assert parse_int(" 25753026560\n") == 25753026560
    assert parse_int("0x10") == 16
    assert parse_int("n/a") is None
    assert parse_link_width("16") == 16 and parse_link_width("0") is None
    assert microwatts_to_watts("355000000") == 355.0
    assert microwatts_to_watts("-1") is None


@given(st.text())
def test_parsers_take_any_text(text: str) -> None:
    levels = parse_dpm_levels(text)
    assert all(level.mhz >= 0 for level in levels)
    max_dpm_mhz(text)
    current_dpm_mhz(text)
    speed = parse_link_speed(text)
    assert speed is None or speed > 0
    parse_link_width(text)
    assert parse_hex_id(text) is None or parse_hex_id(text).startswith("0x")  # type: ignore[union-attr]
    parse_int(text)
    microwatts_to_watts(text)
    drm_cards(text.split())
