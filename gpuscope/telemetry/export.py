"""CSV export of a recording: one row per tick, one column per series, streamed.

Columns: `time_utc` (ISO 8601, milliseconds), `time_s` (seconds since the first sample), then
each series as "<series name> [<unit>]" in the order the recording registered them, e.g.
"0000:03:00.0/power_w [W]". A sample that is missing is an empty cell. Rows are read in the
order they were written and grouped by tick time, so memory stays flat whatever the length.
"""

from __future__ import annotations

import csv
import datetime as _dt
import os
from dataclasses import dataclass
from pathlib import Path

from gpuscope.telemetry.recorder import RecordingError, open_recording


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
    with open_recording(recording_path) as recording:
        series = recording.series
        position = {s.id: i for i, s in enumerate(series)}
        header = ["time_utc", "time_s"] + [
            f"{s.name} [{s.unit}]" if s.unit else s.name for s in series]
        rows = 0
        first: float | None = None
        last: float | None = None
        try:
            handle = open(target, "w", encoding="utf-8", newline="")  # noqa: SIM115
        except OSError as exc:
            raise RecordingError(f"cannot write {target}: {exc.strerror or exc}") from exc
        with handle:
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
    return ExportSummary(
        recording=str(recording_path), csv_path=str(target), rows=rows, columns=len(series),
        first_utc=_utc(first) if first is not None else None,
        last_utc=_utc(last) if last is not None else None,
    )
