"""Whether the window can open on this desktop, asked before Qt is loaded: when Qt's X11
platform plugin cannot load its system libraries, Qt aborts the whole process (SIGABRT and a
core dump, after "Could not load the Qt platform plugin xcb"). So the libraries the plugin
lacks are found first, with `ldd`, and named with the command that installs them.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

# PySide6's X11 platform plugin, inside the PySide6 package.
XCB_PLUGIN = Path("Qt") / "plugins" / "platforms" / "libqxcb.so"
LDD_TIMEOUT_S = 10.0
_NOT_FOUND = re.compile(r"^\s*(?P<library>\S+\.so(?:\.\d+)*)\s*=>\s*not found", re.MULTILINE)
_SONAME = re.compile(r"^(?P<name>lib[\w+.-]*?)\.so\.(?P<major>\d+)")

Runner = Callable[..., "subprocess.CompletedProcess[str]"]


def xcb_plugin_path() -> Path | None:
    """PySide6's libqxcb.so, without importing PySide6; None where there is none."""
    try:
        spec = importlib.util.find_spec("PySide6")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        plugin = Path(folder) / XCB_PLUGIN
        if plugin.is_file():
            return plugin
    return None


def missing_libraries(ldd_output: str) -> list[str]:
    """The libraries `ldd` could not find ("libxcb-cursor.so.0 => not found"), in order."""
    return list(dict.fromkeys(m["library"] for m in _NOT_FOUND.finditer(ldd_output)))


def debian_package(library: str) -> str:
    """Debian's and Ubuntu's package of a shared library: its name and major version,
    with a dash between where the name ends in a digit ("libxcb-cursor.so.0" ->
    "libxcb-cursor0", "libxkbcommon-x11.so.0" -> "libxkbcommon-x11-0")."""
    match = _SONAME.match(library)
    if match is None:
        return library
    name, major = match["name"], match["major"]
    return f"{name}-{major}" if name[-1].isdigit() else f"{name}{major}"


def x11_problem(environ: Mapping[str, str], *, platform: str = sys.platform,
                plugin: Path | None = None, run: Runner = subprocess.run) -> str | None:
    """Why the window cannot open on this X11 display, or None (no X11 to check, nothing
    missing, or no way to tell: no plugin, no ldd)."""
    if not platform.startswith("linux") or not environ.get("DISPLAY"):
        return None
    chosen = environ.get("QT_QPA_PLATFORM", "")
    if chosen and not chosen.startswith("xcb"):
        return None
    if not chosen and environ.get("WAYLAND_DISPLAY"):
        return None  # Qt takes Wayland first where there is a Wayland display
    plugin = plugin or xcb_plugin_path()
    ldd = shutil.which("ldd")
    if plugin is None or ldd is None:
        return None
    try:
        answer = run([ldd, str(plugin)], capture_output=True, text=True, timeout=LDD_TIMEOUT_S,
                     check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    missing = missing_libraries(answer.stdout or "")
    if not missing:
        return None
    packages = " ".join(dict.fromkeys(debian_package(library) for library in missing))
    return (f"Qt's X11 plugin cannot load here: {', '.join(missing)} "
            f"{'is' if len(missing) == 1 else 'are'} not installed, and Qt would abort. "
            f"Install {'it' if len(missing) == 1 else 'them'} (Debian, Ubuntu): "
            f"sudo apt install {packages}")
