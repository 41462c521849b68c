"""Three Windows machines replayed on Linux (snapshots assembled from public captures by
tests/fixtures/make_windows_fixtures.py; each value's source in their meta and in
snapshots/WINDOWS_SOURCES.md): `info`, `doctor`, `record` and `screenshot` as a user runs them,
and every probe's Windows branch.

The commands run in this process through `gpuscope.cli.main` (the screenshot in its own
process, for Qt). The hipInfo and `wsl -l -v` parsers are imported here first: the Windows
probes import them lazily from their own threads (see the report on hip_sdk.py)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fixture_paths import FIXTURES_DIR, SNAPSHOTS_DIR

from gpuscope.cli import main
from gpuscope.evidence import ReplaySystem, Snapshot
from gpuscope.inventory.probe_runs import PROBES, collect_inventory, run_probe
from gpuscope.model import Layer, ProbeState, Vendor
from gpuscope.parsers import hipinfo, wsl_list
from gpuscope.probes.windows_collectors import is_windows
from gpuscope.probes.windows_display import DXGI_LIBRARY, REGISTRY_LIBRARY
from gpuscope.probes.windows_telemetry import (
    DEDICATED_COUNTER,
    ENGINE_COUNTER,
    LIBRARY_NAME,
    WindowsCounterSession,
)
from gpuscope.telemetry.recorder import open_recording

XTX = SNAPSHOTS_DIR / "windows_rx7900xtx_hip_sdk.json"
RX6700XT = SNAPSHOTS_DIR / "windows_rx6700xt_unsupported.json"
RTX4090 = SNAPSHOTS_DIR / "windows_rtx4090_cuda.json"
REPLAYS = (XTX, RX6700XT, RTX4090)
# Imported here, before the probe threads import them lazily (see the module docstring).
PRELOADED_PARSERS = (hipinfo, wsl_list)
PAGES = ("01-overview.png", "02-stack.png", "03-frameworks.png", "04-telemetry.png",
         "05-benchmarks.png", "06-compare.png", "07-report.png", "report.png")


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    capsys.readouterr()
    assert main(list(argv)) == 0
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    return doc


def findings(doc: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    by_id: dict[str, list[dict[str, Any]]] = {}
    for finding in doc["findings"]:
        by_id.setdefault(finding["id"], []).append(finding)
    return by_id


# ----------------------------------------------------------------------------- the fixtures


def test_the_snapshots_are_what_the_generator_makes() -> None:
    spec = importlib.util.spec_from_file_location(
        "make_windows_fixtures", FIXTURES_DIR / "make_windows_fixtures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--check"]) == 0
    assert "pynvml" not in sys.modules or "fake" not in type(sys.modules["pynvml"]).__module__


@pytest.mark.parametrize("path", REPLAYS, ids=lambda p: p.stem)
def test_each_replay_says_it_is_assembled_and_cites_its_sources(path: Path) -> None:
    meta = Snapshot.load(path).meta
    assert "not captured on one" in meta["assembled"]
    assert meta["description"].endswith("Assembled.")
    sources = meta["sources"]
    assert len(sources) >= 6
    for source in sources:
        assert source["value"] and source["url"]
        assert source["url"].startswith("https://") or source["url"].startswith("example value")
    listed = (SNAPSHOTS_DIR / "WINDOWS_SOURCES.md").read_text(encoding="utf-8")
    assert path.name in listed
    for url in {s["url"] for s in sources if s["url"].startswith("https://")}:
        assert url in listed, url


# ----------------------------------------------------------------------------- info


def test_info_rx7900xtx(capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(capsys, "--replay", str(XTX), "info", "--json")
    [gpu] = doc["gpus"]
    assert (gpu["vendor"], gpu["name"], gpu["gfx_target"]) == (
        "amd", "AMD Radeon RX 7900 XTX", "gfx1100")
    assert gpu["vram_total_bytes"] == 25753026560  # qwMemorySize, not AdapterRAM's 4 GB
    assert gpu["driver_version"] == "31.0.24019.1006"
    assert gpu["luid"] == "0x00000000_0x0000b750"
    assert set(gpu["seen_by"]) == {"windows", "rocm"}  # the registry joined with hipInfo
    assert "hipInfo.exe" in gpu["field_sources"]["gfx_target"]
    stack = doc["stack"]
    assert stack["extras"]["hip_sdk_version"] == "6.2"
    assert stack["rocm_version"] == "6.2" and stack["hip_runtime_version"] == "6.2.41512"
    assert stack["extras"]["amd_driver_version"] == "25.20.01.17"
    assert stack["extras"]["wsl_default_version"] == "2"
    assert doc["host"]["os"] == "windows" and "22631" in doc["host"]["distro"]
    assert doc["origin"]["kind"] == "replay"


def test_info_rx6700xt(capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(capsys, "--replay", str(RX6700XT), "info", "--json")
    [gpu] = doc["gpus"]
    assert (gpu["vendor"], gpu["name"], gpu["gfx_target"]) == (
        "amd", "AMD Radeon RX 6700 XT", "gfx1031")  # from the PCI id 0x73df
    assert (gpu["pci_device_id"], gpu["pci_subsystem_vendor_id"]) == ("0x73df", "0x148c")
    assert gpu["vram_total_bytes"] == 12 * (1 << 30)
    assert gpu["driver_version"] == "32.0.21045.9003"
    assert gpu["seen_by"] == ["windows"]
    stack = doc["stack"]
    assert "hip_sdk_version" not in stack["extras"]
    assert "HIP_PATH is not set" in stack["missing_reasons"]["hip_sdk_version"]
    assert stack["extras"]["amd_driver_version"] == "26.2.2"
    probes = {p["name"]: p for p in doc["probes"]}
    assert probes["hip_sdk"]["state"] == "library_missing"


def test_info_rtx4090(capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(capsys, "--replay", str(RTX4090), "info", "--json")
    [gpu] = doc["gpus"]
    assert (gpu["vendor"], gpu["name"], gpu["compute_capability"]) == (
        "nvidia", "NVIDIA GeForce RTX 4090", "8.9")
    assert gpu["vram_total_bytes"] == 24564 * (1 << 20)
    assert gpu["driver_version"] == "591.74"
    assert set(gpu["seen_by"]) == {"windows", "nvml"}  # NVML and the registry: one GPU
    assert gpu["pci_bus"] == "0000:01:00.0" and gpu["luid"] == "0x00000000_0x0000dabc"
    assert (gpu["pci_subsystem_vendor_id"], gpu["pci_subsystem_device_id"]) == (
        "0x1458", "0x40bf")
    stack = doc["stack"]
    assert (stack["nvidia_driver_version"], stack["cuda_driver_version"]) == ("591.74", "13.1")
    assert doc["host"]["ram_total_bytes"] == 32694 * (1 << 20)


# ----------------------------------------------------------------------------- doctor

POWERSHELL_OR_WSL = ("wsl ", "winget ", "py ", "C:\\", "K:\\", "& ", "Get-", "nvidia-smi")


def test_doctor_rx7900xtx_gives_the_routes_with_commands(
        capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(capsys, "--replay", str(XTX), "doctor", "--json")
    by_id = findings(doc)
    [route] = by_id["windows.pytorch_route"]
    assert route["gpu"] == 0 and route["fix_commands"]
    for command in route["fix_commands"]:
        assert command.startswith(POWERSHELL_OR_WSL), command
        assert "<" not in command and ">" not in command  # runs as pasted
    assert "wsl --update" in route["fix_commands"]  # a distribution is there
    assert "PyTorch 2.9.0+rocmsdk20251116 here is such a build and sees a GPU" in \
        route["detail"]
    assert "ZLUDA" in route["detail"] and "gfx1100 GPUs are on AMD's WSL list" in \
        route["detail"]
    assert all(url.startswith("https://") for url in route["sources"])
    assert "windows.hip_sdk_missing" not in by_id
    assert "windows.rocm_gpu_unsupported" not in by_id
    # Adrenalin 25.20.01.17 is older than the 26.2.2 the routes are documented for.
    [old] = by_id["windows.driver_too_old"]
    assert "25.20.01.17" in old["title"] and old["fix_commands"]
    [torch] = [f for f in doc["frameworks"] if f["name"] == "torch"]
    assert (torch["build"], torch["gpu_available"]) == ("rocm", True)


def test_doctor_rx6700xt_says_the_sdk_is_missing(capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(capsys, "--replay", str(RX6700XT), "doctor", "--json")
    by_id = findings(doc)
    [missing] = by_id["windows.hip_sdk_missing"]
    assert "HIP_PATH is not set" in missing["detail"] and missing["fix_commands"]
    [route] = by_id["windows.pytorch_route"]
    assert "ROCm in WSL 2: not open" in route["detail"]  # no WSL list names gfx1031
    assert any("device-gfx1031" in c for c in route["fix_commands"])
    assert "windows.driver_too_old" not in by_id  # Adrenalin 26.2.2 meets the routes' floor
    assert doc["frameworks"] == []


def test_doctor_rx6700xt_says_rocm_does_not_support_it(
        capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(capsys, "--replay", str(RX6700XT), "doctor", "--json")
    assert "windows.rocm_gpu_unsupported" in findings(doc)


def test_doctor_rtx4090_finds_the_cuda_torch_usable(capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(capsys, "--replay", str(RTX4090), "doctor", "--json")
    by_id = findings(doc)
    [route] = by_id["windows.pytorch_route"]
    assert route["fix_commands"] == []
    assert "PyTorch 2.7.0+cu128 here is a CUDA build and sees the GPU" in route["detail"]
    assert "Driver 591.74" in route["detail"]
    [usable] = by_id["gpu.usable"]
    assert usable["severity"] == "ok" and usable["gpu"] == 0
    assert "windows.driver_too_old" not in by_id
    [torch] = doc["frameworks"]
    assert (torch["version"], torch["build"], torch["gpu_available"]) == (
        "2.7.0+cu128", "cuda", True)
    assert torch["python"] == "K:\\ComfyUI\\python_embeded\\python.exe"


# ----------------------------------------------------------------------------- record


@pytest.mark.parametrize(("path", "bus", "util_percent", "vram_used_bytes"), [
    (XTX, "0000:03:00.0", 25.7208, round(0.947 * (1 << 30))),
    (RX6700XT, "0000:03:00.0", 25.7208, round(0.947 * (1 << 30))),
    (RTX4090, "0000:01:00.0", 87.0, 1361 * (1 << 20)),
], ids=["rx7900xtx", "rx6700xt", "rtx4090"])
def test_record_gives_the_counter_values(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                         path: Path, bus: str, util_percent: float,
                                         vram_used_bytes: int) -> None:
    out = tmp_path / "run.sqlite"
    summary = run_json(capsys, "--replay", str(path), "record", "-o", str(out),
                       "--duration", "2", "--json")
    assert summary["gpus"] == 1 and summary["error"] is None and summary["ticks"] >= 2
    with open_recording(out) as recording:
        _times, util = recording.read(f"{bus}/gpu_util_percent")
        _times, vram = recording.read(f"{bus}/vram_used_bytes")
        assert len(util) >= 2 and list(util) == pytest.approx([util_percent] * len(util))
        assert list(vram) == pytest.approx([vram_used_bytes] * len(vram))
        reasons = recording.missing_reasons(f"{bus}/temp_edge_c")
        why = " ".join(reason for _t, reason in reasons.get(f"{bus}/temp_edge_c", []))
        assert ("AMD's SDK" if path is not RTX4090 else "NVML") in why


# ----------------------------------------------------------------------------- screenshots


def test_screenshot_renders_every_page(tmp_path: Path) -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    result = subprocess.run(
        [sys.executable, "-m", "gpuscope", "screenshot", "--replay", str(XTX),
         "--out", str(tmp_path)], capture_output=True, text=True, timeout=300, env=env,
        check=False)
    assert result.returncode == 0, result.stderr
    for page in PAGES:
        png = tmp_path / page
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", page
        assert png.stat().st_size > 20_000, page  # a drawn page, not a blank one


# ----------------------------------------------------------------------------- probe branches

# What each probe answers on each replayed Windows machine: its Windows branch, not Linux's.
EXPECTED_STATES = {
    XTX: {"amdgpu_sysfs": ProbeState.NOT_APPLICABLE, "kfd": ProbeState.NOT_APPLICABLE,
          "amdsmi": ProbeState.LIBRARY_MISSING, "nvml": ProbeState.LIBRARY_MISSING,
          "host": ProbeState.OK, "stack": ProbeState.OK, "windows_display": ProbeState.OK,
          "hip_sdk": ProbeState.OK, "windows_host": ProbeState.OK},
    RX6700XT: {"amdgpu_sysfs": ProbeState.NOT_APPLICABLE, "kfd": ProbeState.NOT_APPLICABLE,
               "amdsmi": ProbeState.LIBRARY_MISSING, "nvml": ProbeState.LIBRARY_MISSING,
               "host": ProbeState.OK, "stack": ProbeState.OK,
               "windows_display": ProbeState.OK, "hip_sdk": ProbeState.LIBRARY_MISSING,
               "windows_host": ProbeState.OK},
    RTX4090: {"amdgpu_sysfs": ProbeState.NOT_APPLICABLE, "kfd": ProbeState.NOT_APPLICABLE,
              "amdsmi": ProbeState.LIBRARY_MISSING, "nvml": ProbeState.OK,
              "host": ProbeState.OK, "stack": ProbeState.OK, "windows_display": ProbeState.OK,
              "hip_sdk": ProbeState.LIBRARY_MISSING, "windows_host": ProbeState.OK},
}


@pytest.mark.parametrize("path", REPLAYS, ids=lambda p: p.stem)
def test_every_probe_takes_its_windows_branch(path: Path) -> None:
    system = ReplaySystem.from_file(path)
    assert is_windows(system)
    expected = EXPECTED_STATES[path]
    assert {spec.name for spec in PROBES} == set(expected)  # a new probe needs a line here
    for spec in PROBES:
        result = run_probe(spec, system)
        assert result.status.state is expected[spec.name], (spec.name, result.status)
        assert "probe failed" not in (result.status.reason or ""), result.status
        if result.status.state is ProbeState.NOT_APPLICABLE:
            assert "Linux-only" in (result.status.reason or "")
    display = run_probe(next(s for s in PROBES if s.name == "windows_display"), system)
    [sighting] = display.sightings
    assert sighting.layer is Layer.WINDOWS and sighting.facts.luid
    # Read from the recorded registry and DXGI answers, never from the CIM fallback.
    assert REGISTRY_LIBRARY in system.snapshot.libraries and DXGI_LIBRARY in \
        system.snapshot.libraries
    assert "qwMemorySize" in sighting.field_sources["vram_total_bytes"]


@pytest.mark.parametrize("path", REPLAYS, ids=lambda p: p.stem)
def test_the_counter_reader_finds_each_gpu_by_its_luid(path: Path) -> None:
    system = ReplaySystem.from_file(path)
    inventory = collect_inventory(system)
    [gpu] = inventory.gpus
    session = WindowsCounterSession(system)
    reader = session.reader(gpu.luid, gpu.vendor, gpu.vram_total_bytes)
    values = reader.read(["gpu_util_percent", "vram_used_bytes", "vram_total_bytes",
                          "temp_edge_c"])
    assert values["gpu_util_percent"][0] is not None
    assert values["vram_used_bytes"][0] is not None
    assert values["vram_total_bytes"][0] == gpu.vram_total_bytes
    assert "temp_edge_c" in reader.unsupported
    if gpu.vendor is Vendor.AMD:
        assert "AMD's SDK" in reader.unsupported["temp_edge_c"]
    answer = system.snapshot.libraries[LIBRARY_NAME]
    assert isinstance(answer, dict) and answer["warming_up"] == []  # the complete collection
    counters = answer["counters"]
    assert isinstance(counters, dict)
    assert ENGINE_COUNTER in counters and DEDICATED_COUNTER in counters
    session.close()
