"""The Benchmarks page: run the microbenchmarks with a chosen Python's torch, watch them, and read
each result against the card's datasheet, with the telemetry recorded while it ran.

A Run button per suite (quick, full, each family) and "Run all" (the full suite on every GPU the
worker sees, one after the other); the interpreter (by default the inspected one whose PyTorch
can use the GPU, as `gpuscope bench` chooses it; when none has PyTorch, the line saying what to
install) and the device; progress of the run and of the current benchmark; Cancel. The results
table shows value, spread, % of the datasheet peak and the verdict (unstable when the repeats
disagree), the relative error, the library, and what the clocks, power and temperature did; the
chart puts measured matmul throughput beside the datasheet peak per precision. Past runs come
from the run history (SQLite), can be shown again, deleted, and two of them compared.

The run is a `BenchSession` on a thread of its own; its events reach the widgets only through
a queued signal. A crash, hang, abort or out-of-memory ends the run with a clear error on the
page; the page stays usable. Nothing runs until a Run button is pressed.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from gpuscope.bench.assess import RunAssessment, assess_run, device_label
from gpuscope.bench.catalog import FAMILIES, SUITES, resolve_suites
from gpuscope.bench.history import RunHistory
from gpuscope.bench.interpreter import BenchInterpreter
from gpuscope.bench.results import (
    BenchError,
    BenchmarkResult,
    BenchRun,
    BenchTarget,
    WorkerHello,
    primary_error,
)
from gpuscope.bench.runner import (
    BenchmarkProgress,
    BenchRequest,
    ErrorRaised,
    HelloReceived,
    ResultReceived,
    RunFinished,
    RunStarted,
)
from gpuscope.bench.session import (
    BenchSession,
    MachineProvider,
    SessionEvent,
    TargetKnown,
    live_machine,
)
from gpuscope.evidence import LiveSystem, System
from gpuscope.inventory import FrameworkInspection
from gpuscope.model import Inventory, OriginKind
from gpuscope.probes.python_envs import PythonEnv, discover_python_envs
from gpuscope.ui.background import BackgroundTask, Relay
from gpuscope.ui.bench.chart import BenchChart
from gpuscope.ui.bench.history import BenchHistoryPanel
from gpuscope.ui.bench.interpreter import (
    DefaultInterpreter,
    InterpreterPicker,
    live_pick,
    pick_from,
)
from gpuscope.ui.bench.table import COLUMNS as COLUMNS
from gpuscope.ui.bench.table import (
    BenchResultsTable,
    error_words,
    errors_text,
    verdict_line,
)
from gpuscope.ui.i18n import core_text
from gpuscope.ui.theme import ERROR_COLOR, MUTED_COLOR, WARN_COLOR
from gpuscope.ui.widgets import css_color, make_label, plain_tooltip

EnvironmentFinder = Callable[[System, str], tuple[PythonEnv, ...]]
SessionFactory = Callable[[BenchRequest, MachineProvider | None], BenchSession]


def _default_session(request: BenchRequest, machine: MachineProvider | None) -> BenchSession:
    return BenchSession(request, machine)


class BenchPage(QWidget):
    """Run benchmarks, see them against the datasheet, keep and compare runs."""

    run_finished = Signal(object)  # the BenchRun, after it is shown (and being saved)

    def __init__(
        self,
        current_python: str = sys.executable,
        find_environments: EnvironmentFinder = discover_python_envs,
        parent: QWidget | None = None,
        *,
        system: System | None = None,
        machine: MachineProvider | None = live_machine,
        history: RunHistory | None = None,
        request_options: Mapping[str, Any] | None = None,
        session_factory: SessionFactory = _default_session,
        choose_interpreter: InterpreterPicker | None = live_pick,
    ) -> None:
        super().__init__(parent)
        self._current_python = current_python
        self._find = find_environments
        self._system = system
        self._machine = machine
        self.history = history if history is not None else RunHistory()
        self._request_options = dict(request_options or {})
        self._make_session = session_factory
        self._session: BenchSession | None = None
        self._generation = 0
        self._queue: list[tuple[str, str]] = []  # (suite, device) still to run for "Run all"
        self._run_all = False
        self._done_devices: set[str] = set()
        self._hello: WorkerHello | None = None
        self._target: BenchTarget | None = None
        self._target_known = False
        self._results: list[BenchmarkResult] = []
        self._errors: list[BenchError] = []
        self._shown_run: BenchRun | None = None
        self._shown_assessment: RunAssessment | None = None
        self._shown_past: int | None = None  # the history id on show, when a past run
        self._discovered = False
        self._devices_by_python: dict[str, WorkerHello] = {}
        self._relay = Relay(self._on_event, self)  # a session's events, from its thread
        self._discovery = BackgroundTask("bench-python-envs", self)
        self._discovery.done.connect(self._on_environments)
        self._discovery.failed.connect(self._on_discovery_failed)
        self._user_chose_python = False  # a choice by hand is never replaced by the default
        self.default_interpreter = DefaultInterpreter(choose_interpreter, current_python, self)
        self.default_interpreter.picked.connect(self._on_default_interpreter)
        self._build()

    # ------------------------------------------------------------------ layout

    def _build(self) -> None:
        # In a scroll area: the page needs about 680 px, and must not hold the window to it.
        frame = QVBoxLayout(self)
        frame.setContentsMargins(0, 0, 0, 0)
        self.scroll_area = QScrollArea(self)
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        frame.addWidget(self.scroll_area)
        content = QWidget()
        self.scroll_area.setWidget(content)
        outer = QVBoxLayout(content)
        outer.setContentsMargins(18, 14, 18, 12)
        outer.setSpacing(6)
        outer.addWidget(make_label(self.tr("Benchmarks"), bold=True, scale=1.3, wrap=False))
        self.summary_label = make_label(self.tr(
            "Microbenchmarks in a separate process with the chosen Python's PyTorch. Each result "
            "is set against the card's datasheet peak and published measurements, with the "
            "clocks, power and temperature recorded while it ran."), color=MUTED_COLOR)
        outer.addWidget(self.summary_label)
        self.replay_note = make_label("", color=WARN_COLOR)
        self.replay_note.hide()
        if self._system is not None and self._system.origin_kind is not OriginKind.LIVE:
            self.replay_note.setText(self.tr(
                "The window shows a replayed or imported machine; benchmarks always run on this "
                "machine."))
            self.replay_note.show()
        outer.addWidget(self.replay_note)

        controls = QGridLayout()
        controls.setHorizontalSpacing(8)
        controls.setVerticalSpacing(6)
        controls.addWidget(make_label(self.tr("Python:"), wrap=False), 0, 0)
        self.python_box = QComboBox()
        self.python_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.python_box.setMinimumContentsLength(30)
        self.python_box.currentIndexChanged.connect(self._on_python_changed)
        self.python_box.activated.connect(lambda _index: setattr(self, "_user_chose_python",
                                                                 True))
        self._add_python(self._current_python, self.tr("this Python (gpuscope's)"))
        python_row = QHBoxLayout()
        python_row.setSpacing(6)
        python_row.addWidget(self.python_box, 1)
        self.other_python_button = QPushButton(self.tr("Other…"))
        self.other_python_button.setToolTip(self.tr(
            "Pick an interpreter whose environment has the ROCm or CUDA build of torch"))
        self.other_python_button.clicked.connect(self._choose_interpreter)
        python_row.addWidget(self.other_python_button)
        python_row.addSpacing(12)
        python_row.addWidget(make_label(self.tr("Device:"), wrap=False))
        self.device_box = QComboBox()
        self.device_box.setMinimumContentsLength(18)
        self.device_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        python_row.addWidget(self.device_box)
        controls.addLayout(python_row, 0, 1)

        controls.addWidget(make_label(self.tr("Run:"), wrap=False), 1, 0)
        buttons = QHBoxLayout()
        buttons.setSpacing(6)
        self.run_buttons: dict[str, QPushButton] = {}
        titles = {"quick": self.tr("Quick"), "full": self.tr("Full"),
                  "matmul": self.tr("Matmul"), "memory": self.tr("Memory"),
                  "transfer": self.tr("Transfer"), "latency": self.tr("Latency"),
                  "attention": self.tr("Attention"), "llm": self.tr("LLM")}
        for suite in ("quick", "full", *FAMILIES):
            button = QPushButton(titles.get(suite, suite))
            button.setToolTip(plain_tooltip(
                self.tr("Run {suite}: {ids}").format(suite=suite, ids=", ".join(SUITES[suite]))))
            button.clicked.connect(lambda _checked=False, name=suite: self.run_suite(name))
            buttons.addWidget(button)
            self.run_buttons[suite] = button
        self.run_buttons["quick"].setDefault(True)
        self.run_all_button = QPushButton(self.tr("Run all"))
        self.run_all_button.setToolTip(self.tr(
            "The full suite on every GPU the worker sees, one after the other (the CPU when "
            "there is none)"))
        self.run_all_button.clicked.connect(self.run_all)
        buttons.addWidget(self.run_all_button)
        buttons.addStretch(1)
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        buttons.addWidget(self.cancel_button)
        controls.addLayout(buttons, 1, 1)
        self.interpreter_note = make_label("", color=MUTED_COLOR)
        self.interpreter_note.setObjectName("benchInterpreterNote")
        controls.addWidget(self.interpreter_note, 2, 1)
        controls.setColumnStretch(1, 1)
        outer.addLayout(controls)

        progress = QGridLayout()
        progress.setHorizontalSpacing(8)
        progress.setVerticalSpacing(2)
        self.overall_bar = QProgressBar()
        self.overall_bar.setRange(0, 1000)
        self.overall_bar.setValue(0)
        self.overall_bar.setTextVisible(False)
        self.overall_bar.setFixedHeight(12)
        self.overall_label = make_label(self.tr("No run yet: press a Run button."), wrap=False)
        self.current_bar = QProgressBar()
        self.current_bar.setRange(0, 1000)
        self.current_bar.setValue(0)
        self.current_bar.setTextVisible(False)
        self.current_bar.setFixedHeight(12)
        self.current_label = make_label("", wrap=False, color=MUTED_COLOR)
        progress.addWidget(make_label(self.tr("Run"), wrap=False, color=MUTED_COLOR), 0, 0)
        progress.addWidget(self.overall_bar, 0, 1)
        progress.addWidget(self.overall_label, 0, 2)
        progress.addWidget(make_label(self.tr("Benchmark"), wrap=False, color=MUTED_COLOR), 1, 0)
        progress.addWidget(self.current_bar, 1, 1)
        progress.addWidget(self.current_label, 1, 2)
        progress.setColumnMinimumWidth(1, 220)
        progress.setColumnStretch(2, 1)
        outer.addLayout(progress)

        self.error_label = make_label("")
        self.error_label.setObjectName("benchError")
        self.error_label.setStyleSheet(
            f"QLabel#benchError {{ color: {css_color(ERROR_COLOR)}; font-weight: bold; }}")
        self.error_label.hide()
        outer.addWidget(self.error_label)
        self.run_info = make_label("", color=MUTED_COLOR)
        outer.addWidget(self.run_info)

        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.setChildrenCollapsible(False)
        # Its preferred height would make the scroll area scroll at any window size (the
        # wrapped labels give the page a height-for-width): take what is left instead.
        splitter.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Ignored)
        results_box = QWidget()
        results_column = QVBoxLayout(results_box)
        results_column.setContentsMargins(0, 0, 0, 0)
        results_column.setSpacing(4)
        self.table = BenchResultsTable()
        self.table.itemSelectionChanged.connect(self._on_row_selected)
        results_column.addWidget(self.table, 1)
        self.verdict_label = make_label("", color=MUTED_COLOR)
        self.verdict_label.setMinimumHeight(34)  # two lines of verdict
        results_column.addWidget(self.verdict_label)
        splitter.addWidget(results_box)

        lower = QWidget()
        lower_row = QHBoxLayout(lower)
        lower_row.setContentsMargins(0, 4, 0, 0)
        lower_row.setSpacing(14)
        self.chart = BenchChart()
        lower_row.addWidget(self.chart, 3)
        self.past_runs = BenchHistoryPanel(self.history)
        self.past_runs.run_loaded.connect(self._on_past_run)
        lower_row.addWidget(self.past_runs, 2)
        splitter.addWidget(lower)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setMinimumHeight(splitter.minimumSizeHint().height())  # scroll below that
        outer.addWidget(splitter, 1)
        self._refresh_devices()
        self.chart.set_run(None, None)

    # ------------------------------------------------------------------ interpreters

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._discovered and not self._discovery.is_running:
            self._discovered = True
            self.refresh_environments()
            self.past_runs.refresh()
            if self._system is None or self._system.origin_kind is OriginKind.LIVE:
                self._choose_default(None)

    def refresh_environments(self) -> None:
        """Find the Python environments of this machine (off the GUI thread); benchmarks run
        here whatever machine the window shows."""
        self._discovery.start(self._find, LiveSystem(), self._current_python)

    @property
    def is_discovering(self) -> bool:
        return self._discovery.is_running

    def _on_environments(self, found: object) -> None:
        environments = [e for e in found if isinstance(e, PythonEnv)] if isinstance(
            found, (tuple, list)) else []
        for env in environments:
            if env.kind == "current" or env.path == self._current_python:
                continue
            self._add_python(env.path, env.name + (f", {env.note}" if env.note else ""))

    def _on_discovery_failed(self, message: str) -> None:
        self.python_box.setToolTip(plain_tooltip(
            self.tr("Looking for environments failed: {message}").format(message=message)))

    def use_inspection(self, inspection: FrameworkInspection, inventory: Inventory) -> None:
        """Choose the default interpreter from interpreters already inspected on this machine
        (the doctor's live inspection), instead of inspecting them again."""
        self.default_interpreter.use(pick_from(inspection, inventory))

    def _choose_default(self, then: Callable[[], None] | None) -> bool:
        """Start choosing the default interpreter (unless chosen, or one was picked by hand);
        True when `then` waits for it."""
        chooser = self.default_interpreter
        waits = not self._user_chose_python and chooser.after_pick(then or (lambda: None))
        if chooser.is_running:
            self.interpreter_note.setText(self.tr(
                "Looking for an interpreter whose PyTorch can use the GPU…"))
        return waits and then is not None

    def _on_default_interpreter(self, pick: BenchInterpreter) -> None:
        self.interpreter_note.setStyleSheet("")
        reason = core_text(pick.reason)
        if pick.python is None:
            self.interpreter_note.setText(reason)
            self.interpreter_note.setStyleSheet(f"color: {css_color(ERROR_COLOR)};")
            return
        if not self._user_chose_python and not self.is_running:
            self._add_python(pick.python, self.tr("PyTorch {version}").format(
                version=pick.torch_version or "?"))
            self.python_box.setCurrentIndex(self.python_box.findData(pick.python))
        self.interpreter_note.setText(self.tr("Default: {reason}").format(reason=reason))

    def _add_python(self, path: str, name: str) -> None:
        index = self.python_box.findData(path)
        if index < 0:
            self.python_box.addItem(f"{name} — {path}", path)
            index = self.python_box.count() - 1
            self.python_box.setItemData(index, path, Qt.ItemDataRole.ToolTipRole)

    def pythons(self) -> list[str]:
        return [str(self.python_box.itemData(i)) for i in range(self.python_box.count())]

    def python(self) -> str:
        data = self.python_box.currentData()
        return str(data) if data else self._current_python

    def set_python(self, path: str) -> None:
        """Use `path` for the next run (added to the list if it is not there); the default
        interpreter no longer replaces it."""
        self._user_chose_python = True
        self._add_python(path, os.path.basename(os.path.dirname(os.path.dirname(path)))
                         or path)
        self.python_box.setCurrentIndex(self.python_box.findData(path))

    def _choose_interpreter(self) -> None:
        path, _filter = QFileDialog.getOpenFileName(self, self.tr("Choose a Python interpreter"))
        if path:
            self.set_python(path)

    def _on_python_changed(self, _index: int) -> None:
        if hasattr(self, "device_box"):
            self._refresh_devices()

    def _refresh_devices(self) -> None:
        """Auto, CPU and the GPUs the chosen interpreter's torch reported in its last run."""
        chosen = self.device_box.currentData()
        self.device_box.blockSignals(True)
        self.device_box.clear()
        self.device_box.addItem(self.tr("Auto (first GPU, else CPU)"), "auto")
        self.device_box.addItem(self.tr("CPU"), "cpu")
        hello = self._devices_by_python.get(self.python())
        for device in hello.devices if hello is not None else ():
            self.device_box.addItem(self.tr("GPU {index}: {name}").format(
                index=device.index, name=device.name or "?"), str(device.index))
        index = self.device_box.findData(chosen) if chosen is not None else 0
        self.device_box.setCurrentIndex(max(0, index))
        self.device_box.blockSignals(False)

    def device(self) -> str:
        data = self.device_box.currentData()
        return str(data) if data else "auto"

    def set_device(self, device: str) -> None:
        index = self.device_box.findData(device)
        if index < 0:
            known = [self.device_box.itemData(i) for i in range(self.device_box.count())]
            raise ValueError(f"no device {device!r}; devices: {known}")
        self.device_box.setCurrentIndex(index)

    # ------------------------------------------------------------------ running

    @property
    def is_running(self) -> bool:
        return self._session is not None

    def run_suite(self, suite: str, device: str | None = None) -> None:
        """Run a suite (quick, full, a family) or benchmark ids; ignored while one runs."""
        if self._session is not None or self._choose_default(
                lambda: self.run_suite(suite, device)):
            return  # the run starts once the default interpreter is chosen
        self._run_all = False
        self._queue = []
        self._start(suite, device or self.device())

    def run_all(self) -> None:
        """The full suite on the chosen device, then on every other GPU the worker reports."""
        if self._session is not None or self._choose_default(self.run_all):
            return
        self._run_all = True
        self._queue = []
        self._done_devices = set()
        self._start("full", self.device())

    def cancel(self) -> None:
        """Stop the run (the worker is terminated, what arrived is kept) and drop the rest
        of "Run all"."""
        self._queue = []
        self._run_all = False
        if self._session is not None:
            self._session.cancel()
            self.current_label.setText(self.tr("Cancelling…"))
            self.cancel_button.setEnabled(False)

    def _start(self, suite: str, device: str) -> None:
        benchmarks = resolve_suites(suite.split(","))
        request = BenchRequest(benchmarks, python=self.python(), device=device,
                               **self._request_options)
        self._generation += 1
        generation = self._generation
        self._hello, self._target, self._target_known = None, None, False
        self._results, self._errors = [], []
        self._shown_past = None
        self.table.setRowCount(0)
        self.chart.set_run(None, None)
        self.verdict_label.setText("")
        self.error_label.hide()
        self.run_info.setText(self.tr("Starting the worker with {python} (importing torch)…")
                              .format(python=request.python))
        self.overall_bar.setRange(0, 0)  # busy until the worker says hello
        self.current_bar.setValue(0)
        self.overall_label.setText(self.tr("{suite}: {count} benchmarks").format(
            suite=suite, count=len(benchmarks)))
        self.current_label.setText("")
        session = self._make_session(request, self._machine)
        self._session = session
        self._set_running(True)
        relay = self._relay

        def forward(event: SessionEvent) -> None:  # on the session's thread
            relay.send(generation, event)

        session.start(forward)

    def _set_running(self, running: bool) -> None:
        for button in (*self.run_buttons.values(), self.run_all_button):
            button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        self.python_box.setEnabled(not running)
        self.other_python_button.setEnabled(not running)
        self.device_box.setEnabled(not running)

    @Slot(int, object)
    def _on_event(self, generation: int, event: object) -> None:
        if generation != self._generation:
            return  # a run the page has left behind
        if isinstance(event, RunStarted):
            self.current_label.setText(self.tr("worker pid {pid}: importing torch…").format(
                pid=event.pid))
        elif isinstance(event, HelloReceived):
            self._on_hello(event.hello)
        elif isinstance(event, TargetKnown):
            self._target, self._target_known = event.target, True
            self._show_run_info(None)
            self._redraw_rows()
        elif isinstance(event, BenchmarkProgress):
            self.overall_bar.setRange(0, 1000)
            self.overall_bar.setValue(round(event.overall_fraction * 1000))
            self.current_bar.setValue(round(event.fraction * 1000))
            position = (self.tr("{n} of {count}").format(n=event.index + 1, count=event.count)
                        if event.index >= 0 else "")
            self.overall_label.setText(f"{position}  {event.benchmark}".strip())
            self.current_label.setText(event.stage)
        elif isinstance(event, ResultReceived):
            self._results = [r for r in self._results if r.id != event.result.id]
            self._results.append(event.result)
            self._redraw_rows()
        elif isinstance(event, ErrorRaised):
            self._errors.append(event.error)
            self._show_errors(self._errors, None)
        elif isinstance(event, RunFinished):
            self._on_finished(event.run)

    def _on_hello(self, hello: WorkerHello) -> None:
        self._hello = hello
        self.overall_bar.setRange(0, 1000)
        if hello.python:
            self._devices_by_python[self.python()] = hello
            self._refresh_devices()
        self._show_run_info(None)

    def _provisional(self) -> RunAssessment | None:
        if self._hello is None:
            return None
        run = BenchRun(self.python(), tuple(r.id for r in self._results), "", self._hello,
                       tuple(self._results), (), 0.0, 0.0, target=self._target)
        return assess_run(run)

    def _redraw_rows(self) -> None:
        assessment = self._provisional() if self._target_known else None
        self.table.fill(self._results, assessment)

    def _on_finished(self, run: BenchRun) -> None:
        self._session = None
        self._set_running(False)
        assessment = assess_run(run)
        self._show(run, assessment)
        self.overall_bar.setRange(0, 1000)
        error = primary_error(run)
        if run.cancelled:
            self.overall_label.setText(self.tr("Cancelled: {count} of {total} reported").format(
                count=len(run.results), total=len(run.benchmarks)))
            self.current_bar.setValue(0)
        elif error is None:
            self.overall_bar.setValue(1000)
            self.current_bar.setValue(1000)
            self.overall_label.setText(self.tr("Done: {count} benchmarks in {seconds:.0f} s")
                                       .format(count=len(run.results), seconds=run.duration_s))
        else:
            self.overall_label.setText(self.tr("Ended early: {count} of {total} reported")
                                       .format(count=len(run.results), total=len(run.benchmarks)))
        self.current_label.setText("")
        if run.hello is not None:
            self.past_runs.save(run)
        self.run_finished.emit(run)
        if self._run_all and not run.cancelled:
            self._queue_other_devices(run)
        if self._queue:
            suite, device = self._queue.pop(0)
            self._start(suite, device)
        else:
            self._run_all = False

    def _queue_other_devices(self, run: BenchRun) -> None:
        hello = run.hello
        if hello is None or not hello.device or not hello.device.startswith("cuda"):
            return
        done = {hello.device.partition(":")[2], *self._done_devices}
        self._done_devices.add(hello.device.partition(":")[2])
        queued = {device for _suite, device in self._queue}
        for device in hello.devices:
            index = str(device.index)
            if index not in done and index not in queued:
                self._queue.append(("full", index))
        self._run_all = bool(self._queue)

    # ------------------------------------------------------------------ showing a run

    def _show(self, run: BenchRun, assessment: RunAssessment) -> None:
        self._shown_run, self._shown_assessment = run, assessment
        self._hello = run.hello
        self._results = list(run.results)
        self.table.fill(run.results, assessment)
        self.chart.set_run(run, assessment)
        self._show_run_info(assessment, run)
        self._show_errors(run.errors, run)

    def _show_run_info(self, assessment: RunAssessment | None, run: BenchRun | None = None) -> None:
        hello = self._hello
        if hello is None:
            return
        pick = self.default_interpreter.pick
        if not hello.torch_version:  # the worker stopped at `import torch`: name the device
            self.run_info.setText(self.tr("Nothing ran on {device}: {python} has no PyTorch.")
                                  .format(device=pick.device if pick and pick.device
                                          else self.tr("this machine"),
                                          python=hello.python or self.python()))
            return
        parts = [core_text(device_label(hello))]
        if hello.torch_version:
            parts.append(f"torch {hello.torch_version}")
        if assessment is not None:
            what = core_text(assessment.compared_with)
            parts.append(self.tr("compared with: {what}").format(what=what))
        elif self._target_known:
            if self._target is not None and self._target.spec_name:
                parts.append(self.tr("compared with: datasheet of the {card}").format(
                    card=self._target.spec_name))
            elif hello.device == "cpu":
                parts.append(self.tr("no datasheet for CPUs"))
        text = " · ".join(parts)
        if hello.device_note:
            text += "\n" + hello.device_note
        if run is not None and run.telemetry_note:
            text += "\n" + self.tr("Telemetry: none ({why})").format(why=run.telemetry_note)
        if self._shown_past is not None and run is not None:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(run.started_unix_s))
            text = self.tr("Past run #{id} of {when}: ").format(id=self._shown_past,
                                                                when=when) + text
        self.run_info.setText(text)

    def _show_errors(self, errors: Sequence[BenchError], run: BenchRun | None) -> None:
        if not errors:
            self.error_label.hide()
            return
        text, tooltip = errors_text(errors, run, self.default_interpreter.pick, self.python())
        self.error_label.setText(text)
        self.error_label.setToolTip(plain_tooltip(tooltip))
        self.error_label.show()

    @staticmethod
    def error_words(error: BenchError) -> str:
        """One line naming what happened (`gpuscope.ui.bench.table.error_words`)."""
        return error_words(error)

    def _on_row_selected(self) -> None:
        benchmark = self.table.selected_benchmark()
        result = next((r for r in self._results if r.id == benchmark), None)
        shown = self._shown_run if self._shown_run is not None and result is not None and \
            self._shown_run.result(result.id) is result else None
        self.verdict_label.setText(verdict_line(
            result, shown, self._shown_assessment if shown is not None else None,
            self._hello if self._target_known else None, self._target))

    # ------------------------------------------------------------------ results shown

    def result_rows(self) -> list[dict[str, str]]:
        """The table as text, column key -> cell (tests, renders)."""
        return self.table.result_rows()

    @property
    def shown_run(self) -> BenchRun | None:
        return self._shown_run

    def error_text(self) -> str:
        return self.error_label.text() if not self.error_label.isHidden() else ""

    # ------------------------------------------------------------------ past runs

    def _on_past_run(self, run_id: int, run: object) -> None:
        if not isinstance(run, BenchRun) or self._session is not None:
            return  # a run in progress keeps the table
        self._shown_past = run_id
        self._target = run.target
        self._target_known = True
        self._show(run, assess_run(run))
        self.overall_label.setText(self.tr("Showing past run #{id}").format(id=run_id))

    # ------------------------------------------------------------------ teardown

    def shutdown(self) -> None:
        """Stop a run in progress (its worker is terminated) and drop late answers."""
        self._queue = []
        self._generation += 1
        if self._session is not None:
            self._session.cancel()
            self._session = None
        self._discovery.cancel()
        self.default_interpreter.cancel()
        self.past_runs.shutdown()
