"""The recording format, old (version 2: a row per sample) against new (version 3: chunks
with summaries), on the same synthetic day written in one run.

    python benchmarks/recording_format.py --gpus 8 --hours 24 --rate 2

The day: `gpuscope.telemetry.feed.synthetic_telemetry(gpus, hours * 3600, rate, seed=...,
end_s=1.8e9, throttle=True, cores=4)` (eight metrics and a throttle-reason series per GPU,
the host's CPU and RAM and four cores), made to look like what sensors report: each series is
rounded to its sensor's step (utilization %, clocks in MHz and fan RPM to whole numbers,
bytes to whole bytes, temperatures to 0.001 °C, power to 0.001 W, host CPU % to 0.1, the
throttle bits as they are), and each tick time is late by a random 0 to 4 ms (a real
sampler's ticks are not exact). The same arrays are written twice, through
`write_recording` (the live writer path: ticks queued to the recorder's writer thread):
`format_version=2` ("old") and the default ("new").

Per format:

- bytes_per_sample: the file's size after close (main file and any -wal: everything in it,
  the pyramids/summaries and the index included) over the samples stored (finite values);
  also file_mb, samples (and samples_in_file, as the file counts them), ticks;
- write_cpu_ms_per_tick: process CPU time (every thread) of `write_recording` over the
  ticks; write_wall_s its wall time;
- open_s: wall time of `load_recording_feed(path)`, what the Telemetry page does to open a
  recording, after a gc.collect();
- read_hour_s: wall time of `open_recording(path).read(series, since, since + 3600)` for one
  GPU's power, the median over 5 different hours in the middle of the day, the file reopened
  each time (SQLite's cache starts empty; the OS file cache is warm, the file just written);
- browse_frame_ms_p95 (and _median, _max): the Telemetry page's frame without its widgets.
  A `FrameModel` is given the opened feed, its devices and their charted series as the page
  builds them (`ChartGrid.build`: the page's CHART_METRICS each device has in its ring), and
  browses the ranges of `benchmarks/dashboard.py --browse-hours` (all of it, then widths of
  span/4, /16, /64, /256 and 300 s at seeded random places, each followed by two pans);
  a frame is `model.time.browse(range, now)` then `model.draw_browsing(feed, 458, force=True,
  texts_due=True)`, 458 being the plot width in pixels of the 1100x750 page with 8 GPUs.
  Painting, the throttle and core strips and the overview are not timed: painting does not
  depend on the format; `benchmarks/dashboard.py --browse-hours H` times the painted page.
  As on the page, a range too narrow for a version 3 file's summaries has its samples read
  and decimated on a worker thread: its first frame draws a stand-in from the finest
  summaries, and a second frame, once they are read, draws the samples; both count as
  frames (the GUI thread draws both);
- browse_samples_ms_p95 (and _median, and browse_samples_reads, how many): for those
  ranges, the wall time from the browse to the end of the frame that draws the samples
  (what the reading off the GUI thread costs, seen as a wait).

Prints one JSON object: gpus, hours, rate_hz, old and new (the fields above), targets for
the new format, cpu_count and load_average_1min. `--new-only` skips the old format.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import re
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from gpuscope.metrics import CATALOGUE, Metric, split_series_name, stored_unit
from gpuscope.telemetry.feed import FeedDevice, RingFeed, synthetic_telemetry
from gpuscope.telemetry.feed_adapters import load_recording_feed
from gpuscope.telemetry.frame import MIN_VIEW_S, FrameModel, TimeRange, clamp_range
from gpuscope.telemetry.recorder import write_recording
from gpuscope.telemetry.recording import open_recording
from gpuscope.telemetry.recording_meta import RecordingError
from gpuscope.telemetry.view_samples import ViewSamples

FloatArray = npt.NDArray[np.float64]
DeviceSeries = dict[str, list[tuple[Metric, str]]]

# The plot width, in pixel columns, of the 1100x750 Telemetry page charting 8 GPUs (measured
# on the page: `ChartGrid.plot_columns()`).
PLOT_COLUMNS = 458
PAGE_WINDOW_S = 300  # the page's DEFAULT_WINDOW_S: browsing does not use it
MAX_JITTER_S = 0.004
READ_HOURS = 5
TARGETS = {"bytes_per_sample": 4, "open_s": 2, "browse_frame_ms_p95": 33}

# Decimals each sensor reports, by metric id; a metric not listed is rounded by its stored
# unit (`_UNIT_DECIMALS`), and one of neither is written as it is (the throttle bits).
_METRIC_DECIMALS: dict[str, int] = {
    Metric.GPU_UTIL_PERCENT.value: 0, Metric.FAN_PERCENT.value: 0,
    Metric.HOST_CPU_PERCENT.value: 1,
}
_CORE_METRIC = re.compile(r"cpu\d+_percent")  # host CPU cores: like the host's CPU %
_UNIT_DECIMALS: dict[str, int] = {"MHz": 0, "RPM": 0, "B": 0, "B/s": 0, "°C": 3, "W": 3}


def sensor_decimals(metric_id: str) -> int | None:
    """Decimals a sensor of `metric_id` reports (None: its values are kept as they are)."""
    if metric_id in _METRIC_DECIMALS:
        return _METRIC_DECIMALS[metric_id]
    if _CORE_METRIC.fullmatch(metric_id):
        return 1
    return _UNIT_DECIMALS.get(stored_unit(metric_id))


def synthetic_day(gpus: int, hours: float, rate_hz: float, seed: int,
                  ) -> tuple[FloatArray, dict[str, FloatArray], dict[str, str]]:
    """(tick times, series name -> values rounded to the sensor's step, why a series is
    missing) of the benchmark's day."""
    data = synthetic_telemetry(gpus, hours * 3600.0, rate_hz, seed=seed, end_s=1.8e9,
                               throttle=True, cores=4)
    rng = np.random.default_rng(seed + 1)
    jitter_s = min(MAX_JITTER_S, 0.25 / rate_hz)
    times = data.times + rng.uniform(0.0, jitter_s, len(data.times))
    columns: dict[str, FloatArray] = {}
    for device in data.values.values():
        for name, values in device.items():
            decimals = sensor_decimals(split_series_name(name)[1])
            columns[name] = values if decimals is None else np.round(values, decimals)
    reasons = {name: reading.missing_reason for name, reading in data.readings.items()
               if reading.missing_reason}
    return times, columns, reasons


def file_bytes(path: Path) -> int:
    """The recording's size: its main file and the -wal next to it, if any."""
    return sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())


def write(path: Path, times: FloatArray, columns: Mapping[str, FloatArray],
          reasons: Mapping[str, str], rate_hz: float, format_version: int) -> dict[str, Any]:
    gc.collect()
    cpu_started = time.process_time()
    started = time.perf_counter()
    write_recording(path, times, columns, rate_hz=rate_hz, reasons=reasons, overwrite=True,
                    format_version=format_version)
    wall_s = time.perf_counter() - started
    cpu_s = time.process_time() - cpu_started
    return {"write_wall_s": round(wall_s, 2),
            "write_cpu_ms_per_tick": round(cpu_s * 1000.0 / len(times), 4)}


def device_series(feed: RingFeed, devices: tuple[FeedDevice, ...]) -> DeviceSeries:
    """Per device, the (metric, series) pairs the page charts from its ring: what
    `ChartGrid.build` returns for the page's CHART_METRICS."""
    from gpuscope.ui.telemetry.page import CHART_METRICS  # Qt modules, no widget made

    pairs: DeviceSeries = {}
    rings = {d.key: feed.ring(d.key) for d in devices}
    for metric in CHART_METRICS:
        host = CATALOGUE[metric].host
        for device in devices:
            ring = rings[device.key]
            name = f"{device.key}/{metric.value}"
            if (device.gpu_index is None) == host and ring is not None and name in ring.series:
                pairs.setdefault(device.key, []).append((metric, name))
    return pairs


def browse_ranges(first: float, last: float, seed: int) -> list[tuple[float, float]]:
    """The ranges browsed here and by `benchmarks/dashboard.py`'s browse(): all of it, then
    zooms at seeded random places, each followed by two pans of up to a fifth of its
    width."""
    span = last - first
    rng = np.random.default_rng(seed)
    ranges: list[tuple[float, float]] = [(first, last)]
    for width in (span / 4, span / 16, span / 64, span / 256, 300.0):
        for _ in range(4):
            start = first + rng.uniform(0, max(span - width, 0.0))
            ranges.append((start, start + width))
            for _ in range(2):
                start = min(max(first, start + rng.uniform(-0.2, 0.2) * width), last - width)
                ranges.append((start, start + width))
    return ranges


def browse_frames_ms(feed: RingFeed, seed: int) -> tuple[list[float], list[float]]:
    """Wall milliseconds of each browsing frame of the page's frame model over `feed`, and
    of each wait for a range's samples to be on show.

    As on the page, a range too narrow for the summaries has its samples read on a worker
    thread (`ViewSamples` with a one-thread executor): its first frame draws a stand-in,
    and once the samples are read a second frame draws them. Both are frames; the second
    list holds, for those ranges, the time from the browse to the end of the second frame."""
    devices = tuple(feed.devices())
    ready = threading.Event()
    with ThreadPoolExecutor(max_workers=1) as executor:
        model = FrameModel(PAGE_WINDOW_S)
        model.view_samples = ViewSamples(executor, on_ready=ready.set)
        model.reset(feed, devices, device_series(feed, devices))
        now = feed.now_s()
        # As after the page's first frame, which follows the newest samples: x = 0 is "now".
        model.time.frame_now = model.time.x_origin = now
        extent = model.extent(now)
        if extent is None:
            return [], []
        first, last = extent
        frames: list[float] = []
        exact: list[float] = []
        for start, end in browse_ranges(first, last, seed):
            shown = clamp_range(start, end, first, last,
                                min(MIN_VIEW_S, max(last - first, 1e-3)))
            ready.clear()
            began = time.perf_counter()
            model.time.browse(TimeRange(shown.start_s, shown.end_s), now)
            model.draw_browsing(feed, PLOT_COLUMNS, force=True, texts_due=True)
            frames.append((time.perf_counter() - began) * 1000.0)
            if model.view_samples.pending:
                ready.wait(30.0)
                redrawn = time.perf_counter()
                model.draw_browsing(feed, PLOT_COLUMNS, force=True, texts_due=True)
                done = time.perf_counter()
                frames.append((done - redrawn) * 1000.0)
                exact.append((done - began) * 1000.0)
    return frames, exact


def read_hours_s(path: Path, series: str) -> list[float]:
    """Wall seconds of reading an hour of `series` at READ_HOURS places in the middle of the
    day, the file reopened for each."""
    with open_recording(path) as recording:
        extent = recording.time_range()
    if extent is None:
        return []
    first, last = extent
    room = max(last - first - 3600.0, 0.0)
    walls = []
    for index in range(READ_HOURS):
        since = first + room * (0.3 + 0.1 * index)  # from 30% to 70% of the way
        started = time.perf_counter()
        recording = open_recording(path)
        recording.read(series, since, since + 3600.0)
        walls.append(time.perf_counter() - started)
        recording.close()
    return walls


def measure(path: Path, samples: int, ticks: int, written: dict[str, Any], series: str,
            seed: int) -> dict[str, Any]:
    """The figures of one written recording (the file, opening, reading, browsing)."""
    size = file_bytes(path)
    with open_recording(path) as recording:
        version = int(recording.meta.version)
        samples_in_file = recording.sample_count()
    gc.collect()
    started = time.perf_counter()
    feed = load_recording_feed(path)
    open_s = time.perf_counter() - started
    frames, exact = browse_frames_ms(feed, seed)
    del feed
    gc.collect()
    reads = read_hours_s(path, series)
    return {
        "format_version": version,
        "bytes_per_sample": round(size / max(samples, 1), 3),
        **written,
        "open_s": round(open_s, 3),
        "read_hour_s": round(statistics.median(reads), 4) if reads else None,
        "read_hour_series": series,
        "browse_frame_ms_p95": round(float(np.percentile(frames, 95)), 2) if frames else None,
        "browse_frame_ms_median": round(statistics.median(frames), 2) if frames else None,
        "browse_frame_ms_max": round(max(frames), 2) if frames else None,
        "browse_frames": len(frames),
        "browse_samples_ms_p95": (round(float(np.percentile(exact, 95)), 2) if exact
                                  else None),
        "browse_samples_ms_median": round(statistics.median(exact), 2) if exact else None,
        "browse_samples_reads": len(exact),
        "file_mb": round(size / 2**20, 2),
        "samples": samples,
        "samples_in_file": samples_in_file,
        "ticks": ticks,
    }


def run(gpus: int, hours: float, rate_hz: float, seed: int, folder: Path,
        new_only: bool) -> dict[str, Any]:
    times, columns, reasons = synthetic_day(gpus, hours, rate_hz, seed)
    samples = int(sum(np.count_nonzero(np.isfinite(v)) for v in columns.values()))
    ticks = len(times)
    series = next((n for n in columns if n.endswith(f"/{Metric.POWER_W.value}")),
                  next(iter(columns)))
    formats = {"new": 3} if new_only else {"old": 2, "new": 3}
    paths = {label: folder / f"recording_format_v{version}.sqlite"
             for label, version in formats.items()}
    written = {label: write(paths[label], times, columns, reasons, rate_hz, version)
               for label, version in formats.items()}
    del times, columns
    gc.collect()
    result: dict[str, Any] = {"gpus": gpus, "hours": hours, "rate_hz": rate_hz,
                              "series": None, "seed": seed}
    for label in formats:
        result[label] = measure(paths[label], samples, ticks, written[label], series, seed)
    with open_recording(paths["new"]) as recording:
        result["series"] = len(recording.series)
    if "old" in result:
        result["old_to_new_size"] = round(result["old"]["file_mb"]
                                          / max(result["new"]["file_mb"], 1e-9), 2)
    result.update({"targets": TARGETS, "plot_columns": PLOT_COLUMNS,
                   "tick_jitter_ms": round(min(MAX_JITTER_S, 0.25 / rate_hz) * 1000.0, 3),
                   "cpu_count": os.cpu_count(),
                   "load_average_1min": round(os.getloadavg()[0], 2),
                   "python": sys.version.split()[0]})
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gpus", type=int, default=8)
    parser.add_argument("--hours", type=float, default=24.0)
    parser.add_argument("--rate", type=float, default=2.0, help="samples per second")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dir", help="where the recordings go, kept (default: a temporary "
                                      "folder, removed)")
    parser.add_argument("--new-only", action="store_true",
                        help="write and measure only the new format (quicker)")
    parser.add_argument("--json", action="store_true", help="JSON output (the only format)")
    args = parser.parse_args()
    if not (args.gpus >= 1 and 0 < args.hours < math.inf and 0 < args.rate < math.inf):
        parser.error("--gpus, --hours and --rate must be positive numbers")
    try:
        if args.dir:
            folder = Path(args.dir)
            folder.mkdir(parents=True, exist_ok=True)
            result = run(args.gpus, args.hours, args.rate, args.seed, folder, args.new_only)
        else:
            with tempfile.TemporaryDirectory() as temporary:
                result = run(args.gpus, args.hours, args.rate, args.seed, Path(temporary),
                             args.new_only)
    except (RecordingError, OSError) as exc:
        print(f"recording_format: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
