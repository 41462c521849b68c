"""The live sampler and saved recordings as `TelemetryFeed`s for the Telemetry page."""

from __future__ import annotations

import datetime as _dt
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from gpuscope.model import Gpu
from gpuscope.telemetry.metrics import HOST_DEVICE, Reading
from gpuscope.telemetry.recorder import open_recording
from gpuscope.telemetry.ring import SeriesRing
from gpuscope.telemetry.sampler import Sampler
from gpuscope.ui.telemetry_feed import FeedDevice, RingFeed


def _gpu_device(key: str, gpus: Sequence[Gpu], fallback_label: str) -> FeedDevice:
    gpu = next((g for g in gpus if g.pci_bus == key), None)
    if gpu is None:
        return FeedDevice(key, fallback_label, None)
    return FeedDevice(key, f"GPU {gpu.index}: {gpu.name or key}", gpu.index)


class SamplerFeed:
    """A running `Sampler`, read on the page's own timer (never pushed)."""

    def __init__(self, sampler: Sampler, gpus: Sequence[Gpu], label: str | None = None) -> None:
        self._sampler = sampler
        self._gpus = tuple(gpus)
        self._label = label

    def devices(self) -> Sequence[FeedDevice]:
        devices = []
        for key, state in self._sampler.device_state.items():
            if key == HOST_DEVICE:
                devices.append(FeedDevice(key, "Host", None))
                continue
            device = _gpu_device(key, self._gpus, state.label)
            lost = state.reason if state.status in ("lost", "error") else None
            devices.append(FeedDevice(device.key, device.label, device.gpu_index, lost))
        return devices

    def ring(self, device_key: str) -> SeriesRing | None:
        return self._sampler.rings.get(device_key)

    def latest(self, series: str) -> Reading | None:
        return self._sampler.latest.get(series)

    def now_s(self) -> float:
        return time.time()

    @property
    def live(self) -> bool:
        return True

    @property
    def label(self) -> str:
        return self._label or f"Live, {self._sampler.rate_hz:g} Hz"


def _utc(time_s: float) -> str:
    return _dt.datetime.fromtimestamp(time_s, _dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")


def recording_feed(path: str | Path) -> RingFeed:
    """A whole recording in ring buffers, to scroll and zoom through. Raises RecordingError
    (one line) for a file that is not a readable recording."""
    with open_recording(path) as recording:
        rings: Mapping[str, SeriesRing] = recording.load_into_rings()
        labels = recording.device_labels()
        span = recording.time_range()
        complete = recording.meta.complete
        inventory = recording.meta.inventory if isinstance(recording.meta.inventory, dict) else {}
    listed = inventory.get("gpus")
    gpus_json = listed if isinstance(listed, list) else []
    index_by_bus = {g.get("pci_bus"): g.get("index") for g in gpus_json if isinstance(g, dict)}
    devices = []
    for key in rings:
        if key == HOST_DEVICE:
            devices.append(FeedDevice(key, "Host", None))
            continue
        index = index_by_bus.get(key)
        label = labels.get(key, key)
        devices.append(FeedDevice(key, f"GPU {index}: {label}" if isinstance(index, int)
                                  else label, index if isinstance(index, int) else None))
    when = f", {_utc(span[0])} to {_utc(span[1])} UTC" if span else ", empty"
    cut = "" if complete else " (the recorder stopped without closing it)"
    return RingFeed(devices, rings, now=span[1] if span else None, live=False,
                    label=f"Recording {Path(path).name}{when}{cut}")
