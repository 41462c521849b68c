"""PyTorch's official wheels: which CUDA and ROCm flavours each release published, the GPU
targets those wheels carry, and the pip command for one, from resources/pytorch_wheels.toml
(each row with the public URLs it comes from).

"Will this torch build run natively on this GPU" is `gfx in torch.cuda.get_arch_list()` on
ROCm; gpuscope never imports torch, so the lists of the official wheels live here for the
cases where the worker could not report the real list. Lookups never raise: what the table
does not know is None.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from gpuscope.knowledge._resources import load_toml_resource, table_rows
from gpuscope.knowledge.versions import major_minor, rocm_release

RESOURCE = "pytorch_wheels.toml"

Build = Literal["cuda", "rocm", "cpu"]
Coverage = Literal["native", "ptx", "none"]

_SERIES = re.compile(r"\d+\.\d+")
_FLAVOUR_VERSION = re.compile(r"\d+\.\d+(?:\.\d+)?")
_CC = re.compile(r"\d{1,2}\.\d")
_GFX = re.compile(r"gfx[0-9a-f]{3,4}")
# 2.3.0, 2.10.0a0, 2.10.0.dev20251001, 2.9.0rc1, then an optional +local part
_TORCH = re.compile(
    r"\s*v?(?P<major>\d{1,4})\.(?P<minor>\d{1,4})(?:\.(?P<micro>\d{1,6}))?"
    r"(?P<pre>[.\-_]?(?:a|b|rc|dev|post|alpha|beta)[.\-_]?\d*)*"
    r"(?:\+(?P<local>[A-Za-z0-9._\-]*))?\s*", re.IGNORECASE)
_ROCM_LOCAL = re.compile(r"rocm(?P<version>\d+\.\d+(?:\.\d+)?)(?P<rest>.*)", re.IGNORECASE)
_CUDA_LOCAL = re.compile(r"cu(?P<digits>\d{2,4})(?P<rest>.*)", re.IGNORECASE)


class TorchTableError(ValueError):
    """resources/pytorch_wheels.toml does not have the expected shape."""


@dataclass(frozen=True, slots=True)
class TorchRelease:
    """One PyTorch release series (every 2.3.x) and its official wheels."""

    version: str  # "2.3"
    cuda: tuple[str, ...]  # CUDA flavours on the pytorch.org index, as versions ("12.1")
    rocm: tuple[str, ...]  # ROCm flavours ("6.0", "6.2.4")
    pypi_default_cuda: str  # the CUDA flavour of the plain PyPI wheel on Linux
    python_min: str
    python_max: str
    python_experimental: str | None
    cudnn: Mapping[str, str] = field(hash=False)  # CUDA flavour (or "*") -> cuDNN version
    note: str = ""
    source: str = ""  # the maintainers' provenance note: never shown to users
    tags: Mapping[str, str] = field(hash=False, default_factory=dict)  # where not [V]
    urls: tuple[str, ...] = ()  # public pages the row comes from

    def has_wheel(self, build: str, build_version: str | None) -> bool:
        """Whether the release published an official wheel of this build and flavour."""
        kind = normalise_build(build)
        if kind == "cpu":
            return True
        if kind is None or build_version is None:
            return False
        flavour = normalise_flavour(kind, build_version)
        return flavour in (self.cuda if kind == "cuda" else self.rocm)


@dataclass(frozen=True, slots=True)
class TorchVersion:
    """A torch version string taken apart: "2.10.0a0+rocm7.10.0a20251120"."""

    text: str
    release: str  # "2.10"
    version: str  # "2.10.0"
    prerelease: bool  # a0, rc1, .dev…: not a published release
    local: str | None  # "rocm7.10.0a20251120"
    build: Build | None  # None: no local part, or one gpuscope does not know
    build_version: str | None  # "7.10.0a20251120"; "12.8" for +cu128; None for +rocmsdk…

    @property
    def official_flavour(self) -> bool:
        """The local part names a flavour pytorch.org published for this release."""
        release = torch_release(self.release)
        if release is None or self.build is None or self.prerelease:
            return False
        return release.has_wheel(self.build, self.build_version)


@dataclass(frozen=True, slots=True)
class RocmArchRow:
    torch: tuple[str, ...]  # () = every release
    rocm: tuple[str, ...]
    exact: bool
    targets: tuple[str, ...]
    source: str
    urls: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class CudaArchRow:
    torch: tuple[str, ...]
    cuda: tuple[str, ...]
    sm: tuple[str, ...] | None  # exact capabilities ("8.6"); None when only the range is known
    min_cc: str | None
    max_cc: str | None
    ptx: str | None
    note: str
    tag: str
    source: str
    urls: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class WheelTable:
    index_url: str
    index_url_source: str
    never_in_official_wheels: tuple[str, ...]
    never_source: str
    releases: Mapping[str, TorchRelease]
    rocm_arch: tuple[RocmArchRow, ...]
    cuda_arch: tuple[CudaArchRow, ...]
    index_urls: tuple[str, ...] = ()  # where the index and its use are documented
    never_urls: tuple[str, ...] = ()


# ----------------------------------------------------------------------------- parsing


def series_key(series: str) -> tuple[int, int]:
    major, minor = series.split(".")[:2]
    return int(major), int(minor)


def cc_key(cc: str) -> tuple[int, int]:
    major, minor = cc.split(".")
    return int(major), int(minor)


def parse_wheel_table(doc: Mapping[str, Any]) -> WheelTable:
    """The TOML document to a WheelTable; raises TorchTableError on a malformed row."""
    index_url = _req_str(doc, "index_url", "top level")
    if "{flavour}" not in index_url or not index_url.startswith("https://"):
        raise TorchTableError("index_url must be an https URL with {flavour}")
    never = _str_list(doc, "never_in_official_wheels", "top level", _GFX)
    releases: dict[str, TorchRelease] = {}
    for row in table_rows(doc, "release", TorchTableError):
        release = _release(row)
        if release.version in releases:
            raise TorchTableError(f"release {release.version} twice")
        releases[release.version] = release
    if not releases:
        raise TorchTableError("no [[release]] rows")
    rocm_arch = tuple(_rocm_row(row, releases)
                      for row in table_rows(doc, "rocm_arch_list", TorchTableError))
    cuda_arch = tuple(_cuda_row(row, releases)
                      for row in table_rows(doc, "cuda_arch_list", TorchTableError))
    for arch_row in rocm_arch:
        if set(arch_row.targets) & set(never):
            raise TorchTableError(f"{arch_row.source}: lists a target that is never in a wheel")
    return WheelTable(
        index_url=index_url,
        index_url_source=_req_str(doc, "index_url_source", "top level"),
        never_in_official_wheels=never,
        never_source=_req_str(doc, "never_in_official_wheels_source", "top level"),
        releases=dict(sorted(releases.items(), key=lambda kv: series_key(kv[0]))),
        rocm_arch=rocm_arch, cuda_arch=cuda_arch,
        index_urls=_urls(doc, "index_url_urls", "top level"),
        never_urls=_urls(doc, "never_in_official_wheels_urls", "top level"))


def _req_str(row: Mapping[str, Any], key: str, where: str) -> str:
    value = row.get(key)
    if not isinstance(value, str) or not value:
        raise TorchTableError(f"{where}: {key} must be a non-empty string")
    return value


def _urls(row: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    """A required, non-empty list of public https:// pages."""
    urls = row.get(key)
    if (not isinstance(urls, list) or not urls
            or not all(isinstance(u, str) and u.startswith("https://") and " " not in u
                       for u in urls)):
        raise TorchTableError(f"{where}: {key} must be a non-empty list of https:// URLs")
    return tuple(urls)


def _opt_str(row: Mapping[str, Any], key: str, where: str,
             pattern: re.Pattern[str] | None = None) -> str | None:
    value = row.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or (pattern is not None and not pattern.fullmatch(value)):
        raise TorchTableError(f"{where}: bad {key} {value!r}")
    return value


def _str_list(row: Mapping[str, Any], key: str, where: str,
              pattern: re.Pattern[str]) -> tuple[str, ...]:
    values = row.get(key)
    if (not isinstance(values, list) or not values
            or not all(isinstance(v, str) and pattern.fullmatch(v) for v in values)):
        raise TorchTableError(f"{where}: {key} must be a non-empty list like {pattern.pattern}")
    if len(set(values)) != len(values):
        raise TorchTableError(f"{where}: {key} repeats a value")
    return tuple(values)


def _release(row: Mapping[str, Any]) -> TorchRelease:
    version = _req_str(row, "version", "a [[release]]")
    if not _SERIES.fullmatch(version):
        raise TorchTableError(f"release {version!r} is not major.minor")
    cuda = _str_list(row, "cuda", version, _SERIES)
    default = _req_str(row, "pypi_default", version)
    if default not in cuda:
        raise TorchTableError(f"{version}: pypi_default {default} is not one of its CUDA wheels")
    python_min = _opt_str(row, "python_min", version, _SERIES)
    python_max = _opt_str(row, "python_max", version, _SERIES)
    if python_min is None or python_max is None or series_key(python_min) > series_key(
            python_max):
        raise TorchTableError(f"{version}: needs python_min <= python_max")
    cudnn = row.get("cudnn", {})
    if not isinstance(cudnn, dict) or not all(
            isinstance(v, str) and (k == "*" or k in cuda) for k, v in cudnn.items()):
        raise TorchTableError(f"{version}: cudnn keys must be its CUDA flavours or '*'")
    tags = row.get("tags", {})
    if not isinstance(tags, dict) or not all(v in ("V", "S", "D", "K", "?")
                                             for v in tags.values()):
        raise TorchTableError(f"{version}: bad tags")
    return TorchRelease(
        version=version, cuda=cuda, rocm=_str_list(row, "rocm", version, _FLAVOUR_VERSION),
        pypi_default_cuda=default, python_min=python_min, python_max=python_max,
        python_experimental=_opt_str(row, "python_experimental", version, _SERIES),
        cudnn=dict(cudnn), note=_opt_str(row, "note", version) or "",
        source=_req_str(row, "source", version), tags=dict(tags),
        urls=_urls(row, "urls", version))


def _torch_list(row: Mapping[str, Any], where: str,
                releases: Mapping[str, TorchRelease]) -> tuple[str, ...]:
    torch = _str_list(row, "torch", where, _SERIES)
    unknown = [t for t in torch if t not in releases]
    if unknown:
        raise TorchTableError(f"{where}: unknown torch releases {unknown}")
    return torch


def _rocm_row(row: Mapping[str, Any], releases: Mapping[str, TorchRelease]) -> RocmArchRow:
    source = _req_str(row, "source", "a [[rocm_arch_list]]")
    exact = row.get("exact")
    if not isinstance(exact, bool):
        raise TorchTableError(f"{source}: exact must be true or false")
    return RocmArchRow(torch=_torch_list(row, source, releases),
                       rocm=_str_list(row, "rocm", source, _FLAVOUR_VERSION), exact=exact,
                       targets=_str_list(row, "targets", source, _GFX), source=source,
                       urls=_urls(row, "urls", source))


def _cuda_row(row: Mapping[str, Any], releases: Mapping[str, TorchRelease]) -> CudaArchRow:
    source = _req_str(row, "source", "a [[cuda_arch_list]]")
    sm = _str_list(row, "sm", source, _CC) if "sm" in row else None
    min_cc, max_cc = _opt_str(row, "min_cc", source, _CC), _opt_str(row, "max_cc", source, _CC)
    if (sm is None) == (min_cc is None or max_cc is None):
        raise TorchTableError(f"{source}: needs either sm or min_cc and max_cc")
    if sm is not None and list(sm) != sorted(sm, key=cc_key):
        raise TorchTableError(f"{source}: sm is not in ascending order")
    tag = row.get("tag", "V")
    if tag not in ("V", "S", "D", "K", "?"):
        raise TorchTableError(f"{source}: bad tag {tag!r}")
    return CudaArchRow(torch=_torch_list(row, source, releases),
                       cuda=_str_list(row, "cuda", source, _SERIES), sm=sm, min_cc=min_cc,
                       max_cc=max_cc, ptx=_opt_str(row, "ptx", source, _CC),
                       note=_opt_str(row, "note", source) or "", tag=str(tag), source=source,
                       urls=_urls(row, "urls", source))


@functools.cache
def wheel_table() -> WheelTable:
    """The packaged table, loaded once."""
    return parse_wheel_table(load_toml_resource(RESOURCE))


# ----------------------------------------------------------------------------- versions


def normalise_build(build: str | None) -> Build | None:
    """"ROCm", "hip" -> "rocm"; "CUDA", "cu" -> "cuda"; "cpu" -> "cpu"; else None."""
    if not isinstance(build, str):
        return None
    text = build.strip().lower()
    if text in ("rocm", "hip", "amd"):
        return "rocm"
    if text in ("cuda", "cu", "nvidia"):
        return "cuda"
    if text == "cpu":
        return "cpu"
    return None


def normalise_flavour(build: Build, build_version: str | None) -> str | None:
    """A flavour as the table writes it: cuda "cu128" / "12.8" / "12.8.1" / "12.4.131" ->
    "12.8"; rocm "rocm6.2.4" -> "6.2.4", "6.2.0" -> "6.2", the HIP version "6.2.41133-dd7f957"
    -> "6.2"; None when it is not a version. Never raises."""
    if not isinstance(build_version, str):
        return None
    text = build_version.strip().lower()[:200]
    if build == "cuda":
        match = re.fullmatch(r"cu(\d{2,4})", text)
        if match:
            digits = match.group(1)
            return f"{int(digits[:-1])}.{digits[-1]}"
        pair = major_minor(text)
        return f"{pair[0]}.{pair[1]}" if pair else None
    if build == "rocm":
        release = rocm_release(text)
        if release is None:
            return None
        major, minor, patch = release
        return f"{major}.{minor}" if patch == 0 else f"{major}.{minor}.{patch}"
    return None


def parse_torch_version(text: str) -> TorchVersion | None:
    """"2.3.0+rocm6.0", "2.10.0a0+rocm7.10.0a20251120", "2.9.0+rocmsdk20251116", "2.8.0+cpu",
    "2.7.1+cu128" taken apart; None when it is not a torch version. Never raises."""
    if not isinstance(text, str) or len(text) > 200:
        return None
    match = _TORCH.fullmatch(text)
    if match is None:
        return None
    major, minor = int(match.group("major")), int(match.group("minor"))
    micro = int(match.group("micro") or 0)
    local = match.group("local") or None
    build, build_version = _local_build(local) if local else (None, None)
    return TorchVersion(
        text=text, release=f"{major}.{minor}", version=f"{major}.{minor}.{micro}",
        prerelease=match.group("pre") is not None and not _only_post(match.group("pre")),
        local=local, build=build, build_version=build_version)


def _only_post(pre: str) -> bool:
    return pre.strip(".-_").lower().startswith("post")


def _local_build(local: str) -> tuple[Build | None, str | None]:
    low = local.lower()
    if low == "cpu" or low.startswith(("cpu.", "cpu_", "cpu-")):
        return "cpu", None
    match = _ROCM_LOCAL.fullmatch(local)
    if match:
        rest = match.group("rest")
        version = match.group("version")
        return "rocm", version + rest if rest and rest[0].isalnum() else version
    if low.startswith("rocm"):  # AMD's TheRock builds: +rocmsdk20251116
        return "rocm", None
    match = _CUDA_LOCAL.fullmatch(local)
    if match:
        digits = match.group("digits")
        return "cuda", f"{int(digits[:-1])}.{digits[-1]}"
    return None, None


def torch_release(version: str) -> TorchRelease | None:
    """The table's row for the release series of a torch version string ("2.3.0+rocm6.0" ->
    the 2.3 row); None when the string is not a torch version or the release is not in the
    table. Never raises."""
    parsed = parse_torch_version(version)
    if parsed is None:
        return None
    return wheel_table().releases.get(parsed.release)


def known_torch_releases() -> tuple[str, ...]:
    """The release series in the table, oldest first."""
    return tuple(wheel_table().releases)


def _resolve(torch_version: str | None, build: str,
             build_version: str | None) -> tuple[TorchRelease, Build, str | None] | None:
    """The release row, build and flavour a query means; None when unknown."""
    kind = normalise_build(build)
    if kind is None:
        return None
    table = wheel_table()
    if torch_version is None:
        release: TorchRelease | None = list(table.releases.values())[-1]
        parsed = None
    else:
        parsed = parse_torch_version(torch_version)
        release = table.releases.get(parsed.release) if parsed else None
    if release is None:
        return None
    if parsed is not None and parsed.build == kind and kind != "cpu":
        if parsed.build_version is None:
            return None  # +rocmsdk…: an AMD build, not a pytorch.org flavour
        # The wheel's own tag (+rocm6.2.4) beats a runtime version (HIP 6.2.41133).
        build_version = parsed.build_version
    if kind == "cpu":
        return release, kind, None
    if build_version is None:
        if kind == "cuda":
            return release, kind, release.pypi_default_cuda
        return release, kind, None
    flavour = release_flavour(release, kind, build_version)
    return (release, kind, flavour) if flavour is not None else None


def release_flavour(release: TorchRelease, build: str, build_version: str) -> str | None:
    """The release's published flavour a build version names: exactly, or the one flavour
    with the same major.minor (HIP "6.2.41133" in a release with rocm6.2.4 -> "6.2.4")."""
    kind = normalise_build(build)
    if kind not in ("cuda", "rocm"):
        return None
    flavour = normalise_flavour(kind, build_version)
    published = release.cuda if kind == "cuda" else release.rocm
    if flavour is None:
        return None
    if flavour in published:
        return flavour
    base = ".".join(flavour.split(".")[:2])
    same = [f for f in published if ".".join(f.split(".")[:2]) == base]
    return same[0] if len(same) == 1 else None


def default_arch_list(torch_version: str | None, build: str,
                      build_version: str | None) -> tuple[str, ...] | None:
    """The targets an official wheel of this build carries, as torch.cuda.get_arch_list()
    names them: ("gfx900", …) for ROCm, ("sm_50", …) for CUDA, () for the CPU wheel. None when
    the table does not know the whole list (or the flavour is not an official one).

    torch_version None means the newest release in the table. build_version None takes the
    flavour from torch_version's +local part, else the PyPI default for CUDA; for ROCm it
    answers only when every ROCm flavour of the release carries the same list."""
    resolved = _resolve(torch_version, build, build_version)
    if resolved is None:
        return None
    release, kind, flavour = resolved
    if kind == "cpu":
        return ()
    if kind == "rocm":
        flavours = (flavour,) if flavour is not None else release.rocm
        lists = {_rocm_exact(release.version, f) for f in flavours}
        return lists.pop() if len(lists) == 1 else None
    assert flavour is not None
    row = _cuda_row_for(release.version, flavour)
    if row is None or row.sm is None:
        return None
    return tuple(f"sm_{cc.replace('.', '')}" for cc in row.sm)


def _rocm_rows(series: str, flavour: str) -> list[RocmArchRow]:
    return [r for r in wheel_table().rocm_arch
            if flavour in r.rocm and (not r.torch or series in r.torch)]


def _rocm_exact(series: str, flavour: str) -> tuple[str, ...] | None:
    for row in _rocm_rows(series, flavour):
        if row.exact:
            return row.targets
    return None


def _cuda_row_for(series: str, flavour: str) -> CudaArchRow | None:
    for row in wheel_table().cuda_arch:
        if flavour in row.cuda and series in row.torch:
            return row
    return None


def official_wheel_has_target(torch_version: str | None, build: str, build_version: str | None,
                              target: str) -> bool | None:
    """Whether an official wheel carries code for a GPU target: a gfx target on ROCm, a
    compute capability ("8.9") on CUDA. True/False when the table knows, None when not.
    See official_wheel_coverage. Never raises."""
    coverage = official_wheel_coverage(torch_version, build, build_version, target)
    return None if coverage is None else coverage != "none"


def official_wheel_coverage(torch_version: str | None, build: str, build_version: str | None,
                            target: str | None) -> Coverage | None:
    """How an official wheel runs on a GPU target: "native" (a gfx target in the ROCm arch
    list; on CUDA a cubin of the same major capability and an equal or lower minor: sm_86 code
    on an 8.9 RTX 4090), "ptx" (only through shipped PTX compiled at load time, which needs a
    driver that fully supports the wheel's CUDA), "none", or None when the table does not know.
    Never raises."""
    if not isinstance(target, str):
        return None
    text = target.strip().lower()[:40].split(":", 1)[0]
    kind = normalise_build(build)
    if kind == "rocm" and text in wheel_table().never_in_official_wheels:
        return "none"
    resolved = _resolve(torch_version, build, build_version)
    if resolved is None:
        return None
    release, kind, flavour = resolved
    if kind == "cpu":
        return "none"
    if kind == "rocm":
        flavours = (flavour,) if flavour is not None else release.rocm
        answers = {_rocm_has(release.version, f, text) for f in flavours}
        answer = answers.pop() if len(answers) == 1 else None
        return None if answer is None else ("native" if answer else "none")
    assert flavour is not None
    cc = _cc_from(text)
    row = _cuda_row_for(release.version, flavour)
    if cc is None or row is None:
        return None
    if row.sm is not None:
        native = any(s[0] == cc[0] and s[1] <= cc[1] for s in map(cc_key, row.sm))
    else:
        assert row.min_cc is not None and row.max_cc is not None
        low, high = cc_key(row.min_cc), cc_key(row.max_cc)
        native = low <= cc <= high or (cc[0] == high[0] and cc > high)
    if native:
        return "native"
    if row.ptx is not None and cc >= cc_key(row.ptx):
        return "ptx"
    return "none"


def _rocm_has(series: str, flavour: str, target: str) -> bool | None:
    for row in _rocm_rows(series, flavour):
        if target in row.targets:
            return True
        if row.exact:
            return False
    return None


def _cc_from(text: str) -> tuple[int, int] | None:
    match = re.fullmatch(r"(?:sm_?|compute_?)?(\d{1,2})\.?(\d)[af]?", text)
    return (int(match.group(1)), int(match.group(2))) if match else None


def targets_never_in_official_wheels() -> tuple[str, ...]:
    """gfx targets no official PyTorch ROCm wheel carries code for."""
    return wheel_table().never_in_official_wheels


def known_flavours(build: str) -> tuple[str, ...]:
    """Every flavour of this build published for some release in the table, oldest first."""
    kind = normalise_build(build)
    if kind == "cpu":
        return ("cpu",)
    if kind is None:
        return ()
    seen: dict[str, None] = {}
    for release in wheel_table().releases.values():
        for flavour in release.cuda if kind == "cuda" else release.rocm:
            seen[flavour] = None
    return tuple(sorted(seen, key=lambda f: tuple(int(p) for p in f.split("."))))


def flavour_tag(build: str, flavour: str) -> str:
    """("cuda", "12.8") -> "cu128"; ("rocm", "6.2.4") -> "rocm6.2.4"; ("cpu", …) -> "cpu"."""
    kind = normalise_build(build)
    if kind == "cuda":
        return "cu" + flavour.replace(".", "")
    if kind == "rocm":
        return "rocm" + flavour
    return "cpu"


def index_url(build: str, flavour: str | None = None) -> str | None:
    """The pytorch.org index of one published flavour ("rocm", "6.2.4" ->
    "https://download.pytorch.org/whl/rocm6.2.4"); None for a flavour never published."""
    kind = normalise_build(build)
    if kind is None:
        return None
    if kind != "cpu":
        if flavour is None:
            return None
        normal = normalise_flavour(kind, flavour)
        if normal is None or normal not in known_flavours(kind):
            return None
        flavour = normal
    return wheel_table().index_url.format(flavour=flavour_tag(kind, flavour or "cpu"))


def install_command(build: str, build_version: str | None = None, *,
                    python: str = "python3", pin: str | None = None) -> str | None:
    """The pip command for an official wheel of this build from the pytorch.org index:
    install_command("rocm", "6.2") -> "python3 -m pip install torch --index-url
    https://download.pytorch.org/whl/rocm6.2". build_version None picks the newest release's
    newest ROCm flavour, or its PyPI-default CUDA flavour; `pin` a release series ("2.7") when
    the newest wheel on that index is not the one wanted. None for a build or flavour that was
    never published (known_flavours lists them): never a guess, never an exception.

    This knows nothing of the machine: `gpuscope.knowledge.wheel_choice` picks the flavour
    that fits a GPU, a driver and a host ROCm."""
    kind = normalise_build(build)
    if kind is None:
        return None
    newest = list(wheel_table().releases.values())[-1]
    if kind != "cpu" and build_version is None:
        build_version = newest.pypi_default_cuda if kind == "cuda" else newest.rocm[-1]
    url = index_url(kind, build_version)
    if url is None:
        return None
    package = f"'torch=={pin}.*'" if pin and _SERIES.fullmatch(pin) else "torch"
    return f"{python} -m pip install {package} --index-url {url}"
