"""The inventory: run the probes, join what each layer saw into one GPU per PCI bus address,
and number the GPUs the way each layer (and each framework, after the visible-devices
variables) will.

`assemble` is pure and takes any subset of probe results in any order, so the GUI can show
the inventory growing as probes finish; `collect_inventory` is the one-shot path of the CLI.

- `probe_runs`: the probes, run in parallel with a timeout each, and the origin.
- `frameworks`: the framework probe in worker processes, one per Python interpreter.
- `join`, `identify`: sightings joined into GPUs, named from the device table.
- `device_index`: the numbers ROCm and CUDA give each GPU.
- `assembly`: probe results to an Inventory.
"""

from __future__ import annotations

from gpuscope.inventory.assembly import assemble, assemble_stack
from gpuscope.inventory.device_index import build_device_index
from gpuscope.inventory.frameworks import (
    DEFAULT_FRAMEWORK_TIMEOUT_S,
    DEFAULT_INSPECTION_BUDGET_S,
    KILL_GRACE_S,
    AnswerCallback,
    FrameworkInspection,
    InterpreterAnswer,
    collect_frameworks,
    inspect_interpreters,
)
from gpuscope.inventory.join import join_gpus
from gpuscope.inventory.probe_runs import (
    DEFAULT_PROBE_TIMEOUT_S,
    PROBES,
    ProbeSpec,
    collect_inventory,
    origin_for,
    run_probe,
    timed_out_result,
)

__all__ = [
    "DEFAULT_FRAMEWORK_TIMEOUT_S",
    "DEFAULT_INSPECTION_BUDGET_S",
    "DEFAULT_PROBE_TIMEOUT_S",
    "KILL_GRACE_S",
    "PROBES",
    "AnswerCallback",
    "FrameworkInspection",
    "InterpreterAnswer",
    "ProbeSpec",
    "assemble",
    "assemble_stack",
    "build_device_index",
    "collect_frameworks",
    "collect_inventory",
    "inspect_interpreters",
    "join_gpus",
    "origin_for",
    "run_probe",
    "timed_out_result",
]
