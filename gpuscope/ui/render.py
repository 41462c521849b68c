"""Render a widget, or a page of the window over a replayed snapshot, to a PNG.

    python -m gpuscope.ui.render --replay FILE -o out.png [--page overview]

It runs offscreen (no display needed), waits in an event loop until every probe has
finished, and writes the window at 1100x750.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from PySide6.QtCore import QEventLoop, Qt, QTimer
from PySide6.QtWidgets import QApplication, QWidget

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
    if pixmap.isNull() or not pixmap.save(path, "PNG"):
        raise OSError(f"cannot write PNG to {path}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m gpuscope.ui.render",
        description="Render a page of gpuscope's window over a replayed snapshot to PNG.",
    )
    parser.add_argument("--replay", required=True, metavar="FILE", help="snapshot to replay")
    parser.add_argument("-o", "--output", required=True, metavar="PNG", help="PNG to write")
    parser.add_argument("--page", default="overview",
                        help="page to render (overview, stack, ...; default overview)")
    parser.add_argument("--size", default=f"{DEFAULT_SIZE[0]}x{DEFAULT_SIZE[1]}",
                        help="window size WIDTHxHEIGHT (default 1100x750)")
    parser.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                        help="probe timeout (default: gpuscope's)")
    args = parser.parse_args(argv)

    try:
        width_text, _, height_text = args.size.lower().partition("x")
        size = (int(width_text), int(height_text))
    except ValueError:
        print(f"gpuscope: --size wants WIDTHxHEIGHT, not {args.size!r}", file=sys.stderr)
        return 2

    from gpuscope.evidence import ReplaySystem, SnapshotError
    from gpuscope.inventory import DEFAULT_PROBE_TIMEOUT_S

    try:
        system = ReplaySystem.from_file(args.replay)
    except SnapshotError as exc:
        print(f"gpuscope: {exc}", file=sys.stderr)
        return 1

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from gpuscope.ui.main_window import MainWindow

    # Held in a local so that the application lives until the picture is written.
    _app = QApplication.instance() or QApplication([sys.argv[0]])
    timeout_s = args.timeout if args.timeout is not None else DEFAULT_PROBE_TIMEOUT_S
    window = MainWindow(system, probe_timeout_s=timeout_s)
    try:
        window.select_page(args.page)
    except ValueError as exc:
        print(f"gpuscope: {exc}", file=sys.stderr)
        window.close()
        return 2
    if window.loader.is_running:
        loop = QEventLoop()
        window.loader.finished.connect(loop.quit)
        guard = QTimer()  # the loader's own timeouts end it; this is a belt to its braces
        guard.setSingleShot(True)
        guard.timeout.connect(loop.quit)
        guard.start(round((timeout_s + 5) * 1000))
        loop.exec()
        guard.stop()
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
