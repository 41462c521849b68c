"""Someone else's report, read for Compare: its GPUs as cards with what was measured on them,
and for anything else a reason a user understands."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from fixture_paths import SNAPSHOTS_DIR
from report_fixtures import bench_run, bench_run_document

from gpuscope.bench.results import ResultStatus
from gpuscope.doctor import DoctorInput, diagnose, diagnosis_document
from gpuscope.evidence import ReplaySystem
from gpuscope.inventory import collect_frameworks, collect_inventory
from gpuscope.report.compare_import import (
    CompareImportFailure,
    ImportedReport,
    compare_report_from_json,
    parse_compare_report,
    read_compare_report,
)
from gpuscope.report.share import prepare_report, report_json_text


def _data(snapshot: str) -> DoctorInput:
    system = ReplaySystem.from_file(SNAPSHOTS_DIR / snapshot)
    return DoctorInput(collect_inventory(system), collect_frameworks(system, []))


def _report_text(snapshot: str = "rx7900xtx_rocm.json", with_run: bool = True) -> str:
    data = _data(snapshot)
    prepared = prepare_report(data, diagnose(data),
                              bench_runs=(bench_run(),) if with_run else ())
    return report_json_text(prepared.report)


def _imported(outcome: object) -> ImportedReport:
    assert isinstance(outcome, ImportedReport), outcome
    return outcome


def test_a_json_report_becomes_cards_with_measured_results(tmp_path: Path) -> None:
    path = tmp_path / "friend.json"
    path.write_text(_report_text())
    report = _imported(read_compare_report(path))
    assert report.source == "friend.json" and report.schema == "gpuscope.report/1"
    assert report.origin == "replay" and report.origin_words == "made from a replayed snapshot"
    assert report.redacted is True
    (card,) = report.cards
    assert card.profile.name == "AMD Radeon RX 7900 XTX" and card.count == 1
    fp16 = card.result("matmul.fp16")
    assert fp16 is not None and fp16.value == pytest.approx(98.6)
    assert fp16.percent_of_peak == pytest.approx(98.6 / 122.8 * 100)
    int8 = card.result("matmul.int8")
    assert int8 is not None and int8.status is ResultStatus.UNSUPPORTED and int8.value is None


def test_two_identical_gpus_are_one_card_of_two() -> None:
    mixed = _imported(parse_compare_report(_report_text("nvidia_rtx4090.json", False)))
    assert sorted((c.profile.name, c.count) for c in mixed.cards) == [
        ("NVIDIA GeForce RTX 3060 12GB", 1), ("NVIDIA GeForce RTX 4090", 1)]
    document = json.loads(_report_text())
    twin = {**document["diagnosis"]["gpus"][0], "index": 1, "pci_bus": "0000:09:00.0"}
    document["diagnosis"]["gpus"].append(twin)
    (card,) = _imported(compare_report_from_json(document, "two.json")).cards
    assert card.count == 2 and card.result("matmul.fp16") is not None


def test_a_bare_diagnosis_and_a_bare_run_are_read_leniently() -> None:
    data = _data("apu_dgpu.json")
    diagnosis = diagnosis_document(data, tuple(diagnose(data)))
    report = _imported(compare_report_from_json(diagnosis, "doctor.json"))
    assert len(report.cards) == 2 and not any(c.results for c in report.cards)
    run = _imported(compare_report_from_json(bench_run_document(), "run.json"))
    (card,) = run.cards
    assert card.profile.name == "AMD Radeon RX 7900 XTX" and card.result("memory.copy")


def test_a_run_on_the_cpu_is_named_not_compared() -> None:
    document = json.loads(_report_text())
    cpu_run = bench_run_document()
    cpu_run["hello"]["device"] = "cpu"
    for result in cpu_run["results"]:
        result["device"] = "cpu"
    document["bench_runs"] = [cpu_run]
    report = _imported(compare_report_from_json(document, "r.json"))
    assert not report.cards[0].results
    assert any("ran on the CPU" in note for note in report.notes)


@pytest.mark.parametrize(("content", "words"), [
    (b"", "empty"),
    (b"\x89PNG\r\n\x1a\n\x00\x00", "not UTF-8"),
    (b"{not json", "not valid JSON"),
    (b"[1, 2]", "a list"),
    (b'{"hello": 1}', "no \"schema\""),
    (b'{"schema": "gpuscope.telemetry-summary/1"}', "holds no GPUs"),
    (b'{"schema": "gpuscope.report/1", "diagnosis": {}}', "no GPU to compare"),
    (b"[" * 100_000, "not a gpuscope report"),
])
def test_what_is_no_report_is_refused_with_a_reason(tmp_path: Path, content: bytes,
                                                     words: str) -> None:
    path = tmp_path / "x.json"
    path.write_bytes(content)
    outcome = read_compare_report(path)
    assert isinstance(outcome, CompareImportFailure)
    assert outcome.reason.startswith("x.json: ") and words in outcome.reason


def test_files_that_are_no_report_are_not_read(tmp_path: Path) -> None:
    missing = read_compare_report(tmp_path / "gone.json")
    assert isinstance(missing, CompareImportFailure) and "No such file" in missing.reason
    folder = read_compare_report(tmp_path)
    assert isinstance(folder, CompareImportFailure) and "a directory" in folder.reason
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 2048)
    too_big = read_compare_report(big, max_bytes=1024)
    assert isinstance(too_big, CompareImportFailure) and "not read" in too_big.reason
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "pipe.json"
        os.mkfifo(fifo)
        assert isinstance(read_compare_report(fifo), CompareImportFailure)  # never blocks


def test_a_report_of_a_machine_without_a_gpu_is_read_with_no_card() -> None:
    report = _imported(parse_compare_report(_report_text("dev_container_live.json", False),
                                            "container.json"))
    assert report.cards == () and report.origin == "replay"
    # with a run on the CPU only, still no card, and the run named
    document = json.loads(_report_text("dev_container_live.json", False))
    cpu_run = bench_run_document()
    cpu_run["hello"]["device"] = "cpu"
    for result in cpu_run["results"]:
        result["device"] = "cpu"
    document["bench_runs"] = [cpu_run]
    outcome = compare_report_from_json(document, "cpu.json")
    assert isinstance(outcome, CompareImportFailure) and "ran on the CPU" in outcome.reason
