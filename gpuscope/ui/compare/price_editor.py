"""The Compare page's price editing: a price box per card in the table's Price row, and the row
under the table that picks the currency and puts the launch prices back.

The prices themselves are `gpuscope.app.prices.PriceBook` (kept in the settings file by the
window); the rows they drive are `gpuscope.app.price_rows`.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QPushButton, QSpinBox, QWidget

from gpuscope.app.prices import (
    CNY,
    CURRENCIES,
    MAX_AMOUNT,
    SYMBOLS,
    USD,
    PriceBook,
    format_money,
)
from gpuscope.ui.i18n import translate
from gpuscope.ui.theme import MUTED_COLOR
from gpuscope.ui.widgets import make_label, plain_tooltip

# A step of the arrows: about the same sum in each currency.
PRICE_STEPS = {USD: 50, CNY: 500}
DEFAULT_STEP = 50


def edited_amount(value: int, launch_usd: int | None, currency: str) -> float | None:
    """What a value typed in a price box means: None (forget the typed price, back to the
    launch price) for the launch price itself in USD, or for 0 in another currency, where 0
    shows the launch price; else the amount (0 in USD: no price)."""
    if currency == USD:
        return None if launch_usd is not None and value == launch_usd else float(value)
    return None if value == 0 else float(value)


def price_box(card_name: str, launch_usd: int | None, book: PriceBook, tooltip: str,
              on_edit: Callable[[str, int], None]) -> QSpinBox:
    """The Price row's box of a card, in the book's currency: the typed price, else the launch
    price in USD; in another currency 0 stands for "the launch price (USD)" and says so."""
    currency = book.currency
    box = QSpinBox()
    box.setRange(0, MAX_AMOUNT)
    box.setSingleStep(PRICE_STEPS.get(currency, DEFAULT_STEP))
    box.setPrefix(SYMBOLS[currency] + " ")
    box.setGroupSeparatorShown(True)
    if currency != USD and launch_usd:
        box.setSpecialValueText(translate("ComparePage", "launch {price}").format(
            price=format_money(launch_usd, USD)))
    else:
        box.setSpecialValueText(translate("ComparePage", "no price"))
    box.setAlignment(Qt.AlignmentFlag.AlignCenter)
    box.setFrame(False)
    typed = book.typed(card_name)
    if typed is not None:
        value = typed
    else:
        value = float(launch_usd) if currency == USD and launch_usd else 0.0
    box.setValue(round(value))
    box.setToolTip(tooltip)
    box.setKeyboardTracking(True)  # every keystroke recomputes the rows below
    box.valueChanged.connect(lambda typed_value: on_edit(card_name, typed_value))
    return box


class PriceControls(QWidget):
    """Under the table: the footnote, the currency prices are typed in, and "Launch prices"."""

    currency_changed = Signal(str)
    reset_requested = Signal()

    def __init__(self, footnote: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(6)
        self.footnote = make_label(footnote, color=MUTED_COLOR)
        row.addWidget(self.footnote, 1)
        row.addSpacing(12)
        row.addWidget(make_label(self.tr("Prices in:"), wrap=False))
        self.currency_box = QComboBox()
        for code in CURRENCIES:
            self.currency_box.addItem(f"{code} ({SYMBOLS[code]})", code)
        self.currency_box.setToolTip(plain_tooltip(self.tr(
            "The currency you type prices in; each card keeps a price per currency. Launch "
            "prices are in USD. gpuscope does not convert: cards priced in different "
            "currencies are not ranked against each other.")))
        self.currency_box.currentIndexChanged.connect(
            lambda _index: self.currency_changed.emit(self.currency))
        row.addWidget(self.currency_box)
        self.reset_button = QPushButton(self.tr("Launch prices"))
        self.reset_button.setToolTip(plain_tooltip(self.tr(
            "Forget the prices typed in this currency for the cards shown: back to each "
            "card's launch price.")))
        self.reset_button.clicked.connect(self.reset_requested.emit)
        row.addWidget(self.reset_button)

    @property
    def currency(self) -> str:
        data = self.currency_box.currentData()
        return str(data) if data in CURRENCIES else USD

    def show_currency(self, currency: str) -> None:
        """Select `currency` without saying so (the page set it)."""
        self.currency_box.blockSignals(True)
        self.currency_box.setCurrentIndex(max(0, self.currency_box.findData(currency)))
        self.currency_box.blockSignals(False)
