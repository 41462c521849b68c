"""This development machine's own snapshot, captured live: snapshots written by an earlier
gpuscope must keep replaying, and must say what a machine without a GPU looks like."""

from __future__ import annotations

from fixture_paths import SNAPSHOTS_DIR

from gpuscope.evidence import ReplaySystem
from gpuscope.inventory import collect_inventory
from gpuscope.model import OriginKind, ProbeState


def test_the_dev_container_replays_as_a_machine_without_gpus() -> None:
    inventory = collect_inventory(ReplaySystem.from_file(SNAPSHOTS_DIR / "dev_container_live.json"))
    assert inventory.origin.kind is OriginKind.REPLAY
    assert inventory.origin.captured_utc is not None
    assert inventory.gpus == () and inventory.device_index == ()
    states = {p.name: p.state for p in inventory.probes}
    assert states["nvml"] is ProbeState.LIBRARY_MISSING
    assert states["amdsmi"] is ProbeState.LIBRARY_MISSING
    assert states["amdgpu_sysfs"] is ProbeState.NOT_APPLICABLE
    assert states["host"] is ProbeState.OK
    host = inventory.host
    assert host.os == "linux" and host.container and host.cpu_logical_cores == 2
    assert host.ram_total_bytes is not None and host.ram_total_bytes > 16 * 2**30
    assert inventory.stack.rocm_version is None and inventory.stack.kfd_loaded is False
