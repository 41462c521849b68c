"""The NVML probe: the real collect_nvml against a fake pynvml, parse_nvml on its JSON, the
replay fixture, and the real library on this machine."""

from __future__ import annotations

import ctypes.util
import importlib.util
import json
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from fakes import fake_pynvml
from fakes.fake_pynvml import Fail, FakePynvml, desktop_table
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuscope.evidence import LiveSystem, RecordingSystem, ReplaySystem, Snapshot
from gpuscope.model import GpuKind, JsonValue, Layer, PcieLink, ProbeState, Vendor
from gpuscope.probes.nvml import collect_nvml, parse_nvml, probe_nvml

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
FIXTURE = FIXTURES / "snapshots" / "nvidia_rtx4090.json"


def install(monkeypatch: pytest.MonkeyPatch, fake: FakePynvml) -> FakePynvml:
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    return fake


def collect_with(monkeypatch: pytest.MonkeyPatch, fake: FakePynvml) -> dict[str, Any]:
    install(monkeypatch, fake)
    answer = collect_nvml()
    assert isinstance(answer, dict)
    json.dumps(answer)  # plain JSON, as a snapshot stores it
    return answer


def facts_of(result: Any) -> dict[str, Any]:
    return {fact.key: fact for fact in result.stack_facts}


# --- the healthy desktop -------------------------------------------------------------------


def test_desktop_gpus_are_read_field_by_field(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakePynvml(desktop_table())
    answer = collect_with(monkeypatch, fake)
    result = parse_nvml(answer)

    assert result.status.state is ProbeState.OK
    assert result.status.reason is None
    assert fake.calls[0] == ("nvmlInit",)
    assert fake.calls[-1] == ("nvmlShutdown",)
    assert fake.shutdowns == 1 and fake.initialised == 0

    rtx4090, rtx3060 = result.sightings
    assert rtx4090.layer is Layer.NVML
    f = rtx4090.facts
    assert f.smi_index == 0
    assert f.vendor is Vendor.NVIDIA
    assert f.kind is GpuKind.DISCRETE
    assert f.name == "NVIDIA GeForce RTX 4090"
    assert f.uuid == "GPU-5f3c2a1e-8b4d-4c7a-9e21-7d0b6a3f9c12"
    assert f.pci_bus == "0000:01:00.0"
    assert (f.pci_vendor_id, f.pci_device_id) == ("0x10de", "0x2684")
    assert (f.pci_subsystem_vendor_id, f.pci_subsystem_device_id) == ("0x10de", "0x167c")
    assert f.vram_total_bytes == 24564 * 1024 * 1024
    assert f.compute_capability == "8.9"
    assert f.vbios_version == "95.02.18.80.87"
    assert f.power_cap_w == 450.0
    assert f.power_cap_max_w == 600.0
    assert f.max_graphics_clock_mhz == 3120
    assert f.max_memory_clock_mhz == 10501
    assert f.kernel_driver == "nvidia"
    assert f.driver_version == "550.54.14"
    assert f.pcie_link == PcieLink(current_speed_gt_s=2.5, current_width=16,
                                   max_speed_gt_s=16.0, max_width=16, measured_at="NVML")
    assert f.serial_number is None
    assert f.compute_units is None

    assert rtx4090.field_sources["vram_total_bytes"] == "nvmlDeviceGetMemoryInfo"
    assert rtx4090.field_sources["pci_bus"] == "nvmlDeviceGetPciInfo"
    assert rtx4090.field_sources["max_graphics_clock_mhz"] == (
        "nvmlDeviceGetMaxClockInfo(NVML_CLOCK_GRAPHICS)")
    assert rtx4090.field_sources["power_cap_w"] == "nvmlDeviceGetPowerManagementLimit"
    assert rtx4090.missing_reasons["serial_number"] == "not supported by this GPU or driver"
    assert "SM counts only for MIG devices" in rtx4090.missing_reasons["compute_units"]
    # Every filled field names its source; nothing is both filled and missing.
    for sighting in result.sightings:
        assert not set(sighting.field_sources) & set(sighting.missing_reasons)

    g = rtx3060.facts
    assert (g.smi_index, g.pci_bus, g.pci_device_id) == (1, "0000:05:00.0", "0x2504")
    assert (g.pci_subsystem_vendor_id, g.pci_subsystem_device_id) == ("0x1043", "0x87f3")
    assert g.name == "NVIDIA GeForce RTX 3060"
    assert g.compute_capability == "8.6"
    assert g.vram_total_bytes == 12 * 1024**3
    assert g.pcie_link is not None
    assert (g.pcie_link.current_width, g.pcie_link.max_width) == (4, 4)
    assert g.pcie_link.max_generation == 4

    facts = facts_of(result)
    assert facts["nvidia_driver_version"].value == "550.54.14"
    assert facts["nvidia_driver_version"].source == "nvmlSystemGetDriverVersion"
    assert facts["cuda_driver_version"].value == "12.4"
    assert facts["nvml_library_version"].value == "12.550.54.14"
    assert not any(key.startswith(("nvml_mig", "nvml_gpu_lost")) for key in facts)


def test_old_bindings_returning_bytes_are_decoded(monkeypatch: pytest.MonkeyPatch) -> None:
    answer = collect_with(monkeypatch, FakePynvml(desktop_table(), strings_as_bytes=True))
    result = parse_nvml(answer)
    assert result.sightings[0].facts.name == "NVIDIA GeForce RTX 4090"
    assert facts_of(result)["nvidia_driver_version"].value == "550.54.14"


# --- failures of one field, one GPU ----------------------------------------------------------


def test_lost_gpu_stays_listed_and_the_other_still_reports(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake = FakePynvml(desktop_table(lost_gpu=1, lost_call="nvmlDeviceGetMemoryInfo"))
    answer = collect_with(monkeypatch, fake)

    lost_device = answer["devices"][1]
    assert lost_device["lost"] is True
    assert lost_device["lost_reason"] == "a GPU fell off the bus"
    # After GpuIsLost nothing more is asked of that GPU.
    calls_after = [c for c in fake.calls[fake.calls.index(("nvmlDeviceGetMemoryInfo", 1)) + 1:]
                   if len(c) > 1 and c[1] == 1]
    assert calls_after == []
    assert fake.shutdowns == 1

    result = parse_nvml(answer)
    assert result.status.state is ProbeState.OK
    assert result.status.reason == "1 of 2 GPUs lost (fell off the bus): 0000:05:00.0"
    assert result.status.hint is not None and "Xid 79" in result.status.hint

    healthy, lost = result.sightings
    assert healthy.facts.vram_total_bytes == 24564 * 1024 * 1024
    assert healthy.missing_reasons["serial_number"] == "not supported by this GPU or driver"

    # What was read before the loss is kept; the rest says why it is missing.
    assert lost.facts.smi_index == 1
    assert lost.facts.name == "NVIDIA GeForce RTX 3060"
    assert lost.facts.pci_bus == "0000:05:00.0"
    assert lost.facts.vram_total_bytes is None
    assert lost.missing_reasons["vram_total_bytes"] == "the GPU fell off the bus (GPU is lost)"
    assert lost.missing_reasons["compute_capability"] == "the GPU fell off the bus (GPU is lost)"
    assert lost.facts.kernel_driver is None

    fact = facts_of(result)["nvml_gpu_lost:0000:05:00.0"]
    assert fact.value is True and fact.source == "nvmlDeviceGetMemoryInfo"


def test_gpu_lost_before_its_handle(monkeypatch: pytest.MonkeyPatch) -> None:
    table = desktop_table()
    table[("nvmlDeviceGetHandleByIndex", 0)] = Fail("GpuIsLost")
    result = parse_nvml(collect_with(monkeypatch, FakePynvml(table)))

    lost, healthy = result.sightings
    assert lost.facts.smi_index == 0
    assert lost.facts.pci_bus is None
    assert lost.missing_reasons["pci_bus"] == "the GPU fell off the bus (GPU is lost)"
    assert healthy.facts.pci_bus == "0000:05:00.0"
    assert "nvml_gpu_lost:index0" in facts_of(result)
    assert result.status.reason == "1 of 2 GPUs lost (fell off the bus): index 0"


def test_field_errors_become_reasons_and_do_not_stop_the_others(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = desktop_table()
    table[("nvmlDeviceGetVbiosVersion", 0)] = Fail("NoPermission")
    table[("nvmlDeviceGetPowerManagementLimit", 1)] = Fail("Unknown")
    del table[("nvmlDeviceGetUUID", 1)]  # the fake answers FunctionNotFound
    # A binding that returns something unusable is recorded too, not raised.
    table[("nvmlDeviceGetMemoryInfo", 1)] = types.SimpleNamespace(total=None)
    fake = FakePynvml(table, missing_functions=("nvmlDeviceGetVirtualizationMode",))
    answer = collect_with(monkeypatch, fake)
    result = parse_nvml(answer)

    first, second = result.sightings
    assert first.missing_reasons["vbios_version"] == "no permission"
    assert first.facts.name == "NVIDIA GeForce RTX 4090"
    assert first.facts.kind is GpuKind.DISCRETE
    assert first.field_sources["kind"] == "NVML (assumed discrete)"
    assert answer["devices"][0]["fields"]["virtualization_mode"]["error"] == (
        "this nvidia-ml-py has no nvmlDeviceGetVirtualizationMode")

    assert second.missing_reasons["power_cap_w"] == "NVML error: Unknown Error"
    assert second.missing_reasons["uuid"] == "this driver's NVML lacks the function"
    assert second.missing_reasons["vram_total_bytes"].startswith("NVML error: ")
    assert answer["devices"][1]["fields"]["memory_info"]["error_class"] == "TypeError"
    assert second.facts.power_cap_max_w == 180.0  # the next call still ran
    assert second.facts.max_graphics_clock_mhz == 2100
    assert fake.shutdowns == 1


def test_cuda_version_falls_back_to_v2(monkeypatch: pytest.MonkeyPatch) -> None:
    table = desktop_table()
    table[("nvmlSystemGetCudaDriverVersion",)] = Fail("FunctionNotFound")
    table[("nvmlSystemGetCudaDriverVersion_v2",)] = 12080
    result = parse_nvml(collect_with(monkeypatch, FakePynvml(table)))
    fact = facts_of(result)["cuda_driver_version"]
    assert (fact.value, fact.source) == ("12.8", "nvmlSystemGetCudaDriverVersion_v2")


def test_failed_system_call_is_a_fact_with_a_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    table = desktop_table()
    table[("nvmlSystemGetNVMLVersion",)] = Fail("NotSupported")
    result = parse_nvml(collect_with(monkeypatch, FakePynvml(table)))
    fact = facts_of(result)["nvml_library_version"]
    assert fact.value is None
    assert fact.missing_reason == "not supported by this GPU or driver"
    assert fact.source == "nvmlSystemGetNVMLVersion"


def test_mig_mode_and_sm_count(monkeypatch: pytest.MonkeyPatch) -> None:
    table = desktop_table()
    table[("nvmlDeviceGetMigMode", 0)] = [1, 1]
    table[("nvmlDeviceGetAttributes", 0)] = types.SimpleNamespace(multiprocessorCount=128)
    table[("nvmlDeviceGetMigMode", 1)] = [0, 1]  # enabled at the next GPU reset
    result = parse_nvml(collect_with(monkeypatch, FakePynvml(table)))
    facts = facts_of(result)
    assert facts["nvml_mig_enabled:0000:01:00.0"].value is True
    assert facts["nvml_mig_enabled:0000:01:00.0"].source == "nvmlDeviceGetMigMode"
    assert "nvml_mig_enabled:0000:05:00.0" not in facts
    assert facts["nvml_mig_pending:0000:05:00.0"].value is True
    first = result.sightings[0]
    assert first.facts.compute_units == 128
    assert first.field_sources["compute_units"] == "nvmlDeviceGetAttributes"
    assert "compute_units" not in first.missing_reasons


def test_vgpu_guest_is_a_virtual_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    table = desktop_table()
    table[("nvmlDeviceGetVirtualizationMode", 1)] = 2  # NVML_GPU_VIRTUALIZATION_MODE_VGPU
    result = parse_nvml(collect_with(monkeypatch, FakePynvml(table)))
    assert result.sightings[0].facts.kind is GpuKind.DISCRETE
    assert result.sightings[1].facts.kind is GpuKind.VIRTUAL
    assert result.sightings[1].field_sources["kind"] == "nvmlDeviceGetVirtualizationMode"


def test_device_count_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    table = desktop_table()
    table[("nvmlDeviceGetCount",)] = Fail("Unknown")
    fake = FakePynvml(table)
    result = parse_nvml(collect_with(monkeypatch, fake))
    assert result.status.state is ProbeState.ERROR
    assert result.status.reason == "NVML could not count the GPUs: Unknown Error"
    assert result.sightings == ()
    assert facts_of(result)["nvidia_driver_version"].value == "550.54.14"
    assert fake.shutdowns == 1


def test_no_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    table = desktop_table()
    table[("nvmlDeviceGetCount",)] = 0
    result = parse_nvml(collect_with(monkeypatch, FakePynvml(table)))
    assert result.status.state is ProbeState.OK
    assert result.status.reason == "NVML works but reports no GPU"
    assert result.sightings == ()


# --- failures to start ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("error", "state", "reason"),
    [
        ("LibraryNotFound", ProbeState.LIBRARY_MISSING,
         "NVML library not found (libnvidia-ml.so.1, or nvml.dll on Windows): the NVIDIA "
         "driver is not installed"),
        ("DriverNotLoaded", ProbeState.DRIVER_MISSING, "NVIDIA driver not loaded"),
        ("NoPermission", ProbeState.PERMISSION_DENIED,
         "no permission to use NVML (the /dev/nvidia* device nodes are not accessible)"),
        ("GpuIsLost", ProbeState.ERROR, "a GPU fell off the bus"),
        ("LibRmVersionMismatch", ProbeState.ERROR,
         "driver/library version mismatch: the loaded kernel module and libnvidia-ml differ "
         "(reboot after a driver update)"),
        ("Uninitialized", ProbeState.ERROR, "NVML could not start: Uninitialized"),
        ("Unknown", ProbeState.ERROR, "NVML could not start: Unknown Error"),
    ],
)
def test_init_failures(
    monkeypatch: pytest.MonkeyPatch, error: str, state: ProbeState, reason: str
) -> None:
    fake = FakePynvml(desktop_table(), init_error=error)
    answer = collect_with(monkeypatch, fake)
    assert answer["error_class"] == f"NVMLError_{error}"
    assert answer["error_code"] == fake_pynvml.ERROR_CODES[error]
    assert "devices" not in answer
    assert fake.calls == [("nvmlInit",)]  # nothing else, no shutdown of what never started

    result = parse_nvml(answer)
    assert result.status.state is state
    assert result.status.reason == reason
    assert result.sightings == () and result.stack_facts == ()
    if error in ("LibraryNotFound", "DriverNotLoaded", "NoPermission", "GpuIsLost",
                 "LibRmVersionMismatch"):
        assert result.status.hint
    if error == "LibRmVersionMismatch":
        assert result.status.hint is not None and "Reboot" in result.status.hint


def test_binding_not_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", None)  # makes `import pynvml` raise ImportError
    answer = collect_nvml()
    assert isinstance(answer, dict)
    assert answer["error_class"] == "ImportError"
    result = parse_nvml(answer)
    assert result.status.state is ProbeState.LIBRARY_MISSING
    assert result.status.reason == "nvidia-ml-py is not installed"
    assert result.status.hint is not None and "pip install nvidia-ml-py" in result.status.hint


def _nvidia_driver_present() -> bool:
    return Path("/proc/driver/nvidia/version").exists() or bool(
        ctypes.util.find_library("nvidia-ml"))


@pytest.mark.skipif(_nvidia_driver_present(), reason="a real NVIDIA driver is installed")
@pytest.mark.skipif(importlib.util.find_spec("pynvml") is None, reason="nvidia-ml-py missing")
def test_real_nvml_on_a_machine_without_the_driver() -> None:
    assert not isinstance(sys.modules.get("pynvml"), FakePynvml)
    answer = collect_nvml()
    assert isinstance(answer, dict)
    assert answer["status"] == "library_missing"
    assert answer["error_class"] == "NVMLError_LibraryNotFound"
    result = probe_nvml(LiveSystem())
    assert result.status.state is ProbeState.LIBRARY_MISSING
    assert result.status.reason == (
        "NVML library not found (libnvidia-ml.so.1, or nvml.dll on Windows): the NVIDIA "
         "driver is not installed")
    assert result.sightings == ()


# --- through the System: recording, replay, the fixture --------------------------------------


def test_recorded_answer_replays_to_the_same_result(monkeypatch: pytest.MonkeyPatch) -> None:
    install(monkeypatch, FakePynvml(desktop_table(lost_gpu=1)))
    recorder = RecordingSystem(LiveSystem())
    live = probe_nvml(recorder)
    snapshot = Snapshot.from_json(json.loads(json.dumps(recorder.snapshot.to_json())))
    replayed = probe_nvml(ReplaySystem(snapshot))
    assert replayed == live
    assert live.sightings[1].facts.pci_bus == "0000:05:00.0"


def test_not_captured_in_a_snapshot() -> None:
    result = probe_nvml(ReplaySystem(Snapshot()))
    assert result.status.state is ProbeState.NOT_CAPTURED
    assert result.status.reason == "NVML was not captured in this snapshot"


def test_live_system_wrapper_error_envelope() -> None:
    # LiveSystem.library turns an exception escaping collect into this envelope.
    result = parse_nvml({"status": "error", "error": "RuntimeError: boom"})
    assert result.status.state is ProbeState.ERROR
    assert result.status.reason == "RuntimeError: boom"


def test_fixture_replays_the_desktop() -> None:
    system = ReplaySystem.from_file(FIXTURE)
    result = probe_nvml(system)
    assert result.status.state is ProbeState.OK
    buses = [s.facts.pci_bus for s in result.sightings]
    assert buses == ["0000:01:00.0", "0000:05:00.0"]
    assert [s.facts.pci_device_id for s in result.sightings] == ["0x2684", "0x2504"]
    assert facts_of(result)["cuda_driver_version"].value == "12.4"
    # NVML and the fixture's sysfs agree on each GPU.
    for card, sighting in zip(("card0", "card1"), result.sightings, strict=True):
        device = f"/sys/class/drm/{card}/device"
        assert system.realpath(device).endswith("/" + str(sighting.facts.pci_bus))
        assert system.read_text(f"{device}/device").stripped() == sighting.facts.pci_device_id
        assert system.read_text(f"{device}/vendor").stripped() == "0x10de"
        assert system.realpath(f"{device}/driver") == "/sys/bus/pci/drivers/nvidia"
    version = system.read_text("/sys/module/nvidia/version").stripped()
    assert version == facts_of(result)["nvidia_driver_version"].value


def test_fixture_libraries_are_what_the_collectors_produce() -> None:
    spec = importlib.util.spec_from_file_location(
        "make_nvidia_fixture", FIXTURES / "make_nvidia_fixture.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    recorded = module.record_libraries()
    stored = Snapshot.load(FIXTURE).libraries
    assert module.comparable(recorded) == module.comparable(stored)
    assert "pynvml" not in sys.modules or not isinstance(sys.modules["pynvml"], FakePynvml)


# --- properties -----------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_parse_never_raises_on_any_json(answer: JsonValue) -> None:
    result = parse_nvml(answer)
    assert result.status.name == "nvml"


def _healthy_answer() -> dict[str, Any]:
    fake = FakePynvml(desktop_table())
    saved = sys.modules.get("pynvml")
    sys.modules["pynvml"] = fake
    try:
        answer = collect_nvml()
    finally:
        if saved is None:
            sys.modules.pop("pynvml", None)
        else:
            sys.modules["pynvml"] = saved
    assert isinstance(answer, dict)
    return answer


HEALTHY = _healthy_answer()


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(HEALTHY["devices"][0]["fields"])), json_values)
def test_parse_never_raises_on_a_damaged_field(key: str, value: JsonValue) -> None:
    answer = json.loads(json.dumps(HEALTHY))
    answer["devices"][0]["fields"][key] = value
    result = parse_nvml(answer)
    assert len(result.sightings) == 2
    assert result.sightings[1].facts.name == "NVIDIA GeForce RTX 3060"


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1), st.integers(min_value=0, max_value=255))
def test_pci_ids_are_lower_case_hex(device_id: int, bus: int) -> None:
    answer = json.loads(json.dumps(HEALTHY))
    answer["devices"][0]["fields"]["pci_info"]["value"].update(
        pci_device_id=device_id, bus_id=f"00000000:{bus:02X}:00.0")
    facts = parse_nvml(answer).sightings[0].facts
    assert facts.pci_bus == f"0000:{bus:02x}:00.0"
    if device_id:
        assert facts.pci_device_id == f"0x{device_id >> 16:04x}"
        assert facts.pci_vendor_id == f"0x{device_id & 0xFFFF:04x}"
    else:
        assert facts.pci_device_id is None
