"""Prices typed in any currency: kept per card and currency, remembered in the settings file,
never converted, and not ranked when the cards shown mix currencies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpuscope.app.price_rows import PriceView, mixed_currency_note, price_row_label
from gpuscope.app.prices import (
    CNY,
    EUR,
    USD,
    CardPrice,
    PriceBook,
    comparable,
    format_money,
    price_book_from_json,
)
from gpuscope.app.settings import Settings, SettingsStore, settings_from_json
from gpuscope.knowledge.compare import card_profile
from gpuscope.report.compare_table import CardOrigin, ColorRole, CompareCard

XTX, RTX_4090 = "AMD Radeon RX 7900 XTX", "NVIDIA GeForce RTX 4090"


def card(name: str) -> CompareCard:
    profile = card_profile(name)
    assert profile is not None
    return CompareCard(f"kb:{name}", profile, CardOrigin.KNOWLEDGE)


def test_a_typed_price_replaces_the_launch_price_in_its_currency_only() -> None:
    book = PriceBook()
    assert book.price_of(XTX, 999) == CardPrice(999.0, USD, is_launch=True)
    assert book.price_of(XTX, None) == CardPrice(None, USD)
    cny = book.with_currency(CNY).with_price(XTX, 7999)
    assert cny.price_of(XTX, 999) == CardPrice(7999.0, CNY)
    assert cny.price_of(RTX_4090, 1599).is_launch  # no CNY price typed: launch, in USD
    # Back in USD the launch price shows again; the CNY price is kept for later.
    assert cny.with_currency(USD).price_of(XTX, 999).is_launch
    assert cny.with_currency(USD).with_currency(CNY).typed(XTX) == 7999
    # 0 is "no price"; None forgets the typed price.
    assert not cny.with_price(XTX, 0).price_of(XTX, 999).known
    assert cny.with_price(XTX, None).price_of(XTX, 999).is_launch
    assert cny.without_prices([XTX]).typed(XTX) is None
    with pytest.raises(ValueError):
        cny.with_price(XTX, -5)
    with pytest.raises(ValueError):
        book.with_currency("GBP")


def test_money_is_written_with_its_currency() -> None:
    assert format_money(8.14, USD) == "$8.14"
    assert format_money(12999, CNY) == "¥12,999"
    assert format_money(899.4, EUR) == "€899"


def test_prices_in_two_currencies_are_not_comparable() -> None:
    assert comparable([CardPrice(999, USD), CardPrice(1599, USD)]) == (True, (USD,))
    assert comparable([CardPrice(7999, CNY), CardPrice(1599, USD, True)]) == (
        False, (USD, CNY))
    # A card without a price does not make the others incomparable.
    assert comparable([CardPrice(7999, CNY), CardPrice(None, USD)]) == (True, (CNY,))


def test_mixed_currencies_show_each_value_but_rank_none() -> None:
    cards = [card(XTX), card(RTX_4090)]
    book = PriceBook(currency=CNY).with_price(XTX, 7999)
    view = PriceView.of(book, cards)
    assert not view.comparable and view.currency is None
    per_gb = view.cells("usd_per_gb", cards)
    assert per_gb[0].text == "¥333" and per_gb[1].text == "$66.62"
    assert all(cell.value is None and cell.role is ColorRole.MUTED for cell in per_gb)
    assert "does not convert" in per_gb[0].tooltip
    assert price_row_label("usd_per_gb", view) == "Price per GB of VRAM"
    assert price_row_label("price", view) == "Price"
    assert "USD / CNY" in mixed_currency_note(view)

    both = PriceView.of(book.with_price(RTX_4090, 12999), cards)
    assert both.comparable and both.currency == CNY and mixed_currency_note(both) == ""
    per_gb = both.cells("usd_per_gb", cards)
    assert per_gb[0].value == pytest.approx(7999 / 24)
    assert price_row_label("usd_per_gb", both) == "¥ per GB of VRAM"
    assert price_row_label("price", both) == "Price (CNY)"
    prices = both.cells("price", cards)
    assert [cell.text for cell in prices] == ["¥7,999", "¥12,999"]


def test_prices_survive_the_settings_file(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    book = PriceBook(currency=EUR).with_price(XTX, 849).with_currency(CNY).with_price(
        RTX_4090, 12999)
    store = SettingsStore(path)
    store.put(Settings(compare_prices=book))
    assert store.save()
    again = SettingsStore(path).load()
    assert again.compare_prices == book
    assert again.compare_prices.currency == CNY
    assert again.compare_prices.typed(XTX, EUR) == 849
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["compare_prices"] == {"currency": "CNY", "prices": {
        XTX: {"EUR": 849.0}, RTX_4090: {"CNY": 12999.0}}}


def test_bad_prices_in_the_file_are_dropped_one_by_one() -> None:
    book, problems = price_book_from_json({"currency": "GBP", "prices": {
        XTX: {"CNY": 7999, "EUR": -1, "JPY": 5}, RTX_4090: {"USD": "1599"}, "x": 3}})
    assert book.currency == USD
    assert book.prices == {XTX: {"CNY": 7999.0}}
    assert len(problems) == 5
    assert price_book_from_json(None) == (PriceBook(), [])
    settings, problems = settings_from_json({"compare_prices": ["not", "prices"]})
    assert settings.compare_prices == PriceBook() and problems
