"""The fixes of the framework findings: which PyTorch to install on this machine and the
shell lines that install it into the right interpreter, and the lines that repeat a failed
test. Every line is complete and runnable as pasted (no prose, no placeholders)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from gpuscope.doctor.inputs import DoctorInput
from gpuscope.i18n import join, message
from gpuscope.knowledge.wheel_choice import (
    choose_cuda_wheel,
    choose_rocm_wheel,
    shell_word,
    windows_amd_route,
)
from gpuscope.model import Framework, Gpu, GpuKind, Layer, Vendor

# Where PyTorch documents its ROCm (HIP) and CUDA semantics: the public page behind the
# generic advice of a failed test.
PYTORCH_HIP_URL = "https://pytorch.org/docs/stable/notes/hip.html"
PYTORCH_CUDA_URL = "https://pytorch.org/docs/stable/notes/cuda.html"
_ABSOLUTE = re.compile(r"/|[A-Za-z]:\\")
# Layers whose sighting proves a GPU can compute, per vendor.
COMPUTE_LAYERS = {Vendor.AMD: (Layer.KFD, Layer.ROCM), Vendor.NVIDIA: (Layer.NVML,)}
# Where a fix makes a virtual environment when the interpreter is a distribution's own (PEP
# 668: its pip refuses to install), and that environment's Python, as shell words.
VENV_DIR = '"$HOME/venvs/torch"'
VENV_PYTHON = '"$HOME/venvs/torch/bin/python"'
PEP_668_URL = "https://peps.python.org/pep-0668/"


@dataclass(frozen=True, slots=True)
class InstallFix:
    """Which PyTorch to install, in words, as shell lines, and the pages behind it."""

    fix: str
    commands: tuple[str, ...]
    sources: tuple[str, ...]
    covers_target: bool | None = None


def interpreter_for(data: DoctorInput, python: str | None) -> str:
    """The interpreter a command should run: the inspected one when its path is known (so pip
    installs into that environment), else the usual command name of the platform."""
    if python and _ABSOLUTE.match(python):
        return python
    return "python" if data.os == "windows" else "python3"


def best_gpu(data: DoctorInput, vendor: Vendor) -> Gpu | None:
    """The GPU of a vendor a framework is most likely meant for: a discrete one a compute
    layer sees, then any discrete one, then any."""
    gpus = data.gpus_of(vendor)
    layers = COMPUTE_LAYERS.get(vendor, ())

    def rank(gpu: Gpu) -> tuple[int, int]:
        return (0 if gpu.kind is not GpuKind.INTEGRATED else 1,
                0 if any(layer in gpu.seen_by for layer in layers) else 1)

    return min(gpus, key=rank) if gpus else None


def install_fix(data: DoctorInput, vendor: Vendor, python: str | None,
                python_version: str | None = None, *, replace: bool,
                compute_capability: str | None = None) -> InstallFix:
    """The PyTorch build for this machine's `vendor` GPU and stack, installed into `python`;
    `replace` removes the torch there first. `compute_capability` stands in for the GPU's
    when only an error message names it."""
    interpreter = interpreter_for(data, python)
    gpu = best_gpu(data, vendor)
    stack = data.inventory.stack
    if vendor is Vendor.AMD and data.os == "windows":
        route = windows_amd_route(interpreter)
        return InstallFix(route.note, route.commands, route.urls)
    if vendor is Vendor.AMD:
        choice = choose_rocm_wheel(stack.rocm_version, gpu.gfx_target if gpu else None,
                                   python_version)
        what = message("the PyTorch build for ROCm {version}", version=choice.flavour)
    else:
        choice = choose_cuda_wheel(stack.nvidia_driver_version,
                                   (gpu.compute_capability if gpu else None)
                                   or compute_capability, data.os, python_version,
                                   driver_cuda=stack.cuda_driver_version)
        what = (message("the PyTorch build for CUDA {version}", version=choice.flavour)
                if choice.flavour else message("a CUDA build of PyTorch"))
    if _externally_managed(data, python):
        commands = choice.commands(VENV_PYTHON, as_word=True)
        if not commands:
            return InstallFix(choice.note, commands, choice.urls, choice.covers_target)
        words = message(
            "{python} belongs to the distribution, and its pip refuses to install (PEP 668): "
            "make a virtual environment in ~/venvs/torch (on Debian and Ubuntu this needs "
            "the python3-venv package) and install {build} there; run your programs with "
            "~/venvs/torch/bin/python.", python=interpreter, build=what)
        return InstallFix(join(" ", [words, choice.note]),
                          (f"{shell_word(interpreter)} -m venv {VENV_DIR}", *commands),
                          (*choice.urls, PEP_668_URL), choice.covers_target)
    commands = choice.commands(interpreter, replace=replace)
    if not commands:
        return InstallFix(choice.note, commands, choice.urls, choice.covers_target)
    return InstallFix(join(" ", [_install_sentence(what, interpreter, choice.index_url),
                                 choice.note]),
                      commands, choice.urls, choice.covers_target)


def _externally_managed(data: DoctorInput, python: str | None) -> bool:
    """Whether the inspected interpreter `python` said pip may not install into it."""
    if not python:
        return False
    return any(i.externally_managed for i in data.interpreters
               if python in (i.python, i.executable))


def _install_sentence(what: str, interpreter: str, index_url: str | None) -> str:
    """"Install <what> [into <interpreter>] [from <index>].": the bare command names need no
    "into"."""
    into = interpreter not in ("python", "python3")
    if into and index_url:
        return message("Install {build} into {python} from {index_url}.", build=what,
                       python=interpreter, index_url=index_url)
    if into:
        return message("Install {build} into {python}.", build=what, python=interpreter)
    if index_url:
        return message("Install {build} from {index_url}.", build=what, index_url=index_url)
    return message("Install {build}.", build=what)


def repeat_test_command(data: DoctorInput, torch: Framework, device: str | None) -> str:
    """The smoke test's operation as one line, so that the full error shows."""
    interpreter = shell_word(interpreter_for(data, torch.python))
    target = device if device and re.fullmatch(r"[a-z_]+:\d+", device) else "cuda"
    program = (f'import torch; x = torch.randn(256, 256, device="{target}"); '
               "print((x @ x).sum().item())")
    return f"{interpreter} -c '{program}'"


def check_command(data: DoctorInput, torch: Framework) -> str:
    """A line that prints whether PyTorch sees a GPU, and its own error when it does not."""
    interpreter = shell_word(interpreter_for(data, torch.python))
    program = ("import torch; print(torch.cuda.is_available(), torch.cuda.device_count()); "
               'torch.zeros(1, device="cuda")')
    return f"{interpreter} -c '{program}'"


def hiding_variables(data: DoctorInput, names: Sequence[str]) -> list[str]:
    """The visible-devices variables set so that they hide every GPU ("", "-1", ...)."""
    environment = data.inventory.stack.environment
    hidden = []
    for name in names:
        value = environment.get(name)
        if value is not None and value.strip().lower() in ("", "-1", "none", "nodevfiles"):
            hidden.append(name)
    return hidden
