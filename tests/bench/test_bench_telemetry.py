"""Telemetry during a benchmark run: the sampler's ticks inside each benchmark's time become its
summary (min/median/max with the source, what is missing and why, the throttle reasons seen);
a session finds the GPU the worker ran on and attaches the right device's readings; a run goes
on, saying why, when the machine side fails. Sources are fakes and replayed sysfs trees; the
worker is the real one on this CPU, or a scripted one that claims a GPU."""

from __future__ import annotations

import math
import sys
import textwrap
import threading
import time
import types
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fakes.fake_pynvml_telemetry import FakePynvmlTelemetry, telemetry_table
from fixture_paths import SNAPSHOTS_DIR

from gpuscope.bench.results import BenchRun
from gpuscope.bench.run_telemetry import TelemetryCapture, telemetry_words
from gpuscope.bench.runner import BenchRequest, ResultReceived
from gpuscope.bench.session import BenchMachine, BenchSession, SessionEvent, TargetKnown
from gpuscope.evidence import ReplaySystem
from gpuscope.inventory import collect_inventory
from gpuscope.metrics import Reading, ThrottleReason
from gpuscope.telemetry.sampler import Sampler
from gpuscope.telemetry.sources import BaseSource, build_sources, host_source

GPU = "0000:03:00.0"


class ScriptedGpu(BaseSource):
    """A GPU whose readings follow a script: clock, power and temperature per read, a memory
    clock it cannot read, and throttle bits."""

    def __init__(self, clocks: list[float], throttle: list[int]) -> None:
        self.device = GPU
        self.label = "scripted GPU"
        self.isolated = False  # read inline: the test drives ticks by hand
        self.clocks = clocks
        self.throttle = throttle
        self.reads = 0

    def metrics(self) -> tuple[str, ...]:
        return ("sclk_mhz", "mclk_mhz", "power_w", "temp_junction_c", "throttle_reasons")

    def read(self) -> Mapping[str, Reading]:
        n = min(self.reads, len(self.clocks) - 1)
        self.reads += 1
        return {"sclk_mhz": Reading(self.clocks[n], "fake:clock"),
                "mclk_mhz": Reading(None, None, "this fake has no memory clock"),
                "power_w": Reading(200.0 + n, "fake:power"),
                "temp_junction_c": Reading(60.0 + 2 * n, "fake:temp"),
                "throttle_reasons": Reading(float(self.throttle[n]), "fake:throttle")}


class Clock:
    def __init__(self, start: float) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now


def test_a_benchmark_s_telemetry_is_the_ticks_inside_its_time() -> None:
    clock = Clock(1000.0)
    source = ScriptedGpu(clocks=[2500, 2480, 2100, 1900, 2500, 2500],
                         throttle=[0, 0, int(ThrottleReason.POWER),
                                   int(ThrottleReason.POWER | ThrottleReason.THERMAL), 0,
                                   int(ThrottleReason.IDLE)])
    sampler = Sampler([source], rate_hz=5.0, clock=clock)
    capture = TelemetryCapture()
    capture.attach(sampler)
    try:
        for n in range(6):
            clock.now = 1000.0 + n * 0.2
            sampler.tick()
    finally:
        sampler.stop()
        capture.detach()
    # The first benchmark: ticks 0-3 (1000.0 .. 1000.6).
    first = capture.summary(GPU, 999.95, 1000.65, label="RX 7900 XTX")
    assert first.samples == 4 and first.rate_hz == 5.0 and first.note is None
    clock_summary = first.metric("sclk_mhz")
    assert clock_summary is not None
    assert (clock_summary.min, clock_summary.median, clock_summary.max) == (1900, 2290, 2500)
    assert clock_summary.source == "fake:clock" and clock_summary.unit == "MHz"
    assert clock_summary.label == "Graphics clock"
    temp = first.metric("temp_junction_c")
    assert temp is not None and temp.max == 66.0 and temp.unit == "°C"
    assert first.missing["mclk_mhz"] == "this fake has no memory clock"
    assert first.throttle_reasons == ("power cap", "thermal")
    assert first.throttled_samples == 2 and first.throttled is True
    assert first.throttle_source == "fake:throttle"
    assert telemetry_words(first) == ("throttled: power cap, thermal, max 66 °C, clock "
                                      "1900-2500 MHz, max 203 W")
    # The second: ticks 4-5, where NVIDIA's "idle" is no throttling.
    second = capture.summary(GPU, 1000.75, 1001.05)
    assert second.samples == 2 and second.throttle_reasons == () and second.throttled is False
    assert telemetry_words(second).startswith("not throttled, max")
    # Before sampling began, between two ticks, after it stopped: said so.
    assert capture.summary(GPU, 990.0, 995.0).note == (
        "no telemetry sample during this benchmark: telemetry sampling had not started yet")
    between = capture.summary(GPU, 1000.05, 1000.1)
    assert between.samples == 0 and between.note is not None
    assert "the benchmark took 0.05 s; a sample every 0.2 s" in between.note
    assert "sampling had stopped" in (capture.summary(GPU, 1010.0, 1011.0).note or "")
    late = capture.summary(GPU, 998.0, 1000.5)
    assert late.note == "telemetry sampling began 2.0 s into this benchmark"


def test_missing_start_or_end_and_a_host_summary() -> None:
    clock = Clock(50.0)
    psutil = types.SimpleNamespace(
        cpu_percent=lambda interval=None, percpu=False: [50.0, 100.0] if percpu else 75.0,
        virtual_memory=lambda: types.SimpleNamespace(total=8 * 2**30, available=6 * 2**30),
        swap_memory=lambda: types.SimpleNamespace(total=0, used=0))
    sampler = Sampler([host_source(psutil, "box")], rate_hz=5.0, clock=clock)
    capture = TelemetryCapture()
    capture.attach(sampler)
    try:
        for n in range(3):
            clock.now = 50.0 + n * 0.2
            sampler.tick()
    finally:
        sampler.stop()
    host = capture.summary("host", 49.9, 50.5)
    cpu = host.metric("host_cpu_percent")
    assert cpu is not None and cpu.median == 75.0 and cpu.source is not None
    assert cpu.source.startswith("psutil")
    assert host.throttle_source is None and "throttle_reasons" not in host.missing
    assert telemetry_words(host) == "CPU 75%, RAM 2.0 GiB"
    assert capture.summary("host", None, 50.5).note == \
        "the benchmark's start or end time is unknown"


# --- sessions ---------------------------------------------------------------------------------


def _fake_worker(tmp_path: Path, hello: dict[str, Any], benchmarks: list[str],
                 seconds_each: float = 0.6) -> str:
    """A worker that claims a GPU and spends `seconds_each` per benchmark."""
    path = tmp_path / "gpu_worker.py"
    path.write_text(textwrap.dedent(f"""
        import json, sys, time
        def send(m):
            sys.stdout.write(json.dumps(m) + "\\n")
            sys.stdout.flush()
        send({hello!r})
        for b in {benchmarks!r}:
            began = time.time()
            while time.time() - began < {seconds_each}:
                send({{"type": "progress", "benchmark": b, "fraction": 0.5, "stage": "measure"}})
                time.sleep(0.05)
            send({{"type": "result", "result": {{"id": b, "device": "cuda:0", "status": "ok",
                   "unit": "TFLOPS", "value": 100.0, "higher_is_better": True,
                   "spread": {{"min": 99.0, "median": 100.0, "max": 101.0, "count": 5}},
                   "started_unix_s": began, "ended_unix_s": time.time()}}}})
        send({{"type": "done", "results": {len(benchmarks)}}})
    """))
    return str(path)


def _gpu_hello(name: str, bus: str, arch: str) -> dict[str, Any]:
    return {"type": "hello", "protocol": 1, "device": "cuda:0", "device_name": name,
            "torch": {"version": "2.7.1+rocm6.3", "build": "rocm", "build_version": "6.3"},
            "devices": [{"index": 0, "name": name, "arch": arch, "pci_bus": bus}]}


def _collect(session: BenchSession) -> tuple[BenchRun, list[SessionEvent]]:
    events: list[SessionEvent] = []
    run = session.run(events.append)
    return run, events


def test_a_session_attaches_the_gpu_s_replayed_sysfs_telemetry_and_finds_the_card(
        tmp_path: Path) -> None:
    system = ReplaySystem.from_file(str(SNAPSHOTS_DIR / "rx7900xtx_rocm.json"))
    inventory = collect_inventory(system)

    def machine() -> BenchMachine:
        return BenchMachine(inventory.gpus, build_sources(system, inventory))

    benchmarks = ["matmul.fp16", "matmul.bf16"]
    script = _fake_worker(tmp_path, _gpu_hello("AMD Radeon RX 7900 XTX", GPU, "gfx1100"),
                          benchmarks)
    session = BenchSession(BenchRequest(tuple(benchmarks), script=script), machine,
                           telemetry_rate_hz=10.0)
    run, events = _collect(session)
    assert run.ok, run.errors
    (known,) = [e for e in events if isinstance(e, TargetKnown)]
    assert known.telemetry_device == GPU and known.note is None
    assert run.target is not None and run.target.matched_by == "PCI bus address"
    assert run.target.spec_name == "AMD Radeon RX 7900 XTX"
    streamed = [e.result for e in events if isinstance(e, ResultReceived)]
    assert all(r.telemetry is not None for r in streamed)
    for result in run.results:
        telemetry = result.telemetry
        assert telemetry is not None and telemetry.device == GPU
        assert telemetry.label == "AMD Radeon RX 7900 XTX (0000:03:00.0)"
        assert telemetry.samples >= 3, telemetry
        clock = telemetry.metric("sclk_mhz")
        assert clock is not None and clock.source is not None
        assert clock.source.startswith("sysfs:") or "/sys/class/drm/" in clock.source
        assert telemetry.metric("temp_edge_c") is not None
        # sysfs has no throttle reasons; the summary says why rather than "not throttled".
        assert telemetry.throttled is None
        assert "amdsmi reads it" in telemetry.missing["throttle_reasons"]
    assert run.telemetry_note is None
    assert threading.active_count() < 50
    assert not [t for t in threading.enumerate() if t.name.startswith("telemetry-")
                and t.is_alive()]


def test_nvml_throttle_reasons_reach_the_result(tmp_path: Path) -> None:
    system = ReplaySystem.from_file(str(SNAPSHOTS_DIR / "nvidia_rtx4090.json"))
    inventory = collect_inventory(system)
    fake = FakePynvmlTelemetry(telemetry_table())

    def machine() -> BenchMachine:
        return BenchMachine(inventory.gpus, build_sources(system, inventory, nvml_module=fake,
                                                          use_libraries=True))

    script = _fake_worker(tmp_path, _gpu_hello("NVIDIA GeForce RTX 4090", "0000:01:00.0",
                                               "sm_89"), ["matmul.fp16"])
    run, _events = _collect(BenchSession(BenchRequest(("matmul.fp16",), script=script),
                                         machine, telemetry_rate_hz=10.0))
    (result,) = run.results
    telemetry = result.telemetry
    assert telemetry is not None and telemetry.device == "0000:01:00.0"
    assert telemetry.throttle_reasons == ("power cap", "thermal")
    assert telemetry.throttle_source is not None and "nvml" in telemetry.throttle_source.lower()
    power = telemetry.metric("power_w")
    assert power is not None and math.isclose(power.max, 412.345)
    assert run.target is not None and run.target.spec_name == "NVIDIA GeForce RTX 4090"
    assert fake.shutdowns == 1 and fake.initialised == 0  # the session closed what it opened


def test_a_gpu_not_on_the_machine_and_a_failing_machine_side_are_said(tmp_path: Path) -> None:
    script = _fake_worker(tmp_path, _gpu_hello("AMD Radeon RX 7900 XTX", GPU, "gfx1100"),
                          ["matmul.fp16"], seconds_each=0.2)

    def nothing() -> BenchMachine:
        return BenchMachine(())

    run, events = _collect(BenchSession(BenchRequest(("matmul.fp16",), script=script),
                                        nothing))
    assert run.ok and run.results[0].telemetry is None
    assert run.telemetry_note == ("the GPU the worker ran on was not found among the machine's "
                                  "GPUs, so its telemetry is not known")
    assert run.target is not None and run.target.spec_name == "AMD Radeon RX 7900 XTX"
    assert run.target.matched_by == "name torch reported"
    (known,) = [e for e in events if isinstance(e, TargetKnown)]
    assert known.telemetry_device is None and known.note == run.telemetry_note

    def broken() -> BenchMachine:
        raise RuntimeError("rocminfo exploded")

    run, _ = _collect(BenchSession(BenchRequest(("matmul.fp16",), script=script), broken))
    assert run.ok and run.results[0].telemetry is None
    assert run.telemetry_note == ("the machine could not be listed: RuntimeError: rocminfo "
                                  "exploded")

    def slow() -> BenchMachine:
        time.sleep(3)
        return BenchMachine(())

    started = time.monotonic()
    run, _ = _collect(BenchSession(BenchRequest(("matmul.fp16",), script=script), slow,
                                   machine_timeout_s=1.0))
    assert time.monotonic() - started < 2.5
    assert run.ok and run.telemetry_note == "the machine's GPUs were not listed within 1 s"

    run, _ = _collect(BenchSession(BenchRequest(("matmul.fp16",), script=script), None))
    assert run.telemetry_note == "telemetry was not sampled for this run"


def test_the_real_cpu_worker_gets_the_host_s_telemetry(tiny_env: dict[str, str]) -> None:
    psutil = types.SimpleNamespace(
        cpu_percent=lambda interval=None, percpu=False: [90.0, 96.0] if percpu else 93.0,
        virtual_memory=lambda: types.SimpleNamespace(total=8 * 2**30, available=5 * 2**30),
        swap_memory=lambda: types.SimpleNamespace(total=0, used=0))

    def machine() -> BenchMachine:
        from gpuscope.telemetry.sources import SourceSet
        return BenchMachine((), SourceSet((host_source(psutil, "this box"),)))

    request = BenchRequest(("latency.launch",), python=sys.executable, env=tiny_env,
                           budget_s=1.0)
    run, events = _collect(BenchSession(request, machine, telemetry_rate_hz=20.0))
    assert run.ok, run.errors
    (known,) = [e for e in events if isinstance(e, TargetKnown)]
    assert known.target is None and known.telemetry_device == "host"
    telemetry = run.results[0].telemetry
    assert telemetry is not None and telemetry.device == "host" and telemetry.label == "this box"
    assert telemetry.samples >= 5
    cpu = telemetry.metric("host_cpu_percent")
    assert cpu is not None and cpu.median == 93.0
