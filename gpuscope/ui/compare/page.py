"""The Compare page: cards side by side, from the knowledge base, from this machine, and from
reports other people shared.

The table is `gpuscope.report.compare_table` (the cards and prices) and
`gpuscope.report.compare_rows` (a cell per card and figure, with a colour role); this page draws
it in the theme's colours and Qt's language, highlights the best value of each row, and lets
the user add, import, remove and price cards. Under the table, the "What fits" panel
(ui/compare/what_fits.py) and a bar chart of one row.

The knowledge tables are loaded once, off the GUI thread, when the page is made. A report file
is read off the GUI thread by the Import button (and at most `MAX_REPORT_BYTES` of it);
`import_report(path)` reads it in place for callers that want the answer at once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPoint, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetrics,
    QIcon,
    QKeySequence,
    QPalette,
    QPixmap,
    QShortcut,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QCompleter,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QMenu,
    QPushButton,
    QSpinBox,
    QTableWidgetItem,
    QWidget,
)

from gpuscope.knowledge.compare import card_profile
from gpuscope.model import Gpu
from gpuscope.report.compare_import import (
    MAX_REPORT_BYTES,
    CompareImport,
    CompareImportFailure,
    ImportedReport,
    read_compare_report,
)
from gpuscope.report.compare_rows import CHART_ROWS, ROWS, SECTION_TITLES, price_cell, row_positions
from gpuscope.report.compare_table import (
    MAX_CARDS,
    Better,
    ColorRole,
    CompareCard,
    CompareTable,
    Row,
    best_columns,
    card_tooltip,
    import_message,
    row_label,
    row_tooltip,
    warm_knowledge,
)
from gpuscope.report.formatting import MISSING
from gpuscope.ui.compare.what_fits import FitCard, FittedTable, WhatFitsPanel, tint, titled_column
from gpuscope.ui.doctor_loader import BackgroundTask
from gpuscope.ui.i18n import QT_TRANSLATE_NOOP, translate
from gpuscope.ui.theme import ERROR_COLOR, MUTED_COLOR, OK_COLOR, WARN_COLOR, gpu_color
from gpuscope.ui.widgets import PlotPanel, make_label, plain_tooltip, scrolling_page

MAX_PRICE_USD = 1_000_000
PRICE_STEP_USD = 50
REPORT_FILTER = QT_TRANSLATE_NOOP("ComparePage", "gpuscope reports (*.json);;All files (*)")
_LABEL_WIDTH = 232
_CARD_WIDTH = 168
_MAX_CARD_WIDTH = 260
_HEADER_PADDING = 40  # the colour swatch, its gap and the section's margins
_ROW_HEIGHT = 26
CHART_HEIGHT = 230
ROLE_COLORS: dict[ColorRole, QColor] = {
    ColorRole.OK: OK_COLOR, ColorRole.WARNING: WARN_COLOR, ColorRole.ERROR: ERROR_COLOR,
    ColorRole.MUTED: MUTED_COLOR,
}


def _button(row: QHBoxLayout, text: str, slot: Callable[[], object],
            tooltip: str = "") -> QPushButton:
    button = QPushButton(text)
    if tooltip:
        button.setToolTip(plain_tooltip(tooltip))
    button.clicked.connect(slot)
    row.addWidget(button)
    return button


def _swatch(color: QColor, size: int = 12) -> QIcon:
    pixmap = QPixmap(size, size)
    pixmap.fill(color)
    return QIcon(pixmap)


# ----------------------------------------------------------------------------- the chart


class BarChart(PlotPanel):
    """One row of the table as bars, one per card in its colour."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        column, header = titled_column(self, self.tr("Chart"))
        self.metric_box = QComboBox()
        for row in ROWS:
            if row.key in CHART_ROWS:
                self.metric_box.addItem(row_label(row, translate), row.key)
        self.metric_box.setCurrentIndex(max(0, self.metric_box.findData("fp16_pytorch")))
        header.addWidget(self.metric_box)
        self.better_label = make_label("", color=MUTED_COLOR, wrap=False)
        header.addWidget(self.better_label)
        header.addStretch(1)
        column.addLayout(header)
        self.plot = pg.PlotWidget()
        self.plot.setFixedHeight(CHART_HEIGHT)
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.getPlotItem().showGrid(x=False, y=True, alpha=0.18)
        column.addWidget(self.plot)
        self._bars: list[tuple[str, QColor, float | None, str]] = []
        self._unit = ""
        self._apply_palette()

    @property
    def chart_metric(self) -> str:
        data = self.metric_box.currentData()
        return str(data) if data is not None else CHART_ROWS[0]

    def set_metric(self, key: str) -> None:
        index = self.metric_box.findData(key)
        if index < 0:
            raise ValueError(f"no chart for {key!r}; one of {CHART_ROWS}")
        self.metric_box.setCurrentIndex(index)

    def set_bars(self, bars: Sequence[tuple[str, QColor, float | None, str]], unit: str,
                 better: Better) -> None:
        """(label, colour, value or None, value text) per card."""
        self._bars = list(bars)
        self._unit = unit
        self.better_label.setText({Better.HIGHER: self.tr("higher is better"),
                                   Better.LOWER: self.tr("lower is better")}.get(better, ""))
        self._draw()

    def values(self) -> list[float | None]:
        return [value for _, _, value, _ in self._bars]

    def _draw(self) -> None:
        plot = self.plot.getPlotItem()
        plot.clear()
        bars = self._bars
        foreground = self.palette().color(QPalette.ColorRole.Text)
        known = [value for _, _, value, _ in bars if value is not None]
        top = max(known) if known else 1.0
        for index, (_label, color, value, text) in enumerate(bars):
            if value is None:
                label = pg.TextItem(MISSING + " " + self.tr("no figure"), color=MUTED_COLOR,
                                    anchor=(0.5, 1.0))
                label.setPos(index, top * 0.02)
                plot.addItem(label)
                continue
            item = pg.BarGraphItem(x=[index], height=[value], width=0.6, brush=color,
                                   pen=pg.mkPen(color.darker(130)))
            plot.addItem(item)
            label = pg.TextItem(text, color=foreground, anchor=(0.5, 1.0))
            label.setPos(index, value)
            plot.addItem(label)
        axis = plot.getAxis("bottom")
        axis.setTicks([[(i, label) for i, (label, _, _, _) in enumerate(bars)]])
        plot.getAxis("left").setLabel(self._unit)
        plot.setXRange(-0.6, max(0, len(bars) - 1) + 0.6, padding=0)
        plot.setYRange(0, top * 1.18, padding=0)


# ----------------------------------------------------------------------------- the page


class ComparePage(QWidget):
    """Cards side by side. `set_machine_gpus` puts this machine's cards first; `add_card`
    adds one from the knowledge base; `import_report` adds the cards of a shared report."""

    cards_changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._table = CompareTable()
        self._price_boxes: dict[str, QSpinBox] = {}
        self._catalogue: tuple[tuple[str, str], ...] = ()

        self.scroll_area, column, self.summary = scrolling_page(self, self.tr("Compare"))
        column.setSpacing(10)

        picker_row = QHBoxLayout()
        picker_row.setSpacing(6)
        self.picker = QComboBox()
        self.picker.setEditable(True)
        self.picker.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.picker.setMinimumWidth(320)
        self.picker.setMaxVisibleItems(16)
        self.picker.setEnabled(False)
        line_edit = self.picker.lineEdit()
        if line_edit is not None:
            line_edit.setPlaceholderText(self.tr("Loading the card list…"))
            line_edit.returnPressed.connect(self._add_picked)
        self.picker.setToolTip(plain_tooltip(self.tr(
            "Type part of a name (\"7900\", \"4090\", \"MI300\") and press Enter or Add.")))
        picker_row.addWidget(self.picker, 1)
        self.add_button = _button(picker_row, self.tr("Add"), self._add_picked)
        self.add_button.setEnabled(False)
        self.import_button = _button(picker_row, self.tr("Import report…"), self._choose_report,
                                     self.tr("Add the GPUs and benchmark results of a report "
                                             "someone shared (the JSON of 'gpuscope report "
                                             "--format json')."))
        picker_row.addSpacing(16)
        self.remove_button = _button(picker_row, self.tr("Remove card"), self.remove_selected,
                                     self.tr("Remove the selected cards (click a column's "
                                             "heading to select it; Delete)."))
        self.reset_prices_button = _button(picker_row, self.tr("Launch prices"),
                                           self.reset_prices, self.tr(
                                               "Put every price back to the card's launch "
                                               "price."))
        self.clear_button = _button(picker_row, self.tr("Clear"), self.clear)
        column.addLayout(picker_row)

        # What an action said, the notes of the last import, and the page's empty state.
        self.message, self.notes = make_label(""), make_label("", color=MUTED_COLOR)
        self.empty_label = make_label(self.tr(
            "No cards yet. Pick one above and press Add, or import a report someone shared "
            "(gpuscope report --format json)."), color=MUTED_COLOR)
        for label in (self.message, self.notes, self.empty_label):
            column.addWidget(label)
        self.message.hide()
        self.notes.hide()

        self.table = FittedTable()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectColumns)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setWordWrap(False)
        self.table.setAlternatingRowColors(False)
        self.table.setShowGrid(False)
        vertical = self.table.verticalHeader()
        vertical.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        vertical.setDefaultSectionSize(_ROW_HEIGHT)
        vertical.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        vertical.setFixedWidth(_LABEL_WIDTH)
        horizontal = self.table.horizontalHeader()
        horizontal.setDefaultAlignment(Qt.AlignmentFlag.AlignCenter)
        horizontal.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        horizontal.setDefaultSectionSize(_CARD_WIDTH)
        horizontal.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        horizontal.customContextMenuRequested.connect(self._header_menu)
        selection = self.table.selectionModel()
        selection.selectionChanged.connect(self._on_selection)
        column.addWidget(self.table)
        self.footnote = make_label(self.tr(
            "Best value of each row highlighted. — : not known (hover for why). * GeForce "
            "datasheets quote FP16 with FP16 accumulate."), color=MUTED_COLOR)
        column.addWidget(self.footnote)

        self.what_fits = WhatFitsPanel()
        column.addSpacing(6)
        column.addWidget(self.what_fits)
        self.chart = BarChart()
        self.chart.metric_box.currentIndexChanged.connect(lambda _i: self._update_chart())
        column.addSpacing(6)
        column.addWidget(self.chart)
        column.addStretch(1)

        delete = QShortcut(QKeySequence(QKeySequence.StandardKey.Delete), self.table)
        delete.activated.connect(self.remove_selected)

        self._knowledge_task = BackgroundTask("compare-knowledge", parent=self)
        self._knowledge_task.done.connect(self._on_catalogue)
        self._knowledge_task.failed.connect(self._on_catalogue_failed)
        self._import_task = BackgroundTask("compare-import", parent=self)
        self._import_task.done.connect(self._on_import_read)
        self._import_task.failed.connect(lambda reason: self._show_message(
            self.tr("Could not import the report: {reason}").format(reason=reason),
            error=True))
        self._knowledge_task.start(warm_knowledge)
        self._render()

    # ------------------------------------------------------------------ public API

    @property
    def cards(self) -> tuple[CompareCard, ...]:
        return tuple(self._cards)

    @property
    def _cards(self) -> list[CompareCard]:
        return self._table.cards

    @property
    def catalogue_ready(self) -> bool:
        return bool(self._catalogue)

    @property
    def is_importing(self) -> bool:
        return self._import_task.is_running

    def card_names(self) -> list[str]:
        return [card.profile.name for card in self._cards]

    def set_machine_gpus(self, gpus: Sequence[Gpu]) -> None:
        """Put this machine's GPUs first (identical GPUs as one card), replacing the machine
        cards shown before; unchanged GPUs leave the page as it is."""
        if self._table.set_machine_gpus(gpus):
            self._changed()

    def add_card(self, name: str) -> str | None:
        """Add the card the knowledge base calls `name` ("RX 7900 XTX", "RTX 4090"); the
        reason when it cannot (not in the table, too many cards). A card already shown (from
        the table or this machine) is selected instead."""
        text = name.strip()
        profile = card_profile(text) if text else None
        if profile is None:
            reason = (self.tr("\"{name}\" is not in gpuscope's knowledge base; pick a name "
                              "from the list.").format(name=text) if text
                      else self.tr("Type or pick a card first."))
            self._show_message(reason, error=True)
            return reason
        shown = self._table.column_of(profile)
        if shown is not None:
            self.table.selectColumn(shown)
            self._show_message(None)
            return None
        if len(self._cards) >= MAX_CARDS:
            reason = self.tr("At most {count} cards side by side: remove one first.").format(
                count=MAX_CARDS)
            self._show_message(reason, error=True)
            return reason
        self._table.add_knowledge_card(profile)
        self._show_message(None)
        self._changed()
        return None

    def import_report(self, path: str) -> str | None:
        """Add the cards of the report at `path` (read now, at most MAX_REPORT_BYTES); the
        reason when it cannot be used. Importing a file again replaces its cards."""
        return self._add_imported(read_compare_report(path))

    def import_report_async(self, path: str) -> None:
        """Read the report at `path` off the GUI thread, then add its cards (the Import
        button's way)."""
        self._show_message(self.tr("Reading {path}…").format(path=path))
        self._import_task.start(read_compare_report, path, MAX_REPORT_BYTES)

    def remove_card(self, index: int) -> None:
        if 0 <= index < len(self._cards):
            self._table.remove([index])
            self._changed()

    def remove_selected(self) -> None:
        columns = self._selected_columns()
        if not columns:
            self._show_message(self.tr("Select a card first: click its column's heading."),
                               error=True)
            return
        self._table.remove(columns)
        self._show_message(None)
        self._changed()

    def clear(self) -> None:
        self._table.clear()
        self._show_message(None)
        self.notes.hide()
        self._changed()

    def set_price(self, index: int, price_usd: float | None) -> None:
        """The price of card `index` (None: back to its launch price)."""
        card = self._cards[index]
        self._table.set_price(card.key, price_usd)
        box = self._price_boxes.get(card.key)
        if box is not None:
            box.blockSignals(True)
            box.setValue(round(self._table.priced(card).price.price_usd or 0))
            box.blockSignals(False)
        self._refresh_price_rows()

    def reset_prices(self) -> None:
        self._table.prices.clear()
        self._render_table()
        self._update_chart()

    def price_box(self, index: int) -> QSpinBox:
        return self._price_boxes[self._cards[index].key]

    def row_index(self, key: str) -> int:
        """The table row of ROWS' `key` ("vram", "cuda_cc", "usd_per_fp16", ...)."""
        return row_positions()[key]

    def cell(self, key: str, index: int) -> QTableWidgetItem | None:
        return self.table.item(self.row_index(key), index)

    def cell_text(self, key: str, index: int) -> str:
        item = self.cell(key, index)
        return item.text() if item is not None else ""

    def is_best(self, key: str, index: int) -> bool:
        item = self.cell(key, index)
        return bool(item is not None and item.data(Qt.ItemDataRole.UserRole + 1))

    # ------------------------------------------------------------------ the table

    def _changed(self) -> None:
        self._render()
        self.cards_changed.emit()

    def _render(self) -> None:
        count = len(self._cards)
        self.empty_label.setVisible(count == 0)
        self.table.setVisible(count > 0)
        self.footnote.setVisible(count > 0)
        self.chart.setVisible(count > 0)
        self.remove_button.setEnabled(count > 0)
        self.clear_button.setEnabled(count > 0)
        self.reset_prices_button.setEnabled(count > 0)
        self.summary.setText(self._table.summary(translate))
        self._render_table()
        self._update_what_fits()
        self._update_chart()

    def _render_table(self) -> None:
        table = self.table
        cards = self._cards
        table.clearSpans()
        table.clear()
        self._price_boxes.clear()
        positions = row_positions()
        table.setColumnCount(len(cards))
        table.setRowCount(max(positions.values()) + 1 if positions else 0)
        palette = self.palette()
        section_brush = QBrush(palette.color(QPalette.ColorRole.AlternateBase))
        bold = QFont(table.font())
        bold.setBold(True)

        metrics = QFontMetrics(bold)
        for index, card in enumerate(cards):
            # A column as wide as its heading (a long report file name is cut in the middle,
            # in full in the tooltip).
            room = _MAX_CARD_WIDTH - _HEADER_PADDING
            lines = [metrics.elidedText(text, Qt.TextElideMode.ElideMiddle, room)
                     for text in (card.short_name, card.origin_label(translate))]
            header = QTableWidgetItem("\n".join(lines))
            header.setIcon(_swatch(gpu_color(index)))
            header.setToolTip(plain_tooltip(card_tooltip(card, translate)))
            header.setFont(bold)
            table.setHorizontalHeaderItem(index, header)
            needed = max(metrics.horizontalAdvance(line) for line in lines) + _HEADER_PADDING
            table.setColumnWidth(index, max(_CARD_WIDTH, min(_MAX_CARD_WIDTH, needed)))

        section = None
        for spec in ROWS:
            if spec.section != section:
                section = spec.section
                row = positions[spec.key] - 1
                title = QTableWidgetItem(self.tr(SECTION_TITLES[section]))
                title.setFont(bold)
                title.setBackground(section_brush)
                table.setVerticalHeaderItem(row, title)
                for column in range(len(cards)):
                    filler = QTableWidgetItem("")
                    filler.setBackground(section_brush)
                    filler.setFlags(Qt.ItemFlag.NoItemFlags)
                    table.setItem(row, column, filler)
                if len(cards) > 1:
                    table.setSpan(row, 0, 1, len(cards))
            label = QTableWidgetItem(row_label(spec, translate))
            label.setToolTip(plain_tooltip(row_tooltip(spec, translate)))
            table.setVerticalHeaderItem(positions[spec.key], label)
            self._fill_row(spec, positions[spec.key])
        for index, card in enumerate(cards):
            table.setCellWidget(positions["price"], index, self._make_price_box(card))
        table.fit_height()

    def _fill_row(self, spec: Row, row: int) -> None:
        cells = self._table.cells(spec, translate)
        best = best_columns([c.value for c in cells], spec.better)
        best_brush = tint(OK_COLOR, 56)
        for column, cell in enumerate(cells):
            item = QTableWidgetItem(cell.text)
            item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
            if cell.tooltip:
                item.setToolTip(plain_tooltip(cell.tooltip))
            role = cell.shown_role
            if role is not None:
                item.setForeground(QBrush(ROLE_COLORS[role]))
            if column in best:
                item.setBackground(best_brush)
                font = QFont(self.table.font())
                font.setBold(True)
                item.setFont(font)
                item.setData(Qt.ItemDataRole.UserRole + 1, True)
                best_words = (self.tr("Best of the cards shown (higher is better)")
                              if spec.better is Better.HIGHER
                              else self.tr("Best of the cards shown (lower is better)"))
                item.setToolTip(plain_tooltip(best_words + "\n" + cell.tooltip))
            self.table.setItem(row, column, item)

    def _make_price_box(self, card: CompareCard) -> QSpinBox:
        box = QSpinBox()
        box.setRange(0, MAX_PRICE_USD)
        box.setSingleStep(PRICE_STEP_USD)
        box.setPrefix("$ ")
        box.setGroupSeparatorShown(True)
        box.setSpecialValueText(self.tr("no price"))
        box.setAlignment(Qt.AlignmentFlag.AlignCenter)
        box.setFrame(False)
        price = self._table.priced(card).price.price_usd
        box.setValue(round(price) if price is not None else 0)
        box.setToolTip(self._price_tooltip(card))
        box.setKeyboardTracking(True)  # every keystroke recomputes the rows below
        key = card.key
        box.valueChanged.connect(lambda value, key=key: self._on_price_edited(key, value))
        self._price_boxes[key] = box
        return box

    def _price_tooltip(self, card: CompareCard) -> str:
        return plain_tooltip(price_cell(card, self._table.priced(card), translate).tooltip
                             + "\n" + self.tr("Type your price; 0 means no price."))

    def _on_price_edited(self, key: str, value: int) -> None:
        card = next((c for c in self._cards if c.key == key), None)
        if card is None:
            return
        self._table.edit_price(key, value)
        box = self._price_boxes.get(key)
        if box is not None:
            box.setToolTip(self._price_tooltip(card))
        self._refresh_price_rows()

    def _refresh_price_rows(self) -> None:
        positions = row_positions()
        for spec in ROWS:
            if spec.price_dependent and spec.key != "price":
                self._fill_row(spec, positions[spec.key])
        if self.chart.chart_metric in {r.key for r in ROWS if r.price_dependent}:
            self._update_chart()

    # ------------------------------------------------------------------ selection, menus

    def _selected_columns(self) -> set[int]:
        model = self.table.selectionModel()
        return {index.column() for index in model.selectedColumns()} | {
            index.column() for index in model.selectedIndexes()}

    def _on_selection(self, *_args: object) -> None:
        self._update_what_fits()

    def _header_menu(self, point: QPoint) -> None:
        column = self.table.horizontalHeader().logicalIndexAt(point)
        if not 0 <= column < len(self._cards):
            return
        menu = QMenu(self)
        remove = menu.addAction(self.tr("Remove {name}").format(
            name=self._cards[column].short_name))
        remove.triggered.connect(lambda: self.remove_card(column))
        menu.popup(self.table.horizontalHeader().mapToGlobal(point))

    # ------------------------------------------------------------------ panels

    def _update_what_fits(self) -> None:
        selected = sorted(c for c in self._selected_columns() if c < len(self._cards))
        columns = selected or list(range(len(self._cards)))
        fit_cards = [FitCard(self._cards[i].short_name, self._cards[i].profile.datasheet.vram_bytes,
                             gpu_color(i)) for i in columns]
        if not self._cards:
            scope = ""
        elif selected:
            scope = self.tr("For the selected cards (click a heading to pick others).")
        else:
            scope = (self.tr("For every card in the table; select columns to narrow it.")
                     if len(self._cards) > 1 else "")
        self.what_fits.set_cards(fit_cards, scope)

    def _update_chart(self) -> None:
        key = self.chart.chart_metric
        spec = next(r for r in ROWS if r.key == key)
        bars: list[tuple[str, QColor, float | None, str]] = []
        for index, card in enumerate(self._cards):
            cell = spec.cell(card, self._table.priced(card), translate)
            text = cell.text.split(" · ")[0] if cell.value is not None else MISSING
            bars.append((card.short_name, gpu_color(index), cell.value, text))
        self.chart.set_bars(bars, spec.unit, spec.better)

    # ------------------------------------------------------------------ importing

    def _choose_report(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Import a gpuscope report"), "",
                                              self.tr(REPORT_FILTER))
        if path:
            self.import_report_async(path)

    def _on_import_read(self, outcome: object) -> None:
        if isinstance(outcome, (ImportedReport, CompareImportFailure)):
            self._add_imported(outcome)

    def _add_imported(self, outcome: CompareImport) -> str | None:
        if isinstance(outcome, CompareImportFailure):
            self._show_message(self.tr("Could not import: {reason}").format(
                reason=outcome.reason), error=True)
            return outcome.reason
        if not outcome.cards:
            self._show_message(self.tr("{source} is a report of a machine without a GPU: no "
                                       "card to add.").format(source=outcome.source))
            return None
        new = self._table.add_imported(outcome)
        if new is None:
            reason = self.tr("{source}: adding its {count} card(s) would make more than "
                             "{most}; remove some first.").format(
                source=outcome.source, count=len(outcome.cards), most=MAX_CARDS)
            self._show_message(reason, error=True)
            return reason
        self._show_message(import_message(outcome, new, translate))
        if outcome.notes:
            self.notes.setText(self.tr("From {source}: {notes}.").format(
                source=outcome.source, notes="; ".join(outcome.notes)))
            self.notes.show()
        else:
            self.notes.hide()
        self._changed()
        return None

    # ------------------------------------------------------------------ misc

    def _add_picked(self) -> None:
        text = self.picker.currentText().strip()
        index = self.picker.findText(text, Qt.MatchFlag.MatchFixedString)
        data = self.picker.itemData(index) if index >= 0 else None
        name = str(data) if data else text.split(" (")[0]
        if self.add_card(name) is None:
            self.picker.setCurrentIndex(-1)
            self.picker.clearEditText()

    def _on_catalogue(self, catalogue: object) -> None:
        if not isinstance(catalogue, tuple):
            return
        self._catalogue = catalogue
        self.picker.clear()
        for name, label in catalogue:
            self.picker.addItem(label, name)
        completer = QCompleter([label for _, label in catalogue], self.picker)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        self.picker.setCompleter(completer)
        self.picker.setCurrentIndex(-1)
        self.picker.setEnabled(True)
        self.add_button.setEnabled(True)
        line_edit = self.picker.lineEdit()
        if line_edit is not None:
            line_edit.setPlaceholderText(self.tr("Search {count} cards…").format(
                count=len(catalogue)))

    def _on_catalogue_failed(self, reason: str) -> None:
        self._show_message(self.tr("The knowledge base could not be loaded: {reason}").format(
            reason=reason), error=True)

    def _show_message(self, text: str | None, *, error: bool = False) -> None:
        if not text:
            self.message.hide()
            return
        self.message.setText(text)
        color = ERROR_COLOR if error else self.palette().color(QPalette.ColorRole.WindowText)
        self.message.setStyleSheet(f"color: {color.name()};")
        self.message.show()

    def message_text(self) -> str:
        return self.message.text() if not self.message.isHidden() else ""

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and hasattr(self, "chart"):
            self._render_table()

