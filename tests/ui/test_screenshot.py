"""`gpuscope screenshot --out DIR`: one PNG per page of the window plus the report, with no
display."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from fixture_paths import SNAPSHOTS_DIR
from PySide6.QtGui import QImage

from gpuscope.ui.main_window import PAGE_NAMES
from gpuscope.ui.screenshot import take_screenshots

RX7900 = str(SNAPSHOTS_DIR / "rx7900xtx_rocm.json")


def test_every_page_and_the_report(qtbot: Any, tmp_path: Path) -> None:
    said: list[str] = []
    paths = take_screenshots(tmp_path / "shots", replay=RX7900, telemetry_s=1.0,
                             progress=said.append)
    names = [p.name for p in paths]
    assert len(paths) == len(PAGE_NAMES) + 1 >= 7
    assert names[0] == "01-overview.png" and names[-2] == f"{len(PAGE_NAMES):02d}-report.png"
    assert names[-1] == "report.png"
    for path in paths[:-1]:
        image = QImage(str(path))
        assert (image.width(), image.height()) == (1100, 750), path.name
    assert QImage(str(paths[-1])).width() == 1200
    assert any("rendering report.png" in s for s in said)


def test_the_command_needs_no_display(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["GPUSCOPE_CONFIG_DIR"] = str(tmp_path / "config")
    env["GPUSCOPE_DATA_DIR"] = str(tmp_path / "data")
    out = tmp_path / "shots"
    done = subprocess.run([sys.executable, "-m", "gpuscope", "screenshot", "--out", str(out),
                           "--replay", RX7900, "--telemetry", "1"], capture_output=True,
                          text=True, timeout=240, env=env, check=False)
    assert done.returncode == 0, done.stderr
    printed = done.stdout.split()
    assert len(printed) >= 7 and printed[-1].endswith("report.png")
    assert all(Path(p).is_file() and Path(p).stat().st_size > 10_000 for p in printed)
    assert "gpuscope: rendering" in done.stderr  # progress on stderr


def test_an_unreadable_snapshot_is_one_line(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "gpuscope", "screenshot", "--out",
                           str(tmp_path), "--replay", str(tmp_path / "missing.json")],
                          capture_output=True, text=True, timeout=120, check=False,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 1 and done.stderr.startswith("gpuscope: ")
    assert "Traceback" not in done.stderr
