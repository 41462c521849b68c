"""Fixtures of the benchmark tests: a tiny-scale environment for the real worker, a bare
interpreter without torch, and a run history of each test's own (never the user's)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

# Sizes and time budgets x 0.05: the real worker on the real CPU torch, in about a second per
# benchmark. One test runs the real quick suite at full size.
TINY_SCALE = "0.05"


@pytest.fixture(autouse=True)
def own_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Runs saved by `gpuscope bench` (in this process or a child) go to the test's folder."""
    folder = tmp_path / "gpuscope-data"
    monkeypatch.setenv("GPUSCOPE_DATA_DIR", str(folder))
    return folder


@pytest.fixture
def tiny_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUSCOPE_BENCH_")}
    env["GPUSCOPE_BENCH_SCALE"] = TINY_SCALE
    return env


@pytest.fixture(scope="session")
def bare_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    """An interpreter with no torch."""
    root = tmp_path_factory.mktemp("bench-bare") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True,
                   capture_output=True, timeout=120)
    python = root / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    assert python.exists()
    return str(python)

