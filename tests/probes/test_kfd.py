"""The KFD probe: topology decoding, device-node access and status, against the AMD replay
fixtures and small hand-built snapshots."""

from __future__ import annotations

import copy
import re
import stat
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpuscope.evidence import ReplaySystem, Snapshot
from gpuscope.model import Fact, GpuKind, Layer, ProbeState, Vendor
from gpuscope.probes.kfd import (
    check_device_node,
    decode_gfx_target_version,
    parse_group,
    parse_kfd_properties,
    parse_passwd,
    pci_bus_from_location,
    probe_kfd,
)

SNAPSHOTS = Path(__file__).resolve().parent.parent / "fixtures" / "snapshots"
TOPOLOGY = "/sys/class/kfd/kfd/topology/nodes"
LINUX = {"/proc/version": {"text": "Linux version 6.8.0-49-generic #49-Ubuntu\n"}}
CHR_0660 = stat.S_IFCHR | 0o660


def fixture(name: str) -> ReplaySystem:
    return ReplaySystem.from_file(SNAPSHOTS / name)


def fixture_snapshot(name: str) -> Snapshot:
    return Snapshot.load(SNAPSHOTS / name)


def props(**values: int) -> dict[str, str]:
    return {"text": "".join(f"{k} {v}\n" for k, v in values.items())}


def facts_by_key(facts: tuple[Fact, ...]) -> dict[str, Fact]:
    return {f.key: f for f in facts}


# ----------------------------------------------------------------------------- gfx decoding


@pytest.mark.parametrize(("value", "expected"), [
    (90010, "gfx90a"), (110000, "gfx1100"), (90402, "gfx942"), (100306, "gfx1036"),
    (120001, "gfx1201"), (100301, "gfx1031"), (110501, "gfx1151"), (90006, "gfx906"),
    (90500, "gfx950"), (100300, "gfx1030"), (0, None), (-110000, None), (100316, None),
    (101600, None),
])
def test_decode_gfx_target_version(value: int, expected: str | None) -> None:
    assert decode_gfx_target_version(value) == expected


@given(st.integers(min_value=7, max_value=15), st.integers(min_value=0, max_value=15),
       st.integers(min_value=0, max_value=15))
def test_decode_round_trips_every_target(major: int, minor: int, stepping: int) -> None:
    value = major * 10000 + minor * 100 + stepping
    assert decode_gfx_target_version(value) == f"gfx{major}{minor:x}{stepping:x}"


@given(st.integers())
def test_decode_takes_any_integer(value: int) -> None:
    name = decode_gfx_target_version(value)
    assert name is None or re.fullmatch(r"gfx\d+[0-9a-f]{2}", name)


# ----------------------------------------------------------------------------- parsers


def test_parse_kfd_properties() -> None:
    text = "cpu_cores_count 0\nsimd_count 192\nunique_id 12575859948243281218\nname gfx\n\nbad\n"
    assert parse_kfd_properties(text) == {
        "cpu_cores_count": 0, "simd_count": 192, "unique_id": 12575859948243281218}


@given(st.text())
def test_parse_kfd_properties_takes_any_text(text: str) -> None:
    assert all(isinstance(v, int) for v in parse_kfd_properties(text).values())


@pytest.mark.parametrize(("domain", "location", "bus"), [
    (0, 768, "0000:03:00.0"), (0, 4864, "0000:13:00.0"), (0, 0x0C00, "0000:0c:00.0"),
    (1, 0x830B, "0001:83:01.3"),
])
def test_pci_bus_from_location(domain: int, location: int, bus: str) -> None:
    assert pci_bus_from_location(domain, location) == bus


@given(st.integers(min_value=0, max_value=0xFFFF), st.integers(min_value=0, max_value=0xFFFF))
def test_pci_bus_from_location_is_always_a_bus_address(domain: int, location: int) -> None:
    assert re.fullmatch(r"[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]",
                        pci_bus_from_location(domain, location))


def test_passwd_and_group() -> None:
    passwd = parse_passwd("root:x:0:0:root:/root:/bin/bash\n# comment\nbob:x:1000:1000::/h:/s\n"
                          "broken:x:y:z\n")
    assert [(p.name, p.uid, p.gid) for p in passwd] == [("root", 0, 0), ("bob", 1000, 1000)]
    groups = parse_group("render:x:110:\nvideo:x:44:bob, alice\nbad:x:notanumber:\nx\n")
    assert [(g.name, g.gid, g.members) for g in groups] == [
        ("render", 110, ()), ("video", 44, ("bob", "alice"))]


@given(st.text())
def test_passwd_and_group_take_any_text(text: str) -> None:
    parse_passwd(text)
    parse_group(text)


# ----------------------------------------------------------------------------- fixtures


def test_rx7900xtx_fixture() -> None:
    result = probe_kfd(fixture("rx7900xtx_rocm.json"))
    assert result.status.name == "kfd"
    assert result.status.state is ProbeState.OK
    assert result.status.reason == "1 GPU node"
    (gpu,) = result.sightings  # node 0 is the CPU
    facts = gpu.facts
    assert gpu.layer is Layer.KFD
    assert facts.gfx_target == "gfx1100"
    assert facts.compute_units == 96 and facts.simd_count == 192
    assert facts.pci_bus == "0000:03:00.0"
    assert (facts.pci_vendor_id, facts.pci_device_id) == ("0x1002", "0x744c")
    assert facts.vendor is Vendor.AMD
    assert facts.drm_render_minor == 128
    assert (facts.kfd_node, facts.kfd_gpu_id) == (1, 48745)
    assert gpu.field_sources["gfx_target"] == (
        f"{TOPOLOGY}/1/properties gfx_target_version 110000")
    kfd, render = result.device_nodes
    assert kfd.path == "/dev/kfd" and render.path == "/dev/dri/renderD128"
    assert kfd.can_open and render.can_open
    assert (kfd.mode, kfd.owner_user, kfd.owner_group) == ("crw-rw----", "root", "render")
    assert kfd.reason is None and not kfd.group_granted_not_active
    facts_map = facts_by_key(result.stack_facts)
    assert facts_map["kfd_loaded"].value is True
    assert facts_map["amdgpu_loaded"].value is True


def test_apu_dgpu_fixture_enumerates_both_gpus_in_kfd_order() -> None:
    result = probe_kfd(fixture("apu_dgpu.json"))
    assert result.status.state is ProbeState.OK
    assert result.status.reason == "2 GPU nodes"
    r9700, igpu = result.sightings
    assert (r9700.facts.kfd_node, r9700.facts.gfx_target, r9700.facts.compute_units) == (
        1, "gfx1201", 64)
    assert r9700.facts.pci_bus == "0000:03:00.0" and r9700.facts.pci_device_id == "0x7551"
    assert (igpu.facts.kfd_node, igpu.facts.gfx_target, igpu.facts.compute_units) == (
        2, "gfx1036", 2)
    assert igpu.facts.pci_bus == "0000:13:00.0" and igpu.facts.pci_device_id == "0x164e"
    assert igpu.facts.drm_render_minor == 129
    assert [n.path for n in result.device_nodes] == [
        "/dev/kfd", "/dev/dri/renderD128", "/dev/dri/renderD129"]
    assert all(n.can_open for n in result.device_nodes)


def test_no_access_fixture_is_permission_denied_but_keeps_what_it_saw() -> None:
    result = probe_kfd(fixture("amd_kfd_no_access.json"))
    assert result.status.state is ProbeState.PERMISSION_DENIED
    assert result.status.reason == (
        "permission denied: /dev/kfd is crw-rw---- root:render and user bob is not in group "
        "render")
    assert "sudo usermod -aG render,video $USER" in (result.status.hint or "")
    assert "bob" not in (result.status.hint or "")  # pasted lines carry $USER, not a name
    (gpu,) = result.sightings
    assert gpu.facts.gfx_target == "gfx1031" and gpu.facts.compute_units == 40
    assert gpu.facts.pci_bus == "0000:0c:00.0"
    kfd, render = result.device_nodes
    assert kfd.can_open is False and render.can_open is False
    assert not kfd.group_granted_not_active
    assert render.reason == (
        "permission denied: /dev/dri/renderD128 is crw-rw---- root:render and user bob is not "
        "in group render")
    assert facts_by_key(result.stack_facts)["kfd_loaded"].value is True


def test_a_group_granted_after_login_is_not_active_yet() -> None:
    snapshot = fixture_snapshot("amd_kfd_no_access.json")
    group = snapshot.files["/etc/group"]["text"]
    snapshot.files["/etc/group"] = {"text": group.replace("render:x:110:", "render:x:110:bob")}
    result = probe_kfd(ReplaySystem(snapshot))
    assert result.status.state is ProbeState.PERMISSION_DENIED
    kfd = result.device_nodes[0]
    assert kfd.group_granted_not_active is True
    assert kfd.reason == (
        "permission denied: /dev/kfd is crw-rw---- root:render and user bob was added to group "
        "render but this login session predates it")
    assert "newgrp render" in (result.status.hint or "")


def test_the_primary_group_counts_as_granted() -> None:
    snapshot = fixture_snapshot("amd_kfd_no_access.json")
    snapshot.files["/etc/passwd"] = {"text": "bob:x:1000:110::/home/bob:/bin/bash\n"}
    node = check_device_node(ReplaySystem(snapshot), "/dev/kfd")
    assert node.group_granted_not_active is True


def test_an_active_group_that_still_cannot_open_says_so() -> None:
    snapshot = fixture_snapshot("amd_kfd_no_access.json")
    assert snapshot.identity is not None
    snapshot.identity["process_gids"] = [44, 110, 1000]
    node = check_device_node(ReplaySystem(snapshot), "/dev/kfd")
    assert node.can_open is False and not node.group_granted_not_active
    assert "although user bob is in group render" in (node.reason or "")


def test_root_opens_every_node() -> None:
    snapshot = fixture_snapshot("amd_kfd_no_access.json")
    snapshot.identity = {"uid": 0, "gid": 0, "username": "root", "process_gids": [0]}
    result = probe_kfd(ReplaySystem(snapshot))
    assert result.status.state is ProbeState.OK
    assert all(n.can_open and n.reason is None for n in result.device_nodes)


def test_a_missing_node() -> None:
    node = check_device_node(ReplaySystem(Snapshot(files=LINUX)), "/dev/dri/renderD130")
    assert node.exists is False and node.can_open is False
    assert node.reason == "/dev/dri/renderD130 does not exist"


def test_username_comes_from_passwd_when_the_identity_has_none() -> None:
    snapshot = fixture_snapshot("amd_kfd_no_access.json")
    snapshot.identity = {"uid": 1000, "gid": 1000, "process_gids": [1000]}
    node = check_device_node(ReplaySystem(snapshot), "/dev/kfd")
    assert "user bob is not in group render" in (node.reason or "")


# ----------------------------------------------------------------------------- status


def test_amdgpu_without_kfd_is_driver_missing() -> None:
    snapshot = Snapshot(files={**LINUX, "/sys/module/amdgpu/initstate": {"text": "live\n"}})
    result = probe_kfd(ReplaySystem(snapshot))
    assert result.status.state is ProbeState.DRIVER_MISSING
    assert result.status.reason == (
        "KFD not present (/sys/class/kfd missing) although amdgpu is loaded")
    assert facts_by_key(result.stack_facts)["kfd_loaded"].value is False
    assert facts_by_key(result.stack_facts)["amdgpu_loaded"].value is True
    assert result.sightings == () and result.device_nodes == ()


def test_no_amdgpu_is_not_applicable() -> None:
    result = probe_kfd(ReplaySystem(Snapshot(files=LINUX)))
    assert result.status.state is ProbeState.NOT_APPLICABLE
    assert result.status.reason == "no amdgpu driver loaded"
    assert facts_by_key(result.stack_facts)["kfd_loaded"].value is False


def test_non_linux_is_not_applicable() -> None:
    result = probe_kfd(ReplaySystem(Snapshot()))
    assert result.status.state is ProbeState.NOT_APPLICABLE
    assert result.status.reason == "KFD is Linux-only"


def test_topology_without_dev_kfd_is_denied_with_a_container_hint() -> None:
    snapshot = fixture_snapshot("rx7900xtx_rocm.json")
    del snapshot.stats["/dev/kfd"]
    del snapshot.access["/dev/kfd|rw"]
    result = probe_kfd(ReplaySystem(snapshot))
    assert result.status.state is ProbeState.PERMISSION_DENIED
    assert result.status.reason == "/dev/kfd does not exist"
    assert "--device=/dev/kfd" in (result.status.hint or "")
    assert len(result.sightings) == 1


def test_only_cpu_nodes() -> None:
    files: dict[str, Any] = {
        **LINUX, "/sys/module/amdgpu/initstate": {"text": "live\n"},
        f"{TOPOLOGY}/0/properties": props(cpu_cores_count=16, simd_count=0,
                                          gfx_target_version=0),
        f"{TOPOLOGY}/0/gpu_id": {"text": "0\n"},
    }
    result = probe_kfd(ReplaySystem(Snapshot(files=files)))
    assert result.status.state is ProbeState.OK
    assert result.status.reason == "no GPU node (1 CPU node): ROCm will enumerate no GPU"
    assert result.sightings == ()


def test_partitions_and_old_kernels() -> None:
    gpu = {"simd_count": 304 * 4 // 8, "simd_per_cu": 4, "gfx_target_version": 90402,
           "vendor_id": 4098, "device_id": 0x74A1, "location_id": 0x0C00, "domain": 0}
    files: dict[str, Any] = {
        **LINUX,
        f"{TOPOLOGY}/1/properties": props(**gpu, drm_render_minor=128),
        f"{TOPOLOGY}/1/gpu_id": {"text": "1234\n"},
        f"{TOPOLOGY}/2/properties": props(**gpu, drm_render_minor=129),
        f"{TOPOLOGY}/2/gpu_id": {"text": "1235\n"},
        # A kernel from before gfx_target_version: still a GPU node by its SIMDs.
        f"{TOPOLOGY}/10/properties": props(simd_count=240, simd_per_cu=4, vendor_id=4098,
                                           device_id=0x66AF, location_id=0x8300),
    }
    result = probe_kfd(ReplaySystem(Snapshot(files=files)))
    first, second, old = result.sightings  # numeric node order: 1, 2, 10
    assert first.facts.kind is GpuKind.PARTITION and second.facts.kind is GpuKind.PARTITION
    assert first.facts.compute_units == 38  # a CPX partition: 304 CUs / 8
    assert old.facts.kfd_node == 10 and old.facts.kind is None
    assert old.facts.gfx_target is None
    assert "no gfx_target_version" in old.missing_reasons["gfx_target"]
    assert "kfd_gpu_id" in old.missing_reasons
    assert old.facts.pci_bus == "0000:83:00.0"


def test_the_probe_never_raises() -> None:
    class Exploding(ReplaySystem):
        def identity(self) -> Any:
            raise OSError("no passwd")

    result = probe_kfd(Exploding(copy.deepcopy(fixture_snapshot("rx7900xtx_rocm.json"))))
    assert result.status.state is ProbeState.ERROR
    assert result.status.reason == "OSError: no passwd"


def test_live_node_check_records_only_the_accounts_it_needs() -> None:
    """A shared snapshot must not carry the machine's whole account list."""
    from gpuscope.evidence import LiveSystem, RecordingSystem

    recorder = RecordingSystem(LiveSystem())
    node = check_device_node(recorder, "/dev/null")
    assert node.exists and node.can_open and node.owner_user == "root"
    assert "/etc/passwd" not in recorder.snapshot.files
    assert "/etc/group" not in recorder.snapshot.files
    (_key, answer), = ((k, v) for k, v in recorder.snapshot.libraries.items()
                      if k.startswith("accounts:"))
    assert isinstance(answer, dict) and answer["status"] == "ok"
    assert len(answer["users"]) <= 2 and len(answer["groups"]) <= 1
    replayed = check_device_node(ReplaySystem(recorder.snapshot), "/dev/null")
    assert replayed == node
