"""Room in Qt's pixmap cache for the pixmaps of cached chart items.

Chart axes (and their grids) are painted from item caches (`DeviceCoordinateCache`), which live
in the global QPixmapCache. Its default limit (10 MiB) holds the axes of about one 1100x750
Telemetry page: with a larger window, a high-DPI screen or a second page of charts, the
pixmaps evict each other every frame and each axis is re-rendered from its QPicture, which
made a frame about three times slower (benchmarks/dashboard.py).
"""

from __future__ import annotations

from PySide6.QtGui import QPixmapCache

# A cached axis covers its plot (the grid is the axis' own drawing): the left and the bottom
# axis give two 4-byte layers per pixel of a chart on screen.
BYTES_PER_VISIBLE_PIXEL = 2 * 4
HEADROOM = 2.0  # other pages' charts, the scroll area's pixmaps, resizing


def ensure_room(width_px: int, height_px: int, device_pixel_ratio: float = 1.0) -> int:
    """Raise the pixmap cache limit (never lower it) so that charts filling a
    `width_px` x `height_px` area keep their cached pixmaps. Returns the limit in KiB."""
    pixels = max(width_px, 0) * max(height_px, 0) * device_pixel_ratio ** 2
    needed_kib = int(pixels * BYTES_PER_VISIBLE_PIXEL * HEADROOM / 1024)
    if needed_kib > QPixmapCache.cacheLimit():
        QPixmapCache.setCacheLimit(needed_kib)
    return QPixmapCache.cacheLimit()
