"""The real window on a real X server (issue #12): Xvfb and Qt's xcb plugin, not offscreen.

`gpuscope --replay <fixture>` starts as a user would start it, its top-level window appears,
every page is shown with its keyboard shortcut, the window is photographed where ImageMagick
is there, and the window manager's close request (WM_DELETE_WINDOW) ends it cleanly: exit 0,
settings saved with the last page shown. `.ci/run` installs Xvfb and xdotool where it can;
without them this test skips and says why."""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fixture_paths import SNAPSHOTS_DIR

from gpuscope.app.desktop import x11_problem

ROOT = Path(__file__).resolve().parents[2]
PAGES = ("Overview", "Stack", "Frameworks", "Telemetry", "Benchmarks", "Compare", "Report")

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11 test"),
    pytest.mark.skipif(shutil.which("Xvfb") is None or shutil.which("xdotool") is None,
                       reason="needs Xvfb and xdotool (apt install xvfb xdotool)"),
]


@pytest.fixture
def x_display() -> Iterator[str]:
    """A fresh Xvfb server; its display name (":N")."""
    read_end, write_end = os.pipe()
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_end), "-screen", "0", "1280x800x24", "-nolisten",
         "tcp"], pass_fds=(write_end,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write_end)
    try:
        with os.fdopen(read_end) as numbers:
            number = numbers.readline().strip()
        if not number:
            pytest.skip("Xvfb did not start")
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(timeout=10)


def xdotool(display: str, *args: str) -> str:
    result = subprocess.run(["xdotool", *args], env={**os.environ, "DISPLAY": display},
                            capture_output=True, text=True, timeout=30, check=False)
    return result.stdout.strip()


def send_close_request(display: str, window: int) -> None:
    """What a window manager's close button sends: a WM_PROTOCOLS client message with
    WM_DELETE_WINDOW (xdotool of this age has no such command)."""
    name = ctypes.util.find_library("X11")
    if name is None:
        pytest.skip("libX11 is not installed")
    x11 = ctypes.CDLL(name)
    x11.XOpenDisplay.restype = ctypes.c_void_p
    x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
    x11.XInternAtom.restype = ctypes.c_ulong
    x11.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]

    class ClientMessage(ctypes.Structure):
        _fields_ = [("type", ctypes.c_int), ("serial", ctypes.c_ulong),
                    ("send_event", ctypes.c_int), ("display", ctypes.c_void_p),
                    ("window", ctypes.c_ulong), ("message_type", ctypes.c_ulong),
                    ("format", ctypes.c_int), ("data", ctypes.c_long * 5)]

    class Event(ctypes.Union):  # XEvent: 24 longs
        _fields_ = [("client", ClientMessage), ("pad", ctypes.c_long * 24)]

    x11.XSendEvent.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_long,
                               ctypes.POINTER(Event)]
    x11.XFlush.argtypes = [ctypes.c_void_p]
    x11.XCloseDisplay.argtypes = [ctypes.c_void_p]
    connection = x11.XOpenDisplay(display.encode())
    assert connection, f"cannot open display {display}"
    try:
        event = Event()
        event.client.type = 33  # ClientMessage
        event.client.window = window
        event.client.message_type = x11.XInternAtom(connection, b"WM_PROTOCOLS", 0)
        event.client.format = 32
        event.client.data[0] = x11.XInternAtom(connection, b"WM_DELETE_WINDOW", 0)
        event.client.data[1] = 0  # CurrentTime
        assert x11.XSendEvent(connection, window, 0, 0, ctypes.byref(event))
        x11.XFlush(connection)
    finally:
        x11.XCloseDisplay(connection)


def test_the_real_window_shows_every_page_and_closes_cleanly(x_display: str,
                                                             tmp_path: Path) -> None:
    problem = x11_problem({"DISPLAY": x_display})
    if problem is not None:
        pytest.skip(problem)  # the libraries of Qt's xcb plugin are missing here
    env = {k: v for k, v in os.environ.items()
           if k not in ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY")}
    env.update(DISPLAY=x_display, GPUSCOPE_CONFIG_DIR=str(tmp_path / "config"))
    app = subprocess.Popen(
        [sys.executable, "-m", "gpuscope", "--replay", str(SNAPSHOTS_DIR / "rx7900xtx_rocm.json")],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        window = ""
        deadline = time.monotonic() + 60
        while not window:
            assert app.poll() is None, app.communicate()
            assert time.monotonic() < deadline, "no gpuscope window appeared"
            window = xdotool(x_display, "search", "--onlyvisible", "--class",
                             "gpuscope").split("\n")[0]
            time.sleep(0.2)
        assert "gpuscope" in xdotool(x_display, "getwindowname", window)
        xdotool(x_display, "windowfocus", "--sync", window)
        camera = shutil.which("import")
        for number, page in enumerate(PAGES, start=1):
            xdotool(x_display, "key", "--clearmodifiers", f"ctrl+{number}")
            time.sleep(0.8)  # the page lays out and paints
            assert app.poll() is None, f"the window ended on {page}: {app.communicate()}"
            if camera is not None:
                subprocess.run([camera, "-display", x_display, "-window", window,
                                str(tmp_path / f"{number}-{page.lower()}.png")],
                               capture_output=True, timeout=30, check=False)
        send_close_request(x_display, int(window))
        _out, err = app.communicate(timeout=30)
    finally:
        if app.poll() is None:
            app.kill()
            app.wait()
    assert app.returncode == 0, err
    assert "Traceback" not in err and "Could not load the Qt platform plugin" not in err
    settings = json.loads((tmp_path / "config" / "settings.json").read_text())
    assert settings["last_page"] == "Report"  # every shortcut reached the real window
    if shutil.which("import") is not None:
        shots = sorted(tmp_path.glob("*.png"))
        assert len(shots) == len(PAGES) and all(shot.stat().st_size > 5000 for shot in shots)
