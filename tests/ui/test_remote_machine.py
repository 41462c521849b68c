"""The window with another machine added: a `gpuscope serve` of the replayed RX 7900 XTX,
started in the test on loopback, beside a window replaying an RTX 4090 machine."""

from __future__ import annotations

import io
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QApplication

from gpuscope.app.remote import RemoteFeed, RemoteStatus
from gpuscope.app.settings import RemoteMachineSetting
from gpuscope.evidence import ReplaySystem
from gpuscope.serve.command import RunningExporter, ServeOptions, serve_command
from gpuscope.ui.main_window import MainWindow
from gpuscope.ui.stack_page import framework_row_text

SNAPSHOTS_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "snapshots"
TOKEN = "window-test-token"
WindowFactory = Callable[..., MainWindow]


class Exporter:
    """`gpuscope serve` of the RX 7900 XTX replay on a thread, until `close()`."""

    def __init__(self, port: int = 0) -> None:
        ready = threading.Event()
        self.stop = threading.Event()
        holder: list[RunningExporter] = []

        def on_ready(running: RunningExporter) -> None:
            holder.append(running)
            ready.set()

        def run() -> None:
            serve_command(ServeOptions(replay=str(SNAPSHOTS_DIR / "rx7900xtx_rocm.json"),
                                       port=port, token=TOKEN, no_frameworks=True, rate=5.0),
                          stop=self.stop, on_ready=on_ready, out=io.StringIO(),
                          err=io.StringIO())
            ready.set()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        assert ready.wait(60) and holder, "the exporter did not start"
        self.running = holder[0]
        assert self.running.doctor.wait_first(60)
        assert self.running.server is not None
        self.port = self.running.server.port

    def close(self) -> None:
        self.stop.set()
        self.thread.join(15)
        assert not self.thread.is_alive()


def _window(make_window: WindowFactory, qtbot: Any) -> MainWindow:
    window = make_window(ReplaySystem.from_file(SNAPSHOTS_DIR / "nvidia_rtx4090.json"))
    qtbot.waitUntil(lambda: not window.loader.is_running, timeout=10_000)
    return window


def test_a_remote_machine_on_overview_stack_and_telemetry(
        qtbot: Any, make_window: WindowFactory) -> None:
    exporter = Exporter()
    second: Exporter | None = None
    window = _window(make_window, qtbot)
    try:
        remote = window.remote_machines
        assert remote.selector.count() == 1 and remote.selector.itemText(0) == "This machine"
        url = f"http://127.0.0.1:{exporter.port}"
        machine = remote.add_machine(RemoteMachineSetting(url, TOKEN))
        assert remote.selector.currentIndex() == 1 and remote.showing is machine
        assert window.settings.remote_machines == (RemoteMachineSetting(url, TOKEN),)
        qtbot.waitUntil(lambda: any("7900" in card.name_label.text()
                                    for card in window.overview_page.cards()), timeout=20_000)
        assert not any("4090" in card.name_label.text() for card in window.overview_page.cards())
        assert window.banner.isVisible()
        assert window.banner.text().startswith(f"Remote: {url}")
        qtbot.waitUntil(lambda: "connected" in window.banner.text(), timeout=10_000)
        # The Stack page holds the remote doctor's answer; the Telemetry page its feed.
        diagnosis = window.stack_page.diagnosis
        assert diagnosis is not None and diagnosis.inventory.origin.source == url
        assert any("7900" in (gpu.name or "") for gpu in diagnosis.inventory.gpus)
        assert diagnosis.remote == url  # its advice names that machine's serve, not this page
        gpu = diagnosis.inventory.gpus[0]
        framework = diagnosis.layers(gpu)[-1]
        assert "gpuscope serve inspected no Python" in framework_row_text(framework, diagnosis)
        feed = window.telemetry_page.frame.feed
        assert isinstance(feed, RemoteFeed) and feed.machine is machine
        assert feed.label.english() == f"Remote: {url}"
        assert any(device.key == "0000:03:00.0" for device in feed.devices())

        exporter.close()  # the machine goes away: unreachable, with why
        qtbot.waitUntil(lambda: "(unreachable)" in remote.selector.itemText(1),
                        timeout=20_000)
        qtbot.waitUntil(lambda: "unreachable:" in window.banner.text(), timeout=5_000)
        assert any("7900" in card.name_label.text() for card in window.overview_page.cards())
        second = Exporter(exporter.port)  # and comes back by itself
        qtbot.waitUntil(lambda: machine.state.status is RemoteStatus.REACHABLE,
                        timeout=40_000)
        qtbot.waitUntil(lambda: remote.selector.itemText(1) == url, timeout=5_000)
        qtbot.waitUntil(lambda: "connected" in window.banner.text(), timeout=5_000)

        remote.select(None)  # back to this machine
        assert remote.showing is None
        assert any("4090" in card.name_label.text() for card in window.overview_page.cards())
        assert not window.banner.text().startswith("Remote:")
        if os.environ.get("GPUSCOPE_REMOTE_PNG"):  # a picture to look at
            remote.select(machine)
            window.resize(1200, 800)
            qtbot.wait(1500)
            QApplication.processEvents()
            window.grab().save(os.environ["GPUSCOPE_REMOTE_PNG"])
            window.select_page("Stack")
            qtbot.wait(300)
            window.grab().save(os.environ["GPUSCOPE_REMOTE_PNG"].replace(".png", "-stack.png"))
            window.select_page("Telemetry")
            qtbot.wait(1500)
            window.grab().save(os.environ["GPUSCOPE_REMOTE_PNG"].replace(".png", "-tele.png"))
    finally:
        window.close()
        if second is not None:
            second.close()
        if exporter.thread.is_alive():
            exporter.close()


def test_add_machine_dialog_checks_the_address(qtbot: Any,
                                               make_window: WindowFactory) -> None:
    window = _window(make_window, qtbot)
    dialog = window.remote_machines.open_add_dialog()
    dialog.address_edit.setText("ftp://nowhere")
    dialog.accept()
    assert dialog.isVisible() and dialog.error_label.isVisibleTo(dialog)
    assert "not an http:// or https:// address" in dialog.error_label.text()
    dialog.address_edit.setText("127.0.0.1:1")  # nothing listens there
    dialog.token_edit.setText("t")
    dialog.accept()
    assert not dialog.isVisible()
    remote = window.remote_machines
    assert remote.selector.count() == 2
    assert window.settings.remote_machines == (
        RemoteMachineSetting("http://127.0.0.1:1", "t"),)
    qtbot.waitUntil(lambda: "(unreachable)" in remote.selector.itemText(1), timeout=10_000)
    qtbot.waitUntil(lambda: "connection refused" in window.banner.text(), timeout=5_000)
    assert window.overview_page.cards() == []  # not this machine's GPUs under its banner
    window.close()
