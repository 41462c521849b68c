"""The Compare page: cards side by side, from the knowledge base, from this machine, and from
reports other people shared.

The table is `gpuscope.report.compare_table` (the cards and prices) and
`gpuscope.report.compare_rows` (a cell per card and figure, with a colour role); this page draws
it in the theme's colours and Qt's language, highlights the best value of each row, and lets
the user add, import, remove and price cards. Under the table, the "What fits" panel
(ui/compare/what_fits.py) and a bar chart of one row (ui/compare/chart.py).

Before the user picks anything the page shows this machine's cards and the two cards most
worth comparing them with, or a reference pair without a GPU (`gpuscope.app.compare_defaults`
says how they are chosen). Prices are in the currency the user picks
(`gpuscope.app.prices`); `price_book` and `prices_changed` let the window keep them in the
settings file.

The knowledge tables are loaded once, off the GUI thread, when the page is made. A report file
is read off the GUI thread by the Import button (and at most `MAX_REPORT_BYTES` of it);
`import_report(path)` reads it in place for callers that want the answer at once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QEvent, QPoint, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QKeySequence,
    QPalette,
    QShortcut,
)
from PySide6.QtWidgets import (
    QComboBox,
    QCompleter,
    QFileDialog,
    QHBoxLayout,
    QMenu,
    QPushButton,
    QSpinBox,
    QTableWidgetItem,
    QWidget,
)

from gpuscope.app.compare_defaults import suggested_specs
from gpuscope.app.price_rows import (
    PRICE_ROW,
    PRICE_ROW_KEYS,
    PriceView,
    mixed_currency_note,
    price_row_label,
)
from gpuscope.app.prices import USD, PriceBook
from gpuscope.knowledge.compare import card_profile
from gpuscope.model import Gpu
from gpuscope.report.compare_import import (
    MAX_REPORT_BYTES,
    CompareImport,
    CompareImportFailure,
    ImportedReport,
    read_compare_report,
)
from gpuscope.report.compare_rows import ROWS, SECTION_TITLES, row_positions
from gpuscope.report.compare_table import (
    MAX_CARDS,
    CardOrigin,
    Cell,
    CompareCard,
    CompareTable,
    Row,
    card_tooltip,
    import_message,
    row_label,
    row_tooltip,
    warm_knowledge,
)
from gpuscope.report.formatting import MISSING
from gpuscope.report.what_fits import LlmObservation
from gpuscope.ui.compare.card_table import BEST_ROLE, CardTable
from gpuscope.ui.compare.chart import BarChart
from gpuscope.ui.compare.price_editor import PriceControls, edited_amount, price_box
from gpuscope.ui.compare.remote_import import RemoteResults
from gpuscope.ui.compare.what_fits import FitCard, WhatFitsPanel
from gpuscope.ui.doctor_loader import BackgroundTask
from gpuscope.ui.i18n import QT_TRANSLATE_NOOP, translate
from gpuscope.ui.theme import ERROR_COLOR, MUTED_COLOR, WARN_COLOR, gpu_color
from gpuscope.ui.widgets import make_label, plain_tooltip, scrolling_page

REPORT_FILTER = QT_TRANSLATE_NOOP("ComparePage", "gpuscope reports (*.json);;All files (*)")


def _button(row: QHBoxLayout, text: str, slot: Callable[[], object],
            tooltip: str = "") -> QPushButton:
    button = QPushButton(text)
    if tooltip:
        button.setToolTip(plain_tooltip(tooltip))
    button.clicked.connect(slot)
    row.addWidget(button)
    return button


class ComparePage(QWidget):
    """Cards side by side. `set_machine_gpus` puts this machine's cards first, with suggested
    peers until the user picks cards; `add_card` adds one from the knowledge base;
    `import_report` adds the cards of a shared report. `prices_changed` carries the
    `PriceBook` whenever a price or the currency changes (the window keeps it)."""

    cards_changed = Signal()
    prices_changed = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._table = CompareTable()
        self._book = PriceBook()
        self._price_boxes: dict[str, QSpinBox] = {}
        self._catalogue: tuple[tuple[str, str], ...] = ()
        # Until the user adds, removes or imports a card, the page shows suggestions: card
        # key -> why it is shown. `_machine_known`: set_machine_gpus has been called.
        self._suggesting = True
        self._suggested: dict[str, str] = {}
        self._machine_known = False

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
        self.remote_results = RemoteResults(self._add_imported, self._show_message, self)
        picker_row.addWidget(self.remote_results.button)
        picker_row.addSpacing(16)
        self.remove_button = _button(picker_row, self.tr("Remove card"), self.remove_selected,
                                     self.tr("Remove the selected cards (click a column's "
                                             "heading to select it; Delete)."))
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

        self.table = CardTable()
        self.table.horizontalHeader().customContextMenuRequested.connect(self._header_menu)
        selection = self.table.selectionModel()
        selection.selectionChanged.connect(self._on_selection)
        column.addWidget(self.table)
        self.price_controls = PriceControls(self.tr(
            "Best value of each row highlighted. — : not known (hover for why). * GeForce "
            "datasheets quote FP16 with FP16 accumulate."))
        self.footnote = self.price_controls.footnote
        self.reset_prices_button = self.price_controls.reset_button
        self.price_controls.currency_changed.connect(self.set_currency)
        self.price_controls.reset_requested.connect(self.reset_prices)
        column.addWidget(self.price_controls)
        # Why the price rows are not ranked, when the cards are priced in several currencies.
        self.price_note = make_label("", color=WARN_COLOR)
        self.price_note.hide()
        column.addWidget(self.price_note)

        self.what_fits = WhatFitsPanel()
        self._decode_ratios: dict[str, float] = {}  # card name -> measured ceiling ratio
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
        cards shown before; unchanged GPUs leave the page as it is. Until the user picks
        cards, the suggested peers follow the machine's cards (none: a reference pair)."""
        changed = self._table.set_machine_gpus(gpus)
        first = not self._machine_known
        self._machine_known = True
        if self._suggesting and (changed or first):
            self._suggest()
            changed = True
        if changed:
            self._changed()

    @property
    def is_suggesting(self) -> bool:
        """Whether the cards beside this machine's are still the page's suggestions."""
        return self._suggesting

    def is_suggested(self, index: int) -> bool:
        return 0 <= index < len(self._cards) and self._cards[index].key in self._suggested

    def _suggest(self) -> None:
        self._table.remove([i for i, card in enumerate(self._cards)
                            if card.key in self._suggested])
        self._suggested = {}
        machine = [card.profile for card in self._cards if card.origin is CardOrigin.MACHINE]
        known = next((profile for profile in machine if profile.spec is not None), None)
        if not machine:
            why = self.tr("Shown while this machine has no GPU: of the largest VRAM both "
                          "vendors sell on consumer cards, each vendor's fastest card.")
        else:
            why = self.tr("Suggested beside the {name}: the nearest cards in VRAM, launch "
                          "price, FP16 rate and launch date, one from the other vendor and "
                          "one from another generation.").format(
                name=(known or machine[0]).name)
        for spec in suggested_specs(machine):
            profile = card_profile(spec)
            if (profile is None or self._table.column_of(profile) is not None
                    or len(self._cards) >= MAX_CARDS):
                continue
            self._table.add_knowledge_card(profile)
            self._suggested[self._cards[-1].key] = why

    def _user_changed(self) -> None:
        """The user changed the cards: what is shown is theirs from now on."""
        self._suggesting = False
        self._suggested = {}
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
        self._user_changed()
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
            self._user_changed()

    def remove_selected(self) -> None:
        columns = self._selected_columns()
        if not columns:
            self._show_message(self.tr("Select a card first: click its column's heading."),
                               error=True)
            return
        self._table.remove(columns)
        self._show_message(None)
        self._user_changed()

    def clear(self) -> None:
        self._table.clear()
        self._show_message(None)
        self.notes.hide()
        self._user_changed()

    # ------------------------------------------------------------------ prices

    @property
    def price_book(self) -> PriceBook:
        """The prices typed and the currency chosen (what the window keeps in settings)."""
        return self._book

    @property
    def currency(self) -> str:
        return self._book.currency

    def set_price_book(self, book: PriceBook) -> None:
        """Show the prices of `book` (from the settings file); says nothing back."""
        self._book = book
        self.price_controls.show_currency(book.currency)
        self._render_table()
        self._update_chart()

    def set_currency(self, currency: str) -> None:
        """Show and type prices in `currency` ("USD", "EUR", "CNY"); ValueError for another."""
        if currency == self._book.currency:
            return
        self._set_book(self._book.with_currency(currency))
        self.price_controls.show_currency(currency)
        self._render_table()
        self._update_chart()

    def set_price(self, index: int, amount: float | None) -> None:
        """The price of card `index` in the chosen currency (None: back to its launch price;
        0: no price)."""
        self._set_book(self._book.with_price(self._cards[index].profile.name, amount))
        self._sync_price_boxes(None)
        self._refresh_price_rows()

    def reset_prices(self) -> None:
        """Forget the prices typed in the chosen currency for the cards shown."""
        self._set_book(self._book.without_prices(self.card_names()))
        self._render_table()
        self._update_chart()

    def price_note_text(self) -> str:
        return self.price_note.text() if not self.price_note.isHidden() else ""

    def _set_book(self, book: PriceBook) -> None:
        if book != self._book:
            self._book = book
            self.prices_changed.emit(book)

    def _price_view(self) -> PriceView:
        return PriceView.of(self._book, self._cards)

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
        return bool(item is not None and item.data(BEST_ROLE))

    # ------------------------------------------------------------------ the table

    def _changed(self) -> None:
        self._render()
        self.cards_changed.emit()

    def _render(self) -> None:
        count = len(self._cards)
        self.empty_label.setVisible(count == 0)
        self.table.setVisible(count > 0)
        self.price_controls.setVisible(count > 0)
        self.chart.setVisible(count > 0)
        self.remove_button.setEnabled(count > 0)
        self.clear_button.setEnabled(count > 0)
        self.reset_prices_button.setEnabled(count > 0)
        self._render_table()
        self._update_what_fits()
        self._update_chart()

    def _summary(self) -> str:
        count = len(self._cards)
        if count == 0:
            return self._table.summary(translate)
        words = self._table.count_words(translate)
        if self._suggested and len(self._suggested) == count:
            words = self.tr("No GPU in this machine: {count} cards to start from, until you "
                            "pick your own").format(count=count)
        elif self._suggested:
            words += self.tr(", {count} suggested until you pick your own").format(
                count=len(self._suggested))
        if self._book.currency == USD:
            return self.tr("{cards}. Prices in USD: launch prices until you type yours.").format(
                cards=words)
        return self.tr("{cards}. Prices in {currency} where you typed them, else launch prices "
                       "in USD.").format(cards=words, currency=self._book.currency)

    def _render_table(self) -> None:
        table = self.table
        cards = self._cards
        table.clearSpans()
        table.clear()
        self._price_boxes.clear()
        positions = row_positions()
        table.setColumnCount(len(cards))
        table.setRowCount(max(positions.values()) + 1 if positions else 0)
        headings: list[tuple[str, str, str]] = []
        for card in cards:
            why = self._suggested.get(card.key)
            tooltip = card_tooltip(card, translate)
            headings.append((card.short_name, self.tr("suggested") if why
                             else card.origin_label(translate),
                             f"{why}\n{tooltip}" if why else tooltip))
        widths = table.set_headings(headings)
        section = None
        view = self._price_view()
        for spec in ROWS:
            if spec.section != section:
                section = spec.section
                table.section_row(positions[spec.key] - 1, self.tr("Price (editable)")
                                  if section == "Price" else self.tr(SECTION_TITLES[section]))
            label = QTableWidgetItem(row_label(spec, translate))
            label.setToolTip(plain_tooltip(row_tooltip(spec, translate)))
            table.setVerticalHeaderItem(positions[spec.key], label)
            table.fill_row(spec, positions[spec.key], self._cells(spec, view))
        for index, card in enumerate(cards):
            name, launch = card.profile.name, card.profile.datasheet.launch_price_usd
            box = price_box(name, launch, self._book, self._price_tooltip(index, view),
                            self._on_price_edited)
            self._price_boxes[card.key] = box
            table.setCellWidget(positions[PRICE_ROW], index, box)
        self._show_price_state(view)
        table.set_column_widths(widths)

    def _cells(self, spec: Row, view: PriceView) -> list[Cell]:
        if spec.key in PRICE_ROW_KEYS:
            return view.cells(spec.key, self._cards, translate)
        return self._table.cells(spec, translate)

    def _price_tooltip(self, index: int, view: PriceView) -> str:
        cell = view.cells(PRICE_ROW, self._cards, translate)[index]
        return plain_tooltip(cell.tooltip + "\n" + (
            self.tr("Type your price; 0 means no price.") if self._book.currency == USD
            else self.tr("Type your price in {currency}; 0 goes back to the launch price "
                         "(USD).").format(currency=self._book.currency)))

    def _on_price_edited(self, name: str, value: int) -> None:
        card = next((c for c in self._cards if c.profile.name == name), None)
        if card is None:
            return
        amount = edited_amount(value, card.profile.datasheet.launch_price_usd,
                               self._book.currency)
        self._set_book(self._book.with_price(name, amount))
        self._sync_price_boxes(name)
        self._refresh_price_rows()

    def _sync_price_boxes(self, edited: str | None) -> None:
        """Show the book's prices in the boxes, but the one being typed in (card `edited`)."""
        for card in self._cards:
            box = self._price_boxes.get(card.key)
            if box is None or (card.profile.name == edited and box.hasFocus()):
                continue
            typed = self._book.typed(card.profile.name)
            launch = card.profile.datasheet.launch_price_usd
            value = typed if typed is not None else (
                launch if self._book.currency == USD and launch else 0)
            if box.value() != round(value or 0):
                box.blockSignals(True)
                box.setValue(round(value or 0))
                box.blockSignals(False)

    def _refresh_price_rows(self) -> None:
        positions = row_positions()
        view = self._price_view()
        for spec in ROWS:
            if spec.key in PRICE_ROW_KEYS:
                self.table.fill_row(spec, positions[spec.key], self._cells(spec, view))
        for index, card in enumerate(self._cards):
            box = self._price_boxes.get(card.key)
            if box is not None:
                box.setToolTip(self._price_tooltip(index, view))
        self._show_price_state(view)
        if self.chart.chart_metric in PRICE_ROW_KEYS:
            self._update_chart()

    def _show_price_state(self, view: PriceView) -> None:
        """The price rows' labels in the cards' currency, the note when they mix currencies,
        and the summary line that says which prices are shown."""
        positions = row_positions()
        for key in PRICE_ROW_KEYS:
            label = self.table.verticalHeaderItem(positions[key])
            if label is not None:
                label.setText(price_row_label(key, view, translate))
        note = mixed_currency_note(view, translate)
        self.price_note.setText(note)
        self.price_note.setVisible(bool(note) and bool(self._cards))
        self.summary.setText(self._summary())

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

    def set_llm_results(self, observations: Sequence[LlmObservation],
                        decode_ratio: tuple[str, float] | None = None) -> None:
        """Measured and imported tokens/s from the run history (`gpuscope.app.compare_defaults`)
        and this machine's measured decode ratio (its card, the ratio) for the estimates."""
        self._decode_ratios = dict([decode_ratio] if decode_ratio else [])
        self._update_what_fits()
        self.what_fits.set_observations(observations)

    def _update_what_fits(self) -> None:
        selected = sorted(c for c in self._selected_columns() if c < len(self._cards))
        columns = selected or list(range(len(self._cards)))
        fit_cards = [FitCard(self._cards[i].short_name, self._cards[i].profile.datasheet.vram_bytes,
                             gpu_color(i), spec=self._cards[i].profile.spec,
                             measured_ratio=self._decode_ratios.get(self._cards[i].profile.name))
                     for i in columns]
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
        view = self._price_view()
        self.chart.set_labels({k: price_row_label(k, view, translate) for k in PRICE_ROW_KEYS})
        bars: list[tuple[str, QColor, float | None, str]] = []
        for index, (card, cell) in enumerate(zip(self._cards, self._cells(spec, view),
                                                 strict=True)):
            text = cell.text.split(" · ")[0] if cell.value is not None else MISSING
            bars.append((card.short_name, gpu_color(index), cell.value, text))
        unit, note = spec.unit, ""
        if key in PRICE_ROW_KEYS:
            unit = view.currency or ""
            if not view.comparable:
                note = self.tr("not compared: prices in several currencies")
        self.chart.set_bars(bars, unit, spec.better, note)

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
        self.what_fits.add_imported_results(outcome.source, outcome.llm_results)
        if outcome.notes:
            self.notes.setText(self.tr("From {source}: {notes}.").format(
                source=outcome.source, notes="; ".join(outcome.notes)))
            self.notes.show()
        else:
            self.notes.hide()
        self._user_changed()
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

