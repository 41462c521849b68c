"""Recordings of versions 1 and 2, written by the gpuscope before version 3
(`tests/fixtures/recordings/legacy`, made by its script with commit edf1a00), still open,
load and export the same values as that gpuscope exported; the same samples written as
version 3 export the same CSV."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from gpuscope.telemetry.export import export_csv
from gpuscope.telemetry.feed_adapters import load_recording_feed
from gpuscope.telemetry.recorder import open_recording, write_recording

LEGACY = Path(__file__).resolve().parents[1] / "fixtures" / "recordings" / "legacy"


def _maker():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("make_legacy", LEGACY /
                                                  "make_legacy_recordings.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("version", [1, 2])
def test_a_legacy_recording_exports_what_its_gpuscope_exported(version: int,
                                                               tmp_path: Path) -> None:
    source = LEGACY / f"v{version}.sqlite"
    copy = tmp_path / source.name
    copy.write_bytes(source.read_bytes())  # opening may replay a WAL: never the fixture
    export_csv(copy, tmp_path / "out.csv")
    assert (tmp_path / "out.csv").read_text() == (LEGACY / f"v{version}.csv").read_text()
    with open_recording(copy) as recording:
        assert recording.meta.version == version and not recording.chunked
        reasons = recording.missing_reasons()
        assert bool(reasons) == (version == 2)


@pytest.mark.parametrize("version", [1, 2])
def test_a_legacy_recording_opens_on_the_page_with_its_samples(version: int,
                                                                tmp_path: Path) -> None:
    copy = tmp_path / f"v{version}.sqlite"
    copy.write_bytes((LEGACY / copy.name).read_bytes())
    times, columns = _maker().columns()
    feed = load_recording_feed(copy)
    ring = feed.ring("0000:03:00.0")
    assert ring is not None
    ring_times, values = ring.snapshot(series=["0000:03:00.0/power_w"])
    present = ~np.isnan(values["0000:03:00.0/power_w"])
    assert np.array_equal(ring_times[present], times)
    assert np.array_equal(values["0000:03:00.0/power_w"][present],
                          columns["0000:03:00.0/power_w"])


def test_the_same_samples_as_version_3_export_the_same_csv(tmp_path: Path) -> None:
    times, columns = _maker().columns()
    path = tmp_path / "v3.sqlite"
    write_recording(path, times, columns, rate_hz=2.0,
                    sources={name: f"fake:{name}" for name in columns},
                    reasons={"0000:43:00.0/fan_rpm": "this GPU reports no fan speed"})
    with open_recording(path) as recording:
        assert recording.meta.version == 3 and recording.chunked
    export_csv(path, tmp_path / "v3.csv")
    assert (tmp_path / "v3.csv").read_text() == (LEGACY / "v2.csv").read_text()
