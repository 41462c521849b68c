"""The Stack page over imported corpus cases, a hand-made AMD + NVIDIA machine, and a
window over a replayed snapshot."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics, QGuiApplication
from PySide6.QtWidgets import QApplication, QLabel

from gpuscope.doctor.layers import LayerState
from gpuscope.evidence import ReplaySystem
from gpuscope.importer import import_files
from gpuscope.model import (
    Finding,
    Gpu,
    GpuKind,
    Host,
    Inventory,
    Layer,
    Origin,
    OriginKind,
    Severity,
    Stack,
    Vendor,
)
from gpuscope.ui.doctor_loader import Diagnosis, diagnosis_of_import, make_diagnosis
from gpuscope.ui.main_window import MainWindow
from gpuscope.ui.stack_page import (
    LAYER_COLORS,
    NO_GPU_TITLE,
    DetailLabel,
    FindingRow,
    StackPage,
    short_detail,
)
from gpuscope.ui.theme import ERROR_COLOR, WARN_COLOR, gpu_color

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CORPUS = FIXTURES / "corpus"
HSA_FIX = "export HSA_OVERRIDE_GFX_VERSION=10.3.0"



def is_monospace(label: QLabel) -> bool:
    """Every glyph as wide as the next: measured, since fontconfig does not mark every
    monospace font fixed-pitch (Noto Sans Mono is not, for Qt)."""
    metrics = QFontMetrics(label.font())
    return metrics.horizontalAdvance("iiii") == metrics.horizontalAdvance("WWWW")

def case_files(prefix: str, *names: str) -> list[str]:
    """The outputs of a corpus case (its metadata files left out), or just `names`."""
    (folder,) = CORPUS.glob(f"{prefix}-*")
    files = [folder / name for name in names] if names else sorted(
        p for p in folder.iterdir() if p.name not in ("case.toml", "expect.json"))
    for file in files:
        if not file.exists():
            pytest.fail(f"corpus file {file} is missing")
    return [str(file) for file in files]


def imported(prefix: str, *names: str) -> Diagnosis:
    return diagnosis_of_import(import_files(case_files(prefix, *names)))


@pytest.fixture
def show_page(qtbot: Any) -> Callable[[Diagnosis], StackPage]:
    def make(diagnosis: Diagnosis, width: int = 1000) -> StackPage:
        page = StackPage()
        qtbot.addWidget(page)
        page.resize(width, 800)
        page.set_diagnosis(diagnosis)
        page.show()
        qtbot.waitExposed(page)
        QApplication.processEvents()
        return page
    return make


def test_case_035_one_column_framework_blocked_with_a_copyable_fix(
    qtbot: Any, show_page: Callable[[Diagnosis], StackPage],
) -> None:
    page = show_page(imported("035"))
    (stack,) = page.stacks()
    assert "6700 XT" in stack.name_label.text()
    assert page.stack_position(0) == (0, 0)
    assert gpu_color(0).name() in stack.styleSheet()
    assert [box.row.name for box in stack.layer_boxes()] == [
        "Kernel driver (amdgpu)", "Device nodes (/dev/kfd)", "ROCm runtime (KFD/HSA)",
        "Framework (PyTorch)"]

    framework = stack.box("Framework")
    assert framework.state is LayerState.BLOCKED
    assert framework.row.finding is not None and framework.row.finding.id == "torch.arch_missing"
    assert framework.text_label.text() == "no: the framework has no kernels for gfx1031"
    assert framework.row.verdict is not None and framework.row.verdict.finding_ids == (
        "torch.arch_missing",)
    assert ERROR_COLOR.name() in framework.styleSheet()
    assert "blocked" in framework.texts()
    fix = framework.fix_line
    assert fix is not None and fix.isVisible()
    assert fix.text() == HSA_FIX
    flags = fix.label.textInteractionFlags()
    assert flags & Qt.TextInteractionFlag.TextSelectableByMouse
    assert fix.label.textFormat() is Qt.TextFormat.PlainText
    assert is_monospace(fix.label)
    # The whole command fits: the label is as wide as its text needs, nothing elided.
    assert fix.label.width() >= fix.label.fontMetrics().horizontalAdvance(HSA_FIX)

    clipboard = QGuiApplication.clipboard()
    clipboard.setText("something else")
    qtbot.mouseClick(fix.copy_button, Qt.MouseButton.LeftButton)
    assert clipboard.text() == HSA_FIX
    assert fix.copy_button.text() == "Copied"

    runtime = stack.box("ROCm runtime")
    assert runtime.state is LayerState.WARNING
    assert runtime.row.finding is not None and runtime.row.finding.id == "rocm.gfx_unsupported"
    assert WARN_COLOR.name() in runtime.styleSheet()
    assert stack.box("Kernel driver").state is LayerState.OK
    assert stack.verdict_label.text() == "✗ Blocked at: Framework (PyTorch)"
    # Nothing here is about the machine as a whole.
    assert page.system_rows() == []
    assert page.no_gpu_text() is None
    assert page.summary_label.text().startswith("1 GPU · 1 error, 1 warning")


def test_detail_is_short_with_more_to_show_all(
    qtbot: Any, show_page: Callable[[Diagnosis], StackPage],
) -> None:
    page = show_page(imported("035"))
    detail = page.stacks()[0].box("Framework").detail
    assert isinstance(detail, DetailLabel) and detail.more_button is not None
    assert not detail.expanded() and len(detail.text()) < len(detail.full)
    assert detail.text().startswith("The framework found no kernels compiled for gfx1031")
    qtbot.mouseClick(detail.more_button, Qt.MouseButton.LeftButton)
    assert detail.expanded() and "gfx1030" in detail.text()
    assert detail.more_button.text() == "less"


def test_case_013_two_gpus_the_igpu_warns_about_visible_devices(
    show_page: Callable[[Diagnosis], StackPage],
) -> None:
    page = show_page(imported("013"))
    dgpu, igpu = page.stacks()
    assert "R9700" in dgpu.name_label.text()
    assert igpu.gpu.kind is GpuKind.INTEGRATED
    assert (page.stack_position(0), page.stack_position(1)) == ((0, 0), (0, 1))
    assert gpu_color(1).name() in igpu.styleSheet()

    runtime = igpu.box("ROCm runtime")
    # ROCm 7.2 does not list the iGPU's gfx1036: it is in the way, not usable (issue #10).
    assert runtime.state is LayerState.BLOCKED
    assert runtime.row.finding is not None and runtime.row.finding.id == "rocm.igpu_enumerated"
    assert runtime.fix_line is not None
    assert runtime.fix_line.text().startswith("export HIP_VISIBLE_DEVICES=0")
    # The discrete GPU's runtime works; neither has a framework checked.
    assert dgpu.box("ROCm runtime").state is LayerState.OK
    assert dgpu.box("ROCm runtime").fix_line is None
    for stack in (dgpu, igpu):
        framework = stack.box("Framework")
        assert framework.state is LayerState.UNKNOWN
        assert "no framework output among the imported files" in framework.text_label.text()
        assert LAYER_COLORS[LayerState.UNKNOWN].name() in framework.styleSheet()


def _mixed_inventory() -> Inventory:
    amd = Gpu(index=0, vendor=Vendor.AMD, name="AMD Radeon RX 7900 XTX", kind=GpuKind.DISCRETE,
              pci_bus="0000:03:00.0", gfx_target="gfx1100", kernel_driver="amdgpu",
              seen_by=(Layer.SYSFS, Layer.KFD))
    nvidia = Gpu(index=1, vendor=Vendor.NVIDIA, name="NVIDIA GeForce RTX 4090",
                 kind=GpuKind.DISCRETE, pci_bus="0000:01:00.0", compute_capability="8.9",
                 kernel_driver="nvidia", seen_by=(Layer.NVML,))
    return Inventory(
        gpus=(amd, nvidia),
        stack=Stack(nvidia_driver_version="550.54.14", cuda_driver_version="12.4"),
        host=Host(os="linux", distro="Ubuntu 24.04"),
        probes=(), device_index=(), origin=Origin(OriginKind.LIVE),
    )


def test_amd_and_nvidia_stand_side_by_side(
    show_page: Callable[[Diagnosis], StackPage],
) -> None:
    page = show_page(make_diagnosis(_mixed_inventory()))
    amd, nvidia = page.stacks()
    assert (page.stack_position(0), page.stack_position(1)) == ((0, 0), (0, 1))
    assert page.column_grid.columns == 2
    assert amd.geometry().top() == nvidia.geometry().top()
    assert amd.geometry().right() < nvidia.geometry().left()
    assert amd.layer_boxes()[0].row.name == "Kernel driver (amdgpu)"
    assert [box.row.name for box in nvidia.layer_boxes()] == [
        "Kernel driver (nvidia)", "Driver library (NVML)", "CUDA driver",
        "Framework (PyTorch)"]
    assert nvidia.box("CUDA driver").text_label.text() == "supports CUDA 12.4"
    assert gpu_color(0).name() in amd.styleSheet()
    assert gpu_color(1).name() in nvidia.styleSheet()
    # Not inspected yet: the window's advice, not the CLI's.
    assert "inspect it on the Frameworks page" in nvidia.box("Framework").text_label.text()


def test_a_narrow_page_stacks_the_columns(show_page: Callable[..., StackPage]) -> None:
    page = show_page(make_diagnosis(_mixed_inventory()), width=500)
    assert (page.stack_position(0), page.stack_position(1)) == ((0, 0), (1, 0))


def test_no_gpu_shows_the_system_findings(show_page: Callable[[Diagnosis], StackPage]) -> None:
    page = show_page(imported("007"))
    assert page.stacks() == []
    text = page.no_gpu_text()
    assert text is not None and text.startswith(NO_GPU_TITLE)
    (row,) = page.system_rows()
    assert row.finding.id == "kfd.permission_denied"
    assert row.badge.text() == "✗"
    fix = row.fix_line
    assert fix is not None
    # The words are shown as text; the command is shown, and copied, on its own.
    assert fix.words.text().startswith("Add your user to the render and video groups")
    assert fix.text() == fix.label.text() == "sudo usermod -aG render,video $USER"
    assert is_monospace(fix.label)
    QGuiApplication.clipboard().setText("something else")
    fix.copy_button.click()
    assert QGuiApplication.clipboard().text() == "sudo usermod -aG render,video $USER"


def test_copy_puts_only_the_commands_on_the_clipboard(qtbot: Any) -> None:
    finding = Finding("gpu.not_passed_through", Severity.ERROR, "No GPU here",
                      fix="Start the container with the GPU passed through.",
                      fix_commands=("sudo nvidia-ctk runtime configure --runtime=docker",
                                    "sudo systemctl restart docker"))
    row = FindingRow(finding)
    qtbot.addWidget(row)
    fix = row.fix_line
    assert fix is not None and fix.copy_button.isVisibleTo(row)
    clipboard = QGuiApplication.clipboard()
    clipboard.setText("something else")
    qtbot.mouseClick(fix.copy_button, Qt.MouseButton.LeftButton)
    assert clipboard.text() == ("sudo nvidia-ctk runtime configure --runtime=docker\n"
                                "sudo systemctl restart docker")
    assert "passed through" not in clipboard.text()
    assert fix.copy_button.text() == "Copied"
    # Words only: nothing to copy, so no Copy button; no fix at all: no fix line.
    words = FindingRow(Finding("kfd.pcie_atomics_missing", Severity.ERROR, "No atomics",
                               fix="Move the card to a CPU-attached slot."))
    qtbot.addWidget(words)
    assert words.fix_line is not None and not words.fix_line.copy_button.isVisibleTo(words)
    assert words.fix_line.text() == "Move the card to a CPU-attached slot."
    bare = FindingRow(Finding("gpu.partitioned", Severity.INFO, "Partitioned"))
    qtbot.addWidget(bare)
    assert bare.fix_line is None


def test_system_findings_carry_severity_icons(
    show_page: Callable[[Diagnosis], StackPage],
) -> None:
    page = show_page(imported("016"))
    (row,) = page.system_rows()
    assert row.finding.severity is Severity.ERROR
    assert row.badge.text() == "✗"
    assert row.fix_line is not None and row.fix_line.text().startswith("sudo reboot")
    assert "nvidia-smi.txt:1" in " ".join(
        label.text() for label in row.findChildren(type(row.title_label)))


def test_short_detail() -> None:
    assert short_detail("") == ""
    assert short_detail("One sentence only.") == "One sentence only."
    long = "A first sentence that is long enough to stand on its own here. A second one."
    assert short_detail(long) == "A first sentence that is long enough to stand on its own here."
    assert short_detail("Short. Then the second sentence.") == (
        "Short. Then the second sentence.")
    cut = short_detail("word " * 100, limit=40)
    assert len(cut) <= 41 and cut.endswith("…")


def test_the_window_stack_page_follows_the_replay(qtbot: Any) -> None:
    window = MainWindow(ReplaySystem.from_file(FIXTURES / "snapshots" / "apu_dgpu.json"))
    qtbot.addWidget(window)
    window.show()
    try:
        qtbot.waitUntil(lambda: not window.loader.is_running, timeout=10_000)
        window.select_page("stack")
        page = window.stack_page
        assert window.current_page_name() == "Stack"
        assert [stack.gpu.index for stack in page.stacks()] == [0, 1]
        assert "R9700" in page.stacks()[0].name_label.text()
        assert page.diagnosis is window.diagnosis
        assert "still asking" not in page.summary_label.text()
    finally:
        window.close()


def test_the_stack_page_says_while_probes_are_still_running(qtbot: Any) -> None:
    import slow_probes

    from gpuscope.inventory import PROBES

    window = MainWindow(ReplaySystem.from_file(FIXTURES / "snapshots" / "rx7900xtx_rocm.json"),
                        probes=(*PROBES, slow_probes.SLOW))
    qtbot.addWidget(window)
    window.show()
    try:
        qtbot.waitUntil(lambda: window.loader.pending == ("slow",), timeout=5000)
        summary = window.stack_page.summary_label.text()
        assert summary.endswith("still asking Slow fake probe (this may change)")
        assert len(window.stack_page.stacks()) == 1
        qtbot.waitUntil(lambda: not window.loader.is_running, timeout=10_000)
        assert "still asking" not in window.stack_page.summary_label.text()
    finally:
        window.close()


def test_a_smoke_test_cut_short_shows_the_command_that_allows_it_time(qtbot: Any) -> None:
    # The real H200 whose 10 s check cut its smoke test short: a warning with no finding
    # behind it, whose fix is the verdict's own, copyable like any other.
    snapshot = FIXTURES / "snapshots" / "nvidia_h200_smoke_cut_short.json"
    window = MainWindow(ReplaySystem.from_file(snapshot), inspect_frameworks=True)
    qtbot.addWidget(window)
    window.show()
    try:
        qtbot.waitUntil(lambda: not window.loader.is_running
                        and not window.doctor.is_inspecting, timeout=20_000)
        window.select_page("stack")
        (stack,) = window.stack_page.stacks()
        framework = stack.box("Framework")
        assert framework.state is LayerState.WARNING and framework.row.finding is None
        assert "not yet confirmed" in framework.text_label.text()
        assert framework.fix_line is not None
        assert framework.fix_line.text() == "gpuscope doctor --python /opt/torch/.venv/bin/python3"
    finally:
        window.close()
