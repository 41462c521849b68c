"""Guards the PySide6 pin in pyproject.toml.

PySide6-Essentials 6.12.0 with pyqtgraph 0.14.0 aborts the Python interpreter
(`Fatal Python error: none_dealloc`) after many `setData` calls on plot curves with repaints
in between: the telemetry page's exact pattern. An abort cannot be caught in-process, so the
loop runs in a subprocess and the test fails (with the child's stderr tail) instead of taking
pytest down with it.

When a PySide6 release passes this test, the `<6.12` pin can be lifted.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

DONE_MARKER = "GPUSCOPE-STRESS-DONE"
ITERATIONS = 2000

STRESS_SCRIPT = textwrap.dedent(f"""
    import os
    import sys

    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    os.environ["PYQTGRAPH_QT_LIB"] = "PySide6"

    import numpy as np
    import pyqtgraph as pg
    import PySide6

    app = pg.mkQApp()
    widget = pg.PlotWidget()
    widget.resize(640, 360)
    widget.show()
    plot = widget.getPlotItem()
    plot.setClipToView(True)
    plot.setDownsampling(auto=True, mode="peak")
    colours = ("#4c8df6", "#f28e2b", "#25a99a", "#d65db1")
    curves = [widget.plot(pen=pg.mkPen(colour, width=1)) for colour in colours]
    points = 500
    x = np.arange(points, dtype=np.float64)
    rng = np.random.default_rng(0)
    for i in range({ITERATIONS}):
        for k, curve in enumerate(curves):
            y = np.sin(x / 50.0 + i * 0.05 + k) + rng.standard_normal(points) * 0.05
            if i % 97 == k:
                y[::17] = np.nan  # a missing sample, as telemetry has
            curve.setData(x, y, connect="finite")
        widget.repaint()
        if i % 100 == 0:
            widget.grab()
        app.processEvents()
    widget.close()
    print("{DONE_MARKER}", {ITERATIONS}, "PySide6", PySide6.__version__, "pyqtgraph",
          pg.__version__, flush=True)
""")


def test_repeated_setdata_and_repaint_does_not_abort(tmp_path: Path) -> None:
    script = tmp_path / "pyqtgraph_stress.py"
    script.write_text(STRESS_SCRIPT)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONFAULTHANDLER="1")
    completed = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, env=env,
        check=False, stdin=subprocess.DEVNULL,
    )
    tail = "\n".join(completed.stderr.strip().splitlines()[-30:])
    assert completed.returncode == 0, (
        f"the pyqtgraph stress loop died with exit code {completed.returncode} "
        f"(a negative code is a signal; -6 is the abort of `Fatal Python error`):\n{tail}"
    )
    assert DONE_MARKER in completed.stdout, f"no completion marker; stderr tail:\n{tail}"
