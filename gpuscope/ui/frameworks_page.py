"""The Frameworks page: the Python environments on this machine, which frameworks each one
has, built for which GPU stack, and for each GPU whether that framework can use it.

Finding the environments and inspecting them both run off the GUI thread: discovery in a
`BackgroundTask`, inspection through the window's `DoctorLoader` (worker processes, one per
interpreter, bounded by their own timeouts). Over an imported machine the page shows the
frameworks of the pasted outputs (collect_env) and inspects nothing.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from gpuscope.doctor.layers import LayerState
from gpuscope.doctor.verdicts import FrameworkVerdict, concerns
from gpuscope.doctor.verdicts import framework_verdicts as engine_verdicts
from gpuscope.evidence import ReplaySystem, System
from gpuscope.model import Finding, Framework, Severity
from gpuscope.probes.frameworks import LIBRARY_PREFIX
from gpuscope.probes.python_envs import PythonEnv, discover_python_envs
from gpuscope.ui.background import BackgroundTask
from gpuscope.ui.doctor_loader import Diagnosis, DoctorLoader
from gpuscope.ui.i18n import QT_TRANSLATE_NOOP, core_text, translate, verdict_text
from gpuscope.ui.stack_page import (
    LAYER_COLORS,
    FindingRow,
    FixLine,
    mark_badge,
)
from gpuscope.ui.theme import BANNER_TEXT, ERROR_COLOR, MUTED_COLOR, gpu_color
from gpuscope.ui.widgets import boxed_column, clear_layout, make_label

# discover(system, current_python) -> environments; `discover_python_envs` or a test's fake.
EnvironmentFinder = Callable[[System, str], tuple[PythonEnv, ...]]

_BUILD_NAMES = {"rocm": "ROCm", "cuda": "CUDA", "cpu": "CPU", "xpu": "XPU", "mps": "MPS",
                "directml": "DirectML", "unknown": "unknown"}
NOT_INSTALLED = QT_TRANSLATE_NOOP(
    "EnvironmentResults",
    "none of the frameworks gpuscope knows (PyTorch, JAX, TensorFlow, ONNX Runtime) is installed")


# ----------------------------------------------------------------------------- verdicts
# The page decides nothing: each verdict is the doctor's (gpuscope.doctor.verdicts), the same
# one the Stack page shows; this page lays it out and translates it.


def framework_verdicts(diagnosis: Diagnosis, framework: Framework) -> list[FrameworkVerdict]:
    """The doctor's verdict for this framework on each GPU of the machine."""
    return engine_verdicts(diagnosis.data, diagnosis.findings, framework)


def framework_findings(diagnosis: Diagnosis, framework: Framework) -> list[Finding]:
    """The doctor's findings about this framework build as a whole (not about one GPU),
    linked to it by `Finding.framework`."""
    return [f for f in diagnosis.findings
            if f.gpu is None and f.severity is not Severity.OK and concerns(f, framework)]


# ----------------------------------------------------------------------------- rows


@dataclass(frozen=True, slots=True)
class FrameworkRow:
    """One framework of one environment, as the page shows it."""

    python: str
    name: str
    version: str
    build: str
    gpu_available: str
    arch_list: str
    smoke_test: str
    error: str


def _build_text(framework: Framework) -> str:
    build = _BUILD_NAMES.get(framework.build, framework.build)
    return f"{build} {framework.build_version}" if framework.build_version else build


def framework_row(framework: Framework) -> FrameworkRow:
    gpu = {True: translate("FrameworkRow", "yes"), False: translate("FrameworkRow", "no"),
           None: translate("FrameworkRow", "not checked")}[framework.gpu_available]
    if framework.gpu_available and framework.devices:
        count = len(framework.devices)
        gpu = (translate("FrameworkRow", "yes ({count} device)") if count == 1
               else translate("FrameworkRow", "yes ({count} devices)")).format(count=count)
    return FrameworkRow(
        python=framework.python or "?",
        name=framework.name,
        version=framework.version or "—",
        build=_build_text(framework) if framework.version else "—",
        gpu_available=gpu if framework.version else "—",
        arch_list=", ".join(framework.arch_list) or "—",
        smoke_test=framework.smoke_test or translate("FrameworkRow", "not run"),
        error=framework.error or "",
    )


_COLUMNS = (QT_TRANSLATE_NOOP("EnvironmentResults", "Framework"),
            QT_TRANSLATE_NOOP("EnvironmentResults", "Version"),
            QT_TRANSLATE_NOOP("EnvironmentResults", "Build"),
            QT_TRANSLATE_NOOP("EnvironmentResults", "Sees a GPU"),
            QT_TRANSLATE_NOOP("EnvironmentResults", "Arch list"),
            QT_TRANSLATE_NOOP("EnvironmentResults", "Smoke test"))


class EnvironmentResults(QFrame):
    """One interpreter's frameworks: a row each, then per GPU whether it can use it."""

    def __init__(self, python: str, frameworks: Sequence[Framework], diagnosis: Diagnosis,
                 title: str | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.python = python
        column = boxed_column(self, "envResults", radius_px=4, margins=(14, 10, 14, 12),
                              spacing=6)
        version = next((f.python_version for f in frameworks if f.python_version), None)
        column.addWidget(make_label(title or python, bold=True, scale=1.1))
        if version:
            column.addWidget(make_label(self.tr("Python {version}").format(version=version),
                                        color=MUTED_COLOR))

        self.rows: list[FrameworkRow] = []
        self.verdicts: dict[str, list[FrameworkVerdict]] = {}
        self.verdict_labels: list[QLabel] = []  # one per verdict, in order
        self.fix_lines: list[FixLine] = []
        self.finding_rows: list[FindingRow] = []
        found = [f for f in frameworks if f.name != "python"]
        broken = [f for f in frameworks if f.name == "python"]
        for framework in broken:
            row = framework_row(framework)
            self.rows.append(row)
            column.addWidget(make_label(self.tr("Could not inspect: {error}").format(
                error=framework.error or self.tr("no answer")), color=ERROR_COLOR))
        if not found and not broken:
            column.addWidget(make_label(self.tr(NOT_INSTALLED), color=MUTED_COLOR))
        if not found:
            return

        grid = QGridLayout()
        grid.setHorizontalSpacing(16)
        grid.setVerticalSpacing(4)
        for position, heading in enumerate(_COLUMNS):
            grid.addWidget(make_label(self.tr(heading), bold=True, wrap=False, color=MUTED_COLOR),
                           0, position, Qt.AlignmentFlag.AlignTop)
        grid.setColumnStretch(4, 1)
        grid.setColumnStretch(5, 2)
        line = 1
        shown_fixes: set[str | None] = set()
        for framework in found:
            row = framework_row(framework)
            self.rows.append(row)
            values = (row.name, row.version, row.build, row.gpu_available, row.arch_list,
                      row.smoke_test)
            for position, value in enumerate(values):
                grid.addWidget(make_label(value, bold=position == 0, wrap=position >= 4),
                               line, position, Qt.AlignmentFlag.AlignTop)
            line += 1
            if row.error:
                grid.addWidget(make_label(self.tr("Error: {error}").format(error=row.error),
                                          color=ERROR_COLOR),
                               line, 0, 1, len(_COLUMNS))
                line += 1
            verdicts = framework_verdicts(diagnosis, framework)
            self.verdicts[framework.name] = verdicts
            holder = QWidget()
            verdict_column = QVBoxLayout(holder)
            verdict_column.setContentsMargins(12, 0, 0, 6)
            verdict_column.setSpacing(4)
            if not verdicts:
                verdict_column.addWidget(make_label(
                    self.tr("No GPU on this machine, so nothing for it to use."),
                    color=MUTED_COLOR))
            for verdict in verdicts:
                verdict_column.addLayout(self._verdict_row(verdict, self.verdict_labels))
                if ((verdict.fix or verdict.fix_commands) and verdict.fix not in shown_fixes
                        and verdict.state in (LayerState.BLOCKED, LayerState.WARNING)):
                    shown_fixes.add(verdict.fix)
                    fix = FixLine(core_text(verdict.fix or ""), verdict.fix_commands)
                    self.fix_lines.append(fix)
                    verdict_column.addWidget(fix)
            for finding in framework_findings(diagnosis, framework):
                finding_row = FindingRow(finding, show_fix=finding.fix not in shown_fixes)
                if finding.fix:
                    shown_fixes.add(finding.fix)
                if finding_row.fix_line is not None:
                    self.fix_lines.append(finding_row.fix_line)
                self.finding_rows.append(finding_row)
                verdict_column.addWidget(finding_row)
            grid.addWidget(holder, line, 0, 1, len(_COLUMNS))
            line += 1
        column.addLayout(grid)

    @staticmethod
    def _verdict_row(verdict: FrameworkVerdict, labels: list[QLabel]) -> QHBoxLayout:
        row = QHBoxLayout()
        row.setSpacing(8)
        color = LAYER_COLORS[verdict.state]
        row.addWidget(mark_badge(verdict.state.mark, color, 18), 0, Qt.AlignmentFlag.AlignTop)
        badge = make_label(translate("EnvironmentResults", "GPU {index}").format(
            index=verdict.gpu), bold=True, wrap=False)
        badge.setStyleSheet(f"background: {gpu_color(verdict.gpu).name()};"
                            f" color: {BANNER_TEXT.name()}; border-radius: 3px;"
                            " padding: 0px 5px;")
        badge.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Preferred)
        row.addWidget(badge, 0, Qt.AlignmentFlag.AlignTop)
        name = verdict.gpu_name or translate("Verdict", "GPU {index}").format(index=verdict.gpu)
        label = make_label(f"{name}: {verdict_text(verdict)}",
                           tooltip=", ".join(verdict.finding_ids) or None)
        labels.append(label)
        row.addWidget(label, 1)
        return row


# ----------------------------------------------------------------------------- the page


class FrameworksPage(QWidget):
    """Environments to inspect (those the window inspected by default ticked, else the
    current interpreter), and the results. `interpreter_added(path)`: one added by hand."""

    interpreter_added = Signal(str)

    def __init__(
        self,
        doctor: DoctorLoader,
        current_python: str = sys.executable,
        find_environments: EnvironmentFinder = discover_python_envs,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._doctor = doctor
        self._current_python = current_python
        self._find = find_environments
        self._environments: list[PythonEnv] = []
        self._added: list[PythonEnv] = []
        self._discovered = False
        self._inspect_started = 0.0
        self._diagnosis: Diagnosis | None = None
        self._results: list[EnvironmentResults] = []
        self._discovery = BackgroundTask("python-envs", self)
        self._discovery.done.connect(self._on_environments)
        self._discovery.failed.connect(self._on_discovery_failed)

        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.scroll_area = QScrollArea(self)
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        outer.addWidget(self.scroll_area)
        content = QWidget()
        self._content = QVBoxLayout(content)
        self._content.setContentsMargins(18, 14, 18, 18)
        self._content.setSpacing(8)
        self.scroll_area.setWidget(content)

        self._content.addWidget(make_label(self.tr("Frameworks"), bold=True, scale=1.3,
                                           wrap=False))
        self.intro_label = make_label(self._local_intro(), color=MUTED_COLOR)
        self._content.addWidget(self.intro_label)

        self.env_panel = QWidget()
        panel = QVBoxLayout(self.env_panel)
        panel.setContentsMargins(0, 0, 0, 0)
        panel.setSpacing(6)
        self.env_list = QListWidget()
        self.env_list.setObjectName("environments")
        self.env_list.setMinimumHeight(120)
        self.env_list.setMaximumHeight(190)
        panel.addWidget(self.env_list)
        buttons = QHBoxLayout()
        self.add_button = QPushButton(self.tr("Add interpreter…"))
        self.add_button.clicked.connect(self._choose_interpreter)
        self.inspect_button = QPushButton(self.tr("Inspect"))
        self.inspect_button.setDefault(True)
        self.inspect_button.clicked.connect(self.inspect)
        self.status_label = make_label("", color=MUTED_COLOR)
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.inspect_button)
        buttons.addWidget(self.status_label, 1)
        panel.addLayout(buttons)

        self.progress_row = QWidget()
        progress = QHBoxLayout(self.progress_row)
        progress.setContentsMargins(0, 0, 0, 0)
        self.progress_bar = QProgressBar()
        self.progress_bar.setRange(0, 0)  # busy: the worker says nothing until it is done
        self.progress_bar.setTextVisible(False)
        self.progress_bar.setFixedWidth(180)
        self.progress_label = make_label("", wrap=False)
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.setToolTip(
            self.tr("Stop waiting; the interpreters still running end on their own time limit"))
        self.cancel_button.clicked.connect(self.cancel)
        progress.addWidget(self.progress_bar)
        progress.addWidget(self.progress_label)
        progress.addWidget(self.cancel_button)
        progress.addStretch(1)
        self.progress_row.hide()
        panel.addWidget(self.progress_row)
        self._content.addWidget(self.env_panel)

        self._content.addSpacing(8)
        self.results_heading = make_label(self.tr("Results"), bold=True, scale=1.1, wrap=False)
        self._content.addWidget(self.results_heading)
        self.results_box = QWidget()
        self._results_layout = QVBoxLayout(self.results_box)
        self._results_layout.setContentsMargins(0, 0, 0, 0)
        self._results_layout.setSpacing(10)
        self._content.addWidget(self.results_box)
        self._content.addStretch(1)

        doctor.inspection_started.connect(self._on_started)
        doctor.inspection_finished.connect(self._on_finished)
        doctor.inspection_cancelled.connect(self._on_cancelled)
        doctor.inspection_failed.connect(self._on_failed)
        self.set_diagnosis(doctor.diagnosis)

    # ------------------------------------------------------------------ environments

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._discovered and not self._discovery.is_running and not self.imported:
            self.refresh_environments()

    @property
    def imported(self) -> bool:
        return self._diagnosis is not None and self._diagnosis.imported is not None

    @property
    def is_discovering(self) -> bool:
        return self._discovery.is_running

    def refresh_environments(self) -> None:
        """Look for Python environments again, off the GUI thread."""
        system = self._doctor.system
        self.status_label.setText(self.tr("Looking for Python environments…"))
        if isinstance(system, ReplaySystem):
            # A replay can only answer for the interpreters its capture inspected.
            self._on_environments(_recorded_environments(system))
            return
        self._discovery.start(self._find, system, self._current_python)

    def _on_environments(self, found: object) -> None:
        self._discovered = True
        environments = [e for e in found if isinstance(e, PythonEnv)] if isinstance(
            found, (tuple, list)) else []
        checked = set(self.checked_pythons()) if self.env_list.count() else None
        # The interpreters inspected by default (python3 through a pyenv shim, one added in
        # an earlier run) are listed and ticked even where the search did not find them.
        chosen = {c.python: c.why for c in self._doctor.chosen}
        listed = {e.path for e in environments}
        environments += [PythonEnv(path=p, kind="system", name=_env_name(p), note=why)
                         for p, why in chosen.items() if p not in listed]
        order = list(chosen)
        environments.sort(key=lambda e: order.index(e.path) if e.path in chosen else len(order))
        self._environments = environments
        self.env_list.clear()
        for env in [*environments, *self._added]:
            tick = (env.path in checked) if checked is not None else (
                env.path in chosen if chosen else
                env.kind == "current" or isinstance(self._doctor.system, ReplaySystem))
            self._add_item(env, tick)
        count = self.env_list.count()
        replay = isinstance(self._doctor.system, ReplaySystem)
        if count:
            self.status_label.setText((self.tr("{count} environment found") if count == 1
                                       else self.tr("{count} environments found")).format(
                                           count=count))
        elif replay:
            self.status_label.setText(self.tr(
                "This snapshot recorded no Python interpreter (taken with --no-frameworks, or "
                "by an older gpuscope), so the frameworks of that machine are not known"))
        else:
            self.status_label.setText(self.tr("No Python environment found: add an interpreter"))

    def _on_discovery_failed(self, message: str) -> None:
        self._discovered = True
        self.status_label.setText(self.tr("Looking for environments failed: {message}").format(
            message=message))

    def _add_item(self, env: PythonEnv, checked: bool) -> None:
        text = f"{env.name} — {env.path}"
        if env.note:
            text += f"  ({env.note})"
        item = QListWidgetItem(text)
        item.setData(Qt.ItemDataRole.UserRole, env.path)
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
        item.setToolTip(env.path)
        self.env_list.addItem(item)

    def environments(self) -> list[str]:
        """Every interpreter in the list, in order."""
        return [str(self.env_list.item(i).data(Qt.ItemDataRole.UserRole))
                for i in range(self.env_list.count())]

    def checked_pythons(self) -> list[str]:
        return [str(item.data(Qt.ItemDataRole.UserRole))
                for item in (self.env_list.item(i) for i in range(self.env_list.count()))
                if item.checkState() is Qt.CheckState.Checked]

    def set_checked(self, pythons: Sequence[str]) -> None:
        wanted = set(pythons)
        for i in range(self.env_list.count()):
            item = self.env_list.item(i)
            item.setCheckState(Qt.CheckState.Checked
                               if item.data(Qt.ItemDataRole.UserRole) in wanted
                               else Qt.CheckState.Unchecked)

    def add_interpreter(self, path: str) -> None:
        """Add an interpreter to the list, ticked (or tick it if it is there)."""
        if path in self.environments():
            self.set_checked([*self.checked_pythons(), path])
            return
        env = PythonEnv(path=path, kind="system", name=_env_name(path),
                        note=self.tr("added by hand"))
        self._added.append(env)
        self._add_item(env, True)
        self.interpreter_added.emit(path)

    def _choose_interpreter(self) -> None:
        path, _filter = QFileDialog.getOpenFileName(self, self.tr("Choose a Python interpreter"))
        if path:
            self.add_interpreter(path)

    # ------------------------------------------------------------------ inspection

    def inspect(self) -> None:
        pythons = self.checked_pythons()
        if not pythons:
            self.status_label.setText(self.tr("Tick at least one environment to inspect."))
            return
        self._doctor.inspect(pythons)

    def cancel(self) -> None:
        self._doctor.cancel_inspection()

    @property
    def is_inspecting(self) -> bool:
        return self._doctor.is_inspecting

    def progress_text(self) -> str | None:
        """The progress line while inspecting, else None."""
        return None if self.progress_row.isHidden() else self.progress_label.text()

    def _on_started(self, pythons: object) -> None:
        count = len(pythons) if isinstance(pythons, tuple) else 0
        self._inspect_started = time.monotonic()
        self.progress_label.setText(
            (self.tr("Inspecting {count} environment…") if count == 1
             else self.tr("Inspecting {count} environments…")).format(count=count))
        self.progress_row.show()
        self.inspect_button.setEnabled(False)
        self.status_label.setText("")

    def _idle(self) -> None:
        self.progress_row.hide()
        self.inspect_button.setEnabled(not self.imported)

    def _on_finished(self, frameworks: object) -> None:
        self._idle()
        seconds = time.monotonic() - self._inspect_started
        count = len(self._doctor.inspected_pythons)
        self.status_label.setText(
            (self.tr("Inspected {count} environment in {seconds} s") if count == 1
             else self.tr("Inspected {count} environments in {seconds} s")).format(
                count=count, seconds=f"{seconds:.1f}"))

    def _on_cancelled(self) -> None:
        self._idle()
        self.status_label.setText(self.tr("Cancelled: stopped waiting (the interpreters still "
                                          "running end on their own time limit)"))

    def _on_failed(self, message: str) -> None:
        self._idle()
        self.status_label.setText(self.tr("Inspection failed: {message}").format(
            message=message))

    # ------------------------------------------------------------------ results

    def set_diagnosis(self, diagnosis: Diagnosis) -> None:
        was_imported = self.imported
        self._diagnosis = diagnosis
        imported = diagnosis.imported is not None
        self.env_panel.setVisible(not imported)
        self.inspect_button.setEnabled(not imported and not self._doctor.is_inspecting)
        if imported:
            self.intro_label.setText(self.tr(
                "The frameworks named in the imported outputs (PyTorch's collect_env). "
                "Nothing is inspected on this machine while its imported outputs are shown."))
        else:
            self.intro_label.setText(self._local_intro())
            if was_imported and self.isVisible() and not self._discovered:
                self.refresh_environments()
        self._show_results(diagnosis)

    def _show_results(self, diagnosis: Diagnosis) -> None:
        clear_layout(self._results_layout)
        self._results = []
        frameworks = diagnosis.frameworks
        imported = diagnosis.imported is not None
        pythons = list(dict.fromkeys(
            [*(() if imported else self._doctor.inspected_pythons),
             *(_group(f, imported) for f in frameworks)]))
        if not pythons:
            self._results_layout.addWidget(make_label(
                self.tr("No framework output among the imported files (paste PyTorch's "
                        "`python -m torch.utils.collect_env` to see one).") if diagnosis.imported
                is not None else self.tr("Not known: the snapshot holds no framework answer.")
                if isinstance(self._doctor.system, ReplaySystem) and not self.env_list.count()
                else self.tr("Nothing inspected yet: tick environments above and "
                             "press Inspect."), color=MUTED_COLOR))
            return
        for python in pythons:
            mine = [f for f in frameworks if _group(f, imported) == python]
            title = (f"{python} ({mine[0].python})" if imported and mine and mine[0].python
                     and mine[0].python != python else self._title(python))
            results = EnvironmentResults(python, mine, diagnosis, title=title)
            self._results.append(results)
            self._results_layout.addWidget(results)

    def _local_intro(self) -> str:
        return self.tr("Tick the Python environments to inspect: gpuscope starts each "
                       "interpreter in a separate process, imports the frameworks it has and "
                       "runs a tiny matrix multiplication on each GPU they see.")

    def _title(self, python: str) -> str:
        env = next((e for e in [*self._environments, *self._added] if e.path == python), None)
        return f"{env.name} — {python}" if env is not None else python

    def result_rows(self) -> list[FrameworkRow]:
        return [row for results in self._results for row in results.rows]

    def verdicts(self) -> dict[tuple[str, str], list[FrameworkVerdict]]:
        """(interpreter, framework) -> a verdict per GPU."""
        return {(results.python, name): verdicts for results in self._results
                for name, verdicts in results.verdicts.items()}

    def results(self) -> list[EnvironmentResults]:
        return list(self._results)

    def shutdown(self) -> None:
        self._discovery.cancel()


def _group(framework: Framework, imported: bool) -> str:
    """Results are grouped by interpreter; imported ones by the file they came from."""
    if imported:
        if framework.evidence:
            return framework.evidence[0].source
        return framework.python or translate("FrameworksPage", "imported outputs")
    return framework.python or "?"


def _env_name(python: str) -> str:
    folder = os.path.dirname(os.path.dirname(python)) or python
    return os.path.basename(folder) or python


def _recorded_environments(system: ReplaySystem) -> tuple[PythonEnv, ...]:
    pythons = [key[len(LIBRARY_PREFIX):] for key in system.snapshot.libraries
               if key.startswith(LIBRARY_PREFIX)]
    return tuple(PythonEnv(path=p, kind="current", name=os.path.basename(
        os.path.dirname(os.path.dirname(p))) or p,
        note=translate("FrameworksPage", "inspected when the snapshot was taken"))
        for p in pythons)
