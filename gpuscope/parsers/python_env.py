"""Where a pasted Python text says PyTorch lives, for `python_text`: the interpreter of the
environment a file of the torch package sits in (Windows, venv, conda, Debian and per-user
layouts) and its Python version, the OS such a path belongs to, a Windows library (DLL) a line
names, the CUDA version of the driver API number PyTorch prints, and ROCm libraries missing a
symbol PyTorch wanted. String operations and bounded regexes: linear in the line."""

from __future__ import annotations

import re

from gpuscope.parsers._common import Collector

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


def undefined_symbol(out: Collector, raw: str, number: int) -> bool:
    """A ROCm library (or PyTorch's HIP library) missing a symbol: `rocm.undefined_symbol`."""
    index = raw.find(": undefined symbol:")
    if index < 0:
        return False
    words = raw[:index].split()
    library = words[-1].strip("\"'`") if words else ""
    base = library.rsplit("/", 1)[-1]
    if not (("/rocm" in library) or base.startswith(("libtorch_hip", "libc10_hip",
                                                     "libamdhip64", "libhip"))):
        return False
    out.signal_at("rocm.undefined_symbol", library[:300], number)
    version = ROCM_PATH.search(library)
    if version:
        out.stack_fact("rocm_version", version.group(1), out.where(number))
    return True
