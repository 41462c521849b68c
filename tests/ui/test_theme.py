"""The theme tests (tests/ui/theme_cases.py) in a fresh process.

They restyle the whole application, and Qt's restyle walks every widget still alive: in the
long UI session, windows and widgets that earlier tests left behind (run_gui windows,
pyqtgraph views) are among them, and one in a half-deleted state crashes the restyle
(a segfault in QApplication::setStyleSheet, seen in CI; not root-caused). A fresh
application holds only what the theme tests make.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CASES = Path(__file__).resolve().with_name("theme_cases.py")


def test_the_theme_cases_pass_in_a_fresh_application() -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(CASES)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and " failed" not in done.stdout
