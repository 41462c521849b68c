"""What the doctor judges, gathered once for every command that asks it (`gpuscope doctor`,
`gpuscope snapshot`, `gpuscope report`): this machine, a snapshot or pasted outputs, and the
frameworks of the Python interpreters to inspect. Qt-free; the CLI and the report only say
what went wrong in their own words."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gpuscope.doctor import DoctorInput
from gpuscope.evidence import System
from gpuscope.i18n import message
from gpuscope.inventory import FrameworkInspection
from gpuscope.model import Inventory, LlmRuntime
from gpuscope.probes.python_envs import InterpreterChoice

Progress = Callable[[str], None]


class UnusableInterpreterError(Exception):
    """An interpreter named by the user (--python) cannot be run at all (one line)."""


@dataclass(frozen=True, slots=True)
class MachineInput:
    """The doctor's input, and where it came from."""

    data: DoctorInput
    system: System | None = None  # None for pasted outputs
    imported: Any = None  # the ImportedMachine of pasted outputs
    refused: tuple[str, ...] = ()  # pasted files that could not be read: no verdict then
    ignored: tuple[str, ...] = ()  # pasted files in no known format beside known outputs


def _quiet(_text: str) -> None:
    pass


def interpreter_choices(system: System, pythons: Sequence[str] | None
                        ) -> tuple[InterpreterChoice, ...]:
    """The interpreters whose frameworks are inspected, each with why: those named in
    `pythons`, or with None the default set (gpuscope's own, python3 and python on PATH, the
    active virtual and conda environments, those added on the Frameworks page)."""
    from gpuscope.config import added_interpreters
    from gpuscope.probes.python_envs import default_interpreters, given_interpreters

    if pythons is None:
        return default_interpreters(system, sys.executable, added_interpreters())
    return given_interpreters(pythons) if pythons else ()


def inspect_frameworks(system: System, pythons: Sequence[str] | None,
                       progress: Progress = _quiet) -> FrameworkInspection:
    """The framework probe on `interpreter_choices`, in parallel: the default set bounded to
    20 s in all, interpreters named in `pythons` to the usual per-interpreter limit. Raises
    UnusableInterpreterError for a named interpreter that cannot be run at all."""
    from gpuscope.inventory import (
        DEFAULT_FRAMEWORK_TIMEOUT_S,
        DEFAULT_INSPECTION_BUDGET_S,
        inspect_interpreters,
    )

    choices = interpreter_choices(system, pythons)
    if choices:
        progress(message("inspecting the frameworks of {count} Python interpreter(s)",
                         count=len(choices)))
    budget_s = DEFAULT_INSPECTION_BUDGET_S if pythons is None else DEFAULT_FRAMEWORK_TIMEOUT_S
    inspection = inspect_interpreters(system, choices, budget_s)
    if pythons:
        for python, reason in inspection.unusable():
            raise UnusableInterpreterError(f"--python {python}: {reason}")
    return inspection


def llm_runtimes(system: System, inventory: Inventory,
                 inspection: FrameworkInspection | None = None) -> tuple[LlmRuntime, ...]:
    """The local LLM runtimes, each found or not with why, and the GPUs each would use."""
    from gpuscope.inventory.llm_runtimes import resolve_runtimes
    from gpuscope.probes.llm_runtimes import probe_llm_runtimes

    runtimes = probe_llm_runtimes(
        system, inspection.interpreters if inspection is not None else (),
        inspection.frameworks if inspection is not None else ())
    return resolve_runtimes(runtimes, inventory.gpus)


def machine_input(*, system: System | None = None, imports: Sequence[str] = (),
                  pythons: Sequence[str] | None = None,
                  progress: Progress = _quiet) -> MachineInput:
    """The doctor's input for `system` (this machine or a snapshot) with the frameworks of
    `pythons` (None: the default set; (): none), or for the pasted outputs `imports` (their
    frameworks are those the outputs show). Raises InputFileError for pasted files that
    cannot be taken at all, UnusableInterpreterError as `inspect_frameworks`."""
    if imports:
        from gpuscope.importer import import_files

        progress(message("reading {count} pasted output(s)", count=len(imports)))
        machine = import_files(list(imports))
        refused = tuple(r.reason for r in machine.refused)
        ignored = () if refused else tuple(r.reason for r in machine.rejected)
        from gpuscope.inventory.llm_runtimes import resolve_runtimes

        pasted = resolve_runtimes(machine.llm_runtimes, machine.inventory.gpus)
        return MachineInput(DoctorInput(machine.inventory, machine.frameworks,
                                        machine.signals, llm_runtimes=pasted),
                            imported=machine, refused=refused, ignored=ignored)
    if system is None:
        raise ValueError("machine_input needs a system or pasted outputs")
    from gpuscope.inventory import collect_inventory

    inventory = collect_inventory(system)
    inspection = inspect_frameworks(system, pythons, progress)
    progress(message("looking for local LLM runtimes"))
    runtimes = llm_runtimes(system, inventory, inspection)
    return MachineInput(DoctorInput(inventory, inspection.frameworks,
                                    interpreters=inspection.interpreters,
                                    llm_runtimes=runtimes), system=system)
