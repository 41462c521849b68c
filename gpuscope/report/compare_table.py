"""The Compare page's table, without Qt: cards side by side, one row per figure.

One column per card (from the knowledge base, this machine or a report someone shared), one row
per figure: the datasheet (VRAM, bandwidth, FP32/FP16/BF16/INT8, TDP), the ecosystem (official
ROCm support on Linux and Windows, the HSA override, the PyTorch wheel, the CUDA compute
capability), what imported reports measured (value and % of the datasheet peak), and price per
FP16 TFLOPS and per GB at a price the user can edit. A figure nobody knows is "—" with the
reason in its tooltip, never 0. A cell says how it is to be coloured by a `ColorRole`; the page
picks the colours (`gpuscope.ui.compare.page`).

The rows themselves are `gpuscope.report.compare_rows`; this module holds the cards, the cell
and row types, and `CompareTable`, the cards and prices shown.

Texts are English. Each function that writes one takes `translate` (context, English text) ->
shown text: the page passes Qt's, so that the Chinese UI shows Chinese; `english` keeps them.
The texts are found for translation (`tools/update_translations.py`) by the calls
`translate("ComparePage", ...)` and `QT_TRANSLATE_NOOP("ComparePage", ...)` here and in
`compare_rows`.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from gpuscope.knowledge.compare import CardProfile, PriceMetrics, card_profile, profile_for_gpu
from gpuscope.knowledge.model_fit import model_table
from gpuscope.knowledge.specs import GpuSpec, all_specs
from gpuscope.model import Gpu
from gpuscope.report.compare_import import ImportedReport, MeasuredResult
from gpuscope.report.formatting import MISSING, format_figure

# (context, English text) -> the text shown.
Translate = Callable[[str, str], str]
MAX_CARDS = 12


def english(context: str, text: str) -> str:
    """The `translate` that keeps the English texts."""
    return text


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:
    """`text`, unchanged: marks a constant for the extraction, under `context`."""
    return text


class CardOrigin(enum.Enum):
    KNOWLEDGE = "knowledge base"
    MACHINE = "this machine"
    IMPORTED = "imported"


# What the column headings say for each origin (the enum's values stay English).
ORIGIN_WORDS = {
    CardOrigin.KNOWLEDGE: QT_TRANSLATE_NOOP("ComparePage", "knowledge base"),
    CardOrigin.MACHINE: QT_TRANSLATE_NOOP("ComparePage", "this machine"),
    CardOrigin.IMPORTED: QT_TRANSLATE_NOOP("ComparePage", "imported"),
}


class Better(enum.Enum):
    HIGHER = "higher"
    LOWER = "lower"
    NONE = "none"  # text rows: nothing to rank


class ColorRole(enum.Enum):
    """What a cell's colour says; the page maps each role to its theme's colour."""

    OK = "ok"  # supported, not needed, native
    WARNING = "warning"  # deprecated, an override needed, dropped by CUDA
    ERROR = "error"  # not supported, failed
    MUTED = "muted"  # not known, unsupported benchmark, nothing to say


@dataclass(frozen=True, slots=True)
class CompareCard:
    """One column: a card's profile at its launch price, where it came from, and what a report
    measured on it."""

    key: str
    profile: CardProfile
    origin: CardOrigin
    source: str | None = None  # the report file an imported card came from
    count: int = 1
    results: Mapping[str, MeasuredResult] = field(default_factory=dict)
    origin_note: str | None = None  # "made from a replayed snapshot"

    def origin_label(self, translate: Translate = english) -> str:
        if self.origin is CardOrigin.IMPORTED:
            label = translate("ComparePage", "imported from {source}").format(
                source=self.source)
        else:
            label = translate("ComparePage", ORIGIN_WORDS[self.origin])
        return f"{label} (×{self.count})" if self.count > 1 else label

    @property
    def short_name(self) -> str:
        return short_card_name(self.profile.name)


@dataclass(frozen=True, slots=True)
class Cell:
    text: str
    value: float | None = None  # what the row ranks and the chart draws; None: nothing
    tooltip: str = ""
    role: ColorRole | None = None  # a verdict's colour (ecosystem rows); None: plain text

    @property
    def shown_role(self) -> ColorRole | None:
        """The colour role as shown: a figure nobody knows is muted."""
        return ColorRole.MUTED if self.text == MISSING else self.role


CellMaker = Callable[[CompareCard, CardProfile, Translate], Cell]


@dataclass(frozen=True, slots=True)
class Row:
    """A row of the table; `label` and `tooltip` are English (marked for translation), shown
    through `row_label` and `row_tooltip`."""

    key: str
    label: str
    section: str
    tooltip: str
    cell: CellMaker
    better: Better = Better.NONE
    unit: str = ""  # the chart's axis
    price_dependent: bool = False


def row_label(row: Row, translate: Translate = english) -> str:
    return translate("ComparePage", row.label)


def row_tooltip(row: Row, translate: Translate = english) -> str:
    if row.section == "Measured":
        return translate("ComparePage", "{label}: the latest result an imported report "
                         "measured, and its share of the datasheet peak.").format(
            label=row_label(row, translate))
    if row.section == "LLM":
        return translate("ComparePage", "{label} at Q4_K_M: decode tokens/s for one user after "
                         "4096 tokens of context, labelled published (a llama.cpp result for "
                         "the card, hover for its source) or estimated (the memory bandwidth "
                         "times the share of it llama.cpp reaches, hover for the basis).").format(
            label=row_label(row, translate))
    return translate("ComparePage", row.tooltip)


def short_card_name(name: str) -> str:
    """"AMD Radeon RX 7900 XT" -> "Radeon RX 7900 XT"; the vendor is in the column's colour
    and tooltip, and the column is narrow."""
    for prefix in ("AMD ", "NVIDIA "):
        if name.startswith(prefix) and len(name) > len(prefix):
            return name[len(prefix):]
    return name


def best_columns(values: Sequence[float | None], better: Better) -> set[int]:
    """The columns holding the best value of a row: none when fewer than two cards have a
    value, or when all values are equal (nothing to choose)."""
    known = [(i, v) for i, v in enumerate(values) if v is not None]
    if better is Better.NONE or len(known) < 2:
        return set()
    numbers = [v for _, v in known]
    best = max(numbers) if better is Better.HIGHER else min(numbers)
    if all(abs(v - best) <= 1e-9 * max(1.0, abs(best)) for v in numbers):
        return set()
    return {i for i, v in known if abs(v - best) <= 1e-9 * max(1.0, abs(best))}


def warm_knowledge() -> tuple[tuple[str, str], ...]:
    """Off the GUI thread: load the knowledge tables once; the picker's (name, label) entries."""
    model_table()
    specs = sorted(all_specs(), key=lambda s: (s.vendor, s.name))
    # Warm the per-card lookups (ROCm, overrides, wheels) the first profile makes.
    for spec in specs[:1]:
        card_profile(spec)
    return tuple((spec.name, picker_label(spec)) for spec in specs)


def picker_label(spec: GpuSpec) -> str:
    return f"{spec.name} ({format_figure(spec.vram_gib)} GB)" if spec.vram_gib else spec.name


def card_tooltip(card: CompareCard, translate: Translate = english) -> str:
    """A column heading's tooltip: the card, where it came from, what its report holds."""
    lines = [card.profile.name, card.origin_label(translate)]
    if card.origin_note:
        lines.append(translate("ComparePage", "The report was {how}.").format(
            how=card.origin_note))
    if card.profile.spec is None:
        lines.append(translate("ComparePage", "Not in gpuscope's spec table: only what the "
                               "report says is shown."))
    if card.origin is CardOrigin.IMPORTED and card.results:
        lines.append(measured_words(len(card.results), translate))
    lines.append(translate("ComparePage", "Right-click to remove."))
    return "\n".join(lines)


def measured_words(count: int, translate: Translate = english) -> str:
    return (translate("ComparePage", "{count} measured results") if count != 1
            else translate("ComparePage", "{count} measured result")).format(count=count)


def import_message(outcome: ImportedReport, added: Sequence[CompareCard],
                   translate: Translate = english) -> str:
    """The message after an import: "Imported 1 card from r.json, 3 measured results"."""
    measured = sum(len(card.results) for card in added)
    cards_words = (translate("ComparePage", "Imported {count} cards") if len(added) != 1
                   else translate("ComparePage", "Imported {count} card")).format(
        count=len(added))
    words = translate("ComparePage", "{cards} from {source}, {results}").format(
        cards=cards_words, source=outcome.source, results=measured_words(measured, translate))
    if outcome.origin_words:
        words += translate("ComparePage", " (the report was {how})").format(
            how=outcome.origin_words)
    return words + translate("ComparePage", ".")


def without_price(profile: CardProfile) -> CardProfile:
    """The profile with no price at all (the user typed 0)."""
    return replace(profile, price=PriceMetrics(price_usd=None, is_launch_price=False,
                                               usd_per_fp16_tflops=None,
                                               usd_per_pytorch_fp16_tflops=None,
                                               usd_per_vram_gib=None))


class CompareTable:
    """The cards side by side, in order, and the prices the user typed for them: the state the
    Compare page draws. At most MAX_CARDS cards."""

    def __init__(self) -> None:
        self.cards: list[CompareCard] = []
        self.prices: dict[str, float] = {}  # card key -> the user's price; absent: launch

    def summary(self, translate: Translate = english) -> str:
        """The page's line under its title: how many cards, how many imported."""
        count = len(self.cards)
        if count == 0:
            return translate("ComparePage", "Pick cards from gpuscope's knowledge base, or "
                             "import a report, to see them side by side.")
        return translate("ComparePage", "{cards}. Prices in USD: launch prices until you type "
                         "yours.").format(cards=self.count_words(translate))

    def count_words(self, translate: Translate = english) -> str:
        """"3 cards, 1 from imported reports"."""
        count = len(self.cards)
        imported = sum(1 for c in self.cards if c.origin is CardOrigin.IMPORTED)
        words = (translate("ComparePage", "{count} cards") if count != 1
                 else translate("ComparePage", "{count} card")).format(count=count)
        if imported:
            words += translate("ComparePage", ", {count} from imported reports").format(
                count=imported)
        return words

    def priced(self, card: CompareCard) -> CardProfile:
        """The card's profile at the user's price (none when they typed 0)."""
        price = self.prices.get(card.key)
        if price is None:
            return card.profile
        return card.profile.with_price(price) if price > 0 else without_price(card.profile)

    def cells(self, row: Row, translate: Translate = english) -> list[Cell]:
        """The row's cell of each card, left to right."""
        return [row.cell(card, self.priced(card), translate) for card in self.cards]

    def set_machine_gpus(self, gpus: Sequence[Gpu]) -> bool:
        """Put this machine's GPUs first (identical GPUs as one card), replacing the machine
        cards there were; False when they are the same cards as before (nothing changed)."""
        machine: list[CompareCard] = []
        for gpu in gpus:
            if not gpu.name and not gpu.pci_device_id:
                continue
            profile = profile_for_gpu(gpu)
            key = f"machine:{profile.spec.name if profile.spec else profile.name}"
            found = next((i for i, c in enumerate(machine) if c.key == key), None)
            if found is not None:
                machine[found] = CompareCard(key, profile, CardOrigin.MACHINE,
                                             count=machine[found].count + 1)
            else:
                machine.append(CompareCard(key, profile, CardOrigin.MACHINE))
        current = [c for c in self.cards if c.origin is CardOrigin.MACHINE]
        if [(c.key, c.count) for c in machine] == [(c.key, c.count) for c in current]:
            return False
        others = [c for c in self.cards if c.origin is not CardOrigin.MACHINE]
        # A knowledge-base column of the same card says nothing the machine's does not.
        names = {card.profile.name for card in machine}
        others = [c for c in others if not (c.origin is CardOrigin.KNOWLEDGE
                                            and c.profile.name in names)]
        self.cards = (machine + others)[:MAX_CARDS]
        return True

    def column_of(self, profile: CardProfile) -> int | None:
        """The column already showing this card from the knowledge base or this machine."""
        return next((index for index, card in enumerate(self.cards)
                     if card.origin is not CardOrigin.IMPORTED
                     and card.profile.name == profile.name), None)

    def add_knowledge_card(self, profile: CardProfile) -> None:
        self.cards.append(CompareCard(f"kb:{profile.name}", profile, CardOrigin.KNOWLEDGE))

    def add_imported(self, outcome: ImportedReport) -> list[CompareCard] | None:
        """Add the cards of an imported report (a file imported again replaces its cards where
        they stood); the cards added, or None, changing nothing, when they would make more
        than MAX_CARDS."""
        new = [CompareCard(key=f"import:{outcome.source}:{card.profile.name}",
                           profile=card.profile, origin=CardOrigin.IMPORTED,
                           source=outcome.source, count=card.count, results=card.results,
                           origin_note=outcome.origin_words)
               for card in outcome.cards]
        kept: list[CompareCard] = []
        inserted = False
        for card in self.cards:
            if card.origin is CardOrigin.IMPORTED and card.source == outcome.source:
                if not inserted:
                    kept.extend(new)
                    inserted = True
                continue
            kept.append(card)
        if not inserted:
            kept.extend(new)
        if len(kept) > MAX_CARDS:
            return None
        for card in new:
            self.prices.pop(card.key, None)
        self.cards = kept
        return new

    def remove(self, columns: Iterable[int]) -> None:
        for column in sorted(set(columns), reverse=True):
            if 0 <= column < len(self.cards):
                self.prices.pop(self.cards.pop(column).key, None)

    def clear(self) -> None:
        self.cards.clear()
        self.prices.clear()

    def set_price(self, key: str, price_usd: float | None) -> None:
        """The user's price of a card (None: back to its launch price; 0: no price)."""
        if price_usd is None:
            self.prices.pop(key, None)
        else:
            self.prices[key] = max(0.0, float(price_usd))

    def edit_price(self, key: str, price_usd: int) -> None:
        """A price typed in the table: typing the launch price goes back to it."""
        card = next((c for c in self.cards if c.key == key), None)
        if card is None:
            return
        launch = card.profile.datasheet.launch_price_usd
        self.set_price(key, None if launch is not None and price_usd == launch else price_usd)
