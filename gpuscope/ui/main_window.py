"""The main window: a sidebar of pages, a replay banner, and probe progress in the status bar.

Only the Overview page is built so far; every other page says plainly what it will hold.
"""

from __future__ import annotations

import datetime as _dt
import os
from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from gpuscope.evidence import ReplaySystem, System
from gpuscope.inventory import DEFAULT_PROBE_TIMEOUT_S, PROBES, ProbeSpec
from gpuscope.model import Inventory, Origin, OriginKind, ProbeState
from gpuscope.ui.loader import InventoryLoader
from gpuscope.ui.overview_page import OverviewPage, plain_tooltip
from gpuscope.ui.theme import BANNER_BACKGROUND, BANNER_TEXT, MUTED_COLOR

PAGE_NAMES: tuple[str, ...] = (
    "Overview", "Stack", "Frameworks", "Telemetry", "Benchmarks", "Compare", "Report",
)
# What each page not built yet will hold; shown on the page so it never pretends to work.
PLACEHOLDERS: dict[str, str] = {
    "Stack": "Stack: kernel driver, ROCm, CUDA and library versions, the device nodes and "
             "whether you may open them",
    "Frameworks": "Frameworks: which Python environments have PyTorch and friends, built for "
                  "which GPU stack, and which GPUs each one sees",
    "Telemetry": "Telemetry: live charts of every GPU",
    "Benchmarks": "Benchmarks: short, safe measurements of each GPU through a framework",
    "Compare": "Compare: two inventories or snapshots side by side",
    "Report": "Report: this machine as a PNG, HTML, Markdown or JSON report to share",
}
COMING_LATER = " — coming in a later release"


def replay_banner_text(origin: Origin) -> str | None:
    """The banner for a replayed or imported inventory; None when live."""
    if origin.kind is OriginKind.LIVE:
        return None
    name = os.path.basename(origin.source) if origin.source else "a snapshot"
    what = "Replay" if origin.kind is OriginKind.REPLAY else "Import"
    when = _format_captured(origin.captured_utc) if origin.captured_utc else None
    version = origin.gpuscope_version
    if when and version:
        captured = f"captured {when} by gpuscope {version}"
    elif when:
        captured = f"captured {when} (gpuscope version not recorded)"
    elif version:
        captured = f"captured by gpuscope {version} (date not recorded)"
    else:
        captured = "capture date and gpuscope version not recorded"
    return f"{what} of {name} — {captured}; nothing here is live"


def _format_captured(captured_utc: str) -> str:
    text = captured_utc.strip()
    try:
        moment = _dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return text
    if moment.tzinfo is not None:
        moment = moment.astimezone(_dt.timezone.utc)
        return moment.strftime("%Y-%m-%d %H:%M UTC")
    return moment.strftime("%Y-%m-%d %H:%M")


def _placeholder_page(name: str) -> QWidget:
    page = QWidget()
    layout = QVBoxLayout(page)
    layout.setContentsMargins(28, 28, 28, 28)
    title = QLabel(name)
    font = title.font()
    font.setPointSizeF(font.pointSizeF() * 1.3)
    font.setBold(True)
    title.setFont(font)
    text = QLabel(PLACEHOLDERS.get(name, name) + COMING_LATER)
    text.setObjectName("placeholderText")
    text.setWordWrap(True)
    note = QLabel("Not built yet: nothing on this page is working in this release.")
    note.setStyleSheet(f"color: {MUTED_COLOR.name()};")
    layout.addWidget(title)
    layout.addWidget(text)
    layout.addWidget(note)
    layout.addStretch(1)
    return page


class MainWindow(QMainWindow):
    """gpuscope's window over one `system` (live or replayed). The probes start at once, off
    the GUI thread; the Overview fills in as each one answers."""

    def __init__(
        self,
        system: System,
        probes: Sequence[ProbeSpec] = PROBES,
        probe_timeout_s: float = DEFAULT_PROBE_TIMEOUT_S,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("gpuscope")
        self.resize(1100, 750)
        self.loader = InventoryLoader(system, probes, probe_timeout_s, parent=self)
        self._snapshot_description: str | None = None
        if isinstance(system, ReplaySystem):
            description = system.snapshot.meta.get("description")
            self._snapshot_description = str(description) if description else None

        central = QWidget()
        column = QVBoxLayout(central)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)

        self.banner = QLabel()
        self.banner.setObjectName("replayBanner")
        self.banner.setTextFormat(Qt.TextFormat.PlainText)
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet(
            f"QLabel#replayBanner {{ background: {BANNER_BACKGROUND.name()};"
            f" color: {BANNER_TEXT.name()}; padding: 7px 12px; font-weight: bold; }}"
        )
        column.addWidget(self.banner)

        body = QHBoxLayout()
        body.setContentsMargins(0, 0, 0, 0)
        body.setSpacing(0)
        self.sidebar = QListWidget()
        self.sidebar.setObjectName("sidebar")
        self.sidebar.setFixedWidth(170)
        self.sidebar.setStyleSheet(
            "QListWidget#sidebar { border: none; border-right: 1px solid palette(mid);"
            " padding-top: 6px; }"
            " QListWidget#sidebar::item { padding: 7px 12px; }"
        )
        self.pages = QStackedWidget()
        self.overview_page = OverviewPage(probes)
        for name in PAGE_NAMES:
            item = QListWidgetItem(name)
            if name == "Overview":
                self.pages.addWidget(self.overview_page)
            else:
                item.setForeground(MUTED_COLOR)
                item.setToolTip(PLACEHOLDERS.get(name, name) + COMING_LATER)
                self.pages.addWidget(_placeholder_page(name))
            self.sidebar.addItem(item)
        self.sidebar.currentRowChanged.connect(self.pages.setCurrentIndex)
        self.sidebar.setCurrentRow(0)
        body.addWidget(self.sidebar)
        body.addWidget(self.pages, 1)
        column.addLayout(body, 1)
        self.setCentralWidget(central)

        self.progress_label = QLabel()
        self.statusBar().addWidget(self.progress_label, 1)

        self.loader.inventory_changed.connect(self._on_inventory)
        self.loader.probe_finished.connect(self._update_progress)
        self.loader.finished.connect(self._update_progress)
        self.loader.start()
        self._on_inventory(self.loader.inventory)
        self._update_progress()

    # ------------------------------------------------------------------ public

    @property
    def inventory(self) -> Inventory:
        return self.loader.inventory

    def page_names(self) -> tuple[str, ...]:
        return PAGE_NAMES

    def select_page(self, name: str) -> None:
        """Show the page called `name` (case-insensitive); ValueError if there is none."""
        names = [page.lower() for page in PAGE_NAMES]
        try:
            row = names.index(name.lower())
        except ValueError:
            raise ValueError(f"no page {name!r}; pages: {', '.join(PAGE_NAMES)}") from None
        self.sidebar.setCurrentRow(row)

    def current_page_name(self) -> str:
        return PAGE_NAMES[self.pages.currentIndex()]

    def shutdown(self) -> None:
        """Stop listening to the probes; safe to call more than once."""
        self.loader.cancel()

    # ------------------------------------------------------------------ events

    def closeEvent(self, event: QCloseEvent) -> None:
        self.shutdown()
        super().closeEvent(event)

    def _on_inventory(self, inventory: object) -> None:
        if not isinstance(inventory, Inventory):
            return
        banner = replay_banner_text(inventory.origin)
        self.banner.setText(banner or "")
        about = "\n".join(
            text for text in (inventory.origin.source, self._snapshot_description) if text)
        self.banner.setToolTip(plain_tooltip(about) if about else "")
        self.banner.setVisible(banner is not None)
        title = "gpuscope"
        if inventory.origin.kind is not OriginKind.LIVE:
            title += f" — {inventory.origin.label}"
        self.setWindowTitle(title)
        self.overview_page.set_inventory(inventory, self.loader.pending)

    def _update_progress(self, _name: str | None = None) -> None:
        done, total = self.loader.finished_count, self.loader.total
        text = f"{done} of {total} probes finished"
        if not self.loader.is_running and done == total:
            timed_out = sum(1 for status in self.loader.inventory.probes
                            if status.state is ProbeState.TIMEOUT)
            if timed_out:
                text += f" ({timed_out} timed out)"
        self.progress_label.setText(text)
