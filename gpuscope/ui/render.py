"""Render a widget, or a page of the window, to a PNG.

    python -m gpuscope.ui.render --replay FILE -o out.png [--page overview]
    python -m gpuscope.ui.render --from rocminfo.txt --from torch-error.txt --page stack -o s.png
    python -m gpuscope.ui.render --page frameworks --inspect -o frameworks.png
    python -m gpuscope.ui.render --page telemetry --demo-telemetry 2 -o telemetry.png
    python -m gpuscope.ui.render --replay FILE --page stack --theme dark -o stack-dark.png

Over a replayed snapshot (`--replay`), imported outputs (`--from`, repeatable) or, with
neither, this machine. It runs offscreen (no display needed), waits in an event loop until
every probe has finished (and, with `--inspect` or `--python`, until the frameworks are
inspected), and writes the window at 1100x750. `--demo-telemetry N` feeds the Telemetry page
N GPUs of synthetic traces, labelled "demo data" on the page. `--theme` picks the light
(default) or dark palette, or `system` for what the platform reports.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QEventLoop, Qt, QTimer
from PySide6.QtWidgets import QApplication, QWidget

from gpuscope.safe_write import atomic_path
from gpuscope.ui.theme import ThemeChoice, ThemeController, app_theme

if TYPE_CHECKING:
    from gpuscope.evidence import System
    from gpuscope.ui.import_dialog import ImportOutcome

DEFAULT_SIZE = (1100, 750)


def render_widget_png(
    widget: QWidget, path: str, size: tuple[int, int] = DEFAULT_SIZE,
) -> None:
    """Lay out `widget` at `size` and write what it draws to `path` as PNG. A widget not
    on screen is shown off-screen for the grab and hidden again. OSError if it cannot save."""
    width, height = size
    widget.resize(width, height)
    was_visible = widget.isVisible()
    if not was_visible:
        widget.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
        widget.show()
    # Let layouts settle and deferred deletes run before the picture is taken.
    for _ in range(3):
        QApplication.sendPostedEvents()
        QApplication.processEvents()
    pixmap = widget.grab()
    if not was_visible:
        widget.hide()
    if pixmap.isNull():
        raise OSError(f"cannot write PNG to {path}: the widget drew nothing")
    with atomic_path(path) as temporary:
        if not pixmap.save(str(temporary), "PNG"):
            raise OSError(f"cannot write PNG to {path}")


def wait_until(predicate: Callable[[], bool], timeout_s: float) -> bool:
    """Run the event loop until `predicate()` holds or `timeout_s` passes; whether it held."""
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            return False
        loop = QEventLoop()
        QTimer.singleShot(20, loop.quit)
        loop.exec()
    return True


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m gpuscope.ui.render",
        description="Render a page of gpuscope's window to PNG: over a replayed snapshot, "
                    "imported outputs, or this machine.",
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--replay", metavar="FILE", help="snapshot to replay")
    source.add_argument("--from", dest="inputs", action="append", metavar="FILE",
                        help="import this output (rocminfo, nvidia-smi, collect_env, ...) "
                             "instead of replaying; repeatable")
    parser.add_argument("-o", "--output", required=True, metavar="PNG", help="PNG to write")
    parser.add_argument("--page", default="overview",
                        help="page to render (overview, stack, frameworks, ...; default "
                             "overview)")
    parser.add_argument("--size", default=f"{DEFAULT_SIZE[0]}x{DEFAULT_SIZE[1]}",
                        help="window size WIDTHxHEIGHT (default 1100x750)")
    parser.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                        help="probe timeout (default: gpuscope's)")
    parser.add_argument("--inspect", action="store_true",
                        help="inspect the frameworks of the ticked environments (the "
                             "interpreter running this) before rendering")
    parser.add_argument("--python", action="append", metavar="PATH",
                        help="inspect the frameworks of this interpreter before rendering "
                             "(repeatable; implies --inspect)")
    parser.add_argument("--demo-telemetry", type=int, default=None, metavar="N_GPUS",
                        help="feed the Telemetry page synthetic traces of N GPUs and the "
                             "host (labelled demo data on the page)")
    parser.add_argument("--recording", metavar="FILE",
                        help="chart this recording (gpuscope record) on the Telemetry page")
    parser.add_argument("--telemetry-window", type=int, default=None, metavar="SECONDS",
                        help="the Telemetry page's time window (60, 300, 900 or 3600)")
    parser.add_argument("--telemetry-range", default=None, metavar="FROM:TO",
                        help="show this range of the telemetry, in seconds after the start "
                             "of the data (e.g. 1800:2400)")
    parser.add_argument("--theme", choices=[choice.value for choice in ThemeChoice],
                        default=ThemeChoice.LIGHT.value,
                        help="light (default), dark, or system: what the platform reports")
    args = parser.parse_args(argv)
    if args.demo_telemetry is not None and not 0 <= args.demo_telemetry <= 64:
        print("gpuscope: --demo-telemetry wants 0 to 64 GPUs", file=sys.stderr)
        return 2

    try:
        width_text, _, height_text = args.size.lower().partition("x")
        size = (int(width_text), int(height_text))
    except ValueError:
        print(f"gpuscope: --size wants WIDTHxHEIGHT, not {args.size!r}", file=sys.stderr)
        return 2

    from gpuscope.evidence import LiveSystem, ReplaySystem, SnapshotError

    system: System
    outcome: ImportOutcome | None = None
    if args.replay:
        try:
            system = ReplaySystem.from_file(args.replay)
        except SnapshotError as exc:
            print(f"gpuscope: {exc}", file=sys.stderr)
            return 1
    else:
        system = LiveSystem()
    if args.inputs:
        from gpuscope.ui.import_dialog import import_inputs

        outcome = import_inputs(args.inputs)
        if outcome.machine is None:
            print(f"gpuscope: {outcome.error}", file=sys.stderr)
            return 1

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from gpuscope.ui.app import setup_application

    # Held in a local so that the application lives until the picture is written.
    _app = setup_application([sys.argv[0]])
    theme = app_theme()
    previous = theme.choice
    theme.set_choice(ThemeChoice(args.theme))  # before the window: pages start in its colours
    try:
        return _render(args, system, outcome, size, theme)
    finally:
        theme.set_choice(previous)  # as it was, for callers in the same process (tests)


def _render(args: argparse.Namespace, system: System, outcome: ImportOutcome | None,
            size: tuple[int, int], theme: ThemeController) -> int:
    from gpuscope.inventory import DEFAULT_FRAMEWORK_TIMEOUT_S, DEFAULT_PROBE_TIMEOUT_S, PROBES
    from gpuscope.ui.main_window import MainWindow

    timeout_s = args.timeout if args.timeout is not None else DEFAULT_PROBE_TIMEOUT_S
    # Imported outputs describe another machine: this one is not probed for the picture.
    window = MainWindow(system, probes=() if outcome is not None else PROBES,
                        probe_timeout_s=timeout_s, theme=theme)
    if outcome is not None and outcome.machine is not None:
        window.show_imported(outcome.machine, outcome.ignored)
    try:
        window.select_page(args.page)
    except ValueError as exc:
        print(f"gpuscope: {exc}", file=sys.stderr)
        window.close()
        return 2
    window.resize(*size)
    if args.demo_telemetry is not None:
        from gpuscope.telemetry.feed import demo_feed

        minutes = max(15.0, (args.telemetry_window or 0) / 60.0)
        window.telemetry_page.set_feed(demo_feed(args.demo_telemetry, minutes=minutes))
    if args.recording is not None:
        from gpuscope.telemetry.feed_adapters import recording_feed
        from gpuscope.telemetry.recorder import RecordingError

        try:
            window.telemetry_page.set_feed(recording_feed(args.recording))
        except RecordingError as exc:
            print(f"gpuscope: {exc}", file=sys.stderr)
            window.close()
            return 1
        if args.telemetry_window is None:
            window.telemetry_page.fit_all()  # as the window opens a recording
    if args.telemetry_window is not None:
        window.telemetry_page.set_window_s(args.telemetry_window)
    if args.telemetry_range is not None:
        extent = window.telemetry_page.data_extent()
        try:
            start_text, _, end_text = args.telemetry_range.partition(":")
            start_s, end_s = float(start_text), float(end_text)
        except ValueError:
            print(f"gpuscope: --telemetry-range wants FROM:TO in seconds, not "
                  f"{args.telemetry_range!r}", file=sys.stderr)
            window.close()
            return 2
        if extent is not None:
            window.telemetry_page.set_view_range(extent[0] + start_s, extent[0] + end_s)
    if window.loader.is_running:
        # The loader's own timeouts end it; the deadline is a belt to its braces.
        wait_until(lambda: not window.loader.is_running, timeout_s + 5)
    if window.current_page_name() == "Frameworks" and outcome is None:
        page = window.frameworks_page
        if not page.environments() and not page.is_discovering:
            page.refresh_environments()
        wait_until(lambda: not page.is_discovering, 30)
        if args.inspect or args.python:
            for python in args.python or ():
                page.add_interpreter(python)
            if args.python:
                page.set_checked(args.python)
            page.inspect()
            wait_until(lambda: not page.is_inspecting, DEFAULT_FRAMEWORK_TIMEOUT_S + 15)
    if window.current_page_name() == "Telemetry":
        # Lay out at the final size, then draw a frame at the charts' real pixel width.
        window.resize(*size)
        for _ in range(3):
            QApplication.sendPostedEvents()
            QApplication.processEvents()
        window.telemetry_page.draw_settled()
    try:
        render_widget_png(window, args.output, size)
    except OSError as exc:
        print(f"gpuscope: {exc}", file=sys.stderr)
        return 1
    finally:
        window.close()
    print(args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
