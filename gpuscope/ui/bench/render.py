"""Render the Benchmarks page to PNG after a real run, offscreen.

    python -m gpuscope.ui.bench.render --suite quick -o bench.png [--python PATH]
        [--device cpu] [--theme dark] [--size 930x700] [--history FILE] [--window]

It runs the suite with the real worker (as the Run button does), waits for it to end, and writes
the page as it then looks (or the whole window, with `--window`). The run is kept in the history
given by --history (default: a temporary file, so renders do not fill the user's history).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Sequence

DEFAULT_SIZE = (930, 700)  # the page's part of the 1100x750 window


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gpuscope.ui.bench.render",
                                     description="Render the Benchmarks page after a run.")
    parser.add_argument("-o", "--output", required=True, metavar="PNG")
    parser.add_argument("--suite", default="quick", help="quick (default), full, a family")
    parser.add_argument("--python", default=None, metavar="PATH",
                        help="default: the page's own choice (the inspected interpreter whose "
                             "PyTorch can use the GPU)")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--theme", choices=("light", "dark"), default="light")
    parser.add_argument("--size", default=None, metavar="WxH")
    parser.add_argument("--history", default=None, metavar="FILE",
                        help="the run history to keep the run in (default: a temporary one)")
    parser.add_argument("--window", action="store_true",
                        help="render the whole window on the Benchmarks page (1100x750)")
    parser.add_argument("--timeout", type=float, default=300.0, metavar="SECONDS")
    args = parser.parse_args(argv)
    size = DEFAULT_SIZE if not args.window else (1100, 750)
    if args.size:
        width, _, height = args.size.lower().partition("x")
        size = (int(width), int(height))

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt

    from gpuscope.bench.history import RunHistory
    from gpuscope.ui.app import setup_application
    from gpuscope.ui.bench.page import BenchPage
    from gpuscope.ui.render import render_widget_png, wait_until
    from gpuscope.ui.theme import ThemeChoice, app_theme

    _app = setup_application([sys.argv[0]])
    app_theme().set_choice(ThemeChoice(args.theme))
    with tempfile.TemporaryDirectory(prefix="gpuscope-bench-render-") as folder:
        history = RunHistory(args.history or os.path.join(folder, "runs.sqlite"))
        window = None
        if args.window:
            from gpuscope.evidence import LiveSystem
            from gpuscope.ui.main_window import MainWindow

            window = MainWindow(LiveSystem())
            page = window.bench_page
            page.past_runs.history = history
            page.history = history
            window.select_page("Benchmarks")
            window.resize(*size)
            window.show()
        else:
            page = BenchPage(history=history)
            page.resize(*size)
            page.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
            page.show()
        wait_until(lambda: not page.is_discovering, 30)
        if args.python:
            page.set_python(args.python)
        else:
            wait_until(lambda: not page.default_interpreter.is_running, 60)
        page.set_device(args.device)
        page.run_suite(args.suite)
        if not wait_until(lambda: not page.is_running, args.timeout):
            page.shutdown()
            print("gpuscope: the run did not end in time", file=sys.stderr)
            return 1
        wait_until(lambda: not page.past_runs.busy, 10)
        target = window if window is not None else page
        render_widget_png(target, args.output, size)
        page.shutdown()
        if window is not None:
            window.close()
    print(args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
