"""Which ROCm release an amdgpu-dkms driver version ships with, from
resources/amdgpu_dkms_releases.toml.

`dkms status`, rocminfo ("ROCk module version 6.12.12"), amd-smi and the kernel log name the
out-of-tree driver's version, and AMD builds each driver version for one ROCm release series
(6.12.12 for 6.4.x). When no output names the ROCm version itself, that release is the best
guess for the ROCm installed beside it (amdgpu-install installs both from one release); from
ROCm 7.0 on the driver is released on its own and works with several ROCm releases, so the
answer is the release it came out with.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gpuscope.knowledge._resources import load_toml_resource

RESOURCE = "amdgpu_dkms_releases.toml"
_VERSION = re.compile(r"(\d{1,3})\.(\d{1,3})\.(\d{1,4})")
_SERIES = re.compile(r"\d{1,3}\.\d{1,3}")


class DriverTableError(ValueError):
    """resources/amdgpu_dkms_releases.toml does not have the expected shape."""


@dataclass(frozen=True, slots=True)
class DriverRelease:
    driver_version: str  # "6.12.12"
    rocm: str  # the ROCm release series it ships with: "6.4"
    sources: tuple[str, ...]  # public pages that show the pairing
    driver_release: str = ""  # "30.10": the AMD GPU Driver release (from ROCm 7.0 on)


def _key(text: str) -> tuple[int, int, int] | None:
    match = _VERSION.match(text.strip())
    if match is None:
        return None
    major, minor, patch = match.groups()
    return int(major), int(minor), int(patch)


def parse_driver_table(doc: Mapping[str, Any]) -> dict[tuple[int, int, int], DriverRelease]:
    """The TOML document to driver version -> release; raises DriverTableError."""
    rows = doc.get("driver")
    if not isinstance(rows, list) or not rows:
        raise DriverTableError("no [[driver]] rows")
    table: dict[tuple[int, int, int], DriverRelease] = {}
    for row in rows:
        if not isinstance(row, dict):
            raise DriverTableError("a [[driver]] row is not a table")
        version, rocm = row.get("version"), row.get("rocm")
        sources, release = row.get("sources"), row.get("driver_release", "")
        key = _key(version) if isinstance(version, str) else None
        if key is None or f"{key[0]}.{key[1]}.{key[2]}" != version:
            raise DriverTableError(f"bad driver version {version!r}")
        if not isinstance(rocm, str) or not _SERIES.fullmatch(rocm):
            raise DriverTableError(f"{version}: rocm must be a release series like '6.4'")
        if not isinstance(sources, list) or not sources or not all(
                isinstance(s, str) and s.startswith("https://") for s in sources):
            raise DriverTableError(f"{version}: sources must be https:// addresses")
        if not isinstance(release, str) or not isinstance(row.get("evidence", ""), str):
            raise DriverTableError(f"{version}: driver_release and evidence must be strings")
        if key in table:
            raise DriverTableError(f"{version} is listed twice")
        table[key] = DriverRelease(version, rocm, tuple(sources), release)
    return table


@functools.cache
def driver_table() -> dict[tuple[int, int, int], DriverRelease]:
    """The packaged table, loaded once."""
    return parse_driver_table(load_toml_resource(RESOURCE))


def rocm_release_of_driver(version: str | None) -> DriverRelease | None:
    """The ROCm release the amdgpu-dkms `version` ("6.12.12", "6.12.12-2147987.24.04")
    ships with; None for a version the table does not know (an in-tree driver's kernel
    release among them). Never raises."""
    if not version:
        return None
    key = _key(version[:100])
    return driver_table().get(key) if key is not None else None
