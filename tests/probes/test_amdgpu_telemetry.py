"""The amdgpu sysfs telemetry reader: readings of replayed fixtures with their sources, the
reasons of what a card lacks, prepared paths per tick, any file contents, and a real
directory tree on disk read through the live evidence reader."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from fakes.sysfs_tree import RootedLiveSystem, write_tree
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuscope.evidence import DirListing, FileRead, ReplaySystem, Snapshot
from gpuscope.metrics import GPU_METRICS
from gpuscope.probes.amdgpu_telemetry import AmdgpuSysfsReader
from gpuscope.probes.metric_reader import MetricReader
from gpuscope.telemetry.sources import ReaderSource

SNAPSHOTS = Path(__file__).resolve().parent.parent / "fixtures" / "snapshots"
LINUX = {"/proc/version": {"text": "Linux version 6.8.0-49-generic (buildd@lcy02) #49-Ubuntu\n"}}
RX7900 = "0000:03:00.0"
HWMON = "/sys/class/drm/card1/device/hwmon/hwmon2"


def fixture(name: str) -> ReplaySystem:
    return ReplaySystem.from_file(SNAPSHOTS / name)


def read_all(reader: AmdgpuSysfsReader) -> dict[str, tuple[float | None, str]]:
    return reader.read(list(reader.supported))


def test_readings_of_the_rx7900xtx_fixture() -> None:
    reader: MetricReader = AmdgpuSysfsReader(fixture("rx7900xtx_rocm.json"), "card1")
    readings = reader.read(list(reader.supported))
    assert readings["temp_edge_c"] == (41.0, f"{HWMON}/temp1_input (millidegrees C)")
    assert readings["temp_junction_c"][0] == 48.0
    assert readings["temp_memory_c"][0] == 52.0
    # No power1_input on this kernel: the average.
    assert readings["power_w"] == (27.0, f"{HWMON}/power1_average (µW)")
    assert readings["gpu_util_percent"][0] == 3.0
    assert readings["vram_used_bytes"][0] == 1327644672
    assert readings["vram_total_bytes"][0] == 25753026560
    assert readings["sclk_mhz"] == (pytest.approx(1253.0), f"{HWMON}/freq1_input (Hz)")
    assert readings["mclk_mhz"][0] == pytest.approx(96.0)
    assert readings["fan_rpm"][0] == 0.0
    assert readings["fan_percent"][0] == 0.0
    assert reader.lost is None
    assert "pcie_bw" in reader.unsupported["pcie_rx_bytes_s"]


def test_readings_of_the_igpu_skip_missing_sensors_with_reasons() -> None:
    reader = AmdgpuSysfsReader(fixture("apu_dgpu.json"), "card2")
    readings = read_all(reader)
    assert readings["temp_edge_c"][0] == 46.0
    assert "temp_junction_c" not in readings  # temp2 exists only on dGPUs
    assert "SOC15" in reader.unsupported["temp_junction_c"]
    # No freq2_input: the DPM level marked *.
    assert readings["mclk_mhz"] == (2400.0, "/sys/class/drm/card2/device/pp_dpm_mclk "
                                            "(level marked *)")
    assert "fan1_input: ENOENT" in reader.unsupported["fan_rpm"]


def test_readings_of_a_card_without_hwmon() -> None:
    reader = AmdgpuSysfsReader(ReplaySystem(Snapshot(files=LINUX)), "card9")
    assert read_all(reader) == {}
    assert "gpu_busy_percent: ENOENT" in reader.unsupported["gpu_util_percent"]
    assert "no hwmon" in reader.unsupported["temp_edge_c"]


class CountingSystem(ReplaySystem):
    """A replay that counts the directory listings and symlink lookups made of it."""

    def __init__(self, snapshot: Snapshot) -> None:
        super().__init__(snapshot)
        self.listings = 0
        self.realpaths = 0
        self.reads: list[str] = []

    def list_dir(self, path: str) -> DirListing:
        self.listings += 1
        return super().list_dir(path)

    def realpath(self, path: str) -> str:
        self.realpaths += 1
        return super().realpath(path)

    def read_text(self, path: str) -> FileRead:
        self.reads.append(path)
        return super().read_text(path)


def test_a_tick_reads_prepared_paths_only() -> None:
    system = CountingSystem(Snapshot.load(SNAPSHOTS / "rx7900xtx_rocm.json"))
    reader = AmdgpuSysfsReader(system, "card1")
    source = ReaderSource(RX7900, "RX 7900 XTX", [m.value for m in GPU_METRICS], [reader])
    system.listings = system.realpaths = 0
    system.reads.clear()
    for _ in range(5):
        source.read()
    assert system.listings == 0 and system.realpaths == 0
    # Resolved paths (no symlink walk), each supported file once a tick, static ones never.
    assert all(p.startswith("/sys/devices/") for p in system.reads)
    assert len(system.reads) == 5 * 14
    assert not any(p.endswith("mem_info_vram_total") for p in system.reads)
    assert not any(p.endswith("_label") for p in system.reads)


SYSFS_FILES = ("gpu_busy_percent", "mem_info_vram_used", "mem_info_vram_total",
               "mem_info_gtt_used", "pp_dpm_sclk", "pp_dpm_mclk", "hwmon/hwmon0/temp1_input",
               "hwmon/hwmon0/temp1_label", "hwmon/hwmon0/temp2_input",
               "hwmon/hwmon0/temp2_label", "hwmon/hwmon0/power1_average",
               "hwmon/hwmon0/power1_cap", "hwmon/hwmon0/freq1_input", "hwmon/hwmon0/fan1_input",
               "hwmon/hwmon0/pwm1", "current_link_speed", "current_link_width")


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.sampled_from(SYSFS_FILES), st.text(max_size=40)))
def test_sysfs_reader_takes_any_file_contents(contents: dict[str, str]) -> None:
    device = "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0"
    snapshot = Snapshot(files={f"{device}/{name}": {"text": text}
                               for name, text in contents.items()},
                        realpaths={"/sys/class/drm/card0/device": device})
    reader = AmdgpuSysfsReader(ReplaySystem(snapshot), "card0")
    assert set(reader.supported).isdisjoint(reader.unsupported)
    for value, text in reader.read(list(reader.supported)).values():
        assert value is None or math.isfinite(value)
        assert text


def test_a_real_tree_on_disk_reads_as_its_replay(tmp_path: Path) -> None:
    """The fixture written out as files, directories and symlinks and read through the live
    evidence reader gives what its replay gives: same values, same sources."""
    snapshot = Snapshot.load(SNAPSHOTS / "rx7900xtx_rocm.json")
    write_tree(snapshot, tmp_path)
    live = AmdgpuSysfsReader(RootedLiveSystem(tmp_path), "card1")
    replayed = AmdgpuSysfsReader(ReplaySystem(snapshot), "card1")
    assert live.supported == replayed.supported
    assert live.unsupported.keys() == replayed.unsupported.keys()
    assert read_all(live) == read_all(replayed)
    gpu_busy = tmp_path / "sys/class/drm/card1/device/gpu_busy_percent"
    gpu_busy.write_text("97\n")
    assert live.read(["gpu_util_percent"])["gpu_util_percent"][0] == 97.0
    live.close()
