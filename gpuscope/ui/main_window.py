"""The main window: a sidebar of pages, a replay/import banner, and probe progress in the
status bar.

The Overview, Stack, Frameworks and Telemetry pages are built; every other page says plainly
what it will hold. The Telemetry page charts whatever feed `telemetry_page.set_feed()` gives
it. "Import outputs…" (Ctrl+I) switches every page to a machine described by pasted outputs
until "Back to this machine".
"""

from __future__ import annotations

import datetime as _dt
import os
import sys
from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QCloseEvent, QColor, QKeySequence
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QSizePolicy,
    QStackedWidget,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gpuscope.evidence import ReplaySystem, System
from gpuscope.importer import ImportedMachine
from gpuscope.inventory import (
    DEFAULT_FRAMEWORK_TIMEOUT_S,
    DEFAULT_PROBE_TIMEOUT_S,
    PROBES,
    ProbeSpec,
    collect_frameworks,
)
from gpuscope.model import Inventory, Origin, OriginKind, ProbeState
from gpuscope.probes.python_envs import discover_python_envs
from gpuscope.telemetry.sampler import Sampler
from gpuscope.telemetry.sources import SourceSet, build_sources
from gpuscope.ui.doctor_loader import BackgroundTask, Diagnosis, DoctorLoader, FrameworkCollector
from gpuscope.ui.frameworks_page import EnvironmentFinder, FrameworksPage
from gpuscope.ui.import_dialog import ImportDialog, ImportOutcome
from gpuscope.ui.loader import InventoryLoader
from gpuscope.ui.overview_page import OverviewPage
from gpuscope.ui.stack_page import StackPage
from gpuscope.ui.telemetry_adapters import SamplerFeed
from gpuscope.ui.telemetry_page import TelemetryPage
from gpuscope.ui.theme import BANNER_BACKGROUND, BANNER_TEXT, MUTED_COLOR
from gpuscope.ui.widgets import plain_tooltip

PAGE_NAMES: tuple[str, ...] = (
    "Overview", "Stack", "Frameworks", "Telemetry", "Benchmarks", "Compare", "Report",
)
# What each page not built yet will hold; shown on the page so it never pretends to work.
PLACEHOLDERS: dict[str, str] = {
    "Benchmarks": "Benchmarks: short, safe measurements of each GPU through a framework",
    "Compare": "Compare: two inventories or snapshots side by side",
    "Report": "Report: this machine as a PNG, HTML, Markdown or JSON report to share",
}
COMING_LATER = " — coming in a later release"
# Imported outputs get a blue banner, replays the amber one: two different kinds of "not live".
IMPORT_BANNER_BACKGROUND = QColor("#9cc8ff")
BACK_TO_LIVE = "Back to this machine"


def replay_banner_text(origin: Origin) -> str | None:
    """The banner for a replayed or imported inventory; None when live."""
    if origin.kind is OriginKind.LIVE:
        return None
    if origin.kind is OriginKind.IMPORTED:
        sources = origin.source or "pasted outputs"
        return f"Imported from {sources} — pasted outputs, not this machine"
    name = os.path.basename(origin.source) if origin.source else "a snapshot"
    when = _format_captured(origin.captured_utc) if origin.captured_utc else None
    version = origin.gpuscope_version
    if when and version:
        captured = f"captured {when} by gpuscope {version}"
    elif when:
        captured = f"captured {when} (gpuscope version not recorded)"
    elif version:
        captured = f"captured by gpuscope {version} (date not recorded)"
    else:
        captured = "capture date and gpuscope version not recorded"
    return f"Replay of {name} — {captured}; nothing here is live"


def _format_captured(captured_utc: str) -> str:
    text = captured_utc.strip()
    try:
        moment = _dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return text
    if moment.tzinfo is not None:
        moment = moment.astimezone(_dt.timezone.utc)
        return moment.strftime("%Y-%m-%d %H:%M UTC")
    return moment.strftime("%Y-%m-%d %H:%M")


def _placeholder_page(name: str) -> QWidget:
    page = QWidget()
    layout = QVBoxLayout(page)
    layout.setContentsMargins(28, 28, 28, 28)
    title = QLabel(name)
    font = title.font()
    font.setPointSizeF(font.pointSizeF() * 1.3)
    font.setBold(True)
    title.setFont(font)
    text = QLabel(PLACEHOLDERS.get(name, name) + COMING_LATER)
    text.setObjectName("placeholderText")
    text.setWordWrap(True)
    note = QLabel("Not built yet: nothing on this page is working in this release.")
    note.setStyleSheet(f"color: {MUTED_COLOR.name()};")
    layout.addWidget(title)
    layout.addWidget(text)
    layout.addWidget(note)
    layout.addStretch(1)
    return page


class MainWindow(QMainWindow):
    """gpuscope's window over one `system` (live or replayed). The probes start at once, off
    the GUI thread; the Overview fills in as each one answers. Imported outputs replace the
    machine on show until "Back to this machine"."""

    def __init__(
        self,
        system: System,
        probes: Sequence[ProbeSpec] = PROBES,
        probe_timeout_s: float = DEFAULT_PROBE_TIMEOUT_S,
        parent: QWidget | None = None,
        *,
        framework_collector: FrameworkCollector = collect_frameworks,
        framework_timeout_s: float = DEFAULT_FRAMEWORK_TIMEOUT_S,
        find_environments: EnvironmentFinder = discover_python_envs,
        current_python: str = sys.executable,
        live_telemetry_hz: float | None = None,
    ) -> None:
        super().__init__(parent)
        # The sampler starts once the probes have finished (it needs the GPU list); None
        # leaves the Telemetry page without a feed (tests, renders, replays of old files).
        self._system = system
        self._live_telemetry_hz = live_telemetry_hz
        self._sampler: Sampler | None = None
        self._sources: SourceSet | None = None
        self._telemetry_task = BackgroundTask("telemetry-start", parent=self)
        self._telemetry_task.done.connect(self._on_sampler_ready)
        self._telemetry_task.failed.connect(self._on_sampler_failed)
        self.setWindowTitle("gpuscope")
        self.resize(1100, 750)
        self.loader = InventoryLoader(system, probes, probe_timeout_s, parent=self)
        self.doctor = DoctorLoader(system, framework_collector, framework_timeout_s, parent=self)
        self._import_dialog: ImportDialog | None = None
        self._ignored_inputs: tuple[str, ...] = ()
        self._snapshot_description: str | None = None
        if isinstance(system, ReplaySystem):
            description = system.snapshot.meta.get("description")
            self._snapshot_description = str(description) if description else None

        self.import_action = QAction("Import outputs…", self)
        self.import_action.setIconText("Import outputs…")  # Qt drops the "…" otherwise
        self.import_action.setShortcut(QKeySequence("Ctrl+I"))
        self.import_action.setToolTip(
            "Diagnose another machine from its rocminfo, rocm-smi, amd-smi, nvidia-smi, "
            "collect_env, dmesg or lspci output")
        self.import_action.triggered.connect(self.open_import_dialog)
        self.back_action = QAction(BACK_TO_LIVE, self)
        self.back_action.setToolTip("Leave the imported outputs and show this machine again")
        self.back_action.setEnabled(False)
        self.back_action.triggered.connect(self.show_live)
        self.addAction(self.import_action)
        self.addAction(self.back_action)

        central = QWidget()
        column = QVBoxLayout(central)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)

        self.banner_row = QFrame()
        self.banner_row.setObjectName("bannerRow")
        banner_layout = QHBoxLayout(self.banner_row)
        banner_layout.setContentsMargins(0, 0, 8, 0)
        banner_layout.setSpacing(6)
        self.banner = QLabel()
        self.banner.setObjectName("replayBanner")
        self.banner.setTextFormat(Qt.TextFormat.PlainText)
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet(
            f"QLabel#replayBanner {{ background: transparent; color: {BANNER_TEXT.name()};"
            " padding: 7px 12px; font-weight: bold; }"
        )
        banner_layout.addWidget(self.banner, 1)
        self.banner_back_button = QToolButton()
        self.banner_back_button.setDefaultAction(self.back_action)
        self.banner_back_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        banner_layout.addWidget(self.banner_back_button, 0, Qt.AlignmentFlag.AlignVCenter)
        self._set_banner_color(BANNER_BACKGROUND)
        column.addWidget(self.banner_row)

        body = QHBoxLayout()
        body.setContentsMargins(0, 0, 0, 0)
        body.setSpacing(0)
        side = QFrame()
        side.setObjectName("sideColumn")
        side.setFixedWidth(170)
        side.setStyleSheet("QFrame#sideColumn { border: none;"
                           " border-right: 1px solid palette(mid); }")
        side_column = QVBoxLayout(side)
        side_column.setContentsMargins(0, 0, 1, 6)
        side_column.setSpacing(4)
        self.sidebar = QListWidget()
        self.sidebar.setObjectName("sidebar")
        self.sidebar.setStyleSheet(
            "QListWidget#sidebar { border: none; padding-top: 6px; }"
            " QListWidget#sidebar::item { padding: 7px 12px; }"
        )
        self.toolbar = QToolBar("Machine")
        self.toolbar.setObjectName("machineToolbar")
        self.toolbar.setOrientation(Qt.Orientation.Vertical)
        self.toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.toolbar.setStyleSheet("QToolBar#machineToolbar { border: none; }"
                                   " QToolButton { padding: 4px 10px; }")
        self.toolbar.addAction(self.import_action)
        self.toolbar.addAction(self.back_action)
        for button in self.toolbar.findChildren(QToolButton):
            button.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        side_column.addWidget(self.sidebar, 1)
        side_column.addWidget(self.toolbar)

        self.pages = QStackedWidget()
        self.overview_page = OverviewPage(probes)
        self.stack_page = StackPage()
        self.frameworks_page = FrameworksPage(self.doctor, current_python, find_environments)
        self.telemetry_page = TelemetryPage()
        built: dict[str, QWidget] = {"Overview": self.overview_page, "Stack": self.stack_page,
                                     "Frameworks": self.frameworks_page,
                                     "Telemetry": self.telemetry_page}
        for name in PAGE_NAMES:
            item = QListWidgetItem(name)
            page = built.get(name)
            if page is not None:
                self.pages.addWidget(page)
            else:
                item.setForeground(MUTED_COLOR)
                item.setToolTip(PLACEHOLDERS.get(name, name) + COMING_LATER)
                self.pages.addWidget(_placeholder_page(name))
            self.sidebar.addItem(item)
        self.sidebar.currentRowChanged.connect(self.pages.setCurrentIndex)
        self.sidebar.setCurrentRow(0)
        body.addWidget(side)
        body.addWidget(self.pages, 1)
        column.addLayout(body, 1)
        self.setCentralWidget(central)

        self.progress_label = QLabel()
        self.statusBar().addWidget(self.progress_label, 1)

        self.doctor.diagnosis_changed.connect(self._on_diagnosis)
        self.loader.inventory_changed.connect(self._on_inventory)
        self.loader.probe_finished.connect(self._update_progress)
        self.loader.finished.connect(self._update_progress)
        if live_telemetry_hz is not None:
            self.loader.finished.connect(lambda: self.start_live_telemetry(live_telemetry_hz))
        self.loader.start()
        self._on_inventory(self.loader.inventory)
        self._update_progress()

    # ------------------------------------------------------------------ public

    @property
    def inventory(self) -> Inventory:
        """The inventory on show: the imported machine's, or this machine's."""
        imported = self.doctor.imported
        return imported.inventory if imported is not None else self.loader.inventory

    @property
    def diagnosis(self) -> Diagnosis:
        return self.doctor.diagnosis

    @property
    def is_imported(self) -> bool:
        return self.doctor.imported is not None

    def page_names(self) -> tuple[str, ...]:
        return PAGE_NAMES

    def select_page(self, name: str) -> None:
        """Show the page called `name` (case-insensitive); ValueError if there is none."""
        names = [page.lower() for page in PAGE_NAMES]
        try:
            row = names.index(name.lower())
        except ValueError:
            raise ValueError(f"no page {name!r}; pages: {', '.join(PAGE_NAMES)}") from None
        self.sidebar.setCurrentRow(row)

    def current_page_name(self) -> str:
        return PAGE_NAMES[self.pages.currentIndex()]

    def open_import_dialog(self) -> ImportDialog:
        """Show the "Import outputs" dialog (not blocking) and return it."""
        if self._import_dialog is None:
            self._import_dialog = ImportDialog(self)
            self._import_dialog.imported.connect(self._on_imported)
        self._import_dialog.open()
        return self._import_dialog

    def show_imported(self, machine: ImportedMachine, ignored: Sequence[str] = ()) -> None:
        """Show `machine` on every page, with the import banner, until `show_live()`."""
        self._ignored_inputs = tuple(ignored)
        self.back_action.setEnabled(True)
        self.doctor.show_imported(machine)
        self._show_inventory(machine.inventory, ())
        self._update_progress()

    def show_live(self) -> None:
        """Back to the machine gpuscope runs on (or the replayed snapshot)."""
        self._ignored_inputs = ()
        self.back_action.setEnabled(False)
        self.doctor.show_live()
        self._show_inventory(self.loader.inventory, self.loader.pending)
        self._update_progress()

    def start_live_telemetry(self, rate_hz: float) -> None:
        """Build the metric sources off the GUI thread (opening NVML or amdsmi can take
        seconds), then sample and chart."""
        if self._sampler is not None or self._telemetry_task.is_running:
            return
        self._telemetry_task.start(_start_sampler, self._system, self.loader.inventory, rate_hz)

    def _on_sampler_ready(self, started: object) -> None:
        assert isinstance(started, tuple)
        sampler, sources = started
        self._sampler, self._sources = sampler, sources
        label = None
        if isinstance(self._system, ReplaySystem):
            label = (f"Replay of {self._system.source}: values as captured, repeated "
                     f"at {sampler.rate_hz:g} Hz — not live")
        self.telemetry_page.set_feed(SamplerFeed(sampler, self.loader.inventory.gpus, label))

    def _on_sampler_failed(self, message: str) -> None:
        self.statusBar().showMessage(f"Live telemetry could not start: {message}")

    def shutdown(self) -> None:
        """Stop listening to the probes and workers; safe to call more than once."""
        self._telemetry_task.cancel()
        if self._sampler is not None:
            self._sampler.stop()
            self._sampler = None
        if self._sources is not None:
            self._sources.close()
            self._sources = None
        self.loader.cancel()
        self.doctor.shutdown()
        self.frameworks_page.shutdown()
        self.telemetry_page.shutdown()
        if self._import_dialog is not None:
            self._import_dialog.cancel_import()

    # ------------------------------------------------------------------ events

    def closeEvent(self, event: QCloseEvent) -> None:
        self.shutdown()
        super().closeEvent(event)

    def _on_imported(self, outcome: object) -> None:
        if isinstance(outcome, ImportOutcome) and outcome.machine is not None:
            self.show_imported(outcome.machine, outcome.ignored)

    def _set_banner_color(self, color: QColor) -> None:
        self.banner_row.setStyleSheet(
            f"QFrame#bannerRow {{ background: {color.name()}; }}"
            f" QFrame#bannerRow QToolButton {{ color: {BANNER_TEXT.name()};"
            " background: rgba(255, 255, 255, 120); border: 1px solid rgba(0, 0, 0, 80);"
            " border-radius: 3px; padding: 3px 8px; font-weight: bold; }")

    def _on_inventory(self, inventory: object) -> None:
        if not isinstance(inventory, Inventory):
            return
        if self.doctor.imported is None:
            self._show_inventory(inventory, self.loader.pending)
        self.doctor.set_inventory(inventory)

    def _show_inventory(self, inventory: Inventory, pending: Sequence[str]) -> None:
        origin = inventory.origin
        banner = replay_banner_text(origin)
        self.banner.setText(banner or "")
        imported = origin.kind is OriginKind.IMPORTED
        self._set_banner_color(IMPORT_BANNER_BACKGROUND if imported else BANNER_BACKGROUND)
        about = "\n".join(text for text in (
            origin.source, None if imported else self._snapshot_description) if text)
        self.banner.setToolTip(plain_tooltip(about) if about else "")
        self.banner.setVisible(banner is not None)
        self.banner_row.setVisible(banner is not None)
        self.banner_back_button.setVisible(imported)
        title = "gpuscope"
        if imported:
            title += " — imported outputs, not this machine"
        elif origin.kind is not OriginKind.LIVE:
            title += f" — {origin.label}"
        self.setWindowTitle(title)
        self.overview_page.set_inventory(inventory, pending)

    def _on_diagnosis(self, diagnosis: object) -> None:
        if not isinstance(diagnosis, Diagnosis):
            return
        titles = {spec.name: spec.title for spec in self.loader.probes}
        pending = () if diagnosis.imported is not None else tuple(
            titles.get(name, name) for name in self.loader.pending)
        self.stack_page.set_diagnosis(diagnosis, pending)
        self.frameworks_page.set_diagnosis(diagnosis)

    def _update_progress(self, _name: str | None = None) -> None:
        imported = self.doctor.imported
        if imported is not None:
            formats = list(dict.fromkeys(p.format for p in imported.parsed))
            count = len(imported.parsed)
            text = (f"Showing {count} imported output{'s' if count != 1 else ''} "
                    f"({', '.join(formats)})")
            if self._ignored_inputs:
                text += (f"; ignored {', '.join(self._ignored_inputs)}: not a format gpuscope "
                         "recognises")
            self.progress_label.setText(text)
            return
        done, total = self.loader.finished_count, self.loader.total
        text = f"{done} of {total} probes finished"
        if not self.loader.is_running and done == total:
            timed_out = sum(1 for status in self.loader.inventory.probes
                            if status.state is ProbeState.TIMEOUT)
            if timed_out:
                text += f" ({timed_out} timed out)"
        self.progress_label.setText(text)


def _start_sampler(system: System, inventory: Inventory,
                   rate_hz: float) -> tuple[Sampler, SourceSet]:
    sources = build_sources(system, inventory)
    sampler = Sampler(sources.sources, rate_hz=rate_hz)
    sampler.start()
    return sampler, sources
