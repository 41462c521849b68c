"""Reading a `gpuscope.report/1` document (made here, or someone else's file for Compare) into
the view model. Never trusts the document: a field of the wrong type is left out, a part that
cannot be read is named in `ShareReport.problems`, and only something that is no report at all
raises `ReportError`."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from gpuscope.bench.assess import assess_run
from gpuscope.bench.results import BenchRun, ResultStatus, run_from_json
from gpuscope.decode import decode
from gpuscope.doctor.llm_summary import runtime_line
from gpuscope.i18n import N_, Message, message
from gpuscope.model import Gpu, LlmRuntime, PcieLink
from gpuscope.model import json_bool as _bool
from gpuscope.model import json_dict as _dict
from gpuscope.model import json_float as _float
from gpuscope.model import json_int as _int
from gpuscope.model import json_list as _list
from gpuscope.report.device_index import index_from_json
from gpuscope.report.formatting import format_unix
from gpuscope.report.telemetry_summary import SPARK_POINTS
from gpuscope.report.view_model import (
    LAYER_WORDS,
    REPORT_SCHEMA,
    SEVERITY_ORDER,
    BenchRow,
    BenchSection,
    DeviceTelemetry,
    GpuLayers,
    LoadedReport,
    MetricStats,
    ReportError,
    ReportFinding,
    ReportFramework,
    ReportGpu,
    ReportLayer,
    ReportOrigin,
    ReportPlatform,
    ShareReport,
    TelemetrySummary,
)


def _str(value: Any, limit: int = 4000) -> str | None:
    if not isinstance(value, str):
        return None
    text = value.strip()[:limit]
    # A message of this gpuscope (a report made here) stays one, so it can be shown translated.
    return (value if text == value and isinstance(value, Message) else text) or None


# A finding's source as a report may show it: a web address with nothing that could close the
# link or the attribute it is written into.
_PUBLIC_URL = re.compile(r"https?://[^\s<>\"'`\\]+")


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(s for s in (_str(v) for v in _list(value)) if s)


def _link(raw: Any) -> PcieLink | None:
    data = _dict(raw)
    if not data:
        return None
    return PcieLink(current_speed_gt_s=_float(data.get("current_speed_gt_s")),
                    current_width=_int(data.get("current_width")),
                    max_speed_gt_s=_float(data.get("max_speed_gt_s")),
                    max_width=_int(data.get("max_width")),
                    measured_at=_str(data.get("measured_at")))


# ReportGpu's fields read as text and as whole numbers, by their names in the document.
_GPU_TEXTS: tuple[str, ...] = (
    "vendor", "kind", "gfx_target", "compute_capability", "architecture", "board_name",
    "pci_vendor_id", "pci_device_id", "pci_bus", "kernel_driver", "driver_version",
)
_GPU_COUNTS: tuple[str, ...] = ("vram_total_bytes", "compute_units")


def _gpus(diagnosis: Mapping[str, Any]) -> tuple[ReportGpu, ...]:
    gpus: list[ReportGpu] = []
    for position, raw in enumerate(_list(diagnosis.get("gpus"))):
        data = _dict(raw)
        if not data:
            continue
        index = _int(data.get("index"))
        fields: dict[str, Any] = {key: _str(data.get(key)) for key in _GPU_TEXTS}
        fields.update((key, _int(data.get(key))) for key in _GPU_COUNTS)
        gpus.append(ReportGpu(
            index=index if index is not None else position,
            name=_str(data.get("name")) or message("unknown GPU"),
            pcie_link=_link(data.get("pcie_link")),
            name_candidates=_strings(data.get("name_candidates")),
            power_cap_w=_float(data.get("power_cap_w")), **fields))
    return tuple(gpus)


def _platform(diagnosis: Mapping[str, Any], host: Mapping[str, Any]) -> ReportPlatform:
    data = _dict(diagnosis.get("platform"))
    return ReportPlatform(
        os=_str(data.get("os")) or "unknown", distro=_str(data.get("distro")),
        kernel=_str(data.get("kernel")), container=_bool(data.get("container")),
        virtual_machine=_bool(data.get("virtual_machine")),
        architecture=_str(host.get("architecture")), cpu_model=_str(host.get("cpu_model")),
        cpu_physical_cores=_int(host.get("cpu_physical_cores")),
        cpu_logical_cores=_int(host.get("cpu_logical_cores")),
        ram_total_bytes=_int(host.get("ram_total_bytes")))


_STACK_FIELDS: tuple[tuple[str, str], ...] = (
    ("rocm_version", "ROCm"), ("hip_runtime_version", N_("HIP runtime")),
    ("hsa_runtime_version", N_("HSA runtime")), ("amdgpu_driver_version", "amdgpu-dkms"),
    ("amdgpu_loaded", N_("amdgpu loaded")), ("kfd_loaded", N_("KFD loaded")),
    ("nvidia_driver_version", N_("NVIDIA driver")), ("cuda_driver_version", N_("CUDA (driver)")),
    ("nvml_library_version", N_("NVML library")),
    ("amdsmi_library_version", N_("amdsmi library")), ("rocm_path", N_("ROCm path")),
)
# The versions a reader looks for first: their absence is said, not left out.
_SAID_WHEN_ABSENT = frozenset({"rocm_version", "nvidia_driver_version"})
_STACK_EXTRAS: tuple[tuple[str, str], ...] = (
    ("cuda_toolkit_version", N_("CUDA toolkit")), ("rocm_version_full", N_("ROCm (full)")),
)


def _scalar_text(value: Any) -> str | None:
    if isinstance(value, bool):
        return message("yes") if value else message("no")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return _str(value, 400)


def _stack(diagnosis: Mapping[str, Any]) -> tuple[tuple[tuple[str, str], ...],
                                                  tuple[tuple[str, str], ...],
                                                  tuple[tuple[str, str], ...]]:
    stack = _dict(diagnosis.get("stack"))
    rows: list[tuple[str, str]] = []
    platform = _dict(diagnosis.get("platform"))
    kernel = _str(platform.get("kernel"))
    if kernel:
        rows.append((message("Kernel"), kernel))
    for key, label in _STACK_FIELDS:
        text = _scalar_text(stack.get(key))
        if text is None and key in _SAID_WHEN_ABSENT:
            text = message("not found")  # on this machine, or in the outputs pasted
        if text is not None:
            rows.append((label, text))
    extras = _dict(stack.get("extras"))
    for key, label in _STACK_EXTRAS:
        text = _scalar_text(extras.get(key))
        if text is not None:
            rows.append((label, text))
    environment = tuple((str(k), text) for k, v in _dict(stack.get("environment")).items()
                        if (text := _scalar_text(v)) is not None)
    nodes: list[tuple[str, str]] = []
    for raw in _list(stack.get("device_nodes")):
        node = _dict(raw)
        path = _str(node.get("path"))
        if path is None:
            continue
        if node.get("exists") is False:
            access = message("missing")
        elif node.get("can_open") is True:
            access = message("this user can open it")
        elif node.get("can_open") is False:
            access = _str(node.get("reason")) or message("this user cannot open it")
        else:
            access = message("not checked")
        owner = ":".join(p for p in (_str(node.get("owner_user")),
                                     _str(node.get("owner_group"))) if p)
        mode = " ".join(p for p in (_str(node.get("mode")), owner) if p)
        nodes.append((path, message("{access} ({mode})", access=access, mode=mode)
                      if mode else access))
    return tuple(rows), environment, tuple(nodes)


def _frameworks(diagnosis: Mapping[str, Any],
                verdicts: Sequence[Any] = ()) -> tuple[ReportFramework, ...]:
    out: list[ReportFramework] = []
    for raw in _list(diagnosis.get("frameworks")):
        data = _dict(raw)
        name = _str(data.get("name"))
        if name is None:
            continue
        devices = tuple(n for n in (_str(_dict(d).get("name")) for d in
                                    _list(data.get("devices"))) if n)
        out.append(ReportFramework(
            name=name, version=_str(data.get("version")), build=_str(data.get("build"))
            or message("unknown"), build_version=_str(data.get("build_version")),
            gpu_available=_bool(data.get("gpu_available")), python=_str(data.get("python")),
            devices=devices, smoke_test=_str(data.get("smoke_test")),
            error=_str(data.get("error")), verdicts=tuple(
                message("GPU {gpu}: {verdict}", gpu=_int(_dict(v).get("gpu")),
                        verdict=_str(_dict(v).get("text")))
                for v in verdicts if _dict(_dict(v).get("framework")) == {
                    "name": name, "python": _str(data.get("python")),
                    "version": _str(data.get("version"))}
                and _str(_dict(v).get("text")) is not None)))
    return tuple(out)


def _llm_runtimes(diagnosis: Mapping[str, Any]) -> tuple[tuple[bool, str], ...]:
    """(found, line) per LLM runtime ("Ollama 0.5.1: ROCm on ..."), as the doctor words it."""
    gpus = tuple(g for g in (decode(Gpu, raw).value for raw in _list(diagnosis.get("gpus")))
                 if g is not None)
    lines = []
    for raw in _list(diagnosis.get("llm_runtimes")):
        runtime = decode(LlmRuntime, raw).value
        if runtime is not None:
            lines.append((runtime.found, runtime_line(runtime, gpus)))
    return tuple(lines)


def _findings(diagnosis: Mapping[str, Any]) -> tuple[ReportFinding, ...]:
    out: list[ReportFinding] = []
    for raw in _list(diagnosis.get("findings")):
        data = _dict(raw)
        finding_id, title = _str(data.get("id")), _str(data.get("title"))
        if finding_id is None or title is None:
            continue
        severity = _str(data.get("severity")) or "info"
        out.append(ReportFinding(
            id=finding_id, severity=severity if severity in SEVERITY_ORDER else "info",
            title=title, detail=_str(data.get("detail"), 8000) or "",
            fix=_str(data.get("fix"), 4000), gpu=_int(data.get("gpu")),
            evidence=_strings(data.get("evidence")),
            fix_commands=tuple(c for c in (_str(v, 2000) for v in _list(
                data.get("fix_commands"))[:20]) if c),
            sources=tuple(u for u in (_str(v, 500) for v in _list(data.get("sources"))[:20])
                          if u and _PUBLIC_URL.fullmatch(u))))
    out.sort(key=lambda f: SEVERITY_ORDER.index(f.severity))
    return tuple(out)


def _layers(raw: Any) -> tuple[GpuLayers, ...]:
    out: list[GpuLayers] = []
    for entry in _list(raw):
        data = _dict(entry)
        gpu = _int(data.get("gpu"))
        if gpu is None:
            continue
        rows = []
        for item in _list(data.get("rows")):
            row = _dict(item)
            name, state = _str(row.get("name")), _str(row.get("state"))
            if name is None or state is None:
                continue
            rows.append(ReportLayer(name, state if state in LAYER_WORDS else "unknown",
                                    _str(row.get("text")) or "", _str(row.get("finding"))))
        out.append(GpuLayers(gpu, tuple(rows)))
    return tuple(out)


# ----------------------------------------------------------------------------- benchmarks


def bench_section(run: BenchRun, gpus: Sequence[ReportGpu]) -> BenchSection:
    """One benchmark run as the report shows it, judged against the datasheet of its GPU."""
    hello = run.hello
    # The matching (worker device -> GPU -> card and slot link) and the judging live in the
    # bench layer, shared with `gpuscope bench` and the Benchmarks page.
    assessment = assess_run(run, [g.to_gpu() for g in gpus])
    rows: list[BenchRow] = []
    for result in run.results:
        judged = assessment.result(result.id)
        title = judged.title if judged is not None else result.id
        if judged is None or result.status is not ResultStatus.OK or result.value is None:
            rows.append(BenchRow(result.id, title, result.status.value, result.unit,
                                 level=result.status.value,
                                 verdict=result.reason or result.status.value,
                                 higher_is_better=result.higher_is_better))
            continue
        peak = judged.peak
        rows.append(BenchRow(
            result.id, title, result.status.value, result.unit, value=result.value,
            peak_value=peak.value if peak is not None else None,
            peak_label=peak.label if peak is not None else None,
            percent_of_peak=judged.percent_of_peak, band_pct=judged.band_pct,
            level=judged.level, verdict=judged.text,
            higher_is_better=result.higher_is_better, unstable=judged.unstable,
            stability=judged.stability.detail
            if judged.stability is not None and judged.unstable else None))
    if hello is not None and hello.torch_version:
        torch = f"torch {hello.torch_version}"
        if hello.build:
            torch += f" ({hello.build}{f' {hello.build_version}' if hello.build_version else ''})"
    else:
        torch = message("no torch")
    errors = tuple(f"{e.kind.value}: {e.message}" for e in run.errors)
    card = assessment.card
    target = assessment.target
    return BenchSection(device=assessment.device_label,
                        card=card.name if card is not None else None,
                        torch=torch, started_unix_s=run.started_unix_s,
                        duration_s=run.duration_s, rows=tuple(rows), errors=errors,
                        not_run=run.not_run,
                        note=hello.device_note if hello is not None else None,
                        gpu_index=target.gpu_index if target is not None else None)



# ----------------------------------------------------------------------------- telemetry


def telemetry_from_json(raw: Any) -> TelemetrySummary | None:
    data = _dict(raw)
    devices: list[DeviceTelemetry] = []
    for entry in _list(data.get("devices")):
        device = _dict(entry)
        metrics: list[MetricStats] = []
        for item in _list(device.get("metrics")):
            stat = _dict(item)
            metric, low, avg, high = (_str(stat.get("metric")), _float(stat.get("min")),
                                      _float(stat.get("avg")), _float(stat.get("max")))
            if metric is None or low is None or avg is None or high is None:
                continue
            spark = tuple(_float(v) for v in _list(stat.get("spark"))[:SPARK_POINTS * 4])
            metrics.append(MetricStats(metric, _str(stat.get("label")) or metric,
                                       _str(stat.get("unit")) or "", low, avg, high,
                                       _int(stat.get("samples")) or 0, spark))
        key = _str(device.get("key"))
        if key and metrics:
            devices.append(DeviceTelemetry(key, _str(device.get("label")) or key,
                                           tuple(metrics)))
    if not devices:
        return None
    return TelemetrySummary(source=_str(data.get("source")) or message("unknown source"),
                            live=_bool(data.get("live")) or False,
                            started_unix_s=_float(data.get("started_unix_s")),
                            duration_s=_float(data.get("duration_s")), devices=tuple(devices),
                            at_capture=_bool(data.get("at_capture")) or False)


# ----------------------------------------------------------------------------- the document


def report_from_document(raw: Any) -> ShareReport:
    """A report from its JSON document. Never raises: what cannot be read is left out and
    named in `problems`. Raises ReportError only for something that is no report at all."""
    doc = _dict(raw)
    if doc.get("schema") != REPORT_SCHEMA:
        found = doc.get("schema") if doc else type(raw).__name__
        raise ReportError(f"not a gpuscope report (schema {found!r}, expected "
                          f"{REPORT_SCHEMA!r})")
    problems: list[str] = []
    diagnosis = _dict(doc.get("diagnosis"))
    if not diagnosis:
        problems.append(message("the report holds no diagnosis"))
    origin_raw = doc.get("origin")
    origin_data = _dict(origin_raw)
    if isinstance(origin_raw, str):  # a diagnosis-style origin
        origin_data = {"kind": origin_raw}
    kind = _str(origin_data.get("kind")) or _str(diagnosis.get("origin")) or "unknown"
    origin = ReportOrigin(kind=kind if kind in ("live", "replay", "imported") else "unknown",
                          source=_str(origin_data.get("source"), 400)
                          or _str(diagnosis.get("origin_source"), 400),
                          captured_utc=_str(origin_data.get("captured_utc")),
                          gpuscope_version=_str(origin_data.get("gpuscope_version")))
    gpus = _gpus(diagnosis)
    stack, environment, nodes = _stack(diagnosis)
    runs: list[BenchRun] = []
    for number, raw_run in enumerate(_list(doc.get("bench_runs")), start=1):
        run = run_from_json(raw_run)
        if run is None:
            problems.append(message("benchmark run {number} could not be read",
                                    number=number))
        else:
            runs.append(run)
    sections: list[BenchSection] = []
    for run in runs:
        try:
            sections.append(bench_section(run, gpus))
        except (ValueError, TypeError, KeyError, OSError) as exc:  # a knowledge table problem
            problems.append(message("benchmark run of {when}: {error}",
                                    when=format_unix(run.started_unix_s), error=str(exc)))
    telemetry_raw = doc.get("telemetry_summary")
    telemetry = telemetry_from_json(telemetry_raw) if telemetry_raw is not None else None
    if telemetry_raw is not None and telemetry is None:
        problems.append(message("the telemetry summary could not be read"))
    redacted = doc.get("redacted")
    return ShareReport(
        generated_unix_s=_float(doc.get("generated_unix_s")),
        gpuscope_version=_str(doc.get("gpuscope_version")),
        origin=origin, redacted=redacted is True,
        platform=_platform(diagnosis, _dict(doc.get("host"))),
        gpus=gpus, layers=_layers(doc.get("layers")), stack=stack, environment=environment,
        device_nodes=nodes, frameworks=_frameworks(diagnosis, _list(doc.get("framework_verdicts"))),
        findings=_findings(diagnosis), llm_runtimes=_llm_runtimes(diagnosis),
        bench=tuple(sorted(sections, key=lambda s: -s.started_unix_s)),
        bench_runs=tuple(runs), telemetry=telemetry,
        # "llm_speed" is derived from the rest whenever it is shown (report_json_text).
        document={k: v for k, v in doc.items() if k != "llm_speed"},
        problems=tuple(problems), device_index=index_from_json(doc.get("device_index")))


def load_report_json(text: str | bytes) -> LoadedReport:
    """Someone's `gpuscope report --format json`, for Compare. Never raises: garbage, another
    JSON document or a damaged file gives a LoadedReport with `error` saying why."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError:
            return LoadedReport(None, "not a gpuscope report: the file is not UTF-8 text")
    try:
        raw = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        return LoadedReport(None, f"not a gpuscope report: not valid JSON ({exc})"
                            if isinstance(exc, json.JSONDecodeError)
                            else "not a gpuscope report: nested too deeply")
    try:
        return LoadedReport(report_from_document(raw))
    except ReportError as exc:
        return LoadedReport(None, str(exc))
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
        # No reader bug may take the Compare page down; say what broke instead.
        return LoadedReport(None, f"the report could not be read: {type(exc).__name__}: {exc}")
