"""The layer rules of DESIGN.md, type checking and lint, run as part of the tests."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def _tool(name: str) -> str:
    found = shutil.which(name, path=str(BIN)) or shutil.which(name)
    assert found, f"{name} is not installed (pip install -e '.[test]')"
    return found


def _run(args: list[str], timeout_s: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=timeout_s,
                          check=False)


def test_import_contracts_hold() -> None:
    result = _run([_tool("lint-imports"), "--no-cache"])
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "broken" not in result.stdout.lower().replace("0 broken", "")


def test_mypy_strict_passes() -> None:
    result = _run([sys.executable, "-m", "mypy", "gpuscope"], timeout_s=600)
    assert result.returncode == 0, result.stdout[-6000:]


def test_ruff_passes() -> None:
    result = _run([_tool("ruff"), "check", "gpuscope", "tests", "benchmarks"])
    assert result.returncode == 0, result.stdout[-6000:]


def test_the_core_runs_with_qt_made_unimportable() -> None:
    script = textwrap.dedent("""
        import importlib.abc, sys

        class Block(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("PySide6", "shiboken6", "pyqtgraph", "torch"):
                    raise ImportError(f"{name} blocked by test")
                return None

        sys.meta_path.insert(0, Block())
        from gpuscope.cli import main
        code = main(["info", "--json"])
        assert code == 0, code
        leaked = [m for m in sys.modules if m.split(".")[0] in ("PySide6", "pyqtgraph", "torch")]
        assert not leaked, leaked
        print("core ok")
    """)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                            text=True, timeout=120, env=env, check=False)
    assert result.returncode == 0, result.stderr[-4000:]
    assert result.stdout.rstrip().endswith("core ok")
