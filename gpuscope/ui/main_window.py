"""The main window: menus, a sidebar of pages, a replay/import banner, and probe progress
in the status bar.

The Overview, Stack, Frameworks and Telemetry pages are built; every other page says plainly
what it will hold. The Telemetry page charts whatever feed `telemetry_page.set_feed()` gives
it. "Import outputs…" (Ctrl+O) switches every page to a machine described by pasted outputs
until "Back to this machine". With a `SettingsStore`, the window comes back where it was:
size, position, page and theme.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import sys
from collections.abc import Sequence

from PySide6.QtCore import QByteArray, QEvent, Qt
from PySide6.QtGui import QAction, QCloseEvent, QColor
from PySide6.QtWidgets import (
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMenu,
    QSizePolicy,
    QStackedWidget,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gpuscope.app.live_session import LiveSession
from gpuscope.app.llm_history import LlmHistory, llm_history
from gpuscope.app.prices import PriceBook
from gpuscope.app.report_inputs import identity_sources_of
from gpuscope.app.settings import DIR_IMPORT, DIR_RECORDING, Settings, SettingsStore
from gpuscope.evidence import ReplaySystem, System
from gpuscope.importer import ImportedMachine
from gpuscope.inventory import (
    DEFAULT_FRAMEWORK_TIMEOUT_S,
    DEFAULT_PROBE_TIMEOUT_S,
    PROBES,
    ProbeSpec,
    inspect_interpreters,
)
from gpuscope.model import Inventory, OriginKind, ProbeState
from gpuscope.probes.python_envs import discover_python_envs
from gpuscope.telemetry.feed_adapters import SamplerFeed
from gpuscope.telemetry.sampler import Sampler
from gpuscope.telemetry.texts import LabelText
from gpuscope.ui import shortcuts
from gpuscope.ui.about_dialog import AboutDialog
from gpuscope.ui.bench.page import BenchPage
from gpuscope.ui.compare.page import ComparePage
from gpuscope.ui.doctor_loader import (
    BackgroundTask,
    Diagnosis,
    DoctorLoader,
    FrameworkCollector,
    FrameworkInspector,
)
from gpuscope.ui.frameworks_page import EnvironmentFinder, FrameworksPage
from gpuscope.ui.i18n import (
    LANGUAGE_AUTO,
    LANGUAGE_CHOICES,
)
from gpuscope.ui.import_dialog import ImportDialog, ImportOutcome
from gpuscope.ui.loader import InventoryLoader
from gpuscope.ui.overview_page import OverviewPage
from gpuscope.ui.remote_machines import RemoteMachines
from gpuscope.ui.report.page import ReportPage
from gpuscope.ui.shortcuts import ShortcutsDialog
from gpuscope.ui.stack_page import StackPage
from gpuscope.ui.telemetry.page import TelemetryPage
from gpuscope.ui.theme import (
    BANNER_BACKGROUND,
    BANNER_TEXT,
    MUTED_COLOR,
    ThemeChoice,
    ThemeController,
    app_icon,
    app_theme,
)
from gpuscope.ui.widgets import plain_tooltip
from gpuscope.ui.window_menus import build_menus
from gpuscope.ui.window_texts import (
    BACK_TO_LIVE,
    COMING_LATER,
    IMPORT_BANNER_BACKGROUND,
    LANGUAGE_LABELS,
    PAGE_NAMES,
    PLACEHOLDERS,
    RECORDING_FILTER,
    REPLAY_FEED_LABEL,
    SETTINGS_NOTE_MS,
    page_title,
    placeholder_page,
    replay_banner_text,
)

log = logging.getLogger(__name__)

class MainWindow(QMainWindow):
    """gpuscope's window over one `system` (live or replayed). The probes start at once, off
    the GUI thread; the Overview fills in as each one answers. With `inspect_frameworks`
    (the app; off in tests and renders) the frameworks of the interpreters a user plausibly
    runs are inspected at once too, off the GUI thread, the Stack and Frameworks pages
    filling in as each interpreter answers. Imported outputs replace the machine on show
    until "Back to this machine"."""

    # Set by window_menus.build_menus.
    file_menu: QMenu
    view_menu: QMenu
    theme_menu: QMenu
    language_menu: QMenu
    help_menu: QMenu
    open_recording_action: QAction
    quit_action: QAction
    refresh_action: QAction
    full_screen_action: QAction
    shortcuts_action: QAction
    about_action: QAction
    page_actions: list[QAction]
    theme_actions: dict[ThemeChoice, QAction]
    language_actions: dict[str, QAction]

    def __init__(
        self,
        system: System,
        probes: Sequence[ProbeSpec] = PROBES,
        probe_timeout_s: float = DEFAULT_PROBE_TIMEOUT_S,
        parent: QWidget | None = None,
        *,
        framework_collector: FrameworkCollector | None = None,
        framework_inspector: FrameworkInspector = inspect_interpreters,
        framework_timeout_s: float = DEFAULT_FRAMEWORK_TIMEOUT_S,
        inspect_frameworks: bool = False,
        find_environments: EnvironmentFinder = discover_python_envs,
        current_python: str = sys.executable,
        live_telemetry_hz: float | None = None,
        settings: SettingsStore | None = None,
        theme: ThemeController | None = None,
    ) -> None:
        super().__init__(parent)
        # Without a store (tests, renders) the settings live in memory and are never saved.
        self._store = settings
        self._memory_settings = Settings()
        # The sampler starts once the probes have finished (it needs the GPU list); None
        # leaves the Telemetry page without a feed (tests, renders, replays of old files).
        self._system = system
        self._live_telemetry_hz = live_telemetry_hz
        # One inventory and one sampler, shared by the Telemetry and Benchmarks pages and the
        # report.
        self.session = LiveSession(system)
        self._telemetry_task = BackgroundTask("telemetry-start", parent=self)
        self._telemetry_task.done.connect(self._on_sampler_ready)
        self._telemetry_task.failed.connect(self._on_sampler_failed)
        self.setWindowTitle("gpuscope")
        icon = app_icon()
        if not icon.isNull():
            self.setWindowIcon(icon)
        self.resize(1100, 750)
        if theme is None:
            theme = app_theme()
            theme.set_choice(self.settings.theme)
        self.theme = theme
        self.loader = InventoryLoader(system, probes, probe_timeout_s, parent=self)
        self.doctor = DoctorLoader(system, framework_collector, framework_timeout_s, parent=self,
                                   inspector=framework_inspector)
        self._current_python = current_python
        self._inspect_frameworks = inspect_frameworks
        self._import_dialog: ImportDialog | None = None
        self._ignored_inputs: tuple[str, ...] = ()
        self._snapshot_description: str | None = None
        if isinstance(system, ReplaySystem):
            description = system.snapshot.meta.get("description")
            self._snapshot_description = str(description) if description else None

        self.import_action = QAction(self.tr("&Import outputs…"), self)
        # Qt drops the "…" otherwise
        self.import_action.setIconText(self.tr("Import outputs…"))
        shortcuts.bind(self.import_action, shortcuts.IMPORT)
        self.import_action.setToolTip(self.tr(
            "Diagnose another machine from its rocminfo, rocm-smi, amd-smi, nvidia-smi, "
            "collect_env, dmesg or lspci output"))
        self.import_action.triggered.connect(self.open_import_dialog)
        self.back_action = QAction(self.tr(BACK_TO_LIVE), self)
        self.back_action.setToolTip(self.tr(
            "Leave the imported outputs and show this machine again"))
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
        self.toolbar = QToolBar(self.tr("Machine"))
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
        self.frameworks_page.interpreter_added.connect(self._remember_interpreter)
        self.telemetry_page = TelemetryPage()
        # Benchmarks always run on this machine; nothing starts until a Run button is pressed.
        self.bench_page = BenchPage(current_python, find_environments, system=system,
                                    machine=self.session.bench_machine)
        self.compare_page = ComparePage()
        self.compare_page.set_price_book(self.settings.compare_prices)
        self.compare_page.prices_changed.connect(self._remember_prices)
        self.report_page = ReportPage()
        self.telemetry_page.feed_changed.connect(self.session.set_telemetry_feed)
        self.report_page.set_telemetry_source(lambda: self.session.telemetry_feed)
        built: dict[str, QWidget] = {"Overview": self.overview_page, "Stack": self.stack_page,
                                     "Frameworks": self.frameworks_page,
                                     "Telemetry": self.telemetry_page,
                                     "Benchmarks": self.bench_page,
                                     "Compare": self.compare_page, "Report": self.report_page}
        for name in PAGE_NAMES:
            item = QListWidgetItem(page_title(name))
            page = built.get(name)
            if page is not None:
                self.pages.addWidget(page)
            else:
                item.setForeground(MUTED_COLOR)
                item.setToolTip(PLACEHOLDERS.get(name, name) + self.tr(COMING_LATER))
                self.pages.addWidget(placeholder_page(name))
            self.sidebar.addItem(item)
        self.sidebar.currentRowChanged.connect(self.pages.setCurrentIndex)
        self.sidebar.currentRowChanged.connect(self._sync_page_actions)
        body.addWidget(side)
        body.addWidget(self.pages, 1)
        column.addLayout(body, 1)
        self.setCentralWidget(central)

        self.progress_label = QLabel()
        self.statusBar().addWidget(self.progress_label, 1)

        self._shortcuts_dialog: ShortcutsDialog | None = None
        self._about_dialog: AboutDialog | None = None
        self._was_maximized = False  # before full screen, to go back to it
        self._showing_recording = False
        self.telemetry_page.recording_opened.connect(self._on_recording_opened)
        self.telemetry_page.recording_failed.connect(self._on_recording_failed)
        build_menus(self)
        self.sidebar.setCurrentRow(0)
        self._restore_settings()

        self.doctor.diagnosis_changed.connect(self._on_diagnosis)
        self.remote_machines = RemoteMachines(self)  # File > Add machine…, the selector
        # Measured and imported tokens/s of the run history, for Compare's What-fits panel.
        self._llm_history_task = BackgroundTask("llm-history", parent=self)
        self._llm_history_task.done.connect(self._on_llm_history)
        self.bench_page.run_finished.connect(lambda _run: self._llm_history_task.start(
            llm_history))
        if not isinstance(system, ReplaySystem):  # this machine's interpreters: bench there
            self._llm_history_task.start(llm_history)
            self.doctor.inspection_done.connect(
                lambda inspection: self.bench_page.use_inspection(
                    inspection, self.doctor.live_inventory))
        self.loader.inventory_changed.connect(self._on_inventory)
        self.loader.probe_finished.connect(self._update_progress)
        self.loader.finished.connect(self._update_progress)
        if live_telemetry_hz is not None:
            self.loader.finished.connect(lambda: self.start_live_telemetry(live_telemetry_hz))
        self.loader.start()
        self._on_inventory(self.loader.inventory)
        self._update_progress()
        if inspect_frameworks:
            self.inspect_default_frameworks()

    # ------------------------------------------------------------------ public

    def inspect_default_frameworks(self) -> None:
        """Inspect, off the GUI thread, the frameworks of the interpreters a user plausibly
        runs (this one, python3 and python on PATH, the active environments, those added
        on the Frameworks page), 20 s in all; a replay shows those its capture inspected."""
        self.doctor.inspect_default(self._current_python, self.settings.interpreters)

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

    @property
    def settings(self) -> Settings:
        """The settings of this run (what the window saves when it closes)."""
        return self._store.current if self._store is not None else self._memory_settings

    @property
    def settings_store(self) -> SettingsStore | None:
        return self._store

    def menus(self) -> list[QMenu]:
        """The menu bar's menus, in order."""
        return [self.file_menu, self.view_menu, self.help_menu]

    def set_theme(self, choice: ThemeChoice) -> None:
        """Use the light or dark theme, or follow the system; kept for the next run."""
        self.theme.set_choice(choice)
        self.theme_actions[choice].setChecked(True)
        self._put_settings(dataclasses.replace(self.settings, theme=choice))
        self.save_settings()

    def set_language(self, language: str) -> None:
        """View > Language: keep `language` ("auto", "en", "zh_CN") for the next start (the
        pages take their texts when they are built); the status bar says so."""
        if language not in LANGUAGE_CHOICES:
            raise ValueError(f"language must be one of {', '.join(LANGUAGE_CHOICES)}")
        self.language_actions[language].setChecked(True)
        if language == self.settings.language:
            return
        self._put_settings(dataclasses.replace(self.settings, language=language))
        saved = self.save_settings()
        if not saved:
            return  # the status bar says why the setting could not be kept
        label = LANGUAGE_LABELS.get(language, language)
        if language == LANGUAGE_AUTO:
            label = self.tr(label)
        self.statusBar().showMessage(self.tr(
            "Language: {language}. It applies when gpuscope starts again.").format(
                language=label), SETTINGS_NOTE_MS)

    def refresh(self) -> None:
        """Probe this machine (or the replayed snapshot) again, off the GUI thread."""
        if self.is_imported:
            return
        self.loader.start()
        self._on_inventory(self.loader.inventory)
        self._update_progress()
        if self._inspect_frameworks:  # torch installed since, an environment activated, ...
            self.inspect_default_frameworks()

    def set_full_screen(self, on: bool) -> None:
        if on == self.isFullScreen():
            return
        if on:
            self._was_maximized = self.isMaximized()
            self.showFullScreen()
        elif self._was_maximized:
            self.showMaximized()
        else:
            self.showNormal()

    def choose_recording(self) -> None:
        """File > Open recording…: pick a recording file, then chart it."""
        path, _filter = QFileDialog.getOpenFileName(
            self, self.tr("Open a telemetry recording"),
            self.settings.dialog_dir(DIR_RECORDING), self.tr(RECORDING_FILTER))
        if path:
            self.open_recording(path)

    def open_recording(self, path: str) -> None:
        """Chart the recording at `path` on the Telemetry page (read off the GUI thread);
        the status bar says when it is open, or why it could not be."""
        self._put_settings(self.settings.with_dialog_dir(
            DIR_RECORDING, os.path.dirname(os.path.abspath(path))))
        self._showing_recording = True
        self.select_page("Telemetry")
        self.telemetry_page.open_recording(path)

    def open_shortcuts_dialog(self) -> ShortcutsDialog:
        """Help > Keyboard shortcuts (not blocking)."""
        if self._shortcuts_dialog is None:
            self._shortcuts_dialog = ShortcutsDialog(self.menus(), self)
        self._shortcuts_dialog.open()
        return self._shortcuts_dialog

    def open_about_dialog(self) -> AboutDialog:
        """Help > About gpuscope (not blocking)."""
        if self._about_dialog is None:
            extra = ([(self.tr("Settings file"), str(self._store.path))] if self._store
                     else [])
            self._about_dialog = AboutDialog(self.windowIcon(), extra, self)
        self._about_dialog.open()
        return self._about_dialog

    def save_settings(self) -> bool:
        """Write the settings (window geometry and state, page, theme) to the store; False,
        with the reason in the status bar, when it cannot. True without a store."""
        self._put_settings(dataclasses.replace(
            self.settings,
            window_geometry=bytes(self.saveGeometry().data()),
            window_state=bytes(self.saveState().data()),
            last_page=self.current_page_name(),
        ))
        if self._store is None:
            return True
        if self._store.save():
            return True
        self._show_settings_problem()
        return False

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
        self.refresh_action.setEnabled(False)
        self.doctor.show_imported(machine)
        self._show_inventory(machine.inventory, ())
        self._update_progress()

    def show_live(self) -> None:
        """Back to the machine gpuscope runs on (or the replayed snapshot)."""
        self._ignored_inputs = ()
        self.back_action.setEnabled(False)
        self.refresh_action.setEnabled(True)
        self.doctor.show_live()
        self._show_inventory(self.loader.inventory, self.loader.pending)
        self._update_progress()

    def start_live_telemetry(self, rate_hz: float) -> None:
        """Build the metric sources off the GUI thread (opening NVML or amdsmi can take
        seconds), then sample and chart."""
        if not self.session.claim_start():
            return  # running or starting already
        self._telemetry_task.start(self.session.start_sampler, self.loader.inventory, rate_hz)

    def _on_sampler_ready(self, sampler: object) -> None:
        if not isinstance(sampler, Sampler):
            return  # the window shut down meanwhile: the session stopped it
        if self._showing_recording or self.remote_machines.showing is not None:
            return  # the recording the user opened (or the remote machine) stays
        label: LabelText | None = None
        if isinstance(self._system, ReplaySystem):
            label = LabelText("MainWindow", REPLAY_FEED_LABEL,
                              (("source", self._system.source or ""),))
        origin = self.loader.inventory.origin
        self.telemetry_page.set_feed(SamplerFeed(
            sampler, self.loader.inventory.gpus, label, repeats_capture=label is not None,
            captured_utc=origin.captured_utc if label is not None else None))

    def _on_sampler_failed(self, message: str) -> None:
        self.session.start_failed()
        self.statusBar().showMessage(
            self.tr("Live telemetry could not start: {message}").format(message=message))

    def shutdown(self) -> None:
        """Stop listening to the probes and workers; safe to call more than once."""
        self._telemetry_task.cancel()
        self._llm_history_task.cancel()
        self.remote_machines.shutdown()
        self.session.close()
        self.loader.cancel()
        self.doctor.shutdown()
        self.frameworks_page.shutdown()
        self.telemetry_page.shutdown()
        self.bench_page.shutdown()
        self.report_page.shutdown()
        if self._import_dialog is not None:
            self._import_dialog.cancel_import()

    # ------------------------------------------------------------------ events

    def closeEvent(self, event: QCloseEvent) -> None:
        self.save_settings()
        self.shutdown()
        super().closeEvent(event)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.WindowStateChange and hasattr(self, "full_screen_action"):
            self.full_screen_action.setChecked(self.isFullScreen())
        super().changeEvent(event)

    # ------------------------------------------------------------------ menus and settings

    def _on_llm_history(self, history: object) -> None:
        if isinstance(history, LlmHistory) and history.problem is None:
            self.compare_page.set_llm_results(history.observations, history.decode_ratio)

    def _on_recording_opened(self, path: str) -> None:
        self.statusBar().showMessage(self.tr("Opened recording {name}").format(
            name=os.path.basename(path)), SETTINGS_NOTE_MS)

    def _on_recording_failed(self, path: str, reason: str) -> None:
        self.statusBar().showMessage(self.tr("Could not open recording {name}: {reason}")
                                     .format(name=os.path.basename(path), reason=reason))

    def _sync_page_actions(self, row: int) -> None:
        if 0 <= row < len(self.page_actions):
            self.page_actions[row].setChecked(True)

    def _remember_interpreter(self, python: str) -> None:
        """An interpreter added on the Frameworks page is inspected by default from now on
        (here and by `gpuscope doctor`)."""
        if python not in self.settings.interpreters:
            self._put_settings(self.settings.with_interpreter(python))
            self.save_settings()

    def _remember_prices(self, book: object) -> None:
        """Keep the Compare page's prices and currency for the next start."""
        if isinstance(book, PriceBook):
            self._put_settings(dataclasses.replace(self.settings, compare_prices=book))
            self.save_settings()

    def _put_settings(self, settings: Settings) -> None:
        if self._store is not None:
            self._store.put(settings)
        else:
            self._memory_settings = settings

    def _restore_settings(self) -> None:
        settings = self.settings
        if settings.window_geometry and not self.restoreGeometry(
                QByteArray(settings.window_geometry)):
            log.warning("the saved window geometry is not one Qt can restore; ignored")
        if settings.window_state and not self.restoreState(QByteArray(settings.window_state)):
            log.warning("the saved window state is not one Qt can restore; ignored")
        if settings.last_page:
            try:
                self.select_page(settings.last_page)
            except ValueError:
                log.info("the last page, %r, is gone: opening on the Overview",
                         settings.last_page)
        if self._store is not None and self._store.problems:
            self._show_settings_problem()

    def _show_settings_problem(self) -> None:
        if self._store is None or not self._store.problems:
            return
        problems = self._store.problems
        more = self.tr(" (and {count} more in the log)").format(
            count=len(problems) - 1) if len(problems) > 1 else ""
        self.statusBar().showMessage(self.tr("Settings: {problem}{more}").format(
            problem=problems[-1], more=more), SETTINGS_NOTE_MS)

    def _on_imported(self, outcome: object) -> None:
        if isinstance(outcome, ImportOutcome) and outcome.machine is not None:
            self.show_imported(outcome.machine, outcome.ignored)
            paths = self._import_dialog.paths() if self._import_dialog is not None else []
            if paths:
                self._put_settings(self.settings.with_dialog_dir(
                    DIR_IMPORT, os.path.dirname(os.path.abspath(paths[0]))))

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
            title += self.tr(" — imported outputs, not this machine")
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
        self.overview_page.set_diagnosis(diagnosis)
        imported = diagnosis.imported
        if imported is None:  # Compare's "this machine" cards stay this machine's
            self.compare_page.set_machine_gpus(diagnosis.inventory.gpus)
        self.report_page.set_machine(diagnosis, identity_sources_of(
            self._system if imported is None else None, imported))

    def _update_progress(self, _name: str | None = None) -> None:
        imported = self.doctor.imported
        if imported is not None:
            formats = list(dict.fromkeys(p.format for p in imported.parsed))
            count = len(imported.parsed)
            text = (self.tr("Showing {count} imported outputs ({formats})") if count != 1
                    else self.tr("Showing {count} imported output ({formats})")).format(
                count=count, formats=", ".join(formats))
            if self._ignored_inputs:
                text += self.tr("; ignored {names}: not a format gpuscope recognises").format(
                    names=", ".join(self._ignored_inputs))
            self.progress_label.setText(text)
            return
        done, total = self.loader.finished_count, self.loader.total
        text = self.tr("{done} of {total} probes finished").format(done=done, total=total)
        if not self.loader.is_running and done == total:
            timed_out = sum(1 for status in self.loader.inventory.probes
                            if status.state is ProbeState.TIMEOUT)
            if timed_out:
                text += self.tr(" ({count} timed out)").format(count=timed_out)
        self.progress_label.setText(text)
