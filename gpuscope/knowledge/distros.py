"""Which Linux distributions AMD supports ROCm on for Radeon GPUs, per release.

Only the releases whose documentation restricts Radeon support to named distributions are
in the table; elsewhere the answer is "unknown" and the doctor says nothing.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from gpuscope.knowledge._resources import load_toml_resource


@dataclass(frozen=True, slots=True)
class DistroRow:
    rocm: tuple[str, ...]
    targets: tuple[str, ...]  # gfx prefixes
    distros: tuple[str, ...]  # "Ubuntu 22.04", "RHEL 9.6"
    source: str  # for maintainers: never shown to users
    url: str  # the public page of AMD's list


@dataclass(frozen=True, slots=True)
class DistroVerdict:
    supported: bool | None  # None: gpuscope's table has nothing to say
    distro: str | None  # the distribution as gpuscope understood it: "Ubuntu 22.04"
    listed: tuple[str, ...] = ()
    source: str | None = None  # the public page of AMD's list (a URL)


@functools.cache
def distro_table() -> tuple[DistroRow, ...]:
    return parse_distro_table(load_toml_resource("rocm_distros.toml"))


def parse_distro_table(doc: dict[str, Any]) -> tuple[DistroRow, ...]:
    rows = []
    for row in doc.get("release", []):
        rows.append(DistroRow(tuple(row["rocm"]), tuple(row["targets"]), tuple(row["distros"]),
                              str(row["source"]), str(row["url"])))
    return tuple(rows)


_UBUNTU = re.compile(r"\bubuntu\s+(\d+\.\d+)", re.IGNORECASE)
_RHEL = re.compile(r"(?:red hat enterprise linux|\brhel)\D*(\d+\.\d+)", re.IGNORECASE)


def normalise_distro(pretty_name: str | None) -> str | None:
    """'Ubuntu 22.04.5 LTS' -> 'Ubuntu 22.04'; 'Red Hat Enterprise Linux 9.6 (Plow)' ->
    'RHEL 9.6'; anything else is returned as given (it is then simply not on the list)."""
    if not pretty_name:
        return None
    if match := _UBUNTU.search(pretty_name):
        return f"Ubuntu {match.group(1)}"
    if match := _RHEL.search(pretty_name):
        return f"RHEL {match.group(1)}"
    return pretty_name.strip()


def _release_matches(listed: str, rocm_version: str) -> bool:
    return rocm_version == listed or rocm_version.startswith(listed + ".") or (
        listed.count(".") == 2 and rocm_version.split("-")[0] == listed)


def radeon_distro_support(gfx_target: str, rocm_version: str | None,
                          distro_pretty_name: str | None) -> DistroVerdict:
    distro = normalise_distro(distro_pretty_name)
    if not rocm_version or distro is None:
        return DistroVerdict(None, distro)
    for row in distro_table():
        if not any(gfx_target.startswith(t) for t in row.targets):
            continue
        if any(_release_matches(r, rocm_version) for r in row.rocm):
            return DistroVerdict(distro in row.distros, distro, row.distros, row.url)
    return DistroVerdict(None, distro)
