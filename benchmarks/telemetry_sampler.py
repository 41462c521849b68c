"""CPU time of one telemetry sampling tick: the host (psutil, live) plus 8 amdgpu GPUs read from
real files: a directory tree laid out as sysfs and hwmon (8 cards, each behind its own on-board
PCIe switch, with hwmon files, built in a temporary directory on the RX 7900 XTX fixture's
pattern), read through the live evidence reader (`LiveSystem`) rooted there, so a tick makes
the system calls a live one makes: one pread per reading of a file `LiveSystem.open_file`
keeps open.

A tick is `Sampler.tick()`: every GPU source asked on its own worker thread, one after the
other, the host inline, one row per device into the ring buffers and the latest readings
updated. Its cost is measured as process CPU time (`time.process_time`, all threads: the
workers' reads count), not wall time.

Prints JSON with `tick_ms_median` (target <= 2 ms), `tick_ms_p95` and the configuration.
"""

from __future__ import annotations

import argparse
import copy
import gc
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from gpuscope.evidence import ReplaySystem, Snapshot
from gpuscope.inventory import collect_inventory
from gpuscope.telemetry.sampler import Sampler
from gpuscope.telemetry.sources import SourceSet, build_sources, host_source

TESTS = Path(__file__).resolve().parent.parent / "tests"
FIXTURE = TESTS / "fixtures" / "snapshots" / "rx7900xtx_rocm.json"
sys.path.insert(0, str(TESTS))
from fakes.sysfs_tree import RootedLiveSystem, write_tree  # noqa: E402

ROOT = "/sys/devices/pci0000:00/0000:00:01.1"
UP, DOWN, GPU = "0000:01:00.0", "0000:02:00.0", "0000:03:00.0"


def eight_gpu_snapshot(count: int = 8) -> Snapshot:
    """The fixture's one RX 7900 XTX, cloned `count` times: card1..cardN, each behind its own
    root port (0000:00:0N.1) and on-board switch, with hwmon2..; only sysfs files are kept."""
    base = Snapshot.load(FIXTURE)
    snapshot = Snapshot(meta={"description": f"{count} RX 7900 XTX cards cloned from "
                                             "rx7900xtx_rocm.json for the sampler benchmark",
                              "sources": ["tests/fixtures/snapshots/rx7900xtx_rocm.json"]})
    for path, entry in base.files.items():
        # Everything but the GPU's tree (cloned below) and the KFD topology (one GPU's).
        if not path.startswith((ROOT, "/sys/class/kfd/", "/sys/devices/virtual/kfd/")):
            snapshot.files[path] = copy.deepcopy(entry)
    for index in range(count):
        bus = 0x10 * index
        up, down, gpu = (f"0000:{bus + 1:02x}:00.0", f"0000:{bus + 2:02x}:00.0",
                         f"0000:{bus + 3:02x}:00.0")
        root = f"/sys/devices/pci0000:00/0000:00:{index + 1:02x}.1"
        card, hwmon, render = f"card{index + 1}", f"hwmon{index + 2}", f"renderD{128 + index}"

        def rename(text: str, root: str = root, up: str = up, down: str = down, gpu: str = gpu,
                   card: str = card, hwmon: str = hwmon, render: str = render) -> str:
            return (text.replace(f"{ROOT}/{UP}/{DOWN}/{GPU}", f"{root}/{up}/{down}/{gpu}")
                    .replace(f"{ROOT}/{UP}/{DOWN}", f"{root}/{up}/{down}")
                    .replace(f"{ROOT}/{UP}", f"{root}/{up}").replace(ROOT, root)
                    .replace("card1", card).replace("hwmon2", hwmon)
                    .replace("renderD128", render))

        for path, entry in base.files.items():
            if path.startswith(ROOT):
                snapshot.files[rename(path)] = copy.deepcopy(entry)
        for link, target in base.realpaths.items():
            snapshot.realpaths[rename(link)] = rename(target)
    for key in ("psutil", "platform"):
        if key in base.libraries:
            snapshot.libraries[key] = base.libraries[key]
    return snapshot


def measure(ticks: int, warmup: int, gpus: int) -> dict[str, Any]:
    snapshot = eight_gpu_snapshot(gpus)
    with tempfile.TemporaryDirectory(prefix="gpuscope-sysfs-") as root:
        files = write_tree(snapshot, root)
        # The inventory (which GPU is which card) from the snapshot; every reading from disk.
        inventory = collect_inventory(ReplaySystem(snapshot, source="8 cloned RX 7900 XTX"))
        sources = build_sources(RootedLiveSystem(root), inventory, use_libraries=False)
        result = _measure(sources, ticks, warmup)
    result["config"]["sysfs_files_on_disk"] = files
    result["config"]["gpu_reads"] = "files kept open, one pread per reading (LiveSystem.open_file)"
    return result


def _measure(sources: SourceSet, ticks: int, warmup: int) -> dict[str, Any]:
    gpu_sources = [s for s in sources.sources if s.device != "host"]
    all_sources = [*gpu_sources, host_source()]
    sampler = Sampler(all_sources, rate_hz=10.0, history_s=3600.0)
    cpu_ms: list[float] = []
    wall_ms: list[float] = []
    try:
        for _ in range(warmup):
            sampler.tick()
        gc.collect()
        for _ in range(ticks):
            wall = time.perf_counter()
            cpu = time.process_time()
            sampler.tick()
            cpu_ms.append((time.process_time() - cpu) * 1000.0)
            wall_ms.append((time.perf_counter() - wall) * 1000.0)
            time.sleep(0.001)  # let the workers settle back to waiting, as between real ticks
    finally:
        sampler.stop()
        sources.close()
    latest = sampler.latest
    gpu_values = sum(1 for name, r in latest.items()
                     if not name.startswith("host/") and r.value is not None)
    host_values = sum(1 for name, r in latest.items()
                      if name.startswith("host/") and r.value is not None)
    cpu_ms.sort()
    return {
        "tick_ms_median": round(statistics.median(cpu_ms), 4),
        "tick_ms_p95": round(cpu_ms[int(0.95 * (len(cpu_ms) - 1))], 4),
        "tick_ms_max": round(cpu_ms[-1], 4),
        "wall_ms_median": round(statistics.median(wall_ms), 4),
        "target_ms": 2.0,
        "config": {
            "gpus": len(gpu_sources),
            "gpu_source": "amdgpu sysfs files on disk, read through LiveSystem",
            "host_source": "psutil, live", "ticks": ticks, "warmup_ticks": warmup,
            "rate_hz": sampler.rate_hz, "history_s": sampler.history_s,
            "series": len(sampler.series), "gpu_values_per_tick": gpu_values,
            "host_values_per_tick": host_values, "clock": "time.process_time (all threads)",
            "python": sys.version.split()[0],
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ticks", type=int, default=1000)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--gpus", type=int, default=8)
    parser.add_argument("--json", action="store_true", help="JSON output (the only format)")
    args = parser.parse_args()
    print(json.dumps(measure(args.ticks, args.warmup, args.gpus), indent=1))


if __name__ == "__main__":
    main()
