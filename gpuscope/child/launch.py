"""Starts a worker folder in the user's interpreter without importing the gpuscope package.

A worker folder's `__main__.py` loads this file with `runpy.run_path` (nothing of gpuscope is
importable yet) and calls `run_worker(folder)`. Its modules import each other and `child` with
relative imports (`from .measure import ...`, `from ...child.jsonlines import ...`), which work in
gpuscope's process (tests, the runner's constants) and here, where the folders from the gpuscope
folder down to the worker are registered as bare packages under the private name `_gpuscope`:
their `__init__` modules, which import the rest of gpuscope, never run, and an installed gpuscope
of another version cannot be picked up instead.
"""

from __future__ import annotations

import importlib
import os
import sys
import types

ROOT_PACKAGE = "_gpuscope"
GPUSCOPE_FOLDER = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _bare_package(name: str, folder: str) -> None:
    package = types.ModuleType(name)
    package.__path__ = [folder]
    sys.modules[name] = package


def worker_package(folder: str) -> str:
    """Registers the packages from the gpuscope folder down to `folder`; returns the worker
    folder's package name ("_gpuscope.bench.worker")."""
    name, path = ROOT_PACKAGE, GPUSCOPE_FOLDER
    _bare_package(name, path)
    for part in os.path.relpath(os.path.abspath(folder), GPUSCOPE_FOLDER).split(os.sep):
        name, path = f"{name}.{part}", os.path.join(path, part)
        _bare_package(name, path)
    return name


def run_worker(folder: str) -> None:
    """Run `<folder>/main.py`'s `main()` and end the process with its exit status (an exception
    out of `main` ends it as in any script: its traceback, then status 1). Started by gpuscope,
    the worker dies with gpuscope (`child/lifetime.py`)."""
    folder = os.path.abspath(folder)
    # Run by path, Python puts the folder first on sys.path, where its modules would shadow real
    # packages that torch or a framework imports.
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != folder]
    package = worker_package(folder)
    # Before anything slow (importing torch) or anything that can hang: die with the parent,
    # even by kill -9 (see lifetime.py).
    importlib.import_module(f"{ROOT_PACKAGE}.child.lifetime").arm_worker()
    code = importlib.import_module(f"{package}.main").main()
    try:
        importlib.import_module(f"{ROOT_PACKAGE}.child.jsonlines").flush()
        sys.stderr.flush()
    finally:
        # Skip interpreter teardown: some GPU runtimes crash or hang while unloading (in their
        # exit handlers), after every message is out.
        os._exit(code)
