"""The AMD SMI probe: the real collect_amdsmi against a fake amdsmi (7.0.2 API), the import
failures of the real wheel, parse_amdsmi on its JSON, and the real import on this machine."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakes import fake_amdsmi
from fakes.fake_amdsmi import BrokenImport, Fail, FakeAmdsmi, two_radeons_table
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuscope.evidence import LiveSystem, RecordingSystem, ReplaySystem, Snapshot
from gpuscope.model import JsonValue, Layer, ProbeState, Vendor
from gpuscope.probes.amdsmi import collect_amdsmi, parse_amdsmi, probe_amdsmi

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "snapshots" / "nvidia_rtx4090.json"
PACKAGE_MISSING = "amdsmi Python package not installed (pip install 'gpuscope[amd]')"
LIBRARY_MISSING = "AMD SMI library not installed (part of ROCm)"


def collect_with(monkeypatch: pytest.MonkeyPatch, fake: FakeAmdsmi) -> dict[str, Any]:
    monkeypatch.setitem(sys.modules, "amdsmi", fake)
    answer = collect_amdsmi()
    assert isinstance(answer, dict)
    json.dumps(answer)  # plain JSON, as a snapshot stores it
    return answer


@pytest.fixture
def broken_import(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[BrokenImport]]:
    """Lets a test make `import amdsmi` fail with a chosen exception."""
    monkeypatch.delitem(sys.modules, "amdsmi", raising=False)
    installed: list[BrokenImport] = []
    yield installed
    for finder in installed:
        sys.meta_path.remove(finder)


def break_import(installed: list[BrokenImport], error: BaseException | None = None) -> None:
    finder = BrokenImport(error)
    sys.meta_path.insert(0, finder)
    installed.append(finder)


def facts_of(result: Any) -> dict[str, Any]:
    return {fact.key: fact for fact in result.stack_facts}


def test_two_radeons(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeAmdsmi(two_radeons_table(), gpu_count=2)
    answer = collect_with(monkeypatch, fake)
    result = parse_amdsmi(answer)

    assert result.status.state is ProbeState.OK
    assert fake.init_flags == [fake_amdsmi.AmdSmiInitFlags.INIT_AMD_GPUS]
    assert fake.shutdowns == 1 and fake.initialised == 0
    assert fake.calls[-1] == ("amdsmi_shut_down",)

    xtx, xt = result.sightings
    assert xtx.layer is Layer.AMDSMI
    f = xtx.facts
    assert f.smi_index == 0
    assert f.vendor is Vendor.AMD
    assert f.name == "AMD Radeon RX 7900 XTX"
    assert f.pci_bus == "0000:03:00.0"
    assert (f.pci_vendor_id, f.pci_device_id) == ("0x1002", "0x744c")
    assert (f.pci_subsystem_vendor_id, f.pci_subsystem_device_id) == ("0x1da2", "0x471e")
    assert f.pci_revision == "0xc8"
    assert f.gfx_target == "gfx1100"
    assert f.compute_units == 96
    assert f.vram_total_bytes == 25753026560
    assert f.kernel_driver == "amdgpu"
    assert f.driver_version == "6.8.0-45-generic"
    assert f.vbios_version == "022.001.002.008.000001"
    assert f.uuid == "f1ff744c-0000-1000-80c8-2a1b3c4d5e6f"
    assert f.power_cap_w == 339.0
    assert f.power_cap_max_w == 389.0
    assert (f.kfd_node, f.kfd_gpu_id) == (1, 48467)
    assert xtx.field_sources["vram_total_bytes"] == "amdsmi_get_gpu_memory_total(VRAM)"
    assert xtx.field_sources["gfx_target"] == (
        "amdsmi_get_gpu_asic_info (target_graphics_version)")
    assert xtx.field_sources["name"] == "amdsmi_get_gpu_asic_info"
    assert xtx.missing_reasons == {}

    g = xt.facts
    assert (g.smi_index, g.pci_bus, g.pci_device_id) == (1, "0000:0b:00.0", "0x747e")
    assert g.gfx_target == "gfx1101"
    assert g.compute_units == 60
    assert g.vram_total_bytes == 16368 * 1024 * 1024
    assert g.power_cap_w is None and g.power_cap_max_w is None
    assert xt.missing_reasons["power_cap_w"] == "not supported by this GPU or driver"
    assert xt.missing_reasons["power_cap_max_w"] == "not supported by this GPU or driver"
    assert g.vbios_version == "022.001.002.021.000001"  # the field after it was still read

    for sighting in result.sightings:
        assert not set(sighting.field_sources) & set(sighting.missing_reasons)

    facts = facts_of(result)
    assert facts["amdsmi_library_version"].value == "25.5.1"
    assert facts["amdsmi_library_version"].source == "amdsmi_get_lib_version"
    assert facts["amdsmi_package_version"].value == "7.0.2"


def test_decimal_target_strings_are_not_trusted(monkeypatch: pytest.MonkeyPatch) -> None:
    answer = collect_with(monkeypatch, FakeAmdsmi(two_radeons_table("24.7"), gpu_count=2))
    assert answer["devices"][0]["fields"]["asic_info"]["value"]["target_graphics_version"] == (
        "gfx11000")  # the raw string stays in the answer
    result = parse_amdsmi(answer)
    xtx = result.sightings[0]
    assert xtx.facts.gfx_target is None
    assert xtx.missing_reasons["gfx_target"] == (
        "amdsmi reported 'gfx11000', not a canonical target; KFD's value is used")
    assert xtx.facts.name == "AMD Radeon RX 7900 XTX"


def _answer_with_target(target: JsonValue) -> dict[str, JsonValue]:
    return {
        "status": "ok",
        "devices": [{"index": 0, "fields": {"asic_info": {
            "call": "amdsmi_get_gpu_asic_info",
            "value": {"target_graphics_version": target, "vendor_id": "0x1002"}}}}],
    }


@pytest.mark.parametrize(
    ("raw", "target"),
    [("gfx1100", "gfx1100"), ("gfx90a", "gfx90a"), ("gfx942", "gfx942"),
     ("gfx1201", "gfx1201"), ("gfx1151", "gfx1151"), ("gfx906", "gfx906"),
     ("GFX90A", "gfx90a"), ("gfx942:sramecc+:xnack-", "gfx942"),
     ("gfx11000", None), ("gfx9010", None), ("gfx1adb0", None), ("gfx", None),
     ("N/A", None), ("", None), (110000, None)],
)
def test_only_canonical_targets_are_accepted(raw: JsonValue, target: str | None) -> None:
    sighting = parse_amdsmi(_answer_with_target(raw)).sightings[0]
    assert sighting.facts.gfx_target == target
    if target is None:
        assert "gfx_target" in sighting.missing_reasons
    else:
        assert "gfx_target" not in sighting.missing_reasons


def test_vram_falls_back_to_vram_info_in_mb(monkeypatch: pytest.MonkeyPatch) -> None:
    table = two_radeons_table()
    table[("amdsmi_get_gpu_memory_total", 0, fake_amdsmi.AmdSmiMemoryType.VRAM)] = Fail(
        fake_amdsmi.STATUS_NOT_SUPPORTED)
    result = parse_amdsmi(collect_with(monkeypatch, FakeAmdsmi(table, gpu_count=2)))
    xtx = result.sightings[0]
    assert xtx.facts.vram_total_bytes == 24560 * 1024 * 1024
    assert xtx.field_sources["vram_total_bytes"] == "amdsmi_get_gpu_vram_info (vram_size, MB)"


def test_unknown_calls_and_na_values(monkeypatch: pytest.MonkeyPatch) -> None:
    table = two_radeons_table()
    del table[("amdsmi_get_gpu_kfd_info", 1)]  # the fake answers NOT_YET_IMPLEMENTED
    table[("amdsmi_get_gpu_asic_info", 1)] = {
        **table[("amdsmi_get_gpu_asic_info", 1)], "market_name": "N/A",
        "num_compute_units": "N/A"}
    table[("amdsmi_get_gpu_device_uuid", 0)] = Fail(fake_amdsmi.STATUS_NO_PERM)
    result = parse_amdsmi(collect_with(monkeypatch, FakeAmdsmi(table, gpu_count=2)))
    xtx, xt = result.sightings
    assert xtx.missing_reasons["uuid"] == "no permission"
    assert xt.missing_reasons["kfd_node"] == "not implemented in this amdsmi"
    assert xt.missing_reasons["name"] == "amdsmi reported N/A"
    assert xt.missing_reasons["compute_units"] == "amdsmi reported N/A"
    assert xt.facts.pci_device_id == "0x747e"


def test_no_amd_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeAmdsmi(two_radeons_table(), gpu_count=0)
    result = parse_amdsmi(collect_with(monkeypatch, fake))
    assert result.status.state is ProbeState.OK
    assert result.status.reason == "amdsmi works but reports no AMD GPU"
    assert result.sightings == ()
    assert fake.shutdowns == 1


@pytest.mark.parametrize(
    ("code", "state", "reason"),
    [
        (fake_amdsmi.STATUS_NO_PERM, ProbeState.PERMISSION_DENIED,
         "no permission to use the GPUs through amdsmi"),
        (fake_amdsmi.STATUS_DRIVER_NOT_LOADED, ProbeState.DRIVER_MISSING,
         "amdgpu driver not loaded"),
        (fake_amdsmi.STATUS_INIT_ERROR, ProbeState.ERROR,
         "amdsmi could not initialise: AMDSMI_STATUS_INIT_ERROR - Initialization error"),
        (999, ProbeState.ERROR,
         "amdsmi could not start: AMDSMI_STATUS_UNKNOWN_ERROR - An unknown error occurred"),
    ],
)
def test_init_failures(
    monkeypatch: pytest.MonkeyPatch, code: int, state: ProbeState, reason: str
) -> None:
    fake = FakeAmdsmi(two_radeons_table(), gpu_count=2, init_error=code)
    answer = collect_with(monkeypatch, fake)
    assert answer["error_class"] == "AmdSmiLibraryException"
    assert answer["error_code"] == code
    assert fake.calls == [("amdsmi_init",)]
    result = parse_amdsmi(answer)
    assert result.status.state is state
    assert result.status.reason == reason
    assert result.status.hint
    assert result.sightings == ()


def test_package_not_installed(broken_import: list[BrokenImport]) -> None:
    break_import(broken_import, ModuleNotFoundError("No module named 'amdsmi'"))
    answer = collect_amdsmi()
    assert isinstance(answer, dict)
    assert answer["error_class"] == "ModuleNotFoundError"
    result = parse_amdsmi(answer)
    assert result.status.state is ProbeState.LIBRARY_MISSING
    assert result.status.reason == PACKAGE_MISSING
    assert result.status.hint is not None and "gpuscope[amd]" in result.status.hint


def test_the_real_wheel_without_rocm(monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    """The amdsmi wheel of the test extra, imported for real on a machine without ROCm's
    libamd_smi.so: the library is missing, and what the wheel prints stays out of stdout."""
    if importlib.util.find_spec("amdsmi") is None:
        pytest.skip("the amdsmi wheel is not installed (pip install -e '.[test]')")
    if any(Path(folder, "libamd_smi.so").exists()
           for folder in ("/opt/rocm/lib", "/opt/rocm/lib64", "/usr/lib", "/usr/lib64")):
        pytest.skip("ROCm's libamd_smi.so is installed here")
    monkeypatch.delitem(sys.modules, "amdsmi", raising=False)
    result = probe_amdsmi(LiveSystem())
    assert capsys.readouterr().out == ""
    assert result.status.state is ProbeState.LIBRARY_MISSING
    assert result.status.reason == LIBRARY_MISSING


def test_wheel_without_libamd_smi(
    broken_import: list[BrokenImport], capsys: pytest.CaptureFixture[str]
) -> None:
    break_import(broken_import)  # prints, then KeyError('libamd_smi.so'), as the real wheel
    answer = collect_amdsmi()
    assert capsys.readouterr().out == ""  # the binding's print does not reach our stdout
    assert isinstance(answer, dict)
    assert answer["error_class"] == "KeyError"
    assert "Unable to find libamd_smi.so" in str(answer["printed"])
    result = parse_amdsmi(answer)
    assert result.status.state is ProbeState.LIBRARY_MISSING
    assert result.status.reason == LIBRARY_MISSING
    assert result.status.hint is not None and "amd-smi-lib" in result.status.hint


def test_library_fails_to_load(broken_import: list[BrokenImport]) -> None:
    break_import(broken_import, OSError("libamd_smi.so: cannot open shared object file"))
    result = parse_amdsmi(collect_amdsmi())
    assert result.status.state is ProbeState.LIBRARY_MISSING
    assert result.status.reason == LIBRARY_MISSING


def test_other_import_failure_is_an_error(broken_import: list[BrokenImport]) -> None:
    break_import(broken_import, RuntimeError("ctypes exploded"))
    result = parse_amdsmi(collect_amdsmi())
    assert result.status.state is ProbeState.ERROR
    assert result.status.reason == "importing amdsmi failed: RuntimeError: ctypes exploded"


def test_handles_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeAmdsmi(two_radeons_table(), gpu_count=2)

    def no_handles() -> list[Any]:
        raise fake_amdsmi.AmdSmiLibraryException(fake_amdsmi.STATUS_NO_PERM)

    monkeypatch.setattr(fake, "amdsmi_get_processor_handles", no_handles)
    result = parse_amdsmi(collect_with(monkeypatch, fake))
    assert result.status.state is ProbeState.ERROR
    assert result.status.reason == "amdsmi could not list the GPUs: no permission"
    assert fake.shutdowns == 1


def test_recorded_answer_replays_to_the_same_result(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "amdsmi", FakeAmdsmi(two_radeons_table(), gpu_count=2))
    recorder = RecordingSystem(LiveSystem())
    live = probe_amdsmi(recorder)
    snapshot = Snapshot.from_json(json.loads(json.dumps(recorder.snapshot.to_json())))
    assert probe_amdsmi(ReplaySystem(snapshot)) == live
    assert live.sightings[0].facts.gfx_target == "gfx1100"


def test_not_captured() -> None:
    result = probe_amdsmi(ReplaySystem(Snapshot()))
    assert result.status.state is ProbeState.NOT_CAPTURED
    assert result.status.reason == "amdsmi was not captured in this snapshot"


def test_nvidia_fixture_has_no_amd_smi_library() -> None:
    result = probe_amdsmi(ReplaySystem.from_file(FIXTURE))
    assert result.status.state is ProbeState.LIBRARY_MISSING
    assert result.status.reason == LIBRARY_MISSING
    assert result.sightings == ()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_parse_never_raises_on_any_json(answer: JsonValue) -> None:
    assert parse_amdsmi(answer).status.name == "amdsmi"


def _healthy_answer() -> dict[str, Any]:
    saved = sys.modules.get("amdsmi")
    sys.modules["amdsmi"] = FakeAmdsmi(two_radeons_table(), gpu_count=2)
    try:
        answer = collect_amdsmi()
    finally:
        if saved is None:
            sys.modules.pop("amdsmi", None)
        else:
            sys.modules["amdsmi"] = saved
    assert isinstance(answer, dict)
    return answer


HEALTHY = _healthy_answer()


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(HEALTHY["devices"][0]["fields"])), st.text(max_size=6),
       json_values)
def test_parse_never_raises_on_a_damaged_value(key: str, sub: str, value: JsonValue) -> None:
    answer = json.loads(json.dumps(HEALTHY))
    record = answer["devices"][0]["fields"][key]
    if isinstance(record.get("value"), dict) and sub:
        record["value"][sub] = value
    else:
        record["value"] = value
    result = parse_amdsmi(answer)
    assert len(result.sightings) == 2
    assert result.sightings[1].facts.name == "AMD Radeon RX 7800 XT"


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.integers(min_value=-5, max_value=0x2FFFF),
                 st.integers(min_value=0, max_value=0xFFFF).map(lambda n: f"0x{n:X}")))
def test_pci_ids_are_lower_case_hex(device_id: int | str) -> None:
    answer = json.loads(json.dumps(HEALTHY))
    answer["devices"][0]["fields"]["asic_info"]["value"]["device_id"] = device_id
    value = parse_amdsmi(answer).sightings[0].facts.pci_device_id
    number = int(device_id, 16) if isinstance(device_id, str) else device_id
    if 0 < number <= 0xFFFF:
        assert value == f"0x{number:04x}"
    else:
        assert value is None
