"""One GPU's card on the Overview: its identity, the doctor's verdict at a glance with every
warning and error about it, where it sits, and which layers see it, with an accent stripe in
the GPU's colour. Machine text is always plain text, never rich text."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from gpuscope.model import (
    DeviceNodeAccess,
    Gpu,
    GpuKind,
    Inventory,
    Layer,
    ProbeState,
    ProbeStatus,
    Vendor,
    format_bytes,
)
from gpuscope.report.gpu_glance import GpuGlance
from gpuscope.ui.i18n import QT_TRANSLATE_NOOP, core_text, translate
from gpuscope.ui.overview.glance import FindingLine, VerdictLine
from gpuscope.ui.theme import BANNER_TEXT, MUTED_COLOR, OK_COLOR, WARN_COLOR, gpu_color
from gpuscope.ui.widgets import css_color, make_label

# The layers a card ticks off, the probe that speaks for each, and how to say what it is.
TICK_LAYERS: tuple[tuple[Layer, str, str, str], ...] = (
    (Layer.SYSFS, "sysfs", "amdgpu_sysfs",
     QT_TRANSLATE_NOOP("GpuCard", "the kernel driver (/sys/class/drm)")),
    (Layer.KFD, "KFD", "kfd", QT_TRANSLATE_NOOP("GpuCard", "the KFD topology, which ROCm "
                                                          "enumerates")),
    (Layer.AMDSMI, "amdsmi", "amdsmi", QT_TRANSLATE_NOOP("GpuCard", "the AMD SMI library")),
    (Layer.NVML, "NVML", "nvml", QT_TRANSLATE_NOOP("GpuCard", "NVIDIA's NVML library")),
)
# On Windows: the display driver's listing, the HIP SDK's runtime, NVML.
WINDOWS_TICK_LAYERS: tuple[tuple[Layer, str, str, str], ...] = (
    (Layer.WINDOWS, "Windows", "windows_display",
     QT_TRANSLATE_NOOP("GpuCard", "the Windows display driver (registry, DXGI)")),
    (Layer.ROCM, "HIP", "hip_sdk", QT_TRANSLATE_NOOP("GpuCard", "the HIP SDK's runtime "
                                                                "(hipInfo)")),
    TICK_LAYERS[-1],
)
_VENDOR_NAMES = {Vendor.AMD: "AMD", Vendor.NVIDIA: "NVIDIA", Vendor.INTEL: "Intel",
                 Vendor.OTHER: "other"}
# Shown through translate("OverviewPage", RUNNING); the constant stays the English source.
TICK_SEEN = "✓"
TICK_NOT_SEEN = "—"
TICK_PENDING = "…"


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



def status_by_name(inventory: Inventory) -> dict[str, ProbeStatus]:
    return {status.name: status for status in inventory.probes}


class GpuCard(QFrame):
    """One GPU: its identity, the doctor's verdict and findings (once a diagnosis is there;
    before, what the inventory alone shows), where it sits and which layers see it, with an
    accent stripe in the GPU's colour."""

    def __init__(
        self, gpu: Gpu, inventory: Inventory, pending: Sequence[str],
        glance: GpuGlance | None = None, parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.gpu = gpu
        self.setObjectName("gpuCard")
        self.color = gpu_color(gpu.index)
        self.setStyleSheet(
            "QFrame#gpuCard { background: palette(base); border: 1px solid palette(mid);"
            f" border-left: 6px solid {css_color(self.color)}; border-radius: 4px; }}"
        )
        self._labels: list[QLabel | VerdictLine | FindingLine] = []
        self.glance = glance
        self.verdict: VerdictLine | None = None
        self.finding_lines: list[FindingLine] = []
        self.ticks: dict[Layer, str] = {}
        statuses = status_by_name(inventory)

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
        if glance is not None:
            self._add_glance(layout, glance)

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

        if glance is None:  # the doctor's findings say it once they are there
            for warning in self._warnings(inventory, statuses, pending):
                layout.addWidget(self._add(make_label("⚠ " + warning, color=WARN_COLOR)))
        layout.addStretch(1)

    def _add_glance(self, layout: QVBoxLayout, glance: GpuGlance) -> None:
        self.verdict = VerdictLine(glance)
        self._labels.append(self.verdict)
        layout.addWidget(self.verdict)
        lines = [FindingLine(finding) for finding in glance.findings]
        if glance.caveat is not None:
            lines.append(FindingLine(None, verdict=glance.caveat))
        for line in lines:
            self._labels.append(line)
            layout.addWidget(line)
        self.finding_lines = lines
        layout.addSpacing(2)

    def _add(self, label: QLabel) -> QLabel:
        self._labels.append(label)
        return label

    def texts(self) -> list[str]:
        """The text of every label on the card, top to bottom (for tests and copying)."""
        out: list[str] = []
        for item in self._labels:
            out += [item.text()] if isinstance(item, QLabel) else item.texts()
        return out

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
        on_windows = self.gpu.luid is not None or Layer.WINDOWS in self.gpu.seen_by
        for layer, short, probe, what_source in (WINDOWS_TICK_LAYERS if on_windows
                                                 else TICK_LAYERS):
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
                    tip += f" {core_text(status.reason)}"
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
                text += " " + self.tr("KFD: {reason}").format(reason=core_text(kfd.reason))
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
    stack = inventory.stack
    if not driver and gpu.driver_version and Layer.WINDOWS in gpu.seen_by:
        adrenalin = stack.extras.get("amd_driver_version") if gpu.vendor is Vendor.AMD else None
        return (translate("GpuCard", "Windows driver {version} (AMD Software {adrenalin})")
                .format(version=gpu.driver_version, adrenalin=adrenalin) if adrenalin else
                translate("GpuCard", "Windows driver {version}").format(
                    version=gpu.driver_version))
    if not driver:
        return None
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
            shown = core_text(reason)
            text += f" {shown[0].upper()}{shown[1:]}" + ("" if shown.endswith("。") else ".")
        if hint:
            text += "\n" + translate("GpuCard", "Fix: {hint}").format(hint=core_text(hint))
    return text

