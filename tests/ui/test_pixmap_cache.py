from __future__ import annotations

from typing import Any

from PySide6.QtGui import QPixmapCache

from gpuscope.ui import pixmap_cache


def test_raises_the_limit_for_a_large_chart_area_and_never_lowers_it(qapp: Any) -> None:
    before = QPixmapCache.cacheLimit()
    try:
        QPixmapCache.setCacheLimit(10240)
        limit = pixmap_cache.ensure_room(1920, 1080, 2.0)
        # Two 4-byte layers per device pixel, with headroom: far above Qt's 10 MiB default.
        assert limit >= 1920 * 1080 * 4 * 8 // 1024
        assert QPixmapCache.cacheLimit() == limit
        assert pixmap_cache.ensure_room(200, 100) == limit  # a small page lowers nothing
    finally:
        QPixmapCache.setCacheLimit(before)


def test_the_telemetry_page_makes_room_for_its_axes(qtbot: Any) -> None:
    from gpuscope.ui.telemetry.page import TelemetryPage

    before = QPixmapCache.cacheLimit()
    try:
        QPixmapCache.setCacheLimit(1024)
        page = TelemetryPage()
        qtbot.addWidget(page)
        page.resize(1600, 1000)
        page.show()
        qtbot.waitUntil(lambda: QPixmapCache.cacheLimit() > 1024)
        assert QPixmapCache.cacheLimit() >= 1600 * 1000 * 8 // 1024
        page.shutdown()
    finally:
        QPixmapCache.setCacheLimit(before)
