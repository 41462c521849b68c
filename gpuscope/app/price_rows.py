"""The Compare table's price rows in the currency the user chose (`gpuscope.app.prices`): the
price, and the price per FP16 TFLOPS, per PyTorch FP16 TFLOPS and per GB of VRAM.

These replace the USD-only cells of `gpuscope.report.compare_rows` for the same row keys. A
value is written in its own currency ("¥541", "$8.14"); when the cards shown are priced in
more than one currency the values are shown but not ranked (their `Cell.value` is None, so
neither the highlight nor the chart compares them), and the tooltip says why.

Texts are English, written through `translate` ("ComparePage" context), as in
`gpuscope.report.compare_table`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gpuscope.app.prices import SYMBOLS, USD, CardPrice, PriceBook, comparable, format_money
from gpuscope.knowledge.compare import price_metrics
from gpuscope.report.compare_table import Cell, ColorRole, CompareCard, Translate, english
from gpuscope.report.formatting import MISSING, format_figure

PRICE_ROW = "price"


@dataclass(frozen=True, slots=True)
class PerRow:
    """A "price per figure" row: the PriceMetrics attribute it reads, its label template
    ({symbol}: the currency's symbol), and what the figure is."""

    attribute: str
    label: str
    mixed_label: str  # the label when the cards' prices are in several currencies
    what: str
    unit: str


PER_ROWS: dict[str, PerRow] = {
    "usd_per_fp16": PerRow("usd_per_fp16_tflops", "{symbol} per FP16 TFLOPS",
                           "Price per FP16 TFLOPS", "FP16", "TFLOPS"),
    "usd_per_pytorch_fp16": PerRow("usd_per_pytorch_fp16_tflops",
                                   "{symbol} per PyTorch FP16 TFLOPS",
                                   "Price per PyTorch FP16 TFLOPS",
                                   "FP16 with FP32 accumulate", "TFLOPS"),
    "usd_per_gb": PerRow("usd_per_vram_gib", "{symbol} per GB of VRAM",
                         "Price per GB of VRAM", "VRAM", "GB"),
}
PRICE_ROW_KEYS: frozenset[str] = frozenset({PRICE_ROW, *PER_ROWS})


@dataclass(frozen=True, slots=True)
class PriceView:
    """The prices of the cards shown, left to right, and whether they can be ranked."""

    prices: tuple[CardPrice, ...]
    comparable: bool
    currencies: tuple[str, ...]  # of the known prices, in CURRENCIES order

    @classmethod
    def of(cls, book: PriceBook, cards: Sequence[CompareCard]) -> PriceView:
        prices = tuple(book.price_of(card.profile.name,
                                     card.profile.datasheet.launch_price_usd)
                       for card in cards)
        same, currencies = comparable(prices)
        return cls(prices, same, currencies)

    @property
    def currency(self) -> str | None:
        """The one currency every known price is in; None when there are several or none."""
        return self.currencies[0] if len(self.currencies) == 1 else None

    def cells(self, key: str, cards: Sequence[CompareCard],
              translate: Translate = english) -> list[Cell]:
        """The row `key` (one of PRICE_ROW_KEYS) of each card, left to right."""
        return [price_row_cell(key, card, price, self, translate)
                for card, price in zip(cards, self.prices, strict=True)]


def price_row_label(key: str, view: PriceView, translate: Translate = english) -> str:
    """"Price (CNY)", "¥ per GB of VRAM"; without a currency when the cards mix them."""
    currency = view.currency
    if key == PRICE_ROW:
        return (translate("ComparePage", "Price ({currency})").format(currency=currency)
                if currency else translate("ComparePage", "Price"))
    row = PER_ROWS[key]
    if currency is None:
        return translate("ComparePage", row.mixed_label)
    return translate("ComparePage", row.label).format(symbol=SYMBOLS[currency])


def mixed_currency_note(view: PriceView, translate: Translate = english) -> str:
    """Why the price rows are not ranked ("" when they are)."""
    if view.comparable:
        return ""
    return translate("ComparePage", "The cards are priced in {currencies}: gpuscope does not "
                     "convert between currencies, so the price rows are not compared. Type "
                     "every card's price in one currency to rank them.").format(
        currencies=" / ".join(view.currencies))


def price_row_cell(key: str, card: CompareCard, price: CardPrice, view: PriceView,
                   translate: Translate = english) -> Cell:
    if key == PRICE_ROW:
        return _price_cell(card, price, view, translate)
    row = PER_ROWS[key]
    if not price.known or price.amount is None:
        return Cell(MISSING, tooltip=translate("ComparePage", "No price: type one in the "
                                               "Price row."))
    value = getattr(price_metrics(card.profile.datasheet, price.amount), row.attribute)
    if value is None:
        return Cell(MISSING, tooltip=translate(
            "ComparePage", "No {what} figure is known for the {name}, so there is nothing to "
            "divide its price by.").format(what=translate("ComparePage", row.what),
                                            name=card.profile.name))
    text = format_money(value, price.currency)
    tooltip = translate("ComparePage", "{price} / {figure} {unit} = {value} per {unit}").format(
        price=format_money(price.amount, price.currency),
        figure=format_figure(price.amount / value), unit=row.unit, value=text)
    if not view.comparable:
        return Cell(text, None, tooltip + "\n" + mixed_currency_note(view, translate),
                    ColorRole.MUTED)
    return Cell(text, value, tooltip)


def _price_cell(card: CompareCard, price: CardPrice, view: PriceView,
                translate: Translate) -> Cell:
    launch = card.profile.datasheet.launch_price_usd
    launch_text = format_money(launch, USD) if launch else translate("ComparePage", "unknown")
    if price.is_launch:
        tooltip = translate("ComparePage", "Launch price {price} (USD)").format(
            price=launch_text)
    elif price.known:
        tooltip = translate("ComparePage", "Your price in {currency} (launch price: "
                            "{price})").format(currency=price.currency, price=launch_text)
    elif launch:
        tooltip = translate("ComparePage", "No price in {currency} (launch price: "
                            "{price})").format(currency=price.currency, price=launch_text)
    else:
        tooltip = translate("ComparePage", "No launch price is known: type one.")
    if not price.known or price.amount is None:
        return Cell(MISSING, tooltip=tooltip)
    text = format_money(price.amount, price.currency)
    if not view.comparable:
        return Cell(text, None, tooltip + "\n" + mixed_currency_note(view, translate),
                    ColorRole.MUTED)
    return Cell(text, price.amount, tooltip)
