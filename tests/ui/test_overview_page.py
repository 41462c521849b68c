"""The Overview page over hand-made inventories, replayed snapshots and their diagnosis (the
verdict line, every warning, the machine's own findings, the device index), and over an
empty replay (no GPU)."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable
from typing import Any

import pytest
from fixture_paths import SNAPSHOTS_DIR
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication
from PySide6.QtWidgets import QApplication, QPushButton

from gpuscope.evidence import ReplaySystem, Snapshot
from gpuscope.inventory import (
    DEFAULT_INSPECTION_BUDGET_S,
    PROBES,
    collect_inventory,
    inspect_interpreters,
)
from gpuscope.model import (
    DeviceIndexEntry,
    DeviceNodeAccess,
    Finding,
    Gpu,
    GpuKind,
    Host,
    Inventory,
    Layer,
    Origin,
    OriginKind,
    ProbeState,
    ProbeStatus,
    Severity,
    Stack,
    Vendor,
)
from gpuscope.probes.python_envs import default_interpreters
from gpuscope.ui.doctor_loader import Diagnosis, make_diagnosis
from gpuscope.ui.main_window import MainWindow
from gpuscope.ui.overview_page import (
    MIN_CARD_WIDTH,
    RUNNING,
    OverviewPage,
    format_candidates,
)
from gpuscope.ui.theme import gpu_color
from gpuscope.ui.widgets import plain_tooltip

XTX = Gpu(
    index=0, vendor=Vendor.AMD, name="AMD Radeon RX 7900 XTX",
    name_candidates=("AMD Radeon RX 7900 XTX", "AMD Radeon RX 7900 XT", "AMD Radeon RX 7900 GRE"),
    family="Navi 31", architecture="RDNA3", kind=GpuKind.DISCRETE, pci_bus="0000:03:00.0",
    pci_vendor_id="0x1002", pci_device_id="0x744c", gfx_target="gfx1100",
    vram_total_bytes=25_753_026_560, kernel_driver="amdgpu", driver_version="6.8.0",
    seen_by=(Layer.SYSFS, Layer.KFD), kfd_node=1, drm_render_minor=128,
    field_sources={"gfx_target": "kfd: /sys/class/kfd/kfd/topology/nodes/1/properties"},
)
APU = Gpu(
    index=1, vendor=Vendor.AMD, name="AMD Radeon 780M", kind=GpuKind.INTEGRATED,
    pci_bus="0000:c5:00.0", gfx_target="gfx1103", vram_total_bytes=512 * 2**20,
    gtt_total_bytes=16 * 2**30, kernel_driver="amdgpu", seen_by=(Layer.SYSFS,),
)
RTX = Gpu(
    index=2, vendor=Vendor.NVIDIA, name="NVIDIA GeForce RTX 4090", kind=GpuKind.DISCRETE,
    pci_bus="0000:01:00.0", compute_capability="8.9", vram_total_bytes=24 * 2**30,
    kernel_driver="nvidia", driver_version="550.54.14", seen_by=(Layer.SYSFS, Layer.NVML),
    missing_reasons={"gfx_target": "not an AMD GPU"},
)
HOST = Host(
    os="linux", distro="Ubuntu 24.04.1 LTS", kernel="6.8.0-45-generic", architecture="x86_64",
    cpu_model="AMD Ryzen 9 7950X", cpu_physical_cores=16, cpu_logical_cores=32,
    ram_total_bytes=64 * 2**30, wsl=True, container=True, container_hint="docker",
)
OK_PROBES = tuple(ProbeStatus(spec.name, ProbeState.OK) for spec in PROBES)


def inventory(gpus: tuple[Gpu, ...] = (XTX, APU, RTX), probes: tuple[ProbeStatus, ...] = OK_PROBES,
              host: Host = HOST, stack: Stack | None = None) -> Inventory:
    return Inventory(gpus=gpus, stack=stack or Stack(), host=host, probes=probes,
                     device_index=(), origin=Origin(OriginKind.LIVE))


@pytest.fixture
def page(qtbot: Any) -> OverviewPage:
    widget = OverviewPage()
    qtbot.addWidget(widget)
    widget.resize(930, 700)
    widget.show()
    return widget


def test_one_card_per_gpu_with_its_facts(page: OverviewPage) -> None:
    page.set_inventory(inventory(), [])
    cards = page.cards()
    assert [card.name_label.text() for card in cards] == [
        "AMD Radeon RX 7900 XTX", "AMD Radeon 780M", "NVIDIA GeForce RTX 4090"]
    xtx = cards[0].texts()
    for expected in ("AMD", "gfx1100", "24.0 GiB", "0000:03:00.0  [1002:744c]",
                     "amdgpu, version 6.8.0", "discrete", "Navi 31 · RDNA3",
                     "could be: AMD Radeon RX 7900 XTX / 7900 XT / 7900 GRE"):
        assert expected in xtx, expected
    assert "512.0 MiB carved out + 16.0 GiB shared (GTT)" in cards[1].texts()
    assert "integrated" in cards[1].texts()
    rtx = cards[2].texts()
    assert "Compute capability" in rtx and "8.9" in rtx and "gfx target" not in rtx
    assert "nvidia, version 550.54.14" in rtx
    # A value's source is its tooltip.
    gfx = next(label for label in cards[0].findChildren(type(cards[0].name_label))
               if label.text() == "gfx1100")
    assert "topology/nodes/1" in gfx.toolTip()
    assert plain_tooltip("a <b>\nc") == "<p>a &lt;b&gt;<br>c</p>"
    assert page.summary_label.text() == "3 GPUs found"
    assert page.no_gpu_text() is None


def test_layer_ticks_and_the_kfd_line(page: OverviewPage) -> None:
    kfd_down = tuple(
        ProbeStatus("kfd", ProbeState.DRIVER_MISSING, reason="/sys/class/kfd is missing")
        if s.name == "kfd" else s for s in OK_PROBES)
    page.set_inventory(inventory(probes=kfd_down), [])
    xtx, apu, rtx = page.cards()
    assert xtx.ticks == {Layer.SYSFS: "✓", Layer.KFD: "✓", Layer.AMDSMI: "—", Layer.NVML: "—"}
    assert rtx.ticks == {Layer.SYSFS: "✓", Layer.KFD: "—", Layer.AMDSMI: "—", Layer.NVML: "✓"}
    assert apu.ticks[Layer.KFD] == "—"
    kfd_lines = [t for t in apu.texts() if t.startswith("⚠")]
    assert kfd_lines == ["⚠ KFD does not list this GPU, so ROCm (HIP, PyTorch on ROCm) will "
                         "not see it. KFD: /sys/class/kfd is missing"]
    assert not [t for t in xtx.texts() if t.startswith("⚠")]
    assert not [t for t in rtx.texts() if t.startswith("⚠")]  # NVIDIA: KFD is not its layer


def test_seen_tick_is_green_and_missing_tick_grey(page: OverviewPage) -> None:
    page.set_inventory(inventory(gpus=(XTX,)), [])
    labels = {label.text(): label for label in page.cards()[0].findChildren(
        type(page.summary_label))}
    assert "#2e9e4f" in labels["KFD ✓"].styleSheet()
    assert "#8c8c8c" in labels["NVML —"].styleSheet()


def test_pending_kfd_probe_shows_as_pending_not_as_missing(page: OverviewPage) -> None:
    page.set_inventory(inventory(gpus=(APU,), probes=OK_PROBES[:1]), ["kfd", "nvml"])
    card = page.cards()[0]
    assert card.ticks[Layer.KFD] == "…"
    assert not [t for t in card.texts() if t.startswith("⚠")]
    rows = {row[0]: row for row in page.probe_rows()}
    assert rows["KFD topology (ROCm)"][1] == RUNNING
    assert rows["NVIDIA NVML"][1] == RUNNING
    assert "still asking: KFD topology (ROCm), NVIDIA NVML" in page.summary_label.text()


def test_device_node_the_user_cannot_open_is_called_out(page: OverviewPage) -> None:
    stack = Stack(device_nodes=(DeviceNodeAccess(
        "/dev/kfd", exists=True, mode="crw-rw----", owner_group="render", can_open=False,
        group_granted_not_active=True),))
    page.set_inventory(inventory(gpus=(XTX,), stack=stack), [])
    warnings = [t for t in page.cards()[0].texts() if t.startswith("⚠")]
    assert len(warnings) == 1
    assert "ROCm cannot use this GPU: this user cannot open /dev/kfd." in warnings[0]
    assert "group render" in warnings[0] and "log out" in warnings[0]


def test_machine_text_is_never_rendered_as_markup(page: OverviewPage) -> None:
    evil = Gpu(index=0, vendor=Vendor.OTHER, name="<b>bold</b><img src=x>", seen_by=())
    page.set_inventory(inventory(gpus=(evil,)), [])
    label = page.cards()[0].name_label
    assert label.text() == "<b>bold</b><img src=x>"
    assert label.textFormat() == Qt.TextFormat.PlainText


def test_host_section(page: OverviewPage) -> None:
    page.set_inventory(inventory(), [])
    rows = dict(page.host_rows())
    assert rows["System"] == "Ubuntu 24.04.1 LTS (linux)"
    assert rows["Kernel"] == "6.8.0-45-generic (x86_64)"
    assert rows["Cores"] == "16 physical, 32 logical"
    assert rows["Memory"] == "64.0 GiB RAM"
    assert rows["Runs in"] == "WSL; container: docker"
    page.set_inventory(inventory(host=Host(os="linux", kernel="6.1")), ["host"])
    assert page.host_rows() == [("Host", RUNNING)]


def test_probe_table_rows(page: OverviewPage) -> None:
    statuses = (
        ProbeStatus("amdgpu_sysfs", ProbeState.OK, reason="1 DRM GPU"),
        ProbeStatus("nvml", ProbeState.LIBRARY_MISSING, reason="NVML library not found",
                    hint="install the NVIDIA driver"),
    )
    page.set_inventory(inventory(gpus=(XTX,), probes=statuses), ["kfd", "amdsmi", "host"])
    rows = page.probe_rows()
    assert [row[0] for row in rows] == [spec.title for spec in PROBES]
    by_title = {row[0]: row for row in rows}
    assert by_title["Kernel driver (sysfs)"] == ("Kernel driver (sysfs)", "ok", "1 DRM GPU", "")
    assert by_title["NVIDIA NVML"] == ("NVIDIA NVML", "library missing",
                                       "NVML library not found", "install the NVIDIA driver")
    assert by_title["KFD topology (ROCm)"][1] == RUNNING
    assert by_title["Stack versions"][1] == "not run"


def test_no_gpu_reasons_come_from_the_probes(page: OverviewPage) -> None:
    statuses = (
        ProbeStatus("amdgpu_sysfs", ProbeState.NOT_APPLICABLE, reason="no GPU in /sys/class/drm"),
        ProbeStatus("kfd", ProbeState.NOT_APPLICABLE, reason="no amdgpu driver loaded"),
        ProbeStatus("amdsmi", ProbeState.LIBRARY_MISSING, reason="amdsmi not installed"),
        ProbeStatus("nvml", ProbeState.LIBRARY_MISSING, reason="NVML library not found"),
        ProbeStatus("host", ProbeState.OK), ProbeStatus("stack", ProbeState.OK),
    )
    page.set_inventory(inventory(gpus=(), probes=statuses), [])
    text = page.no_gpu_text()
    assert text is not None
    assert text.splitlines() == [
        "No GPU found",
        "• Kernel (sysfs): no GPU in /sys/class/drm",
        "• KFD: no amdgpu driver loaded",
        "• amdsmi: amdsmi not installed",
        "• NVML: NVML library not found",
    ]
    assert page.cards() == []
    assert page.host_box.isVisible() and dict(page.host_rows())["CPU"] == "AMD Ryzen 9 7950X"
    # While a GPU probe still runs, it is not "No GPU found" yet.
    page.set_inventory(inventory(gpus=(), probes=statuses[:1]), ["nvml"])
    assert page.no_gpu_text() == "Looking for GPUs…\nWaiting for: NVIDIA NVML"


def test_no_gpu_in_an_empty_replay(qtbot: Any, make_window: Callable[..., MainWindow]) -> None:
    window = make_window(ReplaySystem(Snapshot(), source="empty.json"))
    qtbot.waitUntil(lambda: not window.loader.is_running, timeout=10_000)
    page = window.overview_page
    text = page.no_gpu_text()
    assert text is not None and text.startswith("No GPU found\n")
    assert "• Kernel (sysfs): " in text and "• NVML: " in text
    assert page.cards() == []
    assert page.host_box.isVisible() and page.host_rows()
    assert page.probes_box.isVisible()
    assert [row[0] for row in page.probe_rows()] == [spec.title for spec in PROBES]
    assert RUNNING not in [row[1] for row in page.probe_rows()]
    assert window.banner.isVisible() and "empty.json" in window.banner.text()


def test_cards_wrap_into_columns_that_fit(page: OverviewPage, qtbot: Any) -> None:
    page.set_inventory(inventory(), [])
    page.resize(930, 700)
    qtbot.waitUntil(lambda: page.card_grid.columns == 2)
    xtx, apu, rtx = page.cards()
    # Two side by side, the third below them.
    qtbot.waitUntil(lambda: rtx.geometry().top() > xtx.geometry().bottom())
    assert xtx.geometry().top() == apu.geometry().top()
    assert apu.geometry().left() > xtx.geometry().right()
    assert xtx.width() >= MIN_CARD_WIDTH
    page.resize(500, 700)
    qtbot.waitUntil(lambda: page.card_grid.columns == 1)
    qtbot.waitUntil(lambda: apu.geometry().top() > xtx.geometry().bottom())


def test_candidates_are_shortened_after_the_first() -> None:
    assert format_candidates(["Radeon RX 7900 XTX", "Radeon RX 7900 XT", "Radeon RX 7900 GRE"]) \
        == "Radeon RX 7900 XTX / 7900 XT / 7900 GRE"
    assert format_candidates(["RX 7900 XTX"]) == "RX 7900 XTX"
    assert format_candidates([]) == ""
    assert format_candidates(["A B", "A B"]) == "A B / B"  # a name is never cut to nothing


def _contrast(a: QColor, b: QColor) -> float:
    def luminance(c: QColor) -> float:
        def channel(v: float) -> float:
            return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4
        return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(
            c.blueF())
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_gpu_colours_are_distinct_and_read_on_light_and_dark() -> None:
    colours = [gpu_color(i) for i in range(16)]
    assert len({c.name() for c in colours}) == 16
    for colour in colours[:8]:
        assert _contrast(colour, QColor("#ffffff")) >= 2.3, colour.name()
        assert _contrast(colour, QColor("#1e1e1e")) >= 3.0, colour.name()
    assert gpu_color(0).name() == gpu_color(0).name()  # stable


# ----------------------------------------------------------------------------- the diagnosis


def replayed_diagnosis(snapshot: str) -> Diagnosis:
    """The doctor's diagnosis of a snapshot, its frameworks as the capture answered them."""
    system = ReplaySystem.from_file(SNAPSHOTS_DIR / snapshot)
    inspection = inspect_interpreters(system, default_interpreters(system, sys.executable, ()),
                                      DEFAULT_INSPECTION_BUDGET_S)
    return make_diagnosis(collect_inventory(system), inspection.frameworks,
                          interpreters=inspection.interpreters)


def diagnosed(page: OverviewPage, diagnosis: Diagnosis) -> OverviewPage:
    page.set_inventory(diagnosis.inventory, [])
    page.set_diagnosis(diagnosis)
    QApplication.processEvents()
    return page


def test_a_working_gpu_carries_its_verdict_line(page: OverviewPage) -> None:
    diagnosed(page, replayed_diagnosis("nvidia_h200.json"))
    (card,) = page.cards()
    assert card.verdict is not None
    assert card.verdict.text() == ("NVIDIA 580.159.04 (CUDA 13.0) ✓ · "
                                   "PyTorch 2.11 (CUDA 13.0) ✓ in /opt/torch/.venv")
    assert card.texts()[2] == card.verdict.text()  # right under the name
    assert card.finding_lines == [] and card.verdict.fix is None
    # The marks are drawn in the state's colour; the machine's words stay plain text.
    assert card.verdict.label.textFormat() == Qt.TextFormat.RichText
    assert '<span style="color: #2e9e4f">✓</span>' in card.verdict.label.text()
    assert not page.machine_box.isVisible()


def test_a_blocked_gpu_names_its_blocker_with_a_copy_button(page: OverviewPage,
                                                            qtbot: Any) -> None:
    diagnosed(page, replayed_diagnosis("amd_kfd_no_access.json"))
    (card,) = page.cards()
    assert card.verdict is not None
    assert card.verdict.text() == "✗ This user cannot open the GPU device nodes"
    assert card.verdict.fix is not None and card.verdict.fix.copy_button is not None
    assert card.verdict.fix.copy_button.text() == "Copy commands"
    QGuiApplication.clipboard().setText("something else")
    qtbot.mouseClick(card.verdict.fix.copy_button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == "sudo usermod -aG render,video $USER"
    # The warning beside it is listed with its fix; the inventory's own warning gives way.
    (warning,) = card.finding_lines
    assert warning.texts()[0] == "! gfx1031 is not officially supported by ROCm 6.0.2"
    assert warning.texts()[-1] == "export HSA_OVERRIDE_GFX_VERSION=10.3.0"
    assert not [t for t in card.texts() if t.startswith("⚠")]


def test_every_warning_is_listed_and_the_machine_ones_once(page: OverviewPage) -> None:
    diagnosis = replayed_diagnosis("apu_dgpu.json")
    findings = (*diagnosis.findings,
                Finding("a.first", Severity.WARNING, "first warning", gpu=0, fix="Do one.",
                        fix_commands=("echo one",)),
                Finding("b.second", Severity.WARNING, "second warning", gpu=0),
                Finding("c.note", Severity.INFO, "only a note", gpu=0),
                Finding("d.machine", Severity.WARNING, "about the whole machine",
                        fix_commands=("echo machine", "echo again")))
    diagnosed(page, dataclasses.replace(diagnosis, findings=findings))
    dgpu, igpu = page.cards()
    assert [line.texts()[0] for line in dgpu.finding_lines] == ["! first warning",
                                                                "! second warning"]
    assert dgpu.finding_lines[0].texts()[1:] == ["Do one.", "echo one"]
    assert igpu.verdict is not None and igpu.verdict.text().startswith(
        "✗ The integrated GPU (gfx1036) is enumerated beside the discrete one")
    assert page.machine_box.isVisible()
    assert page.machine_finding_texts() == [["! about the whole machine",
                                             "echo machine\necho again"]]
    every = "\n".join(dgpu.texts() + igpu.texts())
    assert "about the whole machine" not in every and "only a note" not in every


def test_the_device_index_opens_by_itself_when_numbers_disagree(page: OverviewPage) -> None:
    entries = (DeviceIndexEntry("0000:03:00.0", Vendor.AMD, GpuKind.DISCRETE, gpu_index=0,
                                drm_card="card1", drm_render_minor=128, kfd_node=1,
                                hip_index=0),)
    agreeing = dataclasses.replace(inventory(gpus=(XTX,)), device_index=entries)
    page.set_inventory(agreeing, [])
    table = page.index_table
    assert table.isVisible() and not table.is_open() and not table.box.isVisible()
    assert table.rows() == [("0", "0000:03:00.0", "card1 / renderD128", "1", "–", "0", "–")]
    hidden = (*entries, DeviceIndexEntry("0000:c5:00.0", Vendor.AMD, GpuKind.INTEGRATED,
                                         gpu_index=1, kfd_node=2,
                                         hidden_by="HIP_VISIBLE_DEVICES=0"))
    page.set_inventory(dataclasses.replace(inventory(gpus=(XTX, APU)), device_index=hidden), [])
    assert table.is_open() and table.box.isVisible()
    assert table.remarks() == ["GPU 1: hidden by HIP_VISIBLE_DEVICES=0"]
    # The user's choice holds while the page updates.
    table.toggle.click()
    assert not table.is_open()
    page.set_inventory(dataclasses.replace(inventory(gpus=(XTX, APU)), device_index=hidden), [])
    assert not table.is_open() and not table.box.isVisible()
    page.set_inventory(inventory(), [])  # no index: no section
    assert not table.isVisible()


def test_the_page_opens_at_its_title(qtbot: Any) -> None:
    page = OverviewPage()
    qtbot.addWidget(page)
    page.resize(600, 300)  # far shorter than the cards, host and probes
    page.show()
    qtbot.waitExposed(page)
    bar = page.scroll_area.verticalScrollBar()
    page.set_inventory(inventory(), [])
    qtbot.waitUntil(lambda: bar.maximum() > 0)
    bar.setValue(bar.maximum())
    page.set_inventory(inventory(), [])  # the same machine, updated: the reader's place holds
    assert bar.value() == bar.maximum()
    other = dataclasses.replace(inventory(), origin=Origin(OriginKind.REPLAY, source="b.json"))
    page.set_inventory(other, [])  # another machine opens at the top
    qtbot.wait(20)
    assert bar.value() == 0
    # One that comes while the page is hidden (on another page) opens at the top when shown.
    bar.setValue(bar.maximum())
    page.hide()
    page.set_inventory(inventory(), [])
    page.show()
    qtbot.waitExposed(page)
    qtbot.wait(20)
    assert bar.maximum() > 0 and bar.value() == 0


def test_the_window_opens_the_overview_at_its_title(
    qtbot: Any, make_window: Callable[..., MainWindow],
) -> None:
    window = make_window(ReplaySystem.from_file(SNAPSHOTS_DIR / "amd_kfd_no_access.json"))
    window.resize(1100, 450)
    qtbot.waitUntil(lambda: not window.loader.is_running, timeout=10_000)
    page = window.overview_page
    page.set_diagnosis(window.diagnosis)
    qtbot.wait(20)
    assert page.scroll_area.verticalScrollBar().maximum() > 0
    assert page.scroll_area.verticalScrollBar().value() == 0
    # No button on the page takes the focus the window gives when it opens.
    buttons = [button for card in page.cards() for button in card.findChildren(QPushButton)]
    assert buttons and all(button.focusPolicy() == Qt.FocusPolicy.ClickFocus
                           for button in buttons)
