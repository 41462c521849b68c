"""The Compare page takes a remote machine's measured results: a `gpuscope serve` of the
replayed RX 7900 XTX, with a benchmark run saved in its history, started in the test on
loopback beside a window replaying an RTX 4090 machine; the window adds it (File > Add
machine…) and "Add a remote machine's results" brings its card with the measured values."""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QApplication
from test_remote_machine import TOKEN, Exporter

from gpuscope.app.remote import RemoteMachine
from gpuscope.app.settings import RemoteMachineSetting
from gpuscope.bench.history import RunHistory
from gpuscope.evidence import ReplaySystem
from gpuscope.report.compare_table import CardOrigin
from gpuscope.ui.compare.page import ComparePage
from gpuscope.ui.main_window import MainWindow

TESTS_DIR = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS_DIR / "report"))
from report_fixtures import BENCH_STARTED_UNIX_S, bench_run  # noqa: E402

SNAPSHOTS_DIR = TESTS_DIR / "fixtures" / "snapshots"
WindowFactory = Callable[..., MainWindow]


def _remote_index(page: ComparePage, url: str) -> int | None:
    return next((i for i, card in enumerate(page.cards)
                 if card.origin is CardOrigin.IMPORTED and card.source == url), None)


def test_compare_takes_a_remote_machines_measured_results(
        qtbot: Any, make_window: WindowFactory) -> None:
    RunHistory().save(bench_run(BENCH_STARTED_UNIX_S))  # the served machine's saved run
    exporter = Exporter()
    window = make_window(ReplaySystem.from_file(SNAPSHOTS_DIR / "nvidia_rtx4090.json"))
    try:
        qtbot.waitUntil(lambda: not window.loader.is_running, timeout=10_000)
        page = window.compare_page
        remote_results = page.remote_results
        remote_results.fill_menu()  # no machine yet: says how to add one
        [empty] = remote_results.menu.actions()
        assert not empty.isEnabled() and "File > Add machine" in empty.text()

        url = f"http://127.0.0.1:{exporter.port}"
        window.remote_machines.add_machine(RemoteMachineSetting(url, TOKEN), select=False)
        window.select_page("Compare")
        qtbot.waitUntil(lambda: page.catalogue_ready, timeout=20_000)
        assert remote_results.button.isVisible()
        remote_results.fill_menu()
        [action] = remote_results.menu.actions()
        assert action.isEnabled() and url in action.text()
        action.trigger()
        qtbot.waitUntil(lambda: _remote_index(page, url) is not None, timeout=30_000)
        assert not remote_results.is_fetching and remote_results.button.isEnabled()
        index = _remote_index(page, url)
        assert index is not None
        assert page.cards[index].profile.name == "AMD Radeon RX 7900 XTX"
        assert page.cell_text("measured.matmul.fp16", index).startswith("98.6 TFLOPS")
        assert page.cell_text("measured.memory.copy", index).startswith("812.5 GB/s")
        assert url in page.message_text() and "measured" in page.message_text()
        # This machine's own card has no measured result; fetching again replaces the cards.
        count = len(page.cards)
        remote_results.fetch(window.remote_machines.machines[0])
        qtbot.waitUntil(lambda: not remote_results.is_fetching, timeout=30_000)
        assert len(page.cards) == count

        window.resize(1800, 950)
        qtbot.wait(300)
        QApplication.processEvents()
        picture = os.environ.get("GPUSCOPE_COMPARE_REMOTE_PNG")
        if picture:  # a picture to look at
            window.grab().save(picture)
    finally:
        window.close()
        exporter.close()


def test_a_machine_that_does_not_answer_says_why(qtbot: Any) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    page = ComparePage()
    qtbot.addWidget(page)
    machine = RemoteMachine(f"127.0.0.1:{port}", timeout_s=3)
    page.remote_results.set_machines(lambda: (machine,))
    page.remote_results.fill_menu()
    [action] = page.remote_results.menu.actions()
    action.trigger()
    qtbot.waitUntil(lambda: not page.remote_results.is_fetching, timeout=20_000)
    text = page.message_text()
    assert "Could not import" in text and "connection refused" in text
    assert f"127.0.0.1:{port}" in text
    assert not any(card.origin is CardOrigin.IMPORTED for card in page.cards)
