"""Which official PyTorch wheel to install on this machine: the ROCm wheel matching the host's
ROCm that carries the GPU's gfx target (or the HSA override when none does), the CUDA wheel
the installed NVIDIA driver can run, and the routes open on Windows.

Choices come from the tables in resources/ (pytorch_wheels.toml, cuda_drivers.toml,
hsa_overrides.toml) and never raise: with a version nobody can read, the choice says what it
does not know in its `note`. A wheel the driver table says cannot run is never chosen.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from gpuscope.i18n import join, message
from gpuscope.knowledge.cuda import driver_supports, min_driver_for_cuda
from gpuscope.knowledge.overrides import OverrideAdvice, hsa_override_for
from gpuscope.knowledge.torch_builds import (
    Build,
    Coverage,
    TorchRelease,
    index_url,
    install_command,
    official_wheel_coverage,
    series_key,
    wheel_table,
)
from gpuscope.knowledge.versions import major_minor, rocm_release, version_numbers

# Where AMD and Microsoft document PyTorch on Windows without WSL.
WINDOWS_ROCM_URL = ("https://rocm.docs.amd.com/projects/radeon-ryzen/en/latest/docs/install/"
                    "installrad/windows/install-pytorch.html")
DIRECTML_URL = "https://learn.microsoft.com/en-us/windows/ai/directml/pytorch-windows"
_PLAIN_PATH = re.compile(r"[A-Za-z0-9_./+=@%,-]+")
# A Windows path ("C:\\Python312\\python.exe") is typed bare in PowerShell and cmd.
_WINDOWS_PATH = re.compile(r"[A-Za-z]:\\[A-Za-z0-9_.\\+=@%,-]*")


@dataclass(frozen=True, slots=True)
class WheelChoice:
    """One official wheel to install, and why it is the one."""

    build: Build
    flavour: str | None  # "6.2.4", "12.6"; None for the CPU wheel
    torch_release: str | None  # the release series whose wheel this is: "2.7"
    pin: bool  # the newest wheel on that index is not this release: pin the series
    covers_target: bool | None  # the wheel carries code for the GPU (None: not known)
    override: OverrideAdvice | None  # HSA_OVERRIDE_GFX_VERSION to run it, when needed
    note: str  # in plain words: why this wheel, and what is not known
    urls: tuple[str, ...]  # public pages the choice rests on

    @property
    def index_url(self) -> str | None:
        return index_url(self.build, self.flavour)

    def commands(self, python: str = "python3", *, replace: bool = False,
                 as_word: bool = False) -> tuple[str, ...]:
        """Shell lines that install it into `python` (an interpreter path or a command
        name; `as_word`: already a command word of the shell, such as PowerShell's
        `& "C:\\...\\python.exe"`); `replace` uninstalls the torch there first (pip keeps an
        installed torch of the same version otherwise, whatever its build)."""
        interpreter = python if as_word else shell_word(python)
        lines: list[str] = []
        if self.override is not None:
            lines.append(f"export {self.override.assignment}")
        command = install_command(self.build, self.flavour, python=interpreter,
                                  pin=self.torch_release if self.pin else None)
        if command is None or (self.build != "cpu" and self.flavour is None):
            return ()  # no wheel to install: the note says why
        if replace:
            lines.append(f"{interpreter} -m pip uninstall -y torch")
        lines.append(command)
        return tuple(lines)


def shell_word(python: str) -> str:
    """An interpreter path as one shell word: quoted only where it must be."""
    if _PLAIN_PATH.fullmatch(python) or _WINDOWS_PATH.fullmatch(python):
        return python
    return shlex.quote(python)


def _releases(python_version: str | None) -> list[TorchRelease]:
    """The releases newest first, those with wheels for this Python when it is known."""
    releases = list(wheel_table().releases.values())[::-1]
    wanted = major_minor(python_version) if python_version else None
    if wanted is None:
        return releases
    fitting = [r for r in releases if series_key(r.python_min) <= wanted <= series_key(
        r.python_experimental or r.python_max)]
    return fitting or releases


def _flavour_key(flavour: str) -> tuple[int, ...]:
    return version_numbers(flavour) or (0,)


# ----------------------------------------------------------------------------- ROCm


@dataclass(frozen=True, slots=True)
class _Candidate:
    release: TorchRelease
    flavour: str
    coverage: Coverage | None


def _rocm_candidates(target: str | None, python_version: str | None) -> list[_Candidate]:
    out = []
    for release in _releases(python_version):
        for flavour in reversed(release.rocm):
            coverage = (official_wheel_coverage(release.version, "rocm", flavour, target)
                        if target else None)
            out.append(_Candidate(release, flavour, coverage))
    return out


def _nearest(candidates: Sequence[_Candidate], host: tuple[int, int, int] | None) -> _Candidate:
    """The candidate whose ROCm is the host's, else the nearest older one of the same major,
    else the nearest at all; newest torch release first among equals."""
    if host is None:
        return candidates[0]

    def distance(candidate: _Candidate) -> tuple[int, int, int, int]:
        flavour = (*_flavour_key(candidate.flavour), 0, 0)[:3]
        same_minor = flavour[:2] == host[:2]
        exact = flavour == host
        older = flavour <= host
        gap = abs((flavour[0] * 100 + flavour[1]) - (host[0] * 100 + host[1]))
        return (0 if exact else 1 if same_minor else 2, 0 if flavour[0] == host[0] else 1,
                0 if older else 1, gap)

    return min(candidates, key=distance)  # min keeps the first (newest release) of equals


def _same_rocm(candidate: _Candidate, host: tuple[int, int, int] | None) -> bool:
    return host is not None and _flavour_key(candidate.flavour)[:2] == host[:2]


def choose_rocm_wheel(host_rocm: str | None, gfx_target: str | None,
                      python_version: str | None = None) -> WheelChoice:
    """The ROCm wheel for a GPU: the index matching the host's ROCm (`host_rocm`, any ROCm
    or HIP version string) that carries `gfx_target`; else the nearest index that carries it;
    else, with the target's HSA_OVERRIDE_GFX_VERSION, the one carrying the target it then
    runs as; else the index matching the host's ROCm, saying that no official wheel is known
    to carry the target."""
    host = rocm_release(host_rocm)
    target = gfx_target.strip().lower() if isinstance(gfx_target, str) and gfx_target else None
    host_text = f"ROCm {host[0]}.{host[1]}" if host else None
    candidates = _rocm_candidates(target, python_version)
    urls = wheel_table().index_urls
    native = [c for c in candidates if c.coverage == "native"]
    if target is None:
        pick = _nearest(candidates, host)
        return _rocm_choice(pick, candidates, None, None, _with_host_note(
            message("The GPU's target is not known, so the wheel is chosen by ROCm version "
                    "alone."), pick, host, host_text), urls)
    if native:
        pick = _nearest(native, host)
        why = _with_host_note(message(
            "The official {version} wheels for ROCm {flavour} carry {target}.",
            version=pick.release.version, flavour=pick.flavour, target=target),
            pick, host, host_text)
        return _rocm_choice(pick, candidates, True, None, why, urls + _row_urls(pick))
    advice = hsa_override_for(target)
    if advice is not None and advice.pretends_to_be != target:
        spoofed = [c for c in _rocm_candidates(advice.pretends_to_be, python_version)
                   if c.coverage == "native"]
        if spoofed:
            pick = _nearest(spoofed, host)
            why = _with_host_note(message(
                "No official wheel carries {target}; with {assignment} the GPU runs the code "
                "built for {pretends}, which the {version} wheels for ROCm {flavour} carry.",
                target=target, assignment=advice.assignment, pretends=advice.pretends_to_be,
                version=pick.release.version, flavour=pick.flavour), pick, host, host_text)
            return _rocm_choice(pick, candidates, False, advice, why,
                                urls + _row_urls(pick) + advice.urls)
    unknown = [c for c in candidates if c.coverage is None]
    pick = _nearest(unknown or candidates, host)
    known_not = not unknown
    why = _with_host_note(
        message("No official PyTorch wheel is known to carry {target}: build PyTorch from "
                "source for it, or use a build made for it.", target=target)
        if known_not else
        message("No official PyTorch wheel is known to carry {target}; the {version} wheels "
                "for ROCm {flavour} may (their full list of targets is not known here).",
                target=target, version=pick.release.version, flavour=pick.flavour),
        pick, host, host_text)
    return _rocm_choice(pick, candidates, False if known_not else None, None, why,
                        urls + wheel_table().never_urls)


def _with_host_note(why: str, pick: _Candidate, host: tuple[int, int, int] | None,
                    host_text: str | None) -> str:
    """`why`, then what the host's ROCm has to do with the pick."""
    if host is None:
        return join(" ", [why, message("The host's ROCm version is not known.")])
    if _same_rocm(pick, host):
        return why
    return join(" ", [why, message(
        "No official wheel for {host} fits, so this is the nearest; the wheel brings its own "
        "ROCm libraries, but the kernel driver must be new enough for them.", host=host_text)])


def _row_urls(pick: _Candidate) -> tuple[str, ...]:
    return pick.release.urls + tuple(
        url for row in wheel_table().rocm_arch if pick.flavour in row.rocm
        and (not row.torch or pick.release.version in row.torch) for url in row.urls)


def _rocm_choice(pick: _Candidate, candidates: Sequence[_Candidate], covers: bool | None,
                 override: OverrideAdvice | None, note: str,
                 urls: tuple[str, ...]) -> WheelChoice:
    newest_with_flavour = next(c.release for c in candidates if c.flavour == pick.flavour)
    return WheelChoice(
        build="rocm", flavour=pick.flavour, torch_release=pick.release.version,
        pin=newest_with_flavour.version != pick.release.version, covers_target=covers,
        override=override, note=note, urls=tuple(dict.fromkeys(urls)))


# ----------------------------------------------------------------------------- CUDA

_STATUS_RANK = {"ok": 0, "minor_compat": 1}
_COVERAGE_RANK = {"native": 0, None: 1, "ptx": 2}


def choose_cuda_wheel(driver_version: str | None, compute_capability: str | None,
                      os: str = "linux", python_version: str | None = None, *,
                      driver_cuda: str | None = None) -> WheelChoice:
    """The CUDA wheel for a GPU: from the newest release with a flavour that this driver runs
    (fully, or through minor-version compatibility) and that carries code for the GPU's
    compute capability; never a flavour the driver table says is too new for the driver.
    Without the driver's version, `driver_cuda` (the CUDA version the driver reports, "11.4"
    of PyTorch's "found version 11040") stands for the oldest driver that reports it. With
    neither, the newest release's default flavour, saying so."""
    table = wheel_table()
    releases = _releases(python_version)
    os_name = "windows" if os in ("windows", "wsl") else "linux"
    driver_text = message("Driver {version}", version=driver_version)
    driver_object = message("driver {version}", version=driver_version)
    ceiling = major_minor(driver_cuda) if not driver_version else None
    if ceiling is not None:
        cuda = f"{ceiling[0]}.{ceiling[1]}"
        floor = _driver_floor(cuda, os_name)
        if floor is None:  # a CUDA older than every row: only flavours up to it can run
            return _cuda_up_to(releases, ceiling, compute_capability)
        driver_version = floor
        driver_text = message("A driver that supports CUDA {cuda} (its version is not known "
                              "here; {floor} at least)", cuda=cuda, floor=floor)
        driver_object = message("a driver that supports CUDA {cuda} (its version is not known "
                                "here; {floor} at least)", cuda=cuda, floor=floor)
    if not driver_version:
        return _cuda_without_driver(releases, compute_capability)
    best: _CudaCandidate | None = None
    for release in releases:
        runnable = [c for c in (_cuda_candidate(release, flavour, driver_version,
                                                compute_capability, os_name)
                                for flavour in release.cuda) if c is not None]
        if runnable:
            # Code for the GPU first, then full driver support, then the newest CUDA.
            best = min(runnable, key=lambda c: (
                _COVERAGE_RANK[c.coverage], _STATUS_RANK[c.status],
                tuple(-n for n in _flavour_key(c.flavour))))
            break
    if best is None:
        release = releases[0]
        return WheelChoice(
            build="cuda", flavour=None, torch_release=release.version, pin=False,
            covers_target=False if compute_capability else None, override=None,
            note=message("No official CUDA wheel is known to run on {driver} with a GPU of "
                         "compute capability {cc}: update the NVIDIA driver first.",
                         driver=driver_object, cc=compute_capability)
            if compute_capability else
            message("No official CUDA wheel is known to run on {driver}: update the NVIDIA "
                    "driver first.", driver=driver_object),
            urls=tuple(dict.fromkeys(table.index_urls + _driver_urls(release.cuda[-1], os_name))))
    release, flavour, status, coverage = best.release, best.flavour, best.status, best.coverage
    newest = next(r for r in releases if flavour in r.cuda)
    values = {"driver": driver_text, "flavour": flavour, "version": release.version,
              "minimum": best.minimum, "cc": compute_capability}
    notes = [
        message("{driver} runs the CUDA {flavour} wheels of PyTorch {version}.", **values)
        if status == "ok" else
        message("{driver} runs the CUDA {flavour} wheels of PyTorch {version} through "
                "minor-version compatibility (it is older than their minimum, {minimum}).",
                **values) if best.minimum else
        message("{driver} runs the CUDA {flavour} wheels of PyTorch {version} through "
                "minor-version compatibility.", **values)]
    if coverage == "native" and compute_capability:
        notes.append(message("They carry code for compute capability {cc}.", **values))
    elif coverage == "ptx":
        notes.append(message("They reach compute capability {cc} through PTX, compiled when "
                             "first loaded.", **values))
    elif compute_capability:
        notes.append(message("Whether they carry code for compute capability {cc} is not "
                             "known.", **values))
    newer = [f for f in releases[0].cuda if _flavour_key(f) > _flavour_key(flavour)
             and (not compute_capability or official_wheel_coverage(
                 releases[0].version, "cuda", f, compute_capability) != "none")]
    if newer:
        notes.append(message("The CUDA {flavour} wheels need a newer driver.",
                             flavour=newer[-1]))
    note = join(" ", notes)
    cuda_urls = tuple(url for row in table.cuda_arch if flavour in row.cuda
                      and release.version in row.torch for url in row.urls)
    return WheelChoice(
        build="cuda", flavour=flavour, torch_release=release.version,
        pin=newest.version != release.version,
        covers_target=None if coverage is None else True, override=None, note=note,
        urls=tuple(dict.fromkeys(table.index_urls + release.urls + cuda_urls
                                 + _driver_urls(flavour, os_name))))


def _driver_floor(cuda: str, os_name: str) -> str | None:
    """The oldest driver that reports CUDA `cuda` ("11.4" -> 470.42.01 on Linux, the minimum
    of that release's first row): every driver reporting it runs what that one runs."""
    requirement = min_driver_for_cuda(cuda, os_name)
    return requirement.min_driver if requirement is not None and requirement.exact else None


def _cuda_up_to(releases: Sequence[TorchRelease], ceiling: tuple[int, int],
                compute_capability: str | None) -> WheelChoice:
    """For a driver that reports a CUDA the driver table has no row for: the newest flavour
    up to that CUDA (which the driver fully runs), else none."""
    cuda = f"{ceiling[0]}.{ceiling[1]}"
    for release in releases:
        fitting = [f for f in release.cuda if _flavour_key(f)[:2] <= ceiling and (
            not compute_capability or official_wheel_coverage(
                release.version, "cuda", f, compute_capability) != "none")]
        if fitting:
            flavour = fitting[-1]
            newest = next(r for r in releases if flavour in r.cuda)
            return WheelChoice(
                build="cuda", flavour=flavour, torch_release=release.version,
                pin=newest.version != release.version, covers_target=None, override=None,
                note=message("A driver that supports CUDA {cuda} runs the CUDA {flavour} "
                             "wheels of PyTorch {version}.", cuda=cuda, flavour=flavour,
                             version=release.version),
                urls=tuple(dict.fromkeys(wheel_table().index_urls + release.urls)))
    return WheelChoice(
        build="cuda", flavour=None, torch_release=releases[0].version, pin=False,
        covers_target=None, override=None,
        note=message("No official CUDA wheel is known to run on a driver that supports only "
                     "CUDA {cuda}: update the NVIDIA driver first.", cuda=cuda),
        urls=wheel_table().index_urls)


def _cuda_without_driver(releases: Sequence[TorchRelease],
                         compute_capability: str | None) -> WheelChoice:
    """With the driver unknown: the newest release's default flavour when it may carry code
    for the GPU (else its first flavour that does), and, as the alternative for older
    drivers, the flavour known to carry the GPU's code that needs the oldest driver."""
    table = wheel_table()
    release = releases[0]

    def coverage(series: str, flavour: str) -> Coverage | None:
        if not compute_capability:
            return None
        return official_wheel_coverage(series, "cuda", flavour, compute_capability)

    ordered = [release.pypi_default_cuda, *(f for f in release.cuda
                                            if f != release.pypi_default_cuda)]
    flavour = next((f for f in ordered if coverage(release.version, f) not in ("none", "ptx")),
                   release.pypi_default_cuda)
    found = coverage(release.version, flavour)
    notes = [message("The NVIDIA driver version is not known: these are the CUDA {flavour} "
                     "wheels of PyTorch {version}, which need a driver that runs CUDA "
                     "{flavour}.", flavour=flavour, version=release.version)]
    if found == "none":
        notes.append(message("No official wheel of PyTorch {version} is known to carry code "
                             "for compute capability {cc}.", version=release.version,
                             cc=compute_capability))
    known = [(r, f) for r in releases for f in r.cuda if coverage(r.version, f) == "native"]
    fallback = min(known, key=lambda pair: _flavour_key(pair[1]), default=None)
    if fallback is not None and _flavour_key(fallback[1]) < _flavour_key(flavour):
        alternative, series = fallback[1], fallback[0].version
        notes.append(message("With an older driver, the CUDA {flavour} wheels of PyTorch "
                             "{version} ({url}) carry code for it too.", flavour=alternative,
                             version=series, url=index_url("cuda", alternative)))
    return WheelChoice(
        build="cuda", flavour=flavour, torch_release=release.version, pin=False,
        covers_target=None if found is None else found == "native", override=None,
        note=join(" ", notes), urls=tuple(dict.fromkeys(table.index_urls + release.urls)))


@dataclass(frozen=True, slots=True)
class _CudaCandidate:
    release: TorchRelease
    flavour: str
    status: str  # "ok" or "minor_compat"
    coverage: Coverage | None
    minimum: str | None  # the flavour's minimum driver for full support


def _cuda_candidate(release: TorchRelease, flavour: str, driver_version: str,
                    compute_capability: str | None, os_name: str) -> _CudaCandidate | None:
    """The flavour as a candidate, or None when the driver cannot run it or it has no code
    for the GPU."""
    verdict = driver_supports(driver_version, flavour, os_name)
    if verdict.status not in _STATUS_RANK:
        return None
    coverage = (official_wheel_coverage(release.version, "cuda", flavour, compute_capability)
                if compute_capability else None)
    # PTX is compiled by the driver, which minor-version compatibility does not allow.
    if coverage == "none" or (coverage == "ptx" and verdict.status != "ok"):
        return None
    minimum = verdict.requirement.min_driver if verdict.requirement else None
    return _CudaCandidate(release, flavour, verdict.status, coverage, minimum)


def _driver_urls(flavour: str, os_name: str) -> tuple[str, ...]:
    requirement = driver_supports("0", flavour, os_name).requirement
    return requirement.urls if requirement is not None else ()


# ----------------------------------------------------------------------------- Windows


@dataclass(frozen=True, slots=True)
class WindowsRoute:
    """PyTorch for an AMD GPU on Windows without WSL: AMD's ROCm wheels (documented per
    release, for Radeon RX 7000/9000 and Ryzen AI), or DirectML on any DirectX 12 GPU."""

    note: str
    commands: tuple[str, ...]
    urls: tuple[str, ...]


def windows_amd_route(python: str = "python") -> WindowsRoute:
    interpreter = shell_word(python)
    return WindowsRoute(
        note=message("On Windows, AMD publishes ROCm PyTorch wheels for Radeon RX 7000 and RX "
                     "9000 cards and Ryzen AI APUs (per ROCm release, for one Python version; "
                     "see AMD's install page), or run it in WSL 2. DirectML, installed by the "
                     "command, runs PyTorch on any DirectX 12 GPU, more slowly."),
        commands=(f"{interpreter} -m pip install torch-directml",),
        urls=(WINDOWS_ROCM_URL, DIRECTML_URL))
