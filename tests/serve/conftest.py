"""The exporter the `gpuscope serve` tests share (helpers in serve_helpers.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from serve_helpers import REPLAY, TOKEN, Started, start_exporter

from gpuscope.serve.command import ServeOptions


@pytest.fixture(scope="module")
def replay_exporter() -> Iterator[Started]:
    """The replayed RX 7900 XTX machine behind a bearer token, frameworks not inspected."""
    started = start_exporter(ServeOptions(replay=REPLAY, port=0, token=TOKEN,
                                          no_frameworks=True, rate=4.0))
    yield started
    assert started.close() == 0
