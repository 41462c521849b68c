"""`gpuscope bench --llama-bench PATH --model FILE.gguf`: the user's own llama-bench run as a
benchmark process, its results imported into the history (labelled imported, and "ran by
gpuscope"), with the telemetry sampled while each of its tests ran.

llama-bench is started as `PATH -m FILE.gguf -o jsonl` through `start_child` (its own process
group, ending with gpuscope) and read by a `WorkerProcess`: a cancel stops it (SIGTERM, then
SIGKILL), a crash or abort is named by its signal, silence on stdout and stderr for
`stall_timeout_s` is a hang and a run past `overall_timeout_s` a timeout (both killed); the
results printed before any of these are kept. JSONL, since each test is printed, whole, as it
ends (`jsonl_printer`), where `-o json` closes its array only at the end.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import FrameType
from typing import TextIO

from gpuscope.bench.history import RunHistory
from gpuscope.bench.import_command import (
    imported_ident,
    imported_results,
    keep_imported,
    results_json,
    say,
    table,
)
from gpuscope.bench.imported import (
    ImportedResult,
    imported_header,
    imported_heading,
    imported_row,
)
from gpuscope.bench.results import BenchError, ErrorKind
from gpuscope.bench.run_telemetry import DEFAULT_RATE_HZ, TelemetryCapture, telemetry_words
from gpuscope.bench.session import BenchMachine, MachineProvider, live_machine
from gpuscope.i18n import Message, localise, message
from gpuscope.parsers.llama_bench import MAX_INPUT_CHARS, parse_llama_bench
from gpuscope.probes.worker_process import (
    JsonLineReader,
    WorkerProcess,
    key_error_line,
    signal_name,
    start_child,
)
from gpuscope.telemetry.sampler import Sampler

log = logging.getLogger(__name__)

# Loading a large model from a cold disk, or one repetition of pp512 of a 70B model on a CPU,
# takes minutes with nothing printed.
DEFAULT_STALL_TIMEOUT_S = 600.0
DEFAULT_OVERALL_TIMEOUT_S = 4 * 3600.0
CANCEL_GRACE_S = 2.0
_POLL_S = 0.1
_CRASH_SIGNALS = {"SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE"}

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_INTERRUPTED = 130


class _StdoutKeeper(JsonLineReader):
    """llama-bench's stdout kept whole (its JSON lines are results, not worker messages), up
    to the parser's input limit; `lines` counts the complete lines so far."""

    def __init__(self) -> None:
        super().__init__()
        self._data = bytearray()
        self._lock = threading.Lock()
        self.truncated = False

    def feed(self, data: bytes) -> None:
        with self._lock:
            room = MAX_INPUT_CHARS - len(self._data)
            if len(data) > room:
                self.truncated = True
            self._data += data[:max(0, room)]

    def close(self) -> None:
        pass

    def text(self) -> str:
        with self._lock:
            return self._data.decode("utf-8", errors="replace")

    @property
    def lines(self) -> int:
        with self._lock:
            return self._data.count(b"\n")


@dataclass(frozen=True, slots=True)
class LlamaBenchRequest:
    llama_bench: str  # the program: a path, or a name on PATH
    model: str  # the .gguf file
    extra_args: tuple[str, ...] = ()  # more llama-bench options ("-p", "512", "-ngl", "99")
    stall_timeout_s: float = DEFAULT_STALL_TIMEOUT_S
    overall_timeout_s: float = DEFAULT_OVERALL_TIMEOUT_S

    def argv(self) -> list[str]:
        return [self.llama_bench, "-m", self.model, "-o", "jsonl", *self.extra_args]


@dataclass(frozen=True, slots=True)
class LlamaBenchRun:
    """One llama-bench run: its results (imported, with telemetry), what ended it badly, the
    parser's problems, and why there is no telemetry when there is none."""

    argv: tuple[str, ...]
    results: tuple[ImportedResult, ...]
    started_unix_s: float
    ended_unix_s: float
    error: BenchError | None = None
    returncode: int | None = None
    problems: tuple[str, ...] = ()
    telemetry_note: str | None = None


class LlamaBenchRunner:
    """Runs one llama-bench; `cancel` from any thread. Not reusable."""

    def __init__(self, request: LlamaBenchRequest,
                 machine: MachineProvider | None = live_machine,
                 telemetry_rate_hz: float = DEFAULT_RATE_HZ) -> None:
        self.request = request
        self._provider = machine
        self._rate_hz = telemetry_rate_hz
        self._cancel = threading.Event()
        self.capture = TelemetryCapture()
        self._arrivals: list[float] = []  # unix time each stdout line was first seen

    def cancel(self) -> None:
        self._cancel.set()

    def run(self, on_line: Callable[[int], None] | None = None) -> LlamaBenchRun:
        """Run to the end, a failure, or a cancel. `on_line(count)` hears of each result line
        as llama-bench prints it."""
        argv = tuple(self.request.argv())
        started = time.time()
        if not os.path.isfile(self.request.model):
            return LlamaBenchRun(argv, (), started, time.time(), BenchError(
                ErrorKind.START, message("model file not found: {path}",
                                         path=self.request.model)))
        machine, sampler, note = self._telemetry()
        try:
            keeper = _StdoutKeeper()
            try:
                process = start_child(argv)
            except OSError as exc:
                return LlamaBenchRun(argv, (), started, time.time(), BenchError(
                    ErrorKind.START, message("cannot run {program}: {why}",
                                             program=self.request.llama_bench,
                                             why=exc.strerror or str(exc))))
            worker = WorkerProcess(process, keeper, "llama-bench")
            try:
                error = self._watch(worker, keeper, on_line)
            finally:
                returncode = worker.finish()
            ended = time.time()
            if error is None:
                error = self._exit_error(returncode, worker.stderr_tail())
            parsed = parse_llama_bench(keeper.text())
            problems = list(parsed.problems) if parsed.results else []
            if keeper.truncated:
                problems.append(message("llama-bench printed more than {count} characters; "
                                        "the rest was not read", count=f"{MAX_INPUT_CHARS:,}"))
            name = f"llama-bench {Path(self.request.model).name}"
            results = tuple(replace(item, ran_by_gpuscope=True)
                            for item in imported_results(parsed.results, name, ended))
            if error is None and not results:
                error = BenchError(ErrorKind.EXITED, message(
                    "llama-bench printed no results"), detail=worker.stderr_tail() or None)
            results = self._with_telemetry(results, started, ended)
            return LlamaBenchRun(argv, results, started, ended, error, returncode,
                                 tuple(problems), note if not self.capture.devices else None)
        finally:
            if sampler is not None:
                self.capture.detach()
                sampler.stop()
            if machine is not None and machine.sources is not None:
                machine.sources.close()

    def _telemetry(self) -> tuple[BenchMachine | None, Sampler | None, str | None]:
        if self._provider is None:
            return None, None, message("no telemetry was asked for")
        try:
            machine = self._provider()
        except Exception as exc:  # a probe bug must not cost the run: it is the reason
            log.exception("listing the machine for llama-bench failed")
            return None, None, message("the machine could not be listed: {error}",
                                       error=f"{type(exc).__name__}: {exc}")
        if machine.sources is None:
            return machine, None, machine.note or message("no telemetry source for this "
                                                          "machine")
        try:
            sampler = Sampler(machine.sources.sources, rate_hz=self._rate_hz, history_s=60.0)
            self.capture.attach(sampler)
            self.capture.set_labels({s.device: s.label for s in machine.sources.sources})
            sampler.start()
        except Exception as exc:
            log.exception("telemetry for llama-bench could not start")
            return machine, None, message("telemetry could not start: {error}",
                                          error=f"{type(exc).__name__}: {exc}")
        return machine, sampler, machine.note

    def _watch(self, worker: WorkerProcess, keeper: _StdoutKeeper,
               on_line: Callable[[int], None] | None) -> BenchError | None:
        request = self.request
        started = time.monotonic()
        seen_lines = 0
        stderr_seen = ""
        last_activity = started
        while not worker.wait_exit(_POLL_S):
            now = time.monotonic()
            lines = keeper.lines
            tail = worker.stderr_tail()[-200:]
            if lines != seen_lines or tail != stderr_seen:
                last_activity = now
                self._arrivals.extend([time.time()] * max(0, lines - seen_lines))
                if lines != seen_lines and on_line is not None:
                    on_line(lines)
                seen_lines, stderr_seen = lines, tail
            last_activity = max(last_activity, worker.last_output_monotonic)
            if self._cancel.is_set():
                worker.stop(CANCEL_GRACE_S)
                return BenchError(ErrorKind.CANCELLED, message("cancelled"))
            if now - last_activity > request.stall_timeout_s:
                worker.stop(CANCEL_GRACE_S)
                return BenchError(ErrorKind.HANG, message(
                    "llama-bench printed nothing for {seconds} s and was stopped",
                    seconds=f"{request.stall_timeout_s:g}"), detail=worker.stderr_tail() or None)
            if now - started > request.overall_timeout_s:
                worker.stop(CANCEL_GRACE_S)
                return BenchError(ErrorKind.TIMEOUT, message(
                    "llama-bench ran past {seconds} s and was stopped",
                    seconds=f"{request.overall_timeout_s:g}"))
        return None

    @staticmethod
    def _exit_error(returncode: int | None, stderr: str) -> BenchError | None:
        if returncode == 0:
            return None
        line = key_error_line(stderr) or message("no message")
        signame = signal_name(returncode)
        detail = stderr or None
        if signame in _CRASH_SIGNALS:
            return BenchError(ErrorKind.CRASH, message(
                "llama-bench crashed ({signal}): {line}", signal=signame, line=line),
                detail=detail)
        if signame == "SIGABRT":
            return BenchError(ErrorKind.ABORT, message(
                "llama-bench aborted: {line}", line=line), detail=detail)
        if signame is not None:
            return BenchError(ErrorKind.KILLED, message(
                "llama-bench was killed ({signal})", signal=signame), detail=detail)
        return BenchError(ErrorKind.EXITED, message(
            "llama-bench exited with status {status}: {line}", status=returncode, line=line),
            detail=detail)

    def _with_telemetry(self, results: tuple[ImportedResult, ...], started: float,
                        ended: float) -> tuple[ImportedResult, ...]:
        """Each result with the telemetry from the end of the test before it (or the start of
        the run: model loading and warm-up included) to the moment its line was printed
        (llama-bench prints a test's line when the test ends), to the poll's 0.1 s."""
        devices = self.capture.devices
        if not devices:
            return results
        out = []
        begin = started
        for item in results:
            line = item.result.line
            finish = self._arrivals[line - 1] if line is not None and \
                0 < line <= len(self._arrivals) else ended
            summaries = tuple(self.capture.summary(device, begin, max(finish, begin + 0.5))
                              for device in devices)
            out.append(replace(item, telemetry=summaries))
            begin = finish
        return tuple(out)


@contextlib.contextmanager
def _sigint_cancels(runner: LlamaBenchRunner, interrupted: list[bool]) -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        interrupted[0] = True
        runner.cancel()

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def run_document(run: LlamaBenchRun, ids: Sequence[int]) -> dict[str, object]:
    error = run.error
    return {"kind": "imported", "command": list(run.argv),
            "started_unix_s": run.started_unix_s, "ended_unix_s": run.ended_unix_s,
            "returncode": run.returncode,
            "error": None if error is None else {"kind": error.kind.value,
                                                 "message": error.message,
                                                 "detail": error.detail},
            "problems": list(run.problems), "telemetry_note": run.telemetry_note,
            "results": results_json(run.results, ids)}


def llama_bench_command(
    llama_bench: str,
    model: str | None,
    *,
    extra_args: Sequence[str] = (),
    as_json: bool = False,
    save: bool = True,
    machine: MachineProvider | None = live_machine,
    history: RunHistory | None = None,
    stall_timeout_s: float = DEFAULT_STALL_TIMEOUT_S,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """What `gpuscope bench --llama-bench PATH --model FILE.gguf` does; the exit status: 0 when
    llama-bench ran to the end, 1 when it crashed, hung, failed or printed nothing (its results
    so far are still kept), 2 without --model, 130 after Ctrl-C."""
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    if not model:
        say(err, message("--llama-bench needs --model FILE.gguf"))
        return 2
    request = LlamaBenchRequest(llama_bench, model, tuple(extra_args),
                                stall_timeout_s=stall_timeout_s)
    runner = LlamaBenchRunner(request, machine)
    interrupted = [False]
    say(err, message("running {command}", command=" ".join(request.argv())))

    def arrived(count: int) -> None:
        err.write("  " + localise(message("llama-bench: result {count} arrived",
                                          count=count)) + "\n")

    with _sigint_cancels(runner, interrupted):
        run = runner.run(arrived)
    store = history or RunHistory()
    ids: tuple[int, ...] = ()
    not_saved: str | Message | None = None
    if save and run.results:
        ids, not_saved = keep_imported(store, run.results, err)
    if as_json:
        document = run_document(run, ids)
        document["history"] = {"path": str(store.path), "not_saved": not_saved}
        json.dump(document, out, indent=2)
        out.write("\n")
    else:
        out.write(_run_text(run, ids))
    if run.error is not None:
        say(err, f"{run.error.kind.value}: {localise(run.error.message)}")
    if interrupted[0] or (run.error is not None and run.error.kind is ErrorKind.CANCELLED):
        return EXIT_INTERRUPTED
    return EXIT_OK if run.error is None and not_saved is None else EXIT_FAILED


def _run_text(run: LlamaBenchRun, ids: Sequence[int]) -> str:
    lines = [localise(message("{command} ({seconds} s):", command=" ".join(run.argv),
                              seconds=f"{run.ended_unix_s - run.started_unix_s:.1f}"))]
    if run.results:
        lines.append("  " + localise(imported_heading(len(run.results))))
        idents = [imported_ident(i) for i in ids] or ["-"] * len(run.results)
        rows = [imported_header()] + [imported_row(item, ident)
                                      for item, ident in zip(run.results, idents, strict=False)]
        lines.extend(table(rows, "  "))
        with_telemetry = [item for item in run.results if item.telemetry]
        if with_telemetry:
            lines.append("  " + localise(message("Telemetry during each test:")))
            for item in with_telemetry:
                for summary in item.telemetry:
                    lines.append(f"    {item.id} ({summary.label}): "
                                 f"{localise(telemetry_words(summary))}")
        elif run.telemetry_note:
            lines.append("  " + localise(message("Telemetry: none ({note})",
                                                 note=run.telemetry_note)))
    lines.extend("  " + localise(message("note: {problem}", problem=p)) for p in run.problems)
    return "\n".join(lines) + "\n"
