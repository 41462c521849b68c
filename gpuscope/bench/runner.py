"""Runs the benchmark worker with the user's interpreter and turns what happens into events.

    runner = BenchRunner(BenchRequest(resolve_suites(["quick"])))
    for event in runner.events():      # blocks the calling thread; yields as things happen
        ...                            # RunStarted, HelloReceived, BenchmarkProgress,
                                       # ResultReceived, ErrorRaised, then RunFinished
    runner.cancel()                    # from any thread: SIGTERM the group, SIGKILL after 2 s

`run(on_event)` is the blocking convenience (the CLI); `start(on_event)` runs it on a thread of
its own and returns at once (`wait()` gives the BenchRun). A GUI runs either off its GUI thread
and forwards events through queued signals.

The worker (the folder `worker/`) runs by path in a process group of its own (see
`gpuscope.probes.worker_process`). It is watched by four clocks: the time to its hello (importing
torch, initialising the GPU), the time since its last output (it reports progress between timed
batches, so silence means a hang), the time in one benchmark, and the time of the whole run.
Whatever ends it, crash, abort, hang, timeout, cancel, the results that arrived before are kept
and the end is one `BenchError` naming what happened.
"""

from __future__ import annotations

import queue
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from gpuscope import i18n
from gpuscope.bench.catalog import llm_shape_argument
from gpuscope.bench.protocol import PROTOCOL, DoneMessage, ProgressMessage, parse_message
from gpuscope.bench.results import (
    BenchError,
    BenchmarkResult,
    BenchRun,
    ErrorKind,
    WorkerHello,
)
from gpuscope.probes.worker_process import (
    WorkerProcess,
    WorkerStartError,
    key_error_line,
    signal_name,
)

# Run by path with the user's interpreter: `python <folder> ...` (see worker/__init__.py).
WORKER_PATH = Path(__file__).resolve().parent / "worker"

# Importing torch and creating a GPU context can take tens of seconds on a cold disk; a hang
# there must still end within a minute (issue #5's acceptance for the quick suite).
DEFAULT_STARTUP_TIMEOUT_S = 40.0
# The worker reports between timed batches (about every 0.25 s); a batch is sized to ~50 ms,
# the slowest step is a first kernel load or a float64 reference: seconds, not tens of them.
DEFAULT_STALL_TIMEOUT_S = 20.0
DEFAULT_BENCHMARK_TIMEOUT_S = 120.0
CANCEL_GRACE_S = 2.0
EXIT_GRACE_S = 5.0  # after `done` or the end of its output, how long the worker may take
_POLL_S = 0.1

_CRASH_SIGNALS = {"SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE"}


@dataclass(frozen=True, slots=True)
class BenchRequest:
    """What to run, with what, and how long to allow."""

    benchmarks: tuple[str, ...]  # ids, in the order to run them (catalog.resolve_suites)
    python: str = field(default_factory=lambda: sys.executable)
    device: str = "auto"  # "auto" (first GPU, else the CPU), "cpu", or a GPU index "0"
    scale: float | None = None  # 0 < F <= 1 shrinks sizes and budgets (tests)
    budget_s: float | None = None  # measuring time per benchmark (worker default: 2 s)
    startup_timeout_s: float = DEFAULT_STARTUP_TIMEOUT_S
    stall_timeout_s: float = DEFAULT_STALL_TIMEOUT_S
    benchmark_timeout_s: float = DEFAULT_BENCHMARK_TIMEOUT_S
    overall_timeout_s: float | None = None  # None: startup + benchmarks x benchmark timeout
    env: Mapping[str, str] | None = None  # replaces the inherited environment
    script: str | None = None  # replaces the packaged worker folder (tests: a script)
    # The model shape of the llm benchmarks (resources/model_shapes.toml); None: the
    # GPUSCOPE_BENCH_LLM_SHAPE variable, else Qwen2.5 0.5B on a CPU and Llama 3 8B on a GPU.
    llm_shape: str | None = None

    @property
    def overall_limit_s(self) -> float:
        if self.overall_timeout_s is not None:
            return self.overall_timeout_s
        return self.startup_timeout_s + max(1, len(self.benchmarks)) * self.benchmark_timeout_s


# ----------------------------------------------------------------------------- events


@dataclass(frozen=True, slots=True)
class RunStarted:
    """The worker process is running (the first event, unless it could not start)."""

    pid: int
    python: str
    benchmarks: tuple[str, ...]
    started_unix_s: float


@dataclass(frozen=True, slots=True)
class HelloReceived:
    """The worker imported torch and named the device under test; results may follow."""

    hello: WorkerHello


@dataclass(frozen=True, slots=True)
class BenchmarkProgress:
    """How far one benchmark is (`stage`: start, setup, warmup, measure, check, end), and with
    it the whole run. Comes at most every 0.25 s per benchmark, between timed batches."""

    benchmark: str
    index: int  # position in the request, 0-based (-1: not one asked for)
    count: int  # benchmarks in the request
    fraction: float  # of this benchmark, 0..1
    stage: str
    overall_fraction: float  # of the whole run, 0..1


@dataclass(frozen=True, slots=True)
class ResultReceived:
    """A benchmark's result: ok, unsupported (and why) or failed (and why)."""

    result: BenchmarkResult
    index: int
    count: int


@dataclass(frozen=True, slots=True)
class ErrorRaised:
    """Something went wrong: the worker reported it (out of memory, a wrong result, no torch)
    or the runner saw it (a crash, an abort, a hang, a timeout, a cancel). A run can go on
    after the first kind, never after the second."""

    error: BenchError


@dataclass(frozen=True, slots=True)
class RunFinished:
    """The last event, whatever ended the run: everything that arrived, in one record."""

    run: BenchRun


BenchEvent = RunStarted | HelloReceived | BenchmarkProgress | ResultReceived | ErrorRaised | \
    RunFinished


# ----------------------------------------------------------------------------- the runner


class _State:
    def __init__(self, request: BenchRequest) -> None:
        self.request = request
        self.hello: WorkerHello | None = None
        self.results: list[BenchmarkResult] = []
        self.errors: list[BenchError] = []
        self.done = False
        self.fatal = False  # the runner ended the worker (hang, timeout, cancel, protocol)
        self.cancelled = False
        self.current: str | None = None
        self.current_since = 0.0

    def index(self, benchmark: str) -> int:
        try:
            return self.request.benchmarks.index(benchmark)
        except ValueError:
            return -1


EventT = TypeVar("EventT")


class OneRun(Generic[EventT]):
    """`run`, `start` and `wait` around `events()`, whose last event is RunFinished."""

    _name = "run"  # what the error of a second start calls it
    _thread_name = "gpuscope-bench"

    def __init__(self) -> None:
        self._thread: threading.Thread | None = None
        self._run: BenchRun | None = None

    def events(self) -> Iterator[EventT]:
        raise NotImplementedError

    def run(self, on_event: Callable[[EventT], None] | None = None) -> BenchRun:
        """Run to the end in this thread, handing each event to `on_event`."""
        finished: BenchRun | None = None
        for event in self.events():
            if on_event is not None:
                on_event(event)
            if isinstance(event, RunFinished):
                finished = event.run
        assert finished is not None  # events() always ends with RunFinished
        self._run = finished
        return finished

    def start(self, on_event: Callable[[EventT], None] | None = None) -> None:
        """Run on a thread of its own; `on_event` is called on that thread."""
        if self._thread is not None:
            raise RuntimeError(f"this {self._name} was started already")
        self._thread = threading.Thread(target=self.run, args=(on_event,),
                                        name=self._thread_name, daemon=True)
        self._thread.start()

    def wait(self, timeout_s: float | None = None) -> BenchRun | None:
        """The run started with `start`, once it has finished (None on timeout)."""
        if self._thread is None:
            return self._run
        self._thread.join(timeout_s)
        return None if self._thread.is_alive() else self._run

    @property
    def is_running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()


def _while(benchmark: str | None) -> str:
    """" while running matmul.fp16" (translatable), or "" when no benchmark was running."""
    return i18n.message(" while running {benchmark}", benchmark=benchmark) if benchmark else ""


class BenchRunner(OneRun[BenchEvent]):
    """One run of the worker. Not reusable: make a new runner per run."""

    _name = "runner"

    def __init__(self, request: BenchRequest) -> None:
        super().__init__()
        self.request = request
        self._cancel = threading.Event()
        self._lock = threading.Lock()
        self._worker: WorkerProcess | None = None
        self._used = False

    # -- control, from any thread

    def cancel(self) -> None:
        """Stop the run: SIGTERM to the worker's group now, SIGKILL after CANCEL_GRACE_S.
        The run still finishes with what arrived, and a `cancelled` error."""
        self._cancel.set()
        with self._lock:
            if self._worker is not None:
                self._worker.terminate()

    @property
    def cancel_requested(self) -> bool:
        return self._cancel.is_set()

    # -- running

    def events(self) -> Iterator[BenchEvent]:
        """Start the worker and yield what happens, ending with RunFinished. The worker is
        stopped however the iteration ends (an exception, Ctrl-C, the caller breaking off)."""
        if self._used:
            raise RuntimeError("a BenchRunner runs once; make a new one")
        self._used = True
        script = self.request.script
        yield from self._events(Path(script) if script is not None else WORKER_PATH)

    def _argv(self, script: Path) -> list[str]:
        request = self.request
        argv = [request.python, str(script), "--benchmarks", ",".join(request.benchmarks),
                "--device", request.device]
        if request.scale is not None:
            argv += ["--scale", f"{request.scale:g}"]
        if request.budget_s is not None:
            argv += ["--budget-s", f"{request.budget_s:g}"]
        if any(b.startswith("llm.") for b in request.benchmarks):
            argv += ["--llm-shape", llm_shape_argument(request.llm_shape, request.env)]
        return argv

    def _events(self, script: Path) -> Iterator[BenchEvent]:
        request = self.request
        state = _State(request)
        started_unix = time.time()
        started = time.monotonic()
        messages: queue.Queue[dict[str, Any]] = queue.Queue()
        if self._cancel.is_set():
            yield from self._finish_unstarted(state, started_unix, BenchError(
                ErrorKind.CANCELLED, i18n.message("cancelled before the worker started")))
            return
        try:
            worker = WorkerProcess.start(self._argv(script), env=request.env,
                                         on_message=messages.put, name="bench-worker")
        except WorkerStartError as exc:
            yield from self._finish_unstarted(state, started_unix,
                                              BenchError(ErrorKind.START, exc.message))
            return
        with self._lock:
            self._worker = worker
        if self._cancel.is_set():  # cancelled while starting
            worker.terminate()
        returncode: int | None = None
        try:
            yield RunStarted(worker.pid, request.python, request.benchmarks, started_unix)
            while True:
                try:
                    raw: dict[str, Any] | None = messages.get(timeout=_POLL_S)
                except queue.Empty:
                    raw = None
                if raw is not None:
                    yield from self._handle(state, raw, worker)
                    if state.fatal:
                        break
                error: BenchError | None = None
                if self._cancel.is_set() and not state.done:
                    state.cancelled = True
                    error = BenchError(ErrorKind.CANCELLED, i18n.message(
                        "cancelled by the user{where}", where=_while(state.current)),
                                       state.current)
                elif raw is None and (state.done or worker.stdout_closed.is_set()):
                    # Messages are queued before stdout counts as closed: none is left.
                    if not worker.wait_exit(EXIT_GRACE_S):
                        worker.kill()
                    break
                else:
                    error = self._watchdog(state, worker, started)
                if error is not None:
                    state.fatal = True
                    state.errors.append(error)
                    yield ErrorRaised(error)
                    worker.stop(CANCEL_GRACE_S)
                    break
        finally:
            with self._lock:
                self._worker = None
            worker.stop(CANCEL_GRACE_S)
            returncode = worker.finish()
        # A last line without its newline arrives with finish().
        while not messages.empty():
            yield from self._handle(state, messages.get_nowait(), worker)
        if not state.done and not state.fatal:
            error = self._death(state, worker, returncode)
            state.errors.append(error)
            yield ErrorRaised(error)
        yield RunFinished(self._build(state, started_unix, returncode, worker.stderr_tail()))

    def _handle(self, state: _State, raw: dict[str, Any],
                worker: WorkerProcess) -> Iterator[BenchEvent]:
        message = parse_message(raw)
        count = len(state.request.benchmarks)
        if isinstance(message, WorkerHello):
            if state.hello is not None:
                return
            state.hello = message
            yield HelloReceived(message)
            if message.protocol != PROTOCOL:
                error = BenchError(
                    ErrorKind.PROTOCOL,
                    i18n.message("the benchmark worker speaks protocol {protocol}, this "
                                 "gpuscope reads {reads}", protocol=repr(message.protocol),
                                 reads=PROTOCOL))
                state.fatal = True
                state.errors.append(error)
                yield ErrorRaised(error)
        elif isinstance(message, ProgressMessage):
            if message.benchmark != state.current:
                state.current, state.current_since = message.benchmark, time.monotonic()
            index = state.index(message.benchmark)
            overall = (max(index, 0) + message.fraction) / max(1, count)
            yield BenchmarkProgress(message.benchmark, index, count, message.fraction,
                                    message.stage, min(1.0, overall))
        elif isinstance(message, BenchmarkResult):
            state.results = [r for r in state.results if r.id != message.id] + [message]
            if state.current == message.id:
                state.current = None
            yield ResultReceived(message, state.index(message.id), count)
        elif isinstance(message, BenchError):
            state.errors.append(message)
            yield ErrorRaised(message)
        elif isinstance(message, DoneMessage):
            state.done = True
            state.current = None

    def _watchdog(self, state: _State, worker: WorkerProcess,
                  started: float) -> BenchError | None:
        request = self.request
        now = time.monotonic()
        where = _while(state.current)
        if now - started > request.overall_limit_s:
            return BenchError(ErrorKind.TIMEOUT, i18n.message(
                "the run did not finish within {seconds} s{where}; the worker was killed",
                seconds=f"{request.overall_limit_s:g}", where=where), state.current)
        if state.hello is None:
            if now - started > request.startup_timeout_s:
                return BenchError(ErrorKind.HANG, i18n.message(
                    "no output for {seconds} s after the worker started (importing torch or "
                    "initialising the GPU hung), killed",
                    seconds=f"{request.startup_timeout_s:g}"))
            return None
        silent = now - worker.last_output_monotonic
        if silent > request.stall_timeout_s:
            return BenchError(ErrorKind.HANG, i18n.message(
                "no output for {seconds} s{where}, killed",
                seconds=f"{request.stall_timeout_s:g}", where=where), state.current)
        if state.current and now - state.current_since > request.benchmark_timeout_s:
            return BenchError(ErrorKind.TIMEOUT, i18n.message(
                "{benchmark} did not finish within {seconds} s; the worker was killed",
                benchmark=state.current, seconds=f"{request.benchmark_timeout_s:g}"),
                              state.current)
        return None

    def _death(self, state: _State, worker: WorkerProcess,
               returncode: int | None) -> BenchError:
        """Why the worker ended before `done`, from its exit status and stderr."""
        stderr = worker.stderr_tail()
        detail = key_error_line(stderr)
        signame = signal_name(returncode)
        benchmark = state.current
        where = (_while(benchmark) if benchmark else
                 i18n.message(" before it reported anything") if state.hello is None else "")
        tail = f": {detail}" if detail else ""
        if signame in _CRASH_SIGNALS:
            return BenchError(ErrorKind.CRASH, i18n.message(
                "the benchmark worker crashed ({signal}){where}{tail}", signal=signame,
                where=where, tail=tail), benchmark, signame, detail)
        if signame == "SIGABRT":
            return BenchError(ErrorKind.ABORT, i18n.message(
                "the benchmark worker aborted (SIGABRT){where}{tail}", where=where, tail=tail),
                benchmark, signame, detail)
        if signame == "SIGKILL":
            return BenchError(ErrorKind.KILLED, i18n.message(
                "the benchmark worker was killed (SIGKILL){where}; the kernel's out-of-memory "
                "killer does this when RAM runs out (see dmesg)", where=where),
                benchmark, signame, detail)
        if signame is not None:
            return BenchError(ErrorKind.CRASH, i18n.message(
                "the benchmark worker was killed by {signal}{where}{tail}", signal=signame,
                where=where, tail=tail), benchmark, signame, detail)
        if state.hello is None:
            if detail and "SyntaxError" in stderr:
                message = i18n.message("this interpreter cannot run the benchmark worker (it "
                                       "needs Python 3.9 or newer): {detail}", detail=detail)
            else:
                message = i18n.message("the interpreter did not run the benchmark worker (exit "
                                       "status {status}){tail}", status=returncode, tail=tail)
            return BenchError(ErrorKind.START, message, None, None, detail)
        return BenchError(ErrorKind.EXITED, i18n.message(
            "the benchmark worker exited with status {status} before it was done{where}{tail}",
            status=returncode, where=where, tail=tail), benchmark, None, detail)

    def _finish_unstarted(self, state: _State, started_unix: float,
                          error: BenchError) -> Iterator[BenchEvent]:
        state.errors.append(error)
        state.cancelled = error.kind is ErrorKind.CANCELLED
        yield ErrorRaised(error)
        yield RunFinished(self._build(state, started_unix, None, None))

    def _build(self, state: _State, started_unix: float, returncode: int | None,
               stderr: str | None) -> BenchRun:
        reported = {r.id for r in state.results}
        by_order = sorted(state.results, key=lambda r: (state.index(r.id) < 0,
                                                        state.index(r.id)))
        return BenchRun(
            python=self.request.python,
            benchmarks=self.request.benchmarks,
            device_request=self.request.device,
            hello=state.hello,
            results=tuple(by_order),
            errors=tuple(state.errors),
            started_unix_s=started_unix,
            ended_unix_s=time.time(),
            cancelled=state.cancelled,
            not_run=tuple(b for b in self.request.benchmarks if b not in reported),
            returncode=returncode,
            signal=signal_name(returncode),
            stderr_tail=stderr or None,
        )


def run_benchmarks(request: BenchRequest,
                   on_event: Callable[[BenchEvent], None] | None = None) -> BenchRun:
    """Run `request` to the end in this thread. Never raises for anything the worker does."""
    return BenchRunner(request).run(on_event)
