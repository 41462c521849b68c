"""Import outputs: the dialog (files, pasted text, unreadable and unknown inputs), the window
switching to the imported machine and back, and the render module's --from."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QImage, QKeySequence
from PySide6.QtWidgets import QApplication

from gpuscope.doctor.layers import LayerState
from gpuscope.evidence import LiveSystem, ReplaySystem
from gpuscope.inventory import PROBES
from gpuscope.model import Origin, OriginKind
from gpuscope.ui import render
from gpuscope.ui.app import run_gui
from gpuscope.ui.import_dialog import (
    NOT_RECOGNISED,
    PASTE_PLACEHOLDER,
    PASTED_SOURCE,
    ImportDialog,
    import_inputs,
)
from gpuscope.ui.main_window import (
    BACK_TO_LIVE,
    IMPORT_BANNER_BACKGROUND,
    MainWindow,
    replay_banner_text,
)
from gpuscope.ui.theme import BANNER_BACKGROUND

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
WindowFactory = Callable[..., MainWindow]


def case_file(prefix: str, name: str) -> str:
    (folder,) = (FIXTURES / "corpus").glob(f"{prefix}-*")
    path = folder / name
    if not path.exists():
        pytest.fail(f"corpus file {path} is missing")
    return str(path)


def wait_loaded(qtbot: Any, window: MainWindow) -> None:
    qtbot.waitUntil(lambda: not window.loader.is_running, timeout=20_000)


def run_import(qtbot: Any, dialog: ImportDialog) -> None:
    qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.is_busy, timeout=10_000)


def test_imported_files_replace_the_machine_until_back(
    qtbot: Any, make_window: WindowFactory,
) -> None:
    window = make_window(LiveSystem())
    wait_loaded(qtbot, window)
    assert not window.banner.isVisible() and not window.back_action.isEnabled()
    live_cards = len(window.overview_page.cards())

    dialog = window.open_import_dialog()
    assert dialog.isVisible() and dialog.paste_edit.placeholderText() == PASTE_PLACEHOLDER
    dialog.add_files([case_file("035", "rocminfo.txt"), case_file("035", "torch-error.txt")])
    assert [dialog.files_list.item(i).text() for i in range(dialog.files_list.count())] == [
        "rocminfo.txt", "torch-error.txt"]
    run_import(qtbot, dialog)

    assert window.is_imported and not dialog.isVisible()
    assert window.banner.isVisible()
    assert window.banner.text() == (
        "Imported from rocminfo.txt, torch-error.txt — pasted outputs, not this machine")
    assert IMPORT_BANNER_BACKGROUND.name() in window.banner_row.styleSheet()
    assert window.banner_back_button.isVisible() and window.back_action.isEnabled()
    assert window.windowTitle() == "gpuscope — imported outputs, not this machine"
    assert window.progress_label.text().startswith("Showing 2 imported outputs")
    # Every page shows the imported machine.
    (card,) = window.overview_page.cards()
    assert "6700 XT" in card.name_label.text()
    assert window.inventory.origin.kind is OriginKind.IMPORTED
    (stack,) = window.stack_page.stacks()
    assert stack.box("Framework").state is LayerState.BLOCKED
    assert window.frameworks_page.imported

    # Live probes still answering in the background must not switch the view back.
    window.loader.start()
    wait_loaded(qtbot, window)
    assert window.is_imported and "6700 XT" in window.overview_page.cards()[0].name_label.text()

    window.back_action.trigger()
    assert not window.is_imported and not window.back_action.isEnabled()
    assert not window.banner.isVisible()
    assert window.windowTitle() == "gpuscope"
    assert len(window.overview_page.cards()) == live_cards
    assert window.stack_page.diagnosis is not None
    assert window.stack_page.diagnosis.imported is None
    assert window.progress_label.text() == f"{len(PROBES)} of {len(PROBES)} probes finished"


def test_pasted_text_is_imported(qtbot: Any, make_window: WindowFactory) -> None:
    window = make_window(ReplaySystem.from_file(FIXTURES / "snapshots" / "rx7900xtx_rocm.json"))
    wait_loaded(qtbot, window)
    replay_banner = window.banner.text()
    assert replay_banner.startswith("Replay of rx7900xtx_rocm.json")
    dialog = window.open_import_dialog()
    dialog.paste_edit.setPlainText(Path(case_file("004", "nvidia-smi-q.xml")).read_text())
    run_import(qtbot, dialog)
    assert window.is_imported
    assert window.banner.text() == (
        f"Imported from {PASTED_SOURCE} — pasted outputs, not this machine")
    (card,) = window.overview_page.cards()
    assert card.name_label.text() == "NVIDIA A100-SXM4-80GB"
    (stack,) = window.stack_page.stacks()
    assert stack.box("Driver library").text_label.text() == "MIG mode is on"
    # Back to the replay: its amber banner returns.
    qtbot.mouseClick(window.banner_back_button, Qt.MouseButton.LeftButton)
    assert not window.is_imported
    assert window.banner.text() == replay_banner
    assert BANNER_BACKGROUND.name() in window.banner_row.styleSheet()
    assert not window.banner_back_button.isVisible()
    assert "7900" in window.overview_page.cards()[0].name_label.text()


def test_an_unreadable_file_is_one_line_in_the_dialog(
    qtbot: Any, make_window: WindowFactory, tmp_path: Path,
) -> None:
    window = make_window(LiveSystem(), probes=())
    dialog = window.open_import_dialog()
    missing = tmp_path / "rocminfo.txt"
    dialog.add_files([case_file("035", "rocminfo.txt"), str(missing)])
    run_import(qtbot, dialog)
    error = dialog.error_text()
    assert error == f"cannot read {missing}: No such file or directory"
    assert "\n" not in error
    assert dialog.isVisible() and not window.is_imported
    assert dialog.import_button.isEnabled()
    # A folder is no file either.
    dialog.clear_files()
    dialog.add_files([str(tmp_path)])
    assert dialog.error_text() is None  # choosing again clears the old error
    run_import(qtbot, dialog)
    error = dialog.error_text()
    assert error is not None and error.startswith(f"cannot read {tmp_path}")
    assert not window.is_imported
    dialog.reject()


def test_unknown_text_is_not_recognised(qtbot: Any, make_window: WindowFactory) -> None:
    window = make_window(LiveSystem(), probes=())
    dialog = window.open_import_dialog()
    dialog.paste_edit.setPlainText("Dear diary, today the weather was fine.\n")
    run_import(qtbot, dialog)
    assert dialog.error_text() == f"{PASTED_SOURCE}: {NOT_RECOGNISED}"
    assert not window.is_imported and dialog.isVisible()
    dialog.reject()


def test_an_unknown_input_beside_known_ones_is_left_out(
    qtbot: Any, make_window: WindowFactory,
) -> None:
    window = make_window(LiveSystem(), probes=())
    dialog = window.open_import_dialog()
    dialog.add_files([case_file("013", "rocminfo.txt")])
    dialog.paste_edit.setPlainText("nothing to see here\n")
    run_import(qtbot, dialog)
    assert window.is_imported
    assert window.banner.text() == "Imported from rocminfo.txt — pasted outputs, not this machine"
    assert window.progress_label.text() == (
        f"Showing 1 imported output (rocminfo); ignored {PASTED_SOURCE}: {NOT_RECOGNISED}")
    assert len(window.stack_page.stacks()) == 2


def test_nothing_chosen_asks_for_input(qtbot: Any, make_window: WindowFactory) -> None:
    window = make_window(LiveSystem(), probes=())
    dialog = window.open_import_dialog()
    qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    assert dialog.error_text() == "Choose files or paste an output first."
    assert not dialog.is_busy
    dialog.reject()


def test_the_action_has_ctrl_o_and_ctrl_i_and_opens_the_dialog(
    qtbot: Any, make_window: WindowFactory,
) -> None:
    window = make_window(LiveSystem(), probes=())
    assert window.import_action.shortcut() == QKeySequence("Ctrl+O")
    assert QKeySequence("Ctrl+I") in window.import_action.shortcuts()
    assert window.back_action.text() == BACK_TO_LIVE
    window.import_action.trigger()
    dialogs = [w for w in QApplication.topLevelWidgets()
               if isinstance(w, ImportDialog) and w.isVisible()]
    assert len(dialogs) == 1 and dialogs[0].parent() is window
    dialogs[0].reject()


def test_import_inputs_never_raises(tmp_path: Path) -> None:
    outcome = import_inputs([str(tmp_path / "none.txt")])
    assert outcome.machine is None and outcome.error is not None
    assert outcome.error.startswith("cannot read")
    outcome = import_inputs([], "   ")
    assert outcome.machine is None and outcome.error == "Choose files or paste an output first."
    outcome = import_inputs([case_file("016", "nvidia-smi.txt")])
    assert outcome.machine is not None and outcome.error is None and outcome.ignored == ()
    assert outcome.machine.inventory.origin.source == "nvidia-smi.txt"


def test_banner_text_for_imports() -> None:
    origin = Origin(OriginKind.IMPORTED, source="rocminfo.txt, torch-error.txt")
    assert replay_banner_text(origin) == (
        "Imported from rocminfo.txt, torch-error.txt — pasted outputs, not this machine")


def test_render_module_imports_with_from(tmp_path: Path, qapp: QApplication) -> None:
    out = tmp_path / "stack.png"
    args = []
    for name in ("rocminfo.txt", "rocm-smi.txt", "dkms-status.txt", "lspci-vga.txt",
                 "torch-error.txt"):
        args += ["--from", case_file("035", name)]
    assert render.main([*args, "--page", "stack", "-o", str(out)]) == 0
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1100, 750)
    assert image.pixelColor(550, 30).name() == IMPORT_BANNER_BACKGROUND.name()


def test_render_module_reports_an_unreadable_import(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "x.png"
    assert render.main(["--from", str(tmp_path / "none.txt"), "-o", str(out)]) == 1
    assert "cannot read" in capsys.readouterr().err
    assert not out.exists()


def test_run_gui_opens_on_imported_outputs(qapp: QApplication, qtbot: Any) -> None:
    seen: list[MainWindow] = []

    def close_when_shown() -> None:
        for widget in QApplication.topLevelWidgets():
            if isinstance(widget, MainWindow) and widget.isVisible():
                seen.append(widget)
                if not widget.loader.is_running:
                    widget.close()

    poller = QTimer()
    poller.setInterval(50)
    poller.timeout.connect(close_when_shown)
    poller.start()
    try:
        code = run_gui(argv=["gpuscope"], imports=[case_file("016", "nvidia-smi.txt")])
    finally:
        poller.stop()
    assert code == 0
    assert seen and seen[-1].is_imported
    assert seen[-1].banner.text() == (
        "Imported from nvidia-smi.txt — pasted outputs, not this machine")
    assert seen[-1].stack_page.system_rows()[0].finding.id == "nvidia.driver_library_mismatch"


def test_run_gui_rejects_an_unreadable_import_before_any_window(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], qapp: QApplication,
) -> None:
    before = set(map(id, QApplication.topLevelWidgets()))
    assert run_gui(argv=["gpuscope"], imports=[str(tmp_path / "none.txt")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot read" in err
    assert not [w for w in QApplication.topLevelWidgets()
                if id(w) not in before and isinstance(w, MainWindow)]
