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



def test_every_module_of_the_package_has_a_layer() -> None:
    """A module missing from the layers contract would be free to import anything."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    layers = next(c["layers"] for c in config["contracts"] if c["type"] == "layers")
    named = {part.strip() for layer in layers for part in layer.split("|")}
    assert not any(name.startswith("(") for name in named), "no optional layers"
    package = ROOT / "gpuscope"
    top_level = {f"gpuscope.{path.stem}" for path in package.iterdir()
                 if (path.suffix == ".py" and path.stem not in ("__init__", "__main__"))
                 or (path.is_dir() and (path / "__init__.py").exists())}
    assert top_level - named == set()


def test_every_module_under_ui_is_a_view() -> None:
    """What is Qt-free lives below gpuscope.ui: every module of ui/ with code imports PySide6
    or pyqtgraph (a package's docstring-only __init__ aside)."""
    import ast

    lazy = []
    for path in sorted((ROOT / "gpuscope" / "ui").rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        body = [node for node in tree.body
                if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))]
        if not body:
            continue
        imported = {alias.name.split(".")[0] for node in ast.walk(tree)
                    if isinstance(node, ast.Import) for alias in node.names}
        imported |= {(node.module or "").split(".")[0] for node in ast.walk(tree)
                     if isinstance(node, ast.ImportFrom) and node.level == 0}
        if not imported & {"PySide6", "pyqtgraph"}:
            lazy.append(str(path.relative_to(ROOT)))
    assert lazy == [], f"Qt-free modules under ui/ (move them below it): {lazy}"


def test_every_package_folder_is_installed() -> None:
    """pyproject lists the packages by hand (resources/ installs as gpuscope.resources); a
    folder missing there works in the editable install the tests use and is absent from a
    real one."""
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())
                 ["tool"]["setuptools"]["packages"])
    folders = {".".join(path.parent.relative_to(ROOT).parts)
               for path in (ROOT / "gpuscope").rglob("__init__.py")}
    assert folders - listed == set()


def test_the_gpuscope_process_loads_no_worker_module_that_imports_torch() -> None:
    """The worker folders run in the user's Python with torch; gpuscope's own process may
    share a constant with them only through a module of theirs without torch in it (not even
    in a program text run in a child), as probes/framework_probe/limits.py is."""
    import ast
    import re

    workers = ("gpuscope/bench/worker", "gpuscope/probes/framework_probe", "gpuscope/child")
    torch_import = re.compile(r"^\s*(?:import|from)\s+torch\b", re.MULTILINE)
    offenders = []
    for path in sorted((ROOT / "gpuscope").rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if relative.startswith(workers):
            continue
        for node in ast.walk(ast.parse(path.read_text(), relative)):
            if not isinstance(node, ast.ImportFrom) or not node.module:
                continue
            target = ROOT / (node.module.replace(".", "/") + ".py")
            if target.as_posix().split(f"{ROOT.as_posix()}/", 1)[-1].startswith(workers) \
                    and torch_import.search(target.read_text()):
                offenders.append(f"{relative}:{node.lineno} imports {node.module}")
    assert offenders == []

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



def test_a_text_report_loads_no_qt(tmp_path: Path) -> None:
    """`gpuscope report --format md|html|json` is headless: the import trace of the command
    names no module of gpuscope.ui, PySide6 or pyqtgraph (checked with -X importtime)."""
    snapshot = ROOT / "tests" / "fixtures" / "snapshots" / "rx7900xtx_rocm.json"
    for fmt in ("md", "html", "json"):
        target = tmp_path / f"report.{fmt}"
        result = _run([sys.executable, "-X", "importtime", "-m", "gpuscope", "report",
                       "--format", fmt, "-o", str(target), "--replay", str(snapshot),
                       "--no-bench", "-q"], timeout_s=120)
        assert result.returncode == 0, result.stderr[-4000:]
        assert target.stat().st_size > 0
        imported = [line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines()
                    if line.startswith("import time:")]
        assert "gpuscope.report" in imported
        leaked = [name for name in imported
                  if name.split(".")[0] in ("PySide6", "pyqtgraph", "shiboken6")
                  or name.startswith("gpuscope.ui")]
        assert not leaked, (fmt, leaked)

# The vendor libraries and torch are imported only by the probes and the benchmark worker; the
# import-linter contracts cannot see importlib.import_module or __import__, so this does.
VENDOR_MODULES = {"pynvml", "amdsmi", "psutil", "torch", "torch_directml", "jax", "jaxlib",
                  "onnxruntime", "tensorflow"}
DYNAMIC_IMPORT_ALLOWED = {Path("gpuscope/probes"), Path("gpuscope/bench/worker"),
                          Path("gpuscope/child")}


def _dynamic_imports(path: Path) -> list[tuple[int, str | None]]:
    """(line, module) of each importlib.import_module(...) or __import__(...) call: the module
    when it is a literal or an f-string's literal head ("gpuscope.parsers."), else None."""
    import ast

    found: list[tuple[int, str | None]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name not in ("import_module", "__import__"):
            continue
        first = node.args[0]
        module: str | None = None
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            module = first.value
        elif (isinstance(first, ast.JoinedStr) and first.values
              and isinstance(first.values[0], ast.Constant)):
            module = str(first.values[0].value)
        found.append((node.lineno, module))
    return found


def test_vendor_libraries_are_imported_dynamically_only_where_allowed() -> None:
    offenders = []
    for path in sorted((ROOT / "gpuscope").rglob("*.py")):
        relative = path.relative_to(ROOT)
        if any(relative == allowed or allowed in relative.parents
               for allowed in DYNAMIC_IMPORT_ALLOWED):
            continue
        for line, module in _dynamic_imports(path):
            top = (module or "").split(".")[0]
            if module is None or (top in VENDOR_MODULES) or not module.startswith("gpuscope."):
                offenders.append(f"{relative}:{line}: {module or 'a computed name'}")
    # The inventory imports the probe modules its ProbeSpecs name, all of them in probes/.
    assert [o.rsplit(":", 2)[0] + ":" + o.rsplit(":", 1)[1] for o in offenders] == [
        "gpuscope/inventory/probe_runs.py: a computed name"], offenders
    from gpuscope.inventory import PROBES

    assert all(spec.function.startswith("gpuscope.probes.") for spec in PROBES)
