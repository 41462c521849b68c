"""The desktop application: `run_gui` sets up Qt, the theme and the settings, and opens the
main window."""

from __future__ import annotations

import logging
import signal
import sys
from collections.abc import Sequence
from types import FrameType
from typing import Any

from PySide6.QtCore import QMessageLogContext, QTimer, QtMsgType, qInstallMessageHandler
from PySide6.QtWidgets import QApplication, QWidget

from gpuscope import __version__
from gpuscope.app.settings import DEFAULT_TELEMETRY_HZ, SettingsStore
from gpuscope.evidence import LiveSystem, ReplaySystem, SnapshotError, System
from gpuscope.ui.i18n import setup_language
from gpuscope.ui.theme import app_icon, app_theme

log = logging.getLogger(__name__)

APP_NAME = "gpuscope"
ORGANISATION = "gpuscope"
# The light and dark palettes are only honoured in full by Fusion: native Windows and macOS
# styles draw some controls from the OS theme, which would mix light and dark in one window.
STYLE = "Fusion"
# How often the interpreter wakes in Qt's event loop to run a signal handler (Ctrl+C).
SIGNAL_POLL_MS = 200
# Qt's offscreen platform says this of every window that sets size limits; nothing is wrong,
# and it would be all that 'gpuscope screenshot' or a PNG report prints besides its progress.
OFFSCREEN_NOISE = "This plugin does not support propagateSizeHints()"
_noise_filtered = False

__all__ = ["APP_NAME", "DEFAULT_TELEMETRY_HZ", "ORGANISATION", "app_icon", "run_gui",
           "setup_application"]


_STYLED_PROPERTY = "gpuscope_styled"


def setup_application(argv: Sequence[str] | None = None,
                      language_setting: str | None = None) -> QApplication:
    """The QApplication (the running one, or a new one over `argv`), named, styled and with
    gpuscope's icon, in the language of $GPUSCOPE_LANG, `language_setting` or the locale
    (`gpuscope.ui.i18n.setup_language`), with the bundled CJK font."""
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(
        list(argv) if argv is not None else list(sys.argv))
    app.setApplicationName(APP_NAME)
    app.setApplicationDisplayName(APP_NAME)
    app.setOrganizationName(ORGANISATION)
    app.setApplicationVersion(__version__)
    app.setDesktopFileName("gpuscope")  # matches resources/gpuscope.desktop
    # Once per application, and never under a theme's style sheet: that wraps the style (its
    # name reads "" then), and replacing the style beneath it leaves widgets styled by the
    # sheet pointing at the old one (a crash at the next restyle).
    if not app.property(_STYLED_PROPERTY) and not app.styleSheet():
        if app.style().name().lower() != STYLE.lower() and app.setStyle(STYLE) is None:
            log.warning("the %s style is missing from this Qt; colours may be off", STYLE)
        app.setProperty(_STYLED_PROPERTY, True)
    icon = app_icon()
    if not icon.isNull():
        app.setWindowIcon(icon)
    setup_language(language_setting)  # before any widget: widgets take their texts once
    if app.platformName() == "offscreen":
        quiet_offscreen_noise()
    return app


def quiet_offscreen_noise() -> None:
    """Drop Qt's offscreen size-hints warning; every other Qt message goes where it went
    before (Qt's own output, or the handler installed earlier). Once per process."""
    global _noise_filtered
    if _noise_filtered:
        return
    _noise_filtered = True
    previous: Any = None

    def handler(mode: QtMsgType, context: QMessageLogContext, message: str) -> None:
        if message == OFFSCREEN_NOISE:
            return
        if previous is not None:
            previous(mode, context, message)
        else:
            print(message, file=sys.stderr)

    previous = qInstallMessageHandler(handler)


def run_gui(
    replay_path: str | None = None, argv: list[str] | None = None,
    imports: Sequence[str] | None = None, recording: str | None = None,
    settings: SettingsStore | None = None,
) -> int:
    """Open gpuscope's window over this machine, or over a snapshot when `replay_path` is
    given, and run until it closes; with `imports` (files of tool outputs), the window opens
    on the machine they describe. A snapshot or output that cannot be read is reported on
    stderr in one line, and 1 returned, before any window opens. The window's size, page
    and theme are kept in `settings` (default: the settings file in the user's config
    directory, or $GPUSCOPE_CONFIG_DIR)."""
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

    store = settings if settings is not None else SettingsStore()
    app = setup_application(argv, store.current.language)
    # Before any window: widgets built after this take the theme's colours from the start.
    theme = app_theme()
    theme.set_choice(store.current.theme)

    recorded_feed = None
    if recording is not None:
        from gpuscope.telemetry.feed_adapters import recording_feed
        from gpuscope.telemetry.recorder import RecordingError

        try:
            recorded_feed = recording_feed(recording)
        except RecordingError as exc:
            print(f"gpuscope: {exc}", file=sys.stderr)
            return 1
    # A recording replaces the live sampler: the page charts what was recorded.
    rate_hz = None if recorded_feed else store.current.telemetry_rate_hz
    window = MainWindow(system, settings=store, theme=theme, live_telemetry_hz=rate_hz,
                        inspect_frameworks=True)
    if recorded_feed is not None:
        window.telemetry_page.set_feed(recorded_feed)
        window.telemetry_page.fit_all()  # all of it, as File > Open recording shows one
        window.select_page("telemetry")
    if outcome is not None and outcome.machine is not None:
        window.show_imported(outcome.machine, outcome.ignored)
    window.show()
    with _ClosingOnSignals(window):
        code = app.exec()
    window.shutdown()
    return int(code)


class _ClosingOnSignals:
    """Ctrl+C (SIGINT) and SIGTERM close `window` as its close button does: its settings are
    saved, the sampler stops and the workers end. Python runs a signal handler only between
    bytecodes and Qt's event loop runs in C++, so a timer wakes the interpreter meanwhile."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM, *((signal.SIGHUP,) if hasattr(signal, "SIGHUP")
                                                 else ()))

    def __init__(self, window: QWidget) -> None:
        self._window = window
        self._timer = QTimer()
        self._timer.setInterval(SIGNAL_POLL_MS)
        self._timer.timeout.connect(lambda: None)
        self._previous: dict[int, Any] = {}  # what was there before, put back on exit

    def _close(self, signum: int, _frame: FrameType | None) -> None:
        log.info("closing on signal %d", signum)
        QTimer.singleShot(0, self._window.close)

    def __enter__(self) -> None:
        for number in self.SIGNALS:
            if signal.getsignal(number) is signal.SIG_IGN:  # SIGHUP under nohup: keep ignoring
                continue
            self._previous[number] = signal.signal(number, self._close)
        self._timer.start()

    def __exit__(self, *_exc: object) -> None:
        self._timer.stop()
        for number, handler in self._previous.items():
            signal.signal(number, handler)
