"""`gpuscope bench --suite full` on a real NVIDIA H200 (PyTorch 2.11.0+cu130, driver
580.159.04, 2026-11-27), with `gpuscope record` sampling the GPU beside it: the saved run
(fixtures/bench/nvidia_h200_full.json) and the recording
(fixtures/recordings/nvidia_h200_bench.sqlite) read back as what they measured."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from gpuscope.bench.results import ResultStatus, run_from_json
from gpuscope.metrics import ThrottleReason
from gpuscope.telemetry.recorder import open_recording

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
RUN = FIXTURES / "bench" / "nvidia_h200_full.json"
RECORDING = FIXTURES / "recordings" / "nvidia_h200_bench.sqlite"
GPU = "0000:00:06.0"


def test_the_full_suite_ran_every_benchmark_on_the_h200() -> None:
    run = run_from_json(json.loads(RUN.read_text()))
    assert run is not None and run.ok
    results = {r.id: r for r in run.results}
    assert len(results) == 17
    assert all(r.status is ResultStatus.OK and r.device_name == "NVIDIA H200"
               for r in results.values())
    # What it measured, within what an H200 can do (4.8 TB/s, 989 TFLOPS dense bf16).
    assert 3000 < (results["memory.copy"].value or 0) < 4800
    assert 500 < (results["matmul.bf16"].value or 0) < 989
    assert 40 < (results["transfer.h2d_pinned"].value or 0) < 63.1  # PCIe 5.0 x16


def test_its_matmuls_ran_into_the_700_w_power_cap() -> None:
    run = run_from_json(json.loads(RUN.read_text()))
    assert run is not None
    bf16 = next(r for r in run.results if r.id == "matmul.bf16")
    assert bf16.telemetry is not None and "power cap" in bf16.telemetry.throttle_reasons
    medians = {m.metric: m.median for m in bf16.telemetry.metrics}
    assert (medians["power_cap_w"], medians["power_w"] > 600) == (700.0, True)
    assert (medians["sclk_mhz"] or 0) < 1980  # the clock came down from its 1980 MHz maximum


def test_the_recording_beside_it_holds_the_run() -> None:
    with open_recording(RECORDING) as recording:
        assert recording.meta.complete and recording.meta.rate_hz == 2.0
        assert recording.devices == (GPU, "host")
        names = {s.metric: s.name for s in recording.series if s.device == GPU}
        times, power_w = recording.read(names["power_w"])[:2]
        assert len(times) >= 90 and np.all(np.diff(times) > 0)
        assert float(np.min(power_w)) > 60 and float(np.max(power_w)) <= 705
        flags = {int(v) for v in recording.read(names["throttle_reasons"])[1]}
        assert flags <= {0, ThrottleReason.POWER, ThrottleReason.IDLE}
        assert ThrottleReason.POWER in flags
