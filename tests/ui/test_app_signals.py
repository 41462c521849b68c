"""Ctrl+C in the terminal that started the window, and SIGTERM, close it as its close button
does: settings saved, sampler stopped, exit 0 (issue #12)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fixture_paths import SNAPSHOTS_DIR

ROOT = Path(__file__).resolve().parents[2]


def catches(pid: int, signum: int) -> bool:
    """Whether process `pid` has a handler for `signum` (the SigCgt mask of /proc)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    for line in status.splitlines():
        if line.startswith("SigCgt:"):
            return bool(int(line.split()[1], 16) >> (signum - 1) & 1)
    return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_a_signal_closes_the_window_as_its_close_button_does(tmp_path: Path,
                                                             signum: int) -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "GPUSCOPE_CONFIG_DIR": str(tmp_path)}
    process = subprocess.Popen(
        [sys.executable, "-m", "gpuscope", "--replay", str(SNAPSHOTS_DIR / "rx7900xtx_rocm.json")],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        # SIGTERM is caught only once the window's handlers are in (Python catches SIGINT
        # from the start, so both wait for SIGTERM's).
        while not catches(process.pid, signal.SIGTERM):
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the window never started"
            time.sleep(0.1)
        process.send_signal(signum)
        _out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, err
    assert "Traceback" not in err
    assert (tmp_path / "settings.json").is_file()  # saved on close, as the close button does
