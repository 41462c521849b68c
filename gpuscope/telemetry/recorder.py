"""Recordings: telemetry samples in an SQLite file that survives a crash.

The file (schema version 2):

- `meta(key, value)`: format "gpuscope-recording", version, min_reader_version (the oldest
  reader that can read it: 1, since version 2 only adds a table), gpuscope_version,
  started_utc, rate_hz, inventory (JSON: which GPUs these are), and ended_utc once closed
  cleanly;
- `series(id, name, unit, source)`: "0000:03:00.0/power_w", "W", "sysfs:/sys/...";
- `samples(t, series_id, value)`: t in unix seconds; missing samples are not stored. Indexed on
  (series_id, t);
- `missing(t, series_id, reason)` (version 2): from time t on, the series is missing for
  `reason`; an empty reason means it has values again. A row per change, not per tick.

Version 1 files (no `missing` table) open as before, without reasons.

`Recorder` is fed by the sampler's tick callback through a queue; a writer thread inserts and
commits at least every `commit_interval_s` (0.5 s), in WAL mode with synchronous=NORMAL: a
commit is in the WAL file once it returns, so `kill -9` of the recording process loses at most
the last half second or so. SQLite replays the WAL when the file is next opened. Every
`checkpoint_interval_s` (1 s) the WAL is copied into the main file, so that the main file
alone (copied without its `-wal`) holds all but the last seconds.

Nothing is lost or clobbered: the writer holds `<file>.lock` (`gpuscope.safe_write.WriterLock`)
while it runs, so a second writer, even with `overwrite`, is refused with the first one's PID;
a write that fails (a full disk) stops the writer, which drops further ticks instead of queuing
them, and the file keeps what was committed with meta `incomplete_reason` saying why. That key
is written at the start ("not closed by its writer") and removed by a clean close, so a killed
writer's file says so too.

`open_recording` reads one back; a file that is not a gpuscope recording, is newer than this
gpuscope, or is damaged raises `RecordingError` with a one-line reason.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import logging
import math
import os
import queue
import sqlite3
import stat
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np

from gpuscope import __version__
from gpuscope.i18n import message
from gpuscope.metrics import reason_in_force, split_series_name, stored_unit
from gpuscope.model import Inventory, to_jsonable
from gpuscope.safe_write import FileLockedError, WriterLock
from gpuscope.telemetry.recording_meta import MAX_TIME_S, bad_time_message, parse_meta
from gpuscope.telemetry.recording_meta import MIN_READER_VERSION as MIN_READER_VERSION
from gpuscope.telemetry.recording_meta import RECORDING_FORMAT as RECORDING_FORMAT
from gpuscope.telemetry.recording_meta import RECORDING_VERSION as RECORDING_VERSION
from gpuscope.telemetry.recording_meta import LoadCancelled as LoadCancelled
from gpuscope.telemetry.recording_meta import RecordedSeries as RecordedSeries
from gpuscope.telemetry.recording_meta import RecordingError as RecordingError
from gpuscope.telemetry.recording_meta import RecordingMeta as RecordingMeta
from gpuscope.telemetry.ring import FloatArray, SeriesRing
from gpuscope.telemetry.sampler import Sampler, TickEvent
from gpuscope.untrusted import file_kind

log = logging.getLogger(__name__)

DEFAULT_COMMIT_INTERVAL_S = 0.5
DEFAULT_CHECKPOINT_INTERVAL_S = 1.0
# Disk space the writer lock holds back, given up on a full disk to mark the file incomplete
# and move its WAL into the main file.
_RESERVE_BYTES = 256 * 1024
_NOT_CLOSED = "its writer did not close it (still recording, killed or crashed)"
MAX_QUEUED_TICKS = 100_000  # about 1.4 h at 20 Hz: past that the writer is stuck; drop ticks

_SQLITE_MAGIC = b"SQLite format 3\x00"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS series (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    unit TEXT NOT NULL,
    source TEXT
);
CREATE TABLE IF NOT EXISTS samples (t REAL NOT NULL, series_id INTEGER NOT NULL, value REAL);
CREATE INDEX IF NOT EXISTS samples_series_t ON samples (series_id, t);
CREATE TABLE IF NOT EXISTS missing (t REAL NOT NULL, series_id INTEGER NOT NULL,
                                    reason TEXT NOT NULL);
"""


_ROW_DTYPE = np.dtype([("t", np.float64), ("v", np.float64)])


def _utc_now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds")


_STOP = object()


class Recorder:
    """Writes ticks into the SQLite file at `path` on a writer thread of its own.

    Feed it with `attach(sampler)` (or subscribe `on_tick` yourself); `close()` flushes what is
    queued, marks the recording complete and ends the writer. `error` holds the writer's
    failure (disk full...) once it had one; the sampler is never blocked by the recorder."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        rate_hz: float | None = None,
        inventory: Inventory | None = None,
        overwrite: bool = False,
        commit_interval_s: float = DEFAULT_COMMIT_INTERVAL_S,
        checkpoint_interval_s: float = DEFAULT_CHECKPOINT_INTERVAL_S,
    ) -> None:
        self.path = Path(path)
        self.commit_interval_s = commit_interval_s
        self.checkpoint_interval_s = checkpoint_interval_s
        self.error: str | None = None
        self.ticks_written = 0
        self.rows_written = 0
        self.dropped_ticks = 0
        self._lock = WriterLock(self.path, reserve_bytes=_RESERVE_BYTES)
        try:
            self._lock.acquire()
        except FileLockedError as exc:
            raise RecordingError(message(
                "{path} is being recorded by process {pid}; stop that recording first or "
                "record into another file", path=str(self.path),
                pid="?" if exc.pid is None else str(exc.pid))) from None
        except OSError as exc:
            raise RecordingError(f"cannot write a recording to {self.path}: "
                                 f"{exc.strerror or exc}") from exc
        try:
            self._open(rate_hz, inventory, overwrite)
        except BaseException:
            self._lock.release()
            raise
        self._series_ids: dict[str, int] = {}
        self._series_sources: dict[str, str | None] = {}
        self._queue: queue.Queue[Any] = queue.Queue()
        self._unsubscribe: Any = None
        self._closed = False
        self._writer = threading.Thread(target=self._run, daemon=True,
                                        name="telemetry-recorder")
        self._writer.start()

    def _open(self, rate_hz: float | None, inventory: Inventory | None,
              overwrite: bool) -> None:
        if self.path.exists():
            if not overwrite:
                raise RecordingError(f"{self.path} exists; choose another file name")
            for suffix in ("", "-wal", "-shm", "-journal"):
                try:
                    Path(f"{self.path}{suffix}").unlink()
                except FileNotFoundError:
                    pass
                except OSError as exc:
                    raise RecordingError(f"cannot replace {self.path}: {exc.strerror}") from exc
        try:
            self._db = sqlite3.connect(str(self.path), check_same_thread=False,
                                       isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
            meta: dict[str, str] = {
                "format": RECORDING_FORMAT,
                "version": str(RECORDING_VERSION),
                "min_reader_version": str(MIN_READER_VERSION),
                "gpuscope_version": __version__,
                "started_utc": _utc_now(),
                "incomplete_reason": _NOT_CLOSED,
            }
            if rate_hz is not None:
                meta["rate_hz"] = repr(float(rate_hz))
            if inventory is not None:
                meta["inventory"] = json.dumps(to_jsonable(inventory), separators=(",", ":"))
            self._db.execute("BEGIN")
            self._db.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                                 sorted(meta.items()))
            self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            raise RecordingError(f"cannot write a recording to {self.path}: {exc}") from exc
        except OSError as exc:
            raise RecordingError(f"cannot write a recording to {self.path}: "
                                 f"{exc.strerror or exc}") from exc

    # ------------------------------------------------------------------ feeding

    def attach(self, sampler: Sampler) -> None:
        """Record every tick of `sampler`, with its series' units and sources."""
        for info in sampler.series:
            reading = sampler.latest.get(info.name)
            self._queue.put(("series", info.name, info.unit,
                             reading.source if reading is not None else None))
        self._unsubscribe = sampler.subscribe(self.on_tick)

    def on_tick(self, event: TickEvent) -> None:
        """The sampler's tick callback: queue the tick and return at once."""
        if self._closed or self.error is not None:  # a failed writer takes nothing more
            return
        if self._queue.qsize() >= MAX_QUEUED_TICKS:
            self.dropped_ticks += 1
            return
        self._queue.put(("tick", event.time_s, event.values, event.sources, event.reasons))

    def close(self, timeout_s: float = 30.0) -> None:
        """Write what is queued, mark the recording complete (or, after a failure, incomplete
        with the reason), end the writer, close the file and release its lock."""
        if self._closed:
            return
        self._closed = True
        if self._unsubscribe is not None:
            self._unsubscribe()
        self._queue.put(_STOP)
        self._writer.join(timeout_s)
        if self._writer.is_alive():
            self.error = self.error or f"the writer did not finish within {timeout_s:g} s"
            return
        try:
            if self.error is None:
                self._db.execute("BEGIN")
                self._db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                                 ("ended_utc", _utc_now()))
                self._db.execute("DELETE FROM meta WHERE key = 'incomplete_reason'")
                self._db.execute("COMMIT")
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            else:
                self._mark_incomplete(self.error)
            self._db.close()
        except sqlite3.Error as exc:
            self.error = self.error or f"closing {self.path}: {exc}"
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
        finally:
            self._lock.release()

    def _mark_incomplete(self, reason: str) -> None:
        """Best effort, in the space the lock held back: on a full disk even this may not fit,
        and the reason written at the start ("not closed by its writer") stays."""
        self._lock.free_reserve()
        try:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            self._db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                             ("incomplete_reason", reason))
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error as exc:  # the CLI says the error itself, on one line
            log.info("cannot mark %s incomplete: %s", self.path, exc)

    def __enter__(self) -> Recorder:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    # ------------------------------------------------------------------ the writer

    def _run(self) -> None:
        rows: list[tuple[float, int, float]] = []
        reasons: list[tuple[float, int, str]] = []
        last_commit = last_checkpoint = time.monotonic()
        ticks = 0
        stop = False
        while not stop:
            timeout = max(0.0, last_commit + self.commit_interval_s - time.monotonic())
            try:
                item = self._queue.get(timeout=timeout)
            except queue.Empty:
                item = None
            if item is _STOP:
                stop = True
            elif item is not None:
                try:
                    ticks += self._take(item, rows, reasons)
                except sqlite3.Error as exc:
                    self._fail(exc)
                    return
            due = time.monotonic() - last_commit >= self.commit_interval_s
            if stop or due or len(rows) >= 50_000:
                if rows or ticks or reasons:
                    try:
                        self._db.execute("BEGIN")
                        self._db.executemany(
                            "INSERT INTO samples (t, series_id, value) VALUES (?, ?, ?)", rows)
                        if reasons:
                            self._db.executemany(
                                "INSERT INTO missing (t, series_id, reason) VALUES (?, ?, ?)",
                                reasons)
                        self._db.execute("COMMIT")
                    except sqlite3.Error as exc:
                        self._fail(exc)
                        return
                    self.rows_written += len(rows)
                    self.ticks_written += ticks
                    rows = []
                    reasons = []
                    ticks = 0
                last_commit = time.monotonic()
                if not stop and last_commit - last_checkpoint >= self.checkpoint_interval_s:
                    try:  # PASSIVE: never waits for a reader; one still open just defers it
                        self._db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                    except sqlite3.Error as exc:
                        self._fail(exc)
                        return
                    last_checkpoint = last_commit

    def _fail(self, exc: sqlite3.Error) -> None:
        self.error = message("writing {path} failed ({why}); it keeps the {ticks} ticks "
                             "written before, marked incomplete", path=str(self.path),
                             why=str(exc), ticks=self.ticks_written)
        log.info("%s", self.error)  # said once, by whoever reads `error` (the CLI, exit 1)
        try:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
        except sqlite3.Error:
            pass

    def _take(self, item: tuple[Any, ...], rows: list[tuple[float, int, float]],
              reasons: list[tuple[float, int, str]]) -> int:
        if item[0] == "series":
            _, name, unit, source = item
            self._series_id(name, unit, source)
            return 0
        _, t, values, sources, changed_reasons = item
        for name, source in sources.items():
            if self._series_sources.get(name) != source:
                self._series_id(name, None, source)
        ids = self._series_ids
        for name, value in values.items():
            if value != value:  # NaN: a missing sample is not stored
                continue
            series_id = ids.get(name)
            if series_id is None:
                series_id = self._series_id(name, None, sources.get(name))
            rows.append((t, series_id, value))
        for name, reason in changed_reasons.items():
            series_id = ids.get(name)
            if series_id is None:
                series_id = self._series_id(name, None, sources.get(name))
            reasons.append((t, series_id, reason))
        return 1

    def _series_id(self, name: str, unit: str | None, source: str | None) -> int:
        known = self._series_ids.get(name)
        if known is None:
            if unit is None:
                unit = stored_unit(split_series_name(name)[1])
            self._db.execute("INSERT OR IGNORE INTO series (name, unit, source) VALUES (?, ?, ?)",
                             (name, unit, source))
            row = self._db.execute("SELECT id FROM series WHERE name = ?", (name,)).fetchone()
            known = int(row[0])
            self._series_ids[name] = int(known)
            self._series_sources[name] = source
        elif source is not None and self._series_sources.get(name) != source:
            self._db.execute("UPDATE series SET source = ? WHERE id = ?", (source, known))
            self._series_sources[name] = source
        return int(known)


def write_recording(path: str | os.PathLike[str], times: FloatArray,
                    columns: Mapping[str, FloatArray], *, rate_hz: float | None = None,
                    inventory: Inventory | None = None,
                    sources: Mapping[str, str] | None = None,
                    reasons: Mapping[str, str] | None = None,
                    overwrite: bool = False) -> Recorder:
    """Write samples held in arrays (`times`, and per series name its values, NaN where
    missing) as a recording, through the same writer as live ticks: for imports, tests and
    benchmarks. `reasons` gives why a series is missing. Returns the closed recorder."""
    recorder = Recorder(path, rate_hz=rate_hz, inventory=inventory, overwrite=overwrite)
    names = list(columns)
    block = (np.stack([np.asarray(columns[n], dtype=np.float64) for n in names])
             if names else np.empty((0, len(times))))
    first_sources = dict(sources or {})
    first_reasons = dict(reasons or {})
    try:
        for index, t in enumerate(np.asarray(times, dtype=np.float64).tolist()):
            row = block[:, index].tolist()
            recorder.on_tick(TickEvent(t, index + 1, dict(zip(names, row, strict=True)),
                                       first_sources if index == 0 else {}, 0.0,
                                       first_reasons if index == 0 else {}))
    finally:
        recorder.close()
    if recorder.error is not None:
        raise RecordingError(recorder.error)
    return recorder


# ----------------------------------------------------------------------------- reading


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


class Recording:
    """A recording opened for reading. Use `open_recording(path)`."""

    def __init__(self, path: Path, db: sqlite3.Connection, meta: RecordingMeta,
                 series: tuple[RecordedSeries, ...]) -> None:
        self.path = path
        self._db = db
        self.meta = meta
        self.series = series
        self._by_name = {s.name: s for s in series}
        try:
            self._has_missing = bool(db.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'missing'"
            ).fetchone())
        except sqlite3.DatabaseError:
            self._has_missing = False

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

    def sample_count(self) -> int:
        return int(self._query("SELECT COUNT(*) FROM samples")[0][0])

    def time_range(self) -> tuple[float, float] | None:
        """(first, last) sample time; a damaged file's text or absurd time raises."""
        row = self._query("SELECT MIN(t), MAX(t) FROM samples")[0]
        if row[0] is None:
            return None
        for t in row:  # text and blobs sort after every number: MAX finds them
            if not isinstance(t, (int, float)):
                raise RecordingError(_bad_type(self.path, type(t).__name__))
            if not 0.0 <= t <= MAX_TIME_S:
                raise RecordingError(bad_time_message(self.path, float(t)))
        return float(row[0]), float(row[1])

    def read(self, series: str, since: float | None = None,
             until: float | None = None) -> tuple[FloatArray, FloatArray]:
        """(times, values) of one series in time order, `since <= t <= until`."""
        info = self._by_name.get(series)
        if info is None:
            raise RecordingError(f"{self.path} has no series {series!r}")
        try:
            # In SQLite any column holds any type: a damaged file's text or blob is found
            # here, at C speed, rather than taken for a number (float(b"1") is 1.0).
            bad = self._db.execute(_BAD_TYPES_SQL, (info.id,)).fetchone()
            if bad is not None:
                raise RecordingError(_bad_type(self.path, bad[0]))
            if since is None and until is None:  # every row, whatever its t
                cursor = self._db.execute(
                    "SELECT t, value FROM samples WHERE series_id = ? ORDER BY t", (info.id,))
            else:
                cursor = self._db.execute(
                    "SELECT t, value FROM samples WHERE series_id = ? AND t >= ? AND t <= ? "
                    "ORDER BY t", (info.id, -math.inf if since is None else since,
                                   math.inf if until is None else until))
            # Straight from the cursor into one array: no list of a million tuples.
            data = np.fromiter(((float(t), math.nan if v is None else float(v))
                                for t, v in cursor), dtype=_ROW_DTYPE)
        except sqlite3.DatabaseError as exc:
            raise RecordingError(f"{self.path}: damaged recording ({exc})") from exc
        except (TypeError, ValueError, OverflowError) as exc:  # a value that is not a number
            raise RecordingError(f"{self.path}: damaged recording ({exc})") from exc
        times = data["t"]
        if len(times) and not (np.isfinite(times).all() and times[0] >= 0.0
                               and times[-1] <= MAX_TIME_S):
            bad = times[~(np.isfinite(times) & (times >= 0.0) & (times <= MAX_TIME_S))][0]
            raise RecordingError(bad_time_message(self.path, float(bad)))
        return times.copy(), data["v"].copy()

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
            info = self._by_name.get(series)
            if info is None:
                raise RecordingError(f"{self.path} has no series {series!r}")
            sql += " WHERE series_id = ?"
            args = (info.id,)
        out: dict[str, list[tuple[float, str]]] = {}
        for t, series_id, reason in self._query(sql + " ORDER BY t, rowid", args):
            name = names.get(int(series_id))
            if name is not None:
                out.setdefault(name, []).append((float(t), str(reason)))
        return out

    def reason_at(self, series: str, time_s: float) -> str | None:
        """Why `series` was missing at `time_s`, or None (it had values, or no reason was
        recorded)."""
        return reason_in_force(self.missing_reasons(series).get(series, []), time_s)

    def iter_rows(self) -> Iterator[tuple[float, int, float]]:
        """Every sample (t, series_id, value) in the order written, streamed; a row that is
        not (a date, an id, a number or nothing) raises RecordingError."""
        try:
            cursor = self._db.execute("SELECT t, series_id, value FROM samples ORDER BY rowid")
            while True:
                chunk = cursor.fetchmany(4096)
                if not chunk:
                    return
                for t, series_id, value in chunk:
                    yield self._checked_row(t, series_id, value)
        except sqlite3.DatabaseError as exc:
            raise RecordingError(f"{self.path}: damaged recording ({exc})") from exc

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
            raise RecordingError(f"{self.path}: damaged recording ({exc})") from exc

    def load_into_rings(self, max_rows: int | None = None, *,
                        progress: Callable[[int, int], None] | None = None,
                        cancelled: Callable[[], bool] | None = None) -> dict[str, SeriesRing]:
        """device -> a SeriesRing with its series, holding the whole recording (or its newest
        `max_rows` ticks): what the Telemetry page scrolls and zooms through.

        Every ring has a row per tick of the recording (NaN where its device gave nothing,
        so a lost GPU is a gap, not a line across), and a NaN row in any pause of more than
        three sampling periods (the recorder was stopped or fell behind).
        `progress(series_read, series_total)` is called after each series; `cancelled()`,
        checked between series, ends the load with `LoadCancelled`."""
        total = len(self.series)
        columns: dict[str, tuple[FloatArray, FloatArray]] = {}
        for done, info in enumerate(self.series, start=1):
            if cancelled is not None and cancelled():
                raise LoadCancelled(f"loading {self.path} was cancelled")
            columns[info.name] = self.read(info.name)
            if progress is not None:
                progress(done, total)
        stamps = [times for times, _ in columns.values() if len(times)]
        times = np.unique(np.concatenate(stamps)) if stamps else np.empty(0)
        rate = self.meta.rate_hz
        if rate and len(times) > 1:
            pauses = np.flatnonzero(np.diff(times) > 3.0 / rate)
            if len(pauses):
                breaks = times[pauses] + 1.0 / rate
                times = np.union1d(times, breaks)
        if max_rows is not None and len(times) > max_rows:
            times = times[-max_rows:]
        rings: dict[str, SeriesRing] = {}
        for device in self.devices:
            names = [s.name for s in self.series if s.device == device]
            ring = SeriesRing(names, max(1, len(times)))
            values: dict[str, FloatArray] = {}
            for name in names:
                series_times, series_values = columns[name]
                column = np.full(len(times), np.nan)
                if len(series_times) and len(times):
                    index = np.searchsorted(times, series_times)
                    inside = (index < len(times))
                    inside[inside] &= times[index[inside]] == series_times[inside]
                    column[index[inside]] = series_values[inside]
                values[name] = column
            ring.append_rows(times, values)
            rings[device] = ring
        return rings

    def _query(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        try:
            return self._db.execute(sql, tuple(args)).fetchall()
        except sqlite3.DatabaseError as exc:
            raise RecordingError(f"{self.path}: damaged recording ({exc})") from exc

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Recording:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()


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
        if not {"meta", "series", "samples"} <= tables:
            raise RecordingError(f"{source} is an SQLite file but not a gpuscope recording")
        meta_rows = dict(db.execute("SELECT key, value FROM meta").fetchall())
        meta = parse_meta(source, meta_rows)
        series = tuple(RecordedSeries(int(r[0]), str(r[1]), str(r[2]),
                                      None if r[3] is None else str(r[3]))
                       for r in db.execute("SELECT id, name, unit, source FROM series ORDER BY id"))
        # Through the (series_id, t) index, the ends: text and blobs sort after numbers, NULL
        # before them.
        for order in ("ASC", "DESC"):
            end = db.execute(f"SELECT series_id FROM samples ORDER BY series_id {order} LIMIT 1"
                             ).fetchone()
            if end is not None and not isinstance(end[0], int):
                raise RecordingError(_bad_type(source, type(end[0]).__name__))
    except RecordingError:
        db.close()
        raise
    except (sqlite3.DatabaseError, ValueError, TypeError) as exc:
        db.close()
        raise RecordingError(f"{source}: damaged recording ({exc})") from exc
    return Recording(source, db, meta, series)
