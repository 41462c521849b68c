"""A version 3 recording as a feed that reads on demand: opening reads the stored summaries
(a few per minute of recording), never the samples; the charts' ranges decode only the
chunks they cover (`RecordingRing.snapshot`), and wide ranges are drawn from the summaries
(`MinMaxPyramid.from_level`). So opening and browsing cost what the screen shows, not what
the file holds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from gpuscope.telemetry.decimate import MinMaxPyramid
from gpuscope.telemetry.recording import Recording
from gpuscope.telemetry.recording_meta import LoadCancelled
from gpuscope.telemetry.ring import FloatArray

# The stored summaries draw a range from one block per pixel column on (each block's real
# minimum and maximum samples, at their times): below that, the samples are read.
STORED_BLOCKS_PER_COLUMN = 1.0
# Levels 4x coarser each: a range is drawn from at most 4x more blocks than it has columns.
STORED_LEVEL_FACTOR = 4


class RecordingRing:
    """One device's series of an open recording, read like a `SeriesRing`: a row per tick
    of the recording (NaN where the device gave nothing, and a NaN row in each pause), read
    from the file for the rows asked for. A damaged chunk raises RecordingError when it is
    read: the Telemetry page says so (`TelemetryPage.redraw`)."""

    def __init__(self, recording: Recording, names: Sequence[str],
                 span: tuple[float, float] | None, ticks: int) -> None:
        self._recording = recording
        self.series: tuple[str, ...] = tuple(names)
        self._span = span
        self._ticks = ticks
        self._latest: dict[str, float | None] | None = None

    def __len__(self) -> int:
        return self._ticks

    @property
    def recording(self) -> Recording:
        """The open recording this ring reads (shared by every device of its feed)."""
        return self._recording

    @property
    def capacity(self) -> int:
        return self._ticks

    @property
    def nbytes(self) -> int:
        return 0  # nothing is held: the samples stay in the file

    def snapshot(self, since_s: float | None = None, series: Sequence[str] | None = None,
                 until_s: float | None = None) -> tuple[FloatArray, dict[str, FloatArray]]:
        """(times, {series: values}) of the ticks with since_s <= time <= until_s, read from
        the chunks that hold them."""
        names = [n for n in (self.series if series is None else series) if n in self.series]
        if self._span is None:
            return np.empty(0), {name: np.empty(0) for name in names}
        times, block = self._recording.read_block(names or self.series[:1], since_s, until_s)
        return times, {name: block[row] for row, name in enumerate(names)}

    def time_span(self) -> tuple[float, float] | None:
        return self._span

    def latest(self, name: str) -> float | None:
        """The value at the recording's last tick (None where it is missing)."""
        if self._latest is None:
            self._latest = {}
            if self._span is not None:
                end = self._span[1]
                times, block = self._recording.read_block(self.series, end, end, pauses=False)
                for row, series in enumerate(self.series):
                    value = float(block[row, -1]) if len(times) else float("nan")
                    self._latest[series] = None if np.isnan(value) else value
        return self._latest.get(name)


def recording_rings(recording: Recording) -> dict[str, RecordingRing]:
    """device -> its RecordingRing, in the recording's order."""
    span = recording.time_range()
    ticks = recording.tick_count() or 0
    return {device: RecordingRing(recording, [s.name for s in recording.series
                                              if s.device == device], span, ticks)
            for device in recording.devices}


def recording_pyramids(recording: Recording, rings: dict[str, RecordingRing],
                       cancelled: Callable[[], bool] | None = None,
                       ) -> dict[str, MinMaxPyramid]:
    """device -> a pyramid built on the recording's stored summaries (none are computed
    from samples)."""
    level = recording.finest_level()
    if level is None:
        return {}
    row_of = {s.name: row for row, s in enumerate(recording.series)}
    pyramids: dict[str, MinMaxPyramid] = {}
    for device, ring in rings.items():
        if cancelled is not None and cancelled():
            raise LoadCancelled(f"loading {recording.path} was cancelled")
        pyramids[device] = MinMaxPyramid.from_level(
            level.rows([row_of[n] for n in ring.series]), factor=STORED_LEVEL_FACTOR,
            min_blocks_per_column=STORED_BLOCKS_PER_COLUMN)
    return pyramids
