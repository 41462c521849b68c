"""CUDA facts: the minimum NVIDIA driver per CUDA release, minor-version compatibility, and
compute capability -> architecture and the CUDA release that dropped it, from
resources/cuda_drivers.toml (NVIDIA's CUDA Toolkit Release Notes, Table 3; each row carries
its public URLs).

A driver older than a CUDA release's minimum is not fatal within the same major version: CUDA
12.x runs on any driver from 525 through minor-version compatibility (torch 2.7.1+cu128 ran on
550.127), so that case is a warning, not an error. A driver runs every CUDA release older than
one it fully supports (the driver is backward compatible), whether or not the table has a row
for that older release. Every lookup takes any text and never raises.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from gpuscope.i18n import join, message, prose
from gpuscope.knowledge._resources import load_toml_resource, table_rows

RESOURCE = "cuda_drivers.toml"
OSES = ("linux", "windows")

DriverStatus = Literal["ok", "minor_compat", "too_old", "unknown"]

_DRIVER = re.compile(r"\d{1,4}(?:\.\d{1,4}){0,3}")
_CUDA = re.compile(r"(\d{1,2})\.(\d{1,2})(?:\.(\d{1,4}))?")
_CC = re.compile(r"\d{1,2}\.\d")
# An update number above this is a build number (nvcc prints "V12.8.93"), not "Update N".
_MAX_UPDATE = 9


class CudaTableError(ValueError):
    """resources/cuda_drivers.toml does not have the expected shape."""


@dataclass(frozen=True, slots=True)
class DriverRequirement:
    """The drivers a CUDA release needs on one OS."""

    cuda_version: str  # as asked, normalised: "12.8.1"
    os: str
    min_driver: str | None  # minimum for full support; None where the table has no figure
    minor_compat_min: str | None  # runs from here through minor-version compatibility
    row: str | None  # the table row the minimum comes from: "12.8 Update 1", "12.8 GA"
    exact: bool  # the row is the asked release itself (not a neighbouring update)
    note: str
    source: str  # the maintainers' provenance note: never shown to users
    urls: tuple[str, ...] = ()  # public pages the figures come from


@dataclass(frozen=True, slots=True)
class DriverVerdict:
    """Whether a driver runs a CUDA release."""

    status: DriverStatus  # minor_compat: runs, with caveats (a warning, not an error)
    driver_version: str
    cuda_version: str
    note: str
    requirement: DriverRequirement | None


@dataclass(frozen=True, slots=True)
class Toolkit:
    version: str  # "12.4"
    key: tuple[int, int]
    update: int
    linux: str | None
    windows: str | None
    windows_note: str
    source: str
    urls: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return f"{self.version} {'GA' if self.update == 0 else f'Update {self.update}'}"


@dataclass(frozen=True, slots=True)
class MinorCompat:
    major: int
    linux: str
    source: str
    urls: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ArchitectureInfo:
    """One compute capability: its architecture, example GPUs, the CUDA release dropping it."""

    cc: str  # "8.9"
    sm: str  # "sm_89"
    architecture: str  # "Ada Lovelace"
    variant: str | None  # "datacenter" for Blackwell 10.x, …
    examples: tuple[str, ...]
    dropped_in: str | None  # the CUDA release that removed it
    note: str
    source: str


@dataclass(frozen=True, slots=True)
class CudaTable:
    toolkits: tuple[Toolkit, ...]
    minor_compat: Mapping[int, MinorCompat]
    architectures: Mapping[tuple[int, int], ArchitectureInfo]
    # The first PCI device id of a GPU with a GSP (the open kernel modules' floor), and where
    # that is written.
    open_module_first_device_id: int | None = None
    kernel_module_urls: tuple[str, ...] = ()


# ----------------------------------------------------------------------------- parsing


def driver_key(version: str | None) -> tuple[int, ...] | None:
    """"550.54.14" -> (550, 54, 14); "551.61" -> (551, 61); not a driver version -> None."""
    if not isinstance(version, str):
        return None
    text = version.strip()[:40]
    if not _DRIVER.fullmatch(text):
        return None
    return tuple(int(p) for p in text.split("."))


def parse_cc(cc: str | None) -> tuple[int, int] | None:
    """"8.9", "sm_89", "sm89", "compute_90a", "89", "12.0", "sm_120" -> (major, minor); else
    None."""
    if not isinstance(cc, str):
        return None
    text = cc.strip().lower()[:40]
    match = re.fullmatch(r"(\d{1,2})\.(\d)", text)
    if match:
        return int(match.group(1)), int(match.group(2))
    match = re.fullmatch(r"(?:sm_?|compute_?)?(\d{1,2})(\d)[af]?", text)
    if match:
        return int(match.group(1)), int(match.group(2))
    return None


def _cuda_key(version: str | None) -> tuple[int, int, int | None] | None:
    if not isinstance(version, str):
        return None
    text = version.strip().lower()[:200]
    match = re.fullmatch(r"cu(\d{1,2})(\d)", text)
    if match:
        return int(match.group(1)), int(match.group(2)), None
    match = _CUDA.search(text)
    if match is None:
        return None
    update = int(match.group(3)) if match.group(3) is not None else None
    return int(match.group(1)), int(match.group(2)), update


def parse_cuda_table(doc: Mapping[str, Any]) -> CudaTable:
    """The TOML document to a CudaTable; raises CudaTableError on a malformed row."""
    toolkits = tuple(_toolkit(row) for row in table_rows(doc, "toolkit", CudaTableError))
    keys = [(t.key, t.update) for t in toolkits]
    if not toolkits or keys != sorted(keys) or len(set(keys)) != len(keys):
        raise CudaTableError("[[toolkit]] rows must be unique and in ascending order")
    for earlier, later in itertools.pairwise(toolkits):
        for os_name in OSES:
            a, b = getattr(earlier, os_name), getattr(later, os_name)
            if a is not None and b is not None and _dk(b) < _dk(a):
                raise CudaTableError(f"{later.label}: {os_name} minimum older than {earlier.label}")
    minor: dict[int, MinorCompat] = {}
    for row in table_rows(doc, "minor_compat", CudaTableError):
        major, linux = row.get("major"), row.get("linux")
        if not isinstance(major, int) or isinstance(major, bool) or not isinstance(linux, str):
            raise CudaTableError("a [[minor_compat]] needs major (int) and linux (driver)")
        if driver_key(linux) is None or major in minor:
            raise CudaTableError(f"bad or repeated [[minor_compat]] for {major}")
        minor[major] = MinorCompat(major, linux, _source(row, f"minor_compat {major}"),
                                   _urls(row, f"minor_compat {major}"))
    architectures: dict[tuple[int, int], ArchitectureInfo] = {}
    for row in table_rows(doc, "architecture", CudaTableError):
        for info in _architecture(row):
            key = parse_cc(info.cc)
            assert key is not None
            if key in architectures:
                raise CudaTableError(f"compute capability {info.cc} in two rows")
            architectures[key] = info
    first_device, module_urls = _kernel_modules(doc)
    return CudaTable(toolkits=toolkits, minor_compat=minor, architectures=architectures,
                     open_module_first_device_id=first_device, kernel_module_urls=module_urls)


def _kernel_modules(doc: Mapping[str, Any]) -> tuple[int | None, tuple[str, ...]]:
    row = doc.get("kernel_modules")
    if row is None:
        return None, ()
    if not isinstance(row, dict):
        raise CudaTableError("[kernel_modules] is not a table")
    first = row.get("open_first_device_id")
    if not isinstance(first, str) or not re.fullmatch(r"0x[0-9a-f]{4}", first):
        raise CudaTableError("[kernel_modules] open_first_device_id must look like '0x1e00'")
    _source(row, "kernel_modules")
    return int(first, 16), _urls(row, "kernel_modules")


def _dk(version: str) -> tuple[int, ...]:
    key = driver_key(version)
    assert key is not None
    return key


def _urls(row: Mapping[str, Any], where: str) -> tuple[str, ...]:
    urls = row.get("urls")
    if (not isinstance(urls, list) or not urls
            or not all(isinstance(u, str) and u.startswith("https://") for u in urls)):
        raise CudaTableError(f"{where}: urls must be a non-empty list of https:// URLs")
    return tuple(urls)


def _source(row: Mapping[str, Any], where: str) -> str:
    source = row.get("source")
    if not isinstance(source, str) or not source:
        raise CudaTableError(f"{where}: no source")
    return source


def _toolkit(row: Mapping[str, Any]) -> Toolkit:
    version = row.get("version")
    if not isinstance(version, str) or not re.fullmatch(r"\d{1,2}\.\d{1,2}", version):
        raise CudaTableError(f"bad toolkit version {version!r}")
    update = row.get("update")
    if not isinstance(update, int) or isinstance(update, bool) or not 0 <= update <= _MAX_UPDATE:
        raise CudaTableError(f"{version}: update must be an integer 0-{_MAX_UPDATE}")
    drivers: dict[str, str | None] = {}
    for os_name in OSES:
        value = row.get(os_name)
        if value is not None and (not isinstance(value, str) or driver_key(value) is None):
            raise CudaTableError(f"{version}: bad {os_name} driver {value!r}")
        drivers[os_name] = value
    windows_note = row.get("windows_note", "")
    if not isinstance(windows_note, str) or (drivers["windows"] is None) == (not windows_note):
        raise CudaTableError(f"{version}: give either a windows driver or a windows_note")
    if drivers["linux"] is None:
        raise CudaTableError(f"{version}: no linux driver")
    major, minor = (int(p) for p in version.split("."))
    return Toolkit(version=version, key=(major, minor), update=update, linux=drivers["linux"],
                   windows=drivers["windows"], windows_note=windows_note,
                   source=_source(row, version), urls=_urls(row, version))


def _architecture(row: Mapping[str, Any]) -> list[ArchitectureInfo]:
    name, ccs = row.get("name"), row.get("cc")
    if not isinstance(name, str) or not name:
        raise CudaTableError("an [[architecture]] without a name")
    if (not isinstance(ccs, list) or not ccs
            or not all(isinstance(c, str) and _CC.fullmatch(c) for c in ccs)):
        raise CudaTableError(f"{name}: cc must be a list like ['8.9']")
    dropped = row.get("dropped_in")
    if dropped is not None and (not isinstance(dropped, str)
                                or not re.fullmatch(r"\d{1,2}\.\d", dropped)):
        raise CudaTableError(f"{name}: bad dropped_in {dropped!r}")
    variant, note, examples = row.get("variant"), row.get("note", ""), row.get("examples", [])
    if variant is not None and not isinstance(variant, str):
        raise CudaTableError(f"{name}: variant must be a string")
    if not isinstance(note, str) or not isinstance(examples, list) or not all(
            isinstance(e, str) for e in examples):
        raise CudaTableError(f"{name}: bad note or examples")
    source = _source(row, name)
    return [ArchitectureInfo(cc=cc, sm=f"sm_{cc.replace('.', '')}", architecture=name,
                             variant=variant, examples=tuple(examples), dropped_in=dropped,
                             note=note, source=source) for cc in ccs]


@functools.cache
def cuda_table() -> CudaTable:
    """The packaged table, loaded once."""
    return parse_cuda_table(load_toml_resource(RESOURCE))


# ----------------------------------------------------------------------------- drivers


def _normalise_os(os: str | None) -> str | None:
    if not isinstance(os, str):
        return None
    text = os.strip().lower()
    if text.startswith("linux"):
        return "linux"
    if text in ("windows", "win32", "win64", "win", "nt"):
        return "windows"
    return None


def min_driver_for_cuda(cuda_version: str, os: str = "linux") -> DriverRequirement | None:
    """The driver a CUDA release ("12.8", "12.8.1" = Update 1, "cu128") needs on "linux" or
    "windows"; None when the table knows nothing for that release and OS. Never raises."""
    key = _cuda_key(cuda_version)
    os_name = _normalise_os(os)
    if key is None or os_name is None:
        return None
    major, minor, update = key
    table = cuda_table()
    asked = f"{major}.{minor}" + (f".{update}" if update is not None else "")
    compat = table.minor_compat.get(major) if os_name == "linux" else None
    rows = [t for t in table.toolkits if t.key == (major, minor)]
    wanted = 0 if update is None or update > _MAX_UPDATE else update
    candidates = [t for t in rows if t.update <= wanted]
    row = candidates[-1] if candidates else None
    notes: list[str] = []
    if row is None:
        if compat is None:
            return None
        notes.append(message("The table has no driver minimum for CUDA {cuda}; any {major}.x "
                             "release runs from driver {driver} on through minor-version "
                             "compatibility.", cuda=f"{major}.{minor}", major=major,
                             driver=compat.linux))
        return DriverRequirement(
            cuda_version=asked, os=os_name, min_driver=None, minor_compat_min=compat.linux,
            row=None, exact=False, note=join(" ", notes), source=compat.source,
            urls=compat.urls)
    exact = (update is None and row.update == 0) or update == row.update
    if not exact:
        notes.append(_not_a_row(asked, update, row.label))
    minimum = row.linux if os_name == "linux" else row.windows
    if minimum is None:
        notes.append(prose(row.windows_note))
    if compat is not None:
        notes.append(message("Drivers from {driver} on run any CUDA {major}.x through "
                             "minor-version compatibility, with caveats (no JIT of newer PTX).",
                             driver=compat.linux, major=major))
    sources = [row.source] + ([compat.source] if compat is not None else [])
    urls = tuple(dict.fromkeys([*row.urls, *(compat.urls if compat is not None else ())]))
    return DriverRequirement(
        cuda_version=asked, os=os_name, min_driver=minimum,
        minor_compat_min=compat.linux if compat else None, row=row.label, exact=exact,
        note=join(" ", notes), source="; ".join(sources), urls=urls)


def _not_a_row(asked: str, update: int | None, row_label: str) -> str:
    """Why the minimum shown is another row's: the asked release is not a row of the table."""
    if update is not None and update > _MAX_UPDATE:
        return message("{asked}: .{update} read as a build number, not an update; the {row} "
                       "minimum is shown.", asked=asked, update=update, row=row_label)
    return message("CUDA {asked} is not a row of the table; the {row} minimum is shown and a "
                   "later update may need a newer driver.", asked=asked, row=row_label)


def driver_supports(driver_version: str, cuda_version: str, os: str = "linux") -> DriverVerdict:
    """Whether an NVIDIA driver ("550.127.05") runs a CUDA release: ok, minor_compat (runs
    through minor-version compatibility: warn, do not fail), too_old, or unknown. Never
    raises."""
    requirement = min_driver_for_cuda(cuda_version, os)
    asked = requirement.cuda_version if requirement else cuda_version
    driver = driver_key(driver_version)
    if driver is None:
        return DriverVerdict("unknown", driver_version, asked,
                             message("{driver} is not an NVIDIA driver version.",
                                     driver=repr(driver_version)), requirement)
    os_name = _normalise_os(os)
    asked_key = _cuda_key(cuda_version)
    newer = _newest_full_support(driver, os_name) if os_name else None
    if (newer is not None and asked_key is not None
            and (requirement is None or requirement.min_driver is None)
            and (asked_key[0], asked_key[1], _update(asked_key[2])) <= (*newer.key, newer.update)):
        # No figure for this release, but the driver fully runs a newer one: drivers are
        # backward compatible, so it runs this older release too.
        assert os_name is not None
        return DriverVerdict(
            "ok", driver_version, asked,
            message("Driver {driver} fully supports CUDA {newer} (from {minimum}), so it runs "
                    "the older CUDA {asked} too.", driver=driver_version, newer=newer.version,
                    minimum=_minimum_of(newer, os_name), asked=asked),
            requirement)
    if requirement is None:
        return DriverVerdict("unknown", driver_version, asked,
                             message("The table has no driver requirement for CUDA {cuda} on "
                                     "{os}.", cuda=repr(cuda_version), os=os), requirement)
    minimum, compat = requirement.min_driver, requirement.minor_compat_min
    if minimum is not None and driver >= _dk(minimum):
        values = {"driver": driver_version, "asked": asked, "minimum": minimum,
                  "row": requirement.row}
        notes = [message("Driver {driver} meets the CUDA {asked} minimum ({minimum}, {row}).",
                         **values) if requirement.row else
                 message("Driver {driver} meets the CUDA {asked} minimum ({minimum}).",
                         **values)]
        if not requirement.exact and requirement.row:
            # The first of the requirement's notes: why another row's minimum is shown.
            notes.append(_not_a_row(asked, asked_key[2] if asked_key else None,
                                    requirement.row))
        return DriverVerdict("ok", driver_version, asked, join(" ", notes), requirement)
    if compat is not None and driver >= _dk(compat):
        values = {"driver": driver_version, "asked": asked, "minimum": minimum,
                  "compat": compat, "major": asked.split(".")[0]}
        return DriverVerdict(
            "minor_compat", driver_version, asked,
            message("Driver {driver} is older than the CUDA {asked} minimum {minimum}, but "
                    "drivers from {compat} on run CUDA {major}.x through minor-version "
                    "compatibility: it works, without JIT of newer PTX. Update the driver to "
                    "remove this warning.", **values) if minimum else
            message("Driver {driver} has no listed full-support figure for CUDA {asked}, but "
                    "drivers from {compat} on run CUDA {major}.x through minor-version "
                    "compatibility: it works, without JIT of newer PTX. Update the driver to "
                    "remove this warning.", **values), requirement)
    if minimum is None and compat is None:
        return DriverVerdict("unknown", driver_version, asked, requirement.note, requirement)
    needed = minimum if minimum is not None else compat
    values = {"driver": driver_version, "asked": asked, "needed": needed, "compat": compat}
    return DriverVerdict(
        "too_old", driver_version, asked,
        message("Driver {driver} is too old for CUDA {asked}: it needs {needed} or newer "
                "({compat} or newer at least, through minor-version compatibility).", **values)
        if compat is not None and minimum is not None else
        message("Driver {driver} is too old for CUDA {asked}: it needs {needed} or newer.",
                **values), requirement)


def _update(update: int | None) -> int:
    return 0 if update is None or update > _MAX_UPDATE else update


def _minimum_of(toolkit: Toolkit, os_name: str) -> str | None:
    return toolkit.linux if os_name == "linux" else toolkit.windows


def _newest_full_support(driver: tuple[int, ...], os_name: str) -> Toolkit | None:
    """The newest toolkit row whose minimum this driver meets on this OS."""
    best: Toolkit | None = None
    for toolkit in cuda_table().toolkits:
        minimum = _minimum_of(toolkit, os_name)
        if minimum is not None and driver >= _dk(minimum):
            best = toolkit
    return best


def newest_cuda_for_driver(driver_version: str, os: str = "linux") -> str | None:
    """The newest CUDA release ("12.4") the table says this driver fully supports; None when
    the driver is not a version or older than every row. Never raises."""
    driver, os_name = driver_key(driver_version), _normalise_os(os)
    if driver is None or os_name is None:
        return None
    toolkit = _newest_full_support(driver, os_name)
    return toolkit.version if toolkit else None


# ----------------------------------------------------------------------------- architectures


ArchCoverage = Literal["cubin", "ptx", "none", "unknown"]
_ARCH_ENTRY = re.compile(r"(sm|compute)_?(\d{1,2})(\d)([af]?)")


def arch_list_covers(arch_list: Sequence[str], cc: str) -> ArchCoverage:
    """Whether a CUDA build's arch list (torch.cuda.get_arch_list(): "sm_50", "sm_90a",
    "compute_90") has code for a GPU of compute capability `cc`: "cubin" (a cubin of the same
    major and an equal or lower minor: sm_86 code runs on an 8.9 GPU; an "a" cubin only on its
    own capability), "ptx" (PTX of an equal or lower capability, compiled at load time),
    "none", or "unknown" (unreadable capability or an empty list). Never raises."""
    gpu = parse_cc(cc) if isinstance(cc, str) else None
    if gpu is None or not arch_list:
        return "unknown"
    ptx = False
    for entry in arch_list:
        match = _ARCH_ENTRY.fullmatch(entry.strip().lower()[:20]) if isinstance(
            entry, str) else None
        if match is None:
            continue
        kind, major, minor, suffix = match.group(1), int(match.group(2)), int(
            match.group(3)), match.group(4)
        if kind == "compute":
            ptx = ptx or (major, minor) <= gpu
        elif suffix == "a":
            if (major, minor) == gpu:
                return "cubin"
        elif major == gpu[0] and minor <= gpu[1]:
            return "cubin"
    return "ptx" if ptx else "none"




def cc_info(cc: str) -> ArchitectureInfo | None:
    """What the table says about a compute capability ("8.9", "sm_89"); None when unknown."""
    key = parse_cc(cc)
    return cuda_table().architectures.get(key) if key else None


def architecture_for_cc(cc: str) -> str | None:
    """"8.9" -> "Ada Lovelace", "10.0" -> "Blackwell"; None when the table does not know it."""
    info = cc_info(cc)
    return info.architecture if info else None


def sm_name(cc: str) -> str | None:
    """"8.9" -> "sm_89", "12.0" -> "sm_120"; None when it is not a compute capability."""
    key = parse_cc(cc)
    return f"sm_{key[0]}{key[1]}" if key else None


def cuda_dropped(cc: str) -> str | None:
    """The CUDA release that removed support for this compute capability ("6.1" -> "13.0");
    None when it is still supported or the table does not know it (see cc_info)."""
    info = cc_info(cc)
    return info.dropped_in if info else None


# ----------------------------------------------------------------------------- kernel modules


def has_gsp(device_id: str | None) -> bool | None:
    """Whether the NVIDIA GPU with this PCI device id ("0x139a", "1E04") has a GPU System
    Processor, which NVIDIA's open kernel modules need (Turing and later do; Volta and earlier
    do not); None when the id cannot be read or the table does not say."""
    if not isinstance(device_id, str):
        return None
    text = device_id.strip().lower()[:10].removeprefix("0x")
    first = cuda_table().open_module_first_device_id
    if first is None or not re.fullmatch(r"[0-9a-f]{4}", text):
        return None
    return int(text, 16) >= first


def kernel_module_urls() -> tuple[str, ...]:
    """Public pages on NVIDIA's two kernel module flavours (open and proprietary)."""
    return cuda_table().kernel_module_urls
