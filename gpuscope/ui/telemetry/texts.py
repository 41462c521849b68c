"""The telemetry feeds' texts in the language shown.

The feeds (`gpuscope.telemetry.feed`, `feed_adapters`) are Qt-free and name things with
`LabelText`s; `shown` translates one here, where it is shown. Their templates are listed
below under the feeds' context ("TelemetryFeed"), because the extraction
(tools/update_translations.py) reads gpuscope/ui/ only; tests/ui/test_i18n.py checks the
list against the `feed_text(...)` calls of gpuscope/telemetry/.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from gpuscope.telemetry.feed import FeedDevice, short_label
from gpuscope.telemetry.texts import FEED_CONTEXT, LabelText
from gpuscope.ui.i18n import QT_TRANSLATE_NOOP, translate

FEED_TEXTS: tuple[str, ...] = (
    QT_TRANSLATE_NOOP("TelemetryFeed", "GPU {index}: {name}"),
    QT_TRANSLATE_NOOP("TelemetryFeed", "Host"),
    QT_TRANSLATE_NOOP("TelemetryFeed", "Live, {rate} Hz"),
    QT_TRANSLATE_NOOP("TelemetryFeed", "Recording {name}, empty"),
    QT_TRANSLATE_NOOP("TelemetryFeed", "Recording {name}, {start} to {end}"),
    QT_TRANSLATE_NOOP("TelemetryFeed", "(the recorder stopped without closing it)"),
    QT_TRANSLATE_NOOP("TelemetryFeed", "reading series {done} of {total}"),
    QT_TRANSLATE_NOOP("TelemetryFeed", "reading the summaries"),
    QT_TRANSLATE_NOOP("TelemetryFeed", "summarising {device} for zooming out"),
    QT_TRANSLATE_NOOP("TelemetryFeed", "done"),
    QT_TRANSLATE_NOOP("TelemetryFeed", "process lists are not stored in recordings"),
    QT_TRANSLATE_NOOP("TelemetryFeed", "Demo data (synthetic traces, not this machine)"),
    QT_TRANSLATE_NOOP("TelemetryFeed", "Demo GPU {index} (synthetic)"),
    QT_TRANSLATE_NOOP("TelemetryFeed", "{demo}: {count} GPU, {rate} Hz"),
    QT_TRANSLATE_NOOP("TelemetryFeed", "{demo}: {count} GPUs, {rate} Hz"),
)


def shown(text: LabelText) -> str:
    """`text` in the language installed."""
    return text.render(QCoreApplication.translate)


def device_label(device: FeedDevice) -> str:
    """"GPU 0: AMD Radeon RX 7900 XTX" in the language installed."""
    return shown(device.name)


def device_short_label(device: FeedDevice) -> str:
    """"GPU 0": the shown label up to its colon."""
    return short_label(device_label(device))


def feed_reason(reason: str) -> str:
    """A missing reason a feed gives in English ("process lists are not stored in
    recordings"), translated when it is one of the feeds' own; a probe's reason as it is."""
    return translate(FEED_CONTEXT, reason) if reason else reason
