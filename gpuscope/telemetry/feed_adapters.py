"""The live sampler and saved recordings as `TelemetryFeed`s (for the Telemetry page and the
share report).

A version 3 recording is read on demand (`recording_feed`): opening reads its stored
summaries, never its samples. Older recordings are read whole into ring buffers, with a
min/max pyramid of every long ring; that takes seconds for a long one, so the page opens
recordings on a thread of its own (`telemetry_loader.RecordingLoader`).
"""

from __future__ import annotations

import datetime as _dt
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from gpuscope.metrics import HOST_DEVICE, ProcessSnapshot, Reading
from gpuscope.model import Gpu
from gpuscope.telemetry.decimate import PYRAMID_MIN_ROWS, MinMaxPyramid
from gpuscope.telemetry.feed import FeedDevice, RingFeed, gpu_label, host_label
from gpuscope.telemetry.recorder import LoadCancelled, open_recording
from gpuscope.telemetry.recording_feed import recording_pyramids, recording_rings
from gpuscope.telemetry.ring import RingView, SeriesRing
from gpuscope.telemetry.sampler import Sampler
from gpuscope.telemetry.texts import LabelText, feed_text, joined, verbatim

# Progress of a load: (fraction done 0..1, what is being done).
LoadProgress = Callable[[float, LabelText], None]
# Reading the samples is most of the work; building the pyramids the rest.
_READ_SHARE = 0.85


def _gpu_device(key: str, gpus: Sequence[Gpu], fallback_label: str) -> FeedDevice:
    gpu = next((g for g in gpus if g.pci_bus == key), None)
    if gpu is None:
        return FeedDevice(key, verbatim(fallback_label), None)
    return FeedDevice(key, gpu_label(gpu.index, gpu.name or key), gpu.index)


def capture_time_s(captured_utc: str | None) -> float | None:
    """A snapshot's capture time ("2026-11-27T02:31:05+00:00", as `Origin.captured_utc`
    holds it) in unix seconds; None when absent or unreadable."""
    if not captured_utc:
        return None
    try:
        when = _dt.datetime.fromisoformat(captured_utc.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=_dt.timezone.utc)
    return when.timestamp()


class SamplerFeed:
    """A running `Sampler`, read on the page's own timer (never pushed). A `label` given as
    a string is shown as it is (translated already); `report_label` is the report's.
    `repeats_capture`: the sampler reads a replayed snapshot, whose single readings it
    repeats; they are shown "at capture" (`captured_utc`, the snapshot's capture time)."""

    def __init__(self, sampler: Sampler, gpus: Sequence[Gpu],
                 label: LabelText | str | None = None,
                 report_label: str | None = None, *, repeats_capture: bool = False,
                 captured_utc: str | None = None) -> None:
        self._sampler = sampler
        self._repeats_capture = repeats_capture  # a replay: captured values, repeated
        self._captured_at_s = capture_time_s(captured_utc)
        self._gpus = tuple(gpus)
        self._label = (label if not isinstance(label, str) else
                       verbatim(label) if label else None)
        self._report_label = report_label

    def devices(self) -> Sequence[FeedDevice]:
        devices = []
        for key, state in self._sampler.device_state.items():
            if key == HOST_DEVICE:
                devices.append(FeedDevice(key, host_label(), None))
                continue
            device = _gpu_device(key, self._gpus, state.label)
            lost = state.reason if state.status in ("lost", "error") else None
            devices.append(FeedDevice(device.key, device.name, device.gpu_index, lost))
        return devices

    def ring(self, device_key: str) -> SeriesRing | None:
        return self._sampler.rings.get(device_key)

    def latest(self, series: str) -> Reading | None:
        return self._sampler.latest.get(series)

    def processes(self, device_key: str) -> ProcessSnapshot | None:
        return self._sampler.processes.get(device_key)

    def now_s(self) -> float:
        return time.time()

    @property
    def live(self) -> bool:
        return True

    @property
    def pausable(self) -> bool:
        return not self._repeats_capture

    @property
    def at_capture(self) -> bool:
        return self._repeats_capture

    @property
    def captured_at_s(self) -> float | None:
        return self._captured_at_s

    @property
    def label(self) -> LabelText:
        return self._label or feed_text("Live, {rate} Hz", rate=f"{self._sampler.rate_hz:g}")

    @property
    def report_label(self) -> str:
        """`label` in English, for the share report."""
        return self._report_label or self.label.english()


def _local(time_s: float, fmt: str = "%Y-%m-%d %H:%M:%S") -> str:
    return time.strftime(fmt, time.localtime(time_s))


def recording_label(path: str | Path, span: tuple[float, float] | None,
                    complete: bool) -> LabelText:
    """"Recording r.sqlite, 2026-11-22 10:00:00 to 10:05:00 CET" (local time)."""
    name = Path(path).name
    if span is None:
        text = feed_text("Recording {name}, empty", name=name)
    else:
        same_day = _local(span[0], "%Y-%m-%d") == _local(span[1], "%Y-%m-%d")
        end = _local(span[1], "%H:%M:%S %Z" if same_day else "%Y-%m-%d %H:%M:%S %Z")
        text = feed_text("Recording {name}, {start} to {end}", name=name,
                         start=_local(span[0]), end=end)
    if not complete:
        text = joined(text, feed_text("(the recorder stopped without closing it)"))
    return text


def load_recording_feed(path: str | Path, progress: LoadProgress | None = None,
                        cancelled: Callable[[], bool] | None = None) -> RingFeed:
    """A recording to scroll and zoom through, with a min/max pyramid of each device.
    Version 3: read on demand, the pyramids from the stored summaries (the file stays open
    while the feed lives); older files: read whole into ring buffers, the pyramids built
    from them. `progress(fraction, what)` follows the load; `cancelled()` ends it with
    LoadCancelled. Raises RecordingError (one line) for a file that is not a readable
    recording."""

    def read_progress(done: int, total: int) -> None:
        if progress is not None:
            progress(_READ_SHARE * done / max(total, 1),
                     feed_text("reading series {done} of {total}", done=done, total=total))

    recording = open_recording(path)
    try:
        rings: Mapping[str, RingView]
        if recording.chunked:
            if progress is not None:
                progress(0.0, feed_text("reading the summaries"))
            rings = recording_rings(recording)
            summaries = recording_pyramids(recording, rings, cancelled)
        else:
            rings = recording.load_into_rings(progress=read_progress, cancelled=cancelled)
            summaries = _pyramids_of(rings, path, progress, cancelled)
        labels = recording.device_labels()
        reason_changes = recording.missing_reasons()
        sources = {info.name: info.source for info in recording.series}
        span = recording.time_range()
        complete = recording.meta.complete
        inventory = recording.meta.inventory if isinstance(recording.meta.inventory, dict) else {}
    finally:
        if not recording.chunked:
            recording.close()
    if progress is not None:
        progress(1.0, feed_text("done"))
    listed = inventory.get("gpus")
    gpus_json = listed if isinstance(listed, list) else []
    index_by_bus = {g.get("pci_bus"): g.get("index") for g in gpus_json if isinstance(g, dict)}
    devices = []
    taken = {i for i in index_by_bus.values() if isinstance(i, int)}
    spare = (i for i in range(len(rings) + len(taken)) if i not in taken)
    for key in rings:
        if key == HOST_DEVICE:
            devices.append(FeedDevice(key, host_label(), None))
            continue
        index = index_by_bus.get(key)
        label = labels.get(key, key)
        if isinstance(index, int):
            devices.append(FeedDevice(key, gpu_label(index, label), index))
        else:
            # Not in the recorded inventory: still a GPU, with a number and colour of its own.
            spare_index = next(spare)
            devices.append(FeedDevice(key, gpu_label(spare_index, label), spare_index))
    # The state at the end: series missing then, with why.
    latest = {name: Reading(None, sources.get(name), changes[-1][1])
              for name, changes in reason_changes.items() if changes and changes[-1][1]}
    return RingFeed(devices, rings, latest=latest, now=span[1] if span else None, live=False,
                    label=recording_label(path, span, complete),
                    processes_missing=feed_text("process lists are not stored in recordings"),
                    summaries=summaries, reason_changes=reason_changes)


def _pyramids_of(rings: Mapping[str, SeriesRing], path: str | Path,
                 progress: LoadProgress | None,
                 cancelled: Callable[[], bool] | None) -> dict[str, MinMaxPyramid]:
    """Min/max pyramids of the long rings of a recording read whole (versions 1 and 2)."""
    summaries: dict[str, MinMaxPyramid] = {}
    long_rings = [(key, ring) for key, ring in rings.items() if len(ring) >= PYRAMID_MIN_ROWS]
    for number, (key, ring) in enumerate(long_rings):
        if cancelled is not None and cancelled():
            raise LoadCancelled(f"loading {path} was cancelled")
        if progress is not None:
            progress(_READ_SHARE + (1 - _READ_SHARE) * number / len(long_rings),
                     feed_text("summarising {device} for zooming out", device=key))
        times, columns = ring.snapshot()
        block = (np.stack([columns[name] for name in ring.series]) if ring.series
                 else np.empty((0, len(times))))
        summaries[key] = MinMaxPyramid(times, block)
    return summaries


def recording_feed(path: str | Path) -> RingFeed:
    """`load_recording_feed` without progress: for the CLI and tests, never the GUI thread
    with a long recording."""
    return load_recording_feed(path)
