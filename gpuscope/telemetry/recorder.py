"""Recordings: telemetry samples in an SQLite file that survives a crash.

The file (schema version 3, `recording_chunks`):

- `meta(key, value)`: format "gpuscope-recording", version, min_reader_version (the oldest
  reader that can read it), gpuscope_version, started_utc, rate_hz, inventory (JSON: which
  GPUs these are), and ended_utc once closed cleanly;
- `series(id, name, unit, source)`: "0000:03:00.0/power_w", "W", "sysfs:/sys/...";
- `chunks(...)`: a minute or so of ticks of every series, compressed, with a summary per
  series (minimum, maximum, mean... of eight blocks of it) so that opening a long recording
  reads summaries, not samples; `tail(t_us, data)`: the ticks of the chunk still open;
- `missing(t, series_id, reason)`: from time t on, the series is missing for `reason`; an
  empty reason means it has values again. A row per change, not per tick.

Version 1 and 2 files (a `samples(t, series_id, value)` row per sample) open as before
(`gpuscope.telemetry.recording`); `Recorder(format_version=2)` still writes version 2, for
tests and the format benchmark.

`Recorder` is fed by the sampler's tick callback through a queue; a writer thread appends
the ticks to the open chunk and commits them (as tail rows) at least every
`commit_interval_s` (0.5 s), in WAL mode with synchronous=NORMAL: a commit is in the WAL
file once it returns, so `kill -9` of the recording process loses at most the last half
second or so. A chunk that closes replaces its tail rows in the same transaction. SQLite
replays the WAL when the file is next opened. Every `checkpoint_interval_s` (1 s) the WAL is
copied into the main file, so that the main file alone (copied without its `-wal`) holds all
but the last seconds.

Nothing is lost or clobbered: the writer holds `<file>.lock` (`gpuscope.safe_write.WriterLock`)
while it runs, so a second writer, even with `overwrite`, is refused with the first one's PID;
a write that fails (a full disk) stops the writer, which drops further ticks instead of queuing
them, and the file keeps what was committed with meta `incomplete_reason` saying why. That key
is written at the start ("not closed by its writer") and removed by a clean close, so a killed
writer's file says so too.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import logging
import os
import queue
import sqlite3
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np

from gpuscope import __version__
from gpuscope.i18n import message
from gpuscope.metrics import split_series_name, stored_unit
from gpuscope.model import Inventory, to_jsonable
from gpuscope.safe_write import FileLockedError, WriterLock
from gpuscope.telemetry.recording import Recording as Recording
from gpuscope.telemetry.recording import open_recording as open_recording
from gpuscope.telemetry.recording_chunks import (
    SCHEMA_COMMON,
    SCHEMA_V3,
    OpenChunk,
    encode_chunk,
    insert_chunk,
    to_us,
)
from gpuscope.telemetry.recording_meta import MIN_READER_VERSION as MIN_READER_VERSION
from gpuscope.telemetry.recording_meta import RECORDING_FORMAT as RECORDING_FORMAT
from gpuscope.telemetry.recording_meta import RECORDING_VERSION as RECORDING_VERSION
from gpuscope.telemetry.recording_meta import LoadCancelled as LoadCancelled
from gpuscope.telemetry.recording_meta import RecordedSeries as RecordedSeries
from gpuscope.telemetry.recording_meta import RecordingError as RecordingError
from gpuscope.telemetry.recording_meta import RecordingMeta as RecordingMeta
from gpuscope.telemetry.ring import FloatArray
from gpuscope.telemetry.sampler import Sampler, TickEvent

log = logging.getLogger(__name__)

DEFAULT_COMMIT_INTERVAL_S = 0.5
DEFAULT_CHECKPOINT_INTERVAL_S = 1.0
# Disk space the writer lock holds back, given up on a full disk to mark the file incomplete
# and move its WAL into the main file.
_RESERVE_BYTES = 256 * 1024
_NOT_CLOSED = "its writer did not close it (still recording, killed or crashed)"
MAX_QUEUED_TICKS = 100_000  # about 1.4 h at 20 Hz: past that the writer is stuck; drop ticks

_SCHEMA_V2 = SCHEMA_COMMON + """
CREATE TABLE IF NOT EXISTS samples (t REAL NOT NULL, series_id INTEGER NOT NULL, value REAL);
CREATE INDEX IF NOT EXISTS samples_series_t ON samples (series_id, t);
"""


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
        format_version: int = RECORDING_VERSION,
    ) -> None:
        if format_version not in (2, RECORDING_VERSION):
            raise ValueError(f"gpuscope writes recordings of version 2 or {RECORDING_VERSION}")
        self.path = Path(path)
        self.format_version = format_version
        self._chunk = OpenChunk()
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
        self._names: list[str] = []  # by id: the rows of a chunk
        self._last_t_us = -(2**63)
        self._ready: list[OpenChunk] = []  # closed chunks, written at the next commit
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
            chunked = self.format_version >= 3
            self._db.executescript(SCHEMA_V3 if chunked else _SCHEMA_V2)
            meta: dict[str, str] = {
                "format": RECORDING_FORMAT,
                "version": str(self.format_version),
                "min_reader_version": str(MIN_READER_VERSION if chunked else 1),
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

    def wait_for_room(self, max_queued_ticks: int) -> None:
        """Block until the writer has at most `max_queued_ticks` ticks to write (or has
        failed): for writers of many ticks at once, which must not outrun it."""
        while (self._queue.qsize() > max_queued_ticks and self.error is None
               and self._writer.is_alive()):
            time.sleep(0.002)

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
            if stop or due or len(rows) >= 50_000 or len(self._chunk.pending_tail) >= 4096:
                if rows or ticks or reasons or (stop and len(self._chunk)):
                    try:
                        self._commit(rows, reasons, closing=stop)
                    except sqlite3.Error as exc:
                        self._fail(exc)
                        return
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

    def _commit(self, rows: list[tuple[float, int, float]],
                reasons: list[tuple[float, int, str]], closing: bool) -> None:
        """One transaction: the rows (version 2), or the chunks that closed and the open
        chunk's new tail rows (version 3), and the changes of missing reasons."""
        if closing and len(self._chunk):
            self._ready.append(self._chunk)
            self._chunk = OpenChunk()
        # Encoded before BEGIN: the transaction holds the file only to write.
        encoded = [encode_chunk(*chunk.block(), self._names) for chunk in self._ready]
        self._db.execute("BEGIN")
        if rows:
            self._db.executemany("INSERT INTO samples (t, series_id, value) VALUES (?, ?, ?)",
                                 rows)
        for chunk in encoded:
            insert_chunk(self._db, chunk)
        if self._chunk.pending_tail:
            self._db.executemany("INSERT OR REPLACE INTO tail (t_us, data) VALUES (?, ?)",
                                 self._chunk.pending_tail)
        if reasons:
            self._db.executemany("INSERT INTO missing (t, series_id, reason) VALUES (?, ?, ?)",
                                 reasons)
        self._db.execute("COMMIT")
        self.rows_written += len(rows) + sum(chunk.samples for chunk in encoded)
        self._ready = []
        self._chunk.pending_tail = []

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
        if self.format_version >= 3:
            return self._take_tick(t, values, sources, changed_reasons, reasons)
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

    def _take_tick(self, t: float, values: Mapping[str, float], sources: Mapping[str, str],
                   changed_reasons: Mapping[str, str],
                   reasons: list[tuple[float, int, str]]) -> int:
        """Version 3: the tick as a row of the open chunk (a value per series id)."""
        ids = self._series_ids
        for names in (values, changed_reasons):
            for name in names:  # in the tick's order: the series' order in the file
                if name not in ids:
                    self._series_id(name, None, sources.get(name))
        t_us = to_us(t)
        if t_us <= self._last_t_us:  # the wall clock stepped back: ticks stay in order
            self.dropped_ticks += 1
            return 0
        self._last_t_us = t_us
        row = np.full(len(self._names), np.nan)
        for name, value in values.items():
            row[ids[name] - 1] = value
        if self._chunk.due(t_us):
            self._ready.append(self._chunk)
            self._chunk = OpenChunk()
        self._chunk.add(t_us, row)
        for name, reason in changed_reasons.items():
            reasons.append((t_us / 1e6, ids[name], reason))
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
            self._names.append(name)
        elif source is not None and self._series_sources.get(name) != source:
            self._db.execute("UPDATE series SET source = ? WHERE id = ?", (source, known))
            self._series_sources[name] = source
        return int(known)


def write_recording(path: str | os.PathLike[str], times: FloatArray,
                    columns: Mapping[str, FloatArray], *, rate_hz: float | None = None,
                    inventory: Inventory | None = None,
                    sources: Mapping[str, str] | None = None,
                    reasons: Mapping[str, str] | None = None,
                    overwrite: bool = False,
                    format_version: int = RECORDING_VERSION,
                    close_timeout_s: float = 3600.0) -> Recorder:
    """Write samples held in arrays (`times`, and per series name its values, NaN where
    missing) as a recording, through the same writer as live ticks: for imports, tests and
    benchmarks. `reasons` gives why a series is missing. Returns the closed recorder."""
    recorder = Recorder(path, rate_hz=rate_hz, inventory=inventory, overwrite=overwrite,
                        format_version=format_version)
    names = list(columns)
    block = (np.stack([np.asarray(columns[n], dtype=np.float64) for n in names])
             if names else np.empty((0, len(times))))
    first_sources = dict(sources or {})
    first_reasons = dict(reasons or {})
    try:
        for index, t in enumerate(np.asarray(times, dtype=np.float64).tolist()):
            if index % 1024 == 0:
                recorder.wait_for_room(4096)
            row = block[:, index].tolist()
            recorder.on_tick(TickEvent(t, index + 1, dict(zip(names, row, strict=True)),
                                       first_sources if index == 0 else {}, 0.0,
                                       first_reasons if index == 0 else {}))
    finally:
        recorder.close(close_timeout_s)
    if recorder.error is not None:
        raise RecordingError(recorder.error)
    if recorder.dropped_ticks:
        raise RecordingError(f"{recorder.dropped_ticks} ticks could not be written to {path}")
    return recorder
