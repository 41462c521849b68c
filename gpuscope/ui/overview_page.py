"""The Overview page: one card per GPU with the doctor's verdict at a glance, what is wrong
with the machine as a whole, how each layer numbers the GPUs, the host, and what every probe
said.

The page re-renders on each `set_inventory` call, which the window makes every time another
probe finishes, and on each `set_diagnosis` (the doctor's findings over that inventory). Text
from the machine (or from a replayed snapshot, which anyone could have written) is always
shown as plain text, never as rich text.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QFrame, QGridLayout, QVBoxLayout, QWidget

from gpuscope.inventory import PROBES, ProbeSpec
from gpuscope.model import Host, Inventory, ProbeState, ProbeStatus, format_bytes
from gpuscope.report.device_index import rows_of
from gpuscope.report.gpu_glance import GpuGlance, gpu_glance, machine_findings
from gpuscope.ui.doctor_loader import Diagnosis
from gpuscope.ui.i18n import QT_TRANSLATE_NOOP, core_text, translate
from gpuscope.ui.overview.card import GpuCard, format_candidates, state_text, status_by_name
from gpuscope.ui.overview.glance import FindingLine
from gpuscope.ui.overview.index_table import DeviceIndexTable
from gpuscope.ui.theme import MUTED_COLOR, state_color
from gpuscope.ui.widgets import FlowGrid, clear_layout, make_label, scrolling_page

# The card's names, importable from the page's module as before the split.
__all__ = ["MIN_CARD_WIDTH", "RUNNING", "GpuCard", "OverviewPage", "format_candidates"]

_GPU_PROBE_LABELS: dict[str, str] = {
    "amdgpu_sysfs": QT_TRANSLATE_NOOP("OverviewPage", "Kernel (sysfs)"), "kfd": "KFD",
    "amdsmi": "amdsmi", "nvml": "NVML",
}
_NOT_GPU_PROBES = frozenset({"host", "stack"})
RUNNING = QT_TRANSLATE_NOOP("OverviewPage", "running…")
MIN_CARD_WIDTH = 420
_SPACING = 12


class OverviewPage(QWidget):
    """GPU cards, the machine's own findings, the device index, the host and the probes, for
    one (possibly partial) inventory and, once it is there, the doctor's diagnosis of it."""

    def __init__(
        self, probes: Sequence[ProbeSpec] = PROBES, parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._probes = tuple(probes)
        self._inventory: Inventory | None = None
        self._diagnosis: Diagnosis | None = None
        self._pending: tuple[str, ...] = ()
        self._shown_origin: object = None  # the machine the page last opened at the top for
        self._top_pending = False  # a new machine came while the page was hidden
        self._host_rows: list[tuple[str, str]] = []
        self._probe_rows: list[tuple[str, str, str, str]] = []

        self.scroll_area, self._content, self.summary_label = scrolling_page(
            self, self.tr("GPUs"))
        # After the assignment: the filter reads self.scroll_area, and fires at once.
        self.scroll_area.viewport().installEventFilter(self)

        self.no_gpu_panel = QFrame()
        self.no_gpu_panel.setObjectName("noGpu")
        self.no_gpu_panel.setStyleSheet(
            "QFrame#noGpu { background: palette(base); border: 1px solid palette(mid);"
            " border-radius: 4px; }"
        )
        panel = QVBoxLayout(self.no_gpu_panel)
        panel.setContentsMargins(14, 12, 14, 12)
        self.no_gpu_title = make_label("", bold=True, scale=1.3)
        self.no_gpu_reason = make_label("")
        panel.addWidget(self.no_gpu_title)
        panel.addWidget(self.no_gpu_reason)
        self.no_gpu_note = make_label(
            self.tr("What each layer answered is in the probes table below; the Host section "
                    "still describes this machine."), color=MUTED_COLOR)
        panel.addWidget(self.no_gpu_note)
        self._content.addWidget(self.no_gpu_panel)

        self.card_grid: FlowGrid[GpuCard] = FlowGrid(MIN_CARD_WIDTH, _SPACING,
                                                    initial_width=MIN_CARD_WIDTH)
        self._content.addWidget(self.card_grid)

        # The machine's own warnings and errors (no GPU of their own), shown once.
        self.machine_box = QFrame()
        self.machine_box.setObjectName("machineFindings")
        self.machine_box.setStyleSheet(
            "QFrame#machineFindings { background: palette(base); border: 1px solid"
            " palette(mid); border-radius: 4px; }")
        self._machine_column = QVBoxLayout(self.machine_box)
        self._machine_column.setContentsMargins(14, 10, 14, 10)
        self._machine_column.setSpacing(6)
        self._machine_column.addWidget(make_label(self.tr("About the whole machine"),
                                                  bold=True))
        self._machine_lines: list[FindingLine] = []
        self._content.addWidget(self.machine_box)
        self.machine_box.hide()

        self.index_table = DeviceIndexTable()
        self._content.addWidget(self.index_table)
        self.index_table.hide()

        self._content.addSpacing(10)
        self._content.addWidget(make_label(self.tr("Host"), bold=True, scale=1.3, wrap=False))
        self.host_box, self._host_grid = self._boxed_grid("hostBox")
        self._content.addWidget(self.host_box)

        self._content.addSpacing(10)
        self._content.addWidget(make_label(self.tr("Probes"), bold=True, scale=1.3,
                                           wrap=False))
        self.probes_box, self._probe_grid = self._boxed_grid("probesBox")
        self._probe_grid.setColumnStretch(2, 3)
        self._probe_grid.setColumnStretch(3, 2)
        self._content.addWidget(self.probes_box)
        self._content.addStretch(1)

    @staticmethod
    def _boxed_grid(name: str) -> tuple[QFrame, QGridLayout]:
        box = QFrame()
        box.setObjectName(name)
        box.setStyleSheet(
            f"QFrame#{name} {{ background: palette(base); border: 1px solid palette(mid);"
            " border-radius: 4px; }"
        )
        grid = QGridLayout(box)
        grid.setContentsMargins(14, 10, 14, 10)
        grid.setHorizontalSpacing(18)
        grid.setVerticalSpacing(5)
        return box, grid

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.scroll_area.viewport() and event.type() == QEvent.Type.Resize:
            margins = self._content.contentsMargins()
            self.card_grid.set_available_width(
                self.scroll_area.viewport().width() - margins.left() - margins.right())
        return super().eventFilter(watched, event)

    # ------------------------------------------------------------------ public

    def set_inventory(self, inventory: Inventory, pending_probes: Sequence[str]) -> None:
        """Show `inventory`; `pending_probes` are still running and shown as such. A
        diagnosis of other GPUs than these is dropped until the next one comes."""
        self._inventory = inventory
        self._pending = tuple(pending_probes)
        if self._diagnosis is not None and self._diagnosis.inventory.gpus != inventory.gpus:
            self._diagnosis = None
        self._show_gpus(inventory)
        self.index_table.set_rows(rows_of(inventory.device_index))
        self._show_host(inventory.host)
        self._show_probes(inventory)
        self._open_at_top(inventory)

    def set_diagnosis(self, diagnosis: Diagnosis) -> None:
        """The doctor's findings over the machine on show: each card gets its verdict line
        and its warnings and errors, the machine's own ones are listed once."""
        self._diagnosis = diagnosis
        if self._inventory is None:  # shown on its own: its machine is the one on show
            self.set_inventory(diagnosis.inventory, ())
            return
        # A diagnosis of other GPUs (an inventory that has moved on) waits for the next one.
        self._show_gpus(self._inventory)

    @property
    def diagnosis(self) -> Diagnosis | None:
        return self._diagnosis

    def machine_finding_texts(self) -> list[list[str]]:
        """The texts of each finding about the whole machine, as shown."""
        return [line.texts() for line in self._machine_lines]

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._top_pending:
            self._go_to_top()

    def _open_at_top(self, inventory: Inventory) -> None:
        """A machine newly on show opens at the page's title, whatever was scrolled to
        before (at once, or when the page is next shown); updates of the same machine keep
        the reader's place."""
        origin = (inventory.origin.kind, inventory.origin.source)
        if origin == self._shown_origin:
            return
        self._shown_origin = origin
        self._top_pending = True
        if self.isVisible():
            self._go_to_top()

    def _go_to_top(self) -> None:
        self._top_pending = False
        self._scroll_to_top()
        # Again once the layout has settled: the content's height changes as it is laid out.
        # (The page as context: nothing runs once it is gone.)
        QTimer.singleShot(0, self, self._scroll_to_top)

    def _scroll_to_top(self) -> None:
        self.scroll_area.verticalScrollBar().setValue(0)

    @property
    def inventory(self) -> Inventory | None:
        return self._inventory

    def cards(self) -> list[GpuCard]:
        return self.card_grid.items

    def no_gpu_text(self) -> str | None:
        """The 'No GPU found' text and its reasons when shown, else None."""
        if self.no_gpu_panel.isHidden():
            return None
        return f"{self.no_gpu_title.text()}\n{self.no_gpu_reason.text()}"

    def host_rows(self) -> list[tuple[str, str]]:
        return list(self._host_rows)

    def probe_rows(self) -> list[tuple[str, str, str, str]]:
        """(title, state, reason, hint) per probe, in probe order."""
        return list(self._probe_rows)

    # ------------------------------------------------------------------ GPUs

    def _gpu_probe_names(self) -> list[str]:
        names = [spec.name for spec in self._probes]
        known = [name for name in names if name in _GPU_PROBE_LABELS]
        return known or [name for name in names if name not in _NOT_GPU_PROBES]

    def _title(self, name: str) -> str:
        return core_text(next((spec.title for spec in self._probes if spec.name == name), name))

    def _show_gpus(self, inventory: Inventory) -> None:
        gpus = inventory.gpus
        waiting = [name for name in self._gpu_probe_names() if name in self._pending]
        count = (self.tr("{count} GPU") if len(gpus) == 1 else self.tr("{count} GPUs")).format(
            count=len(gpus))
        if waiting:
            titles = ", ".join(self._title(name) for name in waiting)
            self.summary_label.setText(self.tr("{count} found so far; still asking: {titles}"
                                               ).format(count=count, titles=titles))
        else:
            self.summary_label.setText(self.tr("{count} found").format(count=count))
        self.summary_label.setVisible(bool(gpus))

        if gpus:
            self.no_gpu_panel.hide()
        else:
            self.no_gpu_panel.show()
            if waiting:
                self.no_gpu_title.setText(self.tr("Looking for GPUs…"))
                self.no_gpu_reason.setText(self.tr("Waiting for: {titles}").format(
                    titles=", ".join(self._title(name) for name in waiting)))
                self.no_gpu_note.hide()
            else:
                self.no_gpu_title.setText(self.tr("No GPU found"))
                self.no_gpu_reason.setText(self._no_gpu_reason(inventory))
                self.no_gpu_note.show()
        glances = self._glances(inventory)
        self.card_grid.set_items([GpuCard(gpu, inventory, self._pending, glances.get(gpu.index))
                                  for gpu in gpus])
        self._show_machine_findings(list(glances.values()))

    def _glances(self, inventory: Inventory) -> dict[int, GpuGlance]:
        diagnosis = self._diagnosis
        if diagnosis is None or diagnosis.inventory.gpus != inventory.gpus:
            return {}
        home = os.path.expanduser("~")
        return {gpu.index: gpu_glance(diagnosis.data, diagnosis.findings, gpu,
                                      home=home if home != "~" else None)
                for gpu in diagnosis.inventory.gpus}

    def _show_machine_findings(self, glances: Sequence[GpuGlance]) -> None:
        for line in self._machine_lines:
            self._machine_column.removeWidget(line)
            line.hide()
            line.deleteLater()
        diagnosis = self._diagnosis
        findings = (machine_findings(diagnosis.findings, glances)
                    if diagnosis is not None else ())
        self._machine_lines = [FindingLine(finding) for finding in findings]
        for line in self._machine_lines:
            self._machine_column.addWidget(line)
        self.machine_box.setVisible(bool(self._machine_lines))

    def _no_gpu_reason(self, inventory: Inventory) -> str:
        statuses = status_by_name(inventory)
        lines = []
        for name in self._gpu_probe_names():
            status = statuses.get(name)
            if status is None:
                continue
            label = (translate("OverviewPage", _GPU_PROBE_LABELS[name])
                     if name in _GPU_PROBE_LABELS else self._title(name))
            if status.available:
                what = core_text(status.reason) if status.reason else self.tr("saw no GPU")
            else:
                what = (core_text(status.reason) if status.reason
                        else state_text(status.state))
            lines.append(f"• {label}: {what}")
        if not lines:
            return self.tr("No probe that looks for GPUs has run.")
        return "\n".join(lines)

    # ------------------------------------------------------------------ host

    def _show_host(self, host: Host) -> None:
        clear_layout(self._host_grid)
        self._host_rows = []
        if "host" in self._pending:
            self._host_grid.addWidget(make_label(self.tr("Reading host details…"),
                                                 color=MUTED_COLOR), 0, 0, 1, 2)
            self._host_rows = [(self.tr("Host"), self.tr(RUNNING))]
            return
        self._host_grid.setColumnStretch(1, 1)
        if not _host_known(host):  # nothing read: do not claim "no VM detected" either
            status = status_by_name(self._inventory).get("host") if self._inventory else None
            why = (core_text(status.reason) if status is not None and status.reason
                   else self.tr("the host probe did not run"))
            no_details = self.tr("No host details: {why}").format(why=why)
            self._host_grid.addWidget(make_label(no_details, color=MUTED_COLOR), 0, 0, 1, 2)
            self._host_rows = [(self.tr("Host"), no_details)]
            return
        for row, (key, value, field) in enumerate(_host_rows(host)):
            self._host_grid.addWidget(make_label(key, color=MUTED_COLOR, wrap=False), row, 0,
                                      Qt.AlignmentFlag.AlignTop)
            if value is None:
                self._host_grid.addWidget(
                    make_label(self.tr("unknown"), color=MUTED_COLOR, italic=True,
                               tooltip=host.missing_reasons.get(field or "")), row, 1)
                self._host_rows.append((key, self.tr("unknown")))
            else:
                source = host.field_sources.get(field or "")
                self._host_grid.addWidget(make_label(value, tooltip=source), row, 1)
                self._host_rows.append((key, value))

    # ------------------------------------------------------------------ probes

    def _show_probes(self, inventory: Inventory) -> None:
        clear_layout(self._probe_grid)
        self._probe_rows = []
        headings = (self.tr("Probe"), self.tr("State"), self.tr("Reason"), self.tr("Hint"))
        for column, heading in enumerate(headings):
            self._probe_grid.addWidget(make_label(heading, bold=True, wrap=False), 0, column,
                                       Qt.AlignmentFlag.AlignTop)
        statuses = status_by_name(inventory)
        durations = inventory.origin.probe_durations_s
        entries: list[tuple[str, str, ProbeStatus | None]] = [
            (spec.name, core_text(spec.title), statuses.get(spec.name)) for spec in self._probes
        ]
        known = {spec.name for spec in self._probes}
        entries += [(s.name, s.name, s) for s in inventory.probes if s.name not in known]
        for row, (name, title, status) in enumerate(entries, start=1):
            if name in durations:
                tip = self.tr("probe {name}, took {seconds} s").format(
                    name=name, seconds=f"{durations[name]:.2f}")
            else:
                tip = self.tr("probe {name}").format(name=name)
            if status is not None:
                state, color = state_text(status.state), state_color(status.state)
                reason, hint = core_text(status.reason or ""), core_text(status.hint or "")
            elif name in self._pending:
                state, color, reason, hint = self.tr(RUNNING), MUTED_COLOR, "", ""
            else:
                state, color, reason, hint = self.tr("not run"), MUTED_COLOR, "", ""
            align = Qt.AlignmentFlag.AlignTop
            self._probe_grid.addWidget(make_label(title, wrap=False, tooltip=tip), row, 0, align)
            self._probe_grid.addWidget(
                make_label(state, color=color, wrap=False, bold=status is not None
                       and status.state is not ProbeState.OK and color != MUTED_COLOR,
                       italic=status is None), row, 1, align)
            self._probe_grid.addWidget(make_label(reason), row, 2, align)
            self._probe_grid.addWidget(make_label(hint, color=MUTED_COLOR), row, 3, align)
            self._probe_rows.append((title, state, reason, hint))


def _host_known(host: Host) -> bool:
    values = (host.distro, host.kernel, host.architecture, host.cpu_model,
              host.cpu_physical_cores, host.cpu_logical_cores, host.ram_total_bytes,
              host.python_version)
    return host.os != "unknown" or any(value is not None for value in values) or (
        host.wsl or host.container or host.virtual_machine)


def _host_rows(host: Host) -> list[tuple[str, str | None, str | None]]:
    system = host.distro or (host.os if host.os != "unknown" else None)
    if host.distro and host.os != "unknown":
        system = f"{host.distro} ({host.os})"
    kernel = host.kernel
    if kernel and host.architecture:
        kernel = f"{kernel} ({host.architecture})"
    cores: str | None = None
    if host.cpu_physical_cores is not None or host.cpu_logical_cores is not None:
        parts = []
        if host.cpu_physical_cores is not None:
            parts.append(translate("OverviewPage", "{count} physical").format(
                count=host.cpu_physical_cores))
        if host.cpu_logical_cores is not None:
            parts.append(translate("OverviewPage", "{count} logical").format(
                count=host.cpu_logical_cores))
        cores = ", ".join(parts)
    memory: str | None = None
    if host.ram_total_bytes is not None:
        ram = format_bytes(host.ram_total_bytes)
        memory = (translate("OverviewPage", "{ram} RAM, {swap} swap").format(
            ram=ram, swap=format_bytes(host.swap_total_bytes)) if host.swap_total_bytes
            else translate("OverviewPage", "{ram} RAM").format(ram=ram))
    flags = []
    if host.wsl:
        flags.append("WSL")
    if host.container:
        flags.append(translate("OverviewPage", "container: {hint}").format(
            hint=host.container_hint) if host.container_hint
            else translate("OverviewPage", "container"))
    if host.virtual_machine:
        flags.append(translate("OverviewPage", "virtual machine: {hint}").format(
            hint=host.virtual_machine_hint) if host.virtual_machine_hint
            else translate("OverviewPage", "virtual machine"))
    environment = "; ".join(flags) if flags else translate(
        "OverviewPage", "no WSL, container or virtual machine detected")
    rows: list[tuple[str, str | None, str | None]] = [
        (translate("OverviewPage", "System"), system, "distro"),
        (translate("OverviewPage", "Kernel"), kernel, "kernel"),
        ("CPU", host.cpu_model, "cpu_model"),
        (translate("OverviewPage", "Cores"), cores, "cpu_logical_cores"),
        (translate("OverviewPage", "Memory"), memory, "ram_total_bytes"),
        (translate("OverviewPage", "Runs in"), environment, None),
    ]
    if host.python_version:
        rows.append(("Python", host.python_version, "python_version"))
    return rows
