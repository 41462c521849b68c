"""Recording format version 3: samples in chunks of about a minute, each with its summary.

Tables (besides `meta`, `series` and `missing`, as in version 2):

- `chunks(id, first_us, last_us, ticks, series, samples, times, data, summary, flags)`: a
  closed chunk of `ticks` ticks from `first_us` to `last_us` (unix microseconds) of the
  first `series` series (by id): their times and values (`chunk_codec`), and per series
  the finest summary level of the chunk, SUMMARY_BLOCKS blocks of its ticks: minimum,
  maximum, mean, last value, count and the tick indices of the extremes and of the first
  and last missing sample. `flags` holds, for flag series (throttle reasons), per block how
  many samples have each reason (`decimate.FLAG_MASKS`).
- `tail(t_us, data)`: the ticks of the chunk still open, a row per tick (its values by
  series id, float64, NaN where missing). The writer commits them every half second, so a
  killed writer loses at most that; once the chunk closes it replaces them in the same
  transaction.

Every time in a version 3 file is a whole number of microseconds (`missing.t` too, as
`t_us / 1e6`), so that a tick's time reads back the same everywhere.
"""

from __future__ import annotations

import math
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np
import numpy.typing as npt

from gpuscope.metrics import CATALOGUE, Metric, MetricKind, split_series_name, stored_unit
from gpuscope.telemetry.chunk_codec import (
    ChunkError,
    decode_block,
    decode_blocks,
    decode_times,
    decode_times_many,
    encode_block,
    encode_times,
    resolution_of,
)
from gpuscope.telemetry.decimate import FLAG_MASKS, Level, first_level, flag_counts
from gpuscope.telemetry.recording_meta import MAX_TIME_S

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

CHUNK_US = 60_000_000  # a chunk closes once it spans a minute...
CHUNK_MAX_TICKS = 4096  # ...or holds this many ticks (above 68 Hz)
SUMMARY_BLOCKS = 8  # blocks of the finest summary level per chunk
_SUMMARY_FIELDS = 9  # vmin, vmax, mean, last, count, imin, imax, igap_first, igap_last
DECODED_CACHE_BYTES = 96 * 2**20
_BATCH_CHUNKS = 32  # chunks decoded together while reading a range

# The tables every version since 2 has: what the recording is, its series, why they miss.
SCHEMA_COMMON = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS series (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    unit TEXT NOT NULL,
    source TEXT
);
CREATE TABLE IF NOT EXISTS missing (t REAL NOT NULL, series_id INTEGER NOT NULL,
                                    reason TEXT NOT NULL);
"""
SCHEMA_V3 = SCHEMA_COMMON + """
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY,
    first_us INTEGER NOT NULL,
    last_us INTEGER NOT NULL,
    ticks INTEGER NOT NULL,
    series INTEGER NOT NULL,
    samples INTEGER NOT NULL,
    times BLOB NOT NULL,
    data BLOB NOT NULL,
    summary BLOB NOT NULL,
    flags BLOB
);
CREATE TABLE IF NOT EXISTS tail (t_us INTEGER PRIMARY KEY, data BLOB NOT NULL);
"""


def is_flag_series(name: str) -> bool:
    """Whether a series holds flag bits (counted per reason in summaries)."""
    metric = split_series_name(name)[1]
    try:
        return CATALOGUE[Metric(metric)].kind is MetricKind.FLAGS
    except ValueError:
        return False


def to_us(time_s: float) -> int:
    return round(time_s * 1e6)


# ----------------------------------------------------------------------------- writing


@dataclass(frozen=True, slots=True)
class EncodedChunk:
    first_us: int
    last_us: int
    ticks: int
    series: int
    samples: int
    times: bytes
    data: bytes
    summary: bytes
    flags: bytes | None


def encode_chunk(times_us: IntArray, block: FloatArray, names: Sequence[str]) -> EncodedChunk:
    """A closed chunk: `block` (series, ticks) of the series `names` (by id order)."""
    resolutions = np.array([resolution_of(stored_unit(split_series_name(n)[1])) for n in names])
    summary, flags = _summaries(times_us, block, names)
    return EncodedChunk(
        int(times_us[0]), int(times_us[-1]), len(times_us), block.shape[0],
        int(np.count_nonzero(~np.isnan(block))), encode_times(times_us),
        encode_block(block, resolutions),
        encode_block(summary, np.concatenate([resolutions] * _SUMMARY_FIELDS)), flags)


def _block_ticks(ticks: int) -> int:
    return max(2, math.ceil(ticks / SUMMARY_BLOCKS))


def _summaries(times_us: IntArray, block: FloatArray, names: Sequence[str],
               ) -> tuple[FloatArray, bytes | None]:
    times = (times_us - times_us[0]).astype(np.float64)  # exact, and indices follow from them
    size = _block_ticks(len(times))
    level = first_level(times, block, size)
    count = np.maximum(level.count, 1.0)
    with np.errstate(invalid="ignore"):
        mean = np.where(level.count > 0, level.total / count, np.nan)

    def index_of(when: FloatArray) -> FloatArray:
        found = np.searchsorted(times, np.nan_to_num(when, nan=0.0)).astype(np.float64)
        return np.where(np.isnan(when), np.nan, found)

    assert level.last is not None
    fields = np.concatenate([level.vmin, level.vmax, mean, level.last, level.count,
                             index_of(level.tmin), index_of(level.tmax),
                             index_of(level.gap_first), index_of(level.gap_last)])
    flag_rows = [i for i, name in enumerate(names) if is_flag_series(name)]
    flags = None
    if flag_rows:
        starts = np.arange(0, len(times), size, dtype=np.intp)
        counts = flag_counts(block[flag_rows], starts)
        flags = encode_block(counts.reshape(-1, counts.shape[2]))
    return fields, flags


class OpenChunk:
    """The ticks of the chunk being written, and the tail rows not yet committed."""

    def __init__(self) -> None:
        self.times_us: list[int] = []
        self.rows: list[FloatArray] = []
        self.pending_tail: list[tuple[int, bytes]] = []

    def __len__(self) -> int:
        return len(self.times_us)

    def due(self, t_us: int) -> bool:
        """Whether a tick at `t_us` belongs in a new chunk."""
        return bool(self.times_us) and (t_us - self.times_us[0] >= CHUNK_US
                                        or len(self.times_us) >= CHUNK_MAX_TICKS)

    def add(self, t_us: int, row: FloatArray) -> None:
        self.times_us.append(t_us)
        self.rows.append(row)
        self.pending_tail.append((t_us, row.tobytes()))

    def block(self) -> tuple[IntArray, FloatArray]:
        width = max(len(r) for r in self.rows)
        block = np.full((width, len(self.rows)), np.nan)
        for index, row in enumerate(self.rows):
            block[:len(row), index] = row
        return np.asarray(self.times_us, dtype=np.int64), block


def insert_chunk(db: sqlite3.Connection, chunk: EncodedChunk) -> None:
    """Store a closed chunk and drop its tail rows (inside the caller's transaction)."""
    db.execute("INSERT INTO chunks (first_us, last_us, ticks, series, samples, times, data, "
               "summary, flags) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
               (chunk.first_us, chunk.last_us, chunk.ticks, chunk.series, chunk.samples,
                chunk.times, chunk.data, chunk.summary, chunk.flags))
    db.execute("DELETE FROM tail WHERE t_us <= ?", (chunk.last_us,))


# ----------------------------------------------------------------------------- reading


class DamagedChunk(Exception):
    """A chunk or tail row that does not decode, with a short reason."""


def _disagrees(chunk_id: object) -> str:
    return f"chunk {chunk_id} does not hold what its row says"


def _time_us(cell: object, what: str) -> int:
    """A stored time in µs: an integer, else DamagedChunk (a number far outside 1970..9999,
    such as 1e300, is named as a sample time that is not a date)."""
    if isinstance(cell, int):
        return cell
    if isinstance(cell, float):
        if not 0.0 <= cell / 1e6 <= MAX_TIME_S:
            raise DamagedChunk(f"a sample time of {cell / 1e6:g} s is not a date")
        raise DamagedChunk(f"{what} is not a whole number of microseconds")
    raise DamagedChunk(f"{what} is not a number")


def _times_fit(times_us: IntArray, first_us: int, last_us: int, ticks: int) -> bool:
    """Whether decoded tick times are the `ticks` ascending times from `first_us` to
    `last_us` that the chunk's row says."""
    return (len(times_us) == ticks > 0 and int(times_us[0]) == first_us
            and int(times_us[-1]) == last_us and bool(np.all(np.diff(times_us) > 0)))


def _checked_samples_row(chunk_id: int, row: Sequence[object] | None,
                         ) -> tuple[int, int, int, int, int, bytes, bytes]:
    """A chunk's row as `ChunkReader.decoded_many` reads it (id, first_us, last_us, ticks,
    series, times, data), its cells of the right types, else DamagedChunk."""
    if row is None:
        raise DamagedChunk(f"chunk {chunk_id} vanished")
    _check_cells(chunk_id, row, "samples")
    return cast(tuple[int, int, int, int, int, bytes, bytes], tuple(row))


def _check_cells(chunk_id: object, row: Sequence[object], holds: str) -> None:
    """DamagedChunk unless a chunk's row (id, first_us, last_us, ticks, series, times, and
    its samples or summary) has whole numbers and blobs where they belong."""
    if not all(isinstance(cell, int) for cell in row[1:5]):
        raise DamagedChunk(_disagrees(chunk_id))  # changed since the index was read
    if not (isinstance(row[5], bytes) and isinstance(row[6], bytes)):
        raise DamagedChunk(f"chunk {chunk_id} holds no {holds}")


def _check_summary_row(row: Sequence[object]) -> None:
    """A chunk's row as `ChunkReader.finest_level` reads it (id, first_us, last_us, ticks,
    series, times, summary, flags): DamagedChunk unless its cells have the right types."""
    chunk_id, flags_blob = row[0], row[7]
    _check_cells(chunk_id, row, "summary")
    if flags_blob is not None and not isinstance(flags_blob, bytes):
        raise DamagedChunk(f"chunk {chunk_id}'s flag counts are not a blob")


@dataclass(frozen=True, slots=True)
class ChunkIndex:
    """Where each closed chunk lies in time, and the tail's ticks after them."""

    ids: IntArray
    first_us: IntArray
    last_us: IntArray
    series: IntArray
    samples: int
    tail_us: IntArray
    ticks: int  # closed chunks' and tail's together


class ChunkReader:
    """Reads a version 3 file: its chunk index at once, summaries and samples on demand,
    with the decoded chunks of the last reads kept (DECODED_CACHE_BYTES). Thread-safe: one
    lock around the connection."""

    def __init__(self, db: sqlite3.Connection, series_count: int,
                 lock: threading.Lock) -> None:
        self._db = db
        self._lock = lock
        self.series_count = series_count
        self.index = self._read_index()
        self._cache: OrderedDict[int, tuple[IntArray, FloatArray]] = OrderedDict()
        self._last_range: tuple[tuple[int | None, int | None], IntArray, FloatArray] | None = None
        self._cached_bytes = 0

    def _read_index(self) -> ChunkIndex:
        with self._lock:
            rows = self._db.execute(
                "SELECT id, first_us, last_us, series, samples, ticks FROM chunks ORDER BY id"
            ).fetchall()
            tail = [r[0] for r in self._db.execute("SELECT t_us FROM tail ORDER BY t_us")]
        # A damaged or crafted file may hold anything in any cell: checked here, once, so
        # that every reader meets the same one-line reason.
        for row in rows:
            for cell in row[1:3]:
                _time_us(cell, "a chunk's place in time")
            if not all(isinstance(cell, int) for cell in row):
                raise DamagedChunk("a chunk's counts are not whole numbers")
            chunk_id, first_us, last_us, series, samples, ticks = row
            if not (first_us <= last_us and ticks >= 1 and series >= 0
                    and 0 <= samples <= ticks * series):
                raise DamagedChunk(_disagrees(chunk_id))
        for t_us in tail:
            _time_us(t_us, "a tick time")
        table = np.asarray(rows, dtype=np.int64).reshape(-1, 6)
        if np.any(table[1:, 1] <= table[:-1, 2]):  # the reads below search them in order
            raise DamagedChunk("its chunks overlap or are out of time order")
        last_closed = int(table[-1, 2]) if len(table) else -(2**62)
        tail_us = np.asarray([t for t in tail if t > last_closed], dtype=np.int64)
        if np.any(np.diff(tail_us) <= 0):
            raise DamagedChunk("its open chunk holds a tick time twice")
        # Summed as Python integers: crafted counts near 2**63 must not wrap around.
        return ChunkIndex(table[:, 0], table[:, 1], table[:, 2], table[:, 3],
                          sum(row[4] for row in rows), tail_us,
                          sum(row[5] for row in rows) + len(tail_us))

    def time_span_us(self) -> tuple[int, int] | None:
        index = self.index
        firsts = ([int(index.first_us[0])] if len(index.ids) else []) + (
            [int(index.tail_us[0])] if len(index.tail_us) else [])
        lasts = ([int(index.last_us[-1])] if len(index.ids) else []) + (
            [int(index.tail_us[-1])] if len(index.tail_us) else [])
        return (min(firsts), max(lasts)) if firsts else None

    # ------------------------------------------------------------------ samples

    def chunk_positions(self, since_us: int | None, until_us: int | None) -> range:
        """Positions (in the index) of the closed chunks overlapping [since, until]."""
        index = self.index
        first = 0 if since_us is None else int(np.searchsorted(index.last_us, since_us, "left"))
        stop = (len(index.ids) if until_us is None
                else int(np.searchsorted(index.first_us, until_us, "right")))
        return range(first, max(first, stop))

    def decoded(self, position: int, keep: bool = True) -> tuple[IntArray, FloatArray]:
        """(times in µs, block (series_count, ticks)) of the closed chunk at `position`;
        `keep`: kept for the next reads (not while streaming through a whole file)."""
        return self.decoded_many([position], keep)[0]

    def decoded_many(self, positions: Sequence[int], keep: bool = True,
                     ) -> list[tuple[IntArray, FloatArray]]:
        """`decoded` of each position: the chunks not in the cache read in one query and
        decoded together (`chunk_codec.decode_blocks`); damage is named as `decoded` names
        it, chunk by chunk."""
        ids = [int(self.index.ids[position]) for position in positions]
        found: dict[int, tuple[IntArray, FloatArray]] = {}
        with self._lock:
            for chunk_id in ids:
                hit = self._cache.get(chunk_id)
                if hit is not None:
                    self._cache.move_to_end(chunk_id)
                    found[chunk_id] = hit
            wanted = [chunk_id for chunk_id in ids if chunk_id not in found]
            rows = {row[0]: row for row in self._db.execute(
                "SELECT id, first_us, last_us, ticks, series, times, data FROM chunks "
                f"WHERE id IN ({','.join('?' * len(wanted))})", wanted)} if wanted else {}
        checked = [_checked_samples_row(chunk_id, rows.get(chunk_id)) for chunk_id in wanted]
        together: list[tuple[IntArray, FloatArray]] | None
        try:
            together = list(zip(decode_times_many([row[5] for row in checked],
                                                  [row[1] for row in checked]),
                                decode_blocks([row[6] for row in checked]), strict=True))
        except ChunkError:
            together = None  # one by one below, to name the damaged chunk
        for number, row in enumerate(checked):
            chunk_id, first_us, last_us, ticks, series, times_blob, data_blob = row
            if together is not None:
                times, block = together[number]
            else:
                try:
                    times = decode_times(times_blob, first_us)
                    block = decode_block(data_blob)
                except ChunkError as exc:
                    raise DamagedChunk(f"chunk {chunk_id}: {exc}") from None
            if block.shape != (series, ticks) or not _times_fit(times, first_us, last_us, ticks):
                raise DamagedChunk(_disagrees(chunk_id))
            block = self._widen(block)
            if keep and block.base is not None:
                # A view into the batch's array would keep every chunk of the batch alive,
                # unseen by the cache's count of bytes: the cache holds its own copy.
                block = block.copy()
            found[chunk_id] = (times, block)
            if keep:
                self._keep(chunk_id, found[chunk_id])
        return [found[chunk_id] for chunk_id in ids]

    def _keep(self, chunk_id: int, decoded: tuple[IntArray, FloatArray]) -> None:
        times, block = decoded
        with self._lock:
            if chunk_id in self._cache:
                return
            self._cache[chunk_id] = decoded
            self._cached_bytes += block.nbytes + times.nbytes
            while self._cached_bytes > DECODED_CACHE_BYTES and len(self._cache) > 1:
                _, (old_times, old_block) = self._cache.popitem(last=False)
                self._cached_bytes -= old_block.nbytes + old_times.nbytes

    def _widen(self, block: FloatArray) -> FloatArray:
        """A block with a row for every series (NaN for series added after it)."""
        if block.shape[0] >= self.series_count:
            return block[:self.series_count]
        wide = np.full((self.series_count, block.shape[1]), np.nan)
        wide[:block.shape[0]] = block
        return wide

    def tail_block(self) -> tuple[IntArray, FloatArray]:
        """The ticks after the last closed chunk (a writer still running, or killed)."""
        index = self.index
        if not len(index.tail_us):
            return np.empty(0, np.int64), np.empty((self.series_count, 0))
        with self._lock:
            rows = self._db.execute("SELECT t_us, data FROM tail WHERE t_us >= ? ORDER BY t_us",
                                    (int(index.tail_us[0]),)).fetchall()
        block = np.full((self.series_count, len(rows)), np.nan)
        times = np.empty(len(rows), dtype=np.int64)
        for column, (t_us, data) in enumerate(rows):
            if not isinstance(t_us, int) or not isinstance(data, bytes) or len(data) % 8:
                raise DamagedChunk("a tick of the open chunk does not decode")
            values = np.frombuffer(data, dtype=np.float64)[:self.series_count]
            block[:len(values), column] = values
            times[column] = t_us
        return times, block

    def blocks(self, since_us: int | None = None, until_us: int | None = None,
               rows: Sequence[int] | None = None, *, keep: bool = True,
               ) -> Iterator[tuple[IntArray, FloatArray]]:
        """(times µs, block) chunk by chunk over [since, until], the tail last, cut to the
        range; `rows`: only those series (default all); `keep`: see `decoded`."""
        positions = self.chunk_positions(since_us, until_us)
        tail = bool(len(self.index.tail_us)) and (until_us is None
                                                  or self.index.tail_us[0] <= until_us)
        last = len(positions) - (0 if tail else 1)
        for batch_start in range(0, len(positions), _BATCH_CHUNKS):
            batch = positions[batch_start:batch_start + _BATCH_CHUNKS]
            for number, (times, block) in enumerate(self.decoded_many(batch, keep),
                                                    start=batch_start):
                if rows is not None:
                    block = block[rows]
                if number == 0 or number == last:  # only the ends can reach outside the range
                    times, block = _cut(times, block, since_us, until_us)
                yield times, block
        if tail:
            times, block = self.tail_block()
            yield _cut(times, block if rows is None else block[rows], since_us, until_us)

    def block(self, since_us: int | None = None, until_us: int | None = None,
              rows: Sequence[int] | None = None) -> tuple[IntArray, FloatArray]:
        """Every tick in [since, until] as one block (of the series `rows`, default all).
        The last range read is kept whole: a frame asks it once per device."""
        last = self._last_range
        if last is not None and last[0] == (since_us, until_us):
            times, whole = last[1], last[2]
        else:
            parts = [part for part in self.blocks(since_us, until_us) if len(part[0])]
            if parts:
                times = np.concatenate([p[0] for p in parts])
                whole = np.concatenate([p[1] for p in parts], axis=1)
            else:
                times, whole = np.empty(0, np.int64), np.empty((self.series_count, 0))
            self._last_range = ((since_us, until_us), times, whole)
        return times, (whole if rows is None else whole[list(rows)])

    # ------------------------------------------------------------------ summaries

    def finest_level(self, names: Sequence[str], rate_hz: float | None = None) -> Level | None:
        """The finest summary level of every series, from the closed chunks' summaries and
        the tail's samples; None without a tick. With `rate_hz`, a pause of more than three
        sampling periods (the recorder stopped or fell behind) is a gap in every series.

        Each chunk's blobs are decoded on their own; everything else is done once over all
        of them, so that opening a day of recording costs a few hundred milliseconds."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, first_us, last_us, ticks, series, times, summary, flags FROM chunks "
                "ORDER BY id").fetchall()
        flag_rows = [i for i, name in enumerate(names) if is_flag_series(name)]
        decoded = self._all_chunk_parts(rows, flag_rows)
        parts: list[Level] = []
        previous: float | None = None
        if decoded:
            level, times = _assembled(decoded, self.series_count, flag_rows)
            if rate_hz:
                _mark_pauses(level, times, None, rate_hz)
            previous = float(times[-1])
            parts.append(level)
        tail_times, block = self.tail_block()
        if len(tail_times):
            level = _level_of_samples(tail_times, block, flag_rows)
            if rate_hz:
                _mark_pauses(level, tail_times / 1e6, previous, rate_hz)
            parts.append(level)
        return _joined(parts, flag_rows) if parts else None

    def _all_chunk_parts(self, rows: Sequence[Sequence[object]], flag_rows: Sequence[int],
                         ) -> list[_ChunkParts]:
        """`_chunk_parts` of every row, their blobs decoded together; damage is named as
        `_chunk_parts` names it, chunk by chunk."""
        for row in rows:
            _check_summary_row(row)
        try:
            all_times = decode_times_many([cast(bytes, row[5]) for row in rows],
                                          [cast(int, row[1]) for row in rows])
            all_fields = decode_blocks([cast(bytes, row[6]) for row in rows])
            all_flags = iter(decode_blocks([cast(bytes, row[7]) for row in rows
                                            if row[7] is not None]))
        except ChunkError:
            return [self._chunk_parts(row, flag_rows) for row in rows]
        return [self._chunk_parts(row, flag_rows, (
                    times, fields, next(all_flags) if row[7] is not None else None))
                for row, times, fields in zip(rows, all_times, all_fields, strict=True)]

    def _chunk_parts(self, row: Sequence[object], flag_rows: Sequence[int],
                     decoded: tuple[IntArray, FloatArray, FloatArray | None] | None = None,
                     ) -> _ChunkParts:
        """The decoded blobs of the chunk `row` (id, first_us, last_us, ticks, series, times,
        summary, flags), checked (`decoded`: its times, summary and flag counts, already
        decoded). Damage says the same line as `decoded` where both meet it (the times, a row
        that disagrees with its blobs). The row's cells are checked (`_check_summary_row`)."""
        chunk_id, first_us, last_us, ticks, series, times_blob, summary_blob, flags_blob = row
        assert isinstance(first_us, int) and isinstance(last_us, int)
        assert isinstance(ticks, int) and isinstance(series, int)
        if decoded is not None:
            times_us, fields, flags = decoded
        else:
            try:
                times_us = decode_times(cast(bytes, times_blob), first_us)
            except ChunkError as exc:
                raise DamagedChunk(f"chunk {chunk_id}: {exc}") from None
            try:
                fields = decode_block(cast(bytes, summary_blob))
            except ChunkError as exc:
                raise DamagedChunk(f"chunk {chunk_id}'s summary: {exc}") from None
            try:
                flags = (decode_block(flags_blob) if isinstance(flags_blob, bytes)
                         else None)
            except ChunkError as exc:
                raise DamagedChunk(f"chunk {chunk_id}'s flag counts: {exc}") from None
        blocks = len(range(0, ticks, _block_ticks(ticks)))
        if (fields.shape != (_SUMMARY_FIELDS * series, blocks)
                or not _times_fit(times_us, first_us, last_us, ticks)):
            raise DamagedChunk(_disagrees(chunk_id))
        stored = [r for r in flag_rows if r < series]
        # Counts of another shape (a catalogue with other flag metrics when it was written,
        # or damage) are left out: the chunk reads as without throttling.
        if flags is not None and flags.shape != (len(stored) * len(FLAG_MASKS), blocks):
            flags = None
        return _ChunkParts(times_us, fields.reshape(_SUMMARY_FIELDS, series, blocks), flags,
                           len(stored))


@dataclass(frozen=True, slots=True)
class _ChunkParts:
    times_us: IntArray
    fields: FloatArray  # (_SUMMARY_FIELDS, series, blocks)
    flags: FloatArray | None  # (stored flag series * masks, blocks)
    stored_flags: int


def _assembled(chunks: Sequence[_ChunkParts], series_count: int,
               flag_rows: Sequence[int]) -> tuple[Level, FloatArray]:
    """One level from the decoded summaries of consecutive chunks, and all their tick times
    in seconds: a series added after a chunk is missing in all of it."""
    blocks = np.array([c.fields.shape[2] for c in chunks])
    ticks = np.array([len(c.times_us) for c in chunks])
    fields = np.full((_SUMMARY_FIELDS, series_count, int(blocks.sum())), np.nan)
    at = 0
    for chunk, count in zip(chunks, blocks.tolist(), strict=True):
        width = min(chunk.fields.shape[1], series_count)
        fields[:, :width, at:at + count] = chunk.fields[:, :width]
        at += count
    times = np.concatenate([c.times_us for c in chunks]) / 1e6
    # Per block: its chunk's first tick in `times`, its size, its start and end tick.
    chunk_of = np.repeat(np.arange(len(chunks)), blocks)
    tick_offset = np.concatenate(([0], np.cumsum(ticks)[:-1]))[chunk_of]
    size = np.array([_block_ticks(int(t)) for t in ticks])[chunk_of]
    local = np.arange(len(chunk_of)) - np.concatenate(([0], np.cumsum(blocks)[:-1]))[chunk_of]
    start = tick_offset + local * size
    end = np.minimum(start + size, tick_offset + ticks[chunk_of]) - 1
    series_of_chunk = np.array([c.fields.shape[1] for c in chunks])[chunk_of]
    absent = np.arange(series_count)[:, np.newaxis] >= series_of_chunk[np.newaxis, :]
    vmin, vmax, mean, last, count, imin, imax, gap_first, gap_last = fields

    def when(index: FloatArray, fallback: IntArray | None = None) -> FloatArray:
        found = np.nan_to_num(index, nan=0.0).astype(np.intp) + tick_offset
        out = np.where(np.isnan(index), np.nan,
                       times[np.clip(found, 0, len(times) - 1)])
        if fallback is not None:
            out = np.where(absent, times[fallback][np.newaxis, :], out)
        return out

    counts = np.nan_to_num(count, nan=0.0)
    flag_counts_ = None
    if flag_rows:
        flag_counts_ = np.zeros((len(flag_rows), len(FLAG_MASKS), len(chunk_of)))
        at = 0
        for chunk, width in zip(chunks, blocks.tolist(), strict=True):
            if chunk.flags is not None and chunk.stored_flags:
                flag_counts_[:chunk.stored_flags, :, at:at + width] = chunk.flags.reshape(
                    chunk.stored_flags, len(FLAG_MASKS), width)
            at += width
        np.nan_to_num(flag_counts_, copy=False, nan=0.0)
    level = Level(int(size[0]), times[start], vmin, when(imin), vmax, when(imax),
                  np.nan_to_num(mean * counts, nan=0.0), counts, when(gap_first, start),
                  when(gap_last, end), last, flag_counts=flag_counts_,
                  flag_rows=tuple(flag_rows))
    return level, times


def pause_breaks(times_s: FloatArray, previous_s: float | None, rate_hz: float) -> FloatArray:
    """Where lines must break: a period after each tick followed by a pause of more than
    three sampling periods (`previous_s`: the tick before `times_s`, None at the start)."""
    stamps = times_s if previous_s is None else np.concatenate(([previous_s], times_s))
    pauses = np.flatnonzero(np.diff(stamps) > 3.0 / rate_hz)
    return stamps[pauses] + 1.0 / rate_hz


def _mark_pauses(level: Level, times_s: FloatArray, previous_s: float | None,
                 rate_hz: float) -> None:
    """Every series of `level` gets a gap at each pause break (in place)."""
    breaks = pause_breaks(times_s, previous_s, rate_hz)
    if not len(breaks):
        return
    block = np.clip(np.searchsorted(level.starts, breaks, "right") - 1, 0, len(level.starts) - 1)
    for where, at in zip(block.tolist(), breaks.tolist(), strict=True):
        level.gap_first[:, where] = np.fmin(level.gap_first[:, where], at)
        level.gap_last[:, where] = np.fmax(level.gap_last[:, where], at)


def _cut(times: IntArray, block: FloatArray, since_us: int | None,
         until_us: int | None) -> tuple[IntArray, FloatArray]:
    first = 0 if since_us is None else int(np.searchsorted(times, since_us, "left"))
    stop = len(times) if until_us is None else int(np.searchsorted(times, until_us, "right"))
    if first == 0 and stop == len(times):
        return times, block
    return times[first:stop], block[:, first:stop]


def _level_of_samples(times_us: IntArray, block: FloatArray, flag_rows: Sequence[int]) -> Level:
    times = times_us / 1e6
    size = _block_ticks(len(times))
    level = first_level(times, block, size)
    if not flag_rows:
        return level
    starts = np.arange(0, len(times), size, dtype=np.intp)
    return Level(level.block, level.starts, level.vmin, level.tmin, level.vmax, level.tmax,
                 level.total, level.count, level.gap_first, level.gap_last, level.last,
                 flag_counts=flag_counts(block[list(flag_rows)], starts),
                 flag_rows=tuple(flag_rows))


def _joined(parts: Sequence[Level], flag_rows: Sequence[int]) -> Level:
    if len(parts) == 1 and (parts[0].flag_counts is not None or not flag_rows):
        return parts[0]  # a closed recording: no tail to add, nothing to copy
    def cat(name: str) -> FloatArray:
        return np.concatenate([getattr(p, name) for p in parts], axis=-1)

    flags = (np.concatenate([p.flag_counts if p.flag_counts is not None else
                             np.zeros((len(flag_rows), len(FLAG_MASKS), len(p.starts)))
                             for p in parts], axis=2) if flag_rows else None)
    return Level(parts[0].block, cat("starts"), cat("vmin"), cat("tmin"), cat("vmax"),
                 cat("tmax"), cat("total"), cat("count"), cat("gap_first"), cat("gap_last"),
                 cat("last"), flag_counts=flags, flag_rows=tuple(flag_rows))
