"""A GPU at a glance on its Overview card: the verdict line from the doctor's verdict engine
("ROCm 6.2.4 ✓ · PyTorch 2.5 (ROCm 6.2) ✓ in ~/venvs/ai"), or what blocks the GPU with a
Copy-commands button, and every warning or error with its fix in short."""

from __future__ import annotations

import html
from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from gpuscope.doctor.layers import LayerState
from gpuscope.doctor.verdicts import FrameworkVerdict
from gpuscope.model import Finding, Severity
from gpuscope.report.gpu_glance import UNKNOWN, GlancePart, GpuGlance, PartKind
from gpuscope.ui.i18n import core_text, translate, verdict_row_text, verdict_text
from gpuscope.ui.theme import ERROR_COLOR, MUTED_COLOR, OK_COLOR, WARN_COLOR
from gpuscope.ui.widgets import make_label
from gpuscope.untrusted import clean_text

STATE_COLORS: dict[LayerState, QColor] = {
    LayerState.OK: OK_COLOR, LayerState.WARNING: WARN_COLOR, LayerState.BLOCKED: ERROR_COLOR,
    LayerState.UNKNOWN: MUTED_COLOR, LayerState.NOT_APPLICABLE: MUTED_COLOR,
}
SEVERITY_MARKS: dict[Severity, str] = {Severity.ERROR: "✗", Severity.WARNING: "!"}
_SHORT_FIX_CHARS = 320  # a sentence that long is cut at a word, its whole in the tooltip


def short_text(text: str, limit: int = _SHORT_FIX_CHARS) -> str:
    """The first sentence of `text`, cut at a word before `limit` characters."""
    flat = " ".join(text.split())
    cut = flat.find(". ")
    first = flat[:cut + 1] if cut >= 0 else flat
    if len(first) > limit:
        first = first[:limit].rsplit(" ", 1)[0].rstrip(",;:") + "…"
    return first


def part_text(part: GlancePart) -> str:
    """One part of the verdict line in the language installed."""
    mark = f" {part.mark}" if part.mark else ""
    kind = part.kind
    if kind is PartKind.ROCM:
        if part.version:
            return translate("GpuVerdict", "ROCm {version}").format(version=part.version) + mark
        return (translate("GpuVerdict", "ROCm version unknown") + mark
                if part.detail == UNKNOWN else translate("GpuVerdict", "ROCm not found"))
    if kind is PartKind.NVIDIA:
        text = (translate("GpuVerdict", "NVIDIA {version}").format(version=part.version)
                if part.version else translate("GpuVerdict", "NVIDIA driver"))
        return text + (f" ({part.detail})" if part.detail else "") + mark
    if kind is PartKind.TORCH:
        text = f"PyTorch {part.version or '?'}" + (f" ({part.detail})" if part.detail
                                                   else "") + mark
        return (translate("GpuVerdict", "{framework} in {where}").format(
            framework=text, where=part.where) if part.where else text)
    if kind is PartKind.NO_TORCH:
        if part.count > 1:
            return translate("GpuVerdict", "no PyTorch in the {count} interpreters inspected"
                             ).format(count=part.count)
        return (translate("GpuVerdict", "no PyTorch in {where}").format(where=part.where)
                if part.where else translate("GpuVerdict", "no PyTorch found"))
    if kind is PartKind.NOT_INSPECTED:
        return translate("GpuVerdict", "PyTorch not inspected")
    if kind is PartKind.NOT_IN_OUTPUTS:
        return translate("GpuVerdict", "no PyTorch output among the imported files")
    return translate("GpuVerdict", "gpuscope checks AMD and NVIDIA GPUs only")


def _rich_parts(glance: GpuGlance) -> str:
    """The parts as rich text: every text escaped (machine text is never markup), each mark
    in its state's colour."""
    shown = []
    for part in glance.parts:
        words = part_text(part)
        if part.mark and words.endswith(f" {part.mark}"):
            words = words[:-len(part.mark) - 1]
        escaped = html.escape(clean_text(words))
        if part.mark:  # the mark stays right after the version, before " in ~/venvs/ai"
            mark = (f' <span style="color: {STATE_COLORS[part.state].name()}">'
                    f"{html.escape(part.mark)}</span>")
            escaped = escaped + mark if mark_at_end(part) else _mark_inside(part, mark)
        shown.append(escaped)
    return " · ".join(shown)


def mark_at_end(part: GlancePart) -> bool:
    return part.kind is not PartKind.TORCH or not part.where


def _mark_inside(part: GlancePart, mark: str) -> str:
    framework = f"PyTorch {part.version or '?'}" + (f" ({part.detail})" if part.detail else "")
    return html.escape(clean_text(translate("GpuVerdict", "{framework} in {where}"))).format(
        framework=html.escape(clean_text(framework)) + mark,
        where=html.escape(clean_text(part.where or "")))


def glance_text(glance: GpuGlance) -> str:
    """The verdict line: what blocks the GPU, else its parts joined by " · "."""
    if glance.blocker is not None:
        blocker = glance.blocker
        if blocker.finding is not None:
            title = core_text(blocker.finding.title)
        elif blocker.verdict is not None:
            title = verdict_row_text(blocker.verdict)
        else:
            title = core_text(blocker.title)
        return f"✗ {title}"
    return " · ".join(part_text(part) for part in glance.parts)


def copy_commands(commands: Sequence[str]) -> None:
    """Put the commands on the clipboard, one per line, as they are to be pasted."""
    clipboard = QGuiApplication.clipboard()
    if clipboard is not None and commands:
        clipboard.setText("\n".join(commands))


class FixBlock(QWidget):
    """A fix in short: its words' first sentence, then the commands in a monospace,
    selectable label with a button that copies them, one per line."""

    def __init__(self, fix: str | None, commands: Sequence[str], *, button_text: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.fix = core_text(fix) if fix else ""
        self.commands = tuple(commands)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        self.words: QLabel | None = None
        if self.fix:
            self.words = make_label(short_text(self.fix), color=MUTED_COLOR,
                                    tooltip=self.fix if short_text(self.fix) != self.fix
                                    else None)
            column.addWidget(self.words)
        self.commands_label: QLabel | None = None
        self.copy_button: QPushButton | None = None
        if self.commands:
            row = QHBoxLayout()
            row.setSpacing(6)
            self.commands_label = make_label("\n".join(self.commands))
            self.commands_label.setFont(
                QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
            self.commands_label.setSizePolicy(QSizePolicy.Policy.Expanding,
                                              QSizePolicy.Policy.Preferred)
            row.addWidget(self.commands_label, 1)
            self.copy_button = QPushButton(button_text)
            self.copy_button.setToolTip(translate(
                "GpuVerdict", "Copy the commands to the clipboard, one per line"))
            # A click copies; the page does not scroll to the button when the window opens.
            self.copy_button.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
            self.copy_button.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
            self.copy_button.clicked.connect(self.copy)
            row.addWidget(self.copy_button, 0, Qt.AlignmentFlag.AlignTop)
            column.addLayout(row)

    def copy(self) -> None:
        copy_commands(self.commands)
        if self.copy_button is not None:
            self.copy_button.setText(translate("GpuVerdict", "Copied"))

    def texts(self) -> list[str]:
        texts = [self.words.text()] if self.words is not None else []
        if self.commands_label is not None:
            texts.append(self.commands_label.text())
        return texts


class VerdictLine(QWidget):
    """The card's verdict: one line, coloured by the GPU's state; when something blocks the
    GPU, its title with the fix and a Copy-commands button."""

    def __init__(self, glance: GpuGlance, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.glance = glance
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 2, 0, 2)
        column.setSpacing(3)
        self.plain = glance_text(glance)
        self.label = make_label(self.plain, bold=True, color=ERROR_COLOR
                                if glance.blocker is not None else None)
        if glance.blocker is None:
            self.label.setTextFormat(Qt.TextFormat.RichText)
            self.label.setText(_rich_parts(glance))
        column.addWidget(self.label)
        self.fix: FixBlock | None = None
        blocker = glance.blocker
        if blocker is not None:
            if blocker.finding is not None and blocker.finding.detail:
                self.label.setToolTip(core_text(blocker.finding.detail))
            if blocker.fix or blocker.fix_commands:
                self.fix = FixBlock(blocker.fix, blocker.fix_commands,
                                    button_text=translate("GpuVerdict", "Copy commands"))
                column.addWidget(self.fix)
        else:
            self.label.setToolTip(_parts_tooltip(glance))

    def text(self) -> str:
        """The line as plain text."""
        return self.plain

    def texts(self) -> list[str]:
        return [self.plain, *(self.fix.texts() if self.fix is not None else [])]


def _parts_tooltip(glance: GpuGlance) -> str:
    states = {LayerState.OK: translate("GpuVerdict", "works"),
              LayerState.WARNING: translate("GpuVerdict", "works, with a warning"),
              LayerState.BLOCKED: translate("GpuVerdict", "blocked"),
              LayerState.UNKNOWN: translate("GpuVerdict", "not checked"),
              LayerState.NOT_APPLICABLE: translate("GpuVerdict", "does not apply")}
    return "\n".join(f"{part_text(part)}: {states[part.state]}" for part in glance.parts)


class FindingLine(QWidget):
    """One warning or error about the GPU (or the machine): its mark and title, coloured by
    severity, the detail as its tooltip, and the fix in short."""

    def __init__(self, finding: Finding | None, *, verdict: FrameworkVerdict | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.finding = finding
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 2, 0, 2)
        column.setSpacing(2)
        if finding is not None:
            severity = finding.severity
            title, detail = core_text(finding.title), core_text(finding.detail)
            fix, commands = finding.fix, finding.fix_commands
        else:
            assert verdict is not None  # a framework verdict's caveat without a finding
            severity, title, detail = Severity.WARNING, verdict_text(verdict), ""
            fix, commands = verdict.fix, verdict.fix_commands
        color = ERROR_COLOR if severity is Severity.ERROR else WARN_COLOR
        self.title_label = make_label(f"{SEVERITY_MARKS.get(severity, '!')} {title}",
                                      bold=True, color=color, tooltip=detail or None)
        column.addWidget(self.title_label)
        self.fix: FixBlock | None = None
        if fix or commands:
            self.fix = FixBlock(fix, commands, button_text=translate("GpuVerdict", "Copy"))
            column.addWidget(self.fix)

    def texts(self) -> list[str]:
        return [self.title_label.text(), *(self.fix.texts() if self.fix is not None else [])]
