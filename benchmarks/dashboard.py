"""Frame time of the Telemetry page, offscreen, with a long history in its ring buffers.

    python benchmarks/dashboard.py --gpus 8 --minutes 60 --json

The page (1100x750, 60 min window) charts N GPUs x 8 metrics and the host from ring buffers
holding `--minutes` of telemetry-like traces at `--rate` Hz (workload steps, lagging
temperatures, spikes, NaN gaps: `gpuscope.telemetry.feed.synthetic_telemetry`). Between
frames the rings get the samples a sampler would have added in 1/4 s (the page's redraw
period), untimed. A frame, timed with perf_counter: take the window from every ring, update
every chart (`page.redraw()`), and paint the whole page synchronously (`page.grab()`). The
page's once-a-second text refresh runs on a clock stepped 1/4 s per frame, so every fourth
frame also rebuilds legends and y ranges, as it would live.

Each device's window is decimated in full once a second (with the texts); the frames in
between append the few newer samples to that. `full_decimation_frame_ms_median` is the page
decimating the whole window every frame, for comparison.

The same page is then measured "naive": every curve a PlotDataItem fed the whole window
with pyqtgraph's own clipToView + autoDownsample(method='peak') and y auto-range. The three
pages differ only in the drawing strategy they are given (`TelemetryPage(drawing=...)`).

The fast page, the full-decimation page and the naive page are measured in turn, frame by
frame, over one feed, so that they see the same samples and the same machine load.

With `--browse-hours H`, it also writes a recording of H hours of N GPUs at `--browse-rate`
Hz, opens it as the page does (`load_recording_feed`: a version 3 file is read on demand,
its min/max pyramids from the summaries stored in it) and times browsing it: a frame is set
a range (all of it, then zooms from hours to minutes at places across it, and pans), redraw,
and repaint the page synchronously. A range whose samples the page reads off the GUI thread
gives two frames: the stand-in, and (after waiting for the samples) the redraw with them.
Fields `browse_load_s`, `browse_frame_ms_median`, `browse_frame_ms_p95`, `browse_frame_ms_max`,
and the same frames without the pyramids (`browse_raw_frame_ms_median`, the samples decimated
every time) for comparison.

Prints JSON: frame_ms_median, frame_ms_p95, frame_ms_median_1gpu, naive_frame_ms_median,
speedup_vs_naive, rss_mb (after the history is filled and the page drawn), and details,
among them CPU milliseconds per frame (`cpu_ms_*`), which other processes on the machine
disturb less than wall time, and the load average at the end.
Targets on the project's 2-core machine: median <= 50 ms, p95 <= 80 ms, 1 GPU <= 16 ms,
speedup >= 5.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

os.environ["QT_QPA_PLATFORM"] = "offscreen"

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from recording_format import browse_ranges  # this folder, first on sys.path

from gpuscope.telemetry.feed import RingFeed, SyntheticTelemetry, synthetic_telemetry
from gpuscope.telemetry.feed_adapters import load_recording_feed
from gpuscope.telemetry.recorder import write_recording
from gpuscope.ui.telemetry.drawing import CurveDrawing
from gpuscope.ui.telemetry.page import TelemetryChart, TelemetryPage

REDRAW_PERIOD_S = 0.25  # the page's default 4 Hz
PAGE_SIZE = (1100, 750)


class FullDecimation(CurveDrawing):
    """The fast page's drawing, but decimating the whole window on every frame (no
    reuse)."""

    reuse_windows = False


class NaiveDrawing(CurveDrawing):
    """Curves are PlotDataItems given whole arrays, downsampled and clipped by pyqtgraph,
    with pyqtgraph's y auto-range."""

    reuse_windows = False
    page_sets_y_range = False

    def new_curve(self, chart: TelemetryChart, pen: object) -> pg.GraphicsObject:
        curve = pg.PlotDataItem(pen=pen, antialias=False)
        curve.setClipToView(True)
        curve.setDownsampling(auto=True, method="peak")
        chart.plot_item.enableAutoRange(axis="y")
        return curve

    def series_data(self, times: Any, block: Any, start: float, end: float,
                    columns: int) -> list[tuple[Any, Any]]:
        return [(times, block[row]) for row in range(block.shape[0])]


def rss_mb() -> float:
    with open("/proc/self/statm") as handle:
        pages = int(handle.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def build_page(drawing: type[CurveDrawing], feed: RingFeed,
               clock: Callable[[], float]) -> TelemetryPage:
    page = TelemetryPage(drawing=drawing())
    page.clock = clock
    page.resize(*PAGE_SIZE)
    page.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
    page.show()
    page.set_window_s(3600)
    page.set_feed(feed)
    for _ in range(3):
        QApplication.sendPostedEvents()
        QApplication.processEvents()
    page.timer.stop()  # frames are driven here, one after another
    return page


def measure(drawings: Sequence[type[CurveDrawing]], data: SyntheticTelemetry,
            history_rows: int, rate_hz: float, frames: int, warmup: int,
            after_fill: Callable[[], None] | None = None,
            ) -> tuple[list[dict[str, list[float]]], list[TelemetryPage], dict[str, Any]]:
    """Frames of each page in turn over one feed: the same samples, and the same machine
    load for every page, frame by frame. Per page: wall and CPU milliseconds per frame."""
    rings = data.rings(history_rows, capacity=history_rows)
    cursor = {"row": history_rows, "clock": 0.0}
    # Live, as a sampler's feed is: "now" moves on with the samples added between frames.
    feed = RingFeed(data.devices, rings, latest=data.latest,
                    now=lambda: float(data.times[cursor["row"] - 1]), live=True,
                    label="Benchmark (synthetic traces)")
    pages = []
    for drawing in drawings:
        pages.append(build_page(drawing, feed, lambda: cursor["clock"]))
        if after_fill is not None and len(pages) == 1:
            after_fill()
    per_frame = rate_hz * REDRAW_PERIOD_S
    results: list[dict[str, list[float]]] = [{"wall": [], "cpu": []} for _ in pages]
    owed = 0.0
    gc.collect()
    for frame in range(warmup + frames):
        owed += per_frame
        rows = int(owed)
        owed -= rows
        stop = min(cursor["row"] + rows, len(data.times))
        data.append(rings, cursor["row"], stop)
        cursor["row"] = stop
        cursor["clock"] += REDRAW_PERIOD_S
        for page, result in zip(pages, results, strict=True):
            QApplication.processEvents()  # what the event loop does between two ticks
            cpu = time.process_time()
            started = time.perf_counter()
            page.redraw()
            page.grab()
            wall = (time.perf_counter() - started) * 1000.0
            if frame >= warmup:
                result["wall"].append(wall)
                result["cpu"].append((time.process_time() - cpu) * 1000.0)
    first = pages[0]
    points = [len(chart.curve_data[key][0]) for chart in first.charts.values()
              for key in chart.curve_data]
    details = {
        "charts": len(first.charts),
        "curves": sum(len(chart.curves) for chart in first.charts.values()),
        "points_per_curve_median": int(np.median(points)) if points else 0,
        "ring_mb": round(sum(r.nbytes for r in rings.values()) / 2**20, 1),
    }
    return results, pages, details


def close(page: TelemetryPage) -> None:
    page.shutdown()
    page.close()
    page.deleteLater()
    QApplication.sendPostedEvents()
    QApplication.processEvents()


def browse(gpus: int, hours: float, rate_hz: float, seed: int) -> dict[str, Any]:
    """Write a recording, open it as the page does, and time browsing through it."""
    with tempfile.TemporaryDirectory() as folder:
        # Browsed while the file is there: a version 3 recording is read as the page asks.
        return _browse_recording(Path(folder) / "browse.sqlite", gpus, hours, rate_hz, seed)


def _browse_recording(path: Path, gpus: int, hours: float, rate_hz: float,
                      seed: int) -> dict[str, Any]:
    data = synthetic_telemetry(gpus, hours * 3600.0, rate_hz, seed=seed, end_s=1.8e9,
                               throttle=True, cores=4)
    columns = {name: values for device in data.values.values()
               for name, values in device.items()}
    started = time.perf_counter()
    write_recording(path, data.times, columns, rate_hz=rate_hz)
    write_s = time.perf_counter() - started
    file_mb = sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists()) / 2**20
    del data, columns
    gc.collect()
    started = time.perf_counter()
    feed = load_recording_feed(path)
    load_s = time.perf_counter() - started
    first, last = min(r.time_span()[0] for d in feed.devices()  # type: ignore[index]
                      if (r := feed.ring(d.key)) is not None), feed.now_s()
    ranges = browse_ranges(first, last, seed)  # the same as recording_format.py's
    pyramids = {d.key: feed.summary(d.key) for d in feed.devices()}
    pyramid_mb = sum(p.nbytes for p in pyramids.values() if p is not None) / 2**20
    results = {}
    for label, use in (("pyramid", True), ("raw", False)):
        if not use:
            feed._summaries = {}  # the same feed without its pyramids
        page = build_page(CurveDrawing, feed, time.monotonic)
        walls: list[float] = []
        for start, end in ranges:
            QApplication.processEvents()
            began = time.perf_counter()
            page.set_view_range(start, end)  # redraws at once
            page.grab()
            walls.append((time.perf_counter() - began) * 1000.0)
            if page.frame.view_samples.pending:  # a stand-in: the samples are being read
                page.frame.view_samples.wait(30.0)
                began = time.perf_counter()
                page.redraw(force=True)  # what the page does once they are
                page.grab()
                walls.append((time.perf_counter() - began) * 1000.0)
        close(page)
        results[label] = walls
    return {
        "browse_hours": hours, "browse_rate_hz": rate_hz, "browse_frames": len(ranges),
        "browse_write_s": round(write_s, 2), "browse_file_mb": round(file_mb, 1),
        "browse_load_s": round(load_s, 2), "browse_pyramid_mb": round(pyramid_mb, 1),
        "browse_frame_ms_median": round(statistics.median(results["pyramid"]), 2),
        "browse_frame_ms_p95": round(float(np.percentile(results["pyramid"], 95)), 2),
        "browse_frame_ms_max": round(max(results["pyramid"]), 2),
        "browse_raw_frame_ms_median": round(statistics.median(results["raw"]), 2),
        "browse_raw_frame_ms_p95": round(float(np.percentile(results["raw"], 95)), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gpus", type=int, default=8)
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--rate", type=float, default=10.0, help="samples per second")
    parser.add_argument("--frames", type=int, default=60)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="JSON output (the only format)")
    parser.add_argument("--browse-hours", type=float, default=0.0,
                        help="also time browsing a recording of this many hours (0: not)")
    parser.add_argument("--browse-rate", type=float, default=2.0,
                        help="samples per second of that recording (default 2)")
    args = parser.parse_args()

    _app = QApplication.instance() or QApplication([sys.argv[0]])
    history_rows = round(args.minutes * 60 * args.rate)
    extra_s = (args.warmup + args.frames + 2) * REDRAW_PERIOD_S
    seconds = args.minutes * 60 + extra_s

    data = synthetic_telemetry(args.gpus, seconds, args.rate, seed=args.seed, end_s=1.8e9)
    rss: dict[str, float] = {}
    results, pages, details = measure(
        (CurveDrawing, FullDecimation, NaiveDrawing), data, history_rows, args.rate,
        args.frames, args.warmup, after_fill=lambda: rss.setdefault("mb", rss_mb()))
    for page in pages:
        close(page)
    fast, full, naive = results
    del data, pages
    gc.collect()

    one = synthetic_telemetry(1, seconds, args.rate, seed=args.seed, end_s=1.8e9)
    one_results, pages, one_details = measure((CurveDrawing,), one, history_rows, args.rate,
                                              args.frames, args.warmup)
    for page in pages:
        close(page)

    def median(values: list[float]) -> float:
        return round(statistics.median(values), 2)

    result = {
        "gpus": args.gpus,
        "minutes": args.minutes,
        "rate_hz": args.rate,
        "page_size": f"{PAGE_SIZE[0]}x{PAGE_SIZE[1]}",
        "window_s": 3600,
        "frames": len(fast["wall"]),
        "frame_ms_median": median(fast["wall"]),
        "frame_ms_p95": round(float(np.percentile(fast["wall"], 95)), 2),
        "frame_ms_max": round(max(fast["wall"]), 2),
        "frame_ms_median_1gpu": median(one_results[0]["wall"]),
        "naive_frame_ms_median": median(naive["wall"]),
        "speedup_vs_naive": round(statistics.median(naive["wall"])
                                  / statistics.median(fast["wall"]), 2),
        "rss_mb": round(rss["mb"], 1),
        "full_decimation_frame_ms_median": median(full["wall"]),
        "cpu_ms_median": median(fast["cpu"]),
        "cpu_ms_p95": round(float(np.percentile(fast["cpu"], 95)), 2),
        "cpu_ms_median_1gpu": median(one_results[0]["cpu"]),
        "naive_cpu_ms_median": median(naive["cpu"]),
        "charts": details["charts"],
        "curves": details["curves"],
        "points_per_curve_median": details["points_per_curve_median"],
        "ring_mb": details["ring_mb"],
        "charts_1gpu": one_details["charts"],
        "cpu_count": os.cpu_count(),
        "load_average_1min": round(os.getloadavg()[0], 2),
        "targets": {"frame_ms_median": 50, "frame_ms_p95": 80, "frame_ms_median_1gpu": 16,
                    "speedup_vs_naive": 5},
    }
    if args.browse_hours > 0:
        result.update(browse(args.gpus, args.browse_hours, args.browse_rate, args.seed))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
