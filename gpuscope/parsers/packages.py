"""What the package tools say is installed: ``dkms status`` (current ``module/version, kernel,
arch: state`` and the old comma layout), ``dpkg -l`` (whole or grepped, wide or cut by the
terminal width) and ``nvcc --version``.

Stack facts: ``amdgpu_driver_version`` (the amdgpu-dkms / rock-dkms version: "6.2.4", never the
in-tree driver), ``nvidia_driver_version``, ``rocm_version`` (rocm-core, else the ROCm release
encoded in other ROCm packages' versions: 6.0.2.60002 -> 6.0.2), ``hip_runtime_version``
(hip-runtime-amd), and ``cuda_toolkit_version`` (major.minor: nvcc's "release 10.2", the
cuda-toolkit-12-4 package), which is not a `Stack` field: the driver's CUDA version is
`cuda_driver_version`, and the two are compared, not confused.

Only installed packages count: dpkg's ``rc`` (removed, config files left) is not installed, nor
is a dkms module that was only ``added`` or ``built``.

Signal kinds emitted:

- ``dkms.build_failed``: "Error! Bad return status for module build on kernel: K" (detail = K).
- ``dkms.error``: any other "Error! ..." line of dkms (detail = the message).
"""

from __future__ import annotations

import dataclasses
import re

from gpuscope.model import ParsedOutput
from gpuscope.parsers._common import Collector, never_raises

FORMATS: tuple[str, ...] = ("dkms-status", "dpkg-list", "nvcc-version")

_MAX_LINE_CHARS = 400
_MAX_SCAN = 2000  # characters of a line worth matching

_DKMS_NEW_RE = re.compile(
    r"^(?P<module>[\w.+-]+)/(?P<version>[^,\s:]+)(?:,\s*(?P<kernel>[^,]+),\s*(?P<arch>[^:]+))?"
    r":\s*(?P<state>added|built|installed)\b")
_DKMS_OLD_RE = re.compile(
    r"^(?P<module>[\w.+-]+),\s*(?P<version>[^,\s:]+)(?:,\s*(?P<kernel>[^,]+),\s*(?P<arch>[^:]+))?"
    r":\s*(?P<state>added|built|installed)\b")
_DKMS_BUILD_FAILED_RE = re.compile(
    r"Error! Bad return status for module build on kernel:\s*(?P<kernel>\S+)")
_DKMS_ERROR_RE = re.compile(r"^Error! (?P<message>.+)$")
_DPKG_RE = re.compile(
    r"^(?P<state>[uihrpUIHRP][ncHUFWtiR ][R ]?)\s+(?P<name>[a-z0-9][a-z0-9.+-]*(?::[\w-]*)?)\s+"
    r"(?P<version>\S+)(?:\s+(?P<arch>\S+))?(?:\s+(?P<description>.*))?$")
_NVCC_RE = re.compile(r"Cuda compilation tools, release (?P<release>\d+\.\d+), V(?P<full>[\d.]+)")

# ROCm packages whose version embeds the ROCm release as a 5-digit build tag (ABBCC ->
# A.B.C): rocm-dev 4.0.0.40000-23, hip-runtime-amd 6.0.32830.60002-115.
_ROCM_TAG_RE = re.compile(r"\.(?P<tag>[1-9]\d{4})(?:-|$)")
_ROCM_META_PACKAGES = ("rocm-core", "rocm-hip-runtime", "rocm-libs", "rocm-dev", "rocm-utils",
                       "rocm-hip-sdk", "rocm", "rocm-dkms", "rocm-language-runtime")


def sniff(text: str) -> tuple[str, float] | None:
    head = text[:200_000]
    if "nvcc: NVIDIA (R) Cuda compiler driver" in head or _NVCC_RE.search(head):
        return ("nvcc-version", 0.95)
    lines = [line[:_MAX_SCAN].strip() for line in head.split("\n") if line.strip()]
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
    if dkms:
        return ("dkms-status", 0.6)
    if any(_DKMS_BUILD_FAILED_RE.search(line) for line in lines) or (
            len(lines) <= 5 and any(line.startswith("Error! Could not locate dkms.conf")
                                    for line in lines)):
        return ("dkms-status", 0.6)
    return None


_DPKG_STATES = {"ii", "rc", "un", "hi", "iU", "iF", "pn", "ri", "iH", "hc", "pc"}


@never_raises("packages")
def parse(text: str, source: str) -> ParsedOutput:
    """dkms status, dpkg -l or nvcc --version output to stack facts."""
    found = sniff(text)
    fmt = found[0] if found else "dpkg-list"
    lines = [line[:_MAX_SCAN].rstrip("\r") for line in text.split("\n")]
    out = Collector(source, lines, max_line_chars=_MAX_LINE_CHARS)
    if fmt == "nvcc-version":
        return _parse_nvcc(out)
    if fmt == "dkms-status":
        return _parse_dkms(out)
    parsed = _parse_dpkg(out)
    if found is None and not parsed.stack_facts:
        return dataclasses.replace(parsed, problems=(f"{source}: not dkms, dpkg or nvcc "
                                                     "output",))
    return parsed


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version)[:6])


def _upstream(version: str) -> str:
    """Debian version without epoch and revision: 1:6.2.4.50700-1652687.22.04 -> 6.2.4.50700."""
    version = version.split(":", 1)[1] if re.match(r"^\d+:", version) else version
    return version.split("-", 1)[0] if "-" in version else version


# ----------------------------------------------------------------------------------- nvcc

def _parse_nvcc(out: Collector) -> ParsedOutput:
    for number, line in enumerate(out.lines, start=1):
        match = _NVCC_RE.search(line)
        if match:
            out.stack_fact("cuda_toolkit_version", match.group("release"), out.where(number))
            return out.result("nvcc-version")
    out.problems.append("no 'Cuda compilation tools, release' line")
    return out.result("nvcc-version")


# ----------------------------------------------------------------------------------- dkms

def _parse_dkms(out: Collector) -> ParsedOutput:
    installed: dict[str, list[tuple[str, int]]] = {}
    for number, raw in enumerate(out.lines, start=1):
        line = raw.strip()
        match = _DKMS_NEW_RE.match(line) or _DKMS_OLD_RE.match(line)
        if match and match.group("state") == "installed":
            installed.setdefault(match.group("module").lower(), []).append(
                (match.group("version").split("-", 1)[0], number))
            continue
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
        versions = {version for version, _ in found}
        best = max(found, key=lambda item: _version_key(item[0]))
        out.stack_fact(key, best[0], out.where(best[1]))
        if len(versions) > 1:
            out.problems.append(f"{modules[0]}: dkms has {', '.join(sorted(versions))} installed "
                            "for different kernels; the running kernel decides which is loaded")
    return out.result("dkms-status")


# ----------------------------------------------------------------------------------- dpkg

@dataclasses.dataclass(frozen=True)
class _Package:
    name: str
    version: str
    line: int


def _parse_dpkg(out: Collector) -> ParsedOutput:
    packages: dict[str, _Package] = {}
    for number, raw in enumerate(out.lines, start=1):
        match = _DPKG_RE.match(raw.strip())
        if not match or match.group("state")[:2] not in _DPKG_STATES:
            continue
        state = match.group("state")
        if len(state) < 2 or state[1] != "i":  # installed: ii, hi, ri (not rc, un, pn)
            continue
        name = match.group("name").split(":", 1)[0]
        version = match.group("version")
        if version == "<none>":
            continue
        packages.setdefault(name, _Package(name, version, number))

    def fact(key: str, value: str | None, package: _Package) -> None:
        if value:
            out.stack_fact(key, value, out.where(package.line))

    rocm = _rocm_version(packages)
    if rocm:
        fact("rocm_version", rocm[0], rocm[1])
    hip = packages.get("hip-runtime-amd")
    if hip:
        numbers = re.match(r"(\d+\.\d+\.\d+)", _upstream(hip.version))
        fact("hip_runtime_version", numbers.group(1) if numbers else None, hip)
    amdgpu = packages.get("amdgpu-dkms") or packages.get("rock-dkms")
    if amdgpu:
        upstream = _ROCM_TAG_RE.sub("", _upstream(amdgpu.version) + "-").rstrip("-")
        fact("amdgpu_driver_version", upstream, amdgpu)
    nvidia = _nvidia_package(packages)
    if nvidia:
        numbers = re.match(r"(\d+\.\d+(?:\.\d+)?)", _upstream(nvidia.version))
        fact("nvidia_driver_version", numbers.group(1) if numbers else None, nvidia)
    cuda = _cuda_package(packages)
    if cuda:
        numbers = re.match(r"(\d+\.\d+)", _upstream(cuda.version))
        fact("cuda_toolkit_version", numbers.group(1) if numbers else None, cuda)
    return out.result("dpkg-list")


def _rocm_version(packages: dict[str, _Package]) -> tuple[str, _Package] | None:
    core = packages.get("rocm-core")
    if core:
        numbers = re.match(r"(\d+\.\d+\.\d+)", _upstream(core.version))
        if numbers:
            return numbers.group(1), core
    for name in (*_ROCM_META_PACKAGES, *sorted(packages)):
        package = packages.get(name)
        if package is None or not (name.startswith(("rocm", "hip", "rocblas", "miopen"))):
            continue
        tag = _ROCM_TAG_RE.search(_upstream(package.version) + "-")
        if tag:
            digits = tag.group("tag")
            return f"{int(digits[0])}.{int(digits[1:3])}.{int(digits[3:])}", package
    return None


def _nvidia_package(packages: dict[str, _Package]) -> _Package | None:
    for pattern in (r"nvidia-driver(?:-\d+)?(?:-open|-server|-server-open)?$",
                    r"cuda-drivers(?:-\d+)?$", r"nvidia-dkms-\d+", r"nvidia-utils-\d+",
                    r"libnvidia-compute-\d+", r"nvidia-kernel-common-\d+",
                    r"libnvidia-common-\d+", r"libnvidia-cfg1-\d+"):
        found = [p for name, p in packages.items() if re.fullmatch(pattern, name)]
        if found:
            return max(found, key=lambda p: _version_key(_upstream(p.version)))
    return None


def _cuda_package(packages: dict[str, _Package]) -> _Package | None:
    for pattern in (r"cuda-toolkit-\d+-\d+", r"cuda-nvcc-\d+-\d+", r"cuda-toolkit",
                    r"nvidia-cuda-toolkit"):
        found = [p for name, p in packages.items() if re.fullmatch(pattern, name)]
        if found:
            return max(found, key=lambda p: _version_key(_upstream(p.version)))
    return None
