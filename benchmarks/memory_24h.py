"""Memory over a simulated day of telemetry: 24 h at 10 Hz (864,000 ticks) driven straight
through `Sampler.tick()` with fake sources (random walks with steps), a simulated clock and no
sleeping; with `--record`, every tick also goes through the recorder into an SQLite file.

The rings hold one hour (36,000 rows per device) and are allocated up front, so after the first
ticks nothing should grow: the script prints `rss_growth_mb` (RSS at the end minus RSS after
the warm-up; target <= 50) with the RSS along the way.

With `--record` the recording is written in the current format (version 3, chunks), or with
`--format-version 2` in the old one (a row per sample). Its `recording` object gives the
file's size after close (`file_mb`: the main file and any -wal), `bytes_per_sample` (that over
the samples stored), `file_mb_per_hour` and `file_mb_24h_estimate` (the size scaled to 24
simulated hours, for short runs), against `file_target_mb_24h`: an eighth of the 3,448 MB the
version 2 file took for the full run (24 h, 10 Hz, 4 GPUs).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import psutil

from gpuscope.metrics import GPU_METRICS, HOST_METRICS, Reading, cpu_core_metric
from gpuscope.telemetry.recorder import RECORDING_VERSION, Recorder, open_recording
from gpuscope.telemetry.sampler import Sampler
from gpuscope.telemetry.sources import BaseSource


class WalkSource(BaseSource):
    """A device whose metrics follow precomputed random walks with steps, cycled; a few
    metrics are always missing, as on real GPUs."""

    def __init__(self, device: str, metrics: tuple[str, ...], isolated: bool, seed: int,
                 missing: int = 3, period: int = 4096) -> None:
        self.device = device
        self.label = f"fake {device}"
        self.isolated = isolated
        self._metrics = metrics
        rng = np.random.default_rng(seed)
        steps = rng.normal(0, 1, (len(metrics), period))
        jumps = (rng.random((len(metrics), period)) < 0.01) * rng.normal(0, 20, (len(metrics),
                                                                                 period))
        walks = np.abs(np.cumsum(steps + jumps, axis=1)) + 10
        self._walks = walks.tolist()
        self._period = period
        self._tick = 0
        self._sources = [f"fake:{device}/{m}" for m in metrics]
        self._missing = {m: Reading(None, None, "not supported by this fake GPU")
                         for m in metrics[-missing:]} if missing else {}

    def metrics(self) -> tuple[str, ...]:
        return self._metrics

    def read(self) -> Mapping[str, Reading]:
        column = self._tick % self._period
        self._tick += 1
        out: dict[str, Reading] = {}
        for row, metric in enumerate(self._metrics):
            missing = self._missing.get(metric)
            out[metric] = missing if missing is not None else Reading(
                self._walks[row][column], self._sources[row])
        return out


def rss_mb() -> float:
    return float(psutil.Process(os.getpid()).memory_info().rss) / 2**20


# The version 2 recording of the full run (24 h at 10 Hz, 4 GPUs), before version 3.
VERSION_2_FILE_MB_24H = 3448.0


def file_bytes(path: Path) -> int:
    """A recording's size: its main file and the -wal next to it, if any."""
    return sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())


def simulate(hours: float, rate_hz: float, gpus: int, record: bool,
             directory: Path, format_version: int = RECORDING_VERSION) -> dict[str, Any]:
    gpu_metrics = tuple(m.value for m in GPU_METRICS)
    host_metrics = (*(m.value for m in HOST_METRICS), *(cpu_core_metric(i) for i in range(16)))
    sources: list[BaseSource] = [
        WalkSource(f"0000:{0x10 * i + 3:02x}:00.0", gpu_metrics, True, seed=i)
        for i in range(gpus)]
    sources.append(WalkSource("host", host_metrics, False, seed=99, missing=0))
    clock = {"t": 1_700_000_000.0}
    period = 1.0 / rate_hz
    sampler = Sampler(sources, rate_hz=rate_hz, history_s=3600.0,
                      clock=lambda: clock["t"])
    recorder: Recorder | None = None
    path = directory / "memory_24h.sqlite"
    if record:
        recorder = Recorder(path, rate_hz=rate_hz, overwrite=True,
                            format_version=format_version)
        recorder.attach(sampler)
    ticks = int(hours * 3600 * rate_hz)
    warmup = min(ticks, int(60 * rate_hz))  # the first simulated minute
    checkpoints: list[dict[str, float]] = []
    started = time.perf_counter()
    baseline = 0.0
    try:
        for tick in range(ticks):
            clock["t"] += period
            sampler.tick()
            if recorder is not None and tick % 256 == 0:
                # Backpressure instead of simulated time: wait for the writer, never outrun it.
                recorder.wait_for_room(2048)
            if tick + 1 == warmup:
                gc.collect()
                baseline = rss_mb()
            if (tick + 1) % int(3600 * rate_hz) == 0:
                checkpoints.append({"simulated_h": round((tick + 1) / rate_hz / 3600, 2),
                                    "rss_mb": round(rss_mb(), 1),
                                    "wall_s": round(time.perf_counter() - started, 1)})
    finally:
        sampler.stop()
        if recorder is not None:
            recorder.close()
    gc.collect()
    final = rss_mb()
    ring_bytes = sum(ring.nbytes for ring in sampler.rings.values())
    result: dict[str, Any] = {
        "rss_growth_mb": round(final - baseline, 2),
        "target_mb": 50,
        "rss_after_warmup_mb": round(baseline, 1),
        "rss_end_mb": round(final, 1),
        "ring_buffers_mb": round(ring_bytes / 2**20, 1),
        "ticks": ticks,
        "simulated_hours": hours,
        "rate_hz": rate_hz,
        "gpus": gpus,
        "series": len(sampler.series),
        "wall_s": round(time.perf_counter() - started, 1),
        "record": record,
        "checkpoints": checkpoints,
        "python": sys.version.split()[0],
    }
    if recorder is not None:
        size_mb = file_bytes(path) / 2**20
        with open_recording(path) as recording:
            samples = recording.sample_count()
            version = int(recording.meta.version)
        result["recording"] = {
            "format_version": version,
            "ticks_written": recorder.ticks_written, "samples": samples,
            "dropped_ticks": recorder.dropped_ticks, "error": recorder.error,
            "file_mb": round(size_mb, 2),
            "bytes_per_sample": round(size_mb * 2**20 / max(samples, 1), 3),
            "file_mb_per_hour": round(size_mb / hours, 2) if hours > 0 else None,
            "file_mb_24h_estimate": round(size_mb * 24.0 / hours, 1) if hours > 0 else None,
            "file_target_mb_24h": round(VERSION_2_FILE_MB_24H / 8, 1)}
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hours", type=float, default=24.0)
    parser.add_argument("--rate", type=float, default=10.0)
    parser.add_argument("--gpus", type=int, default=4)
    parser.add_argument("--record", action="store_true",
                        help="also write every tick to an SQLite recording")
    parser.add_argument("--format-version", type=int, choices=(2, RECORDING_VERSION),
                        default=RECORDING_VERSION,
                        help="the recording format to write (2: the old, a row per sample)")
    parser.add_argument("--dir", help="where the recording goes (default: a temporary folder)")
    parser.add_argument("--json", action="store_true", help="JSON output (the only format)")
    args = parser.parse_args()
    if args.dir:
        result = simulate(args.hours, args.rate, args.gpus, args.record, Path(args.dir),
                          args.format_version)
    else:
        with tempfile.TemporaryDirectory() as directory:
            result = simulate(args.hours, args.rate, args.gpus, args.record, Path(directory),
                              args.format_version)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
