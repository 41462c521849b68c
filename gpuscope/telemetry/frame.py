"""What the Telemetry page shows in a frame, without Qt: the time view (following the newest
samples, or browsing a fixed range) and a window cache that gives, per device and metric, the
curve to draw and its statistics.

Charts plot seconds relative to an origin (`x_origin`: the frame's "now" while following, a
fixed time while browsing), never raw unix times, so that coordinates stay small; curves and
statistics are in display units (GiB, not bytes).

While following, each frame takes the window from each device's ring buffer and decimates it
to about two points per pixel column (`decimate_block`: spikes and gaps survive); between full
passes (about every 4 s, a few devices per frame) it appends the newer samples to the last
pass. While browsing, the visible range and one range-width on each side (so a drag shows
data at once) are decimated afresh only when the range, the width or the data in it change;
an opened recording's min/max pyramid makes that cheap however wide the range. A range too
narrow for a recording read on demand needs its samples: `view_samples` reads them (on the
page, off the GUI thread, the frame meanwhile drawing a stand-in from the finest summaries).
Statistics come from `window_stats` over the window or range on show.

How a curve's points are made is injected (`SeriesData`): the benchmark's naive page gives
the whole window undecimated.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from time import monotonic

import numpy as np
import numpy.typing as npt

from gpuscope.metrics import CATALOGUE, Metric
from gpuscope.telemetry.decimate import MinMaxPyramid, decimate_block
from gpuscope.telemetry.feed import FeedDevice, SummaryFeed, TelemetryFeed
from gpuscope.telemetry.recording_feed import RecordingRing
from gpuscope.telemetry.ring import RingView, SeriesRing
from gpuscope.telemetry.view_samples import ViewSamples
from gpuscope.telemetry.window_stats import (
    NO_STATS,
    WindowStats,
    row_means,
    value_near,
    window_stats,
)

FloatArray = npt.NDArray[np.float64]
Points = tuple[FloatArray, FloatArray]
# (times, block (series, samples), start, end, columns) -> per series, the points to draw.
SeriesData = Callable[[FloatArray, FloatArray, float, float, int], list[Points]]
# Per series name: its curve over a view and its stats there.
ViewCurves = dict[str, tuple[Points, WindowStats]]

MIN_VIEW_S = 5.0  # the narrowest range zooming in reaches
# The windows a following view narrows to when there is less data than the chosen window.
FIT_STEPS_S: tuple[int, ...] = (5, 10, 15, 20, 30, 45, 60, 90, 120, 180, 240, 300, 450, 600,
                                900, 1200, 1800, 2700, 3600)
BASE_REFRESH_S = 4.0  # following: a device's window is decimated afresh about this often
_EMPTY: Points = (np.empty(0), np.empty(0))


@dataclass(frozen=True, slots=True)
class TimeRange:
    """A visible range in unix seconds."""

    start_s: float
    end_s: float

    @property
    def width_s(self) -> float:
        return self.end_s - self.start_s


def clamp_range(start_s: float, end_s: float, first_s: float, last_s: float,
                min_width_s: float = MIN_VIEW_S, pad_s: float = 0.0) -> TimeRange:
    """[start, end] moved and narrowed to lie within the data [first, last + pad]: at least
    `min_width_s` wide, at most the whole data; a range past an end is shifted back, not
    cut, so that panning keeps its width."""
    low, high = first_s, last_s + pad_s
    if not (math.isfinite(start_s) and math.isfinite(end_s)):
        return TimeRange(low, high)
    if end_s < start_s:
        start_s, end_s = end_s, start_s
    width = min(max(end_s - start_s, min_width_s), max(high - low, min_width_s))
    centre = (start_s + end_s) / 2.0
    start = centre - width / 2.0
    start = min(max(start, low), high - width) if high - low >= width else low
    return TimeRange(start, start + width)


def fitted_window_s(window_s: float, span_s: float | None, *, fit_all: bool = False) -> float:
    """The window a following view shows: the chosen `window_s`, or, where the data span
    only `span_s` seconds, the step of FIT_STEPS_S just wider than that (seconds of data
    fill the chart instead of a sliver at "now" on a 5-minute axis); with `fit_all`, that
    step whatever the chosen window (whole hours past the last step). Steps, not the span
    itself, so that a live chart's axis changes now and then, not every frame."""
    if span_s is None or not math.isfinite(span_s):
        return float(window_s) if not fit_all else float(FIT_STEPS_S[0])
    span = max(span_s, 0.0)
    step = next((float(s) for s in FIT_STEPS_S if s >= span),
                3600.0 * math.ceil(span / 3600.0))
    return step if fit_all else min(float(window_s), step)


def take(ring: RingView, names: Sequence[str], since_s: float,
         until_s: float) -> tuple[FloatArray, FloatArray]:
    """Rows of `ring` with since_s <= time <= until_s, as (times, values[series, row])."""
    times, columns = ring.snapshot(since_s=since_s, series=names, until_s=until_s)
    block = np.empty((len(names), len(times)))
    for row, name in enumerate(names):
        block[row] = columns[name]
    return times, block


def feed_extent(feed: TelemetryFeed, devices: Sequence[FeedDevice],
                now: float) -> tuple[float, float] | None:
    """(first, last) sample time over `devices`; a live feed's last is "now"."""
    spans = [span for d in devices
             if (ring := feed.ring(d.key)) is not None and (span := ring.time_span())]
    if not spans:
        return None
    first = min(s[0] for s in spans)
    last = max(s[1] for s in spans)
    return first, max(last, now) if feed.live else last


@dataclass(frozen=True, slots=True)
class _Base:
    """Following: a device's last full decimation of its window."""

    key: tuple[float, int]  # (window, columns) it was decimated for
    last_time: float  # the newest sample it holds
    points: list[Points]  # per series: absolute times, stored values
    means: tuple[float | None, ...]  # per series, over the window, in stored units
    built_at: float  # the model's clock


@dataclass(frozen=True, slots=True)
class _Browsed:
    """Browsing: what a device's curves show, and its stats over the visible range."""

    key: tuple[float, float, int, float | None]  # (start, end, columns, newest sample)
    stats: tuple[WindowStats, ...]  # per charted series, in stored units
    stand_in: bool = False  # drawn from summaries while the samples are read


@dataclass
class TimeView:
    """Following the newest samples (the last `window_s`, or all with `fit_all`), or
    browsing the fixed range `view`; and where the frame on show puts x = 0."""

    window_s: int
    fit_all: bool = False
    following: bool = True
    view: TimeRange | None = None  # browsing: the range on show (unix seconds)
    origin: float = 0.0  # browsing: the time at x = 0
    x_origin: float = 0.0  # the time at x = 0 in the frame on show
    frame_window: float = 0.0
    frame_now: float | None = None  # the "now" of the frame on show

    @property
    def view_range(self) -> TimeRange | None:
        """The range on show, in unix seconds (None before the first frame)."""
        if not self.following:
            return self.view
        if self.frame_now is None:
            return None
        return TimeRange(self.frame_now - self.frame_window, self.frame_now)

    def follow(self) -> None:
        self.following = True
        self.view = None

    def browse(self, view: TimeRange, now: float) -> None:
        """Show `view`, not following; x = 0 stays where the frame on show put it."""
        if self.following:
            self.origin = self.x_origin if self.frame_now is not None else now
            self.following = False
        self.view = view
        self.x_origin = self.origin


@dataclass
class FrameModel:
    """The page's frame without its widgets: the feed's devices and their charted series,
    the time view, and per (device key, metric) the curve on show and its statistics."""

    window_s: int
    series_data: SeriesData = decimate_block
    # Reuse each device's decimated window between full passes (the naive page does not).
    reuse_windows: bool = True
    clock: Callable[[], float] = monotonic
    feed: TelemetryFeed | None = None
    devices: tuple[FeedDevice, ...] = ()
    # Per device: the (metric, series name) pairs charted from its ring.
    device_series: dict[str, list[tuple[Metric, str]]] = field(default_factory=dict)
    curves: dict[tuple[str, Metric], Points] = field(default_factory=dict)
    stats: dict[tuple[str, Metric], WindowStats] = field(default_factory=dict)
    time: TimeView = field(init=False)
    _bases: dict[str, _Base] = field(default_factory=dict)
    _browsed: dict[str, _Browsed] = field(default_factory=dict)
    # The view's samples of an on-demand recording, for all its devices at once: read when
    # asked, or on a worker thread where the page gives it an executor.
    view_samples: ViewSamples[ViewCurves] = field(default_factory=ViewSamples)

    def __post_init__(self) -> None:
        self.time = TimeView(self.window_s, frame_window=float(self.window_s))

    def reset(self, feed: TelemetryFeed | None, devices: Sequence[FeedDevice],
              device_series: dict[str, list[tuple[Metric, str]]]) -> None:
        """A new feed or device list: nothing cached is valid."""
        self.feed = feed
        self.devices = tuple(devices)
        self.device_series = device_series
        self.curves = {}
        self.stats = {}
        self.forget()

    def forget(self) -> None:
        """Drop the cached windows (the view changed how they are cut)."""
        self._bases = {}
        self._browsed = {}
        self.view_samples.forget()

    def extent(self, now: float | None = None) -> tuple[float, float] | None:
        feed = self.feed
        if feed is None:
            return None
        when = now if now is not None else (self.time.frame_now if self.time.frame_now
                                            is not None else feed.now_s())
        return feed_extent(feed, self.devices, when)

    # ------------------------------------------------------------------ following

    def draw_following(self, feed: TelemetryFeed, now: float, columns: int, force: bool,
                       texts_due: bool) -> set[str]:
        """Curves of every charted device over the window ending `now`; the keys of the
        devices whose curves changed."""
        view = self.time
        extent = feed_extent(feed, self.devices, now)
        window = fitted_window_s(view.window_s, now - extent[0] if extent else None,
                                 fit_all=view.fit_all)
        view.frame_window = window
        view.x_origin = now
        start = now - window
        key = (window, columns)
        # Enough before the window for the sample that carries the line to its left edge.
        slack = max(2.0 * window / columns, 5.0)
        clock = self.clock()
        bases = self._bases
        charted = [d for d in self.devices
                   if self.device_series.get(d.key) and feed.ring(d.key) is not None]
        # Decimate a device's whole window when its last one is unusable, and otherwise a few
        # devices per frame, stalest first, so each is redone about every 4 s without all
        # landing on one frame; other frames append only the samples newer than it.
        rebuild = {d.key for d in charted
                   if force or not self.reuse_windows or bases.get(d.key) is None
                   or bases[d.key].key != key or now < bases[d.key].last_time}
        quota = max(1, math.ceil(len(charted) / 12))
        for device in sorted((d for d in charted if d.key not in rebuild),
                             key=lambda d: bases[d.key].built_at)[:quota]:
            if clock - bases[device.key].built_at >= BASE_REFRESH_S:
                rebuild.add(device.key)
        for device in charted:
            pairs = self.device_series[device.key]
            ring = feed.ring(device.key)
            assert ring is not None
            names = [name for _, name in pairs]
            base = bases.get(device.key)
            if device.key in rebuild or base is None:
                times, block = take(ring, names, start - slack, now)
                results = self.series_data(times, block, start, now, columns)
                first = int(np.searchsorted(times, start, side="left"))
                last = float(times[-1]) if len(times) else start - slack
                bases[device.key] = _Base(key, last, results, row_means(block[:, first:]),
                                          clock)
            else:
                times, block = take(ring, names, base.last_time, now)
                fresh = int(np.searchsorted(times, base.last_time, side="right"))
                results = [(np.concatenate((x, times[fresh:])),
                            np.concatenate((y, block[row, fresh:])))
                           for row, (x, y) in enumerate(base.points)]
            self._set_curves(device.key, pairs, results, now)
        if texts_due:
            self.stats = {}
            for device in charted:
                base = bases[device.key]
                for row, (metric, _) in enumerate(self.device_series[device.key]):
                    self.stats[(device.key, metric)] = self._curve_stats(
                        device.key, metric, base.means[row])
        return {d.key for d in charted}

    def _set_curves(self, key: str, pairs: Sequence[tuple[Metric, str]],
                    results: Sequence[Points], origin: float) -> None:
        for (metric, _), (x, y) in zip(pairs, results, strict=True):
            scale = CATALOGUE[metric].display_scale
            self.curves[(key, metric)] = (x - origin, y * scale if scale != 1.0 else y)

    def _curve_stats(self, key: str, metric: Metric, mean: float | None) -> WindowStats:
        """Now/min/max from the curve on show (decimation keeps every column's extremes),
        the mean from the device's last full pass over the window."""
        x, y = self.curves.get((key, metric), _EMPTY)
        stats = window_stats(x, y[np.newaxis, :], -self.time.frame_window)[0]
        if stats is NO_STATS:
            return stats
        scale = CATALOGUE[metric].display_scale
        return WindowStats(stats.current, stats.minimum,
                           None if mean is None else mean * scale, stats.maximum)

    # ------------------------------------------------------------------ browsing

    def draw_browsing(self, feed: TelemetryFeed, columns: int, force: bool,
                      texts_due: bool) -> set[str]:
        """Curves over the browsed range and a range-width either side; the keys of the
        devices whose curves changed."""
        view = self.time.view
        if view is None:
            return set()
        origin = self.time.origin
        self.time.x_origin = origin
        self.time.frame_window = view.width_s
        # One range width either side, at the same density, so a drag shows data at once.
        lo, hi = view.start_s - view.width_s, view.end_s + view.width_s
        total_columns = columns * 3
        slack = max(2.0 * view.width_s / columns, 1e-3)
        changed: set[str] = set()
        for device in self.devices:
            pairs = self.device_series.get(device.key)
            ring = feed.ring(device.key)
            if not pairs or ring is None:
                continue
            span = ring.time_span()
            newest = span[1] if span is not None and span[1] >= lo else None
            key = (view.start_s, view.end_s, columns, newest)
            done = self._browsed.get(device.key)
            # The same range: redone only for new samples in it, and those at most once a
            # second (a live feed browsed near "now").
            if done is not None and not force and not done.stand_in and (
                    done.key == key or (done.key[:3] == key[:3] and not texts_due)):
                continue
            changed.add(device.key)
            names = [name for _, name in pairs]
            pyramid = feed.summary(device.key) if isinstance(feed, SummaryFeed) else None
            results, stats, stand_in = self._browse_data(ring, pyramid, names, lo, hi,
                                                         total_columns, view, slack)
            self._set_curves(device.key, pairs, results, origin)
            self._browsed[device.key] = _Browsed(key, stats, stand_in)
            for (metric, _), row_stats in zip(pairs, stats, strict=True):
                self.stats[(device.key, metric)] = row_stats.scaled(
                    CATALOGUE[metric].display_scale)
        return changed

    def _browse_data(self, ring: RingView, pyramid: MinMaxPyramid | None,
                     names: list[str], lo: float, hi: float, columns: int, view: TimeRange,
                     slack: float) -> tuple[list[Points], tuple[WindowStats, ...], bool]:
        """The curves over lo..hi and the stats over the view: from the pyramid when the
        range is wide, from the samples otherwise; and whether they are a stand-in drawn
        from the summaries while the samples are read."""
        if pyramid is not None:
            rows = [ring.series.index(name) for name in names]
            decimated = pyramid.decimate(lo, hi, columns, rows)
            summary = pyramid.stats(view.start_s, view.end_s) if decimated else None
            if decimated is not None and summary is not None:
                return decimated, tuple(summary[r] for r in rows), False
            if not isinstance(ring, SeriesRing):  # read from a file: only what is on show
                return self._browse_near(ring, pyramid, names, rows, lo, hi, columns, view,
                                         slack)
        times, block = take(ring, names, lo - slack, hi + slack)
        results = self.series_data(times, block, lo, hi, columns)
        return results, window_stats(times, block, view.start_s, view.end_s), False

    def _browse_near(self, ring: RingView, pyramid: MinMaxPyramid, names: list[str],
                     rows: list[int], lo: float, hi: float, columns: int, view: TimeRange,
                     slack: float) -> tuple[list[Points], tuple[WindowStats, ...], bool]:
        """A range too narrow for a recording's summaries: the samples of the view itself,
        and the range-width either side (off screen until a drag) from its finest summary
        blocks, so that a frame reads a third of what it holds. While the samples are read
        off the GUI thread, all of it from the finest summaries (a stand-in)."""
        third = max(1, columns // 3)
        around = (pyramid.decimate(lo, hi, columns, rows, finest=True)
                  or [_EMPTY] * len(rows))
        samples: ViewCurves | None = None
        if isinstance(ring, RecordingRing):
            samples = self._view_samples(ring, view, slack, third)
            if samples is None:  # being read
                summary = pyramid.stats(view.start_s, view.end_s)
                stats = (tuple(summary[r] for r in rows) if summary is not None
                         else (NO_STATS,) * len(rows))
                return around, stats, True
        if samples is not None and all(name in samples for name in names):
            centre = [samples[name][0] for name in names]
            stats = tuple(samples[name][1] for name in names)
        else:
            times, block = take(ring, names, view.start_s - slack, view.end_s + slack)
            centre = self.series_data(times, block, view.start_s, view.end_s, third)
            stats = window_stats(times, block, view.start_s, view.end_s)
        results: list[Points] = []
        for (x, y), (ax, ay) in zip(centre, around, strict=True):
            start = x[0] if len(x) else view.start_s
            end = x[-1] if len(x) else view.end_s
            before = int(np.searchsorted(ax, start, side="left"))
            after = int(np.searchsorted(ax, end, side="right"))
            results.append((np.concatenate((ax[:before], x, ax[after:])),
                            np.concatenate((ay[:before], y, ay[after:]))))
        return results, stats, False

    def _view_samples(self, ring: RecordingRing, view: TimeRange, slack: float, columns: int,
                      ) -> ViewCurves | None:
        """The curve and stats over the view of every charted series of the recording that
        `ring` reads, read and decimated once for all the frame's devices (they share one
        tick axis): the frame's other devices find theirs here. None while they are read on
        the worker thread."""
        feed = self.feed
        names = tuple(name for device in self.devices
                      if feed is not None
                      and isinstance(other := feed.ring(device.key), RecordingRing)
                      and other.recording is ring.recording
                      for _, name in self.device_series.get(device.key, ()))
        key = (id(ring.recording), view.start_s, view.end_s, columns, names)
        recording, series_data = ring.recording, self.series_data

        def read() -> ViewCurves:
            times, block = recording.read_block(names, view.start_s - slack,
                                                view.end_s + slack)
            curves = series_data(times, block, view.start_s, view.end_s, columns)
            stats = window_stats(times, block, view.start_s, view.end_s)
            return {name: (curve, stat)
                    for name, curve, stat in zip(names, curves, stats, strict=True)}

        return self.view_samples.get(key, read)

    # ------------------------------------------------------------------ reading

    def stats_of(self, key: str, metric: Metric) -> WindowStats:
        """Now (or last), min, avg, max of a device's metric over the window or range on
        show, in display units."""
        if self.time.following:
            return self.stats.get((key, metric), NO_STATS)
        if key not in self._browsed:
            return NO_STATS
        return self.stats.get((key, metric), NO_STATS)

    def curve(self, key: str, metric: Metric) -> Points | None:
        return self.curves.get((key, metric))

    def value_at(self, key: str, name: str, when_s: float, tolerance_s: float,
                 scale: float = 1.0) -> float | None:
        """A series' sample nearest `when_s` (within `tolerance_s`), times `scale`: the
        hover readout."""
        feed = self.feed
        ring = feed.ring(key) if feed is not None else None
        if ring is None or name not in ring.series:
            return None
        times, values = ring.snapshot(since_s=when_s - tolerance_s, series=(name,),
                                      until_s=when_s + tolerance_s)
        value = value_near(times, values[name], when_s, tolerance_s)
        return None if value is None else value * scale
