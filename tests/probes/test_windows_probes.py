"""The Windows probes (display adapters, HIP SDK, WSL and the py launcher) replayed on Linux.

Each machine is a Snapshot as a Windows run records it: the registry answer is what
`collect_registry` writes, produced here by running it over a fake winreg; the DXGI answer has
the shape `collect_dxgi` writes. What each value is and where it comes from:
tests/fixtures/windows/README.md and SOURCES.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from fakes.fake_winreg import (
    REG_BINARY,
    REG_DWORD,
    REG_MULTI_SZ,
    REG_QWORD,
    REG_SZ,
    FakeKey,
    FakeWinreg,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuscope.evidence import LiveSystem, RecordingSystem, ReplaySystem, Snapshot
from gpuscope.inventory.join import join_gpus
from gpuscope.inventory.probe_runs import PROBES, ProbeSpec, collect_inventory
from gpuscope.model import Fact, GpuKind, Layer, ProbeResult, ProbeState, Vendor
from gpuscope.probes.hip_sdk import parse_hipconfig_version, probe_hip_sdk, release_of
from gpuscope.probes.windows_collectors import collect_registry
from gpuscope.probes.windows_display import (
    CIM_COMMAND,
    DXGI_LIBRARY,
    REGISTRY_LIBRARY,
    format_luid,
    parse_cim_json,
    probe_windows_display,
    registry_size,
    registry_text,
)
from gpuscope.probes.windows_host import (
    decode_wsl,
    parse_py_list,
    parse_wsl_list,
    parse_wsl_status,
    probe_windows_host,
)

FIXTURES = Path(__file__).parents[1] / "fixtures" / "windows"
CLASS = r"HKLM\SYSTEM\CurrentControlSet\Control\Class\{4d36e968-e325-11ce-bfc1-08002be10318}"
ENUM = r"HKLM\SYSTEM\CurrentControlSet\Enum\PCI"
DISPLAY_GUID = "{4d36e968-e325-11ce-bfc1-08002be10318}"

WINDOWS_11 = {"status": "ok", "system": "Windows", "release": "10", "version": "10.0.22631",
              "machine": "AMD64", "win32_ver": ["10", "10.0.22631", "SP0", "Multiprocessor Free"],
              "win32_edition": "Professional"}
LINUX = {"status": "ok", "system": "Linux", "release": "6.8.0-45-generic"}

# The RX 7900 XTX of ROCm/amdgpu#151's kernel log: 0x1002:0x744C, board 0x1DA2:0x471E, rev C8.
XTX_INSTANCE = r"VEN_1002&DEV_744C&SUBSYS_471E1DA2&REV_C8"
# The RTX 3090 of the dxdiag capture in SOURCES.md.
RTX3090_INSTANCE = r"VEN_10DE&DEV_2204&SUBSYS_38841462&REV_A1"


def _xtx_registry() -> FakeWinreg:
    return FakeWinreg({
        CLASS + r"\0000": FakeKey({
            "DriverDesc": ("AMD Radeon RX 7900 XTX", REG_SZ),
            "DriverVersion": ("31.0.24033.1003", REG_SZ),
            "ProviderName": ("Advanced Micro Devices, Inc.", REG_SZ),
            "MatchingDeviceId": (r"PCI\VEN_1002&DEV_744C&REV_C8", REG_SZ),
            "HardwareInformation.qwMemorySize": (0x600000000, REG_QWORD),
            "HardwareInformation.MemorySize": (0xFFF00000, REG_DWORD),
            "HardwareInformation.AdapterString": (b"A\x00M\x00D\x00", REG_BINARY),
            "RadeonSoftwareVersion": ("24.12.1", REG_SZ),
            "RadeonSoftwareEdition": ("Adrenalin", REG_SZ),
        }),
        # A card taken out of the machine: its class key and Enum instance stay behind.
        CLASS + r"\0001": FakeKey({
            "DriverDesc": ("AMD Radeon RX 580 Series", REG_SZ),
            "MatchingDeviceId": (r"PCI\VEN_1002&DEV_67DF&REV_E7", REG_SZ),
        }),
        CLASS + r"\Configuration\Reason": FakeKey({"Name": ("x", REG_SZ)}),
        CLASS + r"\Properties": FakeKey(denied=True),
        ENUM + "\\" + XTX_INSTANCE + r"\6&2a1f3b1d&0&00000019": FakeKey({
            "Driver": (DISPLAY_GUID + r"\0000", REG_SZ),
            "LocationInformation": ("PCI bus 3, device 0, function 0", REG_SZ),
            "HardwareID": ([r"PCI\VEN_1002&DEV_744C&SUBSYS_471E1DA2&REV_C8"], REG_MULTI_SZ),
        }),
        ENUM + r"\VEN_1002&DEV_67DF&SUBSYS_C5801682&REV_E7\4&26519aed&0&00e6": FakeKey({
            "Driver": (DISPLAY_GUID + r"\0001", REG_SZ),
            "LocationInformation": ("PCI bus 8, device 0, function 0", REG_SZ),
        }),
        # The card's HDMI audio function: another device class, not a display adapter.
        ENUM + r"\VEN_1002&DEV_AB30&SUBSYS_AB301002&REV_00\6&2a1f3b1d&0&01000019": FakeKey({
            "Driver": ("{4d36e96c-e325-11ce-bfc1-08002be10318}\\0003", REG_SZ),
        }),
    })


def _dxgi(*adapters: dict[str, Any]) -> dict[str, Any]:
    return {"status": "ok", "adapters": list(adapters)}


def _adapter(index: int, description: str, vendor: int, device: int, subsys: int,
             revision: int, dedicated: int, shared: int, luid_low: int,
             flags: int = 0) -> dict[str, Any]:
    return {"index": index, "description": description, "vendor_id": vendor,
            "device_id": device, "subsys_id": subsys, "revision": revision,
            "dedicated_video_memory_bytes": dedicated, "dedicated_system_memory_bytes": 0,
            "shared_system_memory_bytes": shared, "luid_high": 0, "luid_low": luid_low,
            "flags": flags}


XTX_DXGI = _adapter(0, "AMD Radeon RX 7900 XTX", 0x1002, 0x744C, 0x471E1DA2, 0xC8,
                    25753026560, 34301394944, 0xD1A2)
BASIC_RENDER = _adapter(1, "Microsoft Basic Render Driver", 0x1414, 0x008C, 0, 0, 0,
                        34301394944, 0xD3F1, flags=2)


def _windows(**sections: Any) -> ReplaySystem:
    libraries = {"platform": WINDOWS_11, **sections.pop("libraries", {})}
    return ReplaySystem(Snapshot(libraries=libraries, **sections))


def _fact(result: ProbeResult, key: str) -> Fact:
    return next(f for f in result.stack_facts if f.key == key)


# ----------------------------------------------------------------------------- collectors


def test_registry_collector_reads_each_adapter_with_its_pci_device() -> None:
    answer = collect_registry(_xtx_registry())
    assert answer["status"] == "ok" and answer["key"] == CLASS  # type: ignore[index]
    adapters = answer["adapters"]  # type: ignore[index]
    assert [a["subkey"] for a in adapters] == ["0000", "0001"]  # not Configuration, Properties
    first = adapters[0]
    assert first["values"]["HardwareInformation.qwMemorySize"] == {
        "type": "REG_QWORD", "value": 0x600000000}
    assert first["values"]["HardwareInformation.AdapterString"] == {
        "type": "REG_BINARY", "value": "41004d004400"}  # bytes as hex: plain JSON
    assert first["device"]["instance_id"] == rf"PCI\{XTX_INSTANCE}\6&2a1f3b1d&0&00000019"
    assert first["device"]["values"]["LocationInformation"]["value"] == \
        "PCI bus 3, device 0, function 0"
    assert "ProviderName" in first["values"] and "ReleaseVersion" not in first["values"]


def test_registry_collector_says_why_when_the_key_is_denied_or_missing() -> None:
    denied = collect_registry(FakeWinreg({CLASS: FakeKey(denied=True)}))
    assert denied["status"] == "permission_denied"  # type: ignore[index]
    assert "PermissionError" in denied["error"]  # type: ignore[index]
    missing = collect_registry(FakeWinreg({}))
    assert missing["status"] == "error"  # type: ignore[index]
    assert "FileNotFoundError" in missing["error"]  # type: ignore[index]


def test_every_registry_key_the_collector_opens_is_closed() -> None:
    fake = _xtx_registry()
    collect_registry(fake)
    assert fake.opened and all(handle.closed for handle in fake.opened)


def test_the_collectors_answer_survives_a_snapshot_round_trip(tmp_path: Path) -> None:
    recording = RecordingSystem(LiveSystem())  # a live run calls the collector
    recording.library(REGISTRY_LIBRARY, lambda: collect_registry(_xtx_registry()))
    path = tmp_path / "windows.json"
    recording.snapshot.save(path)
    replayed = ReplaySystem.from_file(path).library(REGISTRY_LIBRARY, dict)
    assert replayed == collect_registry(_xtx_registry())


# ----------------------------------------------------------------------------- display


def test_the_rx_7900_xtx_seen_by_windows() -> None:
    system = _windows(libraries={REGISTRY_LIBRARY: collect_registry(_xtx_registry()),
                                 DXGI_LIBRARY: _dxgi(XTX_DXGI, BASIC_RENDER)})
    result = probe_windows_display(system)
    assert result.status.state is ProbeState.OK
    assert len(result.sightings) == 1  # no Basic Render Driver, no removed RX 580
    sighting = result.sightings[0]
    facts = sighting.facts
    assert sighting.layer is Layer.WINDOWS
    assert facts.name == "AMD Radeon RX 7900 XTX" and facts.vendor is Vendor.AMD
    assert (facts.pci_vendor_id, facts.pci_device_id, facts.pci_revision) == (
        "0x1002", "0x744c", "0xc8")
    assert (facts.pci_subsystem_vendor_id, facts.pci_subsystem_device_id) == ("0x1da2", "0x471e")
    assert facts.pci_bus == "0000:03:00.0"
    assert facts.vram_total_bytes == 24 * (1 << 30)  # qwMemorySize, not the 4 GB MemorySize
    assert "qwMemorySize" in sighting.field_sources["vram_total_bytes"]
    assert facts.luid == "0x00000000_0x0000d1a2"
    assert facts.gfx_target == "gfx1100" and facts.kind is GpuKind.DISCRETE
    assert facts.driver_version == "31.0.24033.1003"
    assert "Advanced Micro Devices" in sighting.field_sources["driver_version"]
    assert "RX 580" in result.status.reason and "DXGI" in result.status.reason
    assert _fact(result, "amd_driver_version").value == "24.12.1"
    assert "Adrenalin" in (_fact(result, "amd_driver_version").source or "")
    assert _fact(result, "windows_display_driver:0000:03:00.0").value == \
        "31.0.24033.1003 (Advanced Micro Devices, Inc.)"


def test_without_dxgi_the_registry_alone_names_the_gpus() -> None:
    system = _windows(libraries={REGISTRY_LIBRARY: collect_registry(_xtx_registry())})
    result = probe_windows_display(system)
    assert [s.facts.pci_bus for s in result.sightings] == ["0000:03:00.0", "0000:08:00.0"]
    assert result.sightings[0].facts.luid is None
    assert "windows-dxgi-adapters not captured" in result.sightings[0].missing_reasons["luid"]


def test_the_registry_sighting_joins_hipinfo_on_the_pci_bus() -> None:
    display = probe_windows_display(_windows(libraries={
        REGISTRY_LIBRARY: collect_registry(_xtx_registry()),
        DXGI_LIBRARY: _dxgi(XTX_DXGI)}))
    sdk = probe_hip_sdk(_hip_sdk_machine())
    gpus = join_gpus([*display.sightings, *sdk.sightings])
    assert len(gpus) == 1
    gpu = gpus[0]
    assert set(gpu.seen_by) == {Layer.WINDOWS, Layer.ROCM}
    assert gpu.gfx_target == "gfx1100" and gpu.luid == "0x00000000_0x0000d1a2"


def test_a_failed_registry_falls_back_to_win32_videocontroller() -> None:
    cim = (FIXTURES / "cim-win32-videocontroller.json").read_text()
    # The APU of the dxdiag capture: 496 MB dedicated, 7888 MB shared (SOURCES.md).
    apu = _adapter(0, "AMD Radeon(TM) Graphics", 0x1002, 0x1638, 0x10FC1043, 0xC6,
                   496 << 20, 7888 << 20, 0x7E1C)
    system = _windows(
        libraries={REGISTRY_LIBRARY: {"status": "permission_denied",
                                      "error": "PermissionError: [WinError 5] Access is denied"},
                   DXGI_LIBRARY: _dxgi(apu)},
        commands=[{"argv": list(CIM_COMMAND), "returncode": 0, "stdout": cim}])
    result = probe_windows_display(system)
    assert result.status.state is ProbeState.OK
    assert "Access is denied" in result.status.reason
    by_name = {s.facts.name: s for s in result.sightings}
    graphics = by_name["AMD Radeon(TM) Graphics"]
    assert graphics.facts.luid == "0x00000000_0x00007e1c"  # joined to DXGI by its PCI ids
    assert graphics.facts.kind is GpuKind.INTEGRATED
    assert graphics.facts.vram_total_bytes == 496 << 20
    assert "DedicatedVideoMemory" in graphics.field_sources["vram_total_bytes"]
    # Win32_VideoController lists present cards only: one DXGI does not list is kept.
    radeon = by_name["Radeon RX 580 Series"]
    assert radeon.facts.pci_device_id == "0x67df" and radeon.facts.luid is None
    assert "AdapterRAM" in radeon.missing_reasons["vram_total_bytes"]


def test_win32_videocontroller_adapterram_stops_at_4_gb() -> None:
    # 4293918720: the AdapterRAM a GTX 1660 reported (SOURCES.md).
    text = ('{"Name": "NVIDIA GeForce GTX 1660", "AdapterRAM": 4293918720, '
            '"PNPDeviceID": "PCI\\\\VEN_10DE&DEV_2184&SUBSYS_00000000&REV_A1\\\\4&1"}')
    adapters, problem = parse_cim_json(text)
    assert problem is None and adapters[0].vram_total_bytes is None
    assert "4 GB" in (adapters[0].vram_missing or "")
    assert parse_cim_json("not json")[1] is not None
    assert parse_cim_json("[" * 100_000)[1] is not None  # no RecursionError
    assert parse_cim_json("")[0] == []


def test_dxgi_alone_still_gives_the_gpu_and_its_luid() -> None:
    system = _windows(libraries={
        REGISTRY_LIBRARY: {"status": "error", "error": "OSError: boom"},
        DXGI_LIBRARY: _dxgi(_adapter(0, "NVIDIA GeForce RTX 3090", 0x10DE, 0x2204, 0x38841462,
                                     0xA1, 24348 * (1 << 20), 65492 * (1 << 20), 0x1F2E))})
    result = probe_windows_display(system)
    facts = result.sightings[0].facts
    assert facts.name == "NVIDIA GeForce RTX 3090" and facts.vendor is Vendor.NVIDIA
    assert facts.vram_total_bytes == 24348 * (1 << 20)
    assert (facts.pci_subsystem_vendor_id, facts.pci_subsystem_device_id) == ("0x1462", "0x3884")
    assert "Win32_VideoController failed (not_found)" in result.status.reason


def test_nothing_captured_says_so() -> None:
    result = probe_windows_display(_windows())
    assert result.status.state is ProbeState.NOT_CAPTURED
    broken = probe_windows_display(_windows(libraries={
        REGISTRY_LIBRARY: {"status": "error", "error": "OSError: x"},
        DXGI_LIBRARY: {"status": "error", "error": "CreateDXGIFactory1 failed"}}))
    assert broken.status.state is ProbeState.ERROR


def test_malformed_answers_never_raise() -> None:
    for registry in (None, [], {"status": "ok"}, {"status": "ok", "adapters": [1, {"x": 2}]},
                     {"status": "ok", "adapters": [{"subkey": "0000", "values": {
                         "DriverDesc": {"value": 3}, "MatchingDeviceId": 5}}]}):
        for dxgi in (None, {"status": "ok", "adapters": [{"index": "0"}, None]}):
            result = probe_windows_display(_windows(libraries={REGISTRY_LIBRARY: registry,
                                                               DXGI_LIBRARY: dxgi}))
            assert "probe failed" not in (result.status.reason or ""), result.status.reason


def test_registry_sizes_and_luids() -> None:
    assert registry_size({"q": {"type": "REG_BINARY", "value": "0000000006000000"}}, "q") == \
        0x600000000
    assert registry_size({"q": {"type": "REG_QWORD", "value": 25769803776}}, "q") == 25769803776
    assert registry_size({"q": {"type": "REG_BINARY", "value": "00"}}, "q") is None
    assert registry_size({}, "q") is None
    assert registry_text({"a": {"type": "REG_BINARY", "value": "41004d00440000000000"}},
                         "a") == "AMD"
    assert registry_text({"a": {"type": "REG_BINARY", "value": "410"}}, "a") is None
    assert registry_text({"a": {"type": "REG_SZ", "value": " AMD "}}, "a") == "AMD"
    assert format_luid(0, 0xD1A2) == "0x00000000_0x0000d1a2"
    assert format_luid(-1, 1) == "0xffffffff_0x00000001"


# ----------------------------------------------------------------------------- HIP SDK


def _hip_sdk_machine(hipinfo: str = "hipinfo-rx7900xtx.txt", returncode: int = 0) -> ReplaySystem:
    root = r"C:\Program Files\AMD\ROCm"
    bin_dir = root + r"\6.2\bin"
    output = (FIXTURES / hipinfo).read_text()
    return _windows(
        env={"OS": "Windows_NT", "HIP_PATH": root + "\\6.2\\",
             "HIP_PATH_62": root + "\\6.2\\", "HIP_PATH_57": root + "\\5.7\\",
             "ProgramFiles": r"C:\Program Files"},
        dirs={root: {"entries": ["5.7", "6.2"]}},
        stats={root + "\\6.2\\": {"exists": True},
               bin_dir + r"\hipconfig.bin.exe": {"exists": True},
               bin_dir + r"\hipInfo.exe": {"exists": True}},
        commands=[
            {"argv": [bin_dir + r"\hipconfig.bin.exe", "--version"], "returncode": 0,
             "stdout": (FIXTURES / "hipconfig-version-6.2.txt").read_text()},
            {"argv": [bin_dir + r"\hipInfo.exe"], "returncode": returncode,
             "stdout": output if returncode == 0 else "", "stderr": "" if returncode == 0
             else output},
        ])


def test_the_hip_sdk_and_what_its_runtime_sees() -> None:
    result = probe_hip_sdk(_hip_sdk_machine())
    assert result.status.state is ProbeState.OK
    assert _fact(result, "hip_sdk_version").value == "6.2"
    assert _fact(result, "rocm_version").value == "6.2"
    assert _fact(result, "hip_path").value == "C:\\Program Files\\AMD\\ROCm\\6.2\\"
    assert _fact(result, "hip_sdk_versions_installed").value == "5.7, 6.2"
    assert _fact(result, "hip_runtime_version").value == "6.2.41512"
    [gpu] = result.sightings
    assert gpu.layer is Layer.ROCM and gpu.facts.gfx_target == "gfx1100"
    assert gpu.facts.pci_bus == "0000:03:00.0"
    assert "gfx1100" in result.status.reason


@pytest.mark.parametrize("hipconfig_s", [6.0, 8.5])
def test_a_slow_hipconfig_leaves_hipinfo_the_time_left_and_the_probe_answers(
        hipconfig_s: float, monkeypatch: pytest.MonkeyPatch) -> None:
    """The inventory waits 10 s for a probe: hipconfig and hipInfo.exe share 9 s, so a slow
    hipconfig never makes the probe time out with nothing."""
    from gpuscope.probes import hip_sdk

    now = [100.0]
    monkeypatch.setattr(hip_sdk, "_clock", lambda: now[0])
    machine = _hip_sdk_machine()
    timeouts: dict[str, float] = {}
    real_run = machine.run

    def run(argv: Sequence[str], timeout_s: float = 10.0) -> Any:
        name = argv[0].rsplit("\\", 1)[-1]
        timeouts[name] = timeout_s
        now[0] += hipconfig_s if name.startswith("hipconfig") else 1.0
        return real_run(argv, timeout_s)

    monkeypatch.setattr(machine, "run", run)
    result = probe_hip_sdk(machine)
    assert result.status.state is ProbeState.OK
    assert _fact(result, "hip_sdk_version").value == "6.2"
    assert timeouts["hipconfig.bin.exe"] == hip_sdk.HIPCONFIG_TIMEOUT_S
    if hipconfig_s == 6.0:
        assert timeouts["hipInfo.exe"] == pytest.approx(3.0)  # 9 s less hipconfig's 6
        assert len(result.sightings) == 1
    else:
        assert "hipInfo.exe" not in timeouts
        assert "hipInfo.exe was not run" in result.status.reason
    assert sum(hipconfig_s if n.startswith("hipconfig") else t
               for n, t in timeouts.items()) <= hip_sdk.COMMANDS_BUDGET_S


def test_a_gpu_the_sdk_does_not_support_is_said() -> None:
    result = probe_hip_sdk(_hip_sdk_machine("hipinfo-no-device.txt", returncode=1))
    assert result.status.state is ProbeState.OK and not result.sightings
    assert "no ROCm-capable device is detected" in result.status.reason


def test_no_hip_sdk() -> None:
    result = probe_hip_sdk(_windows(env={"ProgramFiles": r"C:\Program Files"}))
    assert result.status.state is ProbeState.LIBRARY_MISSING
    assert result.status.reason == ("no HIP SDK: HIP_PATH is not set and "
                                    r"C:\Program Files\AMD\ROCm does not exist")
    assert _fact(result, "hip_sdk_version").missing_reason == result.status.reason
    assert "https://www.amd.com/" in (result.status.hint or "")


def test_hip_sdk_without_hip_path_uses_the_newest_release_folder() -> None:
    root = r"C:\Program Files\AMD\ROCm"
    result = probe_hip_sdk(_windows(dirs={root: {"entries": ["5.7", "6.1", "6.10x"]}}))
    assert _fact(result, "hip_path").value == root + r"\6.1"
    assert _fact(result, "hip_sdk_version").value == "6.1"
    assert "no hipconfig" in result.status.reason and "no hipInfo.exe" in result.status.reason


def test_hipconfig_and_folder_versions() -> None:
    assert parse_hipconfig_version("6.2.41512-db3292736") == "6.2.41512"
    assert parse_hipconfig_version("garbage") is None
    assert release_of("C:\\Program Files\\AMD\\ROCm\\6.2\\") == "6.2"
    assert release_of(r"D:\hip") is None


# ----------------------------------------------------------------------------- host


def _utf16_as_ansi(text: str) -> str:
    """What Python's text-mode subprocess gives for wsl.exe's UTF-16LE on an English
    Windows (the ANSI code page, cp1252)."""
    return text.encode("utf-16-le").decode("cp1252", errors="replace")


def test_wsl_output_is_decoded_from_utf16() -> None:
    listing = (FIXTURES / "wsl-l-v.txt").read_text()
    mangled = _utf16_as_ansi(listing)
    assert "\x00" in mangled
    assert decode_wsl(mangled) == listing
    distros = parse_wsl_list(mangled)
    assert [(d.name, d.state, d.version, d.default) for d in distros] == [
        ("Ubuntu", "Running", 2, True), ("Legacy", "Stopped", 1, False),
        ("Ubuntu-18.04", "Stopped", 1, False), ("docker-desktop", "Running", 2, False)]
    status = (FIXTURES / "wsl-status.txt").read_text()
    assert parse_wsl_status(_utf16_as_ansi(status)) == ("2", "Debian")


def test_py_launcher_list() -> None:
    pythons = parse_py_list((FIXTURES / "py-0p.txt").read_text())
    assert [(p.tag, p.default) for p in pythons] == [
        ("3.12", True), ("3.11", False), ("Astral/CPython3.11.9", False)]
    assert pythons[0].path.endswith(r"Python312\python.exe")
    assert parse_py_list(" -3.9-64 *       C:\\Python39\\python.exe\n")[0].tag == "3.9-64"


def test_windows_host_facts() -> None:
    system = _windows(commands=[
        {"argv": ["wsl", "-l", "-v"], "returncode": 0,
         "stdout": _utf16_as_ansi((FIXTURES / "wsl-l-v.txt").read_text())},
        {"argv": ["wsl", "--status"], "returncode": 0,
         "stdout": _utf16_as_ansi((FIXTURES / "wsl-status.txt").read_text())},
        {"argv": ["py", "-0p"], "returncode": 0, "stdout": (FIXTURES / "py-0p.txt").read_text()},
    ])
    result = probe_windows_host(system)
    assert result.status.state is ProbeState.OK
    assert _fact(result, "wsl_distros").value == (
        "Ubuntu (WSL2, Running), Legacy (WSL1, Stopped), Ubuntu-18.04 (WSL1, Stopped), "
        "docker-desktop (WSL2, Running)")
    assert _fact(result, "wsl_default_version").value == "2"
    assert _fact(result, "wsl_default_distro").value == "Ubuntu"
    assert str(_fact(result, "py_launcher_pythons").value).startswith("3.12 (default): C:\\")


def test_windows_host_without_wsl_or_py() -> None:
    result = probe_windows_host(_windows())
    assert result.status.state is ProbeState.OK
    assert _fact(result, "wsl_distros").missing_reason == \
        "wsl.exe not found: WSL is not installed"
    assert _fact(result, "py_launcher_pythons").missing_reason == "py -0p not found"


# ----------------------------------------------------------------------------- not Windows


@pytest.mark.parametrize("probe", [probe_windows_display, probe_hip_sdk, probe_windows_host])
def test_not_windows(probe: Any) -> None:
    linux = ReplaySystem(Snapshot(libraries={"platform": LINUX}))
    result = probe(linux)
    assert result.status.state is ProbeState.NOT_APPLICABLE
    assert result.status.reason == "not Windows"
    # Without the platform answer, Windows' own OS variable decides, as the stack probe reads.
    assert probe(ReplaySystem(Snapshot(env={"OS": "Windows_NT"}))).status.state is not \
        ProbeState.NOT_APPLICABLE


# ----------------------------------------------------------------------------- inventory

WINDOWS_SPECS = (
    ProbeSpec("windows_display", "Windows display adapters",
              "gpuscope.probes.windows_display:probe_windows_display"),
    ProbeSpec("hip_sdk", "HIP SDK (Windows)", "gpuscope.probes.hip_sdk:probe_hip_sdk"),
    ProbeSpec("windows_host", "Windows host (WSL, py launcher)",
              "gpuscope.probes.windows_host:probe_windows_host"),
)


def test_the_windows_rx_7900_xtx_in_the_inventory() -> None:
    machine = _hip_sdk_machine()
    machine.snapshot.libraries.update({REGISTRY_LIBRARY: collect_registry(_xtx_registry()),
                                       DXGI_LIBRARY: _dxgi(XTX_DXGI, BASIC_RENDER)})
    inventory = collect_inventory(ReplaySystem(machine.snapshot),
                                  probes=(*PROBES, *WINDOWS_SPECS))
    [gpu] = inventory.gpus
    assert gpu.vendor is Vendor.AMD and gpu.gfx_target == "gfx1100"
    assert gpu.vram_total_bytes is not None and gpu.vram_total_bytes > 23 * (1 << 30)
    assert gpu.driver_version == "31.0.24033.1003"
    assert gpu.luid == "0x00000000_0x0000d1a2"
    assert inventory.stack.rocm_version == "6.2"
    assert inventory.stack.extras["hip_sdk_version"] == "6.2"
    assert inventory.stack.extras["amd_driver_version"] == "24.12.1"
    assert inventory.host.os == "windows"
    states = {p.name: p.state for p in inventory.probes}
    assert states["windows_display"] is states["hip_sdk"] is ProbeState.OK


@given(st.text(max_size=400))
@settings(max_examples=200, deadline=None)
def test_the_text_readers_never_raise(text: str) -> None:
    assert isinstance(decode_wsl(text), str)
    parse_wsl_list(text)
    parse_wsl_status(text)
    parse_py_list(text)
    adapters, problem = parse_cim_json(text)
    assert adapters == [] or problem is None


def test_a_card_without_its_vendor_driver_is_still_a_gpu() -> None:
    registry = FakeWinreg({
        CLASS + r"\0000": FakeKey({
            "DriverDesc": ("Microsoft Basic Display Adapter", REG_SZ),
            "MatchingDeviceId": (r"PCI\CC_0300", REG_SZ)}),
        ENUM + "\\" + XTX_INSTANCE + r"\6&2a1f3b1d&0&00000019": FakeKey({
            "Driver": (DISPLAY_GUID + r"\0000", REG_SZ),
            "LocationInformation": ("PCI bus 3, device 0, function 0", REG_SZ)}),
    })
    result = probe_windows_display(_windows(libraries={
        REGISTRY_LIBRARY: collect_registry(registry), DXGI_LIBRARY: _dxgi(BASIC_RENDER)}))
    [sighting] = result.sightings
    assert sighting.facts.pci_device_id == "0x744c" and sighting.facts.name is None
    assert "Basic Display Adapter" in sighting.missing_reasons["name"]
    assert join_gpus(result.sightings)[0].name is not None  # named from the device table


def test_a_stale_hip_path_is_no_sdk() -> None:
    result = probe_hip_sdk(_windows(env={"HIP_PATH": "C:\\Program Files\\AMD\\ROCm\\5.7\\"}))
    assert result.status.state is ProbeState.LIBRARY_MISSING
    assert "which does not exist" in (result.status.reason or "")


# ----------------------------------------------------------------------------- NVIDIA fallback

NVIDIA_SMI = "C:\\Windows\\system32\\nvidia-smi.exe"
# collect_nvml's answer where nvml.dll cannot be loaded.
NVML_NOT_FOUND = {"status": "library_missing", "error_class": "NVMLError_LibraryNotFound",
                  "error": "NVML Shared Library Not Found"}


def test_on_windows_nvidia_smi_stands_in_when_nvml_does_not_load() -> None:
    from gpuscope.probes.nvml import probe_nvml

    table = (Path(__file__).parents[1] / "fixtures" / "corpus-windows"
             / "nvidia-smi-ollama4270-win-rtx4060-wddm.txt").read_text(encoding="utf-8")
    system = _windows(libraries={"nvml": NVML_NOT_FOUND}, which={"nvidia-smi": NVIDIA_SMI},
                      commands=[{"argv": [NVIDIA_SMI], "returncode": 0, "stdout": table}])
    result = probe_nvml(system)
    assert result.status.state is ProbeState.OK
    assert "nvidia-smi" in (result.status.reason or "")
    (sighting,) = result.sightings
    assert sighting.facts.name == "NVIDIA GeForce RTX 4060"
    assert sighting.facts.pci_bus is not None and sighting.facts.pci_bus.endswith("01:00.0")
    assert any(f.key == "nvidia_driver_version" and f.value == "537.70"
               for f in result.stack_facts)
    # Off Windows, or without nvidia-smi, NVML's own failure stands.
    assert probe_nvml(_windows(libraries={"nvml": NVML_NOT_FOUND})).status.state is \
        ProbeState.LIBRARY_MISSING
    linux = ReplaySystem(Snapshot(libraries={"platform": LINUX, "nvml": NVML_NOT_FOUND},
                                  which={"nvidia-smi": "/usr/bin/nvidia-smi"}))
    assert probe_nvml(linux).status.state is ProbeState.LIBRARY_MISSING
