"""Telemetry sources: amdgpu sysfs from replayed fixtures, NVML and amdsmi through fakes
(NotSupported remembered, GpuIsLost, init failures), amdsmi falling back per metric to sysfs,
the host through psutil, and bounded discovery."""

from __future__ import annotations

import dataclasses
import threading
import time
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakes import fake_amdsmi_telemetry
from fakes.fake_amdsmi import STATUS_NOT_SUPPORTED
from fakes.fake_amdsmi import Fail as AmdFail
from fakes.fake_amdsmi_telemetry import STATUS_RETRY, AmdSmiTemperatureMetric, AmdSmiTemperatureType
from fakes.fake_pynvml import Fail, FakePynvml
from fakes.fake_pynvml_telemetry import FakePynvmlTelemetry, telemetry_table
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuscope.evidence import ReplaySystem, Snapshot
from gpuscope.inventory import collect_inventory
from gpuscope.metrics import (
    GPU_METRICS,
    ThrottleReason,
    cpu_core_metric,
    throttle_reason_names,
)
from gpuscope.model import Gpu, GpuKind, Vendor
from gpuscope.probes import amdsmi_telemetry, nvml_telemetry
from gpuscope.probes.amdgpu_telemetry import AmdgpuSysfsReader
from gpuscope.probes.host_telemetry import HostReader
from gpuscope.telemetry.sampler import DeviceStatus, Sampler
from gpuscope.telemetry.sources import (
    DeviceLostError,
    ReaderSource,
    SourceSet,
    build_sources,
    host_source,
)

SNAPSHOTS = Path(__file__).resolve().parents[1] / "fixtures" / "snapshots"
RX7900 = "0000:03:00.0"
RTX4090, RTX3060 = "0000:01:00.0", "0000:05:00.0"
HWMON = "sysfs:/sys/class/drm/card1/device/hwmon/hwmon2"


def replay(name: str) -> ReplaySystem:
    return ReplaySystem.from_file(SNAPSHOTS / name)


def by_device(sources: SourceSet) -> dict[str, Any]:
    return {s.device: s for s in sources.sources}


class FakePsutil(types.SimpleNamespace):
    """cpu_percent / virtual_memory / swap_memory as psutil gives them."""

    def __init__(self, swap_error: Exception | None = None) -> None:
        super().__init__()
        self.swap_error = swap_error

    def cpu_percent(self, interval: float | None = None, percpu: bool = False) -> Any:
        assert interval is None  # never blocking
        return [12.5, 37.5, 0.0, 100.0] if percpu else 37.5

    def virtual_memory(self) -> Any:
        return types.SimpleNamespace(total=64 * 2**30, available=48 * 2**30, used=1)

    def swap_memory(self) -> Any:
        self.swap_calls = getattr(self, "swap_calls", 0) + 1
        if self.swap_error is not None:
            raise self.swap_error
        return types.SimpleNamespace(total=8 * 2**30, used=2**30)


# ----------------------------------------------------------------------------- sysfs


def test_sysfs_source_of_the_rx7900xtx_fixture_reads_every_sensor_with_its_source() -> None:
    system = replay("rx7900xtx_rocm.json")
    with build_sources(system, collect_inventory(system)) as sources:
        gpu = by_device(sources)[RX7900]
        readings = gpu.read()
    assert gpu.label == "AMD Radeon RX 7900 XTX (0000:03:00.0)"
    assert set(readings) == {m.value for m in GPU_METRICS}
    expected = {
        "temp_edge_c": (41.0, f"{HWMON}/temp1_input (millidegrees C)"),
        "temp_junction_c": (48.0, f"{HWMON}/temp2_input (millidegrees C)"),
        "temp_memory_c": (52.0, f"{HWMON}/temp3_input (millidegrees C)"),
        "power_w": (27.0, f"{HWMON}/power1_average (µW)"),
        "power_cap_w": (355.0, f"{HWMON}/power1_cap (µW)"),
        "sclk_mhz": (1253.0, f"{HWMON}/freq1_input (Hz)"),
        "mclk_mhz": (96.0, f"{HWMON}/freq2_input (Hz)"),
        "fan_rpm": (0.0, f"{HWMON}/fan1_input (RPM)"),
        "gpu_util_percent": (3.0, "sysfs:/sys/class/drm/card1/device/gpu_busy_percent (%)"),
        "vram_used_bytes": (1327644672.0,
                            "sysfs:/sys/class/drm/card1/device/mem_info_vram_used (bytes)"),
        "vram_total_bytes": (25753026560.0,
                             "sysfs:/sys/class/drm/card1/device/mem_info_vram_total (bytes)"),
        "gtt_used_bytes": (29454336.0,
                           "sysfs:/sys/class/drm/card1/device/mem_info_gtt_used (bytes)"),
        # The slot's link, read at the upstream port of the card's on-board switch.
        "pcie_gen": (4.0, "sysfs:/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/"
                          "current_link_speed (GT/s)"),
        "pcie_width": (16.0, "sysfs:/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/"
                             "current_link_width (lanes)"),
    }
    for metric, (value, source) in expected.items():
        assert (readings[metric].value, readings[metric].source) == (value, source), metric
    rx = readings["pcie_rx_bytes_s"]
    assert rx.value is None and "pcie_bw" in (rx.missing_reason or "")
    assert "replayed snapshot" in (rx.missing_reason or "")  # amdsmi's reason comes first
    throttle = readings["throttle_reasons"].missing_reason or ""
    assert "gpu_metrics" in throttle
    host = by_device(sources)["host"].read()
    assert host["host_cpu_percent"].missing_reason == (
        "telemetry: a replayed snapshot holds no live host readings")


def test_sysfs_source_of_an_igpu_names_what_it_lacks() -> None:
    system = replay("apu_dgpu.json")
    with build_sources(system, collect_inventory(system)) as sources:
        devices = by_device(sources)
        igpu = devices["0000:13:00.0"].read()
        dgpu = devices["0000:03:00.0"].read()
    assert igpu["temp_edge_c"].value == 46.0
    assert igpu["sclk_mhz"].value == 600.0
    assert igpu["mclk_mhz"].value == 2400.0  # no freq2_input: the DPM level marked *
    assert igpu["mclk_mhz"].source == ("sysfs:/sys/class/drm/card2/device/pp_dpm_mclk "
                                       "(level marked *)")
    assert igpu["temp_junction_c"].value is None
    assert "SOC15" in (igpu["temp_junction_c"].missing_reason or "")
    fan = igpu["fan_rpm"].missing_reason or ""
    assert "fan1_input: ENOENT" in fan
    assert igpu["power_cap_w"].value is None
    # The slot's link (PCIe 4.0 x16), not the card's internal 32 GT/s link behind its switch.
    assert dgpu["pcie_gen"].value == 4.0 and dgpu["pcie_width"].value == 16.0
    assert dgpu["fan_percent"].value == pytest.approx(61 * 100 / 255)
    assert dgpu["power_w"].value == 19.0


def test_a_gpu_whose_sysfs_files_vanish_is_lost_and_comes_back() -> None:
    snapshot = Snapshot.load(SNAPSHOTS / "rx7900xtx_rocm.json")
    system = ReplaySystem(snapshot)
    source = ReaderSource(RX7900, "RX 7900 XTX", [m.value for m in GPU_METRICS],
                          [AmdgpuSysfsReader(system, "card1")])
    source.read()
    saved = dict(snapshot.files)
    gpu_dir = "/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0"
    for path in saved:
        if path.startswith(gpu_dir):
            snapshot.files[path] = {"error": "ENODEV"}
    with pytest.raises(DeviceLostError, match=r"fell off the bus .*ENODEV"):
        source.read()
    snapshot.files.update(saved)
    assert source.read()["temp_edge_c"].value == 41.0


# ----------------------------------------------------------------------------- NVML


@pytest.fixture
def nvml_sources() -> Iterator[tuple[SourceSet, FakePynvmlTelemetry]]:
    fake = FakePynvmlTelemetry(telemetry_table())
    system = replay("nvidia_rtx4090.json")
    sources = build_sources(system, collect_inventory(system), nvml_module=fake,
                            psutil_module=FakePsutil(), use_libraries=True)
    yield sources, fake
    sources.close()


def test_nvml_readings_with_sources_and_the_reasons_of_what_is_missing(
        nvml_sources: tuple[SourceSet, FakePynvmlTelemetry]) -> None:
    sources, _fake = nvml_sources
    rtx4090 = by_device(sources)[RTX4090].read()
    assert rtx4090["power_w"].value == pytest.approx(412.345)
    assert rtx4090["power_w"].source == "nvml:nvmlDeviceGetPowerUsage() (mW)"
    assert rtx4090["power_cap_w"].value == 450.0
    assert rtx4090["gpu_util_percent"].value == 97.0
    assert rtx4090["temp_edge_c"].value == 71.0
    assert rtx4090["sclk_mhz"].value == 2715.0 and rtx4090["mclk_mhz"].value == 10501.0
    assert rtx4090["vram_used_bytes"].value == 1288699904.0
    assert rtx4090["fan_rpm"].value == 1810.0 and rtx4090["fan_percent"].value == 64.0
    assert (rtx4090["pcie_gen"].value, rtx4090["pcie_width"].value) == (4.0, 16.0)
    assert rtx4090["pcie_rx_bytes_s"].value == 1_200_000 * 1024.0
    assert rtx4090["pcie_tx_bytes_s"].value == 250_000 * 1024.0
    assert throttle_reason_names(rtx4090["throttle_reasons"].value) == ("power cap", "thermal")
    memory = rtx4090["temp_memory_c"]
    assert memory.value is None
    assert memory.missing_reason == ("nvml: nvmlDeviceGetFieldValues(NVML_FI_DEV_MEMORY_TEMP): "
                                     "not supported by this GPU or driver")
    assert "gtt_used_bytes" in rtx4090 and rtx4090["gtt_used_bytes"].value is None
    rtx3060 = by_device(sources)[RTX3060].read()
    assert rtx3060["throttle_reasons"].value == float(ThrottleReason.IDLE)
    assert rtx3060["throttle_reasons"].source == (
        "nvml:nvmlDeviceGetCurrentClocksThrottleReasons()")  # the older call, as a fallback
    host = by_device(sources)["host"].read()
    assert host["host_cpu_percent"].value == 37.5
    assert host[cpu_core_metric(3)].value == 100.0
    assert host["host_ram_used_bytes"].value == 16 * 2**30


def test_an_unsupported_nvml_call_is_asked_once(
        nvml_sources: tuple[SourceSet, FakePynvmlTelemetry]) -> None:
    sources, fake = nvml_sources
    rtx3060 = by_device(sources)[RTX3060]
    for _ in range(5):
        reading = rtx3060.read()["fan_rpm"]
    assert reading.value is None
    assert reading.missing_reason == "nvml: nvmlDeviceGetFanSpeedRPM(): not supported by this " \
                                     "GPU or driver"
    assert fake.calls.count(("nvmlDeviceGetFanSpeedRPM", 1)) == 1
    assert fake.calls.count(("nvmlDeviceGetPowerUsage", 1)) == 6  # discovery + 5 ticks


def test_a_gpu_lost_mid_stream_is_lost_the_other_keeps_sampling(
        nvml_sources: tuple[SourceSet, FakePynvmlTelemetry]) -> None:
    sources, fake = nvml_sources
    sampler = Sampler(sources.sources, rate_hz=20.0)
    try:
        sampler.tick()
        assert sampler.device_state[RTX3060].status is DeviceStatus.OK
        fake.table[("nvmlDeviceGetPowerUsage", 1)] = Fail("GpuIsLost")
        sampler.tick()
        sampler.tick()
        state = sampler.device_state[RTX3060]
        assert state.status is DeviceStatus.LOST
        assert state.reason == "GPU fell off the bus (NVML: GPU is lost)"
        assert sampler.latest[f"{RTX3060}/temp_edge_c"].missing_reason == state.reason
        assert sampler.device_state[RTX4090].status is DeviceStatus.OK
        assert sampler.latest[f"{RTX4090}/power_w"].value == pytest.approx(412.345)
        fake.table[("nvmlDeviceGetPowerUsage", 1)] = 15021
        fake.recover(1)
        sampler.tick()
        sampler.tick()
        assert sampler.device_state[RTX3060].status is DeviceStatus.OK
        assert sampler.latest[f"{RTX3060}/power_w"].value == pytest.approx(15.021)
    finally:
        assert sampler.stop()


def test_nvml_processes_are_listed_on_the_slow_schedule(
        nvml_sources: tuple[SourceSet, FakePynvmlTelemetry]) -> None:
    sources, fake = nvml_sources
    sampler = Sampler(sources.sources, rate_hz=20.0)
    try:
        sampler.tick()
        deadline = threading.Event()
        for _ in range(100):
            if RTX4090 in sampler.processes and RTX3060 in sampler.processes:
                break
            deadline.wait(0.01)
        for _ in range(3):
            sampler.tick()
        snapshot = sampler.processes[RTX4090]
        assert [(p.pid, p.name, p.used_bytes, p.kind) for p in snapshot.processes] == [
            (1337, "Xorg", 512.0 * 2**20, "graphics"), (4242, "python3", 20.0 * 2**30,
                                                         "compute")]
        assert snapshot.source == ("nvml:nvmlDeviceGetComputeRunningProcesses + "
                                   "nvmlDeviceGetGraphicsRunningProcesses")
        assert sampler.processes[RTX3060].processes == ()
        # Once per process interval (5 s), not per tick.
        assert fake.calls.count(("nvmlDeviceGetComputeRunningProcesses", 0)) == 1
        # PCIe counters: both at discovery, then one per slow step, taking turns.
        assert fake.calls.count(("nvmlDeviceGetPcieThroughput", 0, 1)) <= 2
    finally:
        assert sampler.stop()


def test_nvml_is_initialised_once_and_shut_down_at_close() -> None:
    fake = FakePynvmlTelemetry(telemetry_table())
    system = replay("nvidia_rtx4090.json")
    sources = build_sources(system, collect_inventory(system), nvml_module=fake,
                            psutil_module=FakePsutil(), use_libraries=True)
    assert fake.calls.count(("nvmlInit",)) == 1
    sources.close()
    sources.close()
    assert fake.shutdowns == 1 and fake.initialised == 0


def test_nvml_that_cannot_start_gives_its_reason_for_every_metric() -> None:
    fake = FakePynvml({}, init_error="DriverNotLoaded")
    system = replay("nvidia_rtx4090.json")
    with build_sources(system, collect_inventory(system), nvml_module=fake,
                       psutil_module=FakePsutil(), use_libraries=True) as sources:
        readings = by_device(sources)[RTX4090].read()
    assert sources.notes == ("NVML: NVIDIA driver not loaded",)
    assert all(r.value is None for r in readings.values())
    assert readings["power_w"].missing_reason == "nvml: NVIDIA driver not loaded"


def test_nvml_is_not_opened_for_a_replayed_snapshot() -> None:
    fake = FakePynvmlTelemetry(telemetry_table())
    system = replay("nvidia_rtx4090.json")
    with build_sources(system, collect_inventory(system), nvml_module=fake) as sources:
        readings = by_device(sources)[RTX4090].read()
    assert fake.calls == []
    assert readings["power_w"].missing_reason == (
        "nvml: vendor libraries are not read for a replayed snapshot")


# ----------------------------------------------------------------------------- amdsmi


@pytest.fixture
def amd_sources() -> Iterator[tuple[SourceSet, Any]]:
    fake = fake_amdsmi_telemetry.fake()
    system = replay("rx7900xtx_rocm.json")
    sources = build_sources(system, collect_inventory(system), amdsmi_module=fake,
                            psutil_module=FakePsutil(), use_libraries=True)
    yield sources, fake
    sources.close()


def test_amdsmi_first_and_sysfs_for_what_amdsmi_does_not_give(
        amd_sources: tuple[SourceSet, Any]) -> None:
    sources, _fake = amd_sources
    readings = by_device(sources)[RX7900].read()
    from_amdsmi = {
        "power_w": (301.0, "amdsmi:amdsmi_get_power_info() socket power (W)"),
        "temp_edge_c": (62.0, "amdsmi:amdsmi_get_temp_metric(EDGE, CURRENT)"),
        "temp_junction_c": (81.0, "amdsmi:amdsmi_get_temp_metric(HOTSPOT, CURRENT)"),
        "gpu_util_percent": (87.0, "amdsmi:amdsmi_get_gpu_activity() gfx_activity"),
        "power_cap_w": (339.0, "amdsmi:amdsmi_get_power_cap_info() power_cap (µW)"),
        "fan_percent": (40.0, "amdsmi:amdsmi_get_gpu_fan_speed(0) / "
                              "amdsmi_get_gpu_fan_speed_max(0)"),
        "pcie_bandwidth_bytes_s": (1e9, "amdsmi:amdsmi_get_pcie_info() pcie_metric"),
    }
    for metric, expected in from_amdsmi.items():
        assert (readings[metric].value, readings[metric].source) == expected, metric
    # amdsmi answers NOT_SUPPORTED for these two: read from sysfs instead.
    assert (readings["fan_rpm"].value, readings["fan_rpm"].source) == (
        0.0, f"{HWMON}/fan1_input (RPM)")
    assert (readings["mclk_mhz"].value, readings["mclk_mhz"].source) == (
        96.0, f"{HWMON}/freq2_input (Hz)")
    # amdsmi 7.0.2 says whether the GPU is throttled, not why.
    assert throttle_reason_names(readings["throttle_reasons"].value) == ("other",)
    assert readings["pcie_rx_bytes_s"].value is None


def test_a_transient_amdsmi_failure_falls_back_to_sysfs_for_that_tick(
        amd_sources: tuple[SourceSet, Any]) -> None:
    sources, fake = amd_sources
    source = by_device(sources)[RX7900]
    key = ("amdsmi_get_temp_metric", 0, AmdSmiTemperatureType.EDGE,
           AmdSmiTemperatureMetric.CURRENT)
    fake.table[key] = AmdFail(STATUS_RETRY)
    reading = source.read()["temp_edge_c"]
    assert (reading.value, reading.source) == (41.0, f"{HWMON}/temp1_input (millidegrees C)")
    fake.table[key] = 63
    assert source.read()["temp_edge_c"].source == "amdsmi:amdsmi_get_temp_metric(EDGE, CURRENT)"
    assert source.read()["temp_edge_c"].value == 63.0


def test_an_amdsmi_metric_that_stops_being_supported_moves_to_sysfs_for_good(
        amd_sources: tuple[SourceSet, Any]) -> None:
    sources, fake = amd_sources
    source = by_device(sources)[RX7900]
    fake.table[("amdsmi_get_power_info", 0)] = AmdFail(STATUS_NOT_SUPPORTED)
    first = source.read()["power_w"]
    assert (first.value, first.source) == (27.0, f"{HWMON}/power1_average (µW)")
    calls = fake.calls.count(("amdsmi_get_power_info", 0))
    for _ in range(3):
        assert source.read()["power_w"].value == 27.0
    assert fake.calls.count(("amdsmi_get_power_info", 0)) == calls


def test_without_amdsmi_amd_gpus_are_read_from_sysfs_with_the_reason(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(amdsmi_telemetry, "import_amdsmi",
                        lambda: (None, "amdsmi Python package not installed"))
    system = replay("rx7900xtx_rocm.json")
    with build_sources(system, collect_inventory(system), psutil_module=FakePsutil(),
                       use_libraries=True) as sources:
        readings = by_device(sources)[RX7900].read()
    assert sources.notes == ("amdsmi: amdsmi Python package not installed; AMD GPUs are read "
                             "from sysfs",)
    assert readings["temp_edge_c"].source == f"{HWMON}/temp1_input (millidegrees C)"
    assert (readings["throttle_reasons"].missing_reason or "").startswith(
        "amdsmi: amdsmi Python package not installed; sysfs: ")


def test_amdsmi_is_shut_down_once() -> None:
    fake = fake_amdsmi_telemetry.fake()
    system = replay("rx7900xtx_rocm.json")
    sources = build_sources(system, collect_inventory(system), amdsmi_module=fake,
                            psutil_module=FakePsutil(), use_libraries=True)
    sources.close()
    assert fake.calls.count(("amdsmi_init",)) == 1
    assert fake.shutdowns == 1 and fake.initialised == 0


def test_amdsmi_processes() -> None:
    fake = fake_amdsmi_telemetry.fake()
    session = amdsmi_telemetry.AmdsmiSession(fake)
    reader = session.reader(RX7900)
    assert reader is not None
    assert reader.processes() == ([{"pid": 777, "name": "python3", "used_bytes": 4e9,
                                    "kind": ""}], "amdsmi_get_gpu_process_list")
    other = session.reader("0000:0b:00.0")
    assert other is not None
    assert other.unsupported["throttle_reasons"].endswith("not supported by this GPU or driver")
    assert other.unsupported["pcie_bandwidth_bytes_s"].endswith("amdsmi answered N/A")
    session.close()


def test_discovery_that_hangs_is_bounded() -> None:
    release = threading.Event()
    fake = fake_amdsmi_telemetry.fake()
    original = fake._answer

    def slow(name: str, args: tuple[Any, ...]) -> Any:
        if name == "amdsmi_get_gpu_activity":
            release.wait(10)
        return original(name, args)

    fake._answer = slow  # type: ignore[method-assign]
    system = replay("rx7900xtx_rocm.json")
    try:
        with build_sources(system, collect_inventory(system), amdsmi_module=fake,
                           psutil_module=FakePsutil(), use_libraries=True,
                           discovery_timeout_s=0.2) as sources:
            readings = by_device(sources)[RX7900].read()
            reason = "no answer within 0.2 s while finding its metrics"
            assert sources.notes == (f"{RX7900}: {reason}",)
            assert readings["power_w"].missing_reason == f"telemetry: {reason}"
    finally:
        release.set()


def test_a_gpu_without_a_reader_says_so() -> None:
    system = replay("rx7900xtx_rocm.json")
    inventory = collect_inventory(system)
    intel = Gpu(vendor=Vendor.INTEL, name="Intel Arc A770", pci_bus="0000:08:00.0",
                kernel_driver="i915", drm_card="card2", kind=GpuKind.DISCRETE)
    inventory = dataclasses.replace(inventory, gpus=(intel,))
    with build_sources(system, inventory) as sources:
        readings = by_device(sources)["0000:08:00.0"].read()
    assert readings["power_w"].missing_reason == (
        "telemetry: gpuscope has no live reader for intel GPUs yet")


# ----------------------------------------------------------------------------- host, throttle


def test_host_source_reads_total_per_core_memory_and_swap() -> None:
    source = host_source(FakePsutil(swap_error=PermissionError("no /proc/vmstat")))
    assert source.device == "host" and source.isolated is False
    assert source.metrics() == ("host_cpu_percent", "cpu0_percent", "cpu1_percent",
                                "cpu2_percent", "cpu3_percent", "host_ram_used_bytes",
                                "host_swap_used_bytes")
    readings = source.read()
    assert readings["cpu1_percent"].value == 37.5
    assert readings["cpu1_percent"].source == "psutil:psutil.cpu_percent(percpu=True)[1]"
    assert readings["host_ram_used_bytes"].value == 16 * 2**30
    swap = readings["host_swap_used_bytes"]
    assert swap.value is None
    assert swap.missing_reason == ("psutil: psutil.swap_memory() failed: PermissionError: "
                                   "no /proc/vmstat")


def test_host_reader_on_this_machine() -> None:
    reader = HostReader()
    readings = reader.read(reader.metrics())
    value, source = readings["host_ram_used_bytes"]
    assert value is not None and value > 0 and source.startswith("psutil.virtual_memory()")
    assert readings["host_cpu_percent"][0] is not None
    assert 0.0 <= readings["host_cpu_percent"][0] <= 100.0  # type: ignore[operator]


def test_amdsmi_throttle_status_as_bits_or_as_a_bool() -> None:
    def throttle(answer: dict[str, Any]) -> float | None:
        return amdsmi_telemetry._throttle(answer)["throttle_reasons"]

    # A binding that keeps amdgpu's bitmask: PPT0 (bit 0) and TEMP_HOTSPOT (bit 36).
    assert throttle({"throttle_status": 1, "indep_throttle_status": (1 << 0) | (1 << 36)}) == (
        float(ThrottleReason.POWER | ThrottleReason.THERMAL))
    # amdsmi 7.0.2 gives both as bools: throttled or not.
    assert throttle({"throttle_status": True, "indep_throttle_status": True}) == float(
        ThrottleReason.OTHER)
    assert throttle({"throttle_status": False, "indep_throttle_status": False}) == 0.0
    assert throttle({"throttle_status": 3, "indep_throttle_status": "N/A"}) == float(
        ThrottleReason.OTHER)
    assert throttle({"throttle_status": "N/A", "indep_throttle_status": "N/A"}) is None


def test_the_probes_map_vendor_throttle_bits_onto_gpuscopes() -> None:
    # The probes declare no throttle bits of their own: they use ThrottleReason.
    for module in (nvml_telemetry, amdsmi_telemetry):
        assert not [name for name in vars(module) if name.startswith("THROTTLE_")]
    assert amdsmi_telemetry.throttle_flags_from_amdgpu(1 << 17) == ThrottleReason.CURRENT
    assert amdsmi_telemetry.throttle_flags_from_amdgpu(1 << 46) == ThrottleReason.HARDWARE
    assert amdsmi_telemetry.throttle_flags_from_amdgpu(1 << 57) == ThrottleReason.OTHER
    assert amdsmi_telemetry.throttle_flags_from_amdgpu(0) == 0
    assert nvml_telemetry.throttle_flags_from_nvml(0x80) == (
        ThrottleReason.POWER | ThrottleReason.HARDWARE)
    assert nvml_telemetry.throttle_flags_from_nvml(0x400) == ThrottleReason.OTHER
    assert throttle_reason_names(None) == () == throttle_reason_names(float("nan"))
    assert amdsmi_telemetry.pcie_generation_from_speed(32000) == 5.0
    assert amdsmi_telemetry.pcie_generation_from_speed(4) == 4.0
    assert amdsmi_telemetry.pcie_generation_from_speed(12345) is None


def test_nvml_pcie_counters_take_turns_off_the_fast_path() -> None:
    fake = FakePynvmlTelemetry(telemetry_table())
    session = nvml_telemetry.NvmlSession(fake)
    reader = session.reader(RTX4090)
    assert reader is not None
    start = len(fake.calls)
    reader.read(["pcie_rx_bytes_s", "pcie_tx_bytes_s"])  # the fast path reuses the last value
    assert not any(c[0] == "nvmlDeviceGetPcieThroughput" for c in fake.calls[start:])
    now = time.monotonic() + 10.0
    for step in range(4):
        reader.background(now + 0.6 * step)
        reader.background(now + 0.6 * step + 0.1)  # too soon: nothing
    asked = [c for c in fake.calls[start:] if c[0] == "nvmlDeviceGetPcieThroughput"]
    assert asked == [("nvmlDeviceGetPcieThroughput", 0, 1), ("nvmlDeviceGetPcieThroughput", 0, 0),
                     ("nvmlDeviceGetPcieThroughput", 0, 1), ("nvmlDeviceGetPcieThroughput", 0, 0)]
    session.close()


def test_host_swap_is_read_at_most_once_a_second() -> None:
    psutil = FakePsutil()
    source = host_source(psutil)
    calls = psutil.swap_calls
    for _ in range(5):
        assert source.read()["host_swap_used_bytes"].value == 2**30
    assert psutil.swap_calls == calls + 1


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8)),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.sampled_from([
                                "gfx_activity", "clk", "power_cap", "pcie_metric",
                                "pcie_speed", "pcie_width", "pcie_bandwidth",
                                "current_socket_power", "average_socket_power",
                                "indep_throttle_status", "throttle_status"]), inner,
                                max_size=6)),
    max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_amdsmi_answers_of_any_shape_become_values_or_none(answer: object) -> None:
    for query in amdsmi_telemetry._QUERIES:
        values = query.extract(answer)
        for metric, value in values.items():
            assert metric in query.metrics
            assert value is None or isinstance(value, float)


def test_a_gpu_no_reader_lists_processes_of_says_why() -> None:
    """sysfs has no per-process memory: without amdsmi the page says so instead of waiting."""
    system = replay("rx7900xtx_rocm.json")
    with build_sources(system, collect_inventory(system)) as sources:
        snapshot = by_device(sources)[RX7900].processes()
        host = by_device(sources)["host"].processes()
    assert snapshot is not None and snapshot.processes == ()
    assert snapshot.missing_reason == (
        "amdsmi: vendor libraries are not read for a replayed snapshot; "
        "sysfs has no per-process memory")
    assert host is None
