"""The desktop around the window, Qt-free.

Whether the window can open on this desktop, asked before Qt is loaded: when Qt's X11
platform plugin cannot load its system libraries, Qt aborts the whole process (SIGABRT and a
core dump, after "Could not load the Qt platform plugin xcb"). So the libraries the plugin
lacks are found first, with `ldd`, and named with the command that installs them.

The menu entry (`gpuscope desktop-entry --install`): the packaged gpuscope.desktop and icon,
written into the user's XDG data folders so that the app appears in the desktop's menu after a
`pip install`. On Windows, a Start-menu shortcut (a .lnk in the user's Programs folder, made
by PowerShell through the WScript.Shell object, the one way Windows itself offers without
extra packages).
"""

from __future__ import annotations

import contextlib
import importlib.resources
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from gpuscope.safe_write import write_bytes

# PySide6's X11 and Wayland platform plugins, inside the PySide6 package.
XCB_PLUGIN = Path("Qt") / "plugins" / "platforms" / "libqxcb.so"
WAYLAND_PLUGIN = Path("Qt") / "plugins" / "platforms" / "libqwayland.so"
LDD_TIMEOUT_S = 10.0
_NOT_FOUND = re.compile(r"^\s*(?P<library>\S+\.so(?:\.\d+)*)\s*=>\s*not found", re.MULTILINE)
_SONAME = re.compile(r"^(?P<name>lib[\w+.-]*?)\.so\.(?P<major>\d+)")

Runner = Callable[..., "subprocess.CompletedProcess[str]"]


def xcb_plugin_path(relative: Path = XCB_PLUGIN) -> Path | None:
    """PySide6's libqxcb.so (or another plugin), without importing PySide6; None where there
    is none."""
    try:
        spec = importlib.util.find_spec("PySide6")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        plugin = Path(folder) / relative
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


# Fedora's and Arch's packages of the libraries Qt's X11 plugin loads (from the plugin's
# `ldd`); the rest of libxcb's libraries come with libxcb itself. Debian, Ubuntu and openSUSE
# name a library's package after its soname (`debian_package`).
_XCB_UTIL_PACKAGES = {
    "libxcb-cursor": "xcb-util-cursor", "libxcb-icccm": "xcb-util-wm",
    "libxcb-ewmh": "xcb-util-wm", "libxcb-keysyms": "xcb-util-keysyms",
    "libxcb-image": "xcb-util-image", "libxcb-render-util": "xcb-util-renderutil",
    "libxcb-util": "xcb-util", "libxkbcommon-x11": "libxkbcommon-x11",
    "libxkbcommon": "libxkbcommon", "libX11-xcb": "libX11-xcb", "libEGL": "libglvnd-egl",
    "libGL": "libglvnd-glx", "libfontconfig": "fontconfig", "libfreetype": "freetype",
    "libdbus-1": "dbus-libs",
}
_ARCH_PACKAGES = {"libX11-xcb": "libx11", "libEGL": "libglvnd", "libGL": "libglvnd",
                  "libfontconfig": "fontconfig", "libfreetype": "freetype2",
                  "libdbus-1": "dbus"}
# The package manager of each family, and its install command.
INSTALL_COMMANDS = {"debian": "sudo apt install", "fedora": "sudo dnf install",
                    "arch": "sudo pacman -S --needed", "suse": "sudo zypper install"}
FAMILY_NAMES = {"debian": "Debian, Ubuntu", "fedora": "Fedora, RHEL", "arch": "Arch",
                "suse": "openSUSE"}
OS_RELEASE_PATHS = (Path("/etc/os-release"), Path("/usr/lib/os-release"))


def distribution_family(os_release: str) -> str | None:
    """"debian", "fedora", "arch" or "suse" from os-release's ID and ID_LIKE; None for any
    other (or none)."""
    words: list[str] = []
    for line in os_release.splitlines():
        key, _, value = line.partition("=")
        if key.strip() in ("ID", "ID_LIKE"):
            words += value.strip().strip("\"'").lower().split()
    for word in words:
        if word in ("debian", "ubuntu"):
            return "debian"
        if word in ("fedora", "rhel", "centos", "rocky", "almalinux"):
            return "fedora"
        if word in ("arch", "archlinux", "manjaro", "endeavouros", "cachyos"):
            return "arch"
        if word.startswith(("suse", "opensuse", "sles")):
            return "suse"
    return None


def package_of(library: str, family: str) -> str:
    """The package of `family` that installs `library` ("libxcb-cursor.so.0" -> Debian's
    libxcb-cursor0, Fedora's and Arch's xcb-util-cursor)."""
    if family in ("debian", "suse"):
        return debian_package(library)
    match = _SONAME.match(library)
    name = match["name"] if match else library.split(".so", 1)[0]
    if family == "arch" and name in _ARCH_PACKAGES:
        return _ARCH_PACKAGES[name]
    if name in _XCB_UTIL_PACKAGES:
        return _XCB_UTIL_PACKAGES[name]
    return "libxcb" if name.startswith("libxcb") else name


def read_os_release() -> str:
    for path in OS_RELEASE_PATHS:
        with contextlib.suppress(OSError):
            return path.read_text(encoding="utf-8", errors="replace")
    return ""


def install_line(missing: Sequence[str], os_release: str) -> str:
    """"(Debian, Ubuntu): sudo apt install ..." for this distribution's family; every
    family's line where the family is not known."""
    family = distribution_family(os_release)
    families = [family] if family else list(INSTALL_COMMANDS)
    lines = []
    for name in families:
        packages = " ".join(dict.fromkeys(package_of(library, name) for library in missing))
        lines.append(f"({FAMILY_NAMES[name]}): {INSTALL_COMMANDS[name]} {packages}")
    return "; or ".join(lines)


def _unloadable(run: Runner, ldd: str, plugin: Path) -> list[str] | None:
    """The libraries `plugin` lacks, by `ldd`; None when ldd cannot tell."""
    try:
        answer = run([ldd, str(plugin)], capture_output=True, text=True, timeout=LDD_TIMEOUT_S,
                     check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return missing_libraries(answer.stdout or "")


def x11_problem(environ: Mapping[str, str], *, platform: str = sys.platform,
                plugin: Path | None = None, run: Runner = subprocess.run,
                os_release: str | None = None) -> str | None:
    """Why the window cannot open on this X11 display, or None (no X11 to check, nothing
    missing, or no way to tell: no plugin, no ldd)."""
    if not platform.startswith("linux") or not environ.get("DISPLAY"):
        return None
    chosen = environ.get("QT_QPA_PLATFORM", "")
    if chosen and not chosen.startswith("xcb"):
        return None
    ldd = shutil.which("ldd")
    if ldd is None:
        return None
    if not chosen and environ.get("WAYLAND_DISPLAY"):
        # Qt takes Wayland first where there is a Wayland display, and falls back to X11
        # (XWayland) only when its Wayland plugin cannot load.
        wayland = xcb_plugin_path(WAYLAND_PLUGIN)
        if wayland is None or _unloadable(run, ldd, wayland) == []:
            return None
    plugin = plugin or xcb_plugin_path()
    if plugin is None:
        return None
    missing = _unloadable(run, ldd, plugin)
    if not missing:
        return None
    line = install_line(missing, read_os_release() if os_release is None else os_release)
    return (f"Qt's X11 plugin cannot load here: {', '.join(missing)} "
            f"{'is' if len(missing) == 1 else 'are'} not installed, and Qt would abort. "
            f"Install {'it' if len(missing) == 1 else 'them'} {line}")


# ----------------------------------------------------------------------------- menu entry

DESKTOP_FILE_NAME = "gpuscope.desktop"
ICON_FILE_NAME = "gpuscope.svg"
RESOURCE_PACKAGE = "gpuscope.resources"


class DesktopEntryError(Exception):
    """The menu entry cannot be installed or removed here (one line, for the CLI)."""


@dataclass(frozen=True, slots=True)
class DesktopEntryPaths:
    desktop_file: Path  # <data home>/applications/gpuscope.desktop
    icon: Path  # <data home>/icons/hicolor/scalable/apps/gpuscope.svg


def desktop_entry_paths(environ: Mapping[str, str]) -> DesktopEntryPaths:
    """Where the XDG base directory specification puts a user's menu entry and icon:
    $XDG_DATA_HOME, else ~/.local/share."""
    data_home = environ.get("XDG_DATA_HOME") or ""
    base = Path(data_home) if os.path.isabs(data_home) else Path.home() / ".local" / "share"
    return DesktopEntryPaths(base / "applications" / DESKTOP_FILE_NAME,
                             base / "icons" / "hicolor" / "scalable" / "apps" / ICON_FILE_NAME)


def launcher_command(python: str = sys.executable) -> tuple[str, ...]:
    """How the menu starts the window: the `gpuscope` script installed beside this Python
    (a virtual environment's bin/ is not on the desktop's PATH, so the path is absolute),
    else this Python with `-m gpuscope`."""
    script = Path(python).parent / "gpuscope"
    if script.is_file() and os.access(script, os.X_OK):
        return (str(script),)
    return (python, "-m", "gpuscope")


def _exec_quoted(argument: str) -> str:
    """An Exec argument as the desktop entry specification writes it: quoted where it holds
    a reserved character (with \\ before ", `, $ and \\), then string-escaped (every \\
    doubled), the two rules the specification applies in turn."""
    if not re.search(r'[\s"\'\\><~|&;$*?#()`]', argument):
        return argument
    quoted = argument
    for special in ("\\", '"', "`", "$"):
        quoted = quoted.replace(special, "\\" + special)
    return ('"' + quoted + '"').replace("\\", "\\\\")


def desktop_entry_text(command: Sequence[str]) -> str:
    """The packaged gpuscope.desktop with Exec and TryExec pointing at `command`."""
    template = importlib.resources.files(RESOURCE_PACKAGE).joinpath(DESKTOP_FILE_NAME)
    lines = []
    for line in template.read_text(encoding="utf-8").splitlines():
        if line.startswith("Exec="):
            line = "Exec=" + " ".join(_exec_quoted(part) for part in command)
        elif line.startswith("TryExec="):
            line = "TryExec=" + command[0]
        lines.append(line)
    return "\n".join(lines) + "\n"


def install_desktop_entry(environ: Mapping[str, str], command: Sequence[str] | None = None,
                          *, platform: str = sys.platform) -> DesktopEntryPaths:
    """Write the menu entry and the icon for this user. Raises DesktopEntryError."""
    if not platform.startswith("linux"):
        raise DesktopEntryError("menu entries are for Linux desktops (the XDG menu)")
    paths = desktop_entry_paths(environ)
    icon = importlib.resources.files(RESOURCE_PACKAGE).joinpath(ICON_FILE_NAME)
    try:
        _write_atomically(paths.icon, icon.read_bytes())
        _write_atomically(paths.desktop_file,
                          desktop_entry_text(command or launcher_command()).encode("utf-8"))
    except OSError as exc:
        raise DesktopEntryError(f"cannot write {exc.filename or paths.desktop_file}: "
                                f"{exc.strerror or exc}") from exc
    _refresh_menu(paths.desktop_file.parent)
    return paths


def uninstall_desktop_entry(environ: Mapping[str, str]) -> list[Path]:
    """Remove the menu entry and the icon; the files that were there. Raises
    DesktopEntryError when one cannot be removed."""
    paths = desktop_entry_paths(environ)
    removed = []
    for path in (paths.desktop_file, paths.icon):
        try:
            path.unlink()
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise DesktopEntryError(f"cannot remove {path}: {exc.strerror or exc}") from exc
        removed.append(path)
    _refresh_menu(paths.desktop_file.parent)
    return removed


def _write_atomically(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_bytes(path, data, mode=0o644)


def _refresh_menu(applications: Path) -> None:
    """Let the desktop see the change at once where it keeps a cache (best effort)."""
    tool = shutil.which("update-desktop-database")
    if tool is None or not applications.is_dir():
        return
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        subprocess.run([tool, str(applications)], capture_output=True, timeout=LDD_TIMEOUT_S,
                       check=False)


# ----------------------------------------------------------------------------- Windows

SHORTCUT_NAME = "gpuscope.lnk"
POWERSHELL_TIMEOUT_S = 30.0


def start_menu_shortcut_path(environ: Mapping[str, str]) -> Path:
    """The user's Start-menu Programs folder (%APPDATA%\\Microsoft\\Windows\\Start Menu\\Programs,
    https://learn.microsoft.com/en-us/windows/win32/shell/knownfolderid#FOLDERID_Programs)."""
    app_data = environ.get("APPDATA")
    if not app_data:
        raise DesktopEntryError("APPDATA is not set: cannot find the Start menu folder")
    return Path(app_data) / "Microsoft" / "Windows" / "Start Menu" / "Programs" / SHORTCUT_NAME


def windows_launcher_command(scripts_folder: str | None = None,
                             python: str = sys.executable) -> tuple[str, ...]:
    """The windowed gpuscope.exe pip put beside this Python's scripts, else pythonw.exe (no
    console window) with `-m gpuscope`."""
    folder = Path(scripts_folder or sysconfig.get_path("scripts"))
    launcher = folder / "gpuscope.exe"
    if launcher.is_file():
        return (str(launcher),)
    windowed = Path(python).with_name("pythonw.exe")
    return (str(windowed) if windowed.is_file() else python, "-m", "gpuscope")


def _powershell_quoted(text: str) -> str:
    """A PowerShell single-quoted string: nothing inside is expanded, ' is doubled."""
    return "'" + text.replace("'", "''") + "'"


def shortcut_script(shortcut: Path, command: Sequence[str]) -> str:
    """PowerShell that writes the shortcut: target, arguments, and the user's home as the
    folder it starts in."""
    arguments = subprocess.list2cmdline(list(command[1:]))
    return "; ".join([
        "$shell = New-Object -ComObject WScript.Shell",
        f"$link = $shell.CreateShortcut({_powershell_quoted(str(shortcut))})",
        f"$link.TargetPath = {_powershell_quoted(command[0])}",
        f"$link.Arguments = {_powershell_quoted(arguments)}",
        "$link.WorkingDirectory = $env:USERPROFILE",
        f"$link.Description = {_powershell_quoted('GPU inventory, diagnosis and benchmarks')}",
        "$link.Save()",
    ])


def install_start_menu_shortcut(environ: Mapping[str, str],
                                command: Sequence[str] | None = None,
                                run: Runner = subprocess.run) -> Path:
    """Put gpuscope in the user's Start menu. Raises DesktopEntryError."""
    shortcut = start_menu_shortcut_path(environ)
    script = shortcut_script(shortcut, command or windows_launcher_command())
    try:
        shortcut.parent.mkdir(parents=True, exist_ok=True)
        done = run(["powershell", "-NoProfile", "-NonInteractive", "-Command", script],
                   capture_output=True, text=True, timeout=POWERSHELL_TIMEOUT_S, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        raise DesktopEntryError(f"cannot run PowerShell to make the shortcut: {exc}") from exc
    if done.returncode != 0:
        why = (done.stderr or done.stdout or "").strip().splitlines()
        raise DesktopEntryError("PowerShell could not make the shortcut: "
                                + (why[0] if why else f"exit status {done.returncode}"))
    return shortcut


def uninstall_start_menu_shortcut(environ: Mapping[str, str]) -> list[Path]:
    """Remove the Start-menu shortcut; the files that were there."""
    shortcut = start_menu_shortcut_path(environ)
    try:
        shortcut.unlink()
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise DesktopEntryError(f"cannot remove {shortcut}: {exc.strerror or exc}") from exc
    return [shortcut]


def desktop_entry_command(install: bool, environ: Mapping[str, str],
                          platform: str = sys.platform) -> str:
    """`gpuscope desktop-entry --install | --uninstall`: what it did, in one line. Raises
    DesktopEntryError."""
    if platform == "win32" and install:
        shortcut = install_start_menu_shortcut(environ)
        return (f"Wrote {shortcut}: gpuscope is in the Start menu. "
                "Undo: gpuscope-cli desktop-entry --uninstall")
    if platform == "win32":
        removed = uninstall_start_menu_shortcut(environ)
        return ("Removed " + " and ".join(str(path) for path in removed) if removed
                else "No gpuscope Start-menu shortcut was installed for this user.")
    if install:
        paths = install_desktop_entry(environ, platform=platform)
        return (f"Wrote {paths.desktop_file} and {paths.icon}: gpuscope is in the application "
                "menu (under System). Undo: gpuscope desktop-entry --uninstall")
    removed = uninstall_desktop_entry(environ)
    return ("Removed " + " and ".join(str(path) for path in removed) if removed
            else "No gpuscope menu entry was installed for this user.")
