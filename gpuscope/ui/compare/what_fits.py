"""The "What fits" panel of the Compare page: which language models (3B to 72B) fit in each
card's VRAM at FP16, INT8 and INT4 (Q4_K_M), with a KV cache for the chosen context length,
and the decode tokens/s to expect on the card, labelled measured, imported, published or
estimated (`gpuscope.report.what_fits.speed_cell`).

The estimate is `gpuscope.knowledge.model_fit` (weights + KV cache + 1 GiB runtime allowance,
one GPU, batch 1), its verdicts `gpuscope.report.what_fits`; this panel only lays them out: one
group of columns per card, a cell per model and precision saying fits / tight / does not fit
and the GB the model needs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetrics, QPalette, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gpuscope.bench.imported import ImportedResult
from gpuscope.i18n import localise
from gpuscope.knowledge.model_fit import (
    DEFAULT_CONTEXT_TOKENS,
    DEFAULT_OVERHEAD_BYTES,
    GIB,
    TABLE_PRECISIONS,
    FitResult,
    precision_info,
)
from gpuscope.knowledge.specs import GpuSpec
from gpuscope.report.formatting import MISSING
from gpuscope.report.formatting import format_gb as gb
from gpuscope.report.llm_speed import imported_observations
from gpuscope.report.what_fits import (
    FITS_MARK,
    NO_MARK,
    SHORT_SPEED_LABELS,
    SPEED_ESTIMATED,
    SPEED_IMPORTED,
    SPEED_MEASURED,
    SPEED_PUBLISHED,
    TIGHT_FRACTION,
    TIGHT_MARK,
    FitState,
    LlmObservation,
    SpeedCell,
    cached_fit_table,
    cell_text,
    fit_state,
    speed_cell,
)
from gpuscope.ui.i18n import QT_TRANSLATE_NOOP, translate
from gpuscope.ui.theme import ERROR_COLOR, MUTED_COLOR, OK_COLOR, WARN_COLOR
from gpuscope.ui.widgets import make_label, plain_tooltip

CONTEXT_CHOICES: tuple[int, ...] = (2048, 4096, 8192, 16384, 32768, 131072)
_MODEL_COLUMN_WIDTH = 110  # the least; wider when a model's name needs it
_CELL_WIDTH = 70
VRAM_UNKNOWN = QT_TRANSLATE_NOOP("WhatFitsPanel", "the VRAM of this card is not known")
SPEED_ROLE = Qt.ItemDataRole.UserRole + 1  # a cell's SpeedCell


@dataclass(frozen=True, slots=True)
class FitCard:
    """A card as the panel shows it: a label, its VRAM, its colour."""

    label: str
    vram_bytes: int | None
    color: QColor
    spec: GpuSpec | None = None  # for the tokens/s: its bandwidth and published results
    measured_ratio: float | None = None  # this machine's measured decode / ceiling


def speed_text(speed: SpeedCell) -> str:
    """"118 est.": the cell's second line, decode tokens/s and its label (the unit is in the
    legend: the columns stay narrow enough for three cards)."""
    if speed.tokens_per_s is None:
        return MISSING
    return f"{speed.tokens_per_s:.0f} {localise(SHORT_SPEED_LABELS[speed.label])}"


def context_label(tokens: int) -> str:
    if tokens % 1024 == 0:
        return translate("WhatFitsPanel", "{count}k tokens").format(count=tokens // 1024)
    return translate("WhatFitsPanel", "{count} tokens").format(count=tokens)


def cell_tooltip(result: FitResult, card_label: str) -> str:
    info = precision_info(result.precision)
    parts = result.breakdown
    state = fit_state(result)
    if state == FitState.NO:
        verdict = translate("WhatFitsPanel", "Does not fit in the {card}'s {vram}: {short} "
                            "short.").format(card=card_label, vram=gb(result.vram_bytes),
                                             short=gb(-result.headroom_bytes))
    elif state == FitState.TIGHT:
        verdict = translate("WhatFitsPanel", "Fits in {vram}, but only {left} is left (under "
                            "{share}): the desktop or a longer context can tip it over.").format(
            vram=gb(result.vram_bytes), left=gb(result.headroom_bytes),
            share=f"{TIGHT_FRACTION:.0%}")
    else:
        verdict = translate("WhatFitsPanel", "Fits in {vram} with {left} to spare.").format(
            vram=gb(result.vram_bytes), left=gb(result.headroom_bytes))
    return "\n".join((
        translate("WhatFitsPanel", "{model} at {precision}, {tokens} tokens of context").format(
            model=result.model.name, precision=info.label, tokens=result.context_tokens),
        verdict,
        translate("WhatFitsPanel", "weights {size} ({billions} B parameters x {bits} "
                  "bits)").format(size=gb(parts.weights_bytes),
                                  billions=f"{result.model.parameter_count / 1e9:.1f}",
                                  bits=f"{info.bits_per_weight:g}"),
        translate("WhatFitsPanel", "KV cache {size} (fp16 cache, batch {batch})").format(
            size=gb(parts.kv_cache_bytes), batch=result.batch),
        translate("WhatFitsPanel", "runtime allowance {size}").format(
            size=gb(parts.overhead_bytes)),
        translate("WhatFitsPanel", "Shape: {source}").format(source=result.model.source),
    ))


def speed_tooltip(speed: SpeedCell, fits: bool = True) -> str:
    """The tokens/s half of a cell's tooltip: the label in full, then the basis and sources."""
    if speed.tokens_per_s is None:
        return speed.tooltip
    head = translate("WhatFitsPanel", "Decode: {value} tokens/s ({label})").format(
        value=f"{speed.tokens_per_s:.0f}", label=localise(speed.label))
    if not fits:
        head = translate("WhatFitsPanel", "Not shown in the cell: the model does not fit, and "
                         "the layers left off the GPU would run at the CPU's speed. On a card "
                         "where it fits: {head}").format(head=head)
    return "\n".join((head, speed.tooltip))


def content_height(table: QTableWidget) -> int:
    """The height that shows every row of `table` without a vertical scroll bar."""
    header = table.horizontalHeader()
    height = sum(table.rowHeight(row) for row in range(table.rowCount()))
    if not header.isHidden():
        height += header.height()
    return height + 2 * table.frameWidth()


def content_width(table: QTableWidget) -> int:
    header = table.verticalHeader()
    width = sum(table.columnWidth(column) for column in range(table.columnCount()))
    if not header.isHidden():
        width += header.width()
    return width + 2 * table.frameWidth()


def titled_column(panel: QWidget, title: str) -> tuple[QVBoxLayout, QHBoxLayout]:
    """A panel's column, edge to edge, and its heading row: `title` in bold, then room for the
    controls the caller adds (and lays out in the column)."""
    column = QVBoxLayout(panel)
    column.setContentsMargins(0, 0, 0, 0)
    column.setSpacing(6)
    header = QHBoxLayout()
    header.addWidget(make_label(title, bold=True, scale=1.1, wrap=False))
    header.addSpacing(12)
    return column, header


class FittedTable(QTableWidget):
    """A table as tall as its rows (the page scrolls, not the table) and as wide as the page:
    columns from `stretch_from` on share the room their least widths leave
    (`set_column_widths`); narrower than those, it scrolls sideways and grows by the scroll
    bar."""

    def __init__(self, rows: int = 0, columns: int = 0, parent: QWidget | None = None) -> None:
        super().__init__(rows, columns, parent)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setSizeAdjustPolicy(QAbstractItemView.SizeAdjustPolicy.AdjustIgnored)
        self._least_widths: list[int] = []
        self._stretch_from = 0

    def set_column_widths(self, widths: Sequence[int], stretch_from: int = 0) -> None:
        """The least width of each column; columns from `stretch_from` on grow to fill."""
        self._least_widths = list(widths)
        self._stretch_from = stretch_from
        self._spread()
        self.fit_height()

    def _spread(self) -> None:
        widths = list(self._least_widths)
        if len(widths) != self.columnCount():
            return
        fixed, growing = widths[:self._stretch_from], widths[self._stretch_from:]
        room = self.viewport().width() - sum(fixed)
        if growing and room > sum(growing):
            # Level the growing columns up: the narrow ones widen first, to equal widths.
            level, wide = room / len(growing), sorted(growing, reverse=True)
            for count in range(len(wide)):
                level = (room - sum(wide[:count])) / (len(wide) - count)
                if level >= wide[count]:
                    break
            grown = [max(width, int(level)) for width in growing]
            for index in range(room - sum(grown)):  # the pixels rounding left over
                grown[index % len(grown)] += 1
            widths = fixed + grown
        for column, width in enumerate(widths):
            if self.columnWidth(column) != width:
                self.setColumnWidth(column, width)

    def fit_height(self) -> None:
        height = content_height(self)
        if content_width(self) > self.width():
            height += self.horizontalScrollBar().sizeHint().height()
        if self.height() != height or self.minimumHeight() != height:
            self.setFixedHeight(height)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._spread()
        self.fit_height()


class WhatFitsPanel(QWidget):
    """One column group per card; `set_cards` redraws, the context box re-estimates."""

    context_changed = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._cards: tuple[FitCard, ...] = ()
        self._observations: tuple[LlmObservation, ...] = ()
        self._history_observations: tuple[LlmObservation, ...] = ()
        self._report_observations: tuple[LlmObservation, ...] = ()
        column, header = titled_column(self, self.tr("What fits"))
        header.addWidget(make_label(self.tr("Context:"), wrap=False))
        self.context_box = QComboBox()
        for tokens in CONTEXT_CHOICES:
            self.context_box.addItem(context_label(tokens), tokens)
        self.context_box.setCurrentIndex(CONTEXT_CHOICES.index(DEFAULT_CONTEXT_TOKENS))
        self.context_box.setToolTip(plain_tooltip(self.tr(
            "The KV cache grows with the context: K and V of every layer for every token, "
            "in fp16.")))
        self.context_box.currentIndexChanged.connect(self._on_context)
        header.addWidget(self.context_box)
        header.addStretch(1)
        column.addLayout(header)

        self.scope_label = make_label("", color=MUTED_COLOR)
        column.addWidget(self.scope_label)

        self.table = FittedTable()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.table.horizontalHeader().hide()
        self.table.verticalHeader().hide()
        self.table.setShowGrid(False)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        column.addWidget(self.table)

        overhead = DEFAULT_OVERHEAD_BYTES / GIB
        self.legend = make_label(self.tr(
            "{fits} fits   {tight} tight (under {share} of the VRAM left)   {no} does not "
            "fit.  GB: what the model needs: weights + KV cache + {overhead} GB runtime "
            "allowance, one GPU, batch 1.").format(
                fits=FITS_MARK, tight=TIGHT_MARK, no=NO_MARK, share=f"{TIGHT_FRACTION:.0%}",
                overhead=f"{overhead:g}"), color=MUTED_COLOR)
        column.addWidget(self.legend)
        self.speed_legend = make_label(self.tr(
            "Second line: decode tokens/s, one user, after the chosen context. {est} "
            "estimated from the memory bandwidth (hover for the basis), {pub} published "
            "llama.cpp result, {meas} measured on this machine, {imp} imported from "
            "llama-bench.").format(
                est=localise(SHORT_SPEED_LABELS[SPEED_ESTIMATED]),
                pub=localise(SHORT_SPEED_LABELS[SPEED_PUBLISHED]),
                meas=localise(SHORT_SPEED_LABELS[SPEED_MEASURED]),
                imp=localise(SHORT_SPEED_LABELS[SPEED_IMPORTED])), color=MUTED_COLOR)
        column.addWidget(self.speed_legend)

    # ------------------------------------------------------------------ API

    @property
    def context_tokens(self) -> int:
        value = self.context_box.currentData()
        return int(value) if isinstance(value, int) else DEFAULT_CONTEXT_TOKENS

    def set_context_tokens(self, tokens: int) -> None:
        """Pick `tokens` of context; ValueError for a length the box does not offer."""
        if tokens not in CONTEXT_CHOICES:
            raise ValueError(f"context must be one of {CONTEXT_CHOICES}")
        self.context_box.setCurrentIndex(CONTEXT_CHOICES.index(tokens))

    def set_cards(self, cards: Sequence[FitCard], scope: str = "") -> None:
        self._cards = tuple(cards)
        self.scope_label.setText(scope)
        self.scope_label.setVisible(bool(scope))
        self._render()

    def set_observations(self, observations: Sequence[LlmObservation]) -> None:
        """Measured and imported decode results (from the run history) to show in place of
        published figures and estimates."""
        self._history_observations = tuple(observations)
        self._observations = self._history_observations + self._report_observations
        self._render()

    def add_imported_results(self, source: str, results: Sequence[ImportedResult]) -> None:
        """The llama-bench results imported on another machine, that came with its report
        (`source`), beside the run history's."""
        observations = [replace(o, source=f"{source}: {o.source}")
                        for o in imported_observations(results)]
        new = tuple(o for o in observations if o not in self._report_observations)
        self._report_observations += new
        self.set_observations(self._history_observations)

    def cell(self, model_name: str, card_index: int,
             precision_index: int) -> QTableWidgetItem | None:
        """The item for a model (by name), card and precision (0 FP16, 1 INT8, 2 INT4)."""
        for row in range(2, self.table.rowCount()):
            label = self.table.item(row, 0)
            if label is not None and label.data(Qt.ItemDataRole.UserRole) == model_name:
                return self.table.item(row, 1 + card_index * len(TABLE_PRECISIONS)
                                       + precision_index)
        return None

    # ------------------------------------------------------------------ drawing

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._render()

    def _on_context(self, _index: int) -> None:
        self._render()
        self.context_changed.emit(self.context_tokens)

    def _render(self) -> None:
        table = self.table
        table.clearSpans()
        table.clear()
        cards = self._cards
        precisions = TABLE_PRECISIONS
        if not cards:
            table.setRowCount(0)
            table.setColumnCount(0)
            table.hide()
            self.legend.hide()
            self.speed_legend.hide()
            return
        table.show()
        self.legend.show()
        self.speed_legend.show()
        context = self.context_tokens
        rows = [cached_fit_table(card.vram_bytes, context) if card.vram_bytes else None
                for card in cards]
        models = next((r for r in rows if r is not None), cached_fit_table(GIB, context))
        table.setColumnCount(1 + len(cards) * len(precisions))
        table.setRowCount(2 + len(models))
        palette = self.palette()
        header_brush = QBrush(palette.color(QPalette.ColorRole.AlternateBase))
        bold = QFont(table.font())
        bold.setBold(True)

        corner = QTableWidgetItem(self.tr("Model"))
        corner.setFont(bold)
        corner.setBackground(header_brush)
        table.setItem(0, 0, corner)
        table.setSpan(0, 0, 2, 1)
        for number, card in enumerate(cards):
            first = 1 + number * len(precisions)
            vram = gb(card.vram_bytes) if card.vram_bytes else self.tr("VRAM unknown")
            title = QTableWidgetItem(f"■ {card.label} · {vram}")
            title.setFont(bold)
            title.setForeground(QBrush(card.color))
            title.setBackground(header_brush)
            title.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
            title.setToolTip(plain_tooltip(card.label))
            table.setItem(0, first, title)
            table.setSpan(0, first, 1, len(precisions))
            for offset, precision in enumerate(precisions):
                info = precision_info(precision)
                # "INT8\n(Q8_0)": two short lines keep the columns narrow.
                item = QTableWidgetItem(info.label.replace(" (", "\n("))
                item.setBackground(header_brush)
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                item.setToolTip(plain_tooltip(self.tr(
                    "{precision}: {bits} bits per weight ({source})").format(
                        precision=info.label, bits=f"{info.bits_per_weight:g}",
                        source=info.source)))
                table.setItem(1, first + offset, item)

        tints = {FitState.FITS: tint(OK_COLOR, 48), FitState.TIGHT: tint(WARN_COLOR, 64),
                 FitState.NO: tint(ERROR_COLOR, 34)}
        for position, model_row in enumerate(models):
            row = 2 + position
            model = model_row.model
            label = QTableWidgetItem(f"{model.name}")
            label.setData(Qt.ItemDataRole.UserRole, model.name)
            label.setToolTip(plain_tooltip(self.tr(
                "{model}: {billions} B parameters, {layers} layers, {heads} KV heads "
                "(config: {source})").format(
                    model=model.name, billions=f"{model.parameter_count / 1e9:.1f}",
                    layers=model.num_hidden_layers, heads=model.num_key_value_heads,
                    source=model.source)))
            table.setItem(row, 0, label)
            for number, card in enumerate(cards):
                card_rows = rows[number]
                for offset in range(len(precisions)):
                    column = 1 + number * len(precisions) + offset
                    if card_rows is None:
                        item = QTableWidgetItem(MISSING)
                        item.setToolTip(plain_tooltip(translate("WhatFitsPanel",
                                                                VRAM_UNKNOWN)))
                        item.setForeground(QBrush(MUTED_COLOR))
                    else:
                        result = card_rows[position].results[offset]
                        speed = speed_cell(card.spec, model, precisions[offset], context,
                                           measured_ratio=card.measured_ratio,
                                           observations=self._observations)
                        shown = speed_text(speed) if result.fits else MISSING
                        item = QTableWidgetItem(f"{cell_text(result)}\n{shown}")
                        item.setData(Qt.ItemDataRole.UserRole, fit_state(result))
                        item.setData(SPEED_ROLE, speed)
                        item.setBackground(tints[fit_state(result)])
                        item.setToolTip(plain_tooltip("\n\n".join((
                            cell_tooltip(result, card.label),
                            speed_tooltip(speed, result.fits)))))
                    item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                    table.setItem(row, column, item)

        # As narrow as the texts allow, so that three cards fit a page without scrolling.
        metrics = QFontMetrics(table.font())
        texts = [line for r in range(1, table.rowCount())
                 for c in range(1, table.columnCount()) if (cell := table.item(r, c)) is not None
                 for line in cell.text().split("\n")]
        cell_width = max([_CELL_WIDTH, *(metrics.horizontalAdvance(t) + 16 for t in texts)])
        names = [model_row.model.name for model_row in models]
        model_width = max([_MODEL_COLUMN_WIDTH, *(metrics.horizontalAdvance(n) + 16
                                                  for n in names)])
        table.setRowHeight(0, 24)
        # Two lines per row: the header's precision, a cell's fit and its tokens/s.
        for row in range(1, table.rowCount()):
            table.setRowHeight(row, metrics.lineSpacing() * 2 + 8)
        # The cards' cells share the page's width; the model names keep theirs.
        table.set_column_widths([model_width] + [cell_width] * (table.columnCount() - 1),
                                stretch_from=1)


def tint(color: QColor, alpha: int) -> QBrush:
    """`color` at `alpha` (0-255), as a cell's background."""
    tinted = QColor(color)
    tinted.setAlpha(alpha)
    return QBrush(tinted)
