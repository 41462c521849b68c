"""Joining sightings that name no PCI bus: by KFD node or KFD gpu id (rocm-smi's Node and GUID
columns, amd-smi's NODE_ID and KFD_ID, rocminfo's Node), and amd-smi's numbered-only rows
(monitor, process) by amd-smi's PCI bus order. Corpus 261 and 262 end to end."""

from __future__ import annotations

from pathlib import Path

from gpuscope.importer import import_files
from gpuscope.inventory import join_gpus
from gpuscope.model import GpuFacts, GpuSighting, Layer, Vendor

CORPUS = Path(__file__).resolve().parent / "fixtures" / "corpus"


def seen(layer: Layer, where: str, **facts: object) -> GpuSighting:
    """A sighting whose every fact was read at `where` ("file.txt:3")."""
    return GpuSighting(layer=layer, facts=GpuFacts(**facts),  # type: ignore[arg-type]
                       field_sources={k: where for k in facts})


def _rocminfo(node: int, bus: str) -> GpuSighting:
    return seen(Layer.ROCM, f"rocminfo.txt:{node * 10}", vendor=Vendor.AMD, kfd_node=node,
                pci_bus=bus, gfx_target="gfx90a", pci_device_id="0x740f")


def test_rocm_smi_rows_join_by_kfd_node_and_guid_not_as_extra_gpus() -> None:
    # Corpus 262: two MI210s; rocm-smi's concise rows name Node 2/3 and GUID 22303/31706 but no
    # bus; amd-smi list names the same KFD ids with the bus; showuniqueid names only GPU[n].
    gpus = join_gpus([
        _rocminfo(2, "0000:03:00.0"), _rocminfo(3, "0000:83:00.0"),
        seen(Layer.ROCM_SMI, "showuniqueid.txt:5", vendor=Vendor.AMD, smi_index=0),
        seen(Layer.ROCM_SMI, "showuniqueid.txt:6", vendor=Vendor.AMD, smi_index=1),
        seen(Layer.ROCM_SMI, "rocm-smi.txt:6", vendor=Vendor.AMD, smi_index=0, kfd_node=2,
             kfd_gpu_id=22303, pci_device_id="0x740f"),
        seen(Layer.ROCM_SMI, "rocm-smi.txt:7", vendor=Vendor.AMD, smi_index=1, kfd_node=3,
             kfd_gpu_id=31706, pci_device_id="0x740f"),
    ])
    assert [(g.pci_bus, g.kfd_node, g.kfd_gpu_id) for g in gpus] == [
        ("0000:03:00.0", 2, 22303), ("0000:83:00.0", 3, 31706)]
    assert all(g.seen_by == (Layer.ROCM, Layer.ROCM_SMI) for g in gpus)


def test_kfd_gpu_id_alone_joins_and_a_contradiction_does_not() -> None:
    listed = seen(Layer.AMDSMI, "list.txt:2", vendor=Vendor.AMD, pci_bus="0000:05:00.0",
                  kfd_gpu_id=1111, kfd_node=1)
    by_guid = seen(Layer.ROCM_SMI, "smi.txt:6", vendor=Vendor.AMD, kfd_gpu_id=1111)
    assert len(join_gpus([listed, by_guid])) == 1
    # The same node but another gpu id: another boot or another machine, not this GPU.
    other = seen(Layer.ROCM_SMI, "smi.txt:6", vendor=Vendor.AMD, kfd_node=1, kfd_gpu_id=2222)
    assert len(join_gpus([listed, other])) == 2
    # The same node but another device id.
    navi = seen(Layer.ROCM_SMI, "smi.txt:6", vendor=Vendor.AMD, kfd_node=1,
                pci_device_id="0x73bf")
    mi300 = seen(Layer.ROCM, "rocminfo.txt:9", vendor=Vendor.AMD, kfd_node=1,
                 pci_bus="0000:05:00.0", pci_device_id="0x74a1")
    assert len(join_gpus([mi300, navi])) == 2


def test_a_kfd_node_two_gpus_share_joins_neither() -> None:
    # Two pastes from two machines each with node 1: no unique GPU to join.
    first = seen(Layer.ROCM, "a.txt:1", vendor=Vendor.AMD, kfd_node=1, pci_bus="0000:03:00.0")
    second = seen(Layer.KFD, "b.txt:1", vendor=Vendor.AMD, kfd_node=1, pci_bus="0000:04:00.0")
    row = seen(Layer.ROCM_SMI, "smi.txt:6", vendor=Vendor.AMD, kfd_node=1)
    gpus = join_gpus([first, second, row])
    assert len(gpus) == 3 and gpus[2].seen_by == (Layer.ROCM_SMI,)


def test_amd_smi_numbers_follow_the_pci_bus_order() -> None:
    # amd-smi monitor rows name only their number; amd-smi numbers GPUs by BDF.
    rocminfo = [seen(Layer.ROCM, f"rocminfo.txt:{n}", vendor=Vendor.AMD, kfd_node=n,
                     pci_bus=bus, gfx_target="gfx942")
                for n, bus in ((2, "0000:c1:00.0"), (3, "0000:05:00.0"), (4, "0000:26:00.0"))]
    monitor = [seen(Layer.AMDSMI, f"monitor.txt:{n + 2}", vendor=Vendor.AMD, smi_index=n)
               for n in (2, 0, 1)]
    gpus = join_gpus([*monitor, *rocminfo])
    assert [(g.pci_bus, g.smi_index) for g in gpus] == [
        ("0000:05:00.0", 0), ("0000:26:00.0", 1), ("0000:c1:00.0", 2)]
    assert all(Layer.AMDSMI in g.seen_by for g in gpus)


def test_amd_smi_numbers_are_not_placed_when_the_counts_differ() -> None:
    rocminfo = [seen(Layer.ROCM, f"rocminfo.txt:{n}", vendor=Vendor.AMD, kfd_node=n,
                     pci_bus=f"0000:0{n}:00.0") for n in (1, 2)]
    monitor = [seen(Layer.AMDSMI, f"monitor.txt:{n + 2}", vendor=Vendor.AMD, smi_index=n)
               for n in range(3)]
    gpus = join_gpus([*rocminfo, *monitor])
    # amd-smi numbers a third GPU the runtime does not list: which number is which card is
    # unknown, so no row lends its readings to a card, and no number counts a card twice.
    assert len(gpus) == 2
    assert [g.seen_by for g in gpus] == [(Layer.ROCM,), (Layer.ROCM,)]


def test_rocm_smi_numbers_are_not_placed_by_bus_order() -> None:
    # Older rocm-smi numbered the DRM cards, not the buses (corpus 113, ROCm 2.1).
    rocminfo = [seen(Layer.ROCM, f"rocminfo.txt:{n}", vendor=Vendor.AMD, kfd_node=n,
                     pci_bus=f"0000:0{n}:00.0") for n in (1, 2)]
    rows = [seen(Layer.ROCM_SMI, f"rocm-smi.txt:{n + 4}", vendor=Vendor.AMD, smi_index=n,
                 power_cap_w=48.0 if n == 0 else None)
            for n in range(2)]
    gpus = join_gpus([*rocminfo, *rows])
    assert len(gpus) == 2 and all(g.power_cap_w is None for g in gpus)


def test_numbers_alone_are_gpus_when_nothing_else_describes_that_vendor() -> None:
    monitor = [seen(Layer.AMDSMI, f"monitor.txt:{n + 2}", vendor=Vendor.AMD, smi_index=n)
               for n in range(3)]
    process = [seen(Layer.AMDSMI, "process.txt:1", vendor=Vendor.AMD, smi_index=1)]
    nvidia = seen(Layer.NVML, "nvidia-smi.txt:9", vendor=Vendor.NVIDIA,
                  pci_bus="0000:41:00.0", name="NVIDIA GeForce RTX 4090")
    gpus = join_gpus([*monitor, *process, nvidia])
    assert [(g.vendor, g.smi_index) for g in gpus] == [
        (Vendor.NVIDIA, None), (Vendor.AMD, 0), (Vendor.AMD, 1), (Vendor.AMD, 2)]


def test_a_lone_gpu_takes_the_monitor_row_and_numbered_rows_wait_for_the_others() -> None:
    monitor = seen(Layer.AMDSMI, "monitor.txt:3", vendor=Vendor.AMD, smi_index=0)
    listed = seen(Layer.AMDSMI, "list.txt:1", vendor=Vendor.AMD, smi_index=0,
                  pci_bus="0000:05:00.0", kfd_node=1)
    rocm = seen(Layer.ROCM, "rocminfo.txt:88", vendor=Vendor.AMD, gfx_target="gfx942",
                kfd_node=1)
    # The numbered-only row comes first in the input but must not start a GPU of its own.
    gpus = join_gpus([monitor, rocm, listed])
    assert len(gpus) == 1
    assert set(gpus[0].seen_by) == {Layer.ROCM, Layer.AMDSMI}


def test_corpus_261_monitor_and_process_are_the_one_vf() -> None:
    case = next(CORPUS.glob("261-*"))
    inventory = import_files([str(case / name) for name in (
        "amd-smi-monitor.txt", "amd-smi-process.txt", "amd-smi-monitor-process.txt",
        "amd-smi-version.txt", "rocminfo.txt")]).inventory
    assert len(inventory.gpus) == 1
    gpu = inventory.gpus[0]
    assert gpu.gfx_target == "gfx942" and gpu.smi_index == 0
    assert Layer.ROCM in gpu.seen_by and Layer.AMDSMI in gpu.seen_by


def test_corpus_262_two_mi210s_with_one_amd_smi_uuid() -> None:
    case = next(CORPUS.glob("262-*"))
    inventory = import_files([str(case / name) for name in (
        "rocminfo.txt", "rocm-smi-showuniqueid.txt", "rocm-smi.txt",
        "amd-smi-list.txt")]).inventory
    assert [(g.pci_bus, g.kfd_node, g.kfd_gpu_id) for g in inventory.gpus] == [
        ("0000:03:00.0", 2, 22303), ("0000:83:00.0", 3, 31706)]
    assert all(set(g.seen_by) == {Layer.ROCM, Layer.ROCM_SMI, Layer.AMDSMI}
               for g in inventory.gpus)
