"""CSV export of a recording: one row per tick, one column per series, streamed.

Columns: `time_utc` (ISO 8601, milliseconds), `time_s` (seconds since the first sample), then
each series as "<series name> [<unit>]" in the order the recording registered them, e.g.
"0000:03:00.0/power_w [W]". A sample that is missing is an empty cell. Rows are read in the
order they were written and grouped by tick time, so memory stays flat whatever the length.

The CSV is streamed into a temporary file beside the target and renamed over it at the end
(`gpuscope.safe_write`): a failure (a full disk, a damaged recording) leaves the old file or
none. An output that is the recording itself (or its -wal/-shm) is refused before anything is
written: `OutputIsInputError`.
"""

from __future__ import annotations

import csv
import datetime as _dt
import os
from dataclasses import dataclass
from pathlib import Path

from gpuscope.i18n import message
from gpuscope.safe_write import atomic_output, input_overwritten
from gpuscope.telemetry.recorder import RecordingError, open_recording
from gpuscope.telemetry.recording_meta import OutputIsInputError


@dataclass(frozen=True, slots=True)
class ExportSummary:
    recording: str
    csv_path: str
    rows: int  # ticks written
    columns: int  # series columns (time columns not counted)
    first_utc: str | None
    last_utc: str | None


def _utc(t: float) -> str:
    moment = _dt.datetime.fromtimestamp(t, _dt.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _cell(value: float | None) -> str:
    if value is None or value != value:
        return ""
    value = float(value)
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.4f}".rstrip("0").rstrip(".")


def export_csv(recording_path: str | os.PathLike[str],
               out_path: str | os.PathLike[str]) -> ExportSummary:
    """Write the wide CSV of a recording. Raises RecordingError for a file that is not a
    readable recording or an output that cannot be written."""
    target = Path(out_path)
    if input_overwritten(target, [recording_path]) is not None:
        raise OutputIsInputError(message(
            "the CSV {output} would overwrite the recording {recording}; choose another file "
            "name", output=str(target), recording=str(recording_path)))
    with open_recording(recording_path) as recording:
        series = recording.series
        position = {s.id: i for i, s in enumerate(series)}
        header = ["time_utc", "time_s"] + [
            f"{s.name} [{s.unit}]" if s.unit else s.name for s in series]
        rows = 0
        first: float | None = None
        last: float | None = None
        try:
            with atomic_output(target, newline="") as handle:
                writer = csv.writer(handle)
                writer.writerow(header)
                current: float | None = None
                cells: list[float | None] = [None] * len(series)

                def flush() -> None:
                    nonlocal rows
                    if current is None or first is None:
                        return
                    writer.writerow([_utc(current), f"{current - first:.3f}",
                                     *(_cell(v) for v in cells)])
                    rows += 1

                for t, series_id, value in recording.iter_rows():
                    if t != current:
                        flush()
                        current = t
                        cells = [None] * len(series)
                        if first is None:
                            first = t
                        last = t
                    index = position.get(series_id)
                    if index is not None:
                        cells[index] = value
                flush()
        except OSError as exc:
            raise RecordingError(message("cannot write {path}: {why}; nothing was written",
                                         path=str(target), why=exc.strerror or str(exc))
                                 ) from exc
    return ExportSummary(
        recording=str(recording_path), csv_path=str(target), rows=rows, columns=len(series),
        first_utc=_utc(first) if first is not None else None,
        last_utc=_utc(last) if last is not None else None,
    )
