"""The Stack page: per GPU, the layers from the kernel driver up to the framework, each a box
coloured by its state, with the finding behind it and the exact fix to copy.

Everything shown comes from a `Diagnosis` (the doctor's findings over the machine on show);
the page re-renders on each `set_diagnosis`. Text from the machine or from pasted outputs is
always plain text, never rich text.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QColor, QFont, QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from gpuscope.doctor.layers import LayerRow, LayerState
from gpuscope.doctor.llm_summary import runtime_line
from gpuscope.doctor.verdicts import FrameworkVerdict
from gpuscope.model import Finding, Gpu, GpuKind, Severity, Vendor
from gpuscope.ui.doctor_loader import Diagnosis
from gpuscope.ui.i18n import QT_TRANSLATE_NOOP, core_text, translate, verdict_row_text
from gpuscope.ui.theme import (
    BANNER_TEXT,
    ERROR_COLOR,
    MUTED_COLOR,
    OK_COLOR,
    WARN_COLOR,
    gpu_color,
)
from gpuscope.ui.widgets import (
    FlowGrid,
    boxed_column,
    clear_layout,
    make_label,
    plain_tooltip,
    scrolling_page,
)

NOT_APPLICABLE_COLOR = QColor("#b9b9b9")
INFO_COLOR = QColor("#3b7dd8")
LAYER_COLORS: dict[LayerState, QColor] = {
    LayerState.OK: OK_COLOR,
    LayerState.WARNING: WARN_COLOR,
    LayerState.BLOCKED: ERROR_COLOR,
    LayerState.UNKNOWN: MUTED_COLOR,
    LayerState.NOT_APPLICABLE: NOT_APPLICABLE_COLOR,
}
# English sources; shown through layer_state_word().
LAYER_STATE_WORDS: dict[LayerState, str] = {
    LayerState.OK: QT_TRANSLATE_NOOP("LayerBox", "works"),
    LayerState.WARNING: QT_TRANSLATE_NOOP("LayerBox", "warning"),
    LayerState.BLOCKED: QT_TRANSLATE_NOOP("LayerBox", "blocked"),
    LayerState.UNKNOWN: QT_TRANSLATE_NOOP("LayerBox", "not checked"),
    LayerState.NOT_APPLICABLE: QT_TRANSLATE_NOOP("LayerBox", "does not apply"),
}
SEVERITY_COLORS: dict[Severity, QColor] = {
    Severity.ERROR: ERROR_COLOR, Severity.WARNING: WARN_COLOR, Severity.INFO: INFO_COLOR,
    Severity.OK: OK_COLOR,
}
SEVERITY_MARKS: dict[Severity, str] = {
    Severity.ERROR: "✗", Severity.WARNING: "!", Severity.INFO: "i", Severity.OK: "✓",
}
NO_GPU_TITLE = QT_TRANSLATE_NOOP("StackPage", "No GPU found")
MIN_COLUMN_WIDTH = 380
_SPACING = 14
_SHORT_DETAIL_CHARS = 240


# ----------------------------------------------------------------------------- small widgets


def layer_state_word(state: LayerState) -> str:
    """"works", "blocked", ... in the language installed."""
    return translate("LayerBox", LAYER_STATE_WORDS[state])


def rgba(color: QColor, alpha: int) -> str:
    return f"rgba({color.red()}, {color.green()}, {color.blue()}, {alpha})"


def mark_badge(mark: str, color: QColor, size: int = 22) -> QLabel:
    """A round badge with a one-character mark (✓ ! ✗ ? i) in white on `color`."""
    badge = QLabel(mark)
    badge.setTextFormat(Qt.TextFormat.PlainText)
    badge.setAlignment(Qt.AlignmentFlag.AlignCenter)
    badge.setFixedSize(size, size)
    font = QFont(badge.font())
    font.setBold(True)
    badge.setFont(font)
    badge.setStyleSheet(f"background: {color.name()}; color: white; border-radius: {size // 2}px;")
    return badge


def short_detail(detail: str, limit: int = _SHORT_DETAIL_CHARS) -> str:
    """The first sentence of `detail` (two if the first is very short), cut at `limit`."""
    text = " ".join(detail.split())
    if not text:
        return ""
    sentences: list[str] = []
    rest = text
    while rest and len(sentences) < 2:
        cut = rest.find(". ")
        if cut < 0:
            sentences.append(rest)
            rest = ""
        else:
            sentences.append(rest[:cut + 1])
            rest = rest[cut + 2:]
        if len(sentences[0]) >= 60:
            break
    short = " ".join(sentences)
    if len(short) > limit:
        short = short[:limit].rsplit(" ", 1)[0].rstrip(",;:") + "…"
    return short


class FixLine(QFrame):
    """A finding's fix: the plain words as text, then the commands in a monospace, selectable
    block that wraps, with a Copy button that puts exactly the commands (one per line) on the
    clipboard. Without commands there is nothing to copy and no button is shown."""

    def __init__(self, fix: str | None, commands: Sequence[str] = (),
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.fix = fix or ""
        self.commands = tuple(commands)
        column = boxed_column(self, "fixLine", radius_px=3, margins=(8, 4, 4, 4), spacing=4)
        self.words = make_label(self.fix)
        self.words.setVisible(bool(self.fix))
        column.addWidget(self.words)
        row = QHBoxLayout()
        row.setSpacing(6)
        self.label = QLabel()
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setText("\n".join(self.commands))
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        self.label.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.label.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.label.setToolTip(plain_tooltip(self.tr("Select to copy part of it, or press Copy")))
        row.addWidget(self.label, 1)
        self.copy_button = QPushButton(self.tr("Copy"))
        self.copy_button.setToolTip(self.tr("Copy the commands to the clipboard"))
        self.copy_button.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.copy_button.clicked.connect(self.copy)
        row.addWidget(self.copy_button, 0, Qt.AlignmentFlag.AlignTop)
        column.addLayout(row)
        self.label.setVisible(bool(self.commands))
        self.copy_button.setVisible(bool(self.commands))

    @classmethod
    def of(cls, finding: Finding | FrameworkVerdict) -> FixLine | None:
        """The fix of `finding` (or of a verdict), or None when it has neither words nor
        commands."""
        if not finding.fix and not finding.fix_commands:
            return None
        return cls(core_text(finding.fix or ""), finding.fix_commands)

    def text(self) -> str:
        """The commands as they are copied; the words when there are no commands."""
        return "\n".join(self.commands) if self.commands else self.fix

    def copy(self) -> None:
        if not self.commands:
            return
        clipboard = QGuiApplication.clipboard()
        if clipboard is not None:
            clipboard.setText("\n".join(self.commands))
        self.copy_button.setText(self.tr("Copied"))


class DetailLabel(QWidget):
    """A finding's detail: its first sentence, with "more" to show all of it."""

    def __init__(self, detail: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.full = " ".join(detail.split())
        self.short = short_detail(detail)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        self.label = make_label(self.short)
        column.addWidget(self.label)
        self.more_button: QPushButton | None = None
        if self.short != self.full:
            self.more_button = QPushButton(self.tr("more…"))
            self.more_button.setFlat(True)
            self.more_button.setCursor(Qt.CursorShape.PointingHandCursor)
            self.more_button.setStyleSheet(
                f"QPushButton {{ color: {INFO_COLOR.name()}; border: none; padding: 0px;"
                " text-align: left; }")
            self.more_button.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
            self.more_button.clicked.connect(self.toggle)
            column.addWidget(self.more_button)

    def expanded(self) -> bool:
        return self.label.text() == self.full

    def toggle(self) -> None:
        showing_all = self.expanded()
        self.label.setText(self.short if showing_all else self.full)
        if self.more_button is not None:
            self.more_button.setText(self.tr("more…") if showing_all else self.tr("less"))

    def text(self) -> str:
        return self.label.text()


def evidence_label(finding: Finding) -> QLabel:
    """'Evidence: rocminfo.txt:125, torch-error.txt:1', each line's text in the tooltip."""
    refs = finding.evidence
    tip = "\n".join(f"{ref.label()}: {ref.text}" for ref in refs if ref.text)
    return make_label(translate("FindingRow", "Evidence: {references}").format(
        references=", ".join(ref.label() for ref in refs)), color=MUTED_COLOR, tooltip=tip or None)


class FindingRow(QFrame):
    """One finding: severity badge, title, short detail and the fix."""

    def __init__(self, finding: Finding, parent: QWidget | None = None, *,
                 show_fix: bool = True) -> None:
        super().__init__(parent)
        self.finding = finding
        self.setObjectName("findingRow")
        color = SEVERITY_COLORS[finding.severity]
        self.setStyleSheet(
            f"QFrame#findingRow {{ background: {rgba(color, 22)};"
            f" border: 1px solid {rgba(color, 90)}; border-radius: 4px; }}")
        row = QHBoxLayout(self)
        row.setContentsMargins(10, 8, 10, 8)
        row.setSpacing(10)
        self.badge = mark_badge(SEVERITY_MARKS[finding.severity], color)
        self.badge.setToolTip(core_text(finding.severity.value))
        row.addWidget(self.badge, 0, Qt.AlignmentFlag.AlignTop)
        column = QVBoxLayout()
        column.setSpacing(4)
        self.title_label = make_label(core_text(finding.title), bold=True,
                                      tooltip=f"{finding.id} ({finding.severity.value})")
        column.addWidget(self.title_label)
        self.detail: DetailLabel | None = None
        if finding.detail:
            self.detail = DetailLabel(core_text(finding.detail))
            column.addWidget(self.detail)
        self.fix_line: FixLine | None = FixLine.of(finding) if show_fix else None
        if self.fix_line is not None:
            column.addWidget(self.fix_line)
        if finding.evidence:
            column.addWidget(evidence_label(finding))
        row.addLayout(column, 1)


# ----------------------------------------------------------------------------- a GPU's stack


class LayerBox(QFrame):
    """One layer of one GPU's stack, coloured by its state."""

    def __init__(self, row: LayerRow, text: str | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.row = row
        self.state = row.state
        self.color = LAYER_COLORS[row.state]
        self.setObjectName("layerBox")
        self.setStyleSheet(
            f"QFrame#layerBox {{ background: {rgba(self.color, 30)};"
            f" border: 1px solid {rgba(self.color, 150)};"
            f" border-left: 5px solid {self.color.name()}; border-radius: 4px; }}")
        column = QVBoxLayout(self)
        column.setContentsMargins(10, 7, 10, 8)
        column.setSpacing(4)

        header = QHBoxLayout()
        header.setSpacing(8)
        self.mark = mark_badge(row.state.mark, self.color, 20)
        header.addWidget(self.mark, 0, Qt.AlignmentFlag.AlignTop)
        self.name_label = make_label(core_text(row.name), bold=True)
        header.addWidget(self.name_label, 1)
        self.state_label = make_label(layer_state_word(row.state), wrap=False,
                                      color=self.color if row.state is not LayerState.NOT_APPLICABLE
                                      else MUTED_COLOR)
        header.addWidget(self.state_label, 0, Qt.AlignmentFlag.AlignTop)
        column.addLayout(header)

        finding = row.finding
        shown = text if text is not None else core_text(row.text)
        self.text_label = make_label(shown, bold=finding is not None and row.state in (
            LayerState.BLOCKED, LayerState.WARNING), tooltip=(
            f"{finding.id} ({finding.severity.value})" if finding is not None else None))
        column.addWidget(self.text_label)
        self.detail: DetailLabel | None = None
        if finding is not None:
            if core_text(finding.title) != shown:
                column.addWidget(make_label(core_text(finding.title), bold=True))
            if finding.detail:
                self.detail = DetailLabel(core_text(finding.detail))
                column.addWidget(self.detail)
        source = finding or row.fix_source  # a finding's fix shows whatever the row's state
        self.fix_line: FixLine | None = FixLine.of(source) if source is not None else None
        if self.fix_line is not None:
            column.addWidget(self.fix_line)
        if finding is not None and finding.evidence:
            column.addWidget(evidence_label(finding))

    def texts(self) -> list[str]:
        texts = [self.row.state.mark, self.name_label.text(), self.state_label.text(),
                 self.text_label.text()]
        if self.detail is not None:
            texts.append(self.detail.text())
        if self.fix_line is not None:
            texts.append(self.fix_line.text())
        return texts


def _connector() -> QWidget:
    holder = QWidget()
    row = QHBoxLayout(holder)
    row.setContentsMargins(0, 0, 0, 0)
    line = QFrame()
    line.setFixedSize(2, 10)
    line.setStyleSheet("background: palette(mid);")
    row.addWidget(line, 0, Qt.AlignmentFlag.AlignHCenter)
    return holder


def _gpu_subtitle(gpu: Gpu) -> str:
    parts: list[str] = []
    if gpu.gfx_target:
        parts.append(gpu.gfx_target)
    elif gpu.compute_capability:
        parts.append(translate("GpuStackColumn", "compute capability {version}").format(
            version=gpu.compute_capability))
    if gpu.kind is not None and gpu.kind is not GpuKind.UNKNOWN:
        parts.append(core_text(gpu.kind.value))
    if gpu.pci_bus:
        parts.append(gpu.pci_bus)
    return " · ".join(parts)


def framework_row_text(row: LayerRow, diagnosis: Diagnosis) -> str:
    """The doctor's verdict in the language installed (the Frameworks page's words), or,
    with nothing inspected, the CLI's advice swapped for the window's."""
    if row.verdict is not None:
        return verdict_row_text(row.verdict)
    if row.state is LayerState.UNKNOWN and "(doctor --python PATH)" in row.text:
        where = (translate("GpuStackColumn", "no framework output among the imported files")
                 if diagnosis.imported is not None
                 else translate("GpuStackColumn", "its gpuscope serve inspected no Python; "
                                "give it --python PATH") if diagnosis.remote is not None
                 else translate("GpuStackColumn", "inspect it on the Frameworks page"))
        if row.text == "no PyTorch inspected (doctor --python PATH)":
            return translate("GpuStackColumn", "no PyTorch inspected ({where})").format(
                where=where)
        return row.text.replace("doctor --python PATH", where)
    return row.text


class GpuStackColumn(QFrame):
    """One GPU: its name, the verdict, and its layers as a chain of boxes."""

    def __init__(self, gpu: Gpu, diagnosis: Diagnosis, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.gpu = gpu
        self.color = gpu_color(gpu.index)
        self.setObjectName("gpuStack")
        self.setStyleSheet(
            "QFrame#gpuStack { background: palette(base); border: 1px solid palette(mid);"
            f" border-left: 6px solid {self.color.name()}; border-radius: 4px; }}")
        column = QVBoxLayout(self)
        column.setContentsMargins(14, 10, 12, 12)
        column.setSpacing(6)

        header = QHBoxLayout()
        badge = make_label(self.tr("GPU {index}").format(index=gpu.index), bold=True,
                           wrap=False)
        badge.setStyleSheet(f"background: {self.color.name()}; color: {BANNER_TEXT.name()};"
                            " border-radius: 3px; padding: 1px 6px;")
        badge.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Preferred)
        header.addWidget(badge, 0, Qt.AlignmentFlag.AlignTop)
        self.name_label = make_label(gpu.name or self.tr("unnamed GPU"), bold=True, scale=1.15)
        header.addWidget(self.name_label, 1)
        column.addLayout(header)
        subtitle = _gpu_subtitle(gpu)
        if subtitle:
            column.addWidget(make_label(subtitle, color=MUTED_COLOR))

        rows = diagnosis.layers(gpu)
        self.verdict_label = self._verdict(gpu, rows, diagnosis)
        column.addWidget(self.verdict_label)
        column.addSpacing(4)

        self.boxes: list[LayerBox] = []
        for position, row in enumerate(rows):
            if position:
                column.addWidget(_connector())
            text = framework_row_text(row, diagnosis) if row.name.startswith("Framework") \
                else core_text(row.text)
            box = LayerBox(row, text)
            self.boxes.append(box)
            column.addWidget(box)

        shown = {id(row.finding) for row in rows if row.finding is not None}
        others = [f for f in diagnosis.gpu_findings(gpu.index)
                  if id(f) not in shown and f.id != "gpu.usable"]
        self.other_rows: list[FindingRow] = []
        if others:
            column.addSpacing(6)
            column.addWidget(make_label(self.tr("Also about this GPU"), bold=True))
            for finding in others:
                finding_row = FindingRow(finding)
                self.other_rows.append(finding_row)
                column.addWidget(finding_row)
        column.addStretch(1)

    @staticmethod
    def _verdict(gpu: Gpu, rows: Sequence[LayerRow], diagnosis: Diagnosis) -> QLabel:
        blocked = [row for row in rows if row.state is LayerState.BLOCKED]
        usable = next((f for f in diagnosis.gpu_findings(gpu.index) if f.id == "gpu.usable"),
                      None)
        if blocked:
            names = ", ".join(core_text(row.name) for row in blocked)
            return make_label(translate("GpuStackColumn", "✗ Blocked at: {layers}").format(
                layers=names), bold=True, color=ERROR_COLOR)
        if usable is not None:
            warned = [core_text(row.name) for row in rows if row.state is LayerState.WARNING]
            text = (translate("GpuStackColumn", "✓ Usable, with a warning at: {layers}").format(
                layers=", ".join(warned)) if warned
                else translate("GpuStackColumn", "✓ Usable"))
            return make_label(text, bold=True, color=WARN_COLOR if warned else OK_COLOR,
                              tooltip=usable.detail)
        if gpu.vendor not in (Vendor.AMD, Vendor.NVIDIA):
            return make_label(translate("GpuStackColumn",
                                        "? gpuscope checks the AMD and NVIDIA stacks only"),
                              color=MUTED_COLOR)
        return make_label(translate("GpuStackColumn", "? Not shown to be usable: some layers "
                                                      "could not be checked"),
                          color=MUTED_COLOR)

    def layer_boxes(self) -> list[LayerBox]:
        return list(self.boxes)

    def box(self, name_start: str) -> LayerBox:
        """The layer box whose name starts with `name_start` ("Framework", "ROCm", ...)."""
        for box in self.boxes:
            if box.row.name.startswith(name_start):
                return box
        raise KeyError(name_start)


# ----------------------------------------------------------------------------- the page


class StackPage(QWidget):
    """System-wide findings above, then one column per GPU with its layers."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._diagnosis: Diagnosis | None = None
        self._pending: tuple[str, ...] = ()
        self._system_rows: list[FindingRow] = []

        self.scroll_area, self._content, self.summary_label = scrolling_page(
            self, self.tr("Stack"))
        # After the assignment: the filter reads self.scroll_area, and fires at once.
        self.scroll_area.viewport().installEventFilter(self)

        self._content.addSpacing(4)
        self._content.addWidget(make_label(self.tr("Whole machine"), bold=True, scale=1.1,
                                           wrap=False))
        self.system_box = QWidget()
        self._system_layout = QVBoxLayout(self.system_box)
        self._system_layout.setContentsMargins(0, 0, 0, 0)
        self._system_layout.setSpacing(6)
        self._content.addWidget(self.system_box)

        self.no_gpu_panel = QFrame()
        self.no_gpu_panel.setObjectName("noGpuStack")
        self.no_gpu_panel.setStyleSheet(
            "QFrame#noGpuStack { background: palette(base); border: 1px solid palette(mid);"
            " border-radius: 4px; }")
        panel = QVBoxLayout(self.no_gpu_panel)
        panel.setContentsMargins(14, 12, 14, 12)
        self.no_gpu_title = make_label(self.tr(NO_GPU_TITLE), bold=True, scale=1.3)
        self.no_gpu_reason = make_label("", color=MUTED_COLOR)
        panel.addWidget(self.no_gpu_title)
        panel.addWidget(self.no_gpu_reason)

        self._content.addSpacing(6)
        self.gpus_heading = make_label(
            self.tr("Per GPU: from the kernel driver up to the framework"), bold=True, scale=1.1)
        self._content.addWidget(self.gpus_heading)
        self._content.addWidget(self.no_gpu_panel)
        self.column_grid: FlowGrid[GpuStackColumn] = FlowGrid(
            MIN_COLUMN_WIDTH, _SPACING, initial_width=MIN_COLUMN_WIDTH * 2 + _SPACING,
            fill_row_only=True, alignment=Qt.AlignmentFlag.AlignTop)
        self._content.addWidget(self.column_grid)
        self._content.addSpacing(6)
        self._content.addWidget(make_label(self.tr("LLM runtimes"), bold=True, scale=1.1,
                                           wrap=False))
        self.llm_label = make_label(self.tr("Not looked for yet."), color=MUTED_COLOR)
        self._content.addWidget(self.llm_label)
        self._content.addStretch(1)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.scroll_area.viewport() and event.type() == QEvent.Type.Resize:
            margins = self._content.contentsMargins()
            self.column_grid.set_available_width(
                self.scroll_area.viewport().width() - margins.left() - margins.right())
        return super().eventFilter(watched, event)

    # ------------------------------------------------------------------ public

    @property
    def diagnosis(self) -> Diagnosis | None:
        return self._diagnosis

    def set_diagnosis(self, diagnosis: Diagnosis, pending_probes: Sequence[str] = ()) -> None:
        """Show `diagnosis`; `pending_probes` (titles) are still running, so it may change."""
        self._diagnosis = diagnosis
        self._pending = tuple(pending_probes)
        inventory = diagnosis.inventory
        errors, warnings = diagnosis.counts()
        gpus = len(inventory.gpus)
        parts = [
            (self.tr("{count} GPU") if gpus == 1 else self.tr("{count} GPUs")).format(
                count=gpus),
            (self.tr("{count} error") if errors == 1 else self.tr("{count} errors")).format(
                count=errors) + ", " + (self.tr("{count} warning") if warnings == 1
                                        else self.tr("{count} warnings")).format(count=warnings),
        ]
        if diagnosis.imported is not None:
            parts.append(self.tr("from imported outputs"))
        if self._pending:
            parts.append(self.tr("still asking {titles} (this may change)").format(
                titles=", ".join(core_text(title) for title in self._pending)))
        summary = " · ".join(parts)
        self.summary_label.setText(summary)

        runtimes = diagnosis.data.llm_runtimes
        self.llm_label.setText("\n".join(
            ("✓ " if r.found else "✗ ") + core_text(runtime_line(r, inventory.gpus))
            for r in runtimes) if runtimes else self.tr("Not looked for yet."))

        clear_layout(self._system_layout)
        self._system_rows = [FindingRow(f) for f in diagnosis.system_findings()]
        for row in self._system_rows:
            self._system_layout.addWidget(row)
        if not self._system_rows:
            self._system_layout.addWidget(make_label(
                self.tr("Nothing found that concerns the whole machine."), color=MUTED_COLOR))

        if inventory.gpus:
            self.no_gpu_panel.hide()
        else:
            self.no_gpu_panel.show()
            self.no_gpu_title.setText(self.tr("Looking for GPUs…") if self._pending
                                      else self.tr(NO_GPU_TITLE))
            if diagnosis.imported is not None:
                reason = (self.tr("None of the imported outputs lists a GPU; the findings above "
                                  "say what stood in the way.") if self._system_rows
                          else self.tr("None of the imported outputs lists a GPU."))
            else:
                reason = (self.tr("No probe found a GPU (the Overview's Probes table says what "
                                  "each layer answered); the findings above say what stood in "
                                  "the way.") if self._system_rows
                          else self.tr("No probe found a GPU (the Overview's Probes table says "
                                       "what each layer answered)."))
            self.no_gpu_reason.setText(reason)
        self.column_grid.set_items([GpuStackColumn(gpu, diagnosis) for gpu in inventory.gpus])

    def stacks(self) -> list[GpuStackColumn]:
        return self.column_grid.items

    def stack_position(self, index: int) -> tuple[int, int]:
        return self.column_grid.position(self.stacks()[index])

    def system_rows(self) -> list[FindingRow]:
        return list(self._system_rows)

    def no_gpu_text(self) -> str | None:
        if self.no_gpu_panel.isHidden():
            return None
        return f"{self.no_gpu_title.text()}\n{self.no_gpu_reason.text()}"
