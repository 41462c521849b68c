"""Windows rules: the routes an AMD or NVIDIA GPU has to PyTorch and local LLMs on Windows itself
(`windows.pytorch_route`), whether the HIP SDK is there (`windows.hip_sdk_missing`) and covers the
GPU (`windows.rocm_gpu_unsupported`), and whether the driver is new enough for a route
(`windows.driver_too_old`).

They read the Windows probes' stack facts (`Stack.extras`: `hip_sdk_version`, `hip_path`,
`amd_driver_version`, `wsl_distros`), the GPUs' gfx targets (from hipInfo, or derived from the
PCI device id with the device table) and the inspected interpreters. Commands are PowerShell
lines for the Windows-native routes and `wsl` lines for WSL, each runnable as pasted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from gpuscope.doctor.inputs import DoctorInput, gpu_refs, version_tuple
from gpuscope.i18n import join, message
from gpuscope.knowledge.cuda import min_driver_for_cuda
from gpuscope.knowledge.devices import identify_device
from gpuscope.knowledge.distros import wsl_gpu_support
from gpuscope.knowledge.rocm_support import known_rocm_releases
from gpuscope.knowledge.torch_builds import wheel_table
from gpuscope.knowledge.wheel_choice import choose_cuda_wheel
from gpuscope.knowledge.windows_support import (
    DriverFloor,
    HipSdkAnswer,
    adrenalin_older_than,
    hip_sdk_component,
    powershell_python,
    python_series,
    windows_support,
)
from gpuscope.model import (
    DEVICE_TABLE_SOURCE,
    EvidenceRef,
    Finding,
    Framework,
    FrameworkRef,
    Gpu,
    GpuKind,
    Severity,
    Vendor,
)

# Shows the driver of every display adapter as Windows lists it, after an update.
DRIVER_CHECK_COMMAND = "Get-CimInstance Win32_VideoController | Select-Object Name, DriverVersion"
# Lists the GPUs the HIP SDK's runtime sees (the new HIP_PATH shows in a new terminal).
HIP_INFO_COMMAND = '& "$env:HIP_PATH\\bin\\hipInfo.exe"'
# The Python the wheels' lists both have, for an interpreter outside them.
_FALLBACK_PYTHON = "3.12"


@dataclass(frozen=True, slots=True)
class _Route:
    """One route for one GPU: open (with its caveats and commands) or closed (with why)."""

    name: str
    open: bool
    text: str
    commands: tuple[str, ...] = ()
    urls: tuple[str, ...] = ()


def rule_windows(data: DoctorInput) -> list[Finding]:
    if data.os != "windows":
        return []
    findings: list[Finding] = []
    amd = _amd_gpus(data)
    if amd and (missing := _hip_sdk_missing(data, amd)) is not None:
        findings.append(missing)
    for gpu in amd:
        findings += _amd_findings(data, gpu)
    for gpu in data.gpus_of(Vendor.NVIDIA):
        findings += _nvidia_findings(data, gpu)
    return findings


# ----------------------------------------------------------------------------- inputs


def _amd_gpus(data: DoctorInput) -> list[Gpu]:
    """The AMD GPUs to advise on: an iGPU beside a discrete GPU is left out."""
    amd = data.gpus_of(Vendor.AMD)
    if any(g.kind is GpuKind.DISCRETE for g in amd):
        return [g for g in amd if g.kind is not GpuKind.INTEGRATED]
    return amd


def _extra(data: DoctorInput, key: str) -> str | None:
    value = data.inventory.stack.extras.get(key)
    text = str(value).strip() if value is not None and not isinstance(value, bool) else ""
    return text or None


def _gfx_target(gpu: Gpu) -> tuple[str | None, tuple[EvidenceRef, ...]]:
    """The GPU's gfx target and its evidence: the one a runtime reported, else the device
    table's for its PCI id (the registry gives only the id)."""
    if gpu.gfx_target:
        return gpu.gfx_target, gpu_refs(gpu, "gfx_target", "name")
    if gpu.pci_vendor_id and gpu.pci_device_id:
        identity = identify_device(gpu.pci_vendor_id, gpu.pci_device_id,
                                   vram_total_bytes=gpu.vram_total_bytes)
        if identity is not None and identity.gfx_target:
            return identity.gfx_target, (
                EvidenceRef(f"{DEVICE_TABLE_SOURCE}: {gpu.pci_device_id}"),)
    return None, gpu_refs(gpu, "name")


def _torch(data: DoctorInput) -> Framework | None:
    builds = data.torch_builds()
    return builds[0] if builds else None


def _interpreter(data: DoctorInput) -> tuple[str | None, str | None]:
    """The interpreter path and Python version the commands are for: the one with PyTorch,
    else the first one inspected."""
    torch = _torch(data)
    if torch is not None:
        return torch.python, torch.python_version
    for interpreter in data.interpreters:
        if interpreter.inspected:
            return interpreter.executable or interpreter.python, interpreter.python_version
    return None, None


def _python_for(data: DoctorInput, versions: Sequence[str]) -> tuple[str, str | None]:
    """The PowerShell interpreter word for a route published for `versions`, and a note when
    the inspected Python is not one of them (the py launcher then picks a listed one)."""
    path, version = _interpreter(data)
    series = python_series(version)
    if series is None or series in versions:
        return powershell_python(path), None
    wanted = _FALLBACK_PYTHON if _FALLBACK_PYTHON in versions else versions[-1]
    return f"py -{wanted}", message(
        "The inspected Python is {version}; the packages exist for Python {listed}, so the "
        "command asks the py launcher for Python {wanted} (install it from python.org if it "
        "is missing).", version=series, listed=_span(versions), wanted=wanted)


def _span(versions: Sequence[str]) -> str:
    return versions[0] if len(versions) == 1 else message(
        "{first} to {last}", first=versions[0], last=versions[-1])


def _has_wsl_distro(data: DoctorInput) -> bool:
    listed = _extra(data, "wsl_distros") or ""
    names = [n.strip() for n in re.split(r"[,;\n]", listed) if n.strip()]
    return any(not n.lower().startswith("docker-desktop") for n in names)


def _sources(*groups: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(url for group in groups for url in group if url))


# ----------------------------------------------------------------------------- AMD


def _hip_sdk_missing(data: DoctorInput, amd: Sequence[Gpu]) -> Finding | None:
    """Only where the Windows probes looked for the SDK (a live or replayed machine, or a
    reason recorded for its absence): a pasted dxdiag says nothing about it."""
    stack = data.inventory.stack
    if _extra(data, "hip_sdk_version") or _extra(data, "hip_path"):
        return None
    reason = stack.missing_reasons.get("hip_sdk_version")
    if reason is None and data.imported:
        return None
    table = windows_support()
    listed = sorted({release for gpu in amd if (target := _gfx_target(gpu)[0])
                     for release in _sdk_releases(target)}, key=lambda r: version_tuple(r) or ())
    fix = [message("Install it only if you need it, from AMD's HIP SDK page; a new terminal "
                   "then has HIP_PATH, and the command below lists the GPUs the SDK's runtime "
                   "sees.")]
    if listed:
        fix.append(message("The HIP SDK releases whose list gives this GPU the SDK libraries: "
                           "{releases}.", releases=", ".join(listed)))
    return Finding(
        "windows.hip_sdk_missing", Severity.INFO, message("The HIP SDK is not installed"),
        detail=join(" ", [message("The Windows probes say: {reason}.",
                                  reason=reason.rstrip(". ")) if reason else
                          message("No HIP SDK was found: HIP_PATH is not set and there is no "
                                  "version folder under C:\\Program Files\\AMD\\ROCm."),
                          table.hip_sdk.caveat]),
        fix=join(" ", fix), fix_commands=(HIP_INFO_COMMAND,),
        sources=table.hip_sdk.urls,
    )


def _sdk_releases(target: str) -> list[str]:
    """The HIP SDK releases of the table whose list gives `target` the SDK libraries."""
    return [r for r in known_rocm_releases("windows")
            if hip_sdk_component(target, r).component == "runtime+sdk"]


def _amd_findings(data: DoctorInput, gpu: Gpu) -> list[Finding]:
    target, evidence = _gfx_target(gpu)
    name = gpu.name or target or message("This GPU")
    routes = _amd_routes(data, target)
    findings = [_route_finding(name, gpu, routes, evidence)]
    if target is not None:
        unsupported = _unsupported(data, gpu, name, target, routes, evidence)
        if unsupported is not None:
            findings.append(unsupported)
    too_old = _adrenalin_too_old(data, gpu, name, target)
    if too_old is not None:
        findings.append(too_old)
    return findings


def _amd_routes(data: DoctorInput, target: str | None) -> list[_Route]:
    table = windows_support()
    return [_rocm_wheel_route(data, target), _wsl_route(data, target),
            _directml_route(data), _Route(table.vulkan_llama_cpp.info.title, True,
                                          table.vulkan_llama_cpp.info.caveat,
                                          table.vulkan_llama_cpp.commands(),
                                          table.vulkan_llama_cpp.info.urls)]


def _rocm_wheel_route(data: DoctorInput, target: str | None) -> _Route:
    wheels = windows_support().rocm_wheels
    title = wheels.info.title
    if target is None:
        return _Route(title, False, message("The GPU's gfx target is not known, so whether "
                                            "the wheels carry kernels for it is not known."),
                      urls=wheels.info.urls)
    coverage = wheels.coverage(target)
    if coverage == "none":
        return _Route(title, False, message("They carry no kernels for {target}.",
                                            target=target), urls=wheels.info.urls)
    python, python_note = _python_for(data, wheels.python)
    texts = [wheels.info.caveat]
    if coverage == "untested":
        texts.append(message("AMD publishes them for {target} but has not yet tested that on "
                             "Windows.", target=target))
    if python_note:
        texts.append(python_note)
    texts.append(_floor_text(wheels.min_adrenalin))
    texts += _installed_torch(data, "rocm")
    torch = _torch(data)
    working = torch is not None and torch.build == "rocm" and torch.gpu_available is True
    return _Route(title, True, join(" ", texts),
                  () if working else wheels.commands(target, python),
                  _sources(wheels.info.urls, wheels.min_adrenalin.urls))


def _wsl_route(data: DoctorInput, target: str | None) -> _Route:
    wsl = windows_support().wsl
    verdict = wsl_gpu_support(target)
    if verdict.supported is False:
        return _Route(wsl.info.title, False,
                      message("AMD's WSL lists have never named a {target} GPU: ROCm lists it "
                              "in WSL but work on it hangs or fails.", target=target),
                      urls=_sources(wsl.info.urls, (verdict.source or "",)))
    if target is None:
        listed = message("Whether this GPU is on AMD's WSL list is not known (its gfx target "
                         "is not).")
    elif target in wsl.listed:
        listed = message("{target} GPUs are on AMD's WSL list.", target=target)
    else:
        listed = message("AMD's WSL list names Radeon RDNA3 and newer GPUs per ROCm release: "
                         "check that this card is on the list of the release you install.")
    return _Route(wsl.info.title, True,
                  join(" ", [wsl.info.caveat, listed, _floor_text(wsl.min_adrenalin)]),
                  wsl.commands(_has_wsl_distro(data)),
                  _sources(wsl.info.urls, wsl.min_adrenalin.urls))


def _directml_route(data: DoctorInput) -> _Route:
    directml = windows_support().directml
    python, python_note = _python_for(data, directml.python)
    texts = [directml.info.caveat, *([python_note] if python_note else [])]
    return _Route(directml.info.title, True, join(" ", texts), directml.commands(python),
                  directml.info.urls)


def _floor_text(floor: DriverFloor) -> str:
    return message("It needs AMD Software: Adrenalin Edition {version} or newer.",
                   version=floor.version)


def _installed_torch(data: DoctorInput, build: str) -> list[str]:
    torch = _torch(data)
    if torch is None or torch.build != build:
        return []
    if torch.gpu_available:
        return [message("PyTorch {version} here is such a build and sees a GPU.",
                        version=torch.version)]
    return [message("PyTorch {version} here is such a build but sees no GPU.",
                    version=torch.version)]


def _route_finding(name: str, gpu: Gpu, routes: Sequence[_Route],
                   evidence: tuple[EvidenceRef, ...]) -> Finding:
    table = windows_support()
    lines: list[str] = []
    for route in routes:
        lines.append(message("{route}: open. {text}", route=route.name, text=route.text)
                     if route.open else
                     message("{route}: not open. {text}", route=route.name, text=route.text))
    for layer in table.third_party:
        lines.append(message("{name} (third party, not installed by gpuscope): {status}",
                             name=layer.name, status=layer.status))
    opened = [r for r in routes if r.open and r.commands]
    commands = tuple(dict.fromkeys(c for r in opened for c in r.commands))
    fix = (message("The commands set up the open routes, in the order above: {routes}. Pick "
                   "one; each installs on its own.", routes=join(", ", [r.name for r in opened]))
           if opened else message("No route is open for this GPU on Windows.")
           if not any(r.open for r in routes) else message("Nothing to install."))
    return Finding(
        "windows.pytorch_route", Severity.INFO,
        message("PyTorch and LLM routes for {gpu} on Windows", gpu=name),
        detail=join("\n", lines), fix=fix, fix_commands=commands, gpu=gpu.index,
        evidence=evidence,
        sources=_sources(*(r.urls for r in routes), *(t.urls for t in table.third_party)),
    )


def _unsupported(data: DoctorInput, gpu: Gpu, name: str, target: str, routes: Sequence[_Route],
                 evidence: tuple[EvidenceRef, ...]) -> Finding | None:
    table = windows_support()
    # Without an installed SDK, the newest release whose list says anything of the target
    # tells what installing one would give.
    known = [r for r in reversed(known_rocm_releases("windows"))
             if hip_sdk_component(target, r).component != "unknown"]
    sdk_version = _extra(data, "hip_sdk_version") or (known[0] if known else None)
    answer = hip_sdk_component(target, sdk_version) if sdk_version else None
    sdk_short = answer is not None and answer.component in ("runtime", "none")
    coverage = table.rocm_wheels.coverage(target)
    if not sdk_short and coverage != "none":
        return None
    detail: list[str] = []
    if answer is not None and sdk_short:
        detail += _sdk_sentences(target, sdk_version or "", answer)
    wheels_open = coverage != "none"
    detail.append(
        message("AMD's ROCm PyTorch wheels for Windows carry kernels for {target} and bring "
                "their own runtime, so PyTorch does not need the SDK's libraries.",
                target=target) if wheels_open else
        message("AMD's ROCm PyTorch wheels for Windows carry no kernels for {target}.",
                target=target))
    route = next(r for r in routes if r.name == (table.rocm_wheels.info.title if wheels_open
                                                  else table.directml.info.title))
    fix = (message("Use the ROCm PyTorch wheels (the command below); HIP programs that need "
                   "the SDK's libraries do not run on this GPU with this SDK.")
           if wheels_open else
           message("Use DirectML for PyTorch (the command below) or a Vulkan build of "
                   "llama.cpp for LLMs: the routes listed for this GPU say how. ROCm on Linux "
                   "is the other way."))
    sdk_urls = (answer.verdict.source,) if answer is not None else ()
    return Finding(
        "windows.rocm_gpu_unsupported", Severity.INFO if wheels_open else Severity.WARNING,
        message("{gpu} ({target}) is not fully supported by ROCm on Windows", gpu=name,
                target=target),
        detail=join(" ", detail), fix=fix, fix_commands=route.commands, gpu=gpu.index,
        evidence=evidence, sources=_sources(sdk_urls, route.urls, table.rocm_wheels.info.urls),
    )


def _sdk_sentences(target: str, version: str, answer: HipSdkAnswer) -> list[str]:
    verdict = answer.verdict
    values = {"target": target, "version": version, "release": verdict.release_checked}
    sentences = [
        message("The HIP SDK {version} gives {target} the HIP runtime only, not the SDK's "
                "math libraries (AMD's list for HIP SDK {release}).", **values)
        if answer.component == "runtime" else
        message("{target} is not on AMD's GPU list for HIP SDK {version} (AMD's list for "
                "{release}).", **values)]
    releases = _sdk_releases(target)
    installed = version_tuple(version) or ()
    newer = [r for r in releases if (version_tuple(r) or ()) > installed]
    if newer:
        sentences.append(message("HIP SDK {release} lists it with the SDK libraries.",
                                 release=newer[0]))
    elif releases:
        sentences.append(message("HIP SDK {release} is the last release that lists it with "
                                 "the SDK libraries.", release=releases[-1]))
    return sentences


def _adrenalin_too_old(data: DoctorInput, gpu: Gpu, name: str,
                       target: str | None) -> Finding | None:
    version = _extra(data, "amd_driver_version")
    if version is None:
        return None
    table = windows_support()
    needs: list[tuple[str, DriverFloor]] = []
    if table.rocm_wheels.coverage(target) != "none":
        needs.append((table.rocm_wheels.info.title, table.rocm_wheels.min_adrenalin))
    if wsl_gpu_support(target).supported is not False:
        needs.append((table.wsl.info.title, table.wsl.min_adrenalin))
    old = [(route, floor) for route, floor in needs
           if adrenalin_older_than(version, floor.version)]
    if not old:
        return None
    newest = max((floor for _, floor in old), key=lambda f: version_tuple(f.version) or ())
    detail = [message("{route} needs AMD Software: Adrenalin Edition {minimum} or newer; this "
                      "machine has {version}.", route=route, minimum=floor.version,
                      version=version) for route, floor in old]
    return Finding(
        "windows.driver_too_old", Severity.WARNING,
        message("Adrenalin {version} is too old for ROCm on {gpu}", version=version, gpu=name),
        detail=join(" ", detail),
        fix=message("Update the AMD driver to AMD Software: Adrenalin Edition {minimum} or "
                    "newer from AMD's driver page and restart; the command below then shows "
                    "the driver Windows uses.", minimum=newest.version),
        fix_commands=(DRIVER_CHECK_COMMAND,), gpu=gpu.index,
        evidence=(EvidenceRef("amd_driver_version", text=version),),
        sources=_sources(*(floor.urls for _, floor in old)),
    )


# ----------------------------------------------------------------------------- NVIDIA


def _nvidia_findings(data: DoctorInput, gpu: Gpu) -> list[Finding]:
    table = windows_support()
    stack = data.inventory.stack
    driver = stack.nvidia_driver_version or gpu.driver_version
    path, python_version = _interpreter(data)
    python = powershell_python(path)
    torch = _torch(data)
    choice = choose_cuda_wheel(driver, gpu.compute_capability, "windows", python_version,
                               driver_cuda=stack.cuda_driver_version)
    name = gpu.name or message("This GPU")
    evidence = gpu_refs(gpu, "compute_capability", "name")
    link = FrameworkRef.of(torch) if torch is not None else None
    working = torch is not None and torch.build == "cuda" and torch.gpu_available is True
    commands = () if working else choice.commands(
        python, replace=torch is not None and torch.build != "cuda", as_word=True)
    texts = [table.cuda_wheels.caveat, choice.note]
    if working and torch is not None:
        texts.append(message("PyTorch {version} here is a CUDA build and sees the GPU: nothing "
                             "to install.", version=torch.version))
    elif torch is not None and torch.build != "cuda":
        texts.append(message("PyTorch {version} here is a {build} build: it cannot use this "
                             "GPU; the commands replace it.", version=torch.version,
                             build=torch.build))
    values = {"route": table.cuda_wheels.title, "text": join(" ", texts)}
    findings = [Finding(
        "windows.pytorch_route", Severity.INFO,
        message("PyTorch routes for {gpu} on Windows", gpu=name),
        detail=(message("{route}: open. {text}", **values) if commands or working else
                message("{route}: not open. {text}", **values)),
        fix=(message("Install the CUDA build of PyTorch with the commands below.") if commands
             else message("Nothing to install.") if working else
             message("Update the NVIDIA driver first.")),
        fix_commands=commands, gpu=gpu.index, evidence=evidence,
        sources=_sources(table.cuda_wheels.urls, choice.urls), framework=link)]
    if driver and choice.flavour is None:
        findings.append(_nvidia_too_old(driver, name, gpu, choice.urls))
    return findings


def _nvidia_too_old(driver: str, name: str, gpu: Gpu, urls: tuple[str, ...]) -> Finding:
    release = list(wheel_table().releases.values())[-1]
    minimums = [r.min_driver for f in release.cuda
                if (r := min_driver_for_cuda(f, "windows")) is not None and r.min_driver]
    minimum = min(minimums, key=lambda v: version_tuple(v) or ()) if minimums else None
    return Finding(
        "windows.driver_too_old", Severity.WARNING,
        message("NVIDIA driver {version} is too old for PyTorch's CUDA wheels", version=driver),
        detail=(message("No CUDA wheel of PyTorch {torch} runs on driver {version}; the oldest "
                        "of them needs {minimum} or newer on Windows.", torch=release.version,
                        version=driver, minimum=minimum) if minimum else
                message("No CUDA wheel of PyTorch {torch} is known to run on driver {version}.",
                        torch=release.version, version=driver)),
        fix=message("Update the NVIDIA driver from NVIDIA's driver page and restart; the "
                    "command below then shows the driver version and the CUDA release it "
                    "runs."),
        fix_commands=("nvidia-smi",), gpu=gpu.index,
        evidence=(EvidenceRef("nvidia_driver_version", text=driver),),
        sources=urls,
    )
