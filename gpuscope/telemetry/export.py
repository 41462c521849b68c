"""Export of a recording as CSV or JSON lines, streamed a chunk at a time: memory stays flat
whatever the recording's length.

Rows are ticks in time order. A tick where every chosen series is missing is left out.
`time_utc` is ISO 8601 in UTC with milliseconds ("2025-11-24T16:00:00.251Z"); `time_s` is
seconds since the first exported tick, to the millisecond.

CSV (`export_csv`): a header row `time_utc,time_s,` then each series as "<name> [<unit>]" in
the order the recording registered them, e.g. "0000:03:00.0/power_w [W]"; then a row per
tick. A missing sample is an empty cell; values are written with at most 4 decimals, whole
numbers without any. Lines end in CRLF (RFC 4180).

JSON lines (`export_json_lines`), UTF-8, one JSON object per line. The first line is the
header:

    {"format": "gpuscope-export", "version": 1, "recording": "<the path given>",
     "series": [{"name": "0000:03:00.0/power_w", "unit": "W", "source": "amdgpu hwmon"}, ...]}

then one line per tick:

    {"time_utc": "2025-11-24T16:00:00.251Z", "time_s": 12.5,
     "values": {"0000:03:00.0/power_w": 245.125, "host/host_cpu_percent": 7}}

A value is the stored number exactly (whole numbers without a fraction); a missing sample,
and a value that is not a finite number (a damaged sensor's infinity), is left out of
"values", which is empty for a tick that held only infinities: NaN never appears.

Choosing what to export: `since_s`/`until_s` (inclusive) are seconds since the epoch or a
`TimeBound` (parsed from "--from"/"--to": ISO 8601, or "+SECONDS" after the recording's first
sample); `series` are shell-style patterns (fnmatch, case-sensitive) over series names, a
series being exported when any pattern matches it. A pattern that matches nothing, a bad
time and a range whose end is before its start raise `ExportUsageError`. A selection
with no tick writes the header only.

The output goes into a temporary file beside the target, renamed over it at the end
(`gpuscope.safe_write`): a failure (a full disk, a damaged recording) leaves the old file or
none. An output that is the recording itself (or its -wal/-shm) is refused before anything is
written: `OutputIsInputError`. The output "-" is standard output, written as it streams.
"""

from __future__ import annotations

import contextlib
import csv
import datetime as _dt
import fnmatch
import io
import json
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Protocol

import numpy as np

from gpuscope.i18n import message
from gpuscope.safe_write import atomic_output, input_overwritten
from gpuscope.telemetry.recording import Recording, open_recording
from gpuscope.telemetry.recording_meta import (
    MAX_TIME_S,
    OutputIsInputError,
    RecordedSeries,
    RecordingError,
)
from gpuscope.telemetry.ring import FloatArray
from gpuscope.untrusted import escape_json_controls

STDOUT = "-"
EXPORT_FORMAT = "gpuscope-export"
EXPORT_VERSION = 1
_EXAMPLE_NAMES = 4
_SECONDS = re.compile(r"[0-9]+(\.[0-9]*)?|\.[0-9]+")


class ExportUsageError(RecordingError):
    """A bad --from/--to/--series: a usage error (exit status 2), one line."""


@dataclass(frozen=True, slots=True)
class TimeBound:
    """A --from or --to value: seconds since the epoch, or (`relative`) seconds after the
    recording's first sample. `text` is what the user wrote."""

    seconds: float
    relative: bool
    text: str


@dataclass(frozen=True, slots=True)
class ExportSummary:
    recording: str
    output: str  # the path written, or "-" for standard output
    format: str  # "csv" or "json-lines"
    rows: int  # ticks written
    columns: int  # series exported (time columns not counted)
    first_utc: str | None  # the first and last tick written
    last_utc: str | None
    since_utc: str | None  # the range asked, resolved; None: from the start / to the end
    until_utc: str | None


def parse_time_bound(text: str, option: str = "--from") -> TimeBound:
    """`text` as a time: "+SECONDS" after the recording's start ("+90", "+1.5"), or ISO 8601
    ("2026-11-27T10:00:00Z", "2026-11-27 10:00", "2026-11-27"), in local time when it names
    no zone. Raises ExportUsageError (one line) naming `option`."""
    given = text.strip()
    hint = (f"{option} {text!r} is not a time: give ISO 8601 (2026-11-27T10:00:00Z; "
            "2026-11-27 10:00 is local time) or +SECONDS after the recording's start (+90)")
    if given.startswith("+"):
        if not _SECONDS.fullmatch(given[1:]):
            raise ExportUsageError(hint)
        if float(given[1:]) > MAX_TIME_S:  # also 400 nines: infinity
            raise ExportUsageError(f"{option} {text!r} is after any time a recording can hold")
        return TimeBound(float(given[1:]), True, text)
    iso = given[:-1] + "+00:00" if given[-1:] in ("Z", "z") else given  # for Python 3.10
    try:
        moment = _dt.datetime.fromisoformat(iso)
        seconds = moment.timestamp()  # a naive time is local time
    except (ValueError, OverflowError, OSError):
        if _SECONDS.fullmatch(given.lstrip("-")):
            raise ExportUsageError(
                f"{option} {text!r}: seconds after the recording's start are written with a "
                f"plus sign: +{given.lstrip('-')}") from None
        raise ExportUsageError(hint) from None
    if not 0.0 <= seconds <= MAX_TIME_S:
        raise ExportUsageError(f"{option} {text!r} is outside the times a recording can hold")
    return TimeBound(seconds, False, text)


def select_series(recording: Recording, patterns: Sequence[str] | None,
                  ) -> list[RecordedSeries]:
    """The series of `recording` that any of `patterns` matches, in the recording's order
    (every series when `patterns` is None). A pattern that matches nothing raises
    ExportUsageError naming a few series there are."""
    if patterns is None:
        return list(recording.series)
    names = [s.name for s in recording.series]
    for pattern in patterns:
        if not any(fnmatch.fnmatchcase(name, pattern) for name in names):
            raise ExportUsageError(
                f"--series {pattern!r} matches none of the {len(names)} series of "
                f"{recording.path}{_examples(recording)}")
    return [s for s in recording.series
            if any(fnmatch.fnmatchcase(s.name, pattern) for pattern in patterns)]


def _examples(recording: Recording) -> str:
    """ "; it has a/x, b/y, ... and N more": a name of each device first, so that the
    device prefixes show."""
    if not recording.series:
        return ""
    by_device: dict[str, list[str]] = {}
    for s in recording.series:
        by_device.setdefault(s.device, []).append(s.name)
    picked: list[str] = []
    depth = 0
    while len(picked) < min(_EXAMPLE_NAMES, len(recording.series)):
        for names in by_device.values():
            if depth < len(names) and len(picked) < _EXAMPLE_NAMES:
                picked.append(names[depth])
        depth += 1
    rest = len(recording.series) - len(picked)
    return f"; it has {', '.join(picked)}" + (f" and {rest} more" if rest else "")


def _resolve(bound: float | TimeBound | None, start_s: float | None) -> float | None:
    if bound is None or isinstance(bound, (int, float)):
        return bound
    if not bound.relative:
        return bound.seconds
    return None if start_s is None else start_s + bound.seconds


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


def _json_number(value: float) -> str:
    """A finite float as JSON text that reads back as the same number."""
    if value.is_integer() and abs(value) < 2.0**53:
        return str(int(value))
    return repr(value)


def _texts(block: FloatArray, format_value: Callable[[float], str], whole_below: float,
           missing: str | None, finite_only: bool) -> list[list[str | None]]:
    """Each series' values as text, `missing` where there is no sample (and, `finite_only`,
    where the value is an infinity). A series whose values are all whole numbers under
    `whole_below` is written as integers in one go; the others value by value."""
    present = np.isfinite(block) if finite_only else ~np.isnan(block)
    filled = np.where(present, block, 0.0)
    whole_rows = ((filled == np.trunc(filled)) & (np.abs(filled) < whole_below)).all(axis=1)
    out: list[list[str | None]] = []
    for row, values in enumerate(filled):
        texts: list[str | None]
        if whole_rows[row]:
            texts = list(map(str, values.astype(np.int64).tolist()))
        else:
            texts = [format_value(v) for v in values.tolist()]
        if not present[row].all():
            for column in np.flatnonzero(~present[row]).tolist():
                texts[column] = missing
        out.append(texts)
    return out


class _CsvFormat:
    name = "csv"

    def __init__(self, series: Sequence[RecordedSeries]) -> None:
        self._series = series

    def header(self, recording: Recording) -> str:
        handle = io.StringIO()
        csv.writer(handle).writerow(["time_utc", "time_s"] + [
            f"{s.name} [{s.unit}]" if s.unit else s.name for s in self._series])
        return handle.getvalue()

    def lines(self, times: FloatArray, block: FloatArray, first_s: float) -> str:
        # Cells are numbers (digits, '-', '.', "inf"): nothing csv would quote.
        columns = _texts(block, _cell, 1e15, "", finite_only=False)
        return "".join(f"{_utc(t)},{t - first_s:.3f},{','.join(cells)}\r\n"
                       for t, cells in zip(times.tolist(), zip(*columns, strict=True), strict=True))


class _JsonLinesFormat:
    name = "json-lines"

    def __init__(self, series: Sequence[RecordedSeries]) -> None:
        self._series = series
        # A crafted name's C1 controls escaped too, as json.dumps escapes the C0 ones: a
        # terminal reading standard output sees no control sequence.
        self._keys = [escape_json_controls(json.dumps(s.name, ensure_ascii=False)) + ": "
                      for s in series]

    def header(self, recording: Recording) -> str:
        head = {"format": EXPORT_FORMAT, "version": EXPORT_VERSION,
                "recording": str(recording.path),
                "series": [{"name": s.name, "unit": s.unit, "source": s.source}
                           for s in self._series]}
        return escape_json_controls(json.dumps(head, ensure_ascii=False)) + "\n"

    def lines(self, times: FloatArray, block: FloatArray, first_s: float) -> str:
        keys = self._keys
        columns = _texts(block, _json_number, 2.0**53, None, finite_only=True)
        out: list[str] = []
        for t, texts in zip(times.tolist(), zip(*columns, strict=True), strict=True):
            values = ", ".join([key + text for key, text in zip(keys, texts, strict=True)
                                if text is not None])
            out.append(f'{{"time_utc": "{_utc(t)}", "time_s": {round(t - first_s, 3)!r}, '
                       f'"values": {{{values}}}}}\n')
        return "".join(out)


_Format = _CsvFormat | _JsonLinesFormat


class _Writable(Protocol):
    def write(self, text: str, /) -> object: ...


class _Utf8Bytes:
    """Text written as UTF-8 straight into a binary stream: no newline translation (CSV's
    CRLF stays CRLF) and nothing buffered here to flush into a closed pipe."""

    def __init__(self, binary: BinaryIO) -> None:
        self._binary = binary

    def write(self, text: str) -> int:
        return self._binary.write(text.encode("utf-8"))


@contextlib.contextmanager
def _stdout_text() -> Iterator[_Writable]:
    sys.stdout.flush()
    binary = getattr(sys.stdout, "buffer", None)
    yield sys.stdout if binary is None else _Utf8Bytes(binary)  # None: a text-only stream
    if binary is not None:
        binary.flush()


def _export(recording_path: str | os.PathLike[str], out_path: str | os.PathLike[str],
            make_format: Callable[[Sequence[RecordedSeries]], _Format], *,
            since_s: float | TimeBound | None, until_s: float | TimeBound | None,
            series: Sequence[str] | None, refusal: str) -> ExportSummary:
    to_stdout = os.fspath(out_path) == STDOUT
    target = Path(out_path)
    if not to_stdout and input_overwritten(target, [recording_path]) is not None:
        raise OutputIsInputError(refusal)
    with open_recording(recording_path) as recording:
        chosen = select_series(recording, series)
        start_s: float | None = None
        if any(isinstance(b, TimeBound) and b.relative for b in (since_s, until_s)):
            span = recording.time_range()
            start_s = None if span is None else span[0]
        since, until = _resolve(since_s, start_s), _resolve(until_s, start_s)
        if since is not None and until is not None and since > until:
            raise ExportUsageError(f"--from {_bound_text(since_s)} is after --to "
                                   f"{_bound_text(until_s)}")
        output_format = make_format(chosen)
        names = [s.name for s in chosen]
        rows = 0
        first: float | None = None
        last: float | None = None
        try:
            opened: contextlib.AbstractContextManager[_Writable] = (
                _stdout_text() if to_stdout else atomic_output(target, newline=""))
            with opened as handle:
                handle.write(output_format.header(recording))
                if names:
                    for times, block in recording.iter_blocks(since, until, names):
                        kept = ~np.isnan(block).all(axis=0)
                        if not kept.all():
                            times, block = times[kept], block[:, kept]
                        if not len(times):
                            continue
                        if first is None:
                            first = float(times[0])
                        last = float(times[-1])
                        rows += len(times)
                        handle.write(output_format.lines(times, block, first))
        except BrokenPipeError:
            raise  # the reader of standard output stopped (`| head`): not a failure
        except (OSError, UnicodeError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            if to_stdout:  # what went out before stays out
                raise RecordingError(f"cannot write to standard output: {why}") from exc
            raise RecordingError(message("cannot write {path}: {why}; nothing was written",
                                         path=str(target), why=why)) from exc
    return ExportSummary(
        recording=str(recording_path), output=STDOUT if to_stdout else str(target),
        format=output_format.name, rows=rows, columns=len(chosen),
        first_utc=_utc(first) if first is not None else None,
        last_utc=_utc(last) if last is not None else None,
        since_utc=_utc(since) if since is not None else None,
        until_utc=_utc(until) if until is not None else None,
    )


def _bound_text(bound: float | TimeBound | None) -> str:
    if isinstance(bound, TimeBound):
        return bound.text
    return "?" if bound is None else _utc(bound)


def export_csv(recording_path: str | os.PathLike[str], out_path: str | os.PathLike[str], *,
               since_s: float | TimeBound | None = None,
               until_s: float | TimeBound | None = None,
               series: Sequence[str] | None = None) -> ExportSummary:
    """Write the wide CSV of a recording (of the ticks in [since_s, until_s], the series
    matching `series`) to `out_path` ("-": standard output). Raises RecordingError (one line)
    for a file that is not a readable recording or an output that cannot be written, its
    subclasses OutputIsInputError and ExportUsageError for usage errors."""
    return _export(recording_path, out_path, _CsvFormat, since_s=since_s, until_s=until_s,
                   series=series, refusal=message(
                       "the CSV {output} would overwrite the recording {recording}; choose "
                       "another file name", output=str(out_path), recording=str(recording_path)))


def export_json_lines(recording_path: str | os.PathLike[str],
                      out_path: str | os.PathLike[str], *,
                      since_s: float | TimeBound | None = None,
                      until_s: float | TimeBound | None = None,
                      series: Sequence[str] | None = None) -> ExportSummary:
    """As `export_csv`, as JSON lines (the shape is in this module's docstring)."""
    return _export(recording_path, out_path, _JsonLinesFormat, since_s=since_s,
                   until_s=until_s, series=series, refusal=message(
                       "the JSON lines {output} would overwrite the recording {recording}; "
                       "choose another file name", output=str(out_path),
                       recording=str(recording_path)))
