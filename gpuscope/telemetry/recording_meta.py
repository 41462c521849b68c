"""What a recording says about itself (its `meta` table and `series` rows), checked, and the
one error every reader of recordings raises: `RecordingError`, one line for the user.

A crafted or damaged file may hold anything in any column (SQLite columns have no fixed
type): text or bytes where numbers belong, times of 1e300, a deeply nested inventory. What
is read here is checked so that a reader answers with `RecordingError` instead of a traceback.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpuscope.i18n import message
from gpuscope.metrics import split_series_name
from gpuscope.model import JsonValue
from gpuscope.untrusted import UntrustedInputError, load_json

RECORDING_FORMAT = "gpuscope-recording"
RECORDING_VERSION = 3
# The oldest reader that reads what this writer writes: version 3 stores samples in chunks,
# which no older reader knows. (Version 2 only added a table to version 1.)
MIN_READER_VERSION = 3
MIN_READER_OF = {1: 1, 2: 1, 3: 3}
# Times outside 1970..9999 are not dates: a damaged or crafted file.
MAX_TIME_S = 253_402_300_799.0
# An inventory of many GPUs is tens of kB; past this it is not one (left out, not parsed).
MAX_INVENTORY_CHARS = 4_000_000


class RecordingError(Exception):
    """A recording that cannot be written or read, with a one-line reason for the user."""


class OutputIsInputError(RecordingError):
    """An output that resolves to an input (`export R --csv R`): refused, a usage error."""


class LoadCancelled(RecordingError):
    """Loading a recording was cancelled (the user opened another, or closed the page)."""


@dataclass(frozen=True, slots=True)
class RecordingMeta:
    format: str
    version: int
    gpuscope_version: str | None
    started_utc: str | None
    ended_utc: str | None  # None: the writer did not close the file (killed, crashed, still on)
    rate_hz: float | None
    inventory: JsonValue  # the inventory JSON, or None
    # Why the file is incomplete (a full disk; "its writer did not close it"); None when the
    # writer closed it cleanly, or for a file older than this key.
    incomplete_reason: str | None = None

    @property
    def complete(self) -> bool:
        return self.ended_utc is not None and self.incomplete_reason is None


@dataclass(frozen=True, slots=True)
class RecordedSeries:
    id: int
    name: str
    unit: str
    source: str | None

    @property
    def device(self) -> str:
        return split_series_name(self.name)[0]

    @property
    def metric(self) -> str:
        return split_series_name(self.name)[1]


def bad_time_message(path: Path, t: float) -> str:
    return message("{path}: damaged recording (a sample time of {time} s is not a date)",
                   path=str(path), time=f"{t:g}")


def _text(value: Any) -> str | None:
    """A meta value as text: a crafted file may hold a number or bytes anywhere."""
    if value is None:
        return None
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


def parse_meta(source: Path, meta: Mapping[str, Any]) -> RecordingMeta:
    if meta.get("format") != RECORDING_FORMAT:
        raise RecordingError(f"{source} is not a gpuscope recording "
                             f"(format {_text(meta.get('format'))!r:.40})")
    try:
        version = int(meta.get("version", ""))
    except (ValueError, TypeError, OverflowError):
        raise RecordingError(f"{source}: recording version {_text(meta.get('version'))!r:.40} "
                             "is not a number") from None
    try:
        # A newer writer says which readers can still read it; without the key, only
        # readers of its own version can.
        needs = int(meta.get("min_reader_version") or version)
    except (ValueError, TypeError, OverflowError):
        needs = version
    if needs > RECORDING_VERSION:
        raise RecordingError(f"{source}: recording version {version} is newer than this "
                             f"gpuscope reads ({RECORDING_VERSION}); update gpuscope")
    rate: float | None
    try:
        rate = float(meta["rate_hz"]) if meta.get("rate_hz") else None
    except (ValueError, TypeError, OverflowError):
        rate = None
    if rate is not None and not 0.0 < rate <= 1000.0:  # inf, NaN, 1e300: no rate known
        rate = None
    return RecordingMeta(
        format=RECORDING_FORMAT, version=version,
        gpuscope_version=_text(meta.get("gpuscope_version")),
        started_utc=_text(meta.get("started_utc")), ended_utc=_text(meta.get("ended_utc")),
        rate_hz=rate, inventory=_inventory(source, meta.get("inventory")),
        incomplete_reason=_text(meta.get("incomplete_reason")),
    )


def _inventory(source: Path, stored: Any) -> JsonValue:
    """The recorded inventory, JSON that readers use for labels: unreadable JSON (nested too
    deep, too large, not JSON) is a damaged recording; odd values inside (a list where a PCI
    address belongs) are left out, so no reader meets them."""
    if stored is None or stored == "":
        return None
    if not isinstance(stored, (str, bytes)):
        raise RecordingError(message("{path}: damaged recording (its inventory is not text)",
                                     path=str(source)))
    if len(stored) > MAX_INVENTORY_CHARS:
        raise RecordingError(message(
            "{path}: damaged recording (its inventory of {size} bytes is over the {limit} "
            "bytes gpuscope reads)", path=str(source), size=f"{len(stored):,}",
            limit=f"{MAX_INVENTORY_CHARS:,}"))
    try:
        inventory = load_json(stored, name="inventory")
    except UntrustedInputError as exc:
        raise RecordingError(message("{path}: damaged recording ({why})", path=str(source),
                                     why=str(exc))) from None
    if not isinstance(inventory, dict):
        return None
    gpus = inventory.get("gpus")
    inventory["gpus"] = [_clean_gpu(gpu) for gpu in gpus if isinstance(gpu, dict)] \
        if isinstance(gpus, list) else []
    if not isinstance(inventory.get("host"), dict):
        inventory.pop("host", None)
    return inventory


def _clean_gpu(gpu: dict[str, Any]) -> dict[str, Any]:
    kept = dict(gpu)
    for key in ("pci_bus", "name"):
        if not isinstance(kept.get(key), str):
            kept.pop(key, None)
    index = kept.get("index")
    if isinstance(index, bool) or not (isinstance(index, int) and 0 <= index < 1024):
        kept.pop("index", None)
    return kept
