"""Which machine a command or window shows: this one, or a snapshot file replayed."""

from __future__ import annotations

import datetime as _dt
from pathlib import Path
from typing import Any

from gpuscope.evidence import LiveSystem, ReplaySystem, System


def system_for(replay: str | Path | None) -> System:
    """This machine (None), or the snapshot file `replay` replayed. Raises SnapshotError for a
    file that is not a readable snapshot."""
    return LiveSystem() if replay is None else ReplaySystem.from_file(replay)


def snapshot_meta(description: str | None = None) -> dict[str, Any]:
    from gpuscope import __version__

    return {k: v for k, v in {
        "captured_utc": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
        "gpuscope_version": __version__,
        "description": description,
    }.items() if v is not None}
