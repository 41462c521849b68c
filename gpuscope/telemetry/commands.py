"""What `gpuscope record` and `gpuscope export` do, as plain functions the CLI calls.

`record` runs headless: it takes the inventory, builds the sources, samples at the asked rate
into a recording and stops after `duration_s`, on Ctrl+C (KeyboardInterrupt) or on SIGTERM,
then flushes and closes the file. A recording killed harder than that (`kill -9`, a crash)
still opens: it loses at most about the last second. A write that fails (a full disk) stops
it within a tenth of a second of the writer's failure, the file keeping what was written,
marked incomplete with the reason. An output that is one of the inputs (the replayed
snapshot) is refused before anything is written (`OutputIsInputError`).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import FrameType
from typing import Any, TextIO

from gpuscope.evidence import System
from gpuscope.i18n import localise, message
from gpuscope.inventory import collect_inventory
from gpuscope.model import to_jsonable
from gpuscope.safe_write import input_overwritten
from gpuscope.telemetry.export import (
    STDOUT,
    ExportSummary,
    ExportUsageError,
    export_csv,
    export_json_lines,
    parse_time_bound,
)
from gpuscope.telemetry.recorder import Recorder, RecordingError
from gpuscope.telemetry.recording_meta import OutputIsInputError
from gpuscope.telemetry.sampler import MAX_RATE_HZ, MIN_RATE_HZ, DeviceStatus, Sampler
from gpuscope.telemetry.sources import build_sources
from gpuscope.untrusted import one_line

# Headless recording keeps only a short history in memory: the file is the history.
_RECORD_HISTORY_S = 10.0
PROGRESS_INTERVAL_S = 1.0


@dataclass(frozen=True, slots=True)
class RecordProgress:
    elapsed_s: float
    ticks: int
    samples_written: int


@dataclass(frozen=True, slots=True)
class RecordSummary:
    output: str
    rate_hz: float
    duration_s: float  # how long it sampled
    ticks: int  # ticks written to the file
    samples: int  # non-missing samples written
    series: int
    gpus: int
    # "duration", "interrupt" (Ctrl+C), "signal" (SIGTERM), "stop" (stop_event), "error" (the
    # writer failed: `error` says why)
    stopped_by: str
    dropped_ticks: int
    notes: tuple[str, ...]  # sources that could not be used, devices lost during the run
    error: str | None  # the writer's failure, if it had one


def record(
    system: System,
    output: str | os.PathLike[str],
    rate_hz: float = 2.0,
    duration_s: float | None = None,
    progress: Callable[[RecordProgress], None] | None = None,
    *,
    overwrite: bool = False,
    stop_event: threading.Event | None = None,
    inputs: Sequence[str | os.PathLike[str] | None] = (),
) -> RecordSummary:
    """Record telemetry of every GPU and the host of `system` into the SQLite file `output`.
    Runs until `duration_s` (None: until interrupted) or until the writer fails. Raises
    RecordingError (one line) for a bad rate or a file that cannot be written, its subclass
    OutputIsInputError for an output that is one of `inputs`; ValueError never escapes."""
    overwritten = input_overwritten(output, inputs)
    if overwritten is not None:
        raise OutputIsInputError(message(
            "the recording {output} would overwrite the input {input}; choose another file "
            "name", output=os.fspath(output), input=overwritten))
    if not (MIN_RATE_HZ <= rate_hz <= MAX_RATE_HZ):
        raise RecordingError(f"--rate must be {MIN_RATE_HZ:g} to {MAX_RATE_HZ:g} Hz, "
                             f"not {rate_hz:g}")
    if duration_s is not None and duration_s <= 0:
        raise RecordingError(f"--duration must be positive, not {duration_s:g}")
    stop = stop_event or threading.Event()
    inventory = collect_inventory(system)
    recorder = Recorder(output, rate_hz=rate_hz, inventory=inventory, overwrite=overwrite)
    try:
        sources = build_sources(system, inventory)
    except BaseException:
        recorder.close()
        raise
    sampler = Sampler(sources.sources, rate_hz, _RECORD_HISTORY_S)
    recorder.attach(sampler)

    stopped_by = "duration"
    previous_handler: Any = None
    handler_installed = False
    signalled = threading.Event()

    def on_sigterm(signum: int, frame: FrameType | None) -> None:
        signalled.set()
        stop.set()

    if threading.current_thread() is threading.main_thread():
        previous_handler = signal.signal(signal.SIGTERM, on_sigterm)
        handler_installed = True
    started = time.monotonic()
    next_progress = started + PROGRESS_INTERVAL_S
    try:
        sampler.start()
        while True:
            now = time.monotonic()
            if duration_s is not None and now - started >= duration_s:
                stopped_by = "duration"
                break
            if stop.is_set():
                stopped_by = "signal" if signalled.is_set() else "stop"
                break
            if recorder.error is not None:  # a full disk: stop now, not at --duration
                stopped_by = "error"
                break
            wait = 0.1 if duration_s is None else min(0.1, started + duration_s - now)
            stop.wait(max(0.0, wait))
            if progress is not None and time.monotonic() >= next_progress:
                next_progress += PROGRESS_INTERVAL_S
                progress(RecordProgress(time.monotonic() - started, sampler.tick_count,
                                        recorder.rows_written))
    except KeyboardInterrupt:
        stopped_by = "interrupt"
    finally:
        elapsed = time.monotonic() - started
        sampler.stop()
        recorder.close()
        sources.close()
        if handler_installed:
            signal.signal(signal.SIGTERM, previous_handler)

    notes = list(sources.notes)
    for state in sampler.device_state.values():
        if state.status in (DeviceStatus.LOST, DeviceStatus.ERROR):
            notes.append(f"{state.device}: {state.status.value}: {state.reason}")
    return RecordSummary(
        output=str(output), rate_hz=rate_hz, duration_s=round(elapsed, 3),
        ticks=recorder.ticks_written, samples=recorder.rows_written,
        series=len(sampler.series), gpus=len(inventory.gpus), stopped_by=stopped_by,
        dropped_ticks=recorder.dropped_ticks, notes=tuple(notes), error=recorder.error,
    )


def export(recording: str | os.PathLike[str], out: str | os.PathLike[str], *,
           json_lines: bool = False, since: str | None = None, until: str | None = None,
           series: Sequence[str] | None = None) -> ExportSummary:
    """Export a recording as a wide CSV, or JSON lines; `since`/`until` as --from/--to
    take them, `series` as --series patterns. Raises RecordingError (one line) for a file
    that is not a readable recording or an output that cannot be written, ExportUsageError
    for a bad time or pattern."""
    since_s = None if since is None else parse_time_bound(since, "--from")
    until_s = None if until is None else parse_time_bound(until, "--to")
    write = export_json_lines if json_lines else export_csv
    return write(recording, out, since_s=since_s, until_s=until_s, series=series)


def _refused(error: RecordingError, stderr: TextIO) -> int:
    """The one line of a refusal or failure; 2 for a usage error (an output onto an input, a
    bad --from/--to, a --series matching nothing)."""
    reason = error.args[0] if len(error.args) == 1 and isinstance(error.args[0], str) else str(
        error)  # a `message` keeps its template: shown in the language chosen
    print(f"gpuscope: {one_line(localise(reason))}", file=stderr)
    return 2 if isinstance(error, (OutputIsInputError, ExportUsageError)) else 1


def record_command(system: System, output: str, *, rate_hz: float, duration_s: float | None,
                   overwrite: bool, as_json: bool, inputs: Sequence[str | None] = (),
                   stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """`gpuscope record`: record, then print the summary; the exit status. A writer that
    failed (a full disk) is exit 1 with its one line."""
    out, err = stdout or sys.stdout, stderr or sys.stderr
    interactive = not as_json and err.isatty()

    def progress(state: RecordProgress) -> None:
        if interactive:
            print(f"\rrecording: {state.elapsed_s:6.1f} s, {state.ticks} ticks, "
                  f"{state.samples_written} samples", end="", file=err, flush=True)

    try:
        summary = record(system, output, rate_hz=rate_hz, duration_s=duration_s,
                         progress=progress, overwrite=overwrite, inputs=inputs)
    except RecordingError as exc:
        return _refused(exc, err)
    if interactive:
        print(file=err)
    if summary.error:
        return _refused(RecordingError(summary.error), err)
    if as_json:
        json.dump(to_jsonable(summary), out, indent=2)
        out.write("\n")
    else:
        print(f"Recorded {summary.ticks} ticks ({summary.samples} samples of "
              f"{summary.series} series, {summary.gpus} GPU(s)) at {summary.rate_hz:g} Hz "
              f"for {summary.duration_s:.1f} s into {summary.output} (stopped by "
              f"{summary.stopped_by}).", file=out)
        for note in summary.notes:
            print(f"  note: {note}", file=out)
    return 0


def export_command(recording: str, *, csv_out: str | None = None,
                   json_lines_out: str | None = None, since: str | None = None,
                   until: str | None = None, series: Sequence[str] | None = None,
                   as_json: bool = False, stdout: TextIO | None = None,
                   stderr: TextIO | None = None) -> int:
    """`gpuscope export`: the CSV or JSON lines (to `csv_out` or `json_lines_out`, "-" for
    standard output), then its summary, on stderr when the export went to standard output;
    the exit status (2: a usage error: the output is the recording, a bad --from/--to, a
    --series that matches nothing)."""
    err = stderr or sys.stderr
    out_path = json_lines_out if json_lines_out is not None else csv_out
    if out_path is None:
        print("gpuscope: export needs --csv OUT or --json-lines OUT", file=err)
        return 2
    try:
        summary = export(recording, out_path, json_lines=json_lines_out is not None,
                         since=since, until=until, series=series)
    except RecordingError as exc:
        return _refused(exc, err)
    except BrokenPipeError:  # `gpuscope export R --csv - | head`: the reader has enough
        _quiet_stdout()
        return 0
    out = err if summary.output == STDOUT else (stdout or sys.stdout)
    if as_json:
        json.dump(to_jsonable(summary), out, indent=2)
        out.write("\n")
        return 0
    what = "JSON lines" if summary.format == "json-lines" else "CSV"
    where = "standard output" if summary.output == STDOUT else summary.output
    if summary.rows:
        print(f"Wrote {what} to {where}: {summary.rows} rows x {summary.columns} series "
              f"({summary.first_utc} to {summary.last_utc}).", file=out)
    else:
        asked = (f" from {summary.since_utc or 'the start'} to {summary.until_utc or 'the end'}"
                 if summary.since_utc or summary.until_utc else "")
        print(f"Wrote {what} to {where}: the header only: no tick{asked} has a value of "
              f"the {summary.columns} series chosen.", file=out)
    return 0


def _quiet_stdout() -> None:
    """Point standard output at the null device, so that the flush at exit does not fail
    again on the closed pipe."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
