"""The live session: one sampler for the window, the benchmarks and the report."""

from __future__ import annotations

import threading

import pytest
from fixture_paths import SNAPSHOTS_DIR

from gpuscope.app.live_session import LiveSession
from gpuscope.bench.session import BenchMachine
from gpuscope.evidence import LiveSystem, ReplaySystem
from gpuscope.inventory import collect_inventory

SNAPSHOT = SNAPSHOTS_DIR / "rx7900xtx_rocm.json"


@pytest.fixture
def replay_session() -> LiveSession:
    return LiveSession(ReplaySystem.from_file(SNAPSHOT))


def test_one_sampler_is_started_once_and_stopped_on_close(replay_session: LiveSession) -> None:
    inventory = collect_inventory(replay_session.system)
    assert replay_session.claim_start()
    assert not replay_session.claim_start()  # already starting
    sampler = replay_session.start_sampler(inventory, rate_hz=10.0)
    assert sampler is not None and sampler is replay_session.sampler
    assert replay_session.inventory is inventory
    assert not replay_session.claim_start()  # running
    replay_session.close()
    assert replay_session.sampler is None
    assert not sampler.running
    replay_session.close()  # twice is fine


def test_a_sampler_started_after_close_is_stopped_not_kept(replay_session: LiveSession) -> None:
    inventory = collect_inventory(replay_session.system)
    assert replay_session.claim_start()
    replay_session.close()
    assert replay_session.start_sampler(inventory, rate_hz=10.0) is None
    assert replay_session.sampler is None


def test_a_failed_start_may_be_tried_again(replay_session: LiveSession) -> None:
    assert replay_session.claim_start()
    replay_session.start_failed()
    assert replay_session.claim_start()


def test_benchmarks_share_the_live_sampler(monkeypatch: pytest.MonkeyPatch) -> None:
    """On the live machine a benchmark listens to the window's sampler; no second inventory
    or sampler is built."""

    def no_second_machine() -> BenchMachine:
        raise AssertionError("a second inventory and sampler were built")

    monkeypatch.setattr("gpuscope.app.live_session.live_machine", no_second_machine)
    session = LiveSession(LiveSystem())
    inventory = collect_inventory(session.system)
    assert session.claim_start()
    sampler = session.start_sampler(inventory, rate_hz=10.0)
    assert sampler is not None
    try:
        machine = session.bench_machine()
        assert machine.sampler is sampler and machine.sources is None
        assert machine.gpus == inventory.gpus
    finally:
        session.close()


def test_a_replay_on_show_benchmarks_this_machine(replay_session: LiveSession,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Benchmarks always run here: a replayed machine's sampler is not this machine's."""
    own = BenchMachine(note="this machine")
    monkeypatch.setattr("gpuscope.app.live_session.live_machine", lambda: own)
    inventory = collect_inventory(replay_session.system)
    assert replay_session.claim_start()
    assert replay_session.start_sampler(inventory, rate_hz=10.0) is not None
    try:
        assert replay_session.bench_machine() is own
    finally:
        replay_session.close()


def test_the_feed_is_set_and_cleared_across_threads(replay_session: LiveSession) -> None:
    feed = object()
    thread = threading.Thread(target=replay_session.set_telemetry_feed, args=(feed,))
    thread.start()
    thread.join()
    assert replay_session.telemetry_feed is feed
    replay_session.close()
    assert replay_session.telemetry_feed is None
