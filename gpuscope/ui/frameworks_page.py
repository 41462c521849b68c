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
from gpuscope.evidence import ReplaySystem, System
from gpuscope.model import Finding, Framework, Gpu, Severity, Vendor
from gpuscope.probes.frameworks import LIBRARY_PREFIX
from gpuscope.probes.python_envs import PythonEnv, discover_python_envs
from gpuscope.ui.doctor_loader import BackgroundTask, Diagnosis, DoctorLoader
from gpuscope.ui.i18n import QT_TRANSLATE_NOOP, core_text, translate
from gpuscope.ui.stack_page import (
    LAYER_COLORS,
    FindingRow,
    FixLine,
    clear_layout,
    mark_badge,
)
from gpuscope.ui.theme import BANNER_TEXT, ERROR_COLOR, MUTED_COLOR, gpu_color
from gpuscope.ui.widgets import make_label

# discover(system, current_python) -> environments; `discover_python_envs` or a test's fake.
EnvironmentFinder = Callable[[System, str], tuple[PythonEnv, ...]]

_VENDOR_BUILD = {Vendor.AMD: "rocm", Vendor.NVIDIA: "cuda"}
_VENDOR_NAMES = {Vendor.AMD: "AMD", Vendor.NVIDIA: "NVIDIA", Vendor.INTEL: "Intel",
                 Vendor.OTHER: "other"}
# Finding id prefixes of the layers below a framework, and the vendor whose stack they block.
_LOWER_LAYERS: dict[str, Vendor] = {
    "amdgpu.": Vendor.AMD, "kfd.": Vendor.AMD, "rocm.": Vendor.AMD, "nvidia.": Vendor.NVIDIA,
}
_BUILD_NAMES = {"rocm": "ROCm", "cuda": "CUDA", "cpu": "CPU", "xpu": "XPU", "mps": "MPS",
                "directml": "DirectML", "unknown": "unknown"}
NOT_INSTALLED = QT_TRANSLATE_NOOP(
    "EnvironmentResults",
    "none of the frameworks gpuscope knows (PyTorch, JAX, TensorFlow, ONNX Runtime) is installed")


# ----------------------------------------------------------------------------- verdicts


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether one framework can use one GPU, and why."""

    gpu_index: int
    gpu_name: str
    state: LayerState  # ok: it can; blocked: it cannot; warning: it can, with a caveat
    text: str
    fix: str | None = None

    @property
    def usable(self) -> bool | None:
        if self.state in (LayerState.OK, LayerState.WARNING):
            return True
        if self.state is LayerState.BLOCKED:
            return False
        return None


def _about_framework(finding: Finding, framework: Framework) -> bool:
    """Whether a torch.* finding speaks of this framework: it cites the same evidence, or
    its title names this version (and interpreter, when it names one)."""
    if framework.name != "torch" or not finding.id.startswith("torch."):
        return False
    if finding.evidence and framework.evidence:
        return bool(set(finding.evidence) & set(framework.evidence))
    if framework.version and f"PyTorch {framework.version}" not in finding.title:
        return finding.gpu is not None
    return not framework.python or " in " not in finding.title or (
        f"in {framework.python}" in finding.title)


def framework_findings(diagnosis: Diagnosis, framework: Framework) -> list[Finding]:
    """The doctor's findings about this framework build as a whole (not about one GPU)."""
    return [f for f in diagnosis.findings
            if f.gpu is None and f.severity is not Severity.OK and _about_framework(f, framework)]


def _matching_device(framework: Framework, gpu: Gpu) -> int | None:
    bus = gpu.pci_bus.lower()[-7:] if gpu.pci_bus else None  # "bb:dd.f": domains differ
    for device in framework.devices:
        if bus and device.pci_bus and device.pci_bus.lower()[-7:] == bus:
            return device.index
    same = [d for d in framework.devices
            if (gpu.gfx_target and d.arch == gpu.gfx_target)
            or (gpu.compute_capability and d.compute_capability == gpu.compute_capability)]
    return same[0].index if len(same) == 1 else None


def framework_verdict(diagnosis: Diagnosis, framework: Framework, gpu: Gpu) -> Verdict:
    """Can `framework` use `gpu`? From its build, what it saw, and the doctor's findings
    (gpu.usable, torch.arch_missing, torch.no_gpu, ... and the layers below)."""
    name = gpu.name or translate("Verdict", "GPU {index}").format(index=gpu.index)

    def verdict(state: LayerState, text: str, fix: str | None = None) -> Verdict:
        return Verdict(gpu.index, name, state, text, fix)

    if framework.error or framework.version is None:
        return verdict(LayerState.UNKNOWN,
                       translate("Verdict", "not known: the framework could not be inspected"))
    wanted = _VENDOR_BUILD.get(gpu.vendor) if gpu.vendor else None
    build = framework.build
    if wanted is None:
        vendor = (core_text(_VENDOR_NAMES[gpu.vendor]) if gpu.vendor in _VENDOR_NAMES
                  else translate("Verdict", "this"))
        return verdict(LayerState.NOT_APPLICABLE, translate(
            "Verdict", "not checked: gpuscope checks AMD and NVIDIA GPUs, this is {vendor}"
        ).format(vendor=vendor))
    if build == "cpu":
        return verdict(LayerState.BLOCKED,
                       translate("Verdict", "no: a CPU-only build never uses a GPU"),
                       _fix_of(diagnosis, "torch.cpu_build", framework))
    if build in ("rocm", "cuda") and build != wanted:
        ids = "torch.cuda_build_on_amd" if build == "cuda" else "torch.rocm_build_on_nvidia"
        return verdict(LayerState.BLOCKED,
                       translate("Verdict", "no: a {build} build cannot use {vendor} GPUs").format(
                           build=_BUILD_NAMES[build],
                           vendor=core_text(_VENDOR_NAMES[gpu.vendor or Vendor.OTHER])),
                       _fix_of(diagnosis, ids, framework))
    if build not in ("rocm", "cuda"):
        return verdict(LayerState.UNKNOWN,
                       translate("Verdict", "not known: a {build} build").format(
                           build=core_text(_BUILD_NAMES.get(build, build))))

    findings = diagnosis.findings
    # The framework itself: no kernels for this GPU's target, or no GPU seen at all.
    for finding in findings:
        if finding.id == "torch.arch_missing" and finding.gpu == gpu.index and (
                not framework.arch_list or gpu.gfx_target not in framework.arch_list):
            return verdict(LayerState.BLOCKED, translate("Verdict", "no: {reason}").format(
                reason=finding.title[0].lower() + finding.title[1:]), finding.fix)
    if (gpu.vendor is Vendor.AMD and framework.arch_list and gpu.gfx_target
            and gpu.gfx_target not in framework.arch_list):
        return verdict(LayerState.BLOCKED,
                       translate("Verdict", "no: built for {targets}, not {target}").format(
                           targets=", ".join(framework.arch_list), target=gpu.gfx_target))
    # The layers below it.
    for finding in findings:
        if finding.severity is not Severity.ERROR or finding.gpu not in (None, gpu.index):
            continue
        blocks = next((v for prefix, v in _LOWER_LAYERS.items()
                       if finding.id.startswith(prefix)), None)
        if blocks is gpu.vendor:
            return verdict(LayerState.BLOCKED,
                           translate("Verdict", "no: {reason}").format(reason=finding.title),
                           finding.fix)
    if framework.gpu_available is False:
        no_gpu = next((f for f in findings if f.id == "torch.no_gpu"
                       and _about_framework(f, framework)), None)
        return verdict(LayerState.BLOCKED, translate(
            "Verdict", "no: the build sees no GPU (a layer below it blocks it)") if no_gpu
            else translate("Verdict", "no: the build sees no GPU"))
    smoke = framework.smoke_test or ""
    if smoke.startswith("failed"):
        return verdict(LayerState.BLOCKED,
                       translate("Verdict", "no: the smoke test {result}").format(result=smoke))
    device = _matching_device(framework, gpu)
    warnings = [f for f in findings if f.severity is Severity.WARNING and f.gpu == gpu.index]
    if framework.gpu_available and (device is not None or not framework.devices):
        if warnings:
            text = (translate("Verdict", "yes as device {device}, but: {warning}")
                    if device is not None else translate("Verdict", "yes, but: {warning}"))
            return verdict(LayerState.WARNING,
                           text.format(device=device, warning=warnings[0].title),
                           warnings[0].fix)
        return verdict(LayerState.OK,
                       translate("Verdict", "yes as device {device}").format(device=device)
                       if device is not None else translate("Verdict", "yes"))
    if framework.gpu_available and framework.devices:
        return verdict(LayerState.UNKNOWN, translate(
            "Verdict", "not among the devices it lists (hidden by a *_VISIBLE_DEVICES "
            "variable?)"))
    usable = any(f.id == "gpu.usable" and f.gpu == gpu.index for f in findings)
    return verdict(LayerState.UNKNOWN, translate(
        "Verdict", "not known: it did not say whether it sees a GPU; the layers below it work")
        if usable else translate("Verdict", "not known: it did not say whether it sees a GPU"))


def _fix_of(diagnosis: Diagnosis, finding_id: str, framework: Framework) -> str | None:
    for finding in diagnosis.findings:
        if finding.id == finding_id and _about_framework(finding, framework):
            return finding.fix
    return None


def framework_verdicts(diagnosis: Diagnosis, framework: Framework) -> list[Verdict]:
    return [framework_verdict(diagnosis, framework, gpu) for gpu in diagnosis.inventory.gpus]


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
        self.setObjectName("envResults")
        self.setStyleSheet(
            "QFrame#envResults { background: palette(base); border: 1px solid palette(mid);"
            " border-radius: 4px; }")
        column = QVBoxLayout(self)
        column.setContentsMargins(14, 10, 14, 12)
        column.setSpacing(6)
        version = next((f.python_version for f in frameworks if f.python_version), None)
        column.addWidget(make_label(title or python, bold=True, scale=1.1))
        if version:
            column.addWidget(make_label(self.tr("Python {version}").format(version=version),
                                        color=MUTED_COLOR))

        self.rows: list[FrameworkRow] = []
        self.verdicts: dict[str, list[Verdict]] = {}
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
        shown_fixes: set[str] = set()
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
                verdict_column.addLayout(self._verdict_row(verdict))
                if (verdict.fix and verdict.fix not in shown_fixes
                        and verdict.state in (LayerState.BLOCKED, LayerState.WARNING)):
                    shown_fixes.add(verdict.fix)
                    fix = FixLine(verdict.fix)
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
    def _verdict_row(verdict: Verdict) -> QHBoxLayout:
        row = QHBoxLayout()
        row.setSpacing(8)
        color = LAYER_COLORS[verdict.state]
        row.addWidget(mark_badge(verdict.state.mark, color, 18), 0, Qt.AlignmentFlag.AlignTop)
        badge = make_label(translate("EnvironmentResults", "GPU {index}").format(
            index=verdict.gpu_index), bold=True, wrap=False)
        badge.setStyleSheet(f"background: {gpu_color(verdict.gpu_index).name()};"
                            f" color: {BANNER_TEXT.name()}; border-radius: 3px;"
                            " padding: 0px 5px;")
        badge.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Preferred)
        row.addWidget(badge, 0, Qt.AlignmentFlag.AlignTop)
        row.addWidget(make_label(f"{verdict.gpu_name}: {verdict.text}"), 1)
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
        self.status_label.setText(
            (self.tr("{count} environment found") if count == 1
             else self.tr("{count} environments found")).format(count=count) if count else
            self.tr("No Python environment found: add an interpreter"))

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
                is not None else self.tr("Nothing inspected yet: tick environments above and "
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

    def verdicts(self) -> dict[tuple[str, str], list[Verdict]]:
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
