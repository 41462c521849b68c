"""Which Linux distributions AMD supports ROCm on, per release, natively and under WSL.

Only the releases whose documentation restricts support to named distributions are in the
table (all GPUs for ROCm 2.x, Radeon GPUs from 6.4.1 on); elsewhere the answer is "unknown"
and the doctor says nothing. Under WSL, AMD lists Ubuntu releases only.

A distribution is compared by family and version at the precision both sides give: "Ubuntu
22.04.5 LTS" is on a list that names "Ubuntu 22.04", "CentOS Linux 7 (Core)" is neither on nor
off a list that names "CentOS 7.6" (the answer is then "unknown").
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from gpuscope.i18n import prose
from gpuscope.knowledge._resources import load_toml_resource

_MAX_NAME_CHARS = 200


@dataclass(frozen=True, slots=True)
class DistroRow:
    rocm: tuple[str, ...]  # releases the row speaks for; empty: every release
    targets: tuple[str, ...]  # gfx prefixes ("gfx" for every GPU)
    distros: tuple[str, ...]  # "Ubuntu 22.04", "RHEL 9.6", "CentOS 7.6"
    source: str  # for maintainers: never shown to users
    url: str  # the public page of AMD's list
    scope: str = ""  # the GPUs the list is for, in words ("Radeon GPUs"); "" for all


@dataclass(frozen=True, slots=True)
class DistroVerdict:
    supported: bool | None  # None: gpuscope's table has nothing to say
    distro: str | None  # the distribution as gpuscope understood it: "Ubuntu 22.04"
    listed: tuple[str, ...] = ()
    source: str | None = None  # the public page of AMD's list (a URL)
    scope: str = ""  # the GPUs AMD's list is for ("Radeon GPUs"); "" for all


@dataclass(frozen=True, slots=True)
class WslGpuVerdict:
    supported: bool | None  # False: AMD's WSL lists never name a GPU of this target
    source: str | None = None  # the public page of AMD's WSL list (a URL)


@dataclass(frozen=True, slots=True)
class DistroTable:
    native: tuple[DistroRow, ...]
    wsl: tuple[DistroRow, ...]
    wsl_unsupported_targets: tuple[str, ...] = ()  # gfx prefixes ("gfx10")
    wsl_gpus_url: str = ""


@functools.cache
def distro_table() -> DistroTable:
    return parse_distro_table(load_toml_resource("rocm_distros.toml"))


def _row(row: dict[str, Any]) -> DistroRow:
    return DistroRow(tuple(str(r) for r in row.get("rocm", ())),
                     tuple(str(t) for t in row.get("targets", ("gfx",))),
                     tuple(str(d) for d in row["distros"]), str(row["source"]), str(row["url"]),
                     prose(str(row.get("scope", ""))))


def parse_distro_table(doc: dict[str, Any]) -> DistroTable:
    gpus = doc.get("wsl_gpus", {})
    return DistroTable(tuple(_row(row) for row in doc.get("release", [])),
                       tuple(_row(row) for row in doc.get("wsl", [])),
                       tuple(str(t) for t in gpus.get("unsupported", ())),
                       str(gpus.get("url", "")))


# Families by the words their os-release, /etc/*release or a kernel's build names them with;
# the more specific names first (Oracle Linux's release file also names RHEL).
_FAMILIES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\boracle linux\b"), "Oracle Linux"),
    (re.compile(r"\brocky linux\b"), "Rocky Linux"),
    (re.compile(r"\balmalinux\b"), "AlmaLinux"),
    (re.compile(r"\bcentos stream\b"), "CentOS Stream"),
    (re.compile(r"\bcentos\b"), "CentOS"),
    (re.compile(r"red hat enterprise linux|\brhel\b"), "RHEL"),
    (re.compile(r"\bfedora\b"), "Fedora"),
    (re.compile(r"\bubuntu\b"), "Ubuntu"),
    (re.compile(r"\bdebian\b"), "Debian"),
    (re.compile(r"suse linux enterprise|\bsles\b"), "SLES"),
    (re.compile(r"\bopensuse\b"), "openSUSE"),
    (re.compile(r"\bazure linux\b"), "Azure Linux"),
)
# The first version number after the family's name: "22.04" of "22.04.5 LTS", "7.6" of
# "release 7.6.1810 (Core)", "12" of "GNU/Linux 12 (bookworm)".
_VERSION = re.compile(r"(?<![\w.])(\d{1,4})(?:\.(\d{1,4}))?")
# Names that say where Linux runs, not which distribution it is (a WSL kernel's hint).
_NOT_A_DISTRIBUTION = re.compile(r"(?:wsl|windows subsystem for linux)\b|(?:gnu/)?linux$|unknown$")


@dataclass(frozen=True, slots=True)
class _Distro:
    family: str
    major: str | None
    minor: str | None

    def label(self) -> str:
        version = ".".join(v for v in (self.major, self.minor) if v is not None)
        return f"{self.family} {version}".rstrip()


def _parse(name: str) -> _Distro | None:
    lowered = name[:_MAX_NAME_CHARS].lower()
    for pattern, family in _FAMILIES:
        match = pattern.search(lowered)
        if match is None:
            continue
        version = _VERSION.search(lowered, match.end())
        if version is None:
            return _Distro(family, None, None)
        return _Distro(family, version.group(1), version.group(2))
    return None


def normalise_distro(pretty_name: str | None) -> str | None:
    """'Ubuntu 22.04.5 LTS' -> 'Ubuntu 22.04'; 'Red Hat Enterprise Linux 9.6 (Plow)' ->
    'RHEL 9.6'; 'Oracle Linux Server 9.4' -> 'Oracle Linux 9.4'; a distribution of no known
    family is returned as given (it is then simply not on any list)."""
    if not pretty_name or not pretty_name.strip():
        return None
    parsed = _parse(pretty_name)
    return parsed.label() if parsed is not None else pretty_name.strip()[:_MAX_NAME_CHARS]


def _on_list(listed: tuple[str, ...], pretty_name: str) -> bool | None:
    """True: a listed entry names this distribution; False: none does; None: it depends on a
    version the name does not give ("Ubuntu" against "Ubuntu 22.04"), or the name is no
    distribution ("WSL 2")."""
    if _NOT_A_DISTRIBUTION.match(pretty_name.strip()[:_MAX_NAME_CHARS].lower()):
        return None
    distro = _parse(pretty_name)
    if distro is None:
        return False
    unknown = False
    for entry in listed:
        wanted = _parse(entry)
        if wanted is None or wanted.family != distro.family:
            continue
        if wanted.major is None:
            return True
        if distro.major is None:
            unknown = True
        elif distro.major == wanted.major:
            if wanted.minor is None or distro.minor == wanted.minor:
                return True
            if distro.minor is None:
                unknown = True
    return None if unknown else False


def _release_matches(listed: str, rocm_version: str) -> bool:
    return rocm_version == listed or rocm_version.startswith(listed + ".") or (
        listed.count(".") == 2 and rocm_version.split("-")[0] == listed)


def _verdict(row: DistroRow, pretty_name: str) -> DistroVerdict:
    return DistroVerdict(_on_list(row.distros, pretty_name), normalise_distro(pretty_name),
                         row.distros, row.url, row.scope)


def distro_support(gfx_target: str, rocm_version: str | None,
                   distro_pretty_name: str | None) -> DistroVerdict:
    """Is this distribution on AMD's list for this ROCm release and GPU (native Linux)?"""
    distro = normalise_distro(distro_pretty_name)
    if not rocm_version or distro is None or distro_pretty_name is None:
        return DistroVerdict(None, distro)
    for row in distro_table().native:
        if not any(gfx_target.startswith(t) for t in row.targets):
            continue
        if any(_release_matches(r, rocm_version) for r in row.rocm):
            return _verdict(row, distro_pretty_name)
    return DistroVerdict(None, distro)


def wsl_distro_support(rocm_version: str | None,
                       distro_pretty_name: str | None) -> DistroVerdict:
    """Is this WSL distribution one AMD lists for ROCm on WSL? The release may be unknown:
    the rows without releases speak for every one."""
    distro = normalise_distro(distro_pretty_name)
    if distro is None or distro_pretty_name is None:
        return DistroVerdict(None, distro)
    for row in distro_table().wsl:
        if not row.rocm or (rocm_version and any(_release_matches(r, rocm_version)
                                                 for r in row.rocm)):
            return _verdict(row, distro_pretty_name)
    return DistroVerdict(None, distro)


def wsl_gpu_support(gfx_target: str | None) -> WslGpuVerdict:
    """Can a GPU of this target run ROCm under WSL at all? False where AMD's WSL lists have
    never named a GPU of its family (RDNA2 and older, Instinct); None where gpuscope does not
    judge (the lists name some GPUs of the newer families, per release)."""
    table = distro_table()
    target = (gfx_target or "").strip().lower()
    if not target.startswith("gfx") or not table.wsl_unsupported_targets:
        return WslGpuVerdict(None)
    if any(target.startswith(prefix) for prefix in table.wsl_unsupported_targets):
        return WslGpuVerdict(False, table.wsl_gpus_url or None)
    return WslGpuVerdict(None)
