"""Each result against the datasheet: the worker's device is found among the machine's GPUs (by
PCI bus address, name, target), the card's peak for the precision is used, and the verdict comes
from the published bands; the CPU and unknown cards say "no datasheet entry"."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from fixture_paths import SNAPSHOTS_DIR

from gpuscope.bench.assess import (
    CPU_NO_DATASHEET,
    assess_result,
    assess_run,
    match_target,
    slot_link,
)
from gpuscope.bench.command import format_run_text, run_document
from gpuscope.bench.results import (
    BenchDevice,
    BenchmarkResult,
    BenchRun,
    BenchTelemetry,
    MetricSummary,
    ResultStatus,
    Spread,
    WorkerHello,
    run_from_json,
    run_to_json,
)
from gpuscope.evidence import ReplaySystem
from gpuscope.inventory import collect_inventory
from gpuscope.knowledge.specs import gpu_spec
from gpuscope.model import Gpu, PcieLink, Vendor
from gpuscope.report.reading import bench_section as _bench_section
from gpuscope.report.view_model import ReportGpu

XTX = "AMD Radeon RX 7900 XTX"


def inventory_gpus(snapshot: str) -> tuple[Gpu, ...]:
    return collect_inventory(ReplaySystem.from_file(str(SNAPSHOTS_DIR / snapshot))).gpus


def rocm_hello(name: str | None = XTX, pci_bus: str | None = "0000:03:00.0",
               arch: str = "gfx1100") -> WorkerHello:
    """What the worker says on a ROCm build with one RX 7900 XTX."""
    return WorkerHello(
        protocol=1, python="/opt/venv/bin/python", python_version="3.12.3",
        torch_version="2.7.1+rocm6.3", build="rocm", build_version="6.3.42131",
        device="cuda:0", device_name=name,
        devices=(BenchDevice(0, name, 25753026560, arch, f"{arch}:sramecc-:xnack-",
                             pci_bus=pci_bus),))


def ok(benchmark: str, value: float, unit: str = "TFLOPS", **extra: Any) -> BenchmarkResult:
    return BenchmarkResult(benchmark, "cuda:0", ResultStatus.OK, unit,
                           not benchmark.startswith("latency."), value,
                           Spread(value * 0.98, value, value * 1.01, 12), **extra)


def run_of(hello: WorkerHello | None, *results: BenchmarkResult, **extra: Any) -> BenchRun:
    return BenchRun("/opt/venv/bin/python", tuple(r.id for r in results), "auto", hello,
                    results, (), 1_700_000_000.0, 1_700_000_030.0, **extra)


# --- matching the worker's device to the machine's GPU ----------------------------------------


def test_an_rx_7900_xtx_is_found_by_its_pci_bus_address_with_its_slot_link() -> None:
    target = match_target(rocm_hello(), inventory_gpus("rx7900xtx_rocm.json"))
    assert target is not None
    assert target.matched_by == "PCI bus address"
    assert (target.gpu_index, target.pci_bus, target.spec_name) == (0, "0000:03:00.0", XTX)
    # The slot's link (read at the upstream port), not the card's internal switch.
    assert (target.pcie_generation, target.pcie_width, target.pcie_note) == (4, 16, None)


def test_without_a_bus_address_the_name_then_the_target_find_the_gpu() -> None:
    gpus = inventory_gpus("rx7900xtx_rocm.json")
    by_name = match_target(rocm_hello(pci_bus=None), gpus)
    assert by_name is not None and by_name.matched_by == "name" and by_name.gpu_index == 0
    # Older ROCm builds report a marketing-less name ("Radeon RX 7900 XTX" or even "gfx1100").
    by_target = match_target(rocm_hello(name="Radeon Graphics", pci_bus=None), gpus)
    assert by_target is not None and by_target.matched_by == "target"
    assert by_target.spec_name == XTX
    # A bus address that is nowhere on the machine is not trusted over the name.
    assert match_target(rocm_hello(pci_bus="0000:99:00.0"), gpus).matched_by == "name"


def test_two_identical_cards_are_told_apart_by_bus_address_only() -> None:
    one = inventory_gpus("rx7900xtx_rocm.json")[0]
    two = dataclasses.replace(one, index=1, pci_bus="0000:0a:00.0")
    target = match_target(rocm_hello(pci_bus="0000:0a:00.0"), (one, two))
    assert target is not None and target.gpu_index == 1 and target.matched_by == "PCI bus address"
    unclear = match_target(rocm_hello(pci_bus=None), (one, two))
    # Same name, same target, same VRAM: the card is known, which of the two is not.
    assert unclear is not None and unclear.gpu_index is None
    assert unclear.spec_name == XTX and unclear.matched_by == "name torch reported"
    assert unclear.pcie_generation is None and unclear.pcie_note is not None


def test_an_idle_nvidia_link_is_compared_at_its_maximum() -> None:
    gpus = inventory_gpus("nvidia_rtx4090.json")
    assert gpus[0].pcie_link is not None and gpus[0].pcie_link.current_speed_gt_s == 2.5
    generation, width, note = slot_link(gpus[0])
    assert (generation, width) == (4, 16)
    assert note is not None and "PCIe 1.0 x16 when read" in note
    # A Radeon card's own link is its on-board switch: no transfer peak from it.
    own = Gpu(vendor=Vendor.AMD, pcie_link=PcieLink(16.0, 16, 16.0, 16, "GPU function 03:00.0"))
    assert slot_link(own)[:2] == (None, None)


def test_a_cpu_run_has_no_target() -> None:
    hello = WorkerHello(protocol=1, device="cpu", device_name="AMD EPYC", torch_version="2.13.0")
    assert match_target(hello, inventory_gpus("rx7900xtx_rocm.json")) is None
    assert match_target(None, ()) is None


# --- judging ----------------------------------------------------------------------------------


def test_a_plausible_rx_7900_xtx_fp16_result_is_normal_with_its_percentage() -> None:
    run = run_of(rocm_hello(), ok("matmul.fp16", 100.0), ok("matmul.fp32", 27.0),
                 ok("memory.copy", 800.0, "GB/s"), ok("latency.launch", 9.5, "us"),
                 ok("transfer.h2d_pinned", 24.0, "GB/s"))
    assessment = assess_run(run, inventory_gpus("rx7900xtx_rocm.json"))
    assert assessment.card is not None and assessment.card.name == XTX
    assert assessment.compared_with == f"datasheet of the {XTX} (matched by PCI bus address)"
    fp16 = assessment.result("matmul.fp16")
    assert fp16 is not None and fp16.peak is not None
    assert fp16.peak.value == pytest.approx(122.8) and fp16.peak.label == "FP16"
    assert fp16.peak.figure == "fp16_tflops"  # AMD: one FP16 rate
    assert fp16.peak.sources and all(s.url.startswith("https://") for s in fp16.peak.sources)
    assert fp16.sources[0].url == "https://github.com/zzc0721/torch-performance-test-data/issues/58"
    assert "torch-performance-test-data #58" in fp16.source
    assert fp16.percent_of_peak == pytest.approx(100.0 / 122.8 * 100)
    assert fp16.level == "normal" and fp16.level_word == "normal"
    assert fp16.band_pct is not None and fp16.band_pct[0] < 81.4 < fp16.band_pct[1] + 1
    assert "81% of the 122.8 TFLOPS FP16 peak: normal for this AMD Radeon RX 7900 XTX" in \
        fp16.text
    # RDNA3 FP32 GEMM reaches only about half the dual-issue peak: 27 of 61.4 is normal.
    fp32 = assessment.result("matmul.fp32")
    assert fp32 is not None and fp32.level == "normal" and "dual-issue" in fp32.peak.note
    copy = assessment.result("memory.copy")
    assert copy is not None and copy.peak is not None and copy.peak.label == "memory bandwidth"
    assert copy.percent_of_peak == pytest.approx(800 / copy.peak.value * 100)
    launch = assessment.result("latency.launch")
    assert launch is not None and launch.peak is None and launch.level_word == "no datasheet"
    assert launch.peak_missing is not None and launch.peak_missing.startswith(
        "no datasheet entry: GPU datasheets give no")
    h2d = assessment.result("transfer.h2d_pinned")
    assert h2d is not None and h2d.peak is not None and h2d.peak.label == "PCIe 4.0 x16"


def test_a_low_result_is_a_sign_of_trouble() -> None:
    run = run_of(rocm_hello(), ok("matmul.fp16", 40.0))
    verdict = assess_run(run, inventory_gpus("rx7900xtx_rocm.json")).result("matmul.fp16")
    assert verdict is not None and verdict.level == "low"
    assert verdict.percent_of_peak == pytest.approx(40 / 122.8 * 100)
    assert "low for this AMD Radeon RX 7900 XTX" in verdict.text
    assert "throttling" in verdict.text  # points at the telemetry recorded during the run


def test_the_cpu_and_an_unknown_gpu_have_no_datasheet_entry() -> None:
    cpu = WorkerHello(protocol=1, device="cpu", device_name="AMD EPYC", torch_version="2.13.0")
    result = BenchmarkResult("matmul.fp32", "cpu", ResultStatus.OK, "TFLOPS", True, 0.1,
                             Spread(0.09, 0.1, 0.11, 10))
    assessment = assess_run(run_of(cpu, result))
    judged = assessment.result("matmul.fp32")
    assert judged is not None and judged.peak is None and judged.percent_of_peak is None
    assert judged.peak_missing == CPU_NO_DATASHEET and judged.level_word == "no datasheet"
    assert assessment.compared_with == CPU_NO_DATASHEET and assessment.card is None
    assert assessment.device_label == "CPU (AMD EPYC)"

    unknown = rocm_hello(name="AMD Radeon Pro W9999", pci_bus=None, arch="gfx1299")
    assessment = assess_run(run_of(unknown, ok("matmul.fp16", 50.0)))
    judged = assessment.result("matmul.fp16")
    assert judged is not None and judged.peak is None and judged.level == "unknown"
    assert assessment.compared_with == ("no datasheet entry: AMD Radeon Pro W9999 is not in "
                                        "gpuscope's spec table")


def test_unsupported_and_failed_results_keep_their_reason() -> None:
    unsupported = BenchmarkResult("matmul.tf32", "cuda:0", ResultStatus.UNSUPPORTED, "TFLOPS",
                                  True, reason="TF32 is an NVIDIA tensor-core mode")
    judged = assess_result(unsupported, gpu_spec(XTX), gpu_run=True)
    assert (judged.level, judged.level_word, judged.text) == (
        "unsupported", "unsupported", "TF32 is an NVIDIA tensor-core mode")


def test_a_transfer_is_judged_against_the_link_sampled_during_it() -> None:
    link = (MetricSummary("pcie_gen", "PCIe generation", "", 3, 3, 3, 4, "nvml:gen"),
            MetricSummary("pcie_width", "PCIe width", "lanes", 8, 8, 8, 4, "nvml:width"))
    result = ok("transfer.h2d_pinned", 6.0, "GB/s",
                telemetry=BenchTelemetry("0000:01:00.0", "RTX 4090", 4, 5.0, link))
    judged = assess_result(result, gpu_spec("NVIDIA GeForce RTX 4090"), gpu_run=True,
                           pcie_generation=4, pcie_width=16)
    assert judged.peak is not None and judged.peak.label == "PCIe 3.0 x8"
    # amdsmi reads a Radeon card's own (internal) link: not used.
    amd_link = tuple(dataclasses.replace(m, source="amdsmi:pcie") for m in link)
    result = dataclasses.replace(result, telemetry=BenchTelemetry("x", "x", 4, 5.0, amd_link))
    judged = assess_result(result, gpu_spec(XTX), gpu_run=True, pcie_generation=4,
                           pcie_width=16)
    assert judged.peak is not None and judged.peak.label == "PCIe 4.0 x16"


# --- kept with the run, shown in the CLI and the share report ---------------------------------


def test_the_target_is_kept_with_the_run_and_judged_again_without_the_machine() -> None:
    gpus = inventory_gpus("rx7900xtx_rocm.json")
    run = run_of(rocm_hello(), ok("matmul.fp16", 100.0))
    run = dataclasses.replace(run, target=match_target(run.hello, gpus))
    stored = run_from_json(json.loads(json.dumps(run_to_json(run))))
    assert stored is not None and stored.target == run.target
    assert stored.hello is not None and stored.hello.devices[0].pci_bus == "0000:03:00.0"
    judged = assess_run(stored).result("matmul.fp16")  # no GPU list: the stored target
    assert judged is not None and judged.level == "normal"


def test_json_and_text_carry_the_percentage_the_peak_and_the_verdict() -> None:
    run = run_of(rocm_hello(), ok("matmul.fp16", 100.0), ok("latency.launch", 9.5, "us"))
    run = dataclasses.replace(run, target=match_target(run.hello,
                                                       inventory_gpus("rx7900xtx_rocm.json")))
    document = run_document(run)
    results = {r["id"]: r for r in document["results"]}
    fp16 = results["matmul.fp16"]
    assert fp16["percent_of_peak"] == pytest.approx(81.43, abs=0.01)
    assert fp16["peak"]["value"] == pytest.approx(122.8) and fp16["peak"]["label"] == "FP16"
    assert isinstance(fp16["peak"]["source"], str) and "https://" in fp16["peak"]["source"]
    assert fp16["peak"]["confidence"] == "secondary" and "tag" not in fp16["peak"]
    assert "https://github.com/zzc0721/" in fp16["verdict"]["source"]
    assert fp16["peak_missing"] is None
    assert fp16["verdict"]["level"] == "normal" and fp16["verdict"]["words"] == "normal"
    assert results["latency.launch"]["peak"] is None
    assert results["latency.launch"]["peak_missing"].startswith("no datasheet entry")
    assert document["card"] == XTX
    assert run_from_json(document) == run  # the derived fields are ignored when read back
    text = format_run_text(run)
    row = next(line for line in text.splitlines() if line.startswith("matmul.fp16 "))
    assert "81% of 123" in row and "normal" in row
    assert "compared with: datasheet of the AMD Radeon RX 7900 XTX" in text
    assert "matmul.fp16: 81% of the 122.8 TFLOPS FP16 peak: normal" in text


def test_the_share_report_judges_runs_through_the_bench_layer() -> None:
    gpu = ReportGpu(index=0, name=XTX, vendor="amd", gfx_target="gfx1100",
                    pci_vendor_id="0x1002", pci_device_id="0x744c", pci_bus="0000:03:00.0",
                    vram_total_bytes=25753026560,
                    pcie_link=PcieLink(16.0, 16, 16.0, 16, "slot (upstream port)"))
    section = _bench_section(run_of(rocm_hello(), ok("matmul.fp16", 100.0)), (gpu,))
    assert section.card == XTX and section.gpu_index == 0
    assert section.device == f"{XTX} (cuda:0)"
    row = section.rows[0]
    assert row.level == "normal" and row.peak_value == pytest.approx(122.8)
    assert row.percent_text == "81%"
