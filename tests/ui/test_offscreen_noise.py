"""Qt's offscreen platform warns "This plugin does not support propagateSizeHints()" for
every window with size limits; gpuscope's offscreen commands drop that one line and keep
every other Qt message (issue #12)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent("""
    from PySide6.QtCore import qWarning
    from PySide6.QtWidgets import QWidget
    from gpuscope.ui.app import setup_application

    app = setup_application(["gpuscope"])
    window = QWidget()
    window.show()
    app.processEvents()
    window.setMinimumSize(300, 200)  # new size hints on a shown window: the plugin warns
    app.processEvents()
    qWarning("another Qt warning, kept")
    window.close()
""")


def test_only_the_offscreen_size_hints_warning_is_dropped() -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    result = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    assert "propagateSizeHints" not in result.stderr
    assert "another Qt warning, kept" in result.stderr
