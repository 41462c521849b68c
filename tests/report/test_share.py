"""The report document: made from a replayed machine, redacted by default, labelled, and read
back the same (a report re-imported for Compare is the same kind of object)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from fixture_paths import SNAPSHOTS_DIR
from report_fixtures import (
    PLANTED_HOME,
    PLANTED_HOST,
    PLANTED_NAMES,
    PLANTED_SERIAL,
    PLANTED_USER,
    bench_run,
    planted_snapshot,
    telemetry_summary,
)

from gpuscope.doctor import DoctorInput, diagnose
from gpuscope.evidence import ReplaySystem
from gpuscope.inventory import collect_frameworks, collect_inventory
from gpuscope.report.reading import load_report_json, telemetry_from_json
from gpuscope.report.share import prepare_report, report_json_text, telemetry_to_json
from gpuscope.report.view_model import REPORT_SCHEMA, PreparedReport


def _prepared(snapshot: Path, *, redact: bool = True, with_extras: bool = True,
              python: str = "/opt/test-data/venv/bin/python") -> PreparedReport:
    system = ReplaySystem.from_file(snapshot)
    inventory = collect_inventory(system)
    data = DoctorInput(inventory, collect_frameworks(system, []))
    return prepare_report(
        data, diagnose(data),
        bench_runs=(bench_run(python=python),) if with_extras else (),
        telemetry=telemetry_summary() if with_extras else None, redact=redact,
        identity_sources=(system.snapshot.to_json(),))


def leaks(text: str, *names: str) -> list[str]:
    return [name for name in names if name.lower() in text.lower()]


def test_the_document_is_redacted_by_default(tmp_path: Path) -> None:
    prepared = _prepared(planted_snapshot(tmp_path),
                         python=f"{PLANTED_HOME}/venv/bin/python")
    report = prepared.report
    assert report.redacted and report.document["redacted"] is True
    text = report_json_text(report)
    assert leaks(text, *PLANTED_NAMES) == []
    kinds = {entry.kind.value for entry in prepared.replacements}
    assert {"home", "serial", "uuid"} <= kinds
    assert "<home-1>/venv/bin/python" in text
    # what makes the report useful stays
    assert report.gpus[0].name == "AMD Radeon RX 7900 XTX"
    assert report.gpus[0].gfx_target == "gfx1100"
    assert report.gpus[0].pci_bus == "0000:03:00.0"


def test_without_redaction_the_names_are_there(tmp_path: Path) -> None:
    """The redacted test above can fail: unredacted, the planted names reach the document."""
    prepared = _prepared(planted_snapshot(tmp_path), redact=False,
                         python=f"{PLANTED_HOME}/venv/bin/python")
    text = report_json_text(prepared.report)
    assert not prepared.report.redacted
    assert leaks(text, PLANTED_HOME, PLANTED_SERIAL) == [PLANTED_HOME, PLANTED_SERIAL]
    assert prepared.replacements == ()


def test_a_replay_is_labelled(tmp_path: Path) -> None:
    report = _prepared(SNAPSHOTS_DIR / "rx7900xtx_rocm.json").report
    assert report.origin.kind == "replay" and not report.origin.is_live
    assert report.origin.source == "rx7900xtx_rocm.json"  # the name, not the path
    assert "REPLAYED SNAPSHOT" in report.origin.title
    assert "not the machine's state now" in report.origin.sentence(report.generated_unix_s)


def test_the_json_export_reads_back_the_same(tmp_path: Path) -> None:
    report = _prepared(planted_snapshot(tmp_path)).report
    loaded = load_report_json(report_json_text(report))
    assert loaded.ok and loaded.report is not None
    again = loaded.report
    assert again.document["schema"] == REPORT_SCHEMA
    assert again.gpus == report.gpus
    assert again.layers == report.layers
    assert again.findings == report.findings
    assert again.bench_runs == report.bench_runs
    assert again.bench == report.bench
    assert again.telemetry == report.telemetry
    assert again.origin == report.origin
    assert report_json_text(again) == report_json_text(report)


def test_benchmark_results_are_judged_against_the_datasheet(tmp_path: Path) -> None:
    report = _prepared(planted_snapshot(tmp_path)).report
    (section,) = report.bench
    assert section.card == "AMD Radeon RX 7900 XTX"
    rows = {row.id: row for row in section.rows}
    fp16 = rows["matmul.fp16"]
    assert fp16.peak_value == pytest.approx(122.8)
    assert fp16.percent_of_peak == pytest.approx(98.6 / 122.8 * 100)
    assert rows["matmul.int8"].status == "unsupported"
    assert rows["matmul.int8"].value is None


def test_telemetry_summary_round_trips() -> None:
    summary = telemetry_summary()
    assert telemetry_from_json(json.loads(json.dumps(telemetry_to_json(summary)))) == summary
    gpu = summary.devices[0]
    power = gpu.metric("power_w")
    assert power is not None and power.min == pytest.approx(45) and power.max == pytest.approx(330)
    assert summary.devices[-1].key == "host"  # the host last


@pytest.mark.parametrize("text", ["", "not json", "[]", '{"schema": "gpuscope.diagnosis/1"}',
                                  b"\x89PNG\r\n\x1a\n"])
def test_what_is_no_report_is_refused_with_a_reason(text: str | bytes) -> None:
    loaded = load_report_json(text)
    assert not loaded.ok and loaded.error and "not a gpuscope report" in loaded.error


def test_a_damaged_part_is_named_not_fatal(tmp_path: Path) -> None:
    document = json.loads(report_json_text(_prepared(planted_snapshot(tmp_path)).report))
    document["bench_runs"].append({"schema": "something else"})
    document["telemetry_summary"] = {"devices": "nope"}
    loaded = load_report_json(json.dumps(document))
    assert loaded.report is not None
    assert len(loaded.report.bench) == 1
    assert any("benchmark run 2" in p for p in loaded.report.problems)
    assert any("telemetry" in p for p in loaded.report.problems)


def test_the_planted_snapshot_holds_the_names() -> None:
    """The fixture plants what the export tests look for."""
    text = (SNAPSHOTS_DIR / "rx7900xtx_rocm.json").read_text()
    assert "alice" in text and PLANTED_USER not in text and PLANTED_HOST not in text


def test_the_versions_say_what_is_absent() -> None:
    """A reader looks for the ROCm and NVIDIA driver versions first: where there is none, the
    Stack table says so instead of leaving the row out."""
    nvidia = dict(_prepared(SNAPSHOTS_DIR / "nvidia_h200.json").report.stack)
    assert nvidia["NVIDIA driver"] == "580.159.04" and nvidia["ROCm"] == "not found"
    amd = dict(_prepared(SNAPSHOTS_DIR / "rx7900xtx_rocm.json").report.stack)
    assert amd["ROCm"] != "not found" and amd["NVIDIA driver"] == "not found"


def test_without_a_gpu_the_headline_does_not_repeat_the_title() -> None:
    """The title and the GPUs section say "no GPU found"; the headline says what the doctor
    made of it, and with findings their counts, which may say why."""
    report = _prepared(SNAPSHOTS_DIR / "dev_container_live.json").report
    assert not report.gpus and not report.findings
    assert report.verdict_line() == "The doctor has no GPU to judge."
    warned = dataclasses.replace(report, findings=(
        *report.findings, *_prepared(SNAPSHOTS_DIR / "amd_kfd_no_access.json").report.findings))
    assert warned.verdict_line().startswith("The doctor found ")
