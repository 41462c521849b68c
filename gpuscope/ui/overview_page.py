"""The Overview page: one card per GPU, the host, and what every probe said.

Everything shown comes from an `Inventory`; the page re-renders on each `set_inventory` call,
which the window makes every time another probe finishes. Text from the machine (or from a
replayed snapshot, which anyone could have written) is always shown as plain text, never as
rich text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from gpuscope.inventory import PROBES, ProbeSpec
from gpuscope.model import (
    DeviceNodeAccess,
    Gpu,
    GpuKind,
    Host,
    Inventory,
    Layer,
    ProbeState,
    ProbeStatus,
    Vendor,
    format_bytes,
)
from gpuscope.ui.i18n import QT_TRANSLATE_NOOP, core_text, translate
from gpuscope.ui.theme import BANNER_TEXT, MUTED_COLOR, OK_COLOR, WARN_COLOR, gpu_color, state_color
from gpuscope.ui.widgets import FlowGrid, clear_layout, css_color, make_label, scrolling_page

# The layers a card ticks off, the probe that speaks for each, and how to say what it is.
TICK_LAYERS: tuple[tuple[Layer, str, str, str], ...] = (
    (Layer.SYSFS, "sysfs", "amdgpu_sysfs",
     QT_TRANSLATE_NOOP("GpuCard", "the kernel driver (/sys/class/drm)")),
    (Layer.KFD, "KFD", "kfd", QT_TRANSLATE_NOOP("GpuCard", "the KFD topology, which ROCm "
                                                          "enumerates")),
    (Layer.AMDSMI, "amdsmi", "amdsmi", QT_TRANSLATE_NOOP("GpuCard", "the AMD SMI library")),
    (Layer.NVML, "NVML", "nvml", QT_TRANSLATE_NOOP("GpuCard", "NVIDIA's NVML library")),
)
_GPU_PROBE_LABELS: dict[str, str] = {
    "amdgpu_sysfs": QT_TRANSLATE_NOOP("OverviewPage", "Kernel (sysfs)"), "kfd": "KFD",
    "amdsmi": "amdsmi", "nvml": "NVML",
}
_NOT_GPU_PROBES = frozenset({"host", "stack"})
_VENDOR_NAMES = {Vendor.AMD: "AMD", Vendor.NVIDIA: "NVIDIA", Vendor.INTEL: "Intel",
                 Vendor.OTHER: "other"}
# Shown through translate("OverviewPage", RUNNING); the constant stays the English source.
RUNNING = QT_TRANSLATE_NOOP("OverviewPage", "running…")
TICK_SEEN = "✓"
TICK_NOT_SEEN = "—"
TICK_PENDING = "…"
MIN_CARD_WIDTH = 420
_SPACING = 12


def format_candidates(candidates: Sequence[str]) -> str:
    """'AMD Radeon RX 7900 XTX / 7900 XT / 7900 GRE': the first name in full, the others
    without the leading words they share with it (a word with a digit is always kept)."""
    if not candidates:
        return ""
    first = candidates[0].split()
    shown = [candidates[0]]
    for other in candidates[1:]:
        words = other.split()
        cut = 0
        while (cut < len(words) - 1 and cut < len(first) and words[cut] == first[cut]
               and not any(ch.isdigit() for ch in words[cut])):
            cut += 1
        shown.append(" ".join(words[cut:]))
    return " / ".join(shown)


def state_text(state: ProbeState) -> str:
    """"permission denied": the state in words, in the language installed."""
    return core_text(state.value.replace("_", " "))


def vendor_name(vendor: Vendor) -> str:
    return core_text(_VENDOR_NAMES[vendor])




def _status_by_name(inventory: Inventory) -> dict[str, ProbeStatus]:
    return {status.name: status for status in inventory.probes}


class GpuCard(QFrame):
    """One GPU: its identity, where it sits, which layers see it, with an accent stripe in
    the GPU's colour."""

    def __init__(
        self, gpu: Gpu, inventory: Inventory, pending: Sequence[str],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.gpu = gpu
        self.setObjectName("gpuCard")
        self.color = gpu_color(gpu.index)
        self.setStyleSheet(
            "QFrame#gpuCard { background: palette(base); border: 1px solid palette(mid);"
            f" border-left: 6px solid {css_color(self.color)}; border-radius: 4px; }}"
        )
        self._labels: list[QLabel] = []
        self.ticks: dict[Layer, str] = {}
        statuses = _status_by_name(inventory)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 10, 12, 10)
        layout.setSpacing(6)

        header = QHBoxLayout()
        # Dark text on the GPU's colour reads in light and dark themes alike.
        badge = self._add(make_label(self.tr("GPU {index}").format(index=gpu.index),
                                     bold=True, wrap=False))
        badge.setStyleSheet(f"background: {css_color(self.color)}; color: "
                            f"{css_color(BANNER_TEXT)}; border-radius: 3px; padding: 1px 6px;")
        badge.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Preferred)
        header.addWidget(badge, 0, Qt.AlignmentFlag.AlignTop)
        self.name_label = self._add(make_label(gpu.name or self.tr("unnamed GPU"), bold=True,
                                               scale=1.2, tooltip=gpu.field_sources.get("name")))
        header.addWidget(self.name_label, 1)
        layout.addLayout(header)

        if len(gpu.name_candidates) > 1:
            layout.addWidget(self._add(make_label(
                self.tr("could be: {names}").format(
                    names=format_candidates(gpu.name_candidates)), italic=True,
                color=MUTED_COLOR,
                tooltip=self.tr("Several cards share this PCI id, and what gpuscope could read "
                                "does not tell them apart."),
            )))

        grid = QGridLayout()
        grid.setHorizontalSpacing(14)
        grid.setVerticalSpacing(3)
        grid.setColumnStretch(1, 1)
        for row, (key, value, field) in enumerate(self._rows(inventory)):
            grid.addWidget(self._add(make_label(key, color=MUTED_COLOR, wrap=False)), row, 0,
                           Qt.AlignmentFlag.AlignTop)
            if value is None:
                reason = gpu.missing_reasons.get(field) if field else None
                grid.addWidget(self._add(make_label(self.tr("unknown"), color=MUTED_COLOR,
                                                    italic=True, tooltip=reason)), row, 1)
            else:
                source = gpu.field_sources.get(field) if field else None
                grid.addWidget(self._add(make_label(value, tooltip=source)), row, 1)
        ticks_row = grid.rowCount()
        seen_by = make_label(self.tr("Seen by"), color=MUTED_COLOR, wrap=False)
        grid.addWidget(self._add(seen_by), ticks_row, 0)
        grid.addLayout(self._ticks(statuses, pending), ticks_row, 1)
        layout.addLayout(grid)

        for warning in self._warnings(inventory, statuses, pending):
            layout.addWidget(self._add(make_label("⚠ " + warning, color=WARN_COLOR)))
        layout.addStretch(1)

    def _add(self, label: QLabel) -> QLabel:
        self._labels.append(label)
        return label

    def texts(self) -> list[str]:
        """The text of every label on the card, top to bottom (for tests and copying)."""
        return [label.text() for label in self._labels]

    def _rows(self, inventory: Inventory) -> list[tuple[str, str | None, str | None]]:
        gpu = self.gpu
        rows: list[tuple[str, str | None, str | None]] = [
            (self.tr("Vendor"), vendor_name(gpu.vendor) if gpu.vendor else None, "vendor"),
        ]
        lineage = " · ".join(v for v in (gpu.family, gpu.architecture) if v)
        if lineage:
            rows.append((self.tr("Family"), lineage, "family"))
        if gpu.vendor is Vendor.NVIDIA or (gpu.compute_capability and not gpu.gfx_target):
            rows.append((self.tr("Compute capability"), gpu.compute_capability,
                         "compute_capability"))
        else:
            rows.append((self.tr("gfx target"), gpu.gfx_target, "gfx_target"))
        kind = (core_text(gpu.kind.value) if gpu.kind and gpu.kind is not GpuKind.UNKNOWN
                else None)
        rows.append((self.tr("Kind"), kind, "kind"))
        if gpu.board_name:
            rows.append((self.tr("Board"), gpu.board_name, "board_name"))
        rows.append(("VRAM", self._vram(), "vram_total_bytes"))
        if gpu.compute_units:
            units = (self.tr("{count} SMs") if gpu.vendor is Vendor.NVIDIA
                     else self.tr("{count} CUs"))
            rows.append((self.tr("Compute units"), units.format(count=gpu.compute_units),
                         "compute_units"))
        bus = gpu.pci_bus
        if bus and gpu.pci_vendor_id and gpu.pci_device_id:
            bus = f"{bus}  [{gpu.pci_vendor_id[2:]}:{gpu.pci_device_id[2:]}]"
        rows.append((self.tr("PCI bus"), bus, "pci_bus"))
        rows.append((self.tr("Driver"), _driver_text(gpu, inventory), "kernel_driver"))
        return rows

    def _vram(self) -> str | None:
        gpu = self.gpu
        if gpu.vram_total_bytes is None:
            return None
        vram = format_bytes(gpu.vram_total_bytes)
        if gpu.kind is GpuKind.INTEGRATED and gpu.gtt_total_bytes:
            return self.tr("{vram} carved out + {gtt} shared (GTT)").format(
                vram=vram, gtt=format_bytes(gpu.gtt_total_bytes))
        return vram

    def _ticks(self, statuses: Mapping[str, ProbeStatus], pending: Sequence[str]) -> QHBoxLayout:
        row = QHBoxLayout()
        row.setSpacing(10)
        for layer, short, probe, what_source in TICK_LAYERS:
            status = statuses.get(probe)
            what = translate("GpuCard", what_source)
            if layer in self.gpu.seen_by:
                mark, color, tip = TICK_SEEN, OK_COLOR, self.tr("Seen by {what}.").format(
                    what=what)
            elif probe in pending:
                mark, color, tip = TICK_PENDING, MUTED_COLOR, self.tr(
                    "Still asking {what}.").format(what=what)
            else:
                mark, color = TICK_NOT_SEEN, MUTED_COLOR
                tip = self.tr("Not seen by {what}.").format(what=what)
                if status is not None and not status.available and status.reason:
                    tip += f" {status.reason}"
            self.ticks[layer] = mark
            row.addWidget(self._add(make_label(f"{short} {mark}", color=color, wrap=False,
                                           bold=mark == TICK_SEEN, tooltip=tip)))
        row.addStretch(1)
        return row

    def _warnings(
        self, inventory: Inventory, statuses: Mapping[str, ProbeStatus], pending: Sequence[str],
    ) -> list[str]:
        gpu = self.gpu
        if gpu.vendor is not Vendor.AMD or "kfd" in pending:
            return []
        warnings: list[str] = []
        if Layer.KFD not in gpu.seen_by:
            text = self.tr("KFD does not list this GPU, so ROCm (HIP, PyTorch on ROCm) will not "
                           "see it.")
            kfd = statuses.get("kfd")
            if kfd is not None and not kfd.available and kfd.reason:
                text += " " + self.tr("KFD: {reason}").format(reason=kfd.reason)
            return [text]
        nodes = {node.path: node for node in inventory.stack.device_nodes}
        wanted = ["/dev/kfd"]
        if gpu.drm_render_minor is not None:
            wanted.append(f"/dev/dri/renderD{gpu.drm_render_minor}")
        closed = [node for node in (nodes.get(path) for path in wanted)
                  if node is not None and node.exists and node.can_open is False]
        if closed:
            kfd = statuses.get("kfd")
            warnings.append(_node_warning(closed, kfd.hint if kfd is not None else None))
        return warnings


def _driver_text(gpu: Gpu, inventory: Inventory) -> str | None:
    driver = gpu.kernel_driver
    if not driver:
        return None
    stack = inventory.stack
    version = gpu.driver_version
    if version is None and driver == "amdgpu":
        version = stack.amdgpu_driver_version  # set only for out-of-tree amdgpu-dkms
        if version is None and "in-tree" in stack.missing_reasons.get("amdgpu_driver_version", ""):
            kernel = inventory.host.kernel
            return (translate("GpuCard", "amdgpu (in-tree, kernel {kernel})").format(
                kernel=kernel) if kernel else translate("GpuCard", "amdgpu (in-tree)"))
    if version is None and driver == "nvidia":
        version = stack.nvidia_driver_version
    if version:
        return translate("GpuCard", "{driver}, version {version}").format(driver=driver,
                                                                        version=version)
    return translate("GpuCard", "{driver} (version unknown)").format(driver=driver)


def _node_warning(nodes: Sequence[DeviceNodeAccess], hint: str | None) -> str:
    paths = [node.path for node in nodes]
    joined = paths[0] if len(paths) == 1 else translate("GpuCard", "{first} and {last}").format(
        first=", ".join(paths[:-1]), last=paths[-1])
    text = translate("GpuCard", "ROCm cannot use this GPU: this user cannot open {paths}."
                     ).format(paths=joined)
    if any(node.group_granted_not_active for node in nodes):
        groups = sorted({node.owner_group for node in nodes if node.group_granted_not_active
                         and node.owner_group})
        text += " " + translate(
            "GpuCard", "You are in group {groups} but this login session predates it: log out "
            "and back in.").format(groups=", ".join(groups) or translate("GpuCard",
                                                                        "the owning group"))
    else:
        # One reason is enough: the nodes share an owner, so they share the cause.
        reason = next((node.reason for node in nodes if node.reason), None)
        if reason:
            text += f" {reason[0].upper()}{reason[1:]}."
        if hint:
            text += "\n" + translate("GpuCard", "Fix: {hint}").format(hint=hint)
    return text


class OverviewPage(QWidget):
    """GPU cards, the host and the probes, for one (possibly partial) inventory."""

    def __init__(
        self, probes: Sequence[ProbeSpec] = PROBES, parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._probes = tuple(probes)
        self._inventory: Inventory | None = None
        self._pending: tuple[str, ...] = ()
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
        """Show `inventory`; `pending_probes` are still running and shown as such."""
        self._inventory = inventory
        self._pending = tuple(pending_probes)
        self._show_gpus(inventory)
        self._show_host(inventory.host)
        self._show_probes(inventory)

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
        self.card_grid.set_items([GpuCard(gpu, inventory, self._pending) for gpu in gpus])

    def _no_gpu_reason(self, inventory: Inventory) -> str:
        statuses = _status_by_name(inventory)
        lines = []
        for name in self._gpu_probe_names():
            status = statuses.get(name)
            if status is None:
                continue
            label = (translate("OverviewPage", _GPU_PROBE_LABELS[name])
                     if name in _GPU_PROBE_LABELS else self._title(name))
            if status.available:
                what = status.reason or self.tr("saw no GPU")
            else:
                what = status.reason or state_text(status.state)
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
            status = _status_by_name(self._inventory).get("host") if self._inventory else None
            why = (status.reason if status is not None and status.reason
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
        statuses = _status_by_name(inventory)
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
                reason, hint = status.reason or "", status.hint or ""
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
