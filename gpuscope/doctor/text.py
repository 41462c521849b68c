"""The readable `gpuscope doctor` report: per GPU, one line per layer with a mark and the fix."""

from __future__ import annotations

from collections.abc import Sequence

from gpuscope.doctor.layers import layers_for
from gpuscope.doctor.rules import DoctorInput
from gpuscope.doctor.verdicts import FrameworkVerdict, framework_verdicts
from gpuscope.model import Finding, OriginKind, Severity

_SEVERITY_MARK = {Severity.ERROR: "✗", Severity.WARNING: "!", Severity.INFO: "i",
                  Severity.OK: "✓"}


def fix_lines(finding: Finding | FrameworkVerdict, indent: str) -> list[str]:
    """The fix in words, then its commands one per line, as they are to be pasted."""
    lines = [f"{indent}fix: {finding.fix}"] if finding.fix else []
    for number, command in enumerate(finding.fix_commands):
        lines.append(f"{indent}{'run: ' if number == 0 else '     '}{command}")
    return lines


def _finding_lines(finding: Finding) -> list[str]:
    lines = [f"  {_SEVERITY_MARK[finding.severity]} [{finding.id}] {finding.title}"]
    if finding.detail:
        lines.append(f"      {finding.detail}")
    lines += fix_lines(finding, "      ")
    if finding.evidence:
        lines.append(f"      evidence: {', '.join(ref.label() for ref in finding.evidence)}")
    return lines


def format_doctor_text(data: DoctorInput, findings: Sequence[Finding]) -> str:
    inventory = data.inventory
    lines: list[str] = []
    origin = inventory.origin
    if origin.kind is not OriginKind.LIVE:
        lines += [f"*** {origin.label}: not this machine's live state ***", ""]
    host = inventory.host
    platform = data.os if data.os != "unknown" else "unknown OS"
    lines.append(f"Platform: {host.distro or platform}"
                 + (f" ({data.os})" if host.distro and data.os != "linux" else ""))
    lines.append("")
    if not inventory.gpus:
        # One sentence about the GPUs: when a finding explains why none is visible (a
        # container without the device nodes, a user without the groups), say so here.
        explained = any(f.severity in (Severity.ERROR, Severity.WARNING) for f in findings)
        lines += ["No GPU is visible here; the findings below say why." if explained
                  else "No GPU found.", ""]
    for gpu in inventory.gpus:
        target = gpu.gfx_target or (f"sm {gpu.compute_capability}" if gpu.compute_capability
                                    else "")
        lines.append(f"GPU {gpu.index}: {gpu.name or 'unknown GPU'}"
                     + (f" ({target})" if target else ""))
        for row in layers_for(data, findings, gpu):
            lines.append(f"  {row.state.mark} {row.name:<26} {row.text}")
            if row.fix_source is not None:
                lines += fix_lines(row.fix_source, f"  {'':<29}")
        lines.append("")
    for framework in data.frameworks:
        if framework.error:
            lines.append(f"{framework.name} ({framework.python or '?'}): {framework.error}")
        elif framework.version:
            sees = {True: "sees a GPU", False: "sees no GPU", None: "GPU not checked"}[
                framework.gpu_available]
            build = f"{framework.build} {framework.build_version or ''}".strip()
            lines.append(f"{framework.name} {framework.version} [{build}] in "
                         f"{framework.python or '?'}: {sees}")
            if framework.name == "torch":  # the doctor's verdict per GPU, as the window's
                lines += [f"  GPU {v.gpu}: {v.text}"
                          for v in framework_verdicts(data, findings, framework)]
    if data.frameworks:
        lines.append("")
    shown = [f for f in findings if f.severity is not Severity.OK]
    if shown:
        lines.append("Findings")
    elif not inventory.gpus:  # nothing was checked: "nothing wrong" would claim too much
        lines.append("Findings: none, as no GPU was found to check")
    else:
        lines.append("Findings: nothing wrong found")
    for finding in shown:
        lines += _finding_lines(finding)
    errors = sum(1 for f in findings if f.severity is Severity.ERROR)
    warnings = sum(1 for f in findings if f.severity is Severity.WARNING)
    lines += ["", f"{errors} error(s), {warnings} warning(s)."]
    return "\n".join(lines) + "\n"
