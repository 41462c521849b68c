"""Where a pasted Python text says PyTorch lives, for `python_text`: the interpreter of the
environment a file of the torch package sits in (Windows, venv, conda, Debian and per-user
layouts) and its Python version, the OS such a path belongs to, a Windows library (DLL) a line
names, the CUDA version of the driver API number PyTorch prints, ROCm libraries missing a
symbol PyTorch wanted, and all that one line of PyTorch's own messages says (`message_of`).
String operations and bounded regexes: linear in the line."""

from __future__ import annotations

import re
from dataclasses import dataclass

ROCM_PATH = re.compile(r"/opt/rocm-(\d+\.\d+(?:\.\d+)?)(?![\d.]*\d)")
_ENV_POSIX = re.compile(r"^(.*)/lib(?:64)?/python(\d(?:\.\d{1,2})?)/(site|dist)-packages$")


def cuda_of_driver_api(value: int) -> str | None:
    """CUDA's driver API version as PyTorch prints it (11080 = 1000 * 11 + 10 * 8) -> "11.8"."""
    major, minor = value // 1000, (value % 1000) // 10
    return f"{major}.{minor}" if 1 <= major <= 99 else None


def torch_package_path(line: str) -> str | None:
    """The path of a file of the torch package named in `line`, up to ``.../torch``."""
    lowered = line.lower()
    for marker in ("site-packages", "dist-packages"):
        index = lowered.find(marker)
        if index < 0:
            continue
        after = line[index + len(marker):index + len(marker) + 7]
        if after[:1] not in ("/", "\\") or after[1:6].lower() != "torch" or \
                after[6:7] not in ("/", "\\", "", ":", "'", '"'):
            continue
        head = line[:index]
        if "\\" in head[-3:] or re.search(r"[A-Za-z]:\\", head):
            drive = head.rfind(":\\")
            start = drive - 1 if drive > 0 else 0
            quote = max(head.rfind('"'), head.rfind("'"))
            start = max(start, quote + 1)
        else:
            start = max(head.rfind(" "), head.rfind("\t"), head.rfind('"'), head.rfind("'"),
                        head.rfind("("), head.rfind("`")) + 1
        return line[start:index + len(marker) + 6]
    return None


def interpreter_of(path: str) -> str | None:
    """The interpreter of the environment a file of the torch package lives in."""
    if re.match(r"[A-Za-z]:\\", path):
        parts = path.split("\\")
        lowered = [p.lower() for p in parts]
        for index in range(len(parts) - 1, 0, -1):
            if lowered[index] in ("site-packages", "dist-packages") and \
                    lowered[index - 1] == "lib":
                environment = "\\".join(parts[:index - 1])
                name = lowered[index - 2] if index >= 2 else ""
                if name in ("venv", ".venv", "env", ".env", "virtualenv") or \
                        name.endswith("venv"):
                    return environment + "\\Scripts\\python.exe"
                return environment + "\\python.exe"
        return None  # the per-user site (...\Roaming\Python\Python310\site-packages)
    if not path.startswith("/"):
        return None
    for marker in ("/site-packages", "/dist-packages"):
        index = path.find(marker)
        if index < 0:
            continue
        layout = _ENV_POSIX.match(path[:index + len(marker)])
        if layout is None:
            return "/usr/bin/python3" if path.startswith("/usr/lib/python3/dist-packages") \
                else None
        prefix, version, kind = layout.groups()
        if "/.local" in prefix:
            return None  # the per-user site: any interpreter of that version reads it
        if prefix == "/usr/local" and kind == "dist":  # Debian's pip target for /usr/bin
            return f"/usr/bin/python{version}"
        return f"{prefix}/bin/python{version}"
    return None


def python_version_of(path: str) -> str | None:
    """The Python version of the environment a POSIX site-packages path belongs to
    ("/env/lib/python3.11/site-packages/torch" -> "3.11"); None for other layouts."""
    for marker in ("/site-packages", "/dist-packages"):
        index = path.find(marker)
        if index >= 0:
            layout = _ENV_POSIX.match(path[:index + len(marker)])
            version = layout.group(2) if layout else None
            return version if version and "." in version else None
    return None


# Where Linux itself names Windows libraries: WSL's view of the Windows driver store, Wine,
# Mono and .NET. A line naming one of these says nothing of the OS.
_DLL_HOSTS_ON_LINUX = ("/.wine", "wineprefix", "wine64", "wine ", "wine:", "/mono/", "mono ",
                       "proton", "dotnet", "/usr/lib/wsl", "/mnt/")
_TOKEN_STOPS = " \t\"'`(=[<,;"
_MAX_DLLS_PER_LINE = 8
_MAX_PATH_CHARS = 300


def windows_library(line: str) -> str | None:
    """The first Windows library a line names as a program loads or looks for it
    ("c10.dll" of 'Error loading "C:\\...\\torch\\lib\\c10.dll"', "cudnn_ops_infer64_8.dll" of
    "Could not locate cudnn_ops_infer64_8.dll"); None when it names none, or names one inside
    a POSIX path or a Wine/WSL context. Linear in the line."""
    lowered = line.lower()
    if ".dll" not in lowered or any(host in lowered for host in _DLL_HOSTS_ON_LINUX):
        return None
    start = 0
    for _ in range(_MAX_DLLS_PER_LINE):
        at = lowered.find(".dll", start)
        if at < 0:
            return None
        start = at + 4
        after = lowered[at + 4:at + 5]
        if after.isalnum() or after == "_":
            continue  # ".dllx", not a library name
        begin = at
        while begin > 0 and at - begin < _MAX_PATH_CHARS and \
                lowered[begin - 1] not in _TOKEN_STOPS:
            begin -= 1
        token = line[begin:at + 4]
        name = token.replace("\\", "/").rsplit("/", 1)[-1]
        if token.startswith(("/", "~")) or len(name) <= 4 or not (
                name[0].isalnum() or name[0] == "_"):
            continue  # a POSIX path, or no name before the extension
        return name
    return None


def os_of_path(path: str) -> str | None:
    if re.match(r"[A-Za-z]:\\", path):
        return "windows"
    if path.startswith(("/Users/", "/opt/homebrew/", "/Library/", "/System/Library/")) or \
            "Python.framework" in path:
        return "macos"
    if path.startswith(("/home/", "/root/", "/nix/store/", "/opt/conda/", "/usr/lib/python",
                        "/usr/local/lib/python")) or "/dist-packages/" in path:
        return "linux"
    return None


def undefined_library(line: str) -> tuple[str, str | None] | None:
    """(library, ROCm version its path names) of "<library>: undefined symbol: <name>" where the
    library is ROCm's or PyTorch's HIP library; None for any other line."""
    index = line.find(": undefined symbol:")
    if index < 0:
        return None
    words = line[:index].split()
    library = words[-1].strip("\"'`") if words else ""
    base = library.rsplit("/", 1)[-1]
    if not (("/rocm" in library) or base.startswith(("libtorch_hip", "libc10_hip",
                                                     "libamdhip64", "libhip"))):
        return None
    version = ROCM_PATH.search(library)
    return library[:300], version.group(1) if version else None


# ----------------------------------------------------------------------------- messages

_SM_TOKEN = re.compile(r"\b((?:sm|compute)_\d{2,3}[a-z]?)\b")
_SM_WARNING = re.compile(r"with CUDA capability sm_(\d{2,3})[a-z]? is not compatible")
_FOUND_GPU = re.compile(
    r"Found GPU(\d{1,3}) (.{1,120}?) which (?:is of cuda capability (\d{1,2})\.(\d)|requires "
    r"CUDA_VERSION)")
_DRIVER_TOO_OLD = re.compile(r"NVIDIA driver on your system is too old \(found version (\d{4,6})\)")

# Lines only one build flavour prints (lower-case substrings).
ROCM_MARKERS = ("hiperror", "hip error:", "libtorch_hip", "libamdhip64", "no hip gpus are "
                "available", "libc10_hip", "/opt/rocm")
# ("which is of cuda capability" is not one: 2020 ROCm builds printed it too, with a made-up
# capability 3.0, for Radeon GPUs.)
CUDA_MARKERS = ("found no nvidia driver on your system", "no kernel image is available",
                "libtorch_cuda", "cuda capability sm_", "nvidia driver on your system is too old",
                "supports cuda capabilities")
CPU_MARKERS = ("torch not compiled with cuda enabled",)


@dataclass(frozen=True, slots=True)
class Message:
    """What one line of PyTorch's output says, for the reader to apply to its session."""

    builds: tuple[str, ...] = ()  # the flavours that alone print this line
    path: tuple[str | None, str | None, str | None] | None = None  # OS, interpreter, version
    # "<GPU> with CUDA capability sm_120 is not compatible": name, capability, arch
    warning: tuple[str, str, str] | None = None
    # "Found GPU0 <GPU> which is of cuda capability 3.0": index, name, capability, its sm_NN,
    # and whether the line says "too old"
    found: tuple[int, str, str | None, str, bool] | None = None
    arch: tuple[str, ...] = ()  # "... supports CUDA capabilities sm_50 sm_60 ..."
    driver: tuple[str | None] | None = None  # "too old (found version N)": the CUDA of N
    unavailable: bool = False  # no NVIDIA driver, no HIP GPUs, a CPU build
    undefined: tuple[str, str | None] | None = None  # `undefined_library`
    dll: bool = False  # names a Windows library (`windows_library`)


def message_of(line: str) -> Message | None:
    """What `line` says as one of PyTorch's messages; None when it says nothing."""
    lowered = line.lower()
    cuda = "cuda" in lowered
    if not (cuda or "hip" in lowered or "torch" in lowered or "nvidia" in lowered
            or "rocm" in lowered or "-packages" in lowered or "undefined symbol" in lowered
            or "kernel image" in lowered or ".dll" in lowered):
        return None
    builds: tuple[str, ...] = ()
    if ("hip" in lowered or "rocm" in lowered) and any(m in lowered for m in ROCM_MARKERS):
        builds += ("rocm",)
    if (cuda or "nvidia" in lowered or "kernel image" in lowered) and any(
            m in lowered for m in CUDA_MARKERS):
        builds += ("cuda",)
    if cuda and CPU_MARKERS[0] in lowered:
        builds += ("cpu",)
    path = None
    if "site-packages" in lowered or "dist-packages" in lowered:
        package = torch_package_path(line)
        if package is not None:
            os_name, interpreter = os_of_path(package), interpreter_of(package)
            if os_name or interpreter:
                path = (os_name, interpreter, python_version_of(package))
    warning = found = None
    arch: tuple[str, ...] = ()
    if cuda and "cuda capability" in lowered:
        if (sm_warning := _SM_WARNING.search(line)) is not None:
            name = line[:sm_warning.start()].rsplit(": ", 1)[-1].strip().strip("\"'`").strip()
            sm = sm_warning.group(1)
            warning = (name, f"{int(sm[:-1])}.{sm[-1]}", f"sm_{sm}")
        elif (gpu := _FOUND_GPU.search(line)) is not None:
            major, minor = gpu.group(3), gpu.group(4)
            found = (int(gpu.group(1)), gpu.group(2).strip(),
                     f"{int(major)}.{minor}" if major is not None else None,
                     f"sm_{major}{minor}", "too old" in lowered)
    elif cuda and "supports cuda capabilities" in lowered:
        arch = tuple(_SM_TOKEN.findall(line[lowered.index("supports cuda capabilities"):]))
    driver = None
    if "too old (found version" in lowered:
        too_old = _DRIVER_TOO_OLD.search(line)
        if too_old:
            driver = (cuda_of_driver_api(int(too_old.group(1))),)
    unavailable = ("found no nvidia driver" in lowered or "no hip gpus are available" in lowered
                   or "torch not compiled with cuda enabled" in lowered)
    undefined = undefined_library(line) if "undefined symbol" in lowered else None
    dll = ".dll" in lowered and windows_library(line) is not None
    if not (builds or path or warning or found or arch or driver or unavailable or undefined
            or dll):
        return None
    return Message(builds, path, warning, found, arch, driver, unavailable, undefined, dll)
