"""Past benchmark runs, kept in a small SQLite file, and the comparison of two of them.

    ~/.local/share/gpuscope/bench_runs.sqlite    (Linux; platformdirs' user data dir elsewhere)
    $GPUSCOPE_DATA_DIR/bench_runs.sqlite         (when set: tests, portable installs)

Each run is stored whole, as the JSON `run_to_json` writes (results, telemetry per result, the
matched GPU), beside a few columns to list runs without reading every document. Results
imported from llama.cpp (`gpuscope.bench.imported`) live in a table of their own, `imported`,
one row per result, so that they are never taken for a measured run; the table was added
without a schema version change: a file without it gets it when opened, and an older gpuscope
ignores it. Every call
opens its own connection, so any thread may use a `RunHistory`; a failure (a read-only folder,
a damaged file) is a `HistoryError` with one readable line, never a crash.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from gpuscope.bench.assess import device_label
from gpuscope.bench.catalog import spec as catalog_spec
from gpuscope.bench.imported import ImportedResult, imported_from_json, imported_to_json
from gpuscope.bench.results import (
    BenchmarkResult,
    BenchRun,
    ResultStatus,
    primary_error,
    run_from_json,
    run_to_json,
    status_words,
)
from gpuscope.bench.stability import result_stability
from gpuscope.i18n import join, message

log = logging.getLogger(__name__)

DATA_DIR_ENV = "GPUSCOPE_DATA_DIR"
APP_DIR_NAME = "gpuscope"
FILE_NAME = "bench_runs.sqlite"
SCHEMA_VERSION = 1
_BUSY_TIMEOUT_S = 5.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    saved_unix_s REAL NOT NULL,
    started_unix_s REAL NOT NULL,
    duration_s REAL NOT NULL,
    device TEXT NOT NULL,
    card TEXT,
    python TEXT NOT NULL,
    torch TEXT,
    benchmarks TEXT NOT NULL,
    results INTEGER NOT NULL,
    ok INTEGER NOT NULL,
    error TEXT,
    document TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_started ON runs (started_unix_s);
CREATE TABLE IF NOT EXISTS imported (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    imported_unix_s REAL NOT NULL,
    source_file TEXT NOT NULL,
    result_id TEXT NOT NULL,
    model TEXT,
    quantisation TEXT,
    backend TEXT,
    n_gpu_layers INTEGER,
    gpu TEXT,
    tokens_per_s REAL NOT NULL,
    document TEXT NOT NULL
);
"""


class HistoryError(Exception):
    """The run history cannot be read or written; the message says why, in one line."""


def data_dir() -> Path:
    """$GPUSCOPE_DATA_DIR when set, else platformdirs' user data dir for gpuscope."""
    override = os.environ.get(DATA_DIR_ENV, "").strip()
    if override:
        return Path(override).expanduser()
    return platformdirs.user_data_path(APP_DIR_NAME, appauthor=False)


def default_history_path() -> Path:
    return data_dir() / FILE_NAME


@dataclass(frozen=True, slots=True)
class StoredRun:
    """One past run as the list shows it (the results stay in the file until `load`)."""

    id: int
    saved_unix_s: float
    started_unix_s: float
    duration_s: float
    device: str  # "AMD Radeon RX 7900 XTX (cuda:0)", "CPU (Intel Xeon ...)"
    card: str | None  # the knowledge base's card it was compared with
    python: str
    torch: str | None  # "2.7.1+rocm6.3 (rocm 6.3)"
    benchmarks: tuple[str, ...]
    results: int
    ok: bool
    error: str | None  # "crash: the benchmark worker crashed ..."


class RunHistory:
    """The SQLite file of past runs (created on the first save)."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path is not None else default_history_path()

    @contextmanager
    def _connect(self, *, create: bool) -> Iterator[sqlite3.Connection]:
        if not create and not self.path.exists():
            raise FileNotFoundError(self.path)
        try:
            if create:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(self.path, timeout=_BUSY_TIMEOUT_S)
        except (OSError, sqlite3.Error) as exc:
            raise HistoryError(message("cannot open the run history {path}: {why}",
                                       path=str(self.path), why=_why(exc))) from exc
        try:
            with connection:
                connection.executescript(_SCHEMA)
                row = connection.execute(
                    "SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
                if row is None:
                    connection.execute("INSERT INTO meta VALUES ('schema_version', ?)",
                                       (str(SCHEMA_VERSION),))
                elif row[0] != str(SCHEMA_VERSION):
                    raise HistoryError(message(
                        "the run history {path} has schema version {version}; this gpuscope "
                        "reads {reads}", path=str(self.path), version=row[0],
                        reads=SCHEMA_VERSION))
                yield connection
        except sqlite3.Error as exc:
            raise HistoryError(message("the run history {path} cannot be used: {why}",
                                       path=str(self.path), why=_why(exc))) from exc
        finally:
            connection.close()

    def save(self, run: BenchRun) -> int:
        """Store `run`; its id in the history."""
        document = json.dumps(run_to_json(run), allow_nan=False)
        error = primary_error(run)
        hello = run.hello
        torch = None
        if hello is not None and hello.torch_version:
            torch = hello.torch_version + (f" ({hello.build}" + (
                f" {hello.build_version}" if hello.build_version else "") + ")"
                if hello.build else "")
        row = (time.time(), run.started_unix_s, run.duration_s, device_label(hello),
               run.target.spec_name if run.target is not None else None, run.python, torch,
               ",".join(run.benchmarks), len(run.results), int(run.ok),
               f"{error.kind.value}: {error.message}" if error is not None else None, document)
        with self._connect(create=True) as connection:
            cursor = connection.execute(
                "INSERT INTO runs (saved_unix_s, started_unix_s, duration_s, device, card, "
                "python, torch, benchmarks, results, ok, error, document) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", row)
            run_id = cursor.lastrowid
        assert run_id is not None
        return int(run_id)

    def list(self, limit: int = 500) -> tuple[StoredRun, ...]:
        """The newest `limit` runs, newest first; none when the file does not exist yet."""
        try:
            with self._connect(create=False) as connection:
                rows = connection.execute(
                    "SELECT id, saved_unix_s, started_unix_s, duration_s, device, card, python, "
                    "torch, benchmarks, results, ok, error FROM runs "
                    "ORDER BY started_unix_s DESC, id DESC LIMIT ?", (limit,)).fetchall()
        except FileNotFoundError:
            return ()
        return tuple(StoredRun(
            id=int(r[0]), saved_unix_s=float(r[1]), started_unix_s=float(r[2]),
            duration_s=float(r[3]), device=str(r[4]), card=r[5], python=str(r[6]), torch=r[7],
            benchmarks=tuple(b for b in str(r[8]).split(",") if b), results=int(r[9]),
            ok=bool(r[10]), error=r[11]) for r in rows)

    def load(self, run_id: int) -> BenchRun:
        """The stored run; HistoryError when there is none or it cannot be read."""
        try:
            with self._connect(create=False) as connection:
                row = connection.execute("SELECT document FROM runs WHERE id = ?",
                                         (run_id,)).fetchone()
        except FileNotFoundError:
            row = None
        if row is None:
            raise HistoryError(message("there is no run {id} in the history", id=run_id))
        try:
            run = run_from_json(json.loads(row[0]))
        except (TypeError, ValueError) as exc:
            raise HistoryError(message("run {id} in the history is damaged: {error}",
                                       id=run_id, error=str(exc))) from exc
        if run is None:
            raise HistoryError(message("run {id} in the history is not a benchmark run",
                                       id=run_id))
        return run

    def delete(self, run_ids: Sequence[int] | int) -> int:
        """Remove runs; how many there were."""
        ids = [run_ids] if isinstance(run_ids, int) else list(run_ids)
        if not ids:
            return 0
        try:
            with self._connect(create=False) as connection:
                cursor = connection.execute(
                    f"DELETE FROM runs WHERE id IN ({','.join('?' for _ in ids)})", ids)
                return int(cursor.rowcount)
        except FileNotFoundError:
            return 0

    def save_imported(self, items: Sequence[ImportedResult]) -> tuple[int, ...]:
        """Store imported results (one row each); their ids in the history."""
        rows = [(item.imported_unix_s, item.source_file, item.id, item.result.model_type,
                 item.result.quantisation, item.result.backend, item.result.n_gpu_layers,
                 item.result.gpu_name, item.tokens_per_s,
                 json.dumps(imported_to_json(item), allow_nan=False)) for item in items]
        ids: list[int] = []
        with self._connect(create=True) as connection:
            for row in rows:
                cursor = connection.execute(
                    "INSERT INTO imported (imported_unix_s, source_file, result_id, model, "
                    "quantisation, backend, n_gpu_layers, gpu, tokens_per_s, document) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", row)
                assert cursor.lastrowid is not None
                ids.append(int(cursor.lastrowid))
        return tuple(ids)

    def list_imported(self, limit: int = 2000) -> tuple[StoredImport, ...]:
        """The newest `limit` imported results, newest first (in file order within one
        import); a row whose document cannot be read is left out, and logged."""
        try:
            with self._connect(create=False) as connection:
                rows = connection.execute(
                    "SELECT id, document FROM imported ORDER BY imported_unix_s DESC, id ASC "
                    "LIMIT ?", (limit,)).fetchall()
        except FileNotFoundError:
            return ()
        stored = []
        for row_id, document in rows:
            try:
                item = imported_from_json(json.loads(document))
            except ValueError:
                item = None
            if item is None:
                log.warning("imported result %s in %s cannot be read", row_id, self.path)
                continue
            stored.append(StoredImport(int(row_id), item))
        return tuple(stored)

    def delete_imported(self, ids: Sequence[int]) -> int:
        """Remove imported results; how many there were."""
        if not ids:
            return 0
        try:
            with self._connect(create=False) as connection:
                cursor = connection.execute(
                    f"DELETE FROM imported WHERE id IN ({','.join('?' for _ in ids)})",
                    list(ids))
                return int(cursor.rowcount)
        except FileNotFoundError:
            return 0


@dataclass(frozen=True, slots=True)
class StoredImport:
    """One imported result in the history, with its row id."""

    id: int
    item: ImportedResult


def _why(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


# ----------------------------------------------------------------------------- comparing


@dataclass(frozen=True, slots=True)
class BenchmarkDelta:
    """One benchmark in two runs. `change` says what it means: "better", "worse", "within
    spread", "only in A", "only in B", or "not comparable" (a different unit, or a result that
    is not ok). "within spread" means each run's median lies inside the other run's min..max
    range of repeats, so the difference is no larger than the repeats' own scatter; ranges
    that do not overlap, or that overlap only because one run spread widely, are a change.
    The note names a run whose repeats were unstable (`gpuscope.bench.stability`)."""

    id: str
    title: str
    unit: str
    higher_is_better: bool
    value_a: float | None
    value_b: float | None
    delta: float | None  # b - a
    delta_pct: float | None  # (b - a) / a x 100
    change: str
    note: str = ""


@dataclass(frozen=True, slots=True)
class RunComparison:
    a: BenchRun
    b: BenchRun
    rows: tuple[BenchmarkDelta, ...]
    notes: tuple[str, ...]  # a different device, interpreter or torch

    def row(self, benchmark_id: str) -> BenchmarkDelta | None:
        return next((r for r in self.rows if r.id == benchmark_id), None)


def _status_words(result: BenchmarkResult | None) -> str:
    if result is None:
        return message("not run")
    if result.reason:
        return message("{status}: {reason}", status=status_words(result.status),
                       reason=result.reason)
    return status_words(result.status)


def _delta(benchmark_id: str, a: BenchmarkResult | None,
           b: BenchmarkResult | None) -> BenchmarkDelta:
    catalog = catalog_spec(benchmark_id)
    title = catalog.title if catalog is not None else benchmark_id
    known = b if b is not None else a
    assert known is not None
    unit, higher = known.unit, known.higher_is_better
    value_a = a.value if a is not None and a.status is ResultStatus.OK else None
    value_b = b.value if b is not None and b.status is ResultStatus.OK else None
    if value_a is None or value_b is None:
        if value_a is None and value_b is None:
            change = message("not comparable")
        else:
            change = message("only in A") if value_a is not None else message("only in B")
        note = message("A: {a}; B: {b}", a=_status_words(a), b=_status_words(b))
        return BenchmarkDelta(benchmark_id, title, unit, higher, value_a, value_b, None, None,
                              change, note)
    if a is not None and b is not None and a.unit != b.unit:
        return BenchmarkDelta(benchmark_id, title, unit, higher, value_a, value_b, None, None,
                              message("not comparable"),
                              message("units differ: {a} and {b}", a=a.unit, b=b.unit))
    delta = value_b - value_a
    percent = delta / value_a * 100 if value_a else None
    spread_a = a.spread if a is not None else None
    spread_b = b.spread if b is not None else None
    within = spread_a is not None and spread_b is not None and \
        spread_b.min <= value_a <= spread_b.max and spread_a.min <= value_b <= spread_a.max
    change = (message("within spread") if within or delta == 0
              else message("better") if (delta > 0) == higher else message("worse"))
    notes = []
    for name, result in (("A", a), ("B", b)):
        stability = result_stability(result) if result is not None else None
        if stability is not None and stability.unstable:
            notes.append(message("{run} unstable: {spread}", run=name, spread=stability.text))
    return BenchmarkDelta(benchmark_id, title, unit, higher, value_a, value_b, delta, percent,
                          change, join("; ", notes))


_NONE = message("none")


def compare_runs(a: BenchRun, b: BenchRun) -> RunComparison:
    """Each benchmark of either run, A (usually the older) against B."""
    ids = list(dict.fromkeys([*(r.id for r in a.results), *(r.id for r in b.results)]))
    rows = tuple(_delta(i, a.result(i), b.result(i)) for i in ids)
    notes: list[str] = []
    label_a, label_b = device_label(a.hello), device_label(b.hello)
    if label_a != label_b:
        notes.append(message("different devices: A ran on {a}, B on {b}", a=label_a, b=label_b))
    torch_a = a.hello.torch_version if a.hello is not None else None
    torch_b = b.hello.torch_version if b.hello is not None else None
    if torch_a != torch_b:
        notes.append(message("different torch: A {a}, B {b}", a=torch_a or _NONE,
                             b=torch_b or _NONE))
    if a.python != b.python:
        notes.append(message("different interpreters: A {a}, B {b}", a=a.python, b=b.python))
    return RunComparison(a, b, rows, tuple(notes))
