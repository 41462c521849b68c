"""The desktop application: `run_gui` sets up Qt and opens the main window."""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from importlib import resources

from PySide6.QtGui import QIcon, QPixmap
from PySide6.QtWidgets import QApplication

from gpuscope import __version__
from gpuscope.evidence import LiveSystem, ReplaySystem, SnapshotError, System

log = logging.getLogger(__name__)

APP_NAME = "gpuscope"
ORGANISATION = "gpuscope"
ICON_RESOURCE = "gpuscope.svg"


def app_icon() -> QIcon:
    """gpuscope's icon from the packaged resources; an empty icon if it cannot be read."""
    try:
        data = resources.files("gpuscope.resources").joinpath(ICON_RESOURCE).read_bytes()
    except (OSError, ModuleNotFoundError) as exc:
        log.warning("no application icon: %s", exc)
        return QIcon()
    pixmap = QPixmap()
    if not pixmap.loadFromData(data, "SVG"):
        log.warning("no application icon: Qt cannot read %s", ICON_RESOURCE)
        return QIcon()
    return QIcon(pixmap)


DEFAULT_TELEMETRY_HZ = 2.0


def run_gui(
    replay_path: str | None = None, argv: list[str] | None = None,
    imports: Sequence[str] | None = None, recording: str | None = None,
) -> int:
    """Open gpuscope's window over this machine, or over a snapshot when `replay_path` is
    given, and run until it closes; with `imports` (files of tool outputs), the window opens
    on the machine they describe. A snapshot or output that cannot be read is reported on
    stderr in one line, and 1 returned, before any window opens."""
    system: System
    if replay_path is not None:
        try:
            system = ReplaySystem.from_file(replay_path)
        except SnapshotError as exc:
            print(f"gpuscope: {exc}", file=sys.stderr)
            return 1
    else:
        system = LiveSystem()

    from gpuscope.ui.import_dialog import ImportOutcome, import_inputs
    from gpuscope.ui.main_window import MainWindow

    outcome: ImportOutcome | None = None
    if imports:
        outcome = import_inputs(imports)
        if outcome.machine is None:
            print(f"gpuscope: {outcome.error}", file=sys.stderr)
            return 1

    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(
        list(argv) if argv is not None else list(sys.argv))
    app.setApplicationName(APP_NAME)
    app.setApplicationDisplayName(APP_NAME)
    app.setOrganizationName(ORGANISATION)
    app.setApplicationVersion(__version__)
    app.setDesktopFileName("gpuscope")  # matches resources/gpuscope.desktop
    icon = app_icon()
    if not icon.isNull():
        app.setWindowIcon(icon)

    recorded_feed = None
    if recording is not None:
        from gpuscope.telemetry.recorder import RecordingError
        from gpuscope.ui.telemetry_adapters import recording_feed

        try:
            recorded_feed = recording_feed(recording)
        except RecordingError as exc:
            print(f"gpuscope: {exc}", file=sys.stderr)
            return 1
    # A recording replaces the live sampler: the page charts what was recorded.
    window = MainWindow(system, live_telemetry_hz=None if recorded_feed else DEFAULT_TELEMETRY_HZ)
    if recorded_feed is not None:
        window.telemetry_page.set_feed(recorded_feed)
        window.select_page("telemetry")
    if outcome is not None and outcome.machine is not None:
        window.show_imported(outcome.machine, outcome.ignored)
    window.show()
    code = app.exec()
    window.shutdown()
    return int(code)
