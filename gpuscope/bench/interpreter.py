"""Which interpreter runs the benchmarks when none is named: the one whose PyTorch can use the
chosen GPU, among those the doctor and the Frameworks page inspect by default (gpuscope's own,
`python3` and `python` on PATH, the active virtualenv and conda environment, those added in
the window).

    chooser = BenchInterpreters()              # this machine: inventory and inspection, lazily
    pick = chooser.choose("auto")              # a GPU build that can use the GPU, else a CPU
    pick.python, pick.reason                   # build; None and why (with the install command)

The order: a GPU build (ROCm or CUDA) that sees the chosen GPU and whose smoke test did not
fail; then a CPU build; then a GPU build that cannot use the GPU (its run says why); then a
PyTorch that is installed but could not be inspected (its import failed or outlasted the
inspection's budget on a busy machine: the worker, with its own longer limit, tries it).
Within a rank, the doctor's order. When no interpreter has PyTorch the reason is one line naming
`--python` and the doctor's install command for this machine's GPU, and the GPU is named from
the inventory. `BenchInterpreters(inventory=..., inspection=...)` takes given answers (tests).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass

from gpuscope.doctor.inputs import DoctorInput
from gpuscope.doctor.rules_torch import rule_not_installed
from gpuscope.doctor.torch_fixes import install_fix
from gpuscope.evidence import LiveSystem, System
from gpuscope.i18n import join, message
from gpuscope.inventory import (
    DEFAULT_INSPECTION_BUDGET_S,
    FrameworkInspection,
    InterpreterAnswer,
    collect_inventory,
    inspect_interpreters,
)
from gpuscope.knowledge.torch_builds import install_command
from gpuscope.knowledge.wheel_choice import shell_word
from gpuscope.model import (
    Framework,
    FrameworkDevice,
    Gpu,
    GpuKind,
    Inventory,
    ProbeState,
    Vendor,
)

GPU_BUILDS = ("rocm", "cuda")
_VENDOR_BUILD = {Vendor.AMD: "rocm", Vendor.NVIDIA: "cuda"}


@dataclass(frozen=True, slots=True)
class BenchInterpreter:
    """The interpreter chosen for a run (None: none has PyTorch) and why, in one line."""

    python: str | None
    reason: str  # "/venv/bin/python (VIRTUAL_ENV): PyTorch 2.5.1+rocm6.2 can use GPU 0 (...)"
    torch_version: str | None = None
    build: str | None = None  # rocm | cuda | cpu
    uses_gpu: bool = False  # its PyTorch can use the chosen GPU
    device: str | None = None  # the chosen device in words: "GPU 0 (AMD Radeon RX 7900 XTX)"
    install_command: str | None = None  # when none has PyTorch: the doctor's command


def _torch(framework_list: Sequence[Framework]) -> Framework | None:
    """The interpreter's torch: inspected, or installed but not inspected (an import that
    failed or ran out of time: `error` says which)."""
    return next((f for f in framework_list if f.name == "torch"), None)


def _inspected(torch: Framework) -> bool:
    return bool(torch.version) and not torch.error


def _torch_device(torch: Framework, device: str) -> FrameworkDevice | None:
    """The device of `torch` the run would use: index N, or the first for "auto"."""
    if device == "cpu" or not torch.devices:
        return None
    if device == "auto":
        return min(torch.devices, key=lambda d: d.index)
    return next((d for d in torch.devices if str(d.index) == device), None)


def _can_use_gpu(torch: Framework, device: str) -> tuple[bool, str]:
    """Whether this torch can run on the chosen GPU, and if not, why (in words)."""
    if torch.build not in GPU_BUILDS:
        return False, message("a {build} build", build=torch.build)
    if torch.gpu_available is False or not torch.devices:
        return False, message("a {build} build that sees no GPU", build=torch.build)
    if _torch_device(torch, device) is None:
        return False, message("a {build} build without a GPU {device}", build=torch.build,
                              device=device)
    if torch.smoke_test and torch.smoke_test != "ok":
        return False, message("its GPU test {result}", result=torch.smoke_test)
    return True, ""


_THE_CPU = message("the CPU")


def _device_words(torch: Framework | None, device: str, gpus: Sequence[Gpu]) -> str:
    if device == "cpu":
        return _THE_CPU
    seen = _torch_device(torch, device) if torch is not None else None
    if seen is not None:
        detail = ", ".join(p for p in (seen.name, seen.arch) if p)
        return f"GPU {seen.index}" + (f" ({detail})" if detail else "")
    gpu = inventory_gpu(gpus, device)
    if gpu is None:
        return message("the CPU (no GPU was found)") if device == "auto" else f"GPU {device}"
    return gpu_words(gpu)


def gpu_words(gpu: Gpu) -> str:
    """A GPU of the inventory in words: "GPU 0 (AMD Radeon RX 6700 XT, gfx1031)"."""
    detail = ", ".join(p for p in (gpu.name, gpu.gfx_target or gpu.compute_capability) if p)
    return f"GPU {gpu.index}" + (f" ({detail})" if detail else "")


def inventory_gpu(gpus: Sequence[Gpu], device: str) -> Gpu | None:
    """The machine's GPU a device request most likely means: "auto" the first discrete
    AMD or NVIDIA GPU (any GPU when there is none), an index the GPU of that index."""
    if device == "cpu" or not gpus:
        return None
    if device != "auto":
        return next((g for g in gpus if str(g.index) == device), None)

    def rank(gpu: Gpu) -> tuple[int, int, int]:
        return (0 if gpu.vendor in _VENDOR_BUILD else 1,
                0 if gpu.kind is not GpuKind.INTEGRATED else 1, gpu.index)

    return min(gpus, key=rank)


def _named(python: str, why: str | None) -> str:
    return f"{python} ({why})" if why else python


def _looked_at(answer: InterpreterAnswer) -> str:
    """An interpreter looked at, and why it was not inspected when it was not (out of time: it
    may well have PyTorch)."""
    status = answer.result.status
    if status.state is ProbeState.OK:
        return _named(answer.choice.python, answer.choice.why)
    reason = status.reason or status.state.value
    if answer.choice.why:
        return message("{python} ({why}; not inspected: {reason})", python=answer.choice.python,
                       why=answer.choice.why, reason=reason)
    return message("{python} (not inspected: {reason})", python=answer.choice.python,
                   reason=reason)


def choose(inspection: FrameworkInspection, gpus: Sequence[Gpu], device: str = "auto",
           install: str | None = None) -> BenchInterpreter:
    """The interpreter to run benchmarks on `device` ("auto", "cpu" or a torch GPU index)
    with, from the inspected ones; `install` is the command that installs PyTorch, named
    when none has it."""
    ranked: list[tuple[int, int, str, str | None, Framework]] = []
    for position, answer in enumerate(inspection.answers):
        torch = _torch(answer.frameworks)
        if torch is None:
            continue
        python = answer.result.executable or answer.choice.python
        if not _inspected(torch):
            rank = 3  # there, but its import failed or took too long to tell what it can do
        elif device == "cpu":
            rank = 0
        else:
            usable, _why = _can_use_gpu(torch, device)
            rank = 0 if usable else 1 if torch.build == "cpu" else 2
        ranked.append((rank, position, python, answer.choice.why, torch))
    if not ranked:
        where = _device_words(None, device, gpus)
        looked = join(", ", [_looked_at(a) for a in inspection.answers]) or message("none")
        how = (message("install it with: {command}", command=install) if install
               else message("install PyTorch"))
        return BenchInterpreter(
            None, message("no interpreter inspected has PyTorch to run the benchmarks on "
                          "{device} (looked at: {looked}); {how}, or name one that has it with "
                          "--python PATH", device=where, looked=looked, how=how),
            device=where, install_command=install)
    rank, _position, python, why, torch = min(ranked, key=lambda r: (r[0], r[1]))
    if rank == 3:
        error = torch.error or message("no version")
        text = (message("{python}: PyTorch {version} is installed but could not be inspected "
                        "({error}); the benchmarks try it", python=_named(python, why),
                        version=torch.version, error=error) if torch.version else
                message("{python}: PyTorch is installed but could not be inspected ({error}); "
                        "the benchmarks try it", python=_named(python, why), error=error))
        return BenchInterpreter(python, text, torch.version, None, False,
                                _device_words(None, device, gpus))
    where = _device_words(torch, device, gpus)
    build = f"{torch.build} {torch.build_version}" if torch.build_version else torch.build
    what = f"PyTorch {torch.version} ({build})"
    if device == "cpu" or (device == "auto" and not gpus and not torch.devices):
        text = message("{what} runs the benchmarks on {device}", what=what,
                       device=_THE_CPU if device == "cpu" else where)
        where = _THE_CPU
    elif rank == 0:
        text = message("{what} can use {device}", what=what, device=where)
    else:
        _usable, why_not = _can_use_gpu(torch, device)
        wanted = _device_words(None, device, gpus)
        text = (message("{what} is {why_not}, and no interpreter inspected has a PyTorch that "
                        "can use {device}, so the benchmarks run on the CPU", what=what,
                        why_not=why_not, device=wanted) if rank == 1 else
                message("{what} is the only PyTorch found, but it cannot use {device}: "
                        "{why_not}", what=what, device=wanted, why_not=why_not))
        where = _THE_CPU if rank == 1 else where
    return BenchInterpreter(python, message("{python}: {text}", python=_named(python, why),
                                            text=text), torch.version,
                            torch.build, rank == 0 and device != "cpu", where)


def install_line(inventory: Inventory, inspection: FrameworkInspection | None = None,
                 python: str | None = None, python_version: str | None = None,
                 device: str = "auto") -> str:
    """The doctor's command that installs PyTorch for this machine's GPU, as one line that
    runs as pasted: into `python` when given, else into the interpreter the doctor would
    pick; the CPU wheel when no GPU of a known vendor is there."""
    interpreters = inspection.interpreters if inspection is not None else ()
    data = DoctorInput(inventory, inspection.frameworks if inspection is not None else (),
                       interpreters=interpreters)
    if python is None:
        finding = next(iter(rule_not_installed(data)), None)
        if finding is not None and finding.fix_commands:
            return " && ".join(finding.fix_commands)
        inspected = next((i for i in interpreters if i.inspected), None)
        if inspected is not None:
            python = inspected.executable or inspected.python
            python_version = inspected.python_version
    gpu = inventory_gpu(inventory.gpus, device)
    if gpu is not None and gpu.vendor in _VENDOR_BUILD:
        fix = install_fix(data, gpu.vendor, python, python_version, replace=False)
        if fix.commands:
            return " && ".join(fix.commands)
    interpreter = shell_word(python) if python else "python3"
    return install_command("cpu", python=interpreter) or f"{interpreter} -m pip install torch"


class BenchInterpreters:
    """The interpreters the doctor inspects by default, inspected once when first asked, and
    the choice among them. Thread-safe; `inventory` and `inspection` replace the live ones."""

    def __init__(self, system: System | None = None, own_python: str = sys.executable,
                 added: Sequence[str] | None = None, *, inventory: Inventory | None = None,
                 inspection: FrameworkInspection | None = None,
                 budget_s: float = DEFAULT_INSPECTION_BUDGET_S) -> None:
        self._system = system
        self._own = own_python
        self._added = added
        self._inventory = inventory
        self._inspection = inspection
        self._budget_s = budget_s
        self._lock = threading.Lock()

    def _live(self) -> System:
        if self._system is None:
            self._system = LiveSystem()
        return self._system

    def inventory(self) -> Inventory:
        with self._lock:
            if self._inventory is None:
                self._inventory = collect_inventory(self._live())
            return self._inventory

    def inspection(self) -> FrameworkInspection:
        from gpuscope.config import added_interpreters
        from gpuscope.probes.python_envs import default_interpreters

        with self._lock:
            if self._inspection is None:
                system = self._live()
                added = self._added if self._added is not None else added_interpreters()
                choices = default_interpreters(system, self._own, added)
                self._inspection = inspect_interpreters(system, choices, self._budget_s)
            return self._inspection

    def choose(self, device: str = "auto") -> BenchInterpreter:
        inventory, inspection = self.inventory(), self.inspection()
        pick = choose(inspection, inventory.gpus, device)
        if pick.python is not None:
            return pick
        return choose(inspection, inventory.gpus, device,
                      install_line(inventory, inspection, device=device))

    def no_torch_line(self, python: str, python_version: str | None = None,
                      device: str = "auto", why: str | None = None) -> str:
        """One line for a named interpreter that cannot import torch: the GPU it was meant
        for, and the command that installs PyTorch into it."""
        inventory = self.inventory()
        where = _device_words(None, device, inventory.gpus)
        command = install_line(inventory, None, python, python_version, device)
        if why:
            return message("{python} has no PyTorch ({why}), so nothing ran on {device}; install "
                           "it with: {command}, or name an interpreter that has it with --python "
                           "PATH", python=python, why=why, device=where, command=command)
        return message("{python} has no PyTorch, so nothing ran on {device}; install it with: "
                       "{command}, or name an interpreter that has it with --python PATH",
                       python=python, device=where, command=command)
