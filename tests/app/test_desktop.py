"""The X11 check before Qt loads: a missing library of Qt's X11 plugin is named with the
command that installs it, instead of Qt aborting the process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gpuscope.app.desktop import (
    WAYLAND_PLUGIN,
    DesktopEntryError,
    debian_package,
    desktop_entry_command,
    desktop_entry_paths,
    distribution_family,
    install_desktop_entry,
    install_start_menu_shortcut,
    launcher_command,
    missing_libraries,
    package_of,
    shortcut_script,
    start_menu_shortcut_path,
    uninstall_desktop_entry,
    windows_launcher_command,
    x11_problem,
    xcb_plugin_path,
)

ROOT = Path(__file__).resolve().parents[2]

# ldd's answer on a fresh Debian 12 without the README's X11 packages (shape of a real run:
# found libraries with their path, missing ones "=> not found").
LDD_MISSING = """\
\tlinux-vdso.so.1 (0x00007ffd8a5f2000)
\tlibQt6XcbQpa.so.6 => /venv/lib/python3.11/site-packages/PySide6/Qt/lib/libQt6XcbQpa.so.6
\tlibxkbcommon-x11.so.0 => not found
\tlibxcb-cursor.so.0 => not found
\tlibxcb-icccm.so.4 => not found
\tlibxcb-keysyms.so.1 => not found
\tlibxcb-cursor.so.0 => not found
\tlibxcb.so.1 => /lib/x86_64-linux-gnu/libxcb.so.1 (0x00007f)
"""
X11 = {"DISPLAY": ":0"}


def answering(stdout: str) -> Any:
    def run(args: list[str], **_kwargs: Any) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess(args, 0, stdout=stdout, stderr="")
    return run


def test_the_missing_libraries_are_read_from_ldd_once_each() -> None:
    assert missing_libraries(LDD_MISSING) == [
        "libxkbcommon-x11.so.0", "libxcb-cursor.so.0", "libxcb-icccm.so.4",
        "libxcb-keysyms.so.1"]


@pytest.mark.parametrize(("library", "package"), [
    ("libxcb-cursor.so.0", "libxcb-cursor0"),
    ("libxcb-icccm.so.4", "libxcb-icccm4"),
    ("libxcb-keysyms.so.1", "libxcb-keysyms1"),
    ("libxkbcommon-x11.so.0", "libxkbcommon-x11-0"),
    ("libxcb-render-util.so.0", "libxcb-render-util0"),
])
def test_a_library_is_named_by_its_debian_package(library: str, package: str) -> None:
    assert debian_package(library) == package


def test_missing_x11_libraries_are_named_with_the_apt_command(tmp_path: Path) -> None:
    problem = x11_problem(X11, platform="linux", plugin=tmp_path / "libqxcb.so",
                          run=answering(LDD_MISSING), os_release=UBUNTU)
    assert problem is not None
    assert problem.endswith("sudo apt install libxkbcommon-x11-0 libxcb-cursor0 libxcb-icccm4 "
                            "libxcb-keysyms1")
    assert "libxcb-cursor.so.0" in problem and "abort" in problem


UBUNTU = 'NAME="Ubuntu"\nID=ubuntu\nID_LIKE=debian\nVERSION_ID="24.04"\n'
FEDORA = 'NAME="Fedora Linux"\nID=fedora\nVERSION_ID=41\n'
ARCH = 'NAME="Arch Linux"\nID=arch\n'
MANJARO = 'NAME="Manjaro Linux"\nID=manjaro\nID_LIKE=arch\n'
TUMBLEWEED = 'NAME="openSUSE Tumbleweed"\nID="opensuse-tumbleweed"\nID_LIKE="opensuse suse"\n'
ROCKY = 'NAME="Rocky Linux"\nID="rocky"\nID_LIKE="rhel centos fedora"\n'


@pytest.mark.parametrize(("os_release", "family"), [
    (UBUNTU, "debian"), (FEDORA, "fedora"), (ARCH, "arch"), (MANJARO, "arch"),
    (TUMBLEWEED, "suse"), (ROCKY, "fedora"), ('ID=gentoo\n', None), ("", None),
])
def test_the_distribution_family_comes_from_os_release(os_release: str,
                                                       family: str | None) -> None:
    assert distribution_family(os_release) == family


@pytest.mark.parametrize(("os_release", "line"), [
    (FEDORA, "(Fedora, RHEL): sudo dnf install libxkbcommon-x11 xcb-util-cursor xcb-util-wm "
             "xcb-util-keysyms"),
    (ARCH, "(Arch): sudo pacman -S --needed libxkbcommon-x11 xcb-util-cursor xcb-util-wm "
           "xcb-util-keysyms"),
    (TUMBLEWEED, "(openSUSE): sudo zypper install libxkbcommon-x11-0 libxcb-cursor0 "
                 "libxcb-icccm4 libxcb-keysyms1"),
])
def test_each_family_gets_its_own_install_command(tmp_path: Path, os_release: str,
                                                  line: str) -> None:
    problem = x11_problem(X11, platform="linux", plugin=tmp_path / "libqxcb.so",
                          run=answering(LDD_MISSING), os_release=os_release)
    assert problem is not None and problem.endswith(line)
    command = line.split(": ", 1)[1]
    assert subprocess.run(["bash", "-n", "-c", command], check=False).returncode == 0


def test_an_unknown_family_gets_every_command(tmp_path: Path) -> None:
    problem = x11_problem(X11, platform="linux", plugin=tmp_path / "libqxcb.so",
                          run=answering(LDD_MISSING), os_release="ID=gentoo\n")
    assert problem is not None and "\n" not in problem
    for command in ("sudo apt install", "sudo dnf install", "sudo pacman -S", "sudo zypper"):
        assert command in problem
    assert package_of("libxcb-randr.so.0", "fedora") == "libxcb"


@pytest.mark.parametrize("environ", [
    {},  # no display at all: said elsewhere
    {"DISPLAY": ":0", "QT_QPA_PLATFORM": "offscreen"},
])
def test_nothing_is_checked_where_qt_does_not_use_x11(environ: dict[str, str],
                                                      tmp_path: Path) -> None:
    assert x11_problem(environ, platform="linux", plugin=tmp_path / "libqxcb.so",
                       run=answering(LDD_MISSING)) is None


def only_xcb_missing(args: list[str], **_kwargs: Any) -> subprocess.CompletedProcess[str]:
    """ldd that finds the Wayland plugin's libraries and not the X11 plugin's."""
    missing = args[-1].endswith("libqxcb.so")
    return subprocess.CompletedProcess(args, 0, stdout=LDD_MISSING if missing else "",
                                       stderr="")


@pytest.mark.skipif(xcb_plugin_path(WAYLAND_PLUGIN) is None,
                    reason="this PySide6 has no Wayland plugin")
def test_a_wayland_session_is_checked_for_x11_only_when_wayland_cannot_load(
        tmp_path: Path) -> None:
    wayland = {"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"}
    # Qt takes its Wayland plugin, which loads: X11 does not matter.
    assert x11_problem(wayland, platform="linux", plugin=tmp_path / "libqxcb.so",
                       run=only_xcb_missing) is None
    # The Wayland plugin cannot load either: Qt falls back to X11, which must load.
    problem = x11_problem(wayland, platform="linux", plugin=tmp_path / "libqxcb.so",
                          run=answering(LDD_MISSING), os_release=UBUNTU)
    assert problem is not None and "sudo apt install" in problem


def test_an_explicit_xcb_choice_is_checked_even_beside_wayland(tmp_path: Path) -> None:
    environ = {"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0", "QT_QPA_PLATFORM": "xcb"}
    assert x11_problem(environ, platform="linux", plugin=tmp_path / "libqxcb.so",
                       run=answering(LDD_MISSING)) is not None


def test_no_answer_from_ldd_is_no_verdict(tmp_path: Path) -> None:
    def broken(args: list[str], **_kwargs: Any) -> subprocess.CompletedProcess[str]:
        raise subprocess.TimeoutExpired(args, 10)

    assert x11_problem(X11, platform="linux", plugin=tmp_path / "x", run=broken) is None
    assert x11_problem(X11, platform="win32", plugin=tmp_path / "x",
                       run=answering(LDD_MISSING)) is None


@pytest.mark.skipif(not sys.platform.startswith("linux") or shutil.which("ldd") is None,
                    reason="ldd reads Linux shared libraries")
def test_the_real_plugin_is_found_and_read_by_the_real_ldd() -> None:
    """This venv's PySide6 has libqxcb.so; what the real ldd says missing is what the check
    says."""
    plugin = xcb_plugin_path()
    assert plugin is not None and plugin.name == "libqxcb.so"
    answer = subprocess.run(["ldd", str(plugin)], capture_output=True, text=True, timeout=10,
                            check=False)
    assert "libQt6XcbQpa" in answer.stdout
    missing = missing_libraries(answer.stdout)
    problem = x11_problem(X11, platform="linux", plugin=plugin)
    if missing:
        assert problem is not None and missing[0] in problem
    else:
        assert problem is None


def test_the_window_command_says_what_to_install_instead_of_aborting(tmp_path: Path) -> None:
    """`gpuscope` on an X11 display where ldd finds a library missing: exit 1 with the apt
    line, before Qt is loaded (a fake ldd first on PATH stands for the bare machine)."""
    fake_ldd = tmp_path / "ldd"
    fake_ldd.write_text("#!/bin/sh\ncat <<'EOF'\n" + LDD_MISSING + "EOF\n")
    fake_ldd.chmod(0o755)
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env.update(DISPLAY=":99", PATH=f"{tmp_path}{os.pathsep}{env.get('PATH', '')}")
    result = subprocess.run([sys.executable, "-m", "gpuscope"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 1, result.stderr
    assert "sudo apt install libxkbcommon-x11-0 libxcb-cursor0" in result.stderr
    assert "gpuscope info" in result.stderr  # the command line still works


# ----------------------------------------------------------------------------- menu entry

RESOURCES = ROOT / "resources"


def validated(path: Path) -> None:
    tool = shutil.which("desktop-file-validate")
    if tool is None:
        return  # the key checks of the caller still ran (apt install desktop-file-utils)
    result = subprocess.run([tool, str(path)], capture_output=True, text=True, timeout=30,
                            check=False)
    assert result.returncode == 0 and "error" not in result.stdout.lower(), result.stdout


def test_the_menu_entry_is_installed_for_this_user_and_removed_again(tmp_path: Path) -> None:
    environ = {"XDG_DATA_HOME": str(tmp_path)}
    paths = install_desktop_entry(environ, ("/opt/gpu tools/bin/gpuscope",), platform="linux")
    assert paths.desktop_file == tmp_path / "applications" / "gpuscope.desktop"
    assert paths.icon.read_bytes() == (RESOURCES / "gpuscope.svg").read_bytes()
    entry = dict(line.split("=", 1) for line in paths.desktop_file.read_text().splitlines()
                 if "=" in line)
    assert entry["Exec"] == '"/opt/gpu tools/bin/gpuscope"'  # quoted: it holds a space
    assert entry["TryExec"] == "/opt/gpu tools/bin/gpuscope"
    assert entry["Icon"] == "gpuscope" and entry["Name"] == "gpuscope"
    validated(paths.desktop_file)
    assert uninstall_desktop_entry(environ) == [paths.desktop_file, paths.icon]
    assert not paths.desktop_file.exists() and not paths.icon.exists()
    assert uninstall_desktop_entry(environ) == []


def test_an_exec_line_with_reserved_characters_is_quoted_and_escaped(tmp_path: Path) -> None:
    command = ("/home/a b/$venv/bin/python", "-m", "gpuscope")
    paths = install_desktop_entry({"XDG_DATA_HOME": str(tmp_path)}, command, platform="linux")
    [exec_line] = [line for line in paths.desktop_file.read_text().splitlines()
                   if line.startswith("Exec=")]
    assert exec_line == 'Exec="/home/a b/\\\\$venv/bin/python" -m gpuscope'
    validated(paths.desktop_file)


def test_the_launcher_is_the_script_beside_this_python_else_python_m(tmp_path: Path) -> None:
    python = tmp_path / "bin" / "python"
    python.parent.mkdir()
    assert launcher_command(str(python)) == (str(python), "-m", "gpuscope")
    script = python.parent / "gpuscope"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    assert launcher_command(str(python)) == (str(script),)


def test_the_default_data_home_is_dot_local_share() -> None:
    assert desktop_entry_paths({}).desktop_file == (
        Path.home() / ".local" / "share" / "applications" / "gpuscope.desktop")
    # The XDG specification ignores a relative $XDG_DATA_HOME.
    assert desktop_entry_paths({"XDG_DATA_HOME": "relative"}) == desktop_entry_paths({})


def test_elsewhere_than_linux_the_menu_entry_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DesktopEntryError, match="Linux"):
        install_desktop_entry({"XDG_DATA_HOME": str(tmp_path)}, ("gpuscope",),
                              platform="win32")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="XDG menus are Linux's")
def test_the_command_installs_the_entry(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path)}
    result = subprocess.run([sys.executable, "-m", "gpuscope", "desktop-entry", "--install"],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
                            check=False)
    assert result.returncode == 0, result.stderr
    desktop_file = tmp_path / "applications" / "gpuscope.desktop"
    assert str(desktop_file) in result.stdout and "--uninstall" in result.stdout
    validated(desktop_file)


# ----------------------------------------------------------------------------- Windows


def test_start_menu_shortcut_is_written_by_powershell_with_quoted_paths(tmp_path: Path) -> None:
    calls: list[list[str]] = []

    def run(argv: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
        calls.append(argv)
        return subprocess.CompletedProcess(argv, 0, "", "")

    environ = {"APPDATA": str(tmp_path / "Roaming")}
    command = ("C:\\Users\\O'Neil\\venv\\Scripts\\gpuscope.exe",)
    shortcut = install_start_menu_shortcut(environ, command, run=run)
    assert shortcut == (tmp_path / "Roaming" / "Microsoft" / "Windows" / "Start Menu"
                        / "Programs" / "gpuscope.lnk")
    assert shortcut.parent.is_dir()
    (argv,) = calls
    assert argv[:4] == ["powershell", "-NoProfile", "-NonInteractive", "-Command"]
    script = argv[4]
    # PowerShell's single quotes expand nothing; a ' inside is doubled.
    assert "$link.TargetPath = 'C:\\Users\\O''Neil\\venv\\Scripts\\gpuscope.exe'" in script
    assert "$link.Arguments = ''" in script
    assert script.endswith("$link.Save()")


def test_start_menu_shortcut_falls_back_to_pythonw_module(tmp_path: Path) -> None:
    python = tmp_path / "python.exe"
    python.write_text("")
    (tmp_path / "pythonw.exe").write_text("")
    command = windows_launcher_command(str(tmp_path / "no-scripts"), str(python))
    assert command == (str(tmp_path / "pythonw.exe"), "-m", "gpuscope")
    script = shortcut_script(Path("C:/x/gpuscope.lnk"), command)
    assert "$link.Arguments = '-m gpuscope'" in script


def test_start_menu_shortcut_failure_is_one_line(tmp_path: Path) -> None:
    def run(argv: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess(argv, 1, "", "New-Object : access denied\nmore\n")

    with pytest.raises(DesktopEntryError, match=r"PowerShell could not make the shortcut: "
                                                r"New-Object : access denied$"):
        install_start_menu_shortcut({"APPDATA": str(tmp_path)}, ("gpuscope.exe",), run=run)
    with pytest.raises(DesktopEntryError, match="APPDATA is not set"):
        install_start_menu_shortcut({}, ("gpuscope.exe",), run=run)


def test_desktop_entry_command_on_windows_removes_the_shortcut(tmp_path: Path) -> None:
    environ = {"APPDATA": str(tmp_path)}
    shortcut = start_menu_shortcut_path(environ)
    assert "No gpuscope Start-menu shortcut" in desktop_entry_command(False, environ, "win32")
    shortcut.parent.mkdir(parents=True)
    shortcut.write_bytes(b"L\0\0\0")
    assert desktop_entry_command(False, environ, "win32") == f"Removed {shortcut}"
    assert not shortcut.exists()
