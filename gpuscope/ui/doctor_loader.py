"""The window's diagnosis: the machine on show (live or imported), its frameworks, and the
doctor's findings, recomputed whenever one of them changes.

Diagnosing is pure and cheap, so it runs on the GUI thread. Inspecting frameworks starts
worker processes and takes seconds, so it runs in a daemon thread (`BackgroundTask`) whose
answer reaches the GUI thread by a queued signal; cancelling stops waiting for it (the worker
processes end on their own timeouts).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal, Slot

from gpuscope.doctor import DoctorInput, diagnose
from gpuscope.doctor.layers import LayerRow, layers_for
from gpuscope.evidence import System
from gpuscope.importer import ImportedMachine
from gpuscope.inventory import DEFAULT_FRAMEWORK_TIMEOUT_S, assemble, collect_frameworks, origin_for
from gpuscope.model import Finding, Framework, Gpu, Inventory, Severity
from gpuscope.ui.loader import THREAD_NAME_PREFIX

log = logging.getLogger(__name__)

# collect(system, pythons, timeout_s) -> frameworks; `collect_frameworks` or a test's fake.
FrameworkCollector = Callable[[System, Sequence[str], float], tuple[Framework, ...]]


@dataclass(frozen=True, slots=True)
class Diagnosis:
    """One machine's evidence and what the doctor made of it."""

    data: DoctorInput
    findings: tuple[Finding, ...]
    imported: ImportedMachine | None = None

    @property
    def inventory(self) -> Inventory:
        return self.data.inventory

    @property
    def frameworks(self) -> tuple[Framework, ...]:
        return self.data.frameworks

    def layers(self, gpu: Gpu) -> list[LayerRow]:
        return layers_for(self.data, self.findings, gpu)

    def system_findings(self) -> list[Finding]:
        """Findings about the whole machine (no GPU index), worst first."""
        return [f for f in self.findings if f.gpu is None]

    def gpu_findings(self, index: int) -> list[Finding]:
        return [f for f in self.findings if f.gpu == index]

    def counts(self) -> tuple[int, int]:
        """(errors, warnings)."""
        return (sum(1 for f in self.findings if f.severity is Severity.ERROR),
                sum(1 for f in self.findings if f.severity is Severity.WARNING))


def make_diagnosis(
    inventory: Inventory, frameworks: Sequence[Framework] = (),
    imported: ImportedMachine | None = None,
) -> Diagnosis:
    signals = imported.signals if imported is not None else ()
    data = DoctorInput(inventory, tuple(frameworks), signals)
    return Diagnosis(data, diagnose(data), imported)


def diagnosis_of_import(machine: ImportedMachine) -> Diagnosis:
    return make_diagnosis(machine.inventory, machine.frameworks, machine)


class _Relay(QObject):
    answered = Signal(int, object, object)  # generation, result, exception or None


class BackgroundTask(QObject):
    """Runs one function at a time in a daemon thread named `gpuscope-probe-<name>` (so the
    test guards see it) and emits `done(result)` or `failed(message)` on the GUI thread.
    A task started while another runs, or `cancel()`, makes the earlier answer ignored."""

    done = Signal(object)
    failed = Signal(str)

    def __init__(self, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._name = name
        self._generation = 0
        self._running = False
        self._relay = _Relay(self)
        self._relay.answered.connect(self._on_answer, Qt.ConnectionType.QueuedConnection)

    @property
    def is_running(self) -> bool:
        return self._running

    def start(self, function: Callable[..., Any], *args: Any) -> None:
        self._generation += 1
        self._running = True
        thread = threading.Thread(
            target=_run_task, args=(function, args, self._relay, self._generation),
            name=f"{THREAD_NAME_PREFIX}{self._name}", daemon=True,
        )
        thread.start()

    def cancel(self) -> None:
        self._generation += 1
        self._running = False

    @Slot(int, object, object)
    def _on_answer(self, generation: int, result: object, error: object) -> None:
        if generation != self._generation:
            log.debug("ignoring a late answer of %s", self._name)
            return
        self._running = False
        if error is not None:
            self.failed.emit(str(error))
        else:
            self.done.emit(result)


def _run_task(function: Callable[..., Any], args: tuple[Any, ...], relay: _Relay,
              generation: int) -> None:
    """Worker thread: never touches a widget."""
    result: object = None
    error: str | None = None
    try:
        result = function(*args)
    except Exception as exc:  # shown to the user as the task's failure, not a crash
        log.exception("background task failed")
        error = f"{type(exc).__name__}: {exc}"
    try:
        relay.answered.emit(generation, result, error)
    except RuntimeError:  # the window, and with it the relay, is already gone
        log.debug("a background task answered after its window closed")


def _collect(collect: FrameworkCollector, system: System, pythons: tuple[str, ...],
             timeout_s: float) -> tuple[Framework, ...]:
    return tuple(collect(system, pythons, timeout_s))


class DoctorLoader(QObject):
    """Holds what the window shows and its diagnosis.

    Live: the inventory from `set_inventory` (the InventoryLoader's `inventory_changed`) and
    the frameworks of the last inspection. Imported: an `ImportedMachine`, until
    `show_live()`. Every change emits `diagnosis_changed(Diagnosis)`.
    Inspection: `inspect(pythons)` emits `inspection_started(pythons)`, then
    `inspection_finished(frameworks)` (and a new diagnosis) or, after `cancel_inspection()`,
    `inspection_cancelled()`.
    """

    diagnosis_changed = Signal(object)
    inspection_started = Signal(object)
    inspection_finished = Signal(object)
    inspection_failed = Signal(str)
    inspection_cancelled = Signal()

    def __init__(
        self,
        system: System,
        collect: FrameworkCollector = collect_frameworks,
        framework_timeout_s: float = DEFAULT_FRAMEWORK_TIMEOUT_S,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._system = system
        self._collect = collect
        self._timeout_s = framework_timeout_s
        self._live_inventory = assemble([], origin_for(system))
        self._live_frameworks: tuple[Framework, ...] = ()
        self._inspected: tuple[str, ...] = ()
        self._pending_pythons: tuple[str, ...] = ()
        self._imported: ImportedMachine | None = None
        self._diagnosis = make_diagnosis(self._live_inventory)
        self._task = BackgroundTask("frameworks", self)
        self._task.done.connect(self._on_inspected)
        self._task.failed.connect(self._on_inspection_failed)

    # ------------------------------------------------------------------ state

    @property
    def system(self) -> System:
        return self._system

    @property
    def diagnosis(self) -> Diagnosis:
        return self._diagnosis

    @property
    def imported(self) -> ImportedMachine | None:
        return self._imported

    @property
    def live_inventory(self) -> Inventory:
        return self._live_inventory

    @property
    def live_frameworks(self) -> tuple[Framework, ...]:
        return self._live_frameworks

    @property
    def inspected_pythons(self) -> tuple[str, ...]:
        """The interpreters of the last finished inspection."""
        return self._inspected

    @property
    def is_inspecting(self) -> bool:
        return self._task.is_running

    # ------------------------------------------------------------------ changes

    @Slot(object)
    def set_inventory(self, inventory: object) -> None:
        """The live inventory changed (another probe answered)."""
        if not isinstance(inventory, Inventory):
            return
        self._live_inventory = inventory
        if self._imported is None:
            self.recompute()

    def set_frameworks(self, frameworks: Sequence[Framework]) -> None:
        self._live_frameworks = tuple(frameworks)
        if self._imported is None:
            self.recompute()

    def show_imported(self, machine: ImportedMachine) -> None:
        self._imported = machine
        self.recompute()

    def show_live(self) -> None:
        self._imported = None
        self.recompute()

    def recompute(self) -> None:
        if self._imported is not None:
            self._diagnosis = diagnosis_of_import(self._imported)
        else:
            self._diagnosis = make_diagnosis(self._live_inventory, self._live_frameworks)
        self.diagnosis_changed.emit(self._diagnosis)

    # ------------------------------------------------------------------ inspection

    def inspect(self, pythons: Sequence[str]) -> None:
        """Inspect the frameworks of `pythons` off the GUI thread; an inspection already
        running is dropped."""
        wanted = tuple(dict.fromkeys(pythons))
        self._pending_pythons = wanted
        self._task.start(_collect, self._collect, self._system, wanted, self._timeout_s)
        self.inspection_started.emit(wanted)

    def cancel_inspection(self) -> None:
        if not self._task.is_running:
            return
        self._task.cancel()
        self.inspection_cancelled.emit()

    def shutdown(self) -> None:
        self._task.cancel()

    def _on_inspected(self, frameworks: object) -> None:
        found = tuple(f for f in frameworks if isinstance(f, Framework)) if isinstance(
            frameworks, tuple) else ()
        self._inspected = self._pending_pythons
        self.inspection_finished.emit(found)
        self.set_frameworks(found)

    def _on_inspection_failed(self, message: str) -> None:
        self.inspection_failed.emit(message)
