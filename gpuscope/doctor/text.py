"""The readable `gpuscope doctor` report: per GPU, one line per layer with a mark and the fix."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from gpuscope.doctor.layers import layers_for
from gpuscope.doctor.llm_summary import runtime_line
from gpuscope.doctor.rules import DoctorInput
from gpuscope.doctor.verdicts import FrameworkVerdict, framework_verdicts
from gpuscope.i18n import localise, message
from gpuscope.model import Finding, OriginKind, Severity

_SEVERITY_MARK = {Severity.ERROR: "✗", Severity.WARNING: "!", Severity.INFO: "i",
                  Severity.OK: "✓"}


def fix_lines(finding: Finding | FrameworkVerdict, indent: str) -> list[str]:
    """The fix in words, then its commands one per line, as they are to be pasted."""
    lines = ([indent + localise(message("fix: {fix}", fix=finding.fix))] if finding.fix
             else [])
    run = localise(message("run: "))
    for number, command in enumerate(finding.fix_commands):
        lines.append(f"{indent}{run if number == 0 else ' ' * display_width(run)}{command}")
    return lines


def display_width(text: str) -> int:
    """Columns `text` takes in a terminal: wide (CJK) characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)


def padded(text: str, width: int) -> str:
    return text + " " * max(0, width - display_width(text))


def _finding_lines(finding: Finding) -> list[str]:
    lines = [f"  {_SEVERITY_MARK[finding.severity]} [{finding.id}] {localise(finding.title)}"]
    if finding.detail:  # a detail of several parts (the routes of a GPU) has a line each
        lines += [f"      {part}" for part in localise(finding.detail).splitlines()]
    lines += fix_lines(finding, "      ")
    if finding.evidence:
        lines.append("      " + localise(message(
            "evidence: {files}", files=", ".join(ref.label() for ref in finding.evidence))))
    return lines


def format_doctor_text(data: DoctorInput, findings: Sequence[Finding]) -> str:
    inventory = data.inventory
    lines: list[str] = []
    origin = inventory.origin
    if origin.kind is not OriginKind.LIVE:
        lines += [localise(message("*** {origin}: not this machine's live state ***",
                                   origin=origin.label)), ""]
    host = inventory.host
    platform = data.os if data.os != "unknown" else localise(message("unknown OS"))
    lines.append(localise(message("Platform: {platform}", platform=(
        f"{host.distro or platform}"
        + (f" ({data.os})" if host.distro and data.os != "linux" else "")))))
    lines.append("")
    if not inventory.gpus:
        # One sentence about the GPUs: when a finding explains why none is visible (a
        # container without the device nodes, a user without the groups), say so here.
        explained = any(f.severity in (Severity.ERROR, Severity.WARNING) for f in findings)
        lines += [localise(message("No GPU is visible here; the findings below say why.")
                           if explained else message("No GPU found.")), ""]
    for gpu in inventory.gpus:
        target = gpu.gfx_target or (f"sm {gpu.compute_capability}" if gpu.compute_capability
                                    else "")
        name = gpu.name or localise(message("unknown GPU"))
        lines.append(localise(message("GPU {index}: {name}", index=gpu.index, name=(
            name + (f" ({target})" if target else "")))))
        for row in layers_for(data, findings, gpu):
            lines.append(f"  {row.state.mark} {padded(localise(row.name), 26)} "
                         f"{localise(row.text)}")
            if row.fix_source is not None:
                lines += fix_lines(row.fix_source, f"  {'':<29}")
        lines.append("")
    for framework in data.frameworks:
        if framework.error:
            lines.append(f"{framework.name} ({framework.python or '?'}): {framework.error}")
        elif framework.version:
            sees = localise({True: message("sees a GPU"), False: message("sees no GPU"),
                             None: message("GPU not checked")}[framework.gpu_available])
            build = f"{framework.build} {framework.build_version or ''}".strip()
            lines.append(f"{framework.name} {framework.version} [{build}] in "
                         f"{framework.python or '?'}: {sees}")
            if framework.name == "torch":  # the doctor's verdict per GPU, as the window's
                lines += ["  " + localise(message("GPU {index}: {name}", index=v.gpu,
                                                  name=v.text))
                          for v in framework_verdicts(data, findings, framework)]
    if data.frameworks:
        lines.append("")
    if data.llm_runtimes:
        lines.append(localise(message("LLM runtimes")))
        lines += ["  " + localise(runtime_line(r, inventory.gpus)) for r in data.llm_runtimes]
        lines.append("")
    shown = [f for f in findings if f.severity is not Severity.OK]
    if shown:
        lines.append(localise(message("Findings")))
    elif not inventory.gpus:  # nothing was checked: "nothing wrong" would claim too much
        lines.append(localise(message("Findings: none, as no GPU was found to check")))
    else:
        lines.append(localise(message("Findings: nothing wrong found")))
    for finding in shown:
        lines += _finding_lines(finding)
    errors = sum(1 for f in findings if f.severity is Severity.ERROR)
    warnings = sum(1 for f in findings if f.severity is Severity.WARNING)
    lines += ["", localise(message("{errors} error(s), {warnings} warning(s).", errors=errors,
                                   warnings=warnings))]
    return "\n".join(lines) + "\n"
