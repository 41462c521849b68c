"""The HIP SDK probe (Windows): which HIP SDK releases are installed, the one in use, its HIP
version, and the GPUs its runtime sees (`hipInfo.exe`, whose `gcnArchName` gives the gfx target
as KFD does on Linux).

Where the SDK shows itself: its installer sets `HIP_PATH` to the release's folder and a
versioned `HIP_PATH_62`-style variable per release
(https://github.com/ROCm/TheRock/pull/685), and installs into
`C:\\Program Files\\AMD\\ROCm\\<major.minor>\\`. `bin\\` holds `hipInfo.exe` and `hipconfig`
(a Perl script, with `hipconfig.bin.exe` beside it in later releases:
https://github.com/ROCm/rocm-systems/issues/1048).

Stack facts: `hip_sdk_version` (the release, "6.2"), `hip_path`, `hip_sdk_versions_installed`,
`rocm_version` (the SDK's release, so that the views that show ROCm's version show it),
`hip_runtime_version` from hipconfig, and hipInfo's GPUs as `Layer.ROCM` sightings.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from gpuscope.evidence import CommandResult, System
from gpuscope.i18n import join, message
from gpuscope.model import Fact, GpuSighting, ProbeResult, ProbeState, ProbeStatus
from gpuscope.parsers import hipinfo
from gpuscope.probes.sourced import probe_bug
from gpuscope.probes.windows_collectors import is_windows

PROBE_NAME = "hip_sdk"
DEFAULT_PROGRAM_FILES = "C:\\Program Files"
HIP_SDK_URL = "https://www.amd.com/en/developer/resources/rocm-hub/hip-sdk.html"
# The releases of the HIP SDK for Windows, for their HIP_PATH_<major><minor> variables.
SDK_RELEASES = ("5.5", "5.7", "6.0", "6.1", "6.2", "6.3", "6.4", "7.0", "7.1", "7.2")
# hipconfig as each release ships it: the native binary first, the Perl script last.
HIPCONFIG_NAMES = ("hipconfig.exe", "hipconfig.bin.exe", "hipconfig.bat")
_RELEASE_FOLDER = re.compile(r"^\d{1,2}\.\d{1,2}$")
_VERSION = re.compile(r"(\d{1,2}\.\d{1,2}(?:\.\d{1,7})?)")
_FACT_KEYS = ("hip_sdk_version", "hip_path", "hip_sdk_versions_installed", "rocm_version")
# The inventory stops waiting for a probe after 10 s (DEFAULT_PROBE_TIMEOUT_S). The two
# commands share less than that: a slow hipconfig leaves hipInfo.exe what is left, so that
# the probe answers with what it found instead of timing out with nothing.
COMMANDS_BUDGET_S = 9.0
HIPCONFIG_TIMEOUT_S = 5.0
HIPINFO_TIMEOUT_S = 8.0
MIN_COMMAND_S = 1.0  # less time left than this: the command is not started
_clock: Callable[[], float] = time.monotonic


def _win_join(root: str, *parts: str) -> str:
    return "\\".join([root.rstrip("\\/"), *parts])


def _release_key(release: str) -> tuple[int, ...]:
    return tuple(int(p) for p in release.split("."))


def release_of(path: str) -> str | None:
    """"C:\\Program Files\\AMD\\ROCm\\6.2\\" -> "6.2"; None when the folder names none."""
    match = re.search(r"(\d{1,2}\.\d{1,2})[\\/]*\Z", path.strip())
    return match.group(1) if match else None


def parse_hipconfig_version(text: str) -> str | None:
    """`hipconfig --version` ("6.2.41512-db3292736") -> "6.2.41512"."""
    for line in text.splitlines():
        match = _VERSION.match(line.strip())
        if match:
            return match.group(1)
    return None


@dataclass(slots=True)
class _Sdk:
    """What the probe found, fact by fact."""

    facts: list[Fact] = field(default_factory=list)
    sightings: tuple[GpuSighting, ...] = ()
    notes: list[str] = field(default_factory=list)

    def found(self, key: str, value: str, source: str) -> None:
        self.facts.append(Fact(key, value, source=source))

    def missing(self, key: str, reason: str) -> None:
        self.facts.append(Fact(key, None, missing_reason=reason))

    def has(self, key: str) -> bool:
        return any(f.key == key and f.value is not None for f in self.facts)


def _installed(system: System, rocm_root: str) -> tuple[dict[str, str], str | None]:
    """Release -> where it was seen (a folder under `rocm_root`, a HIP_PATH_xy variable), and
    why the folder could not be listed."""
    seen: dict[str, list[str]] = {}
    listing = system.list_dir(rocm_root)
    for entry in listing.entries or ():
        if _RELEASE_FOLDER.match(entry):
            seen.setdefault(entry, []).append(_win_join(rocm_root, entry))
    for release in SDK_RELEASES:
        name = "HIP_PATH_" + release.replace(".", "")
        if system.env(name):
            seen.setdefault(release, []).append(name)
    problem = None if listing.ok else message("{path} cannot be listed ({error})",
                                              path=rocm_root, error=listing.error)
    return ({r: ", ".join(w) for r, w in sorted(seen.items(), key=lambda i: _release_key(i[0]))},
            problem)


def _run_hipconfig(system: System, bin_dir: str, timeout_s: float,
                   ) -> tuple[CommandResult | None, str]:
    """hipconfig --version with what the release ships; (None, why) when there is none."""
    for name in HIPCONFIG_NAMES:
        path = _win_join(bin_dir, name)
        if system.stat(path).exists:
            return system.run([path, "--version"], timeout_s=timeout_s), path
    script = _win_join(bin_dir, "hipconfig")
    if system.stat(script).exists:
        perl = system.which("perl")
        if perl:
            return system.run([perl, script, "--version"], timeout_s=timeout_s), script
        return None, message("{path} is a Perl script and no perl is on PATH", path=script)
    return None, message("no hipconfig in {path}", path=bin_dir)


def _command_problem(result: CommandResult, label: str) -> str:
    if result.error:
        return message("{command} failed ({error})", command=label, error=result.error)
    tail = (result.stderr.strip() or result.stdout.strip()).splitlines()[-1:] or [""]
    return message("{command} exited with status {code}: {output}", command=label,
                   code=result.returncode, output=tail[0][:200])


def _read_hipinfo(system: System, sdk: _Sdk, bin_dir: str, deadline: float) -> None:
    path = _win_join(bin_dir, "hipInfo.exe")
    if not system.stat(path).exists:
        sdk.notes.append(message("no hipInfo.exe in {path}", path=bin_dir))
        return
    left_s = deadline - _clock()
    if left_s < MIN_COMMAND_S:
        sdk.notes.append(message("hipInfo.exe was not run: hipconfig took the {budget} s the "
                                 "probe gives its commands", budget=f"{COMMANDS_BUDGET_S:g}"))
        return
    result = system.run([path], timeout_s=min(HIPINFO_TIMEOUT_S, left_s))
    if not result.ok:
        # "no ROCm-capable device is detected" when the SDK does not support the card.
        sdk.notes.append(_command_problem(result, "hipInfo.exe"))
        return
    # The parser is imported with this module, never from a probe thread: two threads
    # importing one package at once can deadlock on its module lock.
    parsed = hipinfo.parse(result.stdout, "hipInfo.exe")
    sdk.sightings = tuple(parsed.sightings)
    for fact in parsed.stack_facts:
        if fact.key not in _FACT_KEYS and not sdk.has(fact.key):
            sdk.facts.append(fact)
    targets = [s.facts.gfx_target or s.facts.name or "?" for s in sdk.sightings]
    sdk.notes.append(message("hipInfo.exe sees {targets}", targets=", ".join(targets))
                     if targets
                     else message("hipInfo.exe listed no GPU"))


def _no_sdk(reason: str, facts: Sequence[Fact]) -> ProbeResult:
    return ProbeResult(
        ProbeStatus(PROBE_NAME, ProbeState.LIBRARY_MISSING, reason=reason,
                    hint=message("install the HIP SDK for Windows ({url}) if the GPU is on its "
                                 "list", url=HIP_SDK_URL)),
        stack_facts=tuple(facts))


def read_hip_sdk(system: System) -> ProbeResult:
    """The probe's Windows branch."""
    program_files = (system.env("ProgramFiles") or "").strip() or DEFAULT_PROGRAM_FILES
    rocm_root = _win_join(program_files, "AMD", "ROCm")
    hip_path_env = (system.env("HIP_PATH") or "").strip() or None
    deadline = _clock() + COMMANDS_BUDGET_S
    installed, listing_problem = _installed(system, rocm_root)
    sdk = _Sdk()
    if hip_path_env and not system.stat(hip_path_env).exists and not installed:
        reason = message("no HIP SDK: HIP_PATH is {path}, which does not exist",
                         path=hip_path_env)
        return _no_sdk(reason, [Fact(k, None, missing_reason=reason) for k in _FACT_KEYS])
    if hip_path_env:
        hip_path, hip_path_source = hip_path_env, "environment variable HIP_PATH"
    elif installed:
        newest = max(installed, key=_release_key)
        hip_path = _win_join(rocm_root, newest)
        hip_path_source = message("HIP_PATH is not set; the newest release in {path}",
                                  path=rocm_root)
    else:
        reason = message("no HIP SDK: HIP_PATH is not set and {path} does not exist",
                         path=rocm_root)
        return _no_sdk(reason, [Fact(k, None, missing_reason=reason) for k in _FACT_KEYS])
    sdk.found("hip_path", hip_path, hip_path_source)
    if installed:
        sdk.found("hip_sdk_versions_installed", ", ".join(installed),
                  "; ".join(f"{r}: {w}" for r, w in installed.items()))
    else:
        sdk.missing("hip_sdk_versions_installed", listing_problem or message(
            "no release folder in {path}", path=rocm_root))
    bin_dir = _win_join(hip_path, "bin")
    result, where = _run_hipconfig(system, bin_dir, min(HIPCONFIG_TIMEOUT_S,
                                                        max(deadline - _clock(), 0.1)))
    hip_version = None
    if result is not None and result.ok:
        hip_version = parse_hipconfig_version(result.stdout)
        if hip_version:
            sdk.found("hip_runtime_version", hip_version, f"{where} --version")
        else:
            sdk.notes.append(message("{command} printed no version", command=where))
    elif result is not None:
        sdk.notes.append(_command_problem(result, f"{where} --version"))
    else:
        sdk.notes.append(where)
    release, source = release_of(hip_path), ""
    if release:
        source = f"{hip_path_source}: {hip_path} (folder name)"
    elif hip_version:
        release, source = ".".join(hip_version.split(".")[:2]), f"{where} --version"
    if release:
        sdk.found("hip_sdk_version", release, source)
        sdk.found("rocm_version", release, source)
    else:
        why = message("neither the folder of HIP_PATH ({path}) nor hipconfig names the "
                      "release", path=hip_path)
        sdk.missing("hip_sdk_version", why)
        sdk.missing("rocm_version", why)
    _read_hipinfo(system, sdk, bin_dir, deadline)
    summary = message("HIP SDK {release} at {path}", release=release or "?", path=hip_path)
    return ProbeResult(ProbeStatus(PROBE_NAME, ProbeState.OK,
                                   reason=join("; ", [summary, *sdk.notes])),
                       sightings=sdk.sightings, stack_facts=tuple(sdk.facts))


def probe_hip_sdk(system: System) -> ProbeResult:
    """The installed HIP SDK and what its runtime sees (Windows). Never raises."""
    try:
        if not is_windows(system):
            return ProbeResult(ProbeStatus(PROBE_NAME, ProbeState.NOT_APPLICABLE,
                                           reason=message("not Windows")))
        return read_hip_sdk(system)
    except Exception as exc:  # a probe never raises: the failure becomes its status
        return probe_bug(PROBE_NAME, message("HIP SDK probe failed: {error}",
                                             error=f"{type(exc).__name__}: {exc}"))
