"""The prices the user types on the Compare page, in the currency they choose, kept in the
settings file.

A card's price is the one the user typed in the chosen currency (USD, EUR or CNY), else its
launch price, which the spec table has in USD only. gpuscope never converts between
currencies: it knows no exchange rate it could trust, so cards priced in different currencies
are not ranked against each other (`comparable`).

Prices are kept per card name ("AMD Radeon RX 7900 XTX") and per currency, so switching the
currency shows the prices typed in it before, and a card priced once keeps its price on every
page that shows it and at the next start.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

USD = "USD"
EUR = "EUR"
CNY = "CNY"
CURRENCIES: tuple[str, ...] = (USD, EUR, CNY)
DEFAULT_CURRENCY = USD
# The symbol written before an amount; "¥" is the renminbi here (gpuscope offers no yen).
SYMBOLS: Mapping[str, str] = MappingProxyType({USD: "$", EUR: "€", CNY: "¥"})
MAX_AMOUNT = 100_000_000  # a datacenter card in CNY stays well under this
MAX_PRICED_CARDS = 500  # what the settings file keeps at most

CURRENCY_KEY = "currency"
PRICES_KEY = "prices"


def format_money(amount: float, currency: str) -> str:
    """"$7.47", "¥2,417", "€899": cents under a hundred, whole units from there."""
    symbol = SYMBOLS.get(currency, currency + " ")
    return f"{symbol}{amount:,.2f}" if amount < 100 else f"{symbol}{amount:,.0f}"


@dataclass(frozen=True, slots=True)
class CardPrice:
    """The price a card is shown at: `amount` in `currency`, or no price (amount None: none
    is known, or the user typed 0). `is_launch`: the spec table's launch price, in USD."""

    amount: float | None
    currency: str
    is_launch: bool = False

    @property
    def known(self) -> bool:
        return self.amount is not None and self.amount > 0

    def text(self) -> str:
        return format_money(self.amount, self.currency) if self.amount else ""


def _frozen(prices: Mapping[str, Mapping[str, float]]) -> Mapping[str, Mapping[str, float]]:
    return MappingProxyType({name: MappingProxyType(dict(by_currency))
                             for name, by_currency in prices.items() if by_currency})


def _no_prices() -> Mapping[str, Mapping[str, float]]:
    return MappingProxyType({})


@dataclass(frozen=True, slots=True)
class PriceBook:
    """The chosen currency and the typed prices: card name -> currency -> amount (0: the user
    said "no price" for that card in that currency)."""

    currency: str = DEFAULT_CURRENCY
    prices: Mapping[str, Mapping[str, float]] = field(default_factory=_no_prices)

    def __post_init__(self) -> None:
        if self.currency not in CURRENCIES:
            raise ValueError(f"currency must be one of {', '.join(CURRENCIES)}")

    def typed(self, card_name: str, currency: str | None = None) -> float | None:
        """What the user typed for `card_name` in `currency` (default: the chosen one)."""
        return self.prices.get(card_name, {}).get(currency or self.currency)

    def price_of(self, card_name: str, launch_price_usd: float | None) -> CardPrice:
        """The card's price in the chosen currency, else its launch price (USD), else none."""
        typed = self.typed(card_name)
        if typed is not None:
            return CardPrice(typed if typed > 0 else None, self.currency)
        if launch_price_usd is not None and launch_price_usd > 0:
            return CardPrice(float(launch_price_usd), USD, is_launch=True)
        return CardPrice(None, self.currency)

    def with_currency(self, currency: str) -> PriceBook:
        return dataclasses.replace(self, currency=currency)

    def with_price(self, card_name: str, amount: float | None) -> PriceBook:
        """The book with `amount` typed for the card in the chosen currency (None: forget it,
        back to the launch price; 0: no price). ValueError for a negative or absurd amount."""
        prices = {name: dict(by) for name, by in self.prices.items()}
        by_currency = prices.setdefault(card_name, {})
        if amount is None:
            by_currency.pop(self.currency, None)
        else:
            if not math.isfinite(amount) or not 0 <= amount <= MAX_AMOUNT:
                raise ValueError(f"a price must be a number from 0 to {MAX_AMOUNT:,}")
            by_currency[self.currency] = float(amount)
        return dataclasses.replace(self, prices=_frozen(prices))

    def without_prices(self, card_names: Iterable[str]) -> PriceBook:
        """The book with the cards' prices in the chosen currency forgotten."""
        book = self
        for name in card_names:
            book = book.with_price(name, None)
        return book


def comparable(prices: Iterable[CardPrice]) -> tuple[bool, tuple[str, ...]]:
    """Whether the known prices are all in one currency, and the currencies they are in (in
    CURRENCIES order): prices in two currencies cannot be ranked without an exchange rate."""
    found = {price.currency for price in prices if price.known}
    currencies = tuple(c for c in CURRENCIES if c in found)
    return len(currencies) <= 1, currencies


# ----------------------------------------------------------------------------- JSON


def price_book_to_json(book: PriceBook) -> dict[str, Any]:
    return {CURRENCY_KEY: book.currency,
            PRICES_KEY: {name: dict(sorted(by.items())) for name, by in sorted(
                book.prices.items())}}


def price_book_from_json(data: object, key: str = "compare_prices") -> tuple[PriceBook,
                                                                              list[str]]:
    """The price book in a settings file's `key` value, and what was wrong with it (a bad
    currency or amount is dropped, the rest kept). Never raises."""
    if data is None:
        return PriceBook(), []
    if not isinstance(data, dict):
        return PriceBook(), [f"{key} is not an object; dropped"]
    problems: list[str] = []
    currency = data.get(CURRENCY_KEY, DEFAULT_CURRENCY)
    if currency not in CURRENCIES:
        problems.append(f"{key}.{CURRENCY_KEY} {currency!r} is not one of "
                        f"{', '.join(CURRENCIES)}; using {DEFAULT_CURRENCY}")
        currency = DEFAULT_CURRENCY
    prices: dict[str, dict[str, float]] = {}
    raw = data.get(PRICES_KEY, {})
    if not isinstance(raw, dict):
        problems.append(f"{key}.{PRICES_KEY} is not an object; dropped")
        raw = {}
    for name, by_currency in raw.items():
        if len(prices) >= MAX_PRICED_CARDS:
            problems.append(f"{key}: more than {MAX_PRICED_CARDS} cards; the rest dropped")
            break
        if not isinstance(by_currency, dict) or not name:
            problems.append(f"{key}: the prices of {str(name)[:60]!r} are not an object; "
                            "dropped")
            continue
        for code, amount in by_currency.items():
            if code in CURRENCIES and isinstance(amount, (int, float)) and not isinstance(
                    amount, bool) and math.isfinite(amount) and 0 <= amount <= MAX_AMOUNT:
                prices.setdefault(str(name), {})[code] = float(amount)
            else:
                problems.append(f"{key}: {str(name)[:60]!r} {str(code)[:8]!r} "
                                f"{str(amount)[:20]!r} is not a price; dropped")
    return PriceBook(currency=currency, prices=_frozen(prices)), problems
