"""The share report (issue #6): one view of the whole machine, safe to post.

The report is a JSON document, schema `gpuscope.report/1`:

    {"schema", "generated_unix_s", "gpuscope_version", "origin", "redacted",
     "diagnosis": <the `gpuscope doctor --json` document>,
     "host": {cpu, cores, RAM}, "layers": [per GPU, the doctor's layer rows],
     "framework_verdicts": [per framework and GPU, the doctor's verdict],
     "device_index": [per GPU, how each layer numbers it: the inventory's DeviceIndexEntry,
                      gpu_index, pci_bus, drm_card, drm_render_minor, kfd_node, smi_index,
                      hip_index, cuda_index (after the *_VISIBLE_DEVICES variables), hidden_by,
                      note],
     "bench_runs": [<run_to_json>...], "telemetry_summary": {...} | null}

Every export goes the same way: `report_document` writes the document from the doctor's input,
`prepare_report` redacts it (on by default: host and user names, home paths, serials, UUIDs,
MAC and IP addresses become placeholders) and reads it back with `report_from_document` into a
`ShareReport`, the view model that the Markdown, HTML and PNG writers draw. So no writer ever
sees an unredacted value, and a report re-imported with `reading.load_report_json` (someone
else's file, for the Compare page) is the same kind of object as one made here.

Benchmark verdicts are not stored: they are worked out from the runs and the GPUs against the
knowledge base each time a report is read, so an old report gets today's expectations.

This module writes the document and prepares an export. The rest of the report lives beside it:
`view_model` (ShareReport and its parts), `reading` (document -> ShareReport),
`telemetry_summary` (recorded samples -> min/avg/max and sparklines) and `formatting` (numbers,
times and durations).
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from typing import Any

from gpuscope import __version__
from gpuscope.bench.results import BenchRun, run_to_json
from gpuscope.doctor import DoctorInput, diagnosis_document
from gpuscope.doctor.layers import layers_for
from gpuscope.doctor.verdicts import framework_verdicts
from gpuscope.model import Finding, OriginKind, to_jsonable
from gpuscope.report.device_index import index_json
from gpuscope.report.llm_speed import report_speed_rows, speed_json
from gpuscope.report.reading import report_from_document
from gpuscope.report.redact import Identity, Redactor, Replacement
from gpuscope.report.view_model import (
    REPORT_SCHEMA,
    TELEMETRY_SCHEMA,
    PreparedReport,
    ReportOrigin,
    ShareReport,
    TelemetrySummary,
)


def telemetry_to_json(summary: TelemetrySummary) -> dict[str, Any]:
    doc = to_jsonable(summary)
    assert isinstance(doc, dict)
    return {"schema": TELEMETRY_SCHEMA, **doc}


def _origin_json(data: DoctorInput) -> dict[str, Any]:
    origin = data.inventory.origin
    source = origin.source
    if source and origin.kind is OriginKind.REPLAY:
        source = source.replace("\\", "/").rsplit("/", 1)[-1]  # the file's name, not its path
    kind = origin.kind.value
    # "label" is for a person reading the JSON; readers go by "kind".
    label = ReportOrigin(kind if kind in ("live", "replay", "imported") else "unknown").title
    return {"kind": kind, "label": label, "source": source,
            "captured_utc": origin.captured_utc, "gpuscope_version": origin.gpuscope_version}


def _verdicts_json(data: DoctorInput, findings: Sequence[Finding]) -> list[dict[str, Any]]:
    """The doctor's verdict per (framework, GPU): what the Frameworks page shows."""
    return [{"framework": to_jsonable(verdict.framework), "gpu": verdict.gpu,
             "state": verdict.state.value, "reason": verdict.reason.value,
             "text": verdict.text, "finding_ids": list(verdict.finding_ids),
             "flavour": verdict.flavour, "arch_covered": verdict.arch.covered,
             "smoke_test": verdict.smoke.status, "host": verdict.host.status}
            for framework in data.frameworks
            for verdict in framework_verdicts(data, findings, framework)]


def _layers_json(data: DoctorInput, findings: Sequence[Finding]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for gpu in data.inventory.gpus:
        rows = [{"name": row.name, "state": row.state.value, "text": row.text,
                 "finding": row.finding.id if row.finding is not None else None}
                for row in layers_for(data, findings, gpu)]
        out.append({"gpu": gpu.index, "rows": rows})
    return out


def report_document(data: DoctorInput, findings: Sequence[Finding], *,
                    bench_runs: Sequence[BenchRun] = (),
                    telemetry: TelemetrySummary | None = None,
                    generated_unix_s: float | None = None) -> dict[str, Any]:
    """The `gpuscope.report/1` document, unredacted ("redacted": false)."""
    host = data.inventory.host
    return {
        "schema": REPORT_SCHEMA,
        "generated_unix_s": round(time.time() if generated_unix_s is None
                                  else generated_unix_s, 3),
        "gpuscope_version": __version__,
        "origin": _origin_json(data),
        "redacted": False,
        "diagnosis": diagnosis_document(data, tuple(findings)),
        "host": {"architecture": host.architecture, "cpu_model": host.cpu_model,
                 "cpu_physical_cores": host.cpu_physical_cores,
                 "cpu_logical_cores": host.cpu_logical_cores,
                 "ram_total_bytes": host.ram_total_bytes},
        "layers": _layers_json(data, findings),
        "framework_verdicts": _verdicts_json(data, findings),
        "device_index": index_json(data.inventory.device_index),
        "bench_runs": [run_to_json(run) for run in bench_runs],
        "telemetry_summary": telemetry_to_json(telemetry) if telemetry is not None else None,
    }


def redactor_for(data: DoctorInput, document: Mapping[str, Any],
                 identity: Identity | None = None,
                 identity_sources: Sequence[Any] = ()) -> Redactor:
    """The redactor of one export: this process's user, host and home, what the machine's
    inventory and frameworks say about themselves, `identity` and whatever
    `identity_sources` (a replayed snapshot's JSON) name."""
    return Redactor.for_export(data.inventory, data.frameworks, document, *identity_sources,
                               identity=identity)


def prepare_report(data: DoctorInput, findings: Sequence[Finding], *,
                   bench_runs: Sequence[BenchRun] = (),
                   telemetry: TelemetrySummary | None = None, redact: bool = True,
                   identity: Identity | None = None, identity_sources: Sequence[Any] = (),
                   generated_unix_s: float | None = None) -> PreparedReport:
    """The report of `data` ready to export: redacted (unless `redact` is False) before any
    format is made from it, with the list of what was replaced."""
    document = report_document(data, findings, bench_runs=bench_runs, telemetry=telemetry,
                               generated_unix_s=generated_unix_s)
    replacements: tuple[Replacement, ...] = ()
    if redact:
        redactor = redactor_for(data, document, identity, identity_sources)
        document = redactor.redact_json({**document, "redacted": True})
        replacements = redactor.preview()
    return PreparedReport(report_from_document(document), replacements)


def preview_replacements(data: DoctorInput, findings: Sequence[Finding], *,
                         bench_runs: Sequence[BenchRun] = (),
                         telemetry: TelemetrySummary | None = None,
                         identity: Identity | None = None,
                         identity_sources: Sequence[Any] = ()) -> tuple[Replacement, ...]:
    """What redaction will remove from this report: kind, original, placeholder."""
    return prepare_report(data, findings, bench_runs=bench_runs, telemetry=telemetry,
                          identity=identity, identity_sources=identity_sources).replacements


def report_json_text(report: ShareReport) -> str:
    """The JSON export: the document the report was read from."""
    document = {**report.document, "llm_speed": speed_json(report_speed_rows(report))}
    return json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
