"""`python gpuscope/probes/framework_probe ARGS` runs the framework probe (see `__init__.py`)."""

from __future__ import annotations

import os
import runpy

if __name__ == "__main__":
    _here = os.path.dirname(os.path.abspath(__file__))
    _launch = runpy.run_path(os.path.join(_here, os.pardir, os.pardir, "child", "launch.py"))
    _launch["run_worker"](_here)
