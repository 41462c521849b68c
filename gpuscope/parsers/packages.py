"""What the package tools say is installed: ``dkms status`` (current ``module/version, kernel,
arch: state`` and the old comma layout), ``dpkg -l`` (whole or grepped, wide or cut by the
terminal width), ``nvcc --version``, and the package lists and logs of the distributions'
tools: ``rpm -qa`` / ``rpm -q`` and dnf/yum (``dnf list installed``, a transaction's table and
its ``Installed:`` list), ``pacman -Q`` / ``-Qs`` / ``-Ss`` (only ``[installed]`` rows),
``apt list --installed`` and ``apt-cache policy``, ``zypper se -i``, and what apt, dpkg and
``amdgpu-install`` print while installing (``Setting up name (version) ...``, ``name is
already the newest version (version).``, in any language, and DKMS's ``Building for
<kernel>``).

Stack facts: ``amdgpu_driver_version`` (the amdgpu-dkms / rock-dkms version: "6.2.4", never the
in-tree driver), ``nvidia_driver_version`` (with ``amdgpu_dkms_kernels`` /
``nvidia_dkms_kernels``, the kernels dkms built that version for, comma-separated),
``rocm_version``, ``hip_runtime_version`` (hip-runtime-amd), and ``cuda_toolkit_version``
(major.minor: nvcc's "release 10.2", the cuda-toolkit-12-4 package), which is not a `Stack`
field: the driver's CUDA version is `cuda_driver_version`, and the two are compared, not
confused.

Which package names the ROCm release: rocm-core (its version is the release everywhere); else
the release AMD's packages encode as a 5-digit build tag (rocm-utils 6.0.3.60003 -> 6.0.3,
hip-runtime-amd 6.0.32830.60002 -> 6.0.2); else ROCm's meta packages (rocm-dev 2.1.96 is ROCm
2.1: before ROCm 3 the third number was a build); else the components that distributions
version by the release (Fedora's rocminfo 5.7.0, Arch's hsa-rocr 6.2.1), which AMD's own
packages version independently (rocminfo 1.0.0), so only from 3.0 on; else a release named in
a package's release field (Fedora's rocm-llvm 20-7.rocm7.1.0).

Only installed packages count: dpkg's ``rc`` (removed, config files left) is not installed, nor
is a dkms module that was only ``added`` or ``built``, nor a row of ``apt list`` or ``pacman
-Ss`` without ``[installed]``, nor dnf's ``Available Packages``. An install log says what was
being installed, not whether a kernel module was built: it gives no driver version.

Signal kinds emitted:

- ``dkms.build_failed``: "Error! Bad return status for module build on kernel: K", and DKMS's
  "Module build for kernel K was skipped" (detail = K); amdgpu-install's "amdgpu dkms failed
  for running kernel" (no detail).
- ``dkms.error``: any other "Error! ..." line of dkms (detail = the message).
- ``dkms.not_installed``: a module that ``dkms status`` lists only as ``added`` or ``built``,
  never ``installed`` for any kernel (detail = "amdgpu/1.9-307: added", the first such row).
- ``platform.wsl``: DKMS building for a WSL kernel (``microsoft-standard``).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Iterator

from gpuscope.model import ParsedOutput
from gpuscope.parsers._common import Collector, LineReads, never_raises, none_on_error

FORMATS: tuple[str, ...] = (
    "dkms-status", "dpkg-list", "nvcc-version", "package-rpm", "package-pacman",
    "package-apt", "package-apt-log", "package-zypper",
)

_MAX_LINE_CHARS = 400
_MAX_EVIDENCE = 20  # lines kept as the evidence of one signal
_MAX_SCAN = 2000  # characters of a line worth matching
_MAX_LINES = 200_000
_SNIFF_CHARS = 200_000
_SNIFF_LINES = 3000

_DKMS_NEW_RE = re.compile(
    r"^(?P<module>[\w.+-]{1,100})/(?P<version>[^,\s:]{1,100})"
    r"(?:,[ \t]*(?P<kernel>[^,]{1,200}),[ \t]*(?P<arch>[^:]{1,50}))?"
    r":[ \t]*(?P<state>added|built|installed)\b")
_DKMS_OLD_RE = re.compile(
    r"^(?P<module>[\w.+-]{1,100}),[ \t]*(?P<version>[^,\s:]{1,100})"
    r"(?:,[ \t]*(?P<kernel>[^,]{1,200}),[ \t]*(?P<arch>[^:]{1,50}))?"
    r":[ \t]*(?P<state>added|built|installed)\b")
_DKMS_BUILD_FAILED_RE = re.compile(
    r"Error! Bad return status for module build on kernel:[ \t]*(?P<kernel>\S{1,200})")
_DKMS_SKIPPED_RE = re.compile(r"Module build for kernel (?P<kernel>\S{1,200}) was skipped")
_AMDGPU_INSTALL_FAILED = "amdgpu dkms failed for running kernel"
_DKMS_ERROR_RE = re.compile(r"^Error! (?P<message>.{1,400})$")
_DKMS_BUILDING_RE = re.compile(r"^Building for (?P<kernel>\d{1,3}\.\d{1,3}[\w.+~-]{0,120})$")
_DPKG_RE = re.compile(
    r"^(?P<state>[uihrpUIHRP][ncHUFWtiR ][R ]?)[ \t]+(?P<name>[a-z0-9][a-z0-9.+-]{0,150}"
    r"(?::[\w-]{0,20})?)[ \t]+(?P<version>\S{1,150})(?:[ \t]+(?P<arch>\S{1,30}))?"
    r"(?:[ \t]+(?P<description>.*))?$")
_NVCC_RE = re.compile(r"Cuda compilation tools, release (?P<release>\d+\.\d+), V(?P<full>[\d.]+)")

# ROCm packages whose version embeds the ROCm release as a 5-digit build tag (ABBCC ->
# A.B.C): rocm-dev 4.0.0.40000-23, hip-runtime-amd 6.0.32830.60002-115.
_ROCM_TAG_RE = re.compile(r"\.(?P<tag>[1-9]\d{4})(?:-|$)")
_ROCM_META_PACKAGES = ("rocm-core", "rocm-hip-runtime", "rocm-libs", "rocm-dev", "rocm-utils",
                       "rocm-hip-sdk", "rocm", "rocm-dkms", "rocm-language-runtime",
                       "rocm-hip-libraries", "rocm-ml-libraries", "rocm-ml-sdk",
                       "rocm-opencl-runtime", "rocm-opencl-sdk")
# Components that distributions (Fedora, Arch, Debian, openSUSE) version by the ROCm release.
_RELEASE_COMPONENTS = ("rocminfo", "rocm-runtime", "hsa-rocr", "rocm-hip", "rocm-opencl",
                       "hip-runtime-amd", "rocm-smi-lib", "rocm-smi", "rocm-device-libs",
                       "libhsa-runtime64-1", "libamdhip64-6", "libamdhip64-5", "hipcc",
                       "rocblas", "hipblas", "rocm-cmake")
_RELEASE_IN_FIELD_RE = re.compile(r"(?<![a-z0-9])rocm(\d{1,2}\.\d{1,2}(?:\.\d{1,2})?)(?![\d])")
_VERSION_NUMBERS_RE = re.compile(r"^(\d{1,4})\.(\d{1,4})(?:\.(\d{1,6}))?")

# Machine architectures of rpm's NEVRA (name-version-release.arch).
_RPM_ARCHES = frozenset({"x86_64", "noarch", "aarch64", "i686", "i386", "ppc64le", "s390x",
                         "armv7hl", "src", "riscv64"})
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,150}$")
# rpm's version (no "-"), and a version with its release or Debian revision ("-" allowed).
_RPM_VERSION_RE = re.compile(r"^(?:\d{1,10}:)?\d[A-Za-z0-9._+~^]{0,120}$")
_PKG_VERSION_RE = re.compile(r"^(?:\d{1,10}:)?\d[A-Za-z0-9._+~^-]{0,150}$")
_PACMAN_VERSION_RE = re.compile(r"^(?:\d{1,10}:)?\d[A-Za-z0-9._+~]{0,100}-\d{1,6}(?:\.\d{1,3})?$")
# apt/dpkg while installing: "Setting up rocm-core (6.0.2.60002-115~22.04) ...", also when
# apt speaks another language ("Rozbaluje se rocm-core (5.1.3.50103-66) ...").
_LOG_PACKAGE_RE = re.compile(
    r"(?:^|[ \t])(?P<name>[a-z0-9][a-z0-9.+-]{1,100})(?::[a-z0-9]{1,20})?[ \t]+"
    r"\((?P<version>\d[A-Za-z0-9.+~:-]{0,100})\)")
_NEWEST_RE = re.compile(
    r"^(?P<name>[a-z0-9][a-z0-9.+-]{1,100})(?::[a-z0-9]{1,20})? is already the newest version "
    r"\((?P<version>[^()\s]{1,100})\)")
_APT_LOG_MARKERS = ("Reading package lists", "Building dependency tree", "newly installed",
                    "is already the newest version", "Setting up ", "Unpacking ",
                    "Preparing to unpack", "Selecting previously unselected package",
                    "Reading state information")
_DNF_MARKERS = ("Complete!", "Dependencies resolved.", "Transaction Summary", "Installed:",
                "Installed Packages", "Running transaction", "Last metadata expiration check",
                "Nothing to do.")


def _first_seen(lines: list[str]) -> Iterator[tuple[int, str]]:
    """(number, line) of the lines but those that repeat one above: where the first version
    of a package is kept, a line read again changes nothing."""
    seen: set[str] = set()
    for number, line in enumerate(lines, start=1):
        if line not in seen:
            seen.add(line)
            yield number, line


def _lines(text: str, limit: int) -> list[str]:
    return [line[:_MAX_SCAN].rstrip("\r") for line in text.split("\n", limit)[:limit]]


# ----------------------------------------------------------------------------------- sniff

@none_on_error
def sniff(text: str) -> tuple[str, float] | None:
    head = text[:_SNIFF_CHARS]
    if "nvcc: NVIDIA (R) Cuda compiler driver" in head or _NVCC_RE.search(head):
        return ("nvcc-version", 0.95)
    raw_lines = [line for line in _lines(head, _SNIFF_LINES * 4) if line.strip()]
    raw_lines = raw_lines[:_SNIFF_LINES]
    lines = [line.strip() for line in raw_lines]
    if not lines:
        return None
    if "Desired=Unknown/Install/Remove/Purge/Hold" in head:
        return ("dpkg-list", 0.95)
    dkms = sum(1 for line in lines if _DKMS_NEW_RE.match(line) or _DKMS_OLD_RE.match(line))
    if dkms and dkms >= len(lines) / 2:
        return ("dkms-status", 0.9)
    dpkg = sum(1 for line in lines if _DPKG_RE.match(line) and line[:2] in _DPKG_STATES)
    if dpkg >= 2 and dpkg >= len(lines) / 2:
        return ("dpkg-list", 0.85)
    found = _sniff_lists(raw_lines)
    if found is not None:
        return found
    if dkms:
        return ("dkms-status", 0.6)
    if any(_DKMS_BUILD_FAILED_RE.search(line) for line in lines) or (
            len(lines) <= 5 and any(line.startswith("Error! Could not locate dkms.conf")
                                    for line in lines)):
        return ("dkms-status", 0.6)
    return None


def _sniff_lists(raw_lines: list[str]) -> tuple[str, float] | None:
    """The distributions' package lists and apt's logs, by how many lines read as one.
    Indented lines (pacman -Qs/-Ss descriptions) are not rows and do not count."""
    lines = [line.strip() for line in raw_lines]
    rows = [line.strip() for line in raw_lines if line[:1] not in (" ", "\t")]
    apt_markers = sum(1 for line in lines if any(m in line for m in _APT_LOG_MARKERS))
    debs = sum(1 for line in lines if ".deb" in line)
    logged = sum(1 for line in lines if _NEWEST_RE.match(line) or _LOG_PACKAGE_RE.search(line))
    # apt speaks the user's language: its .deb file names and "name (version)" lines do not.
    if (logged and (apt_markers or debs)) or (logged >= 3 and logged >= len(lines) / 3):
        return ("package-apt-log", 0.75)
    counts = {
        "package-rpm": sum(1 for line in lines if _rpm_line(line)),
        "package-pacman": sum(1 for line in rows if _pacman_row(line) is not None),
        "package-apt": sum(1 for line in lines if _apt_list_row(line) is not None),
        "package-zypper": sum(1 for line in lines if _zypper_row(line) is not None),
    }
    fmt, count = max(counts.items(), key=lambda item: item[1])
    if count == 0:
        return None
    total = len(rows) if fmt == "package-pacman" else len(lines)
    markers = fmt == "package-rpm" and any(line.startswith(_DNF_MARKERS) for line in lines)
    if count >= total / 2 and (count >= 2 or markers or fmt == "package-rpm"):
        return (fmt, 0.8 if count >= 2 or markers else 0.7)
    if markers:
        return (fmt, 0.7)
    return None


_DPKG_STATES = {"ii", "rc", "un", "hi", "iU", "iF", "pn", "ri", "iH", "hc", "pc"}


# ----------------------------------------------------------------------------------- parse

@never_raises("packages")
def parse(text: str, source: str) -> ParsedOutput:
    """dkms status, dpkg -l, nvcc --version or a distribution's package list or log to stack
    facts."""
    found = sniff(text)
    fmt = found[0] if found else "dpkg-list"
    lines = _lines(text, _MAX_LINES)
    out = Collector(source, lines, max_line_chars=_MAX_LINE_CHARS, max_evidence=_MAX_EVIDENCE)
    if len(lines) >= _MAX_LINES:
        out.problems.append(f"{source}: only the first {_MAX_LINES:,} lines were read")
    if fmt == "nvcc-version":
        return _parse_nvcc(out, lines)
    if fmt == "dkms-status":
        return _parse_dkms(out, lines)
    readers: dict[str, Callable[[Collector, list[str]], dict[str, _Package]]] = {
        "package-rpm": _read_rpm, "package-pacman": _read_pacman, "package-apt": _read_apt,
        "package-apt-log": _read_apt_log, "package-zypper": _read_zypper,
    }
    if fmt in readers:
        packages = readers[fmt](out, lines)
        _scan_dkms_lines(out, lines)
        _package_facts(out, packages, drivers=fmt != "package-apt-log")
        if not packages and not out.signals:
            out.problems.append(f"{source}: no installed package read")
        return out.result(fmt)
    parsed = _parse_dpkg(out, lines)
    if found is None and not parsed.stack_facts:
        return dataclasses.replace(parsed, problems=(f"{source}: not dkms, dpkg or nvcc "
                                                     "output",))
    return parsed


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part[:9]) for part in re.findall(r"\d+", version)[:6])


def _upstream(version: str) -> str:
    """Debian/rpm version without epoch and revision: 1:6.2.4.50700-1652687.22.04 ->
    6.2.4.50700."""
    head, colon, rest = version.partition(":")
    if colon and head.isdigit():
        version = rest
    return version.split("-", 1)[0]


# ----------------------------------------------------------------------------------- nvcc

def _parse_nvcc(out: Collector, lines: list[str]) -> ParsedOutput:
    for number, line in enumerate(lines, start=1):
        match = _NVCC_RE.search(line)
        if match:
            out.stack_fact("cuda_toolkit_version", match.group("release"), out.where(number))
            return out.result("nvcc-version")
    out.problems.append("no 'Cuda compilation tools, release' line")
    return out.result("nvcc-version")


# ----------------------------------------------------------------------------------- dkms

def _parse_dkms(out: Collector, lines: list[str]) -> ParsedOutput:
    installed: dict[str, list[tuple[str, int, str | None]]] = {}
    # module -> (module/version: state, line) of its rows that were never installed
    not_installed: dict[str, tuple[str, int]] = {}
    for number, raw in _first_seen(lines):
        line = raw.strip()
        match = _DKMS_NEW_RE.match(line) or _DKMS_OLD_RE.match(line)
        if match and match.group("state") == "installed":
            kernel = (match.group("kernel") or "").strip() or None
            installed.setdefault(match.group("module").lower(), []).append(
                (match.group("version").split("-", 1)[0], number, kernel))
        elif match:
            not_installed.setdefault(match.group("module").lower(), (
                f"{match.group('module')}/{match.group('version')}: {match.group('state')}",
                number))
    for number, raw in enumerate(lines, start=1):
        if "Error! " not in raw:  # what both messages below hold
            continue
        line = raw.strip()
        if _DKMS_NEW_RE.match(line) or _DKMS_OLD_RE.match(line):
            continue  # a row
        failed = _DKMS_BUILD_FAILED_RE.search(line)
        if failed:
            out.signal_at("dkms.build_failed", failed.group("kernel"), number)
            continue
        error = _DKMS_ERROR_RE.match(line)
        if error:
            out.signal_at("dkms.error", error.group("message")[:200], number)
    for modules, key in ((("amdgpu",), "amdgpu_driver_version"),
                         (("nvidia", "nvidia-srv", "nvidia-open"), "nvidia_driver_version")):
        found = [item for module in modules for item in installed.get(module, [])]
        if not found:
            continue
        versions = {version for version, _, _ in found}
        best = max(found, key=lambda item: _version_key(item[0]))
        out.stack_fact(key, best[0], out.where(best[1]))
        # The kernels it is built for: a module built for another kernel is not the one that
        # runs (the importer compares them with the running kernel another file shows).
        kernels = sorted({kernel for version, _, kernel in found
                          if version == best[0] and kernel})
        if kernels:
            out.stack_fact(key.replace("_driver_version", "_dkms_kernels"), ",".join(kernels),
                           out.where(best[1]))
        if len(versions) > 1:
            out.problems.append(f"{modules[0]}: dkms has {', '.join(sorted(versions))} installed "
                            "for different kernels; the running kernel decides which is loaded")
    # A module dkms knows but never installed for any kernel: added (sources only) or built
    # without being installed, so no kernel can load it.
    for module, (detail, number) in not_installed.items():
        if module not in installed:
            out.signal_at("dkms.not_installed", detail, number)
    return out.result("dkms-status")


# ----------------------------------------------------------------------------- package rows

@dataclasses.dataclass(frozen=True)
class _Package:
    name: str
    version: str
    line: int


def _keep(packages: dict[str, _Package], name: str, version: str, line: int) -> None:
    name = name.lower().split(":", 1)[0]
    if name and version and version != "<none>":
        packages.setdefault(name, _Package(name, version, line))


def _nevra(token: str) -> tuple[str, str] | None:
    """rpm's name-version-release.arch ("rocm-core-7.1.0-1.fc44.x86_64") as (name,
    "version-release"); None for any other token."""
    body, dot, arch = token.rpartition(".")
    if not dot or arch not in _RPM_ARCHES:
        return None
    parts = body.rsplit("-", 2)
    if len(parts) != 3:
        return None
    name, version, release = parts
    if not _NAME_RE.match(name) or not _RPM_VERSION_RE.match(version) or not release:
        return None
    return name, f"{version}-{release}"


def _dnf_row(words: list[str]) -> tuple[str, str, bool | None] | None:
    """`dnf list`'s `name.arch  version-release  @repo` (installed when the repo starts with
    @), or a transaction's `name  arch  version-release  repo  size` row (being installed)."""
    if len(words) >= 2:
        name, dot, arch = words[0].rpartition(".")
        if dot and arch in _RPM_ARCHES and _NAME_RE.match(name) and \
                _PKG_VERSION_RE.match(words[1]) and len(words) <= 3:
            return name, words[1], words[2].startswith("@") if len(words) == 3 else None
    if len(words) >= 4 and words[1] in _RPM_ARCHES and _NAME_RE.match(words[0]) and \
            _PKG_VERSION_RE.match(words[2]):
        return words[0], words[2], True
    return None


def _rpm_line(line: str) -> bool:
    words = line.split()
    return bool(words) and (all(_nevra(w) is not None for w in words)
                            or _dnf_row(words) is not None)


_RPM_SECTIONS = frozenset({
    "installed packages", "available packages", "removing", "erasing", "removed",
    "downgrading", "obsoleting", "installed", "upgraded", "installing", "upgrading",
    "reinstalling", "installing dependencies", "installing weak dependencies",
    "removing dependencies", "removing unused dependencies", "upgrading dependencies"})
_RPM_NOT_INSTALLED = frozenset({"available packages", "removing", "erasing", "removed",
                                "removing dependencies", "removing unused dependencies"})


def _rpm_read(line: str) -> tuple[str | None, tuple[tuple[str, str], ...]]:
    """dnf's section title that `line` is (or None), and the (name, version) of the
    packages it shows installed."""
    lowered = line.lower().rstrip(":")
    if lowered in _RPM_SECTIONS:
        return lowered, ()
    words = line.split()
    if not words:
        return None, ()
    tokens = [_nevra(w) for w in words]
    if all(t is not None for t in tokens):
        return None, tuple(t for t in tokens if t is not None)
    row = _dnf_row(words)
    if row is not None and row[2] is not False:
        return None, ((row[0], row[1]),)
    return None, ()


def _read_rpm(out: Collector, lines: list[str]) -> dict[str, _Package]:
    packages: dict[str, _Package] = {}
    section = ""  # dnf's "Installed Packages" / "Available Packages" / "Removing:" ...
    reads = LineReads(_rpm_read)
    kept: set[str] = set()  # lines whose packages are kept: read again, they change nothing
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        title, found = reads[line]
        if title is not None:
            section = title
            continue
        if not found or section in _RPM_NOT_INSTALLED or line in kept:
            continue
        kept.add(line)
        for name, version in found:
            _keep(packages, name, version, number)
    return packages


def _pacman_row(line: str) -> tuple[str, str, bool] | None:
    """`pacman -Q`'s `name version-rel`, and -Qs/-Ss's `repo/name version-rel [installed]`
    (installed: -Q, -Qs's local/ rows, or an [installed] mark)."""
    words = line.split()
    if len(words) < 2 or not _PACMAN_VERSION_RE.match(words[1]):
        return None
    repo, slash, name = words[0].rpartition("/")
    if not _NAME_RE.match(name) or (slash and not _NAME_RE.match(repo)):
        return None
    rest = " ".join(words[2:])
    if not slash and rest:
        return None
    installed = not slash or repo == "local" or rest.startswith("[installed")
    return name, words[1], installed


def _read_pacman(out: Collector, lines: list[str]) -> dict[str, _Package]:
    packages: dict[str, _Package] = {}
    for number, raw in _first_seen(lines):
        row = _pacman_row(raw.strip()) if raw[:1] not in (" ", "\t") else None
        if row is not None and row[2]:
            mark = re.search(r"\[installed: ([^\]\s]{1,100})\]", raw)
            _keep(packages, row[0], mark.group(1) if mark else row[1], number)
    return packages


def _apt_list_row(line: str) -> tuple[str, str, bool] | None:
    """`apt list`'s `name/suite[,now] version arch [installed,...]`; installed rows only
    count (an `[upgradable from: V]` row has V installed)."""
    words = line.split()
    if len(words) < 3 or "/" not in words[0]:
        return None
    name = words[0].split("/", 1)[0]
    if not _NAME_RE.match(name) or not _PKG_VERSION_RE.match(words[1]):
        return None
    mark = " ".join(words[3:])
    upgradable = re.match(r"\[upgradable from: ([^\]\s]{1,100})\]", mark)
    if upgradable:
        return name, upgradable.group(1), True
    return name, words[1], mark.startswith("[installed")


def _read_apt(out: Collector, lines: list[str]) -> dict[str, _Package]:
    packages: dict[str, _Package] = {}
    policy_name: str | None = None
    rows = LineReads(_apt_list_row)
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        again = line in rows  # a row read again changes nothing: the first version is kept
        row = rows[line]
        if row is not None:
            if row[2] and not again:
                _keep(packages, row[0], row[1], number)
            continue
        # apt-cache policy: "rocm-core:" then "  Installed: 6.0.2.60002-115~22.04"
        if line.endswith(":") and " " not in line and _NAME_RE.match(line[:-1]):
            policy_name = line[:-1]
        elif policy_name and line.startswith("Installed:"):
            version = line.partition(":")[2].strip()
            if version and version != "(none)":
                _keep(packages, policy_name, version, number)
            policy_name = None
    return packages


def _read_apt_log(out: Collector, lines: list[str]) -> dict[str, _Package]:
    packages: dict[str, _Package] = {}
    for number, raw in _first_seen(lines):
        line = raw.strip()
        match = _NEWEST_RE.match(line) or _LOG_PACKAGE_RE.search(line)
        if match is not None:
            _keep(packages, match.group("name"), match.group("version"), number)
    return packages


def _zypper_row(line: str) -> tuple[str, str, bool] | None:
    """`zypper se -s`'s `S | Name | Type | Version | Arch | Repository` rows; installed when
    the status column starts with i."""
    cells = [cell.strip() for cell in line.split("|")]
    if len(cells) < 6 or cells[2] != "package" or not _NAME_RE.match(cells[1]):
        return None
    if not _PKG_VERSION_RE.match(cells[3]):
        return None
    return cells[1], cells[3], cells[0].startswith("i")


def _read_zypper(out: Collector, lines: list[str]) -> dict[str, _Package]:
    packages: dict[str, _Package] = {}
    for number, raw in _first_seen(lines):
        row = _zypper_row(raw)
        if row is not None and row[2]:
            _keep(packages, row[0], row[1], number)
    return packages


def _scan_dkms_lines(out: Collector, lines: list[str]) -> None:
    """DKMS and amdgpu-install lines inside an install log: a failed or skipped build, an
    error, and the kernel it built for (a WSL kernel says where this runs)."""
    reads = LineReads(_dkms_message)
    for number, raw in enumerate(lines, start=1):
        # each line `_dkms_message` reads holds one of these
        if "Error! " not in raw and " for " not in raw:
            continue
        read = reads[raw.strip()]
        if read is None:
            continue
        kind, detail, kernel = read
        if (kernel is None or "kernel" in out.host) and (
                not kind or out.signal_full(kind, detail)):
            continue  # all it shows is known
        if kernel is not None:
            out.host_fact("kernel", kernel, out.where(number))
            out.host_fact("os", "wsl" if kind else "linux", out.where(number))
        if kind:
            out.signal_at(kind, detail, number)


def _dkms_message(line: str) -> tuple[str, str | None, str | None] | None:
    """The signal kind and detail that a line of DKMS or amdgpu-install shows, with the kernel
    of "Building for <kernel>"; None for another line."""
    if (failed := _DKMS_BUILD_FAILED_RE.search(line)) is not None:
        return "dkms.build_failed", failed.group("kernel"), None
    if (skipped := _DKMS_SKIPPED_RE.search(line)) is not None:
        return "dkms.build_failed", skipped.group("kernel"), None
    if _AMDGPU_INSTALL_FAILED in line:
        return "dkms.build_failed", None, None
    if (error := _DKMS_ERROR_RE.match(line)) is not None:
        return "dkms.error", error.group("message")[:200], None
    if (building := _DKMS_BUILDING_RE.match(line)) is not None:
        kernel = building.group("kernel")
        wsl = "microsoft-standard" in kernel.lower() or kernel.lower().endswith("-wsl2")
        # a kernel that is no WSL one shows no signal: its kind stands only for the facts
        return ("platform.wsl" if wsl else "", None, kernel)
    return None


# ----------------------------------------------------------------------------------- dpkg

def _parse_dpkg(out: Collector, lines: list[str]) -> ParsedOutput:
    packages: dict[str, _Package] = {}
    for number, raw in _first_seen(lines):
        match = _DPKG_RE.match(raw.strip())
        if not match or match.group("state")[:2] not in _DPKG_STATES:
            continue
        state = match.group("state")
        if len(state) < 2 or state[1] != "i":  # installed: ii, hi, ri (not rc, un, pn)
            continue
        _keep(packages, match.group("name"), match.group("version"), number)
    _package_facts(out, packages, drivers=True)
    return out.result("dpkg-list")


# ----------------------------------------------------------------------------------- facts

def _package_facts(out: Collector, packages: dict[str, _Package], *, drivers: bool) -> None:
    def fact(key: str, value: str | None, package: _Package) -> None:
        if value:
            out.stack_fact(key, value, out.where(package.line))

    rocm = rocm_release(packages)
    if rocm:
        fact("rocm_version", rocm[0], rocm[1])
    hip = packages.get("hip-runtime-amd")
    if hip and _ROCM_TAG_RE.search(_upstream(hip.version) + "-"):  # AMD's HIP version
        numbers = re.match(r"(\d+\.\d+\.\d+)", _upstream(hip.version))
        fact("hip_runtime_version", numbers.group(1) if numbers else None, hip)
    if drivers:
        amdgpu = packages.get("amdgpu-dkms") or packages.get("rock-dkms")
        if amdgpu:
            upstream = _ROCM_TAG_RE.sub("", _upstream(amdgpu.version) + "-").rstrip("-")
            fact("amdgpu_driver_version", upstream, amdgpu)
        nvidia = _nvidia_package(packages)
        if nvidia:
            numbers = re.match(r"(\d+\.\d+(?:\.\d+)?)", _upstream(nvidia.version))
            fact("nvidia_driver_version", numbers.group(1) if numbers else None, nvidia)
            # what is installed, beside the loaded module's version other files may show
            fact("nvidia_userspace_version", numbers.group(1) if numbers else None, nvidia)
    cuda = _cuda_package(packages)
    if cuda:
        numbers = re.match(r"(\d+\.\d+)", _upstream(cuda.version))
        fact("cuda_toolkit_version", numbers.group(1) if numbers else None, cuda)


def _tag_release(version: str) -> str | None:
    tag = _ROCM_TAG_RE.search(_upstream(version) + "-")
    if tag is None:
        return None
    digits = tag.group("tag")
    return f"{int(digits[0])}.{int(digits[1:3])}.{int(digits[3:])}"


def _plain_release(version: str, *, lowest_major: int = 1) -> str | None:
    """major.minor[.patch] of an untagged version; a third number above 9 was a build
    number (ROCm 2.1's rocm-dev 2.1.96), never a patch release."""
    numbers = _VERSION_NUMBERS_RE.match(_upstream(version))
    if numbers is None:
        return None
    major, minor, patch = numbers.group(1), numbers.group(2), numbers.group(3)
    if not lowest_major <= int(major) <= 15 or int(minor) > 20:
        return None
    if patch is None or int(patch) > 9:
        return f"{int(major)}.{int(minor)}"
    return f"{int(major)}.{int(minor)}.{int(patch)}"


def _named(packages: dict[str, _Package], base: str) -> _Package | None:
    """The package `base`, else a versioned install of it (AMD's rocm-core6.0.2,
    rocm-core-rpath7.1.0): the newest."""
    if base in packages:
        return packages[base]
    versioned = [p for name, p in packages.items()
                 if name.startswith(base) and re.fullmatch(
                     r"(?:-rpath)?\d{1,2}\.\d{1,2}\.\d{1,2}", name[len(base):])]
    return max(versioned, key=lambda p: _version_key(p.name), default=None)


def rocm_release(packages: dict[str, _Package]) -> tuple[str, _Package] | None:
    """The ROCm release these packages name, and the package that names it."""
    core = _named(packages, "rocm-core")
    if core is not None:
        release = _tag_release(core.version) or _plain_release(core.version)
        if release:
            return release, core
    rocm_named = [name for name in sorted(packages)
                  if name.startswith(("rocm", "hip", "rocblas", "miopen", "hsa-rocr"))]
    for name in (*_ROCM_META_PACKAGES, *rocm_named):
        package = _named(packages, name)
        if package is not None and (release := _tag_release(package.version)):
            return release, package
    for name in _ROCM_META_PACKAGES:
        package = _named(packages, name)
        if package is not None and (release := _plain_release(package.version)):
            return release, package
    for name in _RELEASE_COMPONENTS:
        package = _named(packages, name)
        if package is not None and (release := _plain_release(package.version,
                                                              lowest_major=3)):
            return release, package
    for package in _ordered(packages.values()):
        if package.name.startswith(("rocm", "hip")) and (
                named := _RELEASE_IN_FIELD_RE.search(package.version)):
            return named.group(1), package
    return None


def _ordered(packages: Iterable[_Package]) -> list[_Package]:
    return sorted(packages, key=lambda p: p.line)


def _nvidia_package(packages: dict[str, _Package]) -> _Package | None:
    for pattern in (r"nvidia-driver(?:-\d+)?(?:-open|-server|-server-open)?$",
                    r"cuda-drivers(?:-\d+)?$", r"nvidia-dkms-\d+", r"nvidia-utils-\d+",
                    r"libnvidia-compute-\d+", r"nvidia-kernel-common-\d+",
                    r"libnvidia-common-\d+", r"libnvidia-cfg1-\d+",
                    # Arch, RPM Fusion and NVIDIA's rpm repository
                    r"nvidia(?:-open)?(?:-dkms)?", r"nvidia-utils", r"xorg-x11-drv-nvidia",
                    r"akmod-nvidia", r"kmod-nvidia(?:-open-dkms|-latest-dkms)?",
                    r"nvidia-driver-cuda",
                    # Debian's packages of NVIDIA's CUDA repository
                    r"nvidia-smi", r"libnvidia-ml1"):
        found = [p for name, p in packages.items() if re.fullmatch(pattern, name)]
        if found:
            return max(found, key=lambda p: _version_key(_upstream(p.version)))
    return None


def _cuda_package(packages: dict[str, _Package]) -> _Package | None:
    for pattern in (r"cuda-toolkit-\d+-\d+", r"cuda-nvcc-\d+-\d+", r"cuda-toolkit",
                    r"nvidia-cuda-toolkit", r"cuda"):
        found = [p for name, p in packages.items() if re.fullmatch(pattern, name)]
        if found:
            return max(found, key=lambda p: _version_key(_upstream(p.version)))
    return None
