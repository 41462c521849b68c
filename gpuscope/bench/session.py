"""One benchmark run as gpuscope runs it: the worker, the machine's telemetry during the run, and
the GPU of the machine the worker ran on.

    session = BenchSession(BenchRequest(resolve_suites(["quick"])))
    run = session.run(on_event)        # blocks this thread; events as they happen
    session.cancel()                   # from any thread

While the worker imports torch, a thread lists the machine's GPUs (`MachineProvider`, by default
the live inventory) and starts sampling their telemetry; the session then knows which GPU the
worker's device is (`TargetKnown`), attaches to each result the telemetry of its own time span
(`BenchmarkResult.telemetry`) and keeps the matched GPU with the run (`BenchRun.target`), so the
run can be judged against the card's datasheet now and later (`assess`).

Whatever the machine side does (a probe that hangs, no vendor library, no GPU), the run goes on:
the results then say why they have no telemetry and the run why it has no card.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from gpuscope.bench.assess import is_gpu_run, match_target
from gpuscope.bench.results import (
    BenchmarkResult,
    BenchRun,
    BenchTarget,
    BenchTelemetry,
    WorkerHello,
)
from gpuscope.bench.run_telemetry import DEFAULT_RATE_HZ, TelemetryCapture
from gpuscope.bench.runner import (
    BenchEvent,
    BenchRequest,
    BenchRunner,
    HelloReceived,
    OneRun,
    ResultReceived,
    RunFinished,
)
from gpuscope.i18n import message
from gpuscope.metrics import HOST_DEVICE
from gpuscope.model import Gpu
from gpuscope.telemetry.sampler import Sampler
from gpuscope.telemetry.sources import SourceSet

log = logging.getLogger(__name__)

# How long the end of a run waits for the machine's GPU list (it is normally ready long
# before the worker has imported torch).
DEFAULT_MACHINE_TIMEOUT_S = 20.0
THREAD_PREFIX = "gpuscope-bench-"


@dataclass
class BenchMachine:
    """What the session knows of the machine: its GPUs (to find the card the worker ran on)
    and the telemetry sources to sample during the run (owned: closed by the session), or an
    already running sampler to listen to (not owned)."""

    gpus: tuple[Gpu, ...] = ()
    sources: SourceSet | None = None
    sampler: Sampler | None = None
    note: str | None = None  # why telemetry or the GPU list is missing


MachineProvider = Callable[[], BenchMachine]


def live_machine() -> BenchMachine:
    """This machine: the inventory's GPUs and a telemetry source for each, and the host."""
    from gpuscope.evidence import LiveSystem
    from gpuscope.inventory import collect_inventory
    from gpuscope.telemetry.sources import build_sources

    system = LiveSystem()
    inventory = collect_inventory(system)
    sources = build_sources(system, inventory)
    note = "; ".join(sources.notes) or None
    return BenchMachine(gpus=inventory.gpus, sources=sources, note=note)


@dataclass(frozen=True, slots=True)
class TargetKnown:
    """The session found the device under test: the machine's GPU (None for the CPU or a GPU
    it could not find) and the telemetry device whose readings go with each result."""

    target: BenchTarget | None
    telemetry_device: str | None  # a GPU's PCI bus address, "host", or None: none
    note: str | None = None  # why there is no telemetry for this device


SessionEvent = BenchEvent | TargetKnown


class BenchSession(OneRun[SessionEvent]):
    """One run of the worker with telemetry and the card. Not reusable."""

    _name = "session"
    _thread_name = f"{THREAD_PREFIX}session"

    def __init__(self, request: BenchRequest, machine: MachineProvider | None = live_machine,
                 *, telemetry_rate_hz: float = DEFAULT_RATE_HZ,
                 machine_timeout_s: float = DEFAULT_MACHINE_TIMEOUT_S) -> None:
        super().__init__()
        self.request = request
        self.runner = BenchRunner(request)
        self._provider = machine
        self._rate_hz = telemetry_rate_hz
        self._machine_timeout_s = machine_timeout_s
        self._lock = threading.Lock()
        self._machine_ready = threading.Event()
        self._machine: BenchMachine | None = None
        self._machine_error: str | None = None
        self._own_sampler: Sampler | None = None
        self._capturing = False  # the capture listens to a sampler
        self._closed = False
        self.capture = TelemetryCapture()
        self._hello: WorkerHello | None = None
        self._target_sent = False
        self._target: BenchTarget | None = None
        self._telemetry_device: str | None = None
        self._telemetry_missing: str | None = None

    # -- control

    def cancel(self) -> None:
        self.runner.cancel()

    # -- running

    def events(self) -> Iterator[SessionEvent]:
        started = time.monotonic()
        if self._provider is not None:
            threading.Thread(target=self._find_machine, daemon=True,
                             name=f"{THREAD_PREFIX}machine").start()
        else:
            self._machine_error = message("telemetry was not sampled for this run")
            self._machine_ready.set()
        try:
            for event in self.runner.events():
                if isinstance(event, HelloReceived):
                    self._hello = event.hello
                    yield event
                    yield from self._target_event()
                elif isinstance(event, ResultReceived):
                    yield from self._target_event()
                    yield ResultReceived(self._with_telemetry(event.result), event.index,
                                         event.count)
                elif isinstance(event, RunFinished):
                    left = self._machine_timeout_s - (time.monotonic() - started)
                    if event.run.hello is not None and not self._machine_ready.wait(
                            max(0.0, left)):
                        with self._lock:
                            self._machine_error = message(
                                "the machine's GPUs were not listed within {seconds} s",
                                seconds=f"{self._machine_timeout_s:g}")
                    yield from self._target_event()
                    yield RunFinished(self._finish(event.run))
                else:
                    yield event
        finally:
            self._close()

    # -- the machine side

    def _find_machine(self) -> None:
        assert self._provider is not None
        try:
            machine = self._provider()
        except Exception as exc:  # a probe bug must not end the run: it is its reason
            log.exception("listing the machine for a benchmark run failed")
            with self._lock:
                self._machine_error = message("the machine could not be listed: {error}",
                                              error=f"{type(exc).__name__}: {exc}")
            self._machine_ready.set()
            return
        sampler: Sampler | None = machine.sampler
        owned: Sampler | None = None
        error: str | None = None
        try:
            with self._lock:
                closed = self._closed
            if not closed and sampler is None and machine.sources is not None:
                owned = sampler = Sampler(machine.sources.sources, rate_hz=self._rate_hz,
                                          history_s=60.0)
            if not closed and sampler is not None:
                self.capture.attach(sampler)
                self._capturing = True
                if machine.sources is not None:
                    self.capture.set_labels({s.device: s.label
                                             for s in machine.sources.sources})
                if owned is not None:
                    owned.start()
        except Exception as exc:
            log.exception("telemetry for a benchmark run could not start")
            error = message("telemetry could not start: {error}",
                            error=f"{type(exc).__name__}: {exc}")
        with self._lock:
            self._machine = machine
            self._own_sampler = owned
            if error is not None:
                self._machine_error = error
            elif sampler is None:
                self._machine_error = machine.note or message(
                    "no telemetry source for this machine")
            late = self._closed
        self._machine_ready.set()
        if late:  # the run ended first
            self._release(machine, owned)

    def _target_event(self) -> Iterator[TargetKnown]:
        if self._target_sent or self._hello is None or not self._machine_ready.is_set():
            return
        self._target_sent = True
        with self._lock:
            machine, error = self._machine, self._machine_error
        gpus = machine.gpus if machine is not None else ()
        hello = self._hello
        target = match_target(hello, gpus)
        device: str | None
        missing: str | None = None
        if machine is None:  # the machine could not be listed, or not in time
            device, missing = None, error or message("the machine's GPUs are not known")
        elif not is_gpu_run(hello):
            device = HOST_DEVICE if hello.device == "cpu" else None
        elif target is not None and target.gpu_index is not None:
            device = target.pci_bus or f"gpu{target.gpu_index}"
        else:
            device = None
            missing = message("the GPU the worker ran on was not found among the machine's "
                              "GPUs, so its telemetry is not known")
        if device is not None and not self._capturing:
            missing, device = error or message("no telemetry was sampled"), None
        self._target, self._telemetry_device, self._telemetry_missing = target, device, missing
        yield TargetKnown(target, device, missing)

    def _with_telemetry(self, result: BenchmarkResult) -> BenchmarkResult:
        if result.telemetry is not None or self._telemetry_device is None:
            return result
        summary = self.capture.summary(self._telemetry_device, result.started_unix_s,
                                       result.ended_unix_s)
        return dataclasses.replace(result, telemetry=summary)

    def _finish(self, run: BenchRun) -> BenchRun:
        results = tuple(self._with_telemetry(r) for r in run.results)
        note = self._telemetry_missing
        if note is None and self._telemetry_device is None and run.hello is not None:
            with self._lock:
                note = self._machine_error
        return dataclasses.replace(run, results=results, target=self._target,
                                   telemetry_note=note, telemetry_before=self._before(results),
                                   other_processes=self._other_processes(run.hello))

    def _before(self, results: tuple[BenchmarkResult, ...]) -> BenchTelemetry | None:
        """The device under test from the first sample to the first benchmark: a load that
        was there before the run."""
        device, first = self._telemetry_device, self.capture.first_tick_s
        starts = [r.started_unix_s for r in results if r.started_unix_s is not None]
        if device is None or first is None or not starts or first >= min(starts):
            return None
        return self.capture.summary(device, first, min(starts))

    def _other_processes(self, hello: WorkerHello | None) -> tuple[str, ...]:
        """The processes on the GPU under test other than the worker (and gpuscope)."""
        with self._lock:
            machine, owned = self._machine, self._own_sampler
        sampler = owned or (machine.sampler if machine is not None else None)
        device = self._telemetry_device
        if sampler is None or device is None or device == HOST_DEVICE:
            return ()
        snapshot = sampler.processes.get(device)
        if snapshot is None:
            return ()
        mine = {os.getpid(), hello.pid if hello is not None else None}
        return tuple(f"{p.name or 'a process'} (pid {p.pid})" for p in snapshot.processes
                     if p.pid not in mine)

    def _close(self) -> None:
        with self._lock:
            self._closed = True
            machine, owned = self._machine, self._own_sampler
            self._machine, self._own_sampler = None, None
        self.capture.detach()
        if machine is not None:
            self._release(machine, owned)

    @staticmethod
    def _release(machine: BenchMachine, owned: Sampler | None) -> None:
        if owned is not None:
            owned.stop()
        if machine.sources is not None:
            machine.sources.close()
