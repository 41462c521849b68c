"""The Compare page: cards side by side, from the knowledge base, from this machine, and from
reports other people shared.

One column per card, one row per figure: the datasheet (VRAM, bandwidth, FP32/FP16/BF16/INT8,
TDP), the ecosystem (official ROCm support on Linux and Windows, the HSA override, the PyTorch
wheel, the CUDA compute capability), what imported reports measured (value and % of the
datasheet peak), and price per FP16 TFLOPS and per GB at a price the user can edit. The best
value of each row is highlighted; a figure nobody knows is "—" with the reason in its tooltip,
never 0. Under the table, the "What fits" panel (ui/what_fits.py) and a bar chart of one row.

Card profiles come from `gpuscope.knowledge.compare`; the knowledge tables are loaded once,
off the GUI thread, when the page is made. A report file is read off the GUI thread by the
Import button (and at most `MAX_REPORT_BYTES` of it); `import_report(path)` reads it in place
for callers that want the answer at once.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

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
    QVBoxLayout,
    QWidget,
)

from gpuscope.bench.results import ResultStatus
from gpuscope.knowledge.compare import CardProfile, PriceMetrics, card_profile, profile_for_gpu
from gpuscope.knowledge.model_fit import model_table
from gpuscope.knowledge.specs import GpuSpec, all_specs
from gpuscope.model import Gpu
from gpuscope.report.compare_import import (
    MAX_REPORT_BYTES,
    CompareImport,
    CompareImportFailure,
    ImportedReport,
    MeasuredResult,
    read_compare_report,
)
from gpuscope.ui.doctor_loader import BackgroundTask
from gpuscope.ui.i18n import QT_TRANSLATE_NOOP, translate
from gpuscope.ui.theme import ERROR_COLOR, MUTED_COLOR, OK_COLOR, WARN_COLOR, gpu_color
from gpuscope.ui.what_fits import FitCard, FittedTable, WhatFitsPanel
from gpuscope.ui.widgets import PlotPanel, make_label, plain_tooltip, scrolling_page

MAX_CARDS = 12
MAX_PRICE_USD = 1_000_000
PRICE_STEP_USD = 50
REPORT_FILTER = QT_TRANSLATE_NOOP("ComparePage", "gpuscope reports (*.json);;All files (*)")
MISSING = "—"
_LABEL_WIDTH = 232
_CARD_WIDTH = 168
_MAX_CARD_WIDTH = 260
_HEADER_PADDING = 40  # the colour swatch, its gap and the section's margins
_ROW_HEIGHT = 26
CHART_HEIGHT = 230
# How sure a datasheet figure is (GpuSpec.confidence), in words.
CONFIDENCE_WORDS = {
    "primary": QT_TRANSLATE_NOOP("ComparePage",
                                 "read in a primary source (the vendor's documentation or code)"),
    "secondary": QT_TRANSLATE_NOOP("ComparePage",
                                   "read in a secondary source (a review or a spec database)"),
    "derived": QT_TRANSLATE_NOOP("ComparePage", "derived by arithmetic from published figures"),
    "unverified": QT_TRANSLATE_NOOP("ComparePage", "a widely published vendor figure not "
                                    "re-read in the sources at hand: to verify"),
    "conflicting": QT_TRANSLATE_NOOP("ComparePage", "uncertain or conflicting sources"),
}


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

    @property
    def origin_label(self) -> str:
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
    color: QColor | None = None  # a verdict's colour (ecosystem rows)


@dataclass(frozen=True, slots=True)
class Row:
    """A row of the table; `label` and `tooltip` are English (marked for translation), shown
    through `row_label` and `row_tooltip`."""

    key: str
    label: str
    section: str
    tooltip: str
    cell: Callable[[CompareCard, CardProfile], Cell]
    better: Better = Better.NONE
    unit: str = ""  # the chart's axis
    price_dependent: bool = False


def row_label(row: Row) -> str:
    return translate("ComparePage", row.label)


def row_tooltip(row: Row) -> str:
    if row.section == "Measured":
        return translate("ComparePage", "{label}: the latest result an imported report "
                         "measured, and its share of the datasheet peak.").format(
            label=row_label(row))
    return translate("ComparePage", row.tooltip)


def short_card_name(name: str) -> str:
    """"AMD Radeon RX 7900 XT" -> "Radeon RX 7900 XT"; the vendor is in the column's colour
    and tooltip, and the column is narrow."""
    for prefix in ("AMD ", "NVIDIA "):
        if name.startswith(prefix) and len(name) > len(prefix):
            return name[len(prefix):]
    return name


# ----------------------------------------------------------------------------- the rows


def _num(value: float) -> str:
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    if abs(value) >= 100:
        return f"{value:.1f}".removesuffix(".0")
    return f"{value:.2f}".rstrip("0").rstrip(".") if abs(value) < 10 else (
        f"{value:.1f}".removesuffix(".0"))


def _dollars(value: float) -> str:
    return f"${value:,.2f}" if value < 100 else f"${value:,.0f}"


def _figure_tooltip(spec: GpuSpec | None, figure: str, what: str, text: str) -> str:
    lines = [f"{translate('ComparePage', what)}: {text}"]
    words = CONFIDENCE_WORDS.get(spec.confidence(figure) or "") if spec is not None else None
    if words:
        lines.append(translate("ComparePage", words))
    if spec is not None and spec.sources:
        # One source a line: a label and its public URL.
        lines.append(translate("ComparePage", "Sources: {sources}").format(
            sources="".join(f"\n  {source}" for source in spec.sources)))
    return "\n".join(lines)


def _missing_figure(card: CompareCard, what: str) -> str:
    spec = card.profile.spec
    what = translate("ComparePage", what)
    if spec is None:
        return translate("ComparePage", "{name} is not in gpuscope's spec table, so there is "
                         "no datasheet {what}; a report only says what the machine itself "
                         "reported.").format(name=card.profile.name, what=what)
    note = f" {spec.notes}" if spec.notes else ""
    return translate("ComparePage", "The spec table has no {what} figure for the "
                     "{name}.").format(what=what, name=spec.name) + note


def _datasheet_row(key: str, label: str, figure: str, unit: str, what: str,
                   attribute: str, better: Better, tooltip: str) -> Row:
    def cell(card: CompareCard, profile: CardProfile) -> Cell:
        value = getattr(profile.datasheet, attribute)
        if value is None:
            return Cell(MISSING, tooltip=_missing_figure(card, what))
        text = f"{_num(float(value))} {unit}"
        return Cell(text, float(value), _figure_tooltip(profile.spec, figure, what, text))

    return Row(key, label, "Datasheet", tooltip, cell, better, unit)


def _vram_cell(card: CompareCard, profile: CardProfile) -> Cell:
    sheet = profile.datasheet
    if sheet.vram_gib is None:
        return Cell(MISSING, tooltip=_missing_figure(card, "VRAM"))
    text = f"{_num(sheet.vram_gib)} GB"
    tooltip = _figure_tooltip(profile.spec, "vram_gib", "VRAM", text)
    if profile.spec is None:
        tooltip = translate("ComparePage", "VRAM: {size}, as the report's machine reported "
                            "it").format(size=text)
    return Cell(text, sheet.vram_gib, tooltip)


def _fp16_cell(card: CompareCard, profile: CardProfile) -> Cell:
    spec, value = profile.spec, profile.datasheet.fp16_tflops
    if value is None:
        return Cell(MISSING, tooltip=_missing_figure(card, "FP16"))
    text = f"{_num(value)} TFLOPS"
    tooltip = _figure_tooltip(spec, "fp16_tflops",
                              QT_TRANSLATE_NOOP("ComparePage", "FP16 (dense matrix)"), text)
    if spec is not None and spec.fp16_accumulate == "fp16":
        tooltip += "\n" + translate("ComparePage", "This is the FP16-accumulate tensor rate "
                                    "NVIDIA quotes for GeForce cards; PyTorch matmul "
                                    "accumulates in FP32 (next row).")
        text += " *"
    return Cell(text, value, tooltip)


def _pytorch_fp16_cell(card: CompareCard, profile: CardProfile) -> Cell:
    spec, value = profile.spec, profile.datasheet.pytorch_fp16_tflops
    if value is None:
        if spec is not None and spec.fp16_accumulate == "fp16":
            return Cell(MISSING, tooltip=translate(
                "ComparePage", "Only the FP16-accumulate figure of the {name} is published; "
                "its FP32-accumulate rate, which PyTorch uses, is not.").format(name=spec.name))
        return Cell(MISSING, tooltip=_missing_figure(card, "FP16"))
    text = f"{_num(value)} TFLOPS"
    figure = ("fp16_fp32acc_tflops" if spec is not None and spec.fp16_fp32acc_tflops
              is not None else "fp16_tflops")
    return Cell(text, value, _figure_tooltip(
        spec, figure, QT_TRANSLATE_NOOP("ComparePage", "FP16 with FP32 accumulate (what "
                                        "PyTorch fp16 matmul runs at)"), text))


def _architecture_cell(card: CompareCard, profile: CardProfile) -> Cell:
    eco = profile.ecosystem
    parts = [p for p in (profile.architecture, eco.gfx_target) if p]
    if not parts:
        return Cell(MISSING, tooltip=translate(
            "ComparePage", "Neither the architecture nor the gfx target of {name} is "
            "known.").format(name=profile.name))
    return Cell(" · ".join(parts), tooltip=f"{profile.vendor} {' · '.join(parts)}")


def _rocm_cell(os_name: str) -> Callable[[CompareCard, CardProfile], Cell]:
    def cell(card: CompareCard, profile: CardProfile) -> Cell:
        eco = profile.ecosystem
        status = eco.rocm_linux if os_name == "linux" else eco.rocm_windows
        if status is None:
            if eco.compute_capability is not None or profile.vendor == "NVIDIA":
                return Cell(MISSING, tooltip=translate(
                    "ComparePage", "ROCm is AMD's compute stack; it does not run on NVIDIA "
                    "cards (CUDA does)."))
            return Cell(MISSING, tooltip=translate(
                "ComparePage", "The gfx target of {name} is not known, so its ROCm support "
                "cannot be looked up.").format(name=profile.name))
        release = f" {status.release_checked}" if status.release_checked else ""
        text, color = {
            "supported": (translate("ComparePage", "✓ supported{release}"), OK_COLOR),
            "deprecated": (translate("ComparePage", "! deprecated{release}"), WARN_COLOR),
            "listed": (translate("ComparePage", "✓ listed{release}"), OK_COLOR),
            "runtime_only": (translate("ComparePage", "! runtime only"), WARN_COLOR),
            "unsupported": (translate("ComparePage", "✗ not supported"), ERROR_COLOR),
            "uncertain": (translate("ComparePage", "? not readable"), MUTED_COLOR),
            "unknown": (translate("ComparePage", "? unknown"), MUTED_COLOR),
        }.get(status.level, (f"? {status.level}", MUTED_COLOR))
        text = text.format(release=release)
        if status.level == "unsupported" and status.latest_release_listing:
            text = translate("ComparePage", "✗ dropped after {release}").format(
                release=status.latest_release_listing)
        return Cell(text, tooltip=status.note + "\n" + translate(
            "ComparePage", "Source: {source}").format(source=status.source), color=color)

    return cell


def _override_cell(card: CompareCard, profile: CardProfile) -> Cell:
    eco = profile.ecosystem
    if eco.gfx_target is None:
        if eco.compute_capability is not None or profile.vendor == "NVIDIA":
            return Cell(MISSING, tooltip=translate(
                "ComparePage", "HSA_OVERRIDE_GFX_VERSION is a ROCm setting; NVIDIA cards do "
                "not use it."))
        return Cell(MISSING, tooltip=translate("ComparePage",
                                               "The gfx target of this card is not known."))
    advice = eco.hsa_override
    if eco.override_needed and advice is not None:
        return Cell(f"! {advice.env_var.removeprefix('HSA_OVERRIDE_')}={advice.value}",
                    tooltip=translate(
                        "ComparePage", "{assignment}: PyTorch's official ROCm wheel has no "
                        "code for {target}, so it runs as {pretends}.").format(
                            assignment=advice.assignment, target=eco.gfx_target,
                            pretends=advice.pretends_to_be)
                    + f"\n{advice.caveat}\n"
                    + translate("ComparePage", "Source: {source}").format(source=advice.source),
                    color=WARN_COLOR)
    linux = eco.rocm_linux
    if advice is None and linux is not None and linux.supported is False:
        return Cell(translate("ComparePage", "none known"), tooltip=translate(
            "ComparePage", "No HSA_OVERRIDE_GFX_VERSION value is known to make {target} "
            "work.").format(target=eco.gfx_target), color=MUTED_COLOR)
    return Cell(translate("ComparePage", "✓ not needed"), tooltip=translate(
        "ComparePage", "{target} runs without HSA_OVERRIDE_GFX_VERSION.").format(
            target=eco.gfx_target), color=OK_COLOR)


def _wheel_cell(card: CompareCard, profile: CardProfile) -> Cell:
    eco = profile.ecosystem
    release = eco.pytorch_release_checked
    which = f"torch {release}" if release else translate("ComparePage", "the newest torch")
    has = eco.pytorch_wheel_has_target
    target = eco.gfx_target or (translate("ComparePage", "compute capability {cc}").format(
        cc=eco.compute_capability) if eco.compute_capability else None)
    if has is None or target is None:
        return Cell(translate("ComparePage", "? unknown"), tooltip=translate(
            "ComparePage", "Whether {which}'s official wheel carries code for this card is "
            "not known.").format(which=which), color=MUTED_COLOR)
    if has:
        return Cell(translate("ComparePage", "✓ native ({release})").format(release=release)
                    if release else translate("ComparePage", "✓ native"),
                    tooltip=translate("ComparePage", "{which}'s official wheel carries native "
                                      "code for {target}.").format(which=which, target=target),
                    color=OK_COLOR)
    return Cell(translate("ComparePage", "✗ no native code"), tooltip=translate(
        "ComparePage", "{which}'s official wheel has no native code for {target}.").format(
            which=which, target=target), color=ERROR_COLOR)


def _cuda_cell(card: CompareCard, profile: CardProfile) -> Cell:
    eco = profile.ecosystem
    if eco.compute_capability is None:
        if eco.gfx_target is not None or profile.vendor == "AMD":
            return Cell(MISSING, tooltip=translate(
                "ComparePage", "The CUDA compute capability is NVIDIA's; AMD cards run ROCm "
                "and HIP."))
        return Cell(MISSING, tooltip=translate(
            "ComparePage", "The compute capability of this card is not known."))
    text = eco.compute_capability
    tooltip = translate("ComparePage", "Compute capability {cc}").format(cc=text)
    if eco.cuda_architecture:
        tooltip += f" ({eco.cuda_architecture})"
    if eco.cuda_dropped_in:
        text += translate("ComparePage", " · dropped in CUDA {version}").format(
            version=eco.cuda_dropped_in)
        tooltip += translate("ComparePage", "; CUDA {version} no longer supports it.").format(
            version=eco.cuda_dropped_in)
    return Cell(text, tooltip=tooltip,
                color=WARN_COLOR if eco.cuda_dropped_in else None)


def _measured_row(key: str, benchmark_id: str, label: str, unit: str) -> Row:
    def cell(card: CompareCard, profile: CardProfile) -> Cell:
        result = card.results.get(benchmark_id)
        shown_label = translate("ComparePage", label)
        if result is None:
            if card.origin is not CardOrigin.IMPORTED:
                return Cell(MISSING, tooltip=translate(
                    "ComparePage", "Measured results come from imported reports. Import a "
                    "report with benchmark results (gpuscope report --format json) to fill "
                    "this row."))
            return Cell(MISSING, tooltip=translate(
                "ComparePage", "The report from {source} has no {label} result for this "
                "card.").format(source=card.source, label=shown_label))
        if result.status is not ResultStatus.OK or result.value is None:
            unsupported = result.status is ResultStatus.UNSUPPORTED
            word = (translate("ComparePage", "unsupported") if unsupported
                    else translate("ComparePage", "failed"))
            reason = result.reason or translate("ComparePage", "no reason given")
            return Cell(word, tooltip=f"{shown_label} {word}: {reason}",
                        color=MUTED_COLOR if unsupported else ERROR_COLOR)
        text = f"{_num(result.value)} {result.unit or unit}"
        lines = [translate("ComparePage", "Measured {value} ({label})").format(
            value=text, label=shown_label)]
        if result.percent_of_peak is not None and result.peak is not None:
            text += f" · {result.percent_of_peak:.0f}%"
            lines.append(translate("ComparePage", "{percent}% of the {peak} {unit} {what} peak "
                                   "({note})").format(
                percent=f"{result.percent_of_peak:.0f}", peak=_num(result.peak.value),
                unit=result.peak.unit, what=result.peak.label, note=result.peak.note))
        else:
            lines.append(translate("ComparePage", "No datasheet peak to compare it with."))
        worker = " ".join(p for p in (
            f"torch {result.torch_version}" if result.torch_version else None,
            f"({result.build})" if result.build else None) if p)
        where = (translate("ComparePage", " on {device}").format(device=result.device_name)
                 if result.device_name else "")
        when = ""
        if result.ended_unix_s is not None:
            try:
                moment = _dt.datetime.fromtimestamp(result.ended_unix_s, _dt.timezone.utc)
                when = moment.strftime(", %Y-%m-%d %H:%M UTC")
            except (OverflowError, OSError, ValueError):
                when = ""
        if worker or where or when:
            lines.append(translate("ComparePage", "Run with {worker}{where}{when}").format(
                worker=worker or translate("ComparePage", "an unknown torch"), where=where,
                when=when))
        lines.append(translate("ComparePage", "From {source}").format(source=card.source)
                     if card.source else "")
        return Cell(text, result.value, "\n".join(line for line in lines if line))

    # The tooltip is made from the label by `row_tooltip`.
    return Row(key, label, "Measured", "", cell, Better.HIGHER, unit)


def _price_cell(card: CompareCard, profile: CardProfile) -> Cell:
    price = profile.price
    if price.price_usd is None:
        return Cell(MISSING, tooltip=translate("ComparePage",
                                               "No launch price is known: type one."))
    launch = profile.datasheet.launch_price_usd
    if price.is_launch_price:
        tooltip = (translate("ComparePage", "Launch price {price}").format(
            price=f"${launch:,}") if launch is not None
            else translate("ComparePage", "Launch price"))
    else:
        tooltip = translate("ComparePage", "Your price (launch price: {price})").format(
            price="$" + format(launch, ",") if launch else translate("ComparePage", "unknown"))
    return Cell(_dollars(price.price_usd), price.price_usd, tooltip)


def _per_row(key: str, label: str, attribute: str, what: str, per: str,
             tooltip: str) -> Row:
    def cell(card: CompareCard, profile: CardProfile) -> Cell:
        value = getattr(profile.price, attribute)
        if value is None:
            if profile.price.price_usd is None:
                return Cell(MISSING, tooltip=translate(
                    "ComparePage", "No price: type one in the Price row."))
            return Cell(MISSING, tooltip=_missing_figure(card, what))
        price = profile.price.price_usd or 0.0
        return Cell(f"{_dollars(value)}", value,
                    f"{_dollars(price)} / {_num(price / value)} {per} = " + translate(
                        "ComparePage", "{price} per {unit}").format(price=_dollars(value),
                                                                     unit=per))

    return Row(key, label, "Price", tooltip, cell, Better.LOWER, "USD", price_dependent=True)


# Labels, tooltips and the "what" of each figure are English, marked for translation here and
# translated where they are shown.
ROWS: tuple[Row, ...] = (
    Row("vram", "VRAM", "Datasheet", QT_TRANSLATE_NOOP(
        "ComparePage", "Memory on the card, as sold (a \"24 GB\" card holds 24 GiB)."),
        _vram_cell, Better.HIGHER, "GB"),
    _datasheet_row("bandwidth", QT_TRANSLATE_NOOP("ComparePage", "Memory bandwidth"),
                   "memory_bandwidth_gb_s", "GB/s",
                   QT_TRANSLATE_NOOP("ComparePage", "memory bandwidth"),
                   "memory_bandwidth_gb_s", Better.HIGHER,
                   QT_TRANSLATE_NOOP("ComparePage", "Theoretical memory bandwidth: what token "
                                     "generation of a large model is bound by.")),
    _datasheet_row("fp32", "FP32", "fp32_tflops", "TFLOPS", "FP32", "fp32_tflops",
                   Better.HIGHER, QT_TRANSLATE_NOOP(
                       "ComparePage", "Peak FP32 vector rate (RDNA3 figures count "
                       "dual-issue).")),
    Row("fp16", QT_TRANSLATE_NOOP("ComparePage", "FP16 (datasheet)"), "Datasheet",
        QT_TRANSLATE_NOOP("ComparePage", "The dense FP16 matrix rate as the datasheet quotes "
                          "it. * GeForce: the FP16-accumulate rate, twice what PyTorch gets."),
        _fp16_cell, Better.HIGHER, "TFLOPS"),
    Row("fp16_pytorch", QT_TRANSLATE_NOOP("ComparePage", "FP16 for PyTorch"), "Datasheet",
        QT_TRANSLATE_NOOP("ComparePage", "FP16 inputs with FP32 accumulate: the peak a "
                          "PyTorch fp16 matmul runs against."), _pytorch_fp16_cell,
        Better.HIGHER, "TFLOPS"),
    _datasheet_row("bf16", "BF16", "bf16_tflops", "TFLOPS", "BF16", "bf16_tflops",
                   Better.HIGHER, QT_TRANSLATE_NOOP(
                       "ComparePage", "Dense BF16 matrix rate (FP32 accumulate).")),
    _datasheet_row("int8", "INT8", "int8_tops", "TOPS", "INT8", "int8_tops", Better.HIGHER,
                   QT_TRANSLATE_NOOP("ComparePage", "Dense INT8 matrix rate, in "
                                     "tera-operations per second.")),
    _datasheet_row("tdp", QT_TRANSLATE_NOOP("ComparePage", "Board power (TDP)"), "tdp_w", "W",
                   QT_TRANSLATE_NOOP("ComparePage", "board power"), "tdp_w", Better.LOWER,
                   QT_TRANSLATE_NOOP("ComparePage", "Total board power: what the power supply "
                                     "and cooling must handle. Lower is highlighted.")),
    Row("architecture", QT_TRANSLATE_NOOP("ComparePage", "Architecture"), "Ecosystem",
        QT_TRANSLATE_NOOP("ComparePage", "The GPU architecture and, for AMD, the gfx target "
                          "ROCm builds code for."), _architecture_cell),
    Row("rocm_linux", QT_TRANSLATE_NOOP("ComparePage", "ROCm on Linux"), "Ecosystem",
        QT_TRANSLATE_NOOP("ComparePage", "Whether AMD's official support list of the newest "
                          "ROCm release in gpuscope's table names this card on Linux."),
        _rocm_cell("linux")),
    Row("rocm_windows", QT_TRANSLATE_NOOP("ComparePage", "ROCm on Windows"), "Ecosystem",
        QT_TRANSLATE_NOOP("ComparePage", "The same for ROCm (HIP SDK) on Windows."),
        _rocm_cell("windows")),
    Row("override", QT_TRANSLATE_NOOP("ComparePage", "HSA override"), "Ecosystem",
        QT_TRANSLATE_NOOP("ComparePage", "Whether PyTorch needs HSA_OVERRIDE_GFX_VERSION to "
                          "run on this card (its official wheel has no code for it)."),
        _override_cell),
    Row("pytorch_wheel", QT_TRANSLATE_NOOP("ComparePage", "PyTorch wheel"), "Ecosystem",
        QT_TRANSLATE_NOOP("ComparePage", "Whether the newest official PyTorch wheel (ROCm or "
                          "CUDA build) carries native code for this card."), _wheel_cell),
    Row("cuda_cc", QT_TRANSLATE_NOOP("ComparePage", "CUDA compute capability"), "Ecosystem",
        QT_TRANSLATE_NOOP("ComparePage", "NVIDIA's compute capability: which CUDA releases "
                          "and PyTorch builds support the card."), _cuda_cell),
    _measured_row("measured.matmul.fp16", "matmul.fp16",
                  QT_TRANSLATE_NOOP("ComparePage", "FP16 matmul"), "TFLOPS"),
    _measured_row("measured.matmul.fp32", "matmul.fp32",
                  QT_TRANSLATE_NOOP("ComparePage", "FP32 matmul"), "TFLOPS"),
    _measured_row("measured.memory.copy", "memory.copy",
                  QT_TRANSLATE_NOOP("ComparePage", "Memory copy"), "GB/s"),
    Row("price", QT_TRANSLATE_NOOP("ComparePage", "Price (USD)"), "Price",
        QT_TRANSLATE_NOOP("ComparePage", "What the card costs: its launch price until you "
                          "type another. Prices drive the rows below at once."),
        _price_cell, Better.LOWER, "USD", price_dependent=True),
    _per_row("usd_per_fp16", QT_TRANSLATE_NOOP("ComparePage", "$ per FP16 TFLOPS"),
             "usd_per_fp16_tflops", "FP16", "TFLOPS",
             QT_TRANSLATE_NOOP("ComparePage", "Price per datasheet FP16 TFLOPS (GeForce: the "
                               "FP16-accumulate rate).")),
    _per_row("usd_per_pytorch_fp16", QT_TRANSLATE_NOOP("ComparePage",
                                                       "$ per PyTorch FP16 TFLOPS"),
             "usd_per_pytorch_fp16_tflops",
             QT_TRANSLATE_NOOP("ComparePage", "FP16 with FP32 accumulate"), "TFLOPS",
             QT_TRANSLATE_NOOP("ComparePage", "Price per FP16 TFLOPS at FP32 accumulate, what "
                               "PyTorch runs at.")),
    _per_row("usd_per_gb", QT_TRANSLATE_NOOP("ComparePage", "$ per GB of VRAM"),
             "usd_per_vram_gib", "VRAM", "GB",
             QT_TRANSLATE_NOOP("ComparePage", "Price per GB of VRAM: what decides which models "
                               "fit.")),
)
ROW_KEYS: tuple[str, ...] = tuple(row.key for row in ROWS)
SECTION_TITLES = {
    "Datasheet": QT_TRANSLATE_NOOP("ComparePage", "Datasheet"),
    "Ecosystem": QT_TRANSLATE_NOOP("ComparePage", "Ecosystem"),
    "Measured": QT_TRANSLATE_NOOP("ComparePage", "Measured (imported reports)"),
    "Price": QT_TRANSLATE_NOOP("ComparePage", "Price (USD, editable)"),
}
CHART_ROWS: tuple[str, ...] = tuple(row.key for row in ROWS if row.better is not Better.NONE)


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


def _warm_knowledge() -> tuple[tuple[str, str], ...]:
    """Off the GUI thread: load the knowledge tables once; the picker's entries."""
    model_table()
    specs = sorted(all_specs(), key=lambda s: (s.vendor, s.name))
    # Warm the per-card lookups (ROCm, overrides, wheels) the first profile makes.
    for spec in specs[:1]:
        card_profile(spec)
    return tuple((spec.name, _picker_label(spec)) for spec in specs)


def _picker_label(spec: GpuSpec) -> str:
    return f"{spec.name} ({_num(spec.vram_gib)} GB)" if spec.vram_gib else spec.name


def _swatch(color: QColor, size: int = 12) -> QIcon:
    pixmap = QPixmap(size, size)
    pixmap.fill(color)
    return QIcon(pixmap)


def _tint(color: QColor, alpha: int) -> QBrush:
    tinted = QColor(color)
    tinted.setAlpha(alpha)
    return QBrush(tinted)


# ----------------------------------------------------------------------------- the chart


class BarChart(PlotPanel):
    """One row of the table as bars, one per card in its colour."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(6)
        header = QHBoxLayout()
        header.addWidget(make_label(self.tr("Chart"), bold=True, scale=1.1, wrap=False))
        header.addSpacing(12)
        self.metric_box = QComboBox()
        for row in ROWS:
            if row.key in CHART_ROWS:
                self.metric_box.addItem(row_label(row), row.key)
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
        self._cards: list[CompareCard] = []
        self._prices: dict[str, float | None] = {}  # key -> the user's price; absent: launch
        self._price_boxes: dict[str, QSpinBox] = {}
        self._catalogue: tuple[tuple[str, str], ...] = ()
        self._machine_keys: tuple[str, ...] = ()

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
        self.add_button = QPushButton(self.tr("Add"))
        self.add_button.setEnabled(False)
        self.add_button.clicked.connect(self._add_picked)
        picker_row.addWidget(self.add_button)
        self.import_button = QPushButton(self.tr("Import report…"))
        self.import_button.setToolTip(plain_tooltip(self.tr(
            "Add the GPUs and benchmark results of a report someone shared (the JSON of "
            "'gpuscope report --format json').")))
        self.import_button.clicked.connect(self._choose_report)
        picker_row.addWidget(self.import_button)
        picker_row.addSpacing(16)
        self.remove_button = QPushButton(self.tr("Remove card"))
        self.remove_button.setToolTip(plain_tooltip(self.tr(
            "Remove the selected cards (click a column's heading to select it; Delete).")))
        self.remove_button.clicked.connect(self.remove_selected)
        picker_row.addWidget(self.remove_button)
        self.reset_prices_button = QPushButton(self.tr("Launch prices"))
        self.reset_prices_button.setToolTip(plain_tooltip(self.tr(
            "Put every price back to the card's launch price.")))
        self.reset_prices_button.clicked.connect(self.reset_prices)
        picker_row.addWidget(self.reset_prices_button)
        self.clear_button = QPushButton(self.tr("Clear"))
        self.clear_button.clicked.connect(self.clear)
        picker_row.addWidget(self.clear_button)
        column.addLayout(picker_row)

        self.message = make_label("")
        self.message.hide()
        column.addWidget(self.message)
        self.notes = make_label("", color=MUTED_COLOR)
        self.notes.hide()
        column.addWidget(self.notes)

        self.empty_label = make_label(self.tr(
            "No cards yet. Pick one above and press Add, or import a report someone shared "
            "(gpuscope report --format json)."), color=MUTED_COLOR)
        column.addWidget(self.empty_label)

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
        self._knowledge_task.start(_warm_knowledge)
        self._render()

    # ------------------------------------------------------------------ public API

    @property
    def cards(self) -> tuple[CompareCard, ...]:
        return tuple(self._cards)

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
        keys = tuple(card.key for card in machine)
        counts = tuple(card.count for card in machine)
        current = tuple(c for c in self._cards if c.origin is CardOrigin.MACHINE)
        if keys == tuple(c.key for c in current) and counts == tuple(c.count for c in current):
            return
        self._machine_keys = keys
        others = [c for c in self._cards if c.origin is not CardOrigin.MACHINE]
        # A knowledge-base column of the same card says nothing the machine's does not.
        names = {card.profile.name for card in machine}
        others = [c for c in others if not (c.origin is CardOrigin.KNOWLEDGE
                                            and c.profile.name in names)]
        self._cards = (machine + others)[:MAX_CARDS]
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
        for index, card in enumerate(self._cards):
            if card.origin is not CardOrigin.IMPORTED and card.profile.name == profile.name:
                self.table.selectColumn(index)
                self._show_message(None)
                return None
        if len(self._cards) >= MAX_CARDS:
            reason = self.tr("At most {count} cards side by side: remove one first.").format(
                count=MAX_CARDS)
            self._show_message(reason, error=True)
            return reason
        self._cards.append(CompareCard(f"kb:{profile.name}", profile, CardOrigin.KNOWLEDGE))
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
            card = self._cards.pop(index)
            self._prices.pop(card.key, None)
            self._changed()

    def remove_selected(self) -> None:
        columns = sorted(self._selected_columns(), reverse=True)
        if not columns:
            self._show_message(self.tr("Select a card first: click its column's heading."),
                               error=True)
            return
        for column in columns:
            card = self._cards.pop(column)
            self._prices.pop(card.key, None)
        self._show_message(None)
        self._changed()

    def clear(self) -> None:
        self._cards.clear()
        self._prices.clear()
        self._show_message(None)
        self.notes.hide()
        self._changed()

    def set_price(self, index: int, price_usd: float | None) -> None:
        """The price of card `index` (None: back to its launch price)."""
        card = self._cards[index]
        if price_usd is None:
            self._prices.pop(card.key, None)
        else:
            self._prices[card.key] = max(0.0, float(price_usd))
        box = self._price_boxes.get(card.key)
        if box is not None:
            box.blockSignals(True)
            box.setValue(round(self._priced(card).price.price_usd or 0))
            box.blockSignals(False)
        self._refresh_price_rows()

    def reset_prices(self) -> None:
        self._prices.clear()
        self._render_table()
        self._update_chart()

    def price_box(self, index: int) -> QSpinBox:
        return self._price_boxes[self._cards[index].key]

    def row_index(self, key: str) -> int:
        """The table row of ROWS' `key` ("vram", "cuda_cc", "usd_per_fp16", ...)."""
        return self._row_positions()[key]

    def cell(self, key: str, index: int) -> QTableWidgetItem | None:
        return self.table.item(self.row_index(key), index)

    def cell_text(self, key: str, index: int) -> str:
        item = self.cell(key, index)
        return item.text() if item is not None else ""

    def is_best(self, key: str, index: int) -> bool:
        item = self.cell(key, index)
        return bool(item is not None and item.data(Qt.ItemDataRole.UserRole + 1))

    # ------------------------------------------------------------------ the table

    def _priced(self, card: CompareCard) -> CardProfile:
        price = self._prices.get(card.key)
        if price is None:
            return card.profile
        return card.profile.with_price(price) if price > 0 else _without_price(card.profile)

    def _row_positions(self) -> dict[str, int]:
        positions: dict[str, int] = {}
        row, section = 0, None
        for spec in ROWS:
            if spec.section != section:
                section = spec.section
                row += 1
            positions[spec.key] = row
            row += 1
        return positions

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
        if count == 0:
            self.summary.setText(self.tr("Pick cards from gpuscope's knowledge base, or "
                                         "import a report, to see them side by side."))
        else:
            imported = sum(1 for c in self._cards if c.origin is CardOrigin.IMPORTED)
            words = (self.tr("{count} cards") if count != 1 else self.tr("{count} card")).format(
                count=count)
            if imported:
                words += self.tr(", {count} from imported reports").format(count=imported)
            self.summary.setText(self.tr("{cards}. Prices in USD: launch prices until you type "
                                         "yours.").format(cards=words))
        self._render_table()
        self._update_what_fits()
        self._update_chart()

    def _render_table(self) -> None:
        table = self.table
        cards = self._cards
        table.clearSpans()
        table.clear()
        self._price_boxes.clear()
        positions = self._row_positions()
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
                     for text in (card.short_name, card.origin_label)]
            header = QTableWidgetItem("\n".join(lines))
            header.setIcon(_swatch(gpu_color(index)))
            header.setToolTip(plain_tooltip(self._card_tooltip(card)))
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
            label = QTableWidgetItem(row_label(spec))
            label.setToolTip(plain_tooltip(row_tooltip(spec)))
            table.setVerticalHeaderItem(positions[spec.key], label)
            self._fill_row(spec, positions[spec.key])
        for index, card in enumerate(cards):
            table.setCellWidget(positions["price"], index, self._make_price_box(card))
        table.fit_height()

    def _fill_row(self, spec: Row, row: int) -> None:
        cells = [spec.cell(card, self._priced(card)) for card in self._cards]
        best = best_columns([c.value for c in cells], spec.better)
        best_brush = _tint(OK_COLOR, 56)
        for column, cell in enumerate(cells):
            item = QTableWidgetItem(cell.text)
            item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
            if cell.tooltip:
                item.setToolTip(plain_tooltip(cell.tooltip))
            if cell.text == MISSING:
                item.setForeground(QBrush(MUTED_COLOR))
            elif cell.color is not None:
                item.setForeground(QBrush(cell.color))
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
        price = self._priced(card).price.price_usd
        box.setValue(round(price) if price is not None else 0)
        box.setToolTip(plain_tooltip(_price_cell(card, self._priced(card)).tooltip + "\n"
                                     + self.tr("Type your price; 0 means no price.")))
        box.setKeyboardTracking(True)  # every keystroke recomputes the rows below
        key = card.key
        box.valueChanged.connect(lambda value, key=key: self._on_price_edited(key, value))
        self._price_boxes[key] = box
        return box

    def _on_price_edited(self, key: str, value: int) -> None:
        card = next((c for c in self._cards if c.key == key), None)
        if card is None:
            return
        launch = card.profile.datasheet.launch_price_usd
        if launch is not None and value == launch:
            self._prices.pop(key, None)
        else:
            self._prices[key] = float(value)
        box = self._price_boxes.get(key)
        if box is not None:
            box.setToolTip(plain_tooltip(_price_cell(card, self._priced(card)).tooltip + "\n"
                                         + self.tr("Type your price; 0 means no price.")))
        self._refresh_price_rows()

    def _refresh_price_rows(self) -> None:
        positions = self._row_positions()
        for spec in ROWS:
            if spec.price_dependent and spec.key != "price":
                self._fill_row(spec, positions[spec.key])
        if self.chart.chart_metric in {r.key for r in ROWS if r.price_dependent}:
            self._update_chart()

    def _card_tooltip(self, card: CompareCard) -> str:
        lines = [card.profile.name, card.origin_label]
        if card.origin_note:
            lines.append(self.tr("The report was {how}.").format(how=card.origin_note))
        if card.profile.spec is None:
            lines.append(self.tr("Not in gpuscope's spec table: only what the report says is "
                                 "shown."))
        if card.origin is CardOrigin.IMPORTED and card.results:
            count = len(card.results)
            lines.append((self.tr("{count} measured results") if count != 1
                          else self.tr("{count} measured result")).format(count=count))
        lines.append(self.tr("Right-click to remove."))
        return "\n".join(lines)

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
            cell = spec.cell(card, self._priced(card))
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
        new = [CompareCard(key=f"import:{outcome.source}:{card.profile.name}",
                           profile=card.profile, origin=CardOrigin.IMPORTED,
                           source=outcome.source, count=card.count, results=card.results,
                           origin_note=outcome.origin_words)
               for card in outcome.cards]
        keys = {card.key for card in new}
        # Importing the same file again replaces its cards where they stood.
        kept: list[CompareCard] = []
        inserted = False
        for card in self._cards:
            if card.origin is CardOrigin.IMPORTED and card.source == outcome.source:
                if not inserted:
                    kept.extend(new)
                    inserted = True
                continue
            kept.append(card)
        if not inserted:
            kept.extend(new)
        if len(kept) > MAX_CARDS:
            reason = self.tr("{source}: adding its {count} card(s) would make more than "
                             "{most}; remove some first.").format(
                source=outcome.source, count=len(new), most=MAX_CARDS)
            self._show_message(reason, error=True)
            return reason
        for key in list(self._prices):
            if key in keys:
                self._prices.pop(key)
        self._cards = kept
        measured = sum(len(card.results) for card in new)
        cards_words = (self.tr("Imported {count} cards") if len(new) != 1
                       else self.tr("Imported {count} card")).format(count=len(new))
        results_words = (self.tr("{count} measured results") if measured != 1
                         else self.tr("{count} measured result")).format(count=measured)
        words = self.tr("{cards} from {source}, {results}").format(
            cards=cards_words, source=outcome.source, results=results_words)
        if outcome.origin_words:
            words += self.tr(" (the report was {how})").format(how=outcome.origin_words)
        self._show_message(words + self.tr("."))
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


def _without_price(profile: CardProfile) -> CardProfile:
    """The profile with no price at all (the user typed 0)."""
    return dataclasses.replace(profile, price=PriceMetrics(price_usd=None, is_launch_price=False,
                                               usd_per_fp16_tflops=None,
                                               usd_per_pytorch_fp16_tflops=None,
                                               usd_per_vram_gib=None))

