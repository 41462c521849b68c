"""A snapshot's sysfs written out as a real directory tree (files, directories and symlinks,
laid out as the kernel lays out /sys), and a live `System` rooted there, so that the readers
make their real system calls on it.

`RootedLiveSystem` is `LiveSystem` with every absolute path taken under `root`: reads, listings,
stats and symlink resolution are the live ones; `realpath` answers in the machine's own terms
("/sys/devices/..."), as a live /sys does. Commands and libraries are not reachable through it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from gpuscope.evidence import (
    CommandResult,
    DirListing,
    FileRead,
    LiveOpenFile,
    LiveSystem,
    Snapshot,
    StatInfo,
)
from gpuscope.model import JsonValue


def write_tree(snapshot: Snapshot, root: Path | str, prefixes: Sequence[str] = ("/sys/",)) -> int:
    """Writes the snapshot's readable files under `prefixes` below `root`, then its symlinks
    (relative, as in sysfs), shortest first so that a link inside a linked directory lands in
    the link's target. Files recorded as errors are left out (they read as ENOENT). Returns the
    number of files written."""
    base = os.path.realpath(root)
    written = 0
    for path, entry in snapshot.files.items():
        text = entry.get("text") if isinstance(entry, dict) else None
        if not path.startswith(tuple(prefixes)) or not isinstance(text, str):
            continue
        target = base + path
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w", encoding="utf-8") as handle:
            handle.write(text)
        written += 1
    for link, destination in sorted(snapshot.realpaths.items(), key=lambda item: len(item[0])):
        if not link.startswith(tuple(prefixes)):
            continue
        parent = os.path.realpath(base + os.path.dirname(link))
        os.makedirs(parent, exist_ok=True)
        os.makedirs(base + destination, exist_ok=True)
        at = os.path.join(parent, os.path.basename(link))
        if not os.path.lexists(at):
            os.symlink(os.path.relpath(base + destination, parent), at)
    return written


class RootedLiveSystem(LiveSystem):
    """The live evidence reader, on the tree below `root` instead of the machine's /."""

    def __init__(self, root: Path | str) -> None:
        self.root = os.path.realpath(root)

    def read_text(self, path: str) -> FileRead:
        return super().read_text(self.root + path)

    def open_file(self, path: str) -> LiveOpenFile:
        return super().open_file(self.root + path)

    def list_dir(self, path: str) -> DirListing:
        return super().list_dir(self.root + path)

    def stat(self, path: str) -> StatInfo:
        return super().stat(self.root + path)

    def can_open(self, path: str, write: bool = False) -> bool:
        return super().can_open(self.root + path, write)

    def realpath(self, path: str) -> str:
        real = super().realpath(self.root + path)
        return real[len(self.root):] if real.startswith(self.root + "/") else real

    def which(self, program: str) -> str | None:
        return None

    def run(self, argv: Sequence[str], timeout_s: float = 10.0) -> CommandResult:
        return CommandResult(tuple(argv), error="not_found")

    def library(self, name: str, collect: Callable[[], JsonValue]) -> JsonValue:
        return {"status": "not_captured"}
