"""Reading recordings of every version: `open_recording(path)` gives a `Recording`.

Versions 1 and 2 store a row per sample (`samples(t, series_id, value)`); version 3 stores
chunks of about a minute with their summaries (`recording_chunks`). `Recording` reads both
behind one interface: a series or a block of series over a time range, chunk by chunk for
streaming (`iter_blocks`), and for version 3 the stored summaries (`finest_level`), so that
opening a long recording never reads its samples.

A file that is not a gpuscope recording, is newer than this gpuscope, or is damaged raises
`RecordingError` with a one-line reason, from any method.
"""

from __future__ import annotations

import contextlib
import math
import os
import sqlite3
import stat
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np

from gpuscope.i18n import message
from gpuscope.metrics import reason_in_force
from gpuscope.telemetry.decimate import Level
from gpuscope.telemetry.recording_chunks import (
    ChunkReader,
    DamagedChunk,
    pause_breaks,
    to_us,
)
from gpuscope.telemetry.recording_meta import (
    MAX_TIME_S,
    LoadCancelled,
    RecordedSeries,
    RecordingError,
    RecordingMeta,
    bad_time_message,
    parse_meta,
)
from gpuscope.telemetry.ring import FloatArray, SeriesRing
from gpuscope.untrusted import file_kind

_SQLITE_MAGIC = b"SQLite format 3\x00"
_ROW_DTYPE = np.dtype([("t", np.float64), ("v", np.float64)])
_STREAM_TICKS = 4096  # ticks per block when a version 1 or 2 file is streamed

# The first sample of a series whose time or value is not a number (NULL values are missing
# samples), with the type found.
_BAD_TYPES_SQL = (
    "SELECT CASE WHEN typeof(t) NOT IN ('integer', 'real') THEN typeof(t) ELSE typeof(value) "
    "END FROM samples WHERE series_id = ? AND (typeof(t) NOT IN ('integer', 'real') OR "
    "typeof(value) IN ('text', 'blob')) LIMIT 1")
_TYPE_NAMES = {"str": "text", "bytes": "a blob", "blob": "a blob", "null": "nothing",
               "NoneType": "nothing"}


def _bad_type(path: Path, found: str) -> str:
    return message("{path}: damaged recording (a sample holds {what} where a number belongs)",
                   path=str(path), what=_TYPE_NAMES.get(found, found))


def _damaged(path: Path, why: object) -> RecordingError:
    return RecordingError(f"{path}: damaged recording ({why})")


class Recording:
    """A recording opened for reading. Use `open_recording(path)`."""

    def __init__(self, path: Path, db: sqlite3.Connection, meta: RecordingMeta,
                 series: tuple[RecordedSeries, ...], chunked: bool) -> None:
        self.path = path
        self._db = db
        self._lock = threading.Lock()
        self.meta = meta
        self.series = series
        self._by_name = {s.name: s for s in series}
        # Version 3: series ids are dense from 1, a block's row is id - 1.
        self._row_of = {s.name: s.id - 1 for s in series}
        self._chunks: ChunkReader | None = None
        if chunked:
            if any(s.id != i + 1 for i, s in enumerate(series)):
                raise _damaged(path, "its series are not numbered 1, 2, 3...")
            try:
                self._chunks = ChunkReader(db, len(series), self._lock)
            except DamagedChunk as exc:
                raise _damaged(path, exc) from None
            span = self._chunks.time_span_us()
            for t_us in span or ():
                if not 0 <= t_us <= MAX_TIME_S * 1e6:
                    raise RecordingError(bad_time_message(path, t_us / 1e6))
        try:
            self._has_missing = bool(db.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'missing'"
            ).fetchone())
        except sqlite3.DatabaseError:
            self._has_missing = False

    @property
    def chunked(self) -> bool:
        """Whether samples are stored in chunks with summaries (version 3)."""
        return self._chunks is not None

    def tick_count(self) -> int | None:
        """Version 3: how many ticks the recording holds (None for older files)."""
        return None if self._chunks is None else self._chunks.index.ticks

    @property
    def devices(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(s.device for s in self.series))

    def device_labels(self) -> dict[str, str]:
        """device -> a label from the recorded inventory: "AMD Radeon RX 7900 XTX
        (0000:03:00.0)", the host's name; the device id itself where the inventory is silent."""
        labels = {device: device for device in self.devices}
        inventory = self.meta.inventory if isinstance(self.meta.inventory, dict) else {}
        gpus = inventory.get("gpus")
        for gpu in gpus if isinstance(gpus, list) else ():
            if not isinstance(gpu, dict):
                continue
            bus = gpu.get("pci_bus")
            if isinstance(bus, str) and bus in labels:  # a crafted file: anything anywhere
                labels[bus] = f"{gpu.get('name') or 'GPU'} ({bus})"
        host = inventory.get("host")
        if "host" in labels and isinstance(host, dict) and host.get("hostname"):
            labels["host"] = str(host["hostname"])
        return labels

    # ------------------------------------------------------------------ extent

    def sample_count(self) -> int:
        if self._chunks is not None:
            _, tail = self._chunked(self._chunks.tail_block)
            return self._chunks.index.samples + int(np.count_nonzero(~np.isnan(tail)))
        return int(self._query("SELECT COUNT(*) FROM samples")[0][0])

    def time_range(self) -> tuple[float, float] | None:
        """(first, last) sample time; a damaged file's text or absurd time raises."""
        if self._chunks is not None:
            span = self._chunks.time_span_us()
            return None if span is None else (span[0] / 1e6, span[1] / 1e6)
        row = self._query("SELECT MIN(t), MAX(t) FROM samples")[0]
        if row[0] is None:
            return None
        for t in row:  # text and blobs sort after every number: MAX finds them
            if not isinstance(t, (int, float)):
                raise RecordingError(_bad_type(self.path, type(t).__name__))
            if not 0.0 <= t <= MAX_TIME_S:
                raise RecordingError(bad_time_message(self.path, float(t)))
        return float(row[0]), float(row[1])

    # ------------------------------------------------------------------ samples

    def _info(self, series: str) -> RecordedSeries:
        info = self._by_name.get(series)
        if info is None:
            raise RecordingError(f"{self.path} has no series {series!r}")
        return info

    def _chunked(self, call: Callable[[], Any]) -> Any:
        try:
            return call()
        except DamagedChunk as exc:
            raise _damaged(self.path, exc) from None
        except sqlite3.DatabaseError as exc:
            raise _damaged(self.path, exc) from exc

    def read(self, series: str, since: float | None = None,
             until: float | None = None) -> tuple[FloatArray, FloatArray]:
        """(times, values) of one series in time order, `since <= t <= until`; missing
        samples are left out."""
        info = self._info(series)
        if self._chunks is not None:
            times, block = self.read_block((series,), since, until, pauses=False)
            present = ~np.isnan(block[0])
            return times[present], block[0][present]
        return self._read_rows(info, since, until)

    def read_block(self, names: Sequence[str], since: float | None = None,
                   until: float | None = None, *, pauses: bool = True,
                   ) -> tuple[FloatArray, FloatArray]:
        """(tick times, values of `names` per tick, shape (len(names), ticks)), NaN where a
        series has no sample, over [since, until]. With `pauses`, a NaN tick is added a
        period after each pause of more than three periods, so that lines break there."""
        rows = [self._row_of[self._info(name).name] for name in names]
        rate = self.meta.rate_hz if pauses else None
        # The ticks either side of the range show whether a pause begins or ends in it.
        margin = 4.0 / rate if rate else 0.0
        start = since - margin if since is not None else None
        reach = until + margin if until is not None else None
        if self._chunks is not None:
            chunks = self._chunks
            times_us, block = self._chunked(lambda: chunks.block(
                None if start is None else to_us(start) - 1,
                None if reach is None else to_us(reach) + 1, rows))
            times = times_us / 1e6
            keep = _inside(times, start, reach)
            times, picked = (times, block) if keep.all() else (times[keep], block[:, keep])
        else:
            times, picked = self._rows_block(names, start, reach)
        if rate and len(times):
            breaks = pause_breaks(times, None, rate)
            end = self.time_range()
            if (reach is not None and end is not None and times[-1] < end[1]
                    and reach - times[-1] > 3.0 / rate):  # a pause runs past the range
                breaks = np.append(breaks, times[-1] + 1.0 / rate)
            times, picked = _with_breaks(times, picked, breaks)
        if margin:
            keep = _inside(times, since, until)
            times, picked = times[keep], picked[:, keep]
        return times, picked

    def _rows_block(self, names: Sequence[str], since: float | None,
                    until: float | None) -> tuple[FloatArray, FloatArray]:
        """Versions 1 and 2: the union of every series' sample times as ticks."""
        columns = [self._read_rows(self._info(n), since, until) for n in names]
        # Ticks are the times of any series of the recording, not only of `names`.
        every = [self._read_rows(s, since, until)[0] for s in self.series]
        stamps = [t for t in every if len(t)]
        times = np.unique(np.concatenate(stamps)) if stamps else np.empty(0)
        block = np.full((len(names), len(times)), np.nan)
        for row, (series_times, values) in enumerate(columns):
            if len(series_times):
                block[row, np.searchsorted(times, series_times)] = values
        return times, block

    def _read_rows(self, info: RecordedSeries, since: float | None,
                   until: float | None) -> tuple[FloatArray, FloatArray]:
        try:
            # In SQLite any column holds any type: a damaged file's text or blob is found
            # here, at C speed, rather than taken for a number (float(b"1") is 1.0).
            with self._lock:
                bad = self._db.execute(_BAD_TYPES_SQL, (info.id,)).fetchone()
                if bad is not None:
                    raise RecordingError(_bad_type(self.path, bad[0]))
                if since is None and until is None:  # every row, whatever its t
                    cursor = self._db.execute(
                        "SELECT t, value FROM samples WHERE series_id = ? ORDER BY t",
                        (info.id,))
                else:
                    cursor = self._db.execute(
                        "SELECT t, value FROM samples WHERE series_id = ? AND t >= ? AND "
                        "t <= ? ORDER BY t", (info.id, -math.inf if since is None else since,
                                              math.inf if until is None else until))
                # Straight from the cursor into one array: no list of a million tuples.
                data = np.fromiter(((float(t), math.nan if v is None else float(v))
                                    for t, v in cursor), dtype=_ROW_DTYPE)
        except sqlite3.DatabaseError as exc:
            raise _damaged(self.path, exc) from exc
        except (TypeError, ValueError, OverflowError) as exc:  # a value that is not a number
            raise _damaged(self.path, exc) from exc
        times = data["t"]
        if len(times) and not (np.isfinite(times).all() and times[0] >= 0.0
                               and times[-1] <= MAX_TIME_S):
            bad_time = times[~(np.isfinite(times) & (times >= 0.0) & (times <= MAX_TIME_S))][0]
            raise RecordingError(bad_time_message(self.path, float(bad_time)))
        return times.copy(), data["v"].copy()

    def iter_blocks(self, since: float | None = None, until: float | None = None,
                    names: Sequence[str] | None = None,
                    ) -> Iterator[tuple[FloatArray, FloatArray]]:
        """(tick times, block (len(names), ticks)) a chunk at a time over [since, until],
        in time order, for streaming: memory stays flat whatever the recording's length.
        `names`: the series wanted (default all, in the recording's order)."""
        wanted = [s.name for s in self.series] if names is None else list(names)
        rows = [self._row_of[self._info(name).name] for name in wanted]
        if self._chunks is not None:
            chunks = self._chunks
            blocks = chunks.blocks(None if since is None else to_us(since) - 1,
                                   None if until is None else to_us(until) + 1, rows,
                                   keep=False)
            while True:
                part = self._chunked(lambda: next(blocks, None))
                if part is None:
                    return
                times = part[0] / 1e6
                keep = _inside(times, since, until)
                if keep.all():
                    yield times, part[1]
                elif keep.any():
                    yield times[keep], part[1][:, keep]
        position = {self._info(name).id: row for row, name in enumerate(wanted)}
        ticks: list[float] = []
        cells: list[FloatArray] = []
        for t, series_id, value in self.iter_rows():
            if (since is not None and t < since) or (until is not None and t > until):
                continue
            if not ticks or t != ticks[-1]:
                if len(ticks) >= _STREAM_TICKS:
                    yield np.asarray(ticks), np.stack(cells, axis=1)
                    ticks, cells = [], []
                ticks.append(t)
                cells.append(np.full(len(wanted), np.nan))
            row = position.get(series_id)
            if row is not None:
                cells[-1][row] = value
        if ticks:
            yield np.asarray(ticks), np.stack(cells, axis=1)

    def iter_rows(self) -> Iterator[tuple[float, int, float]]:
        """Every sample (t, series_id, value) in the order written, streamed; a row that is
        not (a date, an id, a number or nothing) raises RecordingError."""
        if self._chunks is not None:
            ids = [s.id for s in self.series]
            for times, block in self.iter_blocks():
                for column, t in enumerate(times.tolist()):
                    for row, value in enumerate(block[:, column].tolist()):
                        if value == value:
                            yield t, ids[row], value
            return
        try:
            cursor = self._db.execute("SELECT t, series_id, value FROM samples ORDER BY rowid")
            while True:
                chunk = cursor.fetchmany(4096)
                if not chunk:
                    return
                for t, series_id, value in chunk:
                    yield self._checked_row(t, series_id, value)
        except sqlite3.DatabaseError as exc:
            raise _damaged(self.path, exc) from exc

    def _checked_row(self, t: Any, series_id: Any, value: Any) -> tuple[float, int, float]:
        for cell in (t, series_id) if value is None else (t, series_id, value):
            if not isinstance(cell, (int, float)):  # a NULL value is a missing sample
                raise RecordingError(_bad_type(self.path, type(cell).__name__))
        if not isinstance(series_id, int):
            raise RecordingError(_bad_type(self.path, "a fraction"))
        if not 0.0 <= t <= MAX_TIME_S:  # also NaN
            raise RecordingError(bad_time_message(self.path, float(t)))
        try:
            return float(t), series_id, math.nan if value is None else float(value)
        except OverflowError as exc:  # an integer beyond a float
            raise _damaged(self.path, exc) from exc

    # ------------------------------------------------------------------ summaries

    def finest_level(self, names: Sequence[str] | None = None) -> Level | None:
        """Version 3: the stored finest summary level of `names` (default all), with a gap
        at each pause; None for an older file or one without a tick."""
        if self._chunks is None:
            return None
        chunks = self._chunks
        every = [s.name for s in self.series]
        level: Level | None = self._chunked(
            lambda: chunks.finest_level(every, self.meta.rate_hz))
        if level is None or names is None:
            return level
        return level.rows([self._row_of[self._info(name).name] for name in names])

    # ------------------------------------------------------------------ reasons

    def missing_reasons(self, series: str | None = None,
                        ) -> dict[str, list[tuple[float, str]]]:
        """series -> its changes of reason for being missing, in time order: (t, reason), an
        empty reason meaning it has values again from t on. Empty for a version 1 file."""
        if not self._has_missing:
            return {}
        names = {s.id: s.name for s in self.series}
        sql = "SELECT t, series_id, reason FROM missing"
        args: tuple[Any, ...] = ()
        if series is not None:
            sql += " WHERE series_id = ?"
            args = (self._info(series).id,)
        out: dict[str, list[tuple[float, str]]] = {}
        for t, series_id, reason in self._query(sql + " ORDER BY t, rowid", args):
            name = names.get(series_id) if isinstance(series_id, int) else None
            if name is not None and isinstance(t, (int, float)):
                out.setdefault(name, []).append((float(t), str(reason)))
        return out

    def reason_at(self, series: str, time_s: float) -> str | None:
        """Why `series` was missing at `time_s`, or None (it had values, or no reason was
        recorded)."""
        return reason_in_force(self.missing_reasons(series).get(series, []), time_s)

    # ------------------------------------------------------------------ rings

    def load_into_rings(self, max_rows: int | None = None, *,
                        progress: Callable[[int, int], None] | None = None,
                        cancelled: Callable[[], bool] | None = None) -> dict[str, SeriesRing]:
        """device -> a SeriesRing with its series, holding the whole recording (or its newest
        `max_rows` ticks).

        Every ring has a row per tick of the recording (NaN where its device gave nothing,
        so a lost GPU is a gap, not a line across), and a NaN row in any pause of more than
        three sampling periods (the recorder was stopped or fell behind).
        `progress(series_read, series_total)` is called after each series (each chunk of a
        version 3 file); `cancelled()`, checked as often, ends the load with
        `LoadCancelled`."""
        names = [s.name for s in self.series]
        if self._chunks is not None:
            total = max(1, len(self._chunks.index.ids) + int(len(self._chunks.index.tail_us) > 0))
            times_parts: list[FloatArray] = []
            block_parts: list[FloatArray] = []
            for done, (times, block) in enumerate(self.iter_blocks(), start=1):
                if cancelled is not None and cancelled():
                    raise LoadCancelled(f"loading {self.path} was cancelled")
                times_parts.append(times)
                block_parts.append(block)
                if progress is not None:
                    progress(min(done, total), total)
            times = np.concatenate(times_parts) if times_parts else np.empty(0)
            block = (np.concatenate(block_parts, axis=1) if block_parts
                     else np.empty((len(names), 0)))
            rate = self.meta.rate_hz
            if rate and len(times) > 1:
                times, block = _with_breaks(times, block, pause_breaks(times, None, rate))
        else:
            times, block = self._rows_rings_block(names, progress, cancelled)
        if max_rows is not None and len(times) > max_rows:
            times, block = times[-max_rows:], block[:, -max_rows:]
        rings: dict[str, SeriesRing] = {}
        for device in self.devices:
            device_rows = [i for i, s in enumerate(self.series) if s.device == device]
            ring = SeriesRing([names[i] for i in device_rows], max(1, len(times)))
            ring.append_rows(times, {names[i]: block[i] for i in device_rows})
            rings[device] = ring
        return rings

    def _rows_rings_block(self, names: Sequence[str],
                          progress: Callable[[int, int], None] | None,
                          cancelled: Callable[[], bool] | None) -> tuple[FloatArray, FloatArray]:
        total = len(self.series)
        columns: list[tuple[FloatArray, FloatArray]] = []
        for done, info in enumerate(self.series, start=1):
            if cancelled is not None and cancelled():
                raise LoadCancelled(f"loading {self.path} was cancelled")
            columns.append(self._read_rows(info, None, None))
            if progress is not None:
                progress(done, total)
        stamps = [times for times, _ in columns if len(times)]
        times = np.unique(np.concatenate(stamps)) if stamps else np.empty(0)
        rate = self.meta.rate_hz
        if rate and len(times) > 1:
            breaks = pause_breaks(times, None, rate)
            if len(breaks):
                times = np.union1d(times, breaks)
        block = np.full((len(names), len(times)), np.nan)
        for row, (series_times, values) in enumerate(columns):
            if len(series_times) and len(times):
                index = np.searchsorted(times, series_times)
                inside = index < len(times)
                inside[inside] &= times[index[inside]] == series_times[inside]
                block[row, index[inside]] = values[inside]
        return times, block

    def _query(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        try:
            with self._lock:
                return self._db.execute(sql, tuple(args)).fetchall()
        except sqlite3.DatabaseError as exc:
            raise _damaged(self.path, exc) from exc

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> Recording:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()


def _with_breaks(times: FloatArray, block: FloatArray,
                 breaks: FloatArray) -> tuple[FloatArray, FloatArray]:
    """`times` and `block` with a NaN tick at each of `breaks`, so that lines break there."""
    if not len(breaks):
        return times, block
    merged = np.union1d(times, breaks)
    wide = np.full((block.shape[0], len(merged)), np.nan)
    wide[:, np.searchsorted(merged, times)] = block
    return merged, wide


def _inside(times: FloatArray, since: float | None, until: float | None) -> Any:
    keep = np.ones(len(times), dtype=bool)
    if since is not None:
        keep &= times >= since
    if until is not None:
        keep &= times <= until
    return keep


def open_recording(path: str | os.PathLike[str]) -> Recording:
    """Open a recording for reading. A file whose writer was killed opens too: SQLite replays
    its write-ahead log. Raises RecordingError (one line) for anything that is not a readable
    gpuscope recording."""
    source = Path(path)
    try:
        mode: int | None = source.stat().st_mode
    except OSError:
        mode = None  # the open below says why
    if mode is not None and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        # Opening a FIFO with no writer would block; a device would never end.
        raise RecordingError(f"cannot read {source}: it is {file_kind(mode)}; gpuscope reads "
                             "only regular files")
    try:
        with open(source, "rb") as handle:
            head = handle.read(len(_SQLITE_MAGIC))
    except FileNotFoundError:
        raise RecordingError(f"{source}: no such file") from None
    except IsADirectoryError:
        raise RecordingError(f"{source} is a directory, not a recording") from None
    except OSError as exc:
        raise RecordingError(f"cannot read {source}: {exc.strerror or exc}") from exc
    if head != _SQLITE_MAGIC:
        what = "an empty file" if not head else "not an SQLite file"
        raise RecordingError(f"{source} is not a gpuscope recording ({what})")
    try:
        # Opened read-write so that SQLite can replay a killed writer's WAL; nothing is written.
        db = sqlite3.connect(f"{source.resolve().as_uri()}?mode=rw", uri=True,
                             check_same_thread=False)
    except sqlite3.Error as exc:
        raise RecordingError(f"cannot open {source}: {exc}") from exc
    try:
        tables = {row[0] for row in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not {"meta", "series"} <= tables or not ({"samples"} <= tables
                                                     or {"chunks", "tail"} <= tables):
            raise RecordingError(f"{source} is an SQLite file but not a gpuscope recording")
        meta_rows = dict(db.execute("SELECT key, value FROM meta").fetchall())
        meta = parse_meta(source, meta_rows)
        chunked = {"chunks", "tail"} <= tables
        if meta.version == 3 and not chunked:
            raise _damaged(source, "its chunks table is missing")
        series = tuple(RecordedSeries(int(r[0]), str(r[1]), str(r[2]),
                                      None if r[3] is None else str(r[3]))
                       for r in db.execute("SELECT id, name, unit, source FROM series ORDER BY id"))
        if not chunked:
            # Through the (series_id, t) index, the ends: text and blobs sort after numbers,
            # NULL before them.
            for order in ("ASC", "DESC"):
                end = db.execute(f"SELECT series_id FROM samples ORDER BY series_id {order} "
                                 "LIMIT 1").fetchone()
                if end is not None and not isinstance(end[0], int):
                    raise RecordingError(_bad_type(source, type(end[0]).__name__))
        return Recording(source, db, meta, series, chunked)
    except RecordingError:
        with contextlib.suppress(sqlite3.Error):
            db.close()
        raise
    except (sqlite3.DatabaseError, ValueError, TypeError) as exc:
        with contextlib.suppress(sqlite3.Error):
            db.close()
        raise _damaged(source, exc) from exc
