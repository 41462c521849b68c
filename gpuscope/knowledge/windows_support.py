"""The routes a GPU has to PyTorch and local LLMs on Windows, from resources/windows_support.toml:
AMD's ROCm wheels for Windows, ROCm in WSL 2, DirectML, a Vulkan build of llama.cpp, NVIDIA's
CUDA wheels, and the third-party CUDA translation layers (described, never installed).

The HIP SDK's own GPU list stays in rocm_support.toml (`hip_sdk_component` reads it), the WSL
families AMD never lists in rocm_distros.toml, and the CUDA wheels and Windows driver minimums in
pytorch_wheels.toml and cuda_drivers.toml: one copy of each fact.

Commands are PowerShell lines, complete and runnable as pasted.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from gpuscope.i18n import prose
from gpuscope.knowledge._resources import load_toml_resource, table_rows
from gpuscope.knowledge.rocm_support import SupportVerdict, normalise_gfx, official_support
from gpuscope.knowledge.sources import CONFIDENCE, Citations, Source

RESOURCE = "windows_support.toml"

WheelCoverage = Literal["tested", "untested", "none"]
HipSdkComponent = Literal["runtime+sdk", "runtime", "none", "unknown"]

_PYTHON = re.compile(r"3\.\d{1,2}")
_DRIVER = re.compile(r"\d{1,4}(?:\.\d{1,5}){1,3}")
_WINGET_ID = re.compile(r"[A-Za-z0-9]+(?:\.[A-Za-z0-9]+)+")
_DISTRO = re.compile(r"[A-Za-z][A-Za-z0-9.-]{0,63}")
_PACKAGE = re.compile(r"[a-z0-9][a-z0-9-]*")
# A Windows or POSIX path PowerShell can run bare: no spaces, quotes or PowerShell operators.


class WindowsTableError(ValueError):
    """resources/windows_support.toml does not have the expected shape."""


@dataclass(frozen=True, slots=True)
class RouteInfo:
    """What every route of the table carries: its name and caveat in plain words, and where
    that comes from."""

    title: str
    caveat: str
    sources: tuple[Source, ...]
    confidence: str
    provenance: str  # for maintainers: never shown to users

    @property
    def urls(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(s.url for s in self.sources))


@dataclass(frozen=True, slots=True)
class DriverFloor:
    """The oldest driver a route is documented to need."""

    version: str  # Adrenalin's marketing version: "26.2.2"
    confidence: str
    provenance: str
    sources: tuple[Source, ...]

    @property
    def urls(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(s.url for s in self.sources))


@dataclass(frozen=True, slots=True)
class RocmWheels:
    """AMD's ROCm PyTorch wheels for Windows (TheRock's multi-arch index)."""

    info: RouteInfo
    index_url: str
    tested: tuple[str, ...]  # gfx targets tested on Windows
    untested: tuple[str, ...]  # published, not yet tested on Windows
    python: tuple[str, ...]  # "3.12"
    torch: tuple[str, ...]  # "2.14"
    min_adrenalin: DriverFloor

    def coverage(self, gfx_target: str | None) -> WheelCoverage:
        target = normalise_gfx(gfx_target or "")
        if target in self.tested:
            return "tested"
        return "untested" if target in self.untested else "none"

    def covers_python(self, python_version: str | None) -> bool | None:
        return _covers(self.python, python_version)

    def commands(self, gfx_target: str, python: str = "py") -> tuple[str, ...]:
        """The pip line for this GPU's kernels; () for a target the index has no extra for."""
        target = normalise_gfx(gfx_target)
        if target is None or self.coverage(target) == "none":
            return ()
        extra = f"device-{target}"
        return (f'{python} -m pip install --index-url {self.index_url} "torch[{extra}]" '
                f'"torchvision[{extra}]" torchaudio',)


@dataclass(frozen=True, slots=True)
class WslRoute:
    info: RouteInfo
    distro: str  # the distribution `wsl --install -d` installs: "Ubuntu-24.04"
    listed: tuple[str, ...]  # gfx targets AMD's WSL lists name
    listed_provenance: str
    min_adrenalin: DriverFloor

    def commands(self, has_distro: bool) -> tuple[str, ...]:
        return ("wsl --update",) if has_distro else (f"wsl --install -d {self.distro}",)


@dataclass(frozen=True, slots=True)
class DirectmlRoute:
    info: RouteInfo
    package: str  # "torch-directml"
    version: str  # its newest release: "0.2.5.dev240914"
    torch: str  # the PyTorch release it pins: "2.4.1"
    torchvision: str
    python: tuple[str, ...]

    def covers_python(self, python_version: str | None) -> bool | None:
        return _covers(self.python, python_version)

    def commands(self, python: str = "py") -> tuple[str, ...]:
        return (f"{python} -m pip install {self.package}",)


@dataclass(frozen=True, slots=True)
class VulkanLlamaCpp:
    info: RouteInfo
    winget_id: str  # "ggml.llamacpp"

    def commands(self) -> tuple[str, ...]:
        return (f"winget install --id {self.winget_id} -e",)


@dataclass(frozen=True, slots=True)
class ThirdParty:
    """A CUDA translation layer: described with its status, never installed by gpuscope."""

    name: str
    status: str
    sources: tuple[Source, ...]
    confidence: str
    provenance: str

    @property
    def urls(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(s.url for s in self.sources))


@dataclass(frozen=True, slots=True)
class WindowsSupport:
    rocm_wheels: RocmWheels
    wsl: WslRoute
    directml: DirectmlRoute
    vulkan_llama_cpp: VulkanLlamaCpp
    third_party: tuple[ThirdParty, ...]
    cuda_wheels: RouteInfo
    hip_sdk: RouteInfo


@dataclass(frozen=True, slots=True)
class HipSdkAnswer:
    """What the HIP SDK of one release gives a gfx target on Windows."""

    component: HipSdkComponent
    verdict: SupportVerdict  # rocm_support's answer, with its note and source


# ----------------------------------------------------------------------------- parsing


def parse_windows_table(doc: Mapping[str, Any]) -> WindowsSupport:
    """The TOML document to the routes; raises WindowsTableError on a malformed entry."""
    cited = Citations.of(doc, WindowsTableError)
    wheels = _table(doc, "rocm_wheels")
    tested = _targets(wheels, "tested", "rocm_wheels")
    untested = _targets(wheels, "untested", "rocm_wheels")
    if set(tested) & set(untested):
        raise WindowsTableError("rocm_wheels: a target is both tested and untested")
    index_url = _text(wheels, "index_url", "rocm_wheels")
    if not index_url.startswith("https://") or not index_url.endswith("/"):
        raise WindowsTableError("rocm_wheels: index_url must be an https:// index ending in /")
    rocm_wheels = RocmWheels(
        info=_info(wheels, "rocm_wheels", cited), index_url=index_url, tested=tested,
        untested=untested, python=_pythons(wheels, "rocm_wheels"),
        torch=_strings(wheels, "torch", "rocm_wheels"),
        min_adrenalin=_floor(wheels, "rocm_wheels", cited))
    wsl_row = _table(doc, "wsl")
    distro = _text(wsl_row, "distro", "wsl")
    if not _DISTRO.fullmatch(distro):
        raise WindowsTableError(f"wsl: {distro!r} is not a distribution name")
    wsl = WslRoute(info=_info(wsl_row, "wsl", cited), distro=distro,
                   listed=_targets(wsl_row, "listed", "wsl"),
                   listed_provenance=_text(wsl_row, "listed_source", "wsl"),
                   min_adrenalin=_floor(wsl_row, "wsl", cited))
    dml = _table(doc, "directml")
    package = _text(dml, "package", "directml")
    if not _PACKAGE.fullmatch(package):
        raise WindowsTableError(f"directml: {package!r} is not a package name")
    directml = DirectmlRoute(
        info=_info(dml, "directml", cited), package=package,
        version=_text(dml, "version", "directml"), torch=_text(dml, "torch", "directml"),
        torchvision=_text(dml, "torchvision", "directml"),
        python=_pythons(dml, "directml"))
    llama = _table(doc, "vulkan_llama_cpp")
    winget_id = _text(llama, "winget_id", "vulkan_llama_cpp")
    if not _WINGET_ID.fullmatch(winget_id):
        raise WindowsTableError(f"vulkan_llama_cpp: {winget_id!r} is not a winget id")
    third_party = tuple(_third_party(row, cited) for row in
                        table_rows(doc, "third_party", WindowsTableError))
    support = WindowsSupport(
        rocm_wheels=rocm_wheels, wsl=wsl, directml=directml,
        vulkan_llama_cpp=VulkanLlamaCpp(_info(llama, "vulkan_llama_cpp", cited), winget_id),
        third_party=third_party,
        cuda_wheels=_info(_table(doc, "cuda_wheels"), "cuda_wheels", cited),
        hip_sdk=_info(_table(doc, "hip_sdk"), "hip_sdk", cited))
    cited.check_all_used()
    return support


def _table(doc: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = doc.get(key)
    if not isinstance(value, dict):
        raise WindowsTableError(f"[{key}] is missing or not a table")
    return value


def _text(row: Mapping[str, Any], key: str, where: str) -> str:
    value = row.get(key)
    if not isinstance(value, str) or not value.strip():
        raise WindowsTableError(f"{where}: {key} must be a non-empty string")
    return value.strip()


def _strings(row: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = row.get(key)
    if not isinstance(value, list) or not value or not all(
            isinstance(v, str) and v for v in value):
        raise WindowsTableError(f"{where}: {key} must be a non-empty list of strings")
    if len(set(value)) != len(value):
        raise WindowsTableError(f"{where}: {key} lists a value twice")
    return tuple(value)


def _targets(row: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    targets = _strings(row, key, where)
    for target in targets:
        if normalise_gfx(target) != target:
            raise WindowsTableError(f"{where}: {target!r} in {key} is not a gfx target")
    return targets


def _pythons(row: Mapping[str, Any], where: str) -> tuple[str, ...]:
    versions = _strings(row, "python", where)
    if not all(_PYTHON.fullmatch(v) for v in versions):
        raise WindowsTableError(f"{where}: python lists versions like \"3.12\"")
    return versions


def _confidence(row: Mapping[str, Any], key: str, where: str) -> str:
    value = _text(row, key, where)
    if value not in CONFIDENCE:
        raise WindowsTableError(f"{where}: {key} must be one of {', '.join(CONFIDENCE)}")
    return value


def _info(row: Mapping[str, Any], where: str, cited: Citations) -> RouteInfo:
    return RouteInfo(
        title=prose(cited.public(_text(row, "title", where), f"{where} title")),
        caveat=prose(cited.public(_text(row, "caveat", where), f"{where} caveat")),
        sources=cited.sources(row.get("sources"), where),
        confidence=_confidence(row, "confidence", where),
        provenance=_text(row, "source", where))


def _floor(row: Mapping[str, Any], where: str, cited: Citations) -> DriverFloor:
    version = _text(row, "min_adrenalin", where)
    if not _DRIVER.fullmatch(version):
        raise WindowsTableError(f"{where}: {version!r} is not a driver version")
    return DriverFloor(version=version,
                       confidence=_confidence(row, "min_adrenalin_confidence", where),
                       provenance=_text(row, "min_adrenalin_source", where),
                       sources=cited.sources(row.get("min_adrenalin_sources"),
                                             f"{where} min_adrenalin"))


def _third_party(row: Mapping[str, Any], cited: Citations) -> ThirdParty:
    name = _text(row, "name", "[[third_party]]")
    where = f"third_party {name}"
    return ThirdParty(name=name, status=prose(cited.public(_text(row, "status", where), where)),
                      sources=cited.sources(row.get("sources"), where),
                      confidence=_confidence(row, "confidence", where),
                      provenance=_text(row, "source", where))


@functools.cache
def windows_support() -> WindowsSupport:
    """The packaged table, loaded once."""
    return parse_windows_table(load_toml_resource(RESOURCE))


# ----------------------------------------------------------------------------- queries


def python_series(version: str | None) -> str | None:
    """"3.12.4" (or "3.12.4 (tags/v3.12.4...)") -> "3.12"; not a Python 3 version -> None."""
    match = re.match(r"\s*(3\.\d{1,2})(?:\.|\s|$)", version or "")
    return match.group(1) if match else None


def _covers(versions: tuple[str, ...], python_version: str | None) -> bool | None:
    series = python_series(python_version)
    return None if series is None else series in versions


def driver_key(version: str | None) -> tuple[int, ...] | None:
    """"24.12.1" -> (24, 12, 1); Adrenalin's or NVIDIA's version, else None."""
    text = (version or "").strip()
    if not _DRIVER.fullmatch(text):
        return None
    return tuple(int(part) for part in text.split("."))


def adrenalin_older_than(version: str | None, minimum: str) -> bool | None:
    """Whether Adrenalin `version` ("24.12.1") is older than `minimum` ("26.2.2"); None when
    either is not a version."""
    have, need = driver_key(version), driver_key(minimum)
    if have is None or need is None:
        return None
    return have < need


def hip_sdk_component(gfx_target: str, hip_sdk_version: str | None) -> HipSdkAnswer:
    """What the HIP SDK release gives the target on Windows: the runtime and the SDK's
    libraries, the runtime only, or nothing (AMD's list for that release); with no version,
    the newest list gpuscope knows answers."""
    verdict = official_support(gfx_target, hip_sdk_version, "windows")
    component: HipSdkComponent
    if verdict.level in ("supported", "deprecated", "listed"):
        component = "runtime+sdk"
    elif verdict.level == "runtime_only":
        component = "runtime"
    elif verdict.level == "unsupported":
        component = "none"
    else:
        component = "unknown"
    return HipSdkAnswer(component, verdict)


def powershell_python(path: str | None) -> str:
    """The interpreter as a PowerShell command word: the py launcher when the path is not
    known, else the call operator on the path in double quotes (`"`, `$` and the backtick
    escaped with a backtick), so that a redacted report can write the home folder as
    $env:USERPROFILE there and the line still runs."""
    if not path or not re.match(r"[A-Za-z]:\\", path):
        return "py"
    quoted = path.replace("`", "``").replace('"', '`"').replace("$", "`$")
    return f'& "{quoted}"'
