"""The Telemetry page's bar (its title, the feed's label, "Back to live", the window presets,
Pause) and the panel shown while a recording opens."""

from __future__ import annotations

import time

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from gpuscope.telemetry.frame import TimeView
from gpuscope.ui.i18n import translate
from gpuscope.ui.telemetry.chart import window_label
from gpuscope.ui.theme import ERROR_COLOR, MUTED_COLOR

WINDOWS_S: tuple[int, ...] = (60, 300, 900, 3600)
ALL_BUTTON_ID = 0


class TelemetryBar(QHBoxLayout):
    """The row above the charts."""

    def __init__(self, window_s: int) -> None:
        super().__init__()
        bar = self
        bar.setSpacing(6)
        title = QLabel(translate("TelemetryPage", "Telemetry"))
        font = title.font()
        font.setPointSizeF(font.pointSizeF() * 1.3)
        font.setBold(True)
        title.setFont(font)
        bar.addWidget(title)
        self.source_label = QLabel()
        self.source_label.setObjectName("feedLabel")
        self.source_label.setTextFormat(Qt.TextFormat.PlainText)
        self.source_label.setStyleSheet(f"color: {MUTED_COLOR.name()};")
        self.source_label.setWordWrap(True)  # a long label wraps, never widens the window
        bar.addWidget(self.source_label, 1)
        self.live_button = QPushButton(translate("TelemetryPage", "Back to live"))
        self.live_button.setObjectName("liveButton")
        self.live_button.setToolTip(translate("TelemetryPage",
                                              "Follow the newest samples again"))
        self.live_button.setStyleSheet(f"color: {ERROR_COLOR.name()}; font-weight: bold;")
        self.live_button.setVisible(False)
        bar.addWidget(self.live_button)
        self.window_buttons = QButtonGroup(self)
        self.window_buttons.setExclusive(True)
        for seconds in WINDOWS_S:
            button = QPushButton(window_label(seconds))
            button.setCheckable(True)
            button.setChecked(seconds == window_s)
            button.setToolTip(translate("TelemetryPage", "Show the last {window}").format(
                window=window_label(seconds)))
            self.window_buttons.addButton(button, seconds)
            bar.addWidget(button)
        self.all_button = QPushButton(translate("TelemetryPage", "All"))
        self.all_button.setCheckable(True)
        self.all_button.setToolTip(translate("TelemetryPage", "Fit everything there is"))
        self.window_buttons.addButton(self.all_button, ALL_BUTTON_ID)
        bar.addWidget(self.all_button)
        self.pause_button = QPushButton(translate("TelemetryPage", "Pause"))
        self.pause_button.setToolTip(translate(
            "TelemetryPage", "Hold the charts still; samples keep being collected"))
        bar.addSpacing(8)
        bar.addWidget(self.pause_button)

    def sync(self, live: bool, view: TimeView) -> None:
        """Show "Back to live" while a live feed is browsed; check the preset on show, or
        none for a range of the user's own."""
        self.live_button.setVisible(live and not view.following)
        shown = view.view_range
        # Browsing a recording, a preset is on while the range is as wide as it (a pan too).
        preset = (None if live or view.following or shown is None
                  else next((s for s in WINDOWS_S if abs(shown.width_s - s) < 0.5), None))
        wanted = (self.all_button if view.fit_all and (view.following or not live)
                  else self.window_buttons.button(view.window_s) if view.following
                  else self.window_buttons.button(preset) if preset is not None
                  else None)
        if wanted is not None:
            wanted.setChecked(True)
        elif (checked := self.window_buttons.checkedButton()) is not None:
            # A range of the user's own: no preset is on.
            self.window_buttons.setExclusive(False)
            checked.setChecked(False)
            self.window_buttons.setExclusive(True)
        for seconds in WINDOWS_S:
            label = window_label(seconds)
            self.window_buttons.button(seconds).setToolTip(
                translate("TelemetryPage", "Show the last {window}").format(window=label)
                if live or view.following
                else translate("TelemetryPage",
                               "Show {window} up to the end of the range on show").format(
                    window=label))

    def show_pause(self, paused: bool, now: float | None, note: QLabel) -> None:
        """The pause button's text, and `note` saying since when the charts hold still."""
        if paused:
            self.pause_button.setText(translate("TelemetryPage", "Resume"))
            self.pause_button.setToolTip(translate(
                "TelemetryPage", "Catch up with the samples collected while paused"))
            when = time.strftime("%H:%M:%S", time.localtime(now)) if now is not None else ""
            note.setText(
                translate("TelemetryPage", "Paused at {time}: charts hold still while samples "
                          "keep being collected. Resume to catch up.").format(time=when)
                if when else
                translate("TelemetryPage",
                          "Paused: samples keep being collected. Resume to catch up."))
            note.setVisible(True)
        else:
            self.pause_button.setText(translate("TelemetryPage", "Pause"))
            self.pause_button.setToolTip(translate(
                "TelemetryPage", "Hold the charts still; samples keep being collected"))
            note.setVisible(False)


class LoadingPanel(QWidget):
    """Opening a recording: what is being done, how far, and Cancel."""

    def __init__(self) -> None:
        super().__init__()
        column = QVBoxLayout(self)
        column.addStretch(1)
        self.loading_label = QLabel()
        self.loading_label.setObjectName("loadingLabel")
        self.loading_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.loading_label.setWordWrap(True)
        column.addWidget(self.loading_label)
        self.loading_bar = QProgressBar()
        self.loading_bar.setRange(0, 1000)
        self.loading_bar.setTextVisible(False)
        self.loading_bar.setMaximumWidth(420)
        column.addWidget(self.loading_bar, 0, Qt.AlignmentFlag.AlignHCenter)
        self.loading_cancel = QPushButton(translate("TelemetryPage", "Cancel"))
        column.addWidget(self.loading_cancel, 0, Qt.AlignmentFlag.AlignHCenter)
        column.addStretch(2)
