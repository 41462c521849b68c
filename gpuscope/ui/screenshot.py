"""`gpuscope screenshot --out DIR`: every page of the window, and the share report, as PNG
files, offscreen (no display needed), for the docs and for review.

The window is made as the app makes it, over this machine, a replayed snapshot or pasted
outputs; the probes finish, live telemetry runs for a few seconds (a replay's telemetry is its
recorded values, labelled as such on the page), the Frameworks page lists the interpreters it
finds (without inspecting them), and the Report page makes its report. With a recording
(`gpuscope record`), the Telemetry page shows all of it instead of live samples, as
`gpuscope --recording FILE` does, and the report's telemetry strip is the recording's. Then
each page is rendered at the window's size, and the report at its export width.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from gpuscope.ui.render import DEFAULT_SIZE, render_widget_png, wait_until

if TYPE_CHECKING:
    from gpuscope.ui.main_window import MainWindow

TELEMETRY_RATE_HZ = 4.0
DEFAULT_TELEMETRY_S = 3.0
REPORT_TIMEOUT_S = 60.0

Progress = Callable[[str], None]


class ScreenshotError(Exception):
    """The screenshots could not be taken (one line: a bad snapshot, an unwritable folder)."""


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def _quiet(_message: str) -> None:
    return None


def _report_done(window: MainWindow) -> bool:
    page = window.report_page
    return page.report is not None and not page.is_busy and not page.is_stale


def take_screenshots(
    out_dir: str | os.PathLike[str],
    *,
    replay: str | None = None,
    imports: Sequence[str] = (),
    size: tuple[int, int] = DEFAULT_SIZE,
    telemetry_s: float = DEFAULT_TELEMETRY_S,
    recording: str | None = None,
    dark: bool = False,
    progress: Progress = _quiet,
) -> list[Path]:
    """Render every page and the report into `out_dir` (created if needed): "01-overview.png"
    ... and "report.png", in the light theme (`dark`: the dark one). With `recording`, the
    Telemetry page (and the report) show that recording instead of `telemetry_s` seconds of
    live samples. The paths written, in order. Raises ScreenshotError."""
    from gpuscope.app.machine import system_for
    from gpuscope.evidence import SnapshotError
    from gpuscope.inventory import DEFAULT_INSPECTION_BUDGET_S, DEFAULT_PROBE_TIMEOUT_S, PROBES
    from gpuscope.telemetry.feed_adapters import recording_feed
    from gpuscope.telemetry.recorder import RecordingError
    from gpuscope.ui.app import setup_application
    from gpuscope.ui.main_window import MainWindow
    from gpuscope.ui.report.render import save_report_png
    from gpuscope.ui.theme import ThemeChoice, app_theme

    if replay and imports:
        raise ScreenshotError("--from and --replay describe different machines; give one")
    folder = Path(out_dir)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ScreenshotError(f"cannot make {folder}: {exc.strerror or exc}") from exc
    try:
        system = system_for(replay or None)
    except SnapshotError as exc:
        raise ScreenshotError(str(exc)) from exc
    recorded = None
    if recording:
        progress(f"reading the recording {os.path.basename(recording)}")
        try:
            recorded = recording_feed(recording)
        except RecordingError as exc:
            raise ScreenshotError(str(exc)) from exc
    outcome = None
    if imports:
        from gpuscope.ui.import_dialog import import_inputs

        outcome = import_inputs(list(imports))
        if outcome.machine is None:
            raise ScreenshotError(outcome.error or "the pasted outputs could not be read")

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    # Held in a local so that the application lives until the pictures are written.
    _app = setup_application(["gpuscope"])
    theme = app_theme()
    previous = theme.choice
    # Pictures for the docs look the same everywhere, whatever the desktop's theme.
    theme.set_choice(ThemeChoice.DARK if dark else ThemeChoice.LIGHT)
    # As the window does on opening: the PyTorch answer (a replay's from its capture).
    window = MainWindow(system, probes=() if outcome is not None else PROBES,
                        probe_timeout_s=DEFAULT_PROBE_TIMEOUT_S, theme=theme,
                        inspect_frameworks=outcome is None)
    written: list[Path] = []
    try:
        window.resize(*size)
        # Shown, off any screen, as a user would see it: pages act on being shown.
        window.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
        window.show()
        if outcome is not None and outcome.machine is not None:
            window.show_imported(outcome.machine, outcome.ignored)
        progress("waiting for the probes")
        wait_until(lambda: not window.loader.is_running, DEFAULT_PROBE_TIMEOUT_S + 5)
        if window.doctor.is_inspecting:
            progress("waiting for the framework check")
            wait_until(lambda: not window.doctor.is_inspecting, DEFAULT_INSPECTION_BUDGET_S + 5)
        if recorded is not None:
            # As `gpuscope --recording FILE` opens it: all of it, and no live sampler.
            window.telemetry_page.set_feed(recorded)
            window.telemetry_page.fit_all()
        elif telemetry_s > 0 and outcome is None:
            progress(f"sampling telemetry for {telemetry_s:g} s")
            window.start_live_telemetry(TELEMETRY_RATE_HZ)
            deadline = time.monotonic() + telemetry_s
            wait_until(lambda: time.monotonic() >= deadline, telemetry_s + 1)
        frameworks = window.frameworks_page
        if outcome is None:
            if not frameworks.environments() and not frameworks.is_discovering:
                frameworks.refresh_environments()
            wait_until(lambda: not frameworks.is_discovering, 30)
        for number, name in enumerate(window.page_names(), start=1):
            window.select_page(name)
            if name == "Report":
                page = window.report_page
                if page.is_stale and not page.is_busy:
                    page.regenerate()
                wait_until(lambda: _report_done(window), REPORT_TIMEOUT_S)
            if name == "Telemetry":
                for _ in range(3):
                    QApplication.sendPostedEvents()
                    QApplication.processEvents()
                window.telemetry_page.draw_settled()
            path = folder / f"{number:02d}-{_slug(name)}.png"
            progress(f"rendering {path.name}")
            try:
                render_widget_png(window, str(path), size)
            except OSError as exc:
                raise ScreenshotError(str(exc)) from exc
            written.append(path)
        report = window.report_page.report
        if report is None:
            raise ScreenshotError("the report was not made in time")
        path = folder / "report.png"
        progress(f"rendering {path.name}")
        try:
            save_report_png(report, path)
        except OSError as exc:
            raise ScreenshotError(str(exc)) from exc
        written.append(path)
    finally:
        window.close()
        theme.set_choice(previous)
    return written
