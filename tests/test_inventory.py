from __future__ import annotations

import threading
import time

from gpuscope.evidence import ReplaySystem, Snapshot, System
from gpuscope.inventory import (
    ProbeSpec,
    assemble,
    build_device_index,
    collect_inventory,
    join_gpus,
)
from gpuscope.model import (
    Fact,
    Gpu,
    GpuFacts,
    GpuKind,
    GpuSighting,
    Layer,
    Origin,
    OriginKind,
    PcieLink,
    ProbeResult,
    ProbeState,
    ProbeStatus,
    Vendor,
)

ORIGIN = Origin(kind=OriginKind.LIVE)


def sighting(layer: Layer, **facts: object) -> GpuSighting:
    return GpuSighting(layer=layer, facts=GpuFacts(**facts),  # type: ignore[arg-type]
                       field_sources={k: f"{layer.value}-source" for k in facts})


def test_layers_seeing_one_bus_become_one_gpu() -> None:
    gpus = join_gpus([
        sighting(Layer.SYSFS, pci_bus="0000:03:00.0", pci_vendor_id="0x1002",
                 pci_device_id="0x744c", vram_total_bytes=25753026560,
                 pcie_link=PcieLink(16.0, 16, 16.0, 16, "slot (upstream port 0000:01:00.0)")),
        sighting(Layer.KFD, pci_bus="0000:03:00.0", gfx_target="gfx1100", compute_units=96,
                 kfd_node=1),
        sighting(Layer.AMDSMI, pci_bus="0000:03:00.0", gfx_target="gfx11000",
                 pcie_link=PcieLink(32.0, 16, 32.0, 16, "amdsmi"), name="Radeon RX 7900 XTX"),
    ])
    assert len(gpus) == 1
    gpu = gpus[0]
    assert gpu.seen_by == (Layer.SYSFS, Layer.KFD, Layer.AMDSMI)
    assert gpu.gfx_target == "gfx1100"  # KFD's decoding wins over amdsmi's string
    assert gpu.field_sources["gfx_target"] == "kfd: kfd-source"
    assert gpu.pcie_link is not None and gpu.pcie_link.measured_at.startswith("slot")
    assert gpu.vendor is Vendor.AMD
    assert gpu.name == "Radeon RX 7900 XTX"


def test_a_runtime_target_of_another_generation_than_the_chip_is_an_override() -> None:
    # Corpus 101: rocminfo says gfx1201 for chip 0x1586 (Strix Halo, gfx1151) because
    # HSA_OVERRIDE_GFX_VERSION=12.0.1 was set; dmesg (gfx_v11_0) and Vulkan say gfx1151.
    strix = join_gpus([sighting(Layer.ROCM, pci_bus="0000:c8:00.0", pci_device_id="0x1586",
                                vendor=Vendor.AMD, gfx_target="gfx1201")])[0]
    assert strix.gfx_target == "gfx1151"
    assert "rocm reported gfx1201" in strix.field_sources["gfx_target"]
    assert "HSA_OVERRIDE_GFX_VERSION" in strix.field_sources["gfx_target"]
    # Within one generation (an RX 6700 XT, 0x73df gfx1031, run as gfx1030) the id does not
    # say which is meant; the kernel's own layers are never overruled.
    navi22 = join_gpus([sighting(Layer.ROCM, pci_bus="0000:03:00.0", pci_device_id="0x73df",
                                 vendor=Vendor.AMD, gfx_target="gfx1030")])[0]
    assert navi22.gfx_target == "gfx1030"
    kfd = join_gpus([sighting(Layer.KFD, pci_bus="0000:c8:00.0", pci_device_id="0x1586",
                              vendor=Vendor.AMD, gfx_target="gfx1201")])[0]
    assert kfd.gfx_target == "gfx1201"


def test_nvml_bus_ids_join_sysfs_bus_ids() -> None:
    gpus = join_gpus([
        sighting(Layer.NVML, pci_bus="00000000:01:00.0", name="NVIDIA GeForce RTX 4090",
                 vendor=Vendor.NVIDIA, compute_capability="8.9"),
        sighting(Layer.SYSFS, pci_bus="0000:01:00.0", pci_vendor_id="0x10de",
                 pci_device_id="0x2684", kernel_driver="nvidia"),
    ])
    assert len(gpus) == 1 and gpus[0].pci_bus == "0000:01:00.0"
    assert gpus[0].seen_by == (Layer.SYSFS, Layer.NVML)


def test_missing_reasons_are_kept_when_no_layer_knows() -> None:
    gpu = join_gpus([GpuSighting(Layer.SYSFS, GpuFacts(pci_bus="0000:05:00.0"),
                                 missing_reasons={"vram_total_bytes": "EACCES"})])[0]
    assert gpu.vram_total_bytes is None
    assert gpu.missing_reasons["vram_total_bytes"] == "sysfs: EACCES"


def _amd(index: int, kfd_node: int, uuid: str) -> Gpu:
    return Gpu(index=index, vendor=Vendor.AMD, kind=GpuKind.DISCRETE, kfd_node=kfd_node,
               uuid=uuid, pci_bus=f"0000:0{index + 3}:00.0")


def test_hip_indices_follow_kfd_order_and_visible_devices() -> None:
    gpus = [_amd(0, 2, "GPU-aaaa"), _amd(1, 1, "GPU-bbbb")]
    plain = build_device_index(gpus, {})
    assert [e.hip_index for e in plain] == [1, 0]  # KFD node order, not bus order
    hidden = build_device_index(gpus, {"HIP_VISIBLE_DEVICES": "1"})
    assert [e.hip_index for e in hidden] == [0, None]
    assert hidden[1].hidden_by == "HIP_VISIBLE_DEVICES=1"
    by_uuid = build_device_index(gpus, {"ROCR_VISIBLE_DEVICES": "GPU-aaaa"})
    assert [e.hip_index for e in by_uuid] == [0, None]
    stacked = build_device_index(gpus, {"ROCR_VISIBLE_DEVICES": "1,0", "HIP_VISIBLE_DEVICES": "1"})
    assert [e.hip_index for e in stacked] == [None, 0]
    # As the runtimes do, a list stops at the first entry that matches no device.
    broken = build_device_index(gpus, {"HIP_VISIBLE_DEVICES": "7,0"})
    assert [e.hip_index for e in broken] == [None, None]


def test_amd_gpu_outside_kfd_is_noted() -> None:
    entry = build_device_index([Gpu(index=0, vendor=Vendor.AMD, kind=GpuKind.DISCRETE)], {})[0]
    assert entry.hip_index is None and entry.note is not None and "ROCm will not see" in entry.note


def _nv(index: int, bus: str) -> Gpu:
    return Gpu(index=index, vendor=Vendor.NVIDIA, kind=GpuKind.DISCRETE, pci_bus=bus)


def test_cuda_indices_only_when_the_order_is_known() -> None:
    two = [_nv(0, "0000:05:00.0"), _nv(1, "0000:01:00.0")]
    unknown = build_device_index(two, {})
    assert [e.cuda_index for e in unknown] == [None, None]
    assert all(e.note and "CUDA_DEVICE_ORDER=PCI_BUS_ID" in e.note for e in unknown)
    by_bus = build_device_index(two, {"CUDA_DEVICE_ORDER": "PCI_BUS_ID"})
    assert [e.cuda_index for e in by_bus] == [1, 0]
    one = build_device_index([_nv(0, "0000:01:00.0")], {"CUDA_VISIBLE_DEVICES": ""})
    assert one[0].cuda_index is None and one[0].hidden_by == "CUDA_VISIBLE_DEVICES="


def test_stack_facts_merge_first_value_and_keep_reasons() -> None:
    inventory = assemble([
        ProbeResult(ProbeStatus("stack", ProbeState.OK), stack_facts=(
            Fact("rocm_version", "6.2.4", "/opt/rocm/.info/version"),
            Fact("nvidia_driver_version", None, missing_reason="no /proc/driver/nvidia/version"),
            Fact("env:HIP_VISIBLE_DEVICES", "0"),
            Fact("env:CUDA_VISIBLE_DEVICES", None),
        )),
        ProbeResult(ProbeStatus("kfd", ProbeState.OK), stack_facts=(
            Fact("kfd_loaded", True, "/sys/class/kfd/kfd"),
            Fact("rocm_version", "9.9", "elsewhere"),
        )),
    ], ORIGIN)
    stack = inventory.stack
    assert stack.rocm_version == "6.2.4" and stack.kfd_loaded is True
    assert stack.field_sources["rocm_version"] == "/opt/rocm/.info/version"
    assert stack.missing_reasons == {"nvidia_driver_version": "no /proc/driver/nvidia/version"}
    assert stack.environment == {"CUDA_VISIBLE_DEVICES": None, "HIP_VISIBLE_DEVICES": "0"}
    assert [p.name for p in inventory.probes] == ["stack", "kfd"]


# Probes for collect_inventory, imported by ProbeSpec through this module's name.
release_hung_probe = threading.Event()


def quick_probe(system: System) -> ProbeResult:
    return ProbeResult(ProbeStatus("quick", ProbeState.OK),
                       sightings=(sighting(Layer.SYSFS, pci_bus="0000:01:00.0"),))


def hung_probe(system: System) -> ProbeResult:
    release_hung_probe.wait(10)
    return ProbeResult(ProbeStatus("hung", ProbeState.OK))


def broken_probe(system: System) -> ProbeResult:
    raise RuntimeError("boom")


def test_a_hung_or_broken_probe_does_not_take_the_others_down() -> None:
    specs = (
        ProbeSpec("quick", "Quick", "test_inventory:quick_probe"),
        ProbeSpec("hung", "Hung", "test_inventory:hung_probe"),
        ProbeSpec("broken", "Broken", "test_inventory:broken_probe"),
        ProbeSpec("missing", "Missing", "gpuscope.probes.no_such_module:probe"),
    )
    started = time.monotonic()
    try:
        inventory = collect_inventory(ReplaySystem(Snapshot()), specs, probe_timeout_s=0.5)
    finally:
        release_hung_probe.set()
    assert time.monotonic() - started < 3
    states = {p.name: p.state for p in inventory.probes}
    assert states == {"quick": ProbeState.OK, "hung": ProbeState.TIMEOUT,
                      "broken": ProbeState.ERROR, "missing": ProbeState.ERROR}
    broken = next(p for p in inventory.probes if p.name == "broken")
    assert broken.reason == "probe failed: RuntimeError: boom"
    assert len(inventory.gpus) == 1
    assert inventory.origin.kind is OriginKind.REPLAY
    assert set(inventory.origin.probe_durations_s) == {"quick", "broken", "missing"}


def test_a_gpus_field_sources_read_the_same_under_any_hash_seed() -> None:
    """The join walks the fields in declaration order, not a set's: `info --json` and the
    report list each GPU's sources in the same order on every run."""
    import json
    import os
    import subprocess
    import sys

    from fixture_paths import SNAPSHOTS_DIR

    def sources_under(seed: str) -> list[list[str]]:
        result = subprocess.run(
            [sys.executable, "-m", "gpuscope", "--replay",
             str(SNAPSHOTS_DIR / "rx7900xtx_rocm.json"), "info", "--json"],
            capture_output=True, text=True, timeout=120, check=True,
            env={**os.environ, "PYTHONHASHSEED": seed})
        return [list(gpu["field_sources"]) for gpu in json.loads(result.stdout)["gpus"]]

    first = sources_under("1")
    assert first and first[0]
    assert sources_under("2") == first
