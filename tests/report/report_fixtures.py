"""Inputs for report tests: a machine with distinctive names (a replayed snapshot whose host,
user, home and serials would stand out in any export), a benchmark run of its card, and a
telemetry strip.

The benchmark run and telemetry are test data built here (labelled as such in their
"python" path and telemetry source), in the worker's own JSON form so that they go through
the same reader as a real `gpuscope bench -o` file.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from fixture_paths import SNAPSHOTS_DIR

from gpuscope.bench.results import BenchRun, run_from_json
from gpuscope.report.telemetry_summary import DeviceSeries, summarise_telemetry
from gpuscope.report.view_model import TelemetrySummary

# What the planted machine is called: none of it may appear in a redacted export.
PLANTED_USER = "zorbuser77"
PLANTED_HOST = "quokkatron-lab9"
PLANTED_HOME = f"/home/{PLANTED_USER}"
PLANTED_SERIAL = "PX7Q2K9931"
PLANTED_UUID = "5fff744c-7731-4e2a-9c1d-0a9b8c7d6e5f"
PLANTED_MAC = "3c:7c:3f:a1:b2:c3"
PLANTED_IP = "192.168.77.42"
PLANTED_NAMES = (PLANTED_USER, PLANTED_HOST, PLANTED_HOME, PLANTED_SERIAL, PLANTED_UUID,
                 PLANTED_MAC, PLANTED_IP)

BENCH_STARTED_UNIX_S = 1_795_000_000.0


def planted_snapshot(tmp_path: Path) -> Path:
    """rx7900xtx_rocm.json as if captured by `PLANTED_USER` on `PLANTED_HOST`, with a GPU
    serial and UUID in sysfs, the user's home in ROCM_PATH and a MAC and IP address in a
    kernel log line the snapshot holds."""
    doc = json.loads((SNAPSHOTS_DIR / "rx7900xtx_rocm.json").read_text())
    text = json.dumps(doc)
    text = (text.replace("alice-desktop", PLANTED_HOST).replace("Alice", PLANTED_USER)
            .replace("alice", PLANTED_USER))
    doc = json.loads(text)
    files: dict[str, Any] = doc["files"]
    files["/sys/class/drm/card1/device/serial_number"] = {"text": PLANTED_SERIAL + "\n"}
    files["/sys/class/drm/card1/device/unique_id"] = {"text": PLANTED_UUID + "\n"}
    files["/etc/hostname"] = {"text": PLANTED_HOST + "\n"}
    files["/proc/net/arp"] = {"text": f"IP address  HW type  Flags  HW address  Mask  Device\n"
                                      f"{PLANTED_IP}  0x1  0x2  {PLANTED_MAC}  *  enp5s0\n"}
    env: dict[str, Any] = doc["env"]
    env["HOME"] = PLANTED_HOME
    env["USER"] = PLANTED_USER
    path = tmp_path / "planted-machine.json"
    path.write_text(json.dumps(doc))
    return path


def bench_run_document(started_unix_s: float = BENCH_STARTED_UNIX_S,
                       python: str = "/opt/test-data/venv/bin/python") -> dict[str, Any]:
    """A `gpuscope bench -o` document of a quick suite on an RX 7900 XTX (test data), run
    with the interpreter `python`."""
    values = {"matmul.fp32": ("TFLOPS", 26.4), "matmul.fp16": ("TFLOPS", 98.6),
              "matmul.bf16": ("TFLOPS", 91.3), "memory.copy": ("GB/s", 812.5),
              "memory.triad": ("GB/s", 790.1)}
    results = []
    for number, (benchmark, (unit, value)) in enumerate(values.items()):
        results.append({
            "id": benchmark, "device": "cuda:0", "status": "ok", "unit": unit,
            "higher_is_better": True, "value": value,
            "spread": {"min": value * 0.98, "median": value, "max": value * 1.01, "count": 7},
            "device_name": "AMD Radeon RX 7900 XTX",
            "started_unix_s": started_unix_s + number * 4,
            "ended_unix_s": started_unix_s + number * 4 + 3.5})
    results.append({"id": "matmul.int8", "device": "cuda:0", "status": "unsupported",
                    "unit": "TOPS", "higher_is_better": True,
                    "reason": "torch._int_mm is not built for gfx1100 in this wheel"})
    return {
        "schema": "gpuscope.bench/1",
        "python": python,
        "benchmarks": [*values, "matmul.int8"],
        "device_request": "auto",
        "hello": {"protocol": 1, "torch_version": "2.7.1+rocm6.3", "build": "rocm",
                  "build_version": "6.3", "device": "cuda:0",
                  "device_name": "AMD Radeon RX 7900 XTX",
                  "devices": [{"index": 0, "name": "AMD Radeon RX 7900 XTX",
                               "total_memory_bytes": 25753026560, "arch": "gfx1100",
                               "gcn_arch_name": "gfx1100", "pci_bus": "0000:03:00.0"}]},
        "results": results,
        "errors": [],
        "started_unix_s": started_unix_s,
        "ended_unix_s": started_unix_s + 24.0,
    }


def bench_run(started_unix_s: float = BENCH_STARTED_UNIX_S, **changes: Any) -> BenchRun:
    run = run_from_json(bench_run_document(started_unix_s, **changes))
    assert run is not None
    return run


def telemetry_summary(seconds: int = 120) -> TelemetrySummary:
    """Two minutes of a loaded RX 7900 XTX and the host (test data)."""
    times = [BENCH_STARTED_UNIX_S + t for t in range(seconds)]
    load = [1.0 if 20 <= t < 90 else 0.05 for t in range(seconds)]
    gpu = DeviceSeries("0000:03:00.0", "GPU 0: AMD Radeon RX 7900 XTX", times, {
        "gpu_util_percent": [100 * x for x in load],
        "sclk_mhz": [500 + 2000 * x for x in load],
        "power_w": [30 + 300 * x for x in load],
        "temp_edge_c": [40 + 25 * (1 - math.exp(-t / 40)) * load[t] for t in range(seconds)],
        "vram_used_bytes": [2e9 + 14e9 * x for x in load],
    })
    host = DeviceSeries("host", "Host (CPU and RAM)", times, {
        "host_cpu_percent": [8 + 10 * x for x in load],
        "host_ram_used_bytes": [12e9 + 1e9 * x for x in load],
    })
    summary = summarise_telemetry([gpu, host], source="test data", live=False)
    assert summary is not None
    return summary
