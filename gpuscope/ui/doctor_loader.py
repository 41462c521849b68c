"""The window's diagnosis: the machine on show (live or imported), its frameworks, and the
doctor's findings, recomputed whenever one of them changes.

Diagnosing is pure and cheap, so it runs on the GUI thread. Inspecting frameworks starts
worker processes (one per interpreter, all at once) and takes seconds, so it runs in a daemon
thread (`BackgroundTask`); the choice of interpreters and each interpreter's answer reach the
GUI thread by queued signals as they come, so the pages fill in one interpreter at a time.
Cancelling kills the worker processes and ignores what was still to come.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from PySide6.QtCore import QObject, Signal, Slot

from gpuscope.doctor import DoctorInput, diagnose
from gpuscope.doctor.layers import LayerRow, layers_for
from gpuscope.evidence import System
from gpuscope.importer import ImportedMachine
from gpuscope.inventory import (
    DEFAULT_FRAMEWORK_TIMEOUT_S,
    DEFAULT_INSPECTION_BUDGET_S,
    AnswerCallback,
    FrameworkInspection,
    InterpreterAnswer,
    assemble,
    inspect_interpreters,
    origin_for,
)
from gpuscope.inventory.llm_runtimes import resolve_runtimes
from gpuscope.model import (
    Finding,
    Framework,
    Gpu,
    Interpreter,
    Inventory,
    LlmRuntime,
    ProbeState,
    ProbeStatus,
    Severity,
)
from gpuscope.probes.frameworks import FrameworkProbeResult
from gpuscope.probes.llm_runtimes import probe_llm_runtimes
from gpuscope.probes.python_envs import InterpreterChoice, default_interpreters, given_interpreters
from gpuscope.ui.background import BackgroundTask as BackgroundTask
from gpuscope.ui.background import Relay

log = logging.getLogger(__name__)

# collect(system, pythons, timeout_s) -> frameworks: a test's fake that answers all at once
# (see `inspector_of`).
FrameworkCollector = Callable[[System, Sequence[str], float], tuple[Framework, ...]]
WHY_TICKED = "ticked on the Frameworks page"


class FrameworkInspector(Protocol):
    """`inspect_interpreters`, or a test's fake with its signature."""

    def __call__(self, system: System, choices: Sequence[InterpreterChoice],
                  budget_s: float = ..., *, on_answer: AnswerCallback | None = None,
                  cancel: threading.Event | None = None,
                  smoke_test: bool = ...) -> FrameworkInspection: ...


def inspector_of(collect: FrameworkCollector) -> FrameworkInspector:
    """An inspector over a collector that answers for all interpreters at once: each
    interpreter's frameworks, or its `python` entry's error, as that interpreter's answer."""

    def inspect(system: System, choices: Sequence[InterpreterChoice],
                budget_s: float = DEFAULT_FRAMEWORK_TIMEOUT_S, *,
                on_answer: AnswerCallback | None = None,
                cancel: threading.Event | None = None,
                smoke_test: bool = True) -> FrameworkInspection:
        frameworks = collect(system, [c.python for c in choices], budget_s)
        answers = []
        for choice in choices:
            mine = tuple(f for f in frameworks if f.python == choice.python)
            broken = next((f.error for f in mine if f.name == "python"), None)
            status = ProbeStatus(f"frameworks:{choice.python}",
                                 ProbeState.ERROR if broken else ProbeState.OK, broken)
            answer = InterpreterAnswer(choice, FrameworkProbeResult(
                status, tuple(f for f in mine if f.name != "python"), python=choice.python))
            answers.append(answer)
            if on_answer is not None:
                on_answer(answer)
        return FrameworkInspection(tuple(answers))

    return inspect


@dataclass(frozen=True, slots=True)
class Diagnosis:
    """One machine's evidence and what the doctor made of it."""

    data: DoctorInput
    findings: tuple[Finding, ...]
    imported: ImportedMachine | None = None
    remote: str | None = None  # the address of the `gpuscope serve` it came from

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
    interpreters: Sequence[Interpreter] = (),
    llm_runtimes: Sequence[LlmRuntime] = (),
) -> Diagnosis:
    signals = imported.signals if imported is not None else ()
    data = DoctorInput(inventory, tuple(frameworks), signals, tuple(interpreters),
                       llm_runtimes=resolve_runtimes(llm_runtimes, inventory.gpus))
    return Diagnosis(data, diagnose(data), imported)


def diagnosis_of_import(machine: ImportedMachine) -> Diagnosis:
    return make_diagnosis(machine.inventory, machine.frameworks, machine,
                          llm_runtimes=machine.llm_runtimes)


# What an inspection's thread tells the GUI thread: ("chosen", the interpreters) once they
# are chosen, ("answered", an InterpreterAnswer) as each answers.
CHOSEN, ANSWERED = "chosen", "answered"


Chooser = Callable[[], tuple[InterpreterChoice, ...]]


def _inspect(inspector: FrameworkInspector, system: System,
             choices: tuple[InterpreterChoice, ...] | Chooser, budget_s: float,
             cancel: threading.Event, relay: Relay,
             number: int) -> FrameworkInspection:
    """Worker thread: choose (and say so) unless chosen, inspect, say each answer; never
    touches a widget."""

    def tell(kind: str, payload: object) -> None:
        if not relay.send(number, (kind, payload)):  # the window is gone
            cancel.set()

    if not isinstance(choices, tuple):
        choices = choices()
        tell(CHOSEN, choices)
    return inspector(system, choices, budget_s,
                     on_answer=lambda answer: tell(ANSWERED, answer), cancel=cancel)


class DoctorLoader(QObject):
    """Holds what the window shows and its diagnosis.

    Live: the inventory from `set_inventory` (the InventoryLoader's `inventory_changed`) and
    the frameworks of the last inspection. Imported: an `ImportedMachine`, until
    `show_live()`. Every change emits `diagnosis_changed(Diagnosis)`.
    Inspection: `inspect_default()` (what the window does when it opens: the interpreters a
    user plausibly runs, 20 s in all) or `inspect(pythons)` (those ticked) emits
    `inspection_started(pythons)` once they are chosen, `interpreter_answered(answer)` and a
    new diagnosis as each answers, then `inspection_finished(frameworks)` or, after
    `cancel_inspection()`, `inspection_cancelled()`.
    """

    diagnosis_changed = Signal(object)
    inspection_started = Signal(object)
    interpreter_answered = Signal(object)
    inspection_finished = Signal(object)
    # The whole FrameworkInspection of a finished inspection (the Benchmarks page picks its
    # default interpreter from it instead of inspecting again).
    inspection_done = Signal(object)
    inspection_failed = Signal(str)
    inspection_cancelled = Signal()

    def __init__(
        self,
        system: System,
        collect: FrameworkCollector | None = None,
        framework_timeout_s: float = DEFAULT_FRAMEWORK_TIMEOUT_S,
        parent: QObject | None = None,
        *,
        inspector: FrameworkInspector = inspect_interpreters,
        default_budget_s: float = DEFAULT_INSPECTION_BUDGET_S,
    ) -> None:
        super().__init__(parent)
        self._system = system
        self._inspector = inspector_of(collect) if collect is not None else inspector
        self._timeout_s = framework_timeout_s
        self._default_budget_s = default_budget_s
        self._live_inventory = assemble([], origin_for(system))
        self._live = FrameworkInspection()
        self._inspected: tuple[str, ...] = ()
        self._chosen: tuple[InterpreterChoice, ...] = ()
        self._answers: dict[str, InterpreterAnswer] = {}
        self._number = 0
        self._cancel = threading.Event()
        self._imported: ImportedMachine | None = None
        self._diagnosis = make_diagnosis(self._live_inventory)
        self._relay = Relay(self._on_inspection_news, self)
        self._task = BackgroundTask("frameworks", self)
        self._task.done.connect(self._on_inspected)
        self._task.failed.connect(self._on_inspection_failed)
        # The LLM runtimes are looked for once the interpreters have answered (vLLM and
        # SGLang are packages in them); a slow `--list-devices` never holds the pages up.
        self._llm_runtimes: tuple[LlmRuntime, ...] = ()
        self._llm_task = BackgroundTask("llm-runtimes", self)
        self._llm_task.done.connect(self._on_llm_runtimes)

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
        return self._live.frameworks

    @property
    def live_interpreters(self) -> tuple[Interpreter, ...]:
        return self._live.interpreters

    @property
    def inspected_pythons(self) -> tuple[str, ...]:
        """The interpreters that have answered: those of the last finished inspection, or
        of the running one so far."""
        return self._inspected

    @property
    def chosen(self) -> tuple[InterpreterChoice, ...]:
        """The interpreters of the running or last inspection, each with why."""
        return self._chosen

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

    def _set_live(self, inspection: FrameworkInspection) -> None:
        self._live = inspection
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
            self._diagnosis = make_diagnosis(self._live_inventory, self._live.frameworks,
                                             interpreters=self._live.interpreters,
                                             llm_runtimes=self._llm_runtimes)
        self.diagnosis_changed.emit(self._diagnosis)

    # ------------------------------------------------------------------ inspection

    def inspect_default(self, own_python: str, added: Sequence[str] = ()) -> None:
        """Inspect the interpreters a user plausibly runs (`default_interpreters`: this
        one, python3 and python on PATH, the active environments, `added`), bounded to 20 s
        in all; a replay answers with the interpreters its capture inspected."""
        system, wanted = self._system, tuple(added)
        self._start(lambda: default_interpreters(system, own_python, wanted),
                    self._default_budget_s)

    def inspect(self, pythons: Sequence[str]) -> None:
        """Inspect the frameworks of `pythons` off the GUI thread; an inspection already
        running is cancelled."""
        self._start(given_interpreters(pythons, WHY_TICKED), self._timeout_s)

    def _start(self, choices: tuple[InterpreterChoice, ...] | Chooser,
               budget_s: float) -> None:
        self._cancel.set()  # a stale inspection's workers are killed
        self._cancel = threading.Event()
        self._number += 1
        self._answers = {}
        self._inspected = ()
        self._task.start(_inspect, self._inspector, self._system, choices, budget_s,
                         self._cancel, self._relay, self._number)
        if isinstance(choices, tuple):
            self._on_chosen(self._number, choices)

    def cancel_inspection(self) -> None:
        if not self._task.is_running:
            return
        self._stop()
        self.inspection_cancelled.emit()

    def shutdown(self) -> None:
        self._stop()

    def _stop(self) -> None:
        self._cancel.set()
        self._number += 1
        self._task.cancel()
        self._llm_task.cancel()

    @Slot(int, object)
    def _on_inspection_news(self, number: int, news: tuple[str, object]) -> None:
        kind, payload = news
        if kind == CHOSEN:
            self._on_chosen(number, payload)
        else:
            self._on_answered(number, payload)

    def _on_chosen(self, number: int, choices: object) -> None:
        if number != self._number or not isinstance(choices, tuple):
            return
        self._chosen = tuple(c for c in choices if isinstance(c, InterpreterChoice))
        self.inspection_started.emit(tuple(c.python for c in self._chosen))

    def _on_answered(self, number: int, answer: object) -> None:
        if number != self._number or not isinstance(answer, InterpreterAnswer):
            return
        self._answers[answer.choice.python] = answer
        so_far = FrameworkInspection.of(
            [self._answers[c.python] for c in self._chosen if c.python in self._answers])
        self._inspected = tuple(a.choice.python for a in so_far.answers)
        self.interpreter_answered.emit(answer)
        self._set_live(so_far)

    def _on_inspected(self, inspection: object) -> None:
        if not isinstance(inspection, FrameworkInspection):
            inspection = FrameworkInspection()
        self._inspected = tuple(a.choice.python for a in inspection.answers)
        self.inspection_finished.emit(inspection.frameworks)
        self._set_live(inspection)
        self.inspection_done.emit(inspection)
        if not self._llm_task.is_running:
            self._llm_task.start(probe_llm_runtimes, self._system, inspection.interpreters,
                                 inspection.frameworks)

    def _on_llm_runtimes(self, runtimes: object) -> None:
        if isinstance(runtimes, tuple):
            self._llm_runtimes = tuple(r for r in runtimes if isinstance(r, LlmRuntime))
            if self._imported is None:
                self.recompute()

    def _on_inspection_failed(self, message: str) -> None:
        self.inspection_failed.emit(message)
