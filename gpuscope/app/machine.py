"""Which machine a command or window shows: this one, or a snapshot file replayed."""

from __future__ import annotations

from pathlib import Path

from gpuscope.evidence import LiveSystem, ReplaySystem, System


def system_for(replay: str | Path | None) -> System:
    """This machine (None), or the snapshot file `replay` replayed. Raises SnapshotError for a
    file that is not a readable snapshot."""
    return LiveSystem() if replay is None else ReplaySystem.from_file(replay)
