"""The collector: a replayed RX 7900 XTX's readings, versions and findings as Prometheus text."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from types import MappingProxyType

import pytest
from fixture_paths import SNAPSHOTS_DIR
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.registry import CollectorRegistry

from gpuscope.app.live_session import LiveSession
from gpuscope.app.machine import system_for
from gpuscope.inventory import collect_inventory
from gpuscope.metrics import Metric, Reading, ThrottleReason, series_name
from gpuscope.model import Finding, Inventory, Severity
from gpuscope.serve.documents import run_doctor
from gpuscope.serve.exporter import DoctorState, GpuscopeCollector, LatestReadings
from gpuscope.telemetry.sampler import DeviceState, DeviceStatus

REPLAY = SNAPSHOTS_DIR / "rx7900xtx_rocm.json"
GPU = {"gpu": "0", "pci_bus": "0000:03:00.0", "name": "AMD Radeon RX 7900 XTX"}


def _families(registry: CollectorRegistry) -> dict[str, object]:
    text = generate_latest(registry).decode("utf-8")
    return {f.name: f for f in text_string_to_metric_families(text)}


def _samples(family: object) -> list[tuple[dict[str, str], float]]:
    return [(dict(s.labels), s.value) for s in family.samples]  # type: ignore[attr-defined]


def _value(family: object, **labels: str) -> float:
    found = [v for lab, v in _samples(family) if all(lab.get(k) == x for k, x in labels.items())]
    assert len(found) == 1, (labels, _samples(family))
    return found[0]


@pytest.fixture(scope="module")
def replayed() -> Iterator[tuple[Inventory, LatestReadings, DoctorState]]:
    system = system_for(str(REPLAY))
    inventory = collect_inventory(system)
    session = LiveSession(system)
    assert session.claim_start()
    sampler = session.start_sampler(inventory, 10.0)
    assert sampler is not None
    readings = LatestReadings()
    readings.attach(sampler)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        snapshot = readings.current()
        if snapshot is not None and snapshot.tick_count >= 2:
            break
        time.sleep(0.05)
    run = run_doctor(system, ())
    assert run.error is None and run.state is not None
    yield inventory, readings, run.state
    readings.detach()
    session.close()


def _registry(collector: GpuscopeCollector) -> CollectorRegistry:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(collector)
    return registry


def test_gpu_series_of_a_replayed_machine(replayed: tuple[Inventory, LatestReadings,
                                                           DoctorState]) -> None:
    inventory, readings, doctor = replayed
    families = _families(_registry(GpuscopeCollector(inventory, readings, lambda: doctor)))
    # The values sysfs held when the snapshot was taken (hwmon2, gpu_busy_percent, ...).
    assert _value(families["gpuscope_gpu_utilization_ratio"], **GPU) == pytest.approx(0.03)
    assert _value(families["gpuscope_gpu_memory_used_bytes"], **GPU) == 1327644672.0
    assert _value(families["gpuscope_gpu_memory_total_bytes"], **GPU) == 25753026560.0
    temperature = families["gpuscope_gpu_temperature_celsius"]
    assert _value(temperature, sensor="edge") == 41.0
    assert _value(temperature, sensor="junction") == 48.0
    assert _value(temperature, sensor="memory") == 52.0
    assert _value(families["gpuscope_gpu_power_watts"], **GPU) == 27.0
    assert _value(families["gpuscope_gpu_power_cap_watts"], **GPU) == 355.0
    clock = families["gpuscope_gpu_clock_hertz"]
    assert _value(clock, clock="graphics") == pytest.approx(1253e6)
    assert _value(clock, clock="memory") == pytest.approx(96e6)
    assert _value(families["gpuscope_gpu_pcie_link_generation"], **GPU) == 4.0
    assert _value(families["gpuscope_gpu_pcie_link_width_lanes"], **GPU) == 16.0
    assert _value(families["gpuscope_gpu_up"], **GPU) == 1.0
    # Help lines are the catalogue's labels.
    assert families["gpuscope_gpu_power_watts"].documentation == "Power (watts)"  # type: ignore[attr-defined]
    # Nothing read, nothing exported: PCIe throughput and throttling are not in a replay.
    assert "gpuscope_gpu_pcie_throughput_bytes_per_second" not in families
    assert "gpuscope_gpu_throttle_reason" not in families


def test_missing_metrics_say_why(replayed: tuple[Inventory, LatestReadings,
                                                 DoctorState]) -> None:
    inventory, readings, doctor = replayed
    families = _families(_registry(GpuscopeCollector(inventory, readings, lambda: doctor)))
    available = {(lab["gpu"], lab["metric"]): (value, lab["reason"])
                 for lab, value in _samples(families["gpuscope_metric_available"])}
    assert available[("0", "power_w")] == (1.0, "")
    value, reason = available[("0", "throttle_reasons")]
    assert value == 0.0 and "gpu_metrics" in reason
    value, reason = available[("host", "host_cpu_percent")]
    assert value == 0.0 and "replayed snapshot" in reason


def test_versions_and_findings(replayed: tuple[Inventory, LatestReadings,
                                               DoctorState]) -> None:
    inventory, readings, doctor = replayed
    families = _families(_registry(GpuscopeCollector(inventory, readings, lambda: doctor)))
    assert _value(families["gpuscope_rocm_info"], version="6.2.4") == 1.0
    assert _value(families["gpuscope_driver_info"], driver="amdgpu",
                  kernel="6.8.0-49-generic") == 1.0
    assert _value(families["gpuscope_gpu_info"], gfx_target="gfx1100", vendor="amd") == 1.0
    assert _samples(families["gpuscope_cuda_info"]) == []
    from gpuscope import __version__

    assert _value(families["gpuscope_build_info"], version=__version__) == 1.0
    findings = _samples(families["gpuscope_finding"])
    assert findings and all(value == 1.0 for _, value in findings)
    assert {(lab["id"], lab["severity"], lab["gpu"]) for lab, _ in findings} == {
        (f.id, f.severity.value, str(f.gpu) if f.gpu is not None else "")
        for f in doctor.findings}
    assert _samples(families["gpuscope_doctor_last_run_timestamp_seconds"])[0][1] == (
        doctor.finished_s)


def test_no_doctor_yet_means_no_findings(replayed: tuple[Inventory, LatestReadings,
                                                         DoctorState]) -> None:
    inventory, readings, _doctor = replayed
    families = _families(_registry(GpuscopeCollector(inventory, readings)))
    assert _samples(families["gpuscope_finding"]) == []
    assert "gpuscope_doctor_last_run_timestamp_seconds" not in families


class _StubSampler:
    """The parts of a Sampler that LatestReadings reads, with readings set by the test."""

    def __init__(self, latest: Mapping[str, Reading], states: Mapping[str, DeviceState]) -> None:
        self.latest = MappingProxyType(dict(latest))
        self.device_state = dict(states)
        self.tick_count = 7
        self.last_tick_duration_s = 0.002

    def subscribe(self, callback: object) -> object:
        return lambda: None


def test_throttle_reasons_and_lost_gpus(replayed: tuple[Inventory, LatestReadings,
                                                        DoctorState]) -> None:
    inventory, _readings, _doctor = replayed
    device = "0000:03:00.0"
    reasons = float(ThrottleReason.POWER | ThrottleReason.THERMAL)
    stub = _StubSampler(
        {series_name(device, Metric.THROTTLE_REASONS): Reading(reasons, "amdsmi"),
         series_name(device, Metric.POWER_W): Reading(None, None, "no answer within 0.5 s"),
         series_name("host", "cpu1_percent"): Reading(50.0, "psutil")},
        {device: DeviceState(device, "GPU", DeviceStatus.LOST, "no answer within 0.5 s")})
    readings = LatestReadings()
    readings.attach(stub)  # type: ignore[arg-type]
    families = _families(_registry(GpuscopeCollector(inventory, readings)))
    throttle = families["gpuscope_gpu_throttle_reason"]
    assert _value(throttle, reason="power") == 1.0
    assert _value(throttle, reason="thermal") == 1.0
    assert _value(throttle, reason="idle") == 0.0
    assert len(_samples(throttle)) == len(ThrottleReason)
    assert _value(families["gpuscope_gpu_up"], **GPU) == 0.0
    assert _value(families["gpuscope_host_cpu_core_utilization_ratio"], core="1") == 0.5
    assert _value(families["gpuscope_metric_available"], metric="power_w") == 0.0
    assert _value(families["gpuscope_sampler_ticks"]) == 7.0


def test_a_finding_per_gpu_and_system(replayed: tuple[Inventory, LatestReadings,
                                                      DoctorState]) -> None:
    inventory, readings, _doctor = replayed
    doctor = DoctorState((Finding("stack.rocm_missing", Severity.ERROR, "no ROCm"),
                          Finding("gpu.usable", Severity.OK, "fine", gpu=0)), 1.0e9)
    families = _families(_registry(GpuscopeCollector(inventory, readings, lambda: doctor)))
    assert _value(families["gpuscope_finding"], id="stack.rocm_missing", severity="error",
                  gpu="") == 1.0
    assert _value(families["gpuscope_finding"], id="gpu.usable", gpu="0") == 1.0


def test_a_tick_costs_the_sampler_well_under_a_millisecond(
        replayed: tuple[Inventory, LatestReadings, DoctorState]) -> None:
    _inventory, readings, _doctor = replayed
    first = readings.current()
    assert first is not None
    deadline = time.monotonic() + 5
    while readings.current() is first and time.monotonic() < deadline:
        time.sleep(0.02)
    assert readings.current() is not first, "the snapshot follows the sampler's ticks"
    # A copy of ~25 readings; generous for a loaded test machine.
    assert readings.update_cost_s < 1e-3
