"""The one channel from a worker back to gpuscope: one JSON object per line on stdout.

    claim_stdout()                     # first thing in main(): stdout is ours from now on
    channel = Channel(unencodable=lambda why: {"type": "error", "message": why})
    channel.emit({"type": "hello", "protocol": 1, ...})

gpuscope reads the lines with `gpuscope.probes.worker_process.JsonLineReader`; whatever else
reaches stdout would be read as log text between the messages, so `claim_stdout` moves everything
else to stderr. Messages come from several threads (the framework probe inspects frameworks in
parallel); a lock keeps each line whole.
"""

from __future__ import annotations

import json
import math
import os
import sys
import threading
from collections.abc import Callable
from typing import IO, Any

_out: IO[str] = sys.stdout
_lock = threading.Lock()


def claim_stdout() -> None:
    """Keep the real stdout for JSON lines and point fd 1 at stderr, so that whatever torch or
    a GPU runtime prints (from Python or from C) lands in the log, not between our messages."""
    global _out
    try:
        sys.stdout.flush()
        fd = os.dup(1)
        os.dup2(2, 1)
        _out = os.fdopen(fd, "w", encoding="utf-8", errors="replace", newline="\n")
    except (OSError, ValueError, AttributeError):
        _out = sys.stdout
    sys.stdout = sys.stderr


def flush() -> None:
    with _lock:
        _out.flush()


def describe(exc: BaseException) -> str:
    """An exception as one line: its type and the first line of its message."""
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__


def finite(value: Any) -> Any:
    """`value` with NaN and infinities as None (tuples become lists, as JSON has them)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value


class Channel:
    """How one worker writes its messages. `unencodable(why)` is the message sent instead of
    one that cannot be encoded; `finite_only` sends NaN and infinities as null (strict JSON)."""

    def __init__(self, unencodable: Callable[[str], dict[str, Any]],
                 finite_only: bool = False) -> None:
        self.unencodable = unencodable
        self.finite_only = finite_only

    def emit(self, message: dict[str, Any]) -> None:
        try:
            if self.finite_only:
                line = json.dumps(finite(message), default=str, allow_nan=False)
            else:
                line = json.dumps(message, default=str)
        except (TypeError, ValueError) as exc:
            line = json.dumps(self.unencodable(f"cannot encode a message: {exc}"))
        with _lock:
            _out.write(line + "\n")
            _out.flush()
