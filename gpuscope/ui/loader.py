"""Runs the inventory probes off the GUI thread and re-assembles the inventory as each one
answers, so the window fills in while slow probes are still running.

Each probe runs in its own daemon thread (a probe stuck inside a vendor library cannot be
cancelled, and must not keep the process alive). A thread never touches a widget: its result
travels to the GUI thread by a queued signal. The timeout is a QTimer on the GUI thread; a
probe that answers after it, or after `cancel()`, is ignored.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Sequence

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from gpuscope.evidence import System
from gpuscope.inventory import (
    DEFAULT_PROBE_TIMEOUT_S,
    PROBES,
    ProbeSpec,
    assemble,
    origin_for,
    run_probe,
    timed_out_result,
)
from gpuscope.model import Inventory, ProbeResult, ProbeState, ProbeStatus
from gpuscope.ui.background import THREAD_NAME_PREFIX as THREAD_NAME_PREFIX
from gpuscope.ui.background import Relay

log = logging.getLogger(__name__)

# Threads started here carry this prefix, so tests can check that none outlives its window.


def live_probe_threads() -> list[threading.Thread]:
    """Probe threads started by any loader that are still inside their probe."""
    return [thread for thread in threading.enumerate()
            if thread.name.startswith(THREAD_NAME_PREFIX) and thread.is_alive()]


class InventoryLoader(QObject):
    """Runs `probes` against `system`; emits the re-assembled inventory after each probe.

    Signals: `inventory_changed(Inventory)` after every probe that finishes or times out,
    then `probe_finished(name)`; `finished()` once every probe has finished or timed out.
    """

    probe_finished = Signal(str)
    inventory_changed = Signal(object)
    finished = Signal()

    def __init__(
        self,
        system: System,
        probes: Sequence[ProbeSpec] = PROBES,
        probe_timeout_s: float = DEFAULT_PROBE_TIMEOUT_S,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._system = system
        self._probes = tuple(probes)
        self._timeout_s = probe_timeout_s
        self._generation = 0
        self._cancel_event = threading.Event()
        self._results: dict[str, ProbeResult] = {}
        self._durations: dict[str, float] = {}
        self._pending: list[str] = []
        self._timers: dict[str, QTimer] = {}
        self._running = False
        # A probe thread's answer: (probe name, ProbeResult, seconds it took).
        self._relay = Relay(self._on_answer, self)
        self._inventory = assemble([], origin_for(system))

    # ------------------------------------------------------------------ state for the views

    @property
    def probes(self) -> tuple[ProbeSpec, ...]:
        return self._probes

    @property
    def probe_timeout_s(self) -> float:
        return self._timeout_s

    @property
    def inventory(self) -> Inventory:
        """The inventory assembled from the probes that have finished so far."""
        return self._inventory

    @property
    def pending(self) -> tuple[str, ...]:
        """Names of the probes still running, in probe order."""
        return tuple(self._pending) if self._running else ()

    @property
    def finished_count(self) -> int:
        return len(self._results)

    @property
    def total(self) -> int:
        return len(self._probes)

    @property
    def is_running(self) -> bool:
        return self._running

    def active_timers(self) -> list[QTimer]:
        return [timer for timer in self._timers.values() if timer.isActive()]

    # ------------------------------------------------------------------ control

    def start(self) -> None:
        """Start every probe; a scan already running is cancelled first."""
        self.cancel()
        self._generation += 1
        generation = self._generation
        self._cancel_event = threading.Event()
        self._results.clear()
        self._durations.clear()
        self._pending = [spec.name for spec in self._probes]
        self._running = True
        self._inventory = assemble([], origin_for(self._system))
        if not self._probes:
            self._finish()
            return
        for spec in self._probes:
            timer = QTimer(self)
            timer.setSingleShot(True)
            timer.setInterval(max(1, round(self._timeout_s * 1000)))
            timer.timeout.connect(functools.partial(self._on_timeout, generation, spec.name))
            self._timers[spec.name] = timer
            timer.start()
            thread = threading.Thread(
                target=_work, args=(spec, self._system, self._relay, generation,
                                    self._cancel_event),
                name=f"{THREAD_NAME_PREFIX}{spec.name}", daemon=True,
            )
            thread.start()

    def cancel(self) -> None:
        """Stop listening: timers stop now, and answers still to come are dropped. Threads
        still inside a probe end on their own when the probe returns."""
        self._cancel_event.set()
        self._generation += 1
        self._stop_timers()
        self._running = False

    # ------------------------------------------------------------------ internals

    def _stop_timers(self) -> None:
        for timer in self._timers.values():
            timer.stop()
            timer.deleteLater()
        self._timers.clear()

    @Slot(int, object)
    def _on_answer(self, generation: int, answer: tuple[str, object, float]) -> None:
        name, result, duration_s = answer
        if generation != self._generation or name not in self._pending:
            log.debug("ignoring a late answer from probe %s", name)
            return
        if not isinstance(result, ProbeResult):  # a probe bug: show it, do not crash
            result = ProbeResult(ProbeStatus(
                name, ProbeState.ERROR,
                reason=f"probe returned {type(result).__name__}, not a ProbeResult",
                hint="this is a gpuscope bug; please report it",
            ))
        self._durations[name] = round(duration_s, 4)
        self._accept(name, result)

    def _on_timeout(self, generation: int, name: str) -> None:
        if generation != self._generation or name not in self._pending:
            return
        log.warning("probe %s gave no answer within %g s", name, self._timeout_s)
        self._accept(name, timed_out_result(self._spec(name), self._timeout_s))

    def _spec(self, name: str) -> ProbeSpec:
        return next(spec for spec in self._probes if spec.name == name)

    def _accept(self, name: str, result: ProbeResult) -> None:
        timer = self._timers.pop(name, None)
        if timer is not None:
            timer.stop()
            timer.deleteLater()
        self._pending.remove(name)
        self._results[name] = result
        ordered = [self._results[spec.name] for spec in self._probes if spec.name in self._results]
        self._inventory = assemble(ordered, origin_for(self._system, self._durations))
        self.inventory_changed.emit(self._inventory)
        self.probe_finished.emit(name)
        if not self._pending:
            self._finish()

    def _finish(self) -> None:
        self._running = False
        self._stop_timers()
        self.finished.emit()


def _work(
    spec: ProbeSpec, system: System, relay: Relay, generation: int,
    cancelled: threading.Event,
) -> None:
    """Probe thread: run one probe and post its result; never touches a widget."""
    started = time.monotonic()
    result = run_probe(spec, system)
    if cancelled.is_set():
        return
    if not relay.send(generation, (spec.name, result, time.monotonic() - started)):
        log.debug("probe %s answered after its window closed", spec.name)
