"""nvidia-smi --query-gpu CSV over real captures: tests/fixtures/outputs/nvidia-smi-csv/
(SOURCES.md there) and corpus case 238 (two rows glued onto one line)."""

from __future__ import annotations

from pathlib import Path

import pytest
from parser_properties import assert_clean, property_tests, read

from gpuscope.model import GpuKind, Layer, ParsedOutput, Vendor
from gpuscope.parsers import parse_any
from gpuscope.parsers.nvidia_smi import parse, sniff

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
OUTPUTS = FIXTURES / "outputs" / "nvidia-smi-csv"
(CASE_238,) = (FIXTURES / "corpus").glob("238-*")
MIB = 1024**2


def load(path: Path) -> ParsedOutput:
    parsed = parse_any(read(path), path.name)
    assert_clean(parsed)
    assert parsed.format == "nvidia-smi-csv", parsed.format
    return parsed


def stack(parsed: ParsedOutput) -> dict[str, object]:
    return {f.key: f.value for f in (*parsed.stack_facts, *parsed.host_facts)}


def rows(parsed: ParsedOutput) -> list[tuple[object, ...]]:
    return [(s.facts.smi_index, s.facts.name, s.facts.compute_capability, s.facts.pci_bus,
             s.facts.uuid) for s in parsed.sightings]


def test_two_rows_a_paste_glued_onto_one_line_are_two_gpus() -> None:
    parsed = load(CASE_238 / "nvidia-smi-query.txt")
    assert rows(parsed) == [(i, "NVIDIA GeForce RTX 2080 Ti", "7.5", None, None)
                            for i in range(8)]
    assert stack(parsed)["nvidia_driver_version"] == "535.161.07"
    for sighting in parsed.sightings:
        assert sighting.layer is Layer.NVML and sighting.facts.vendor is Vendor.NVIDIA
        assert sighting.facts.kind is GpuKind.DISCRETE
    # the glued line (line 5) holds GPUs 3 and 4
    assert [s.field_sources["name"] for s in parsed.sightings[3:5]] == [
        "nvidia-smi-query.txt:5"] * 2


def test_fields_in_any_order() -> None:
    parsed = load(OUTPUTS / "triton-server-8070-titan-v-rtx5880-fields-any-order.txt")
    assert rows(parsed) == [(0, "NVIDIA TITAN V", "7.0", None, None),
                            (1, "NVIDIA RTX 5880 Ada Generation", "8.9", None, None)]
    assert stack(parsed)["nvidia_driver_version"] == "570.86.15"


def test_index_and_uuid_and_a_bus_number_that_is_no_address() -> None:
    parsed = load(OUTPUTS / "nuxhash-10-five-gtx-pci-bus-number-uuid.txt")
    assert [r[0] for r in rows(parsed)] == [0, 1, 2, 3, 4]
    assert rows(parsed)[1] == (1, "GeForce GTX 1080 Ti", None, None,
                               "GPU-15ea7bf9-1a0e-2d7f-9c62-c28e5ca1aaf1")
    assert all(s.facts.pci_bus is None for s in parsed.sightings)  # "0x02" is a bus number


def test_noheader_takes_the_fields_from_the_command_line() -> None:
    parsed = load(OUTPUTS / "aitemplate-330-four-gpus-compute-cap-noheader.txt")
    assert rows(parsed) == [(i, None, "8.6", None, None) for i in range(4)]


def test_a_header_of_one_field() -> None:
    parsed = load(OUTPUTS / "dfdx-619-compute-cap-one-field.txt")
    assert rows(parsed) == [(0, None, "8.9", None, None)]


def test_noheader_without_the_command_reads_what_the_values_are() -> None:
    # the triton capture as `--format=csv,noheader` prints it: no command, no header
    text = "\n".join(read(OUTPUTS / "triton-server-8070-titan-v-rtx5880-fields-any-order.txt")
                     .splitlines()[2:]) + "\n"
    parsed = parse_any(text, "query.txt")
    assert parsed.format == "nvidia-smi-csv"
    assert [(s.facts.name, s.facts.compute_capability) for s in parsed.sightings] == [
        ("NVIDIA TITAN V", "7.0"), ("NVIDIA RTX 5880 Ada Generation", "8.9")]


def test_nounits_reads_the_unit_from_the_header() -> None:
    # the H100 capture's memory.total as `--format=csv,nounits` prints it
    text = "name, memory.total [MiB]\nNVIDIA H100 80GB HBM3, 81559\n"
    (sighting,) = parse(text, "q.txt").sightings
    assert sighting.facts.vram_total_bytes == 81559 * MIB


def test_every_field_of_a_wide_query() -> None:
    parsed = load(OUTPUTS / "nvidia-gpu-exporter-h100-mig-590-all-fields.txt")
    (gpu,) = parsed.sightings
    facts = gpu.facts
    assert (facts.name, facts.pci_bus, facts.compute_capability) == (
        "NVIDIA H100 80GB HBM3", "0000:00:09.0", "9.0")
    assert (facts.pci_device_id, facts.pci_vendor_id) == ("0x2330", "0x10de")
    assert (facts.pci_subsystem_device_id, facts.pci_subsystem_vendor_id) == ("0x16c1", "0x10de")
    assert facts.vram_total_bytes == 81559 * MIB
    assert facts.vbios_version == "96.00.A5.00.01"
    assert facts.pcie_link is not None and facts.pcie_link.max_width == 16
    assert (facts.power_cap_w, facts.max_graphics_clock_mhz) == (700.0, 1980)
    assert stack(parsed)["nvidia_driver_version"] == "590.48.01"
    assert [(s.kind, s.detail) for s in parsed.signals] == [("nvidia.mig_enabled",
                                                             "0000:00:09.0")]


def test_a_windows_query_says_windows() -> None:
    parsed = load(OUTPUTS / "nvidia-gpu-exporter-windows-rtx2080super-591-all-fields.txt")
    assert rows(parsed) == [(0, "NVIDIA GeForce RTX 2080 SUPER", "7.5", "0000:0c:00.0",
                             "GPU-00000000-0000-0000-0000-000000000000")]
    assert stack(parsed)["os"] == "windows"
    assert stack(parsed)["nvidia_driver_version"] == "591.86"


def test_a_query_pasted_twice_is_the_same_gpus() -> None:
    text = read(OUTPUTS / "triton-server-8070-titan-v-rtx5880-fields-any-order.txt")
    assert len(parse(text + "\n" + text, "q.txt").sightings) == 2
    glued = read(CASE_238 / "nvidia-smi-query.txt")
    assert len(parse(glued + "\n" + glued, "q.txt").sightings) == 8  # no ids: by position


def test_processes_are_no_gpus() -> None:
    # the Windows capture's --query-compute-apps section
    text = ("timestamp, gpu_name, gpu_bus_id, gpu_serial, gpu_uuid, pid, process_name, "
            "used_gpu_memory [MiB]\n2026/06/22 23:04:18.593, NVIDIA GeForce RTX 2080 SUPER, "
            "00000000:0C:00.0, [N/A], GPU-00000000-0000-0000-0000-000000000000, 2056, "
            "C:\\Windows\\System32\\dwm.exe, [N/A]\n")
    assert not parse_any(text, "apps.txt").sightings


@pytest.mark.parametrize("text", [
    "name, version\nnumpy, 1.26.4\n",  # pip list --format=csv-like
    "NVIDIA GeForce RTX 4090\n",  # a name alone: not a query without a header or command
    "timestamp,cpu_avg_pct,cpu0_pct\n2026-01-01,1.0,2.0\n",
])
def test_other_csv_is_not_a_query(text: str) -> None:
    found = sniff(text)
    assert found is None or found[0] != "nvidia-smi-csv"


REAL_TEXTS = [read(p) for p in sorted(OUTPUTS.glob("*.txt"))] + [
    read(CASE_238 / "nvidia-smi-query.txt")]
(
    test_random_text_never_raises,
    test_truncated_real_output_never_raises,
    test_shuffled_real_output_never_raises,
) = property_tests(sniff, parse, REAL_TEXTS)
