"""Someone else's report, read for the Compare page: their GPUs and what their benchmarks
measured on each, joined with gpuscope's knowledge of the card.

Reads the share report (schema "gpuscope.report/1": {"schema", "origin", "redacted",
"diagnosis": <the `gpuscope doctor --json` document>, "bench_runs": [<`run_to_json`>]}, and
from `gpuscope serve`'s /api/report, "imported_llm_results": [<`imported_to_json`>], the
llama-bench results imported on that machine), and,
leniently, a bare diagnosis document ("gpuscope.diagnosis/1") or a bare benchmark run
("gpuscope.bench/1"). Nothing here raises on what a file holds: a file that is not such a
document gives a `CompareImportFailure` with a reason a user understands; parts that cannot be
used (a run on the CPU, a GPU without a name) are skipped and named in `notes`.

A benchmark run is joined to the report's GPU by the card its device name names, else by its
gfx target or compute capability, else, when the report has a single GPU, to that GPU. A run
that joins to none becomes a card of its own, from what the worker said about the device.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gpuscope.bench.imported import ImportedResult, imported_from_json
from gpuscope.bench.results import (
    BenchDevice,
    BenchmarkResult,
    BenchRun,
    ResultStatus,
    run_from_json,
)
from gpuscope.knowledge.bench_expectations import Peak, datasheet_peak
from gpuscope.knowledge.compare import CardProfile, profile_for_gpu
from gpuscope.knowledge.rocm_support import normalise_gfx
from gpuscope.knowledge.specs import GpuSpec, gpu_spec, normalise_name
from gpuscope.model import Gpu, GpuKind, Vendor
from gpuscope.untrusted import UntrustedInputError, clean_text, load_json, read_regular_file

REPORT_SCHEMA = "gpuscope.report/1"
DIAGNOSIS_SCHEMA = "gpuscope.diagnosis/1"  # gpuscope.doctor.document; report/ may not import it
BENCH_SCHEMA = "gpuscope.bench/1"  # gpuscope.bench.results.RUN_SCHEMA
# A report is tens of kilobytes; anything this big is not one, and is refused before reading.
MAX_REPORT_BYTES = 4 * 1024 * 1024
# `gpuscope serve`'s /api/report adds the llama-bench results imported on its machine.
IMPORTED_LLM_KEY = "imported_llm_results"
MAX_IMPORTED_LLM_RESULTS = 200
_NAME_LIMIT = 200
_ORIGIN_WORDS = {
    "replay": "made from a replayed snapshot",
    "imported": "made from pasted command outputs",
    "demo": "demo data",
}


@dataclass(frozen=True, slots=True)
class MeasuredResult:
    """The latest result of one benchmark on one card, against the card's datasheet peak."""

    benchmark_id: str  # "matmul.fp16"
    status: ResultStatus
    value: float | None  # None unless status is OK
    unit: str  # "TFLOPS", "GB/s"
    reason: str | None  # why unsupported or failed
    peak: Peak | None  # the datasheet figure it is a fraction of; None when there is none
    percent_of_peak: float | None
    device_name: str | None
    torch_version: str | None
    build: str | None  # "rocm", "cuda"
    ended_unix_s: float | None


@dataclass(frozen=True, slots=True)
class ImportedCard:
    """One kind of card in a report (identical GPUs are one card, `count` of them)."""

    gpu: Gpu
    profile: CardProfile  # at its launch price
    count: int
    results: Mapping[str, MeasuredResult] = field(default_factory=dict)

    def result(self, benchmark_id: str) -> MeasuredResult | None:
        return self.results.get(benchmark_id)


@dataclass(frozen=True, slots=True)
class ImportedReport:
    source: str  # the file's name, as the page labels the card ("imported from r.json")
    schema: str
    origin: str | None  # the report's own origin: "live", "replay", "imported"
    redacted: bool | None
    cards: tuple[ImportedCard, ...]  # empty for a report of a machine without a GPU
    notes: tuple[str, ...] = ()  # what was skipped, and why
    llm_results: tuple[ImportedResult, ...] = ()  # llama-bench results imported there

    @property
    def origin_words(self) -> str | None:
        """"made from a replayed snapshot" and the like; None for a live machine or unknown."""
        return _ORIGIN_WORDS.get(self.origin or "")


@dataclass(frozen=True, slots=True)
class CompareImportFailure:
    reason: str


CompareImport = ImportedReport | CompareImportFailure


# ----------------------------------------------------------------------------- reading


def read_compare_report(path: str | os.PathLike[str],
                        max_bytes: int = MAX_REPORT_BYTES) -> CompareImport:
    """The report at `path`, or why it cannot be used. Only a regular file of at most
    `max_bytes` is read (a FIFO or a device would block, a huge file is no report)."""
    name = os.path.basename(os.fspath(path)) or os.fspath(path)
    try:
        data = read_regular_file(path, max_bytes, name=name, what="a report")
    except UntrustedInputError as exc:
        return CompareImportFailure(str(exc))
    return parse_compare_report(data, source=name)


def parse_compare_report(text: str | bytes, source: str = "report") -> CompareImport:
    """A report's text (or bytes) to its cards, or why it cannot be used. The JSON is read
    with bounds on nesting and number length."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError:
            return CompareImportFailure(
                f"{source}: not a gpuscope report (not UTF-8 text; is it an image or an "
                "archive?)")
    if not text.strip():
        return CompareImportFailure(f"{source}: the file is empty")
    try:
        doc = load_json(text, name=source)
    except UntrustedInputError as exc:
        why = str(exc).removeprefix(f"{source}: ")
        return CompareImportFailure(f"{source}: not a gpuscope report: {why}")
    return compare_report_from_json(doc, source)


def compare_report_from_json(doc: Any, source: str = "report") -> CompareImport:
    """A parsed JSON document to its cards, or why it cannot be used. Never raises."""
    if not isinstance(doc, dict):
        return CompareImportFailure(
            f"{source}: not a gpuscope report (the JSON is {_json_kind(doc)}, not an object)")
    schema = doc.get("schema")
    notes: list[str] = []
    if schema == REPORT_SCHEMA:
        diagnosis = doc.get("diagnosis")
        raw_runs = doc.get("bench_runs")
        if diagnosis is not None and not isinstance(diagnosis, dict):
            notes.append("the report's diagnosis is not an object: its GPUs are not known")
            diagnosis = None
        if raw_runs is not None and not isinstance(raw_runs, list):
            notes.append("the report's bench_runs is not a list: no measured results")
            raw_runs = None
        origin, redacted = _text(doc.get("origin")), doc.get("redacted")
        if origin is None and isinstance(diagnosis, dict):
            origin = _text(diagnosis.get("origin"))
    elif schema == DIAGNOSIS_SCHEMA:
        diagnosis, raw_runs = doc, None
        origin, redacted = _text(doc.get("origin")), None
    elif schema == BENCH_SCHEMA:
        diagnosis, raw_runs = None, [doc]
        origin, redacted = None, None
    elif isinstance(schema, str) and schema.startswith("gpuscope."):
        return CompareImportFailure(
            f"{source}: a {schema[:60]} document, which holds no GPUs to compare; import a "
            f"report ({REPORT_SCHEMA}) or a diagnosis (`gpuscope doctor --json`)")
    else:
        return CompareImportFailure(
            f"{source}: not a gpuscope report (no \"schema\": \"{REPORT_SCHEMA}\" in it)")

    llm_results = _llm_results(doc.get(IMPORTED_LLM_KEY) if schema == REPORT_SCHEMA else None,
                               notes)
    groups = _gpu_groups(diagnosis, notes) if isinstance(diagnosis, dict) else []
    runs: list[BenchRun] = []
    for position, raw in enumerate(raw_runs or ()):
        run = run_from_json(raw)
        if run is None:
            notes.append(f"benchmark run {position + 1} is not a run gpuscope can read: skipped")
        else:
            runs.append(run)
    runs.sort(key=lambda r: r.ended_unix_s)
    _attach_runs(runs, groups, notes)
    cards = tuple(group.card() for group in groups)
    listed = isinstance(diagnosis, dict) and isinstance(diagnosis.get("gpus"), list)
    if not cards and not (listed and not runs):
        why = "; ".join(notes) if notes else "it lists no GPU and no benchmark run on a GPU"
        return CompareImportFailure(f"{source}: no GPU to compare ({why})")
    # A sound report of a machine without a GPU is read: it has no card to add (`cards` is
    # empty), which the page says in so many words.
    return ImportedReport(source=source, schema=str(schema), origin=origin,
                          redacted=redacted if isinstance(redacted, bool) else None,
                          cards=cards, notes=tuple(notes), llm_results=llm_results)


def _llm_results(raw: Any, notes: list[str]) -> tuple[ImportedResult, ...]:
    """The imported llama-bench results of a served report (none in a plain one)."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        notes.append(f"the report's {IMPORTED_LLM_KEY} is not a list: no imported LLM results")
        return ()
    read = [imported_from_json(item) for item in raw[:MAX_IMPORTED_LLM_RESULTS]]
    kept = tuple(item for item in read if item is not None)
    if len(kept) < len(read):
        notes.append(f"{len(read) - len(kept)} imported LLM result(s) gpuscope cannot read: "
                     "skipped")
    return kept


# ----------------------------------------------------------------------------- GPUs


@dataclass(slots=True)
class _Group:
    """The GPUs of one kind in the report and the results measured on any of them."""

    gpu: Gpu
    profile: CardProfile
    indices: list[int]
    results: dict[str, MeasuredResult] = field(default_factory=dict)

    def card(self) -> ImportedCard:
        return ImportedCard(gpu=self.gpu, profile=self.profile, count=len(self.indices),
                            results=dict(sorted(self.results.items())))


def _gpu_groups(diagnosis: Mapping[str, Any], notes: list[str]) -> list[_Group]:
    raw_gpus = diagnosis.get("gpus")
    if not isinstance(raw_gpus, list):
        notes.append("the diagnosis lists no GPUs")
        return []
    groups: dict[str, _Group] = {}
    for position, raw in enumerate(raw_gpus):
        gpu = gpu_from_json(raw, position)
        if gpu is None:
            notes.append(f"GPU {position} has neither a name nor a PCI id: skipped")
            continue
        profile = profile_for_gpu(gpu)
        key = profile.spec.name if profile.spec else _identity(gpu)
        group = groups.get(key)
        if group is None:
            groups[key] = _Group(gpu=gpu, profile=profile, indices=[gpu.index])
        else:
            group.indices.append(gpu.index)
    return list(groups.values())


def gpu_from_json(raw: Any, position: int = 0) -> Gpu | None:
    """A GPU of a diagnosis document (`"gpus"`), with the fields a comparison needs; None
    without a name or PCI device id."""
    if not isinstance(raw, dict):
        return None
    name = _text(raw.get("name"), _NAME_LIMIT)
    device_id = _pci_id(raw.get("pci_device_id"))
    if name is None and device_id is None:
        return None
    index = _int(raw.get("index"))
    candidates = raw.get("name_candidates")
    return Gpu(
        index=index if index is not None and index >= 0 else position,
        vendor=_enum(Vendor, raw.get("vendor")),
        name=name,
        name_candidates=tuple(t for t in (_text(c, _NAME_LIMIT) for c in candidates)
                              if t)[:8] if isinstance(candidates, list) else (),
        architecture=_text(raw.get("architecture"), 60),
        family=_text(raw.get("family"), 60),
        kind=_enum(GpuKind, raw.get("kind")),
        pci_vendor_id=_pci_id(raw.get("pci_vendor_id")),
        pci_device_id=device_id,
        gfx_target=normalise_gfx(raw["gfx_target"]) if isinstance(raw.get("gfx_target"), str)
        else None,
        compute_capability=_capability(raw.get("compute_capability")),
        vram_total_bytes=_positive(raw.get("vram_total_bytes")),
        compute_units=_positive(raw.get("compute_units")),
    )


def _identity(gpu: Gpu) -> str:
    return normalise_name(gpu.name) if gpu.name else f"{gpu.pci_vendor_id}:{gpu.pci_device_id}"


# ----------------------------------------------------------------------------- runs


def _attach_runs(runs: Sequence[BenchRun], groups: list[_Group], notes: list[str]) -> None:
    """Each run's GPU results to the group of the GPU they ran on (later runs win)."""
    for number, run in enumerate(runs, start=1):
        by_device: dict[str, list[BenchmarkResult]] = {}
        for result in run.results:
            by_device.setdefault(result.device, []).append(result)
        if not by_device:
            continue
        for device, results in by_device.items():
            if device == "cpu" or device.startswith("cpu:"):
                note = run.hello.device_note if run.hello and run.hello.device_note else None
                notes.append(f"benchmark run {number} ran on the CPU, not a GPU"
                             + (f" ({note})" if note else "") + ": not compared")
                continue
            group = _group_for(run, device, results, groups, notes, number)
            for result in results:
                group.results[result.id] = _measured(result, run, group.profile.spec)


def _group_for(run: BenchRun, device: str, results: Sequence[BenchmarkResult],
               groups: list[_Group], notes: list[str], number: int) -> _Group:
    index = _device_index(device)
    described = _bench_device(run, index)
    name = next((r.device_name for r in results if r.device_name), None) or (
        run.hello.device_name if run.hello and run.hello.device == device else None) or (
        described.name if described else None)
    arch = (normalise_gfx(described.gcn_arch_name or described.arch or "")
            if described else None)
    capability = _capability(described.compute_capability) if described else None
    memory = described.total_memory_bytes if described else None
    spec = gpu_spec(name, vram_bytes=memory) if name else None

    matches = [g for g in groups if spec is not None and g.profile.spec is spec]
    if not matches and name:
        matches = [g for g in groups if g.gpu.name and normalise_name(g.gpu.name)
                   == normalise_name(name)]
    if not matches and (arch or capability):
        matches = [g for g in groups if (arch and g.profile.ecosystem.gfx_target == arch) or (
            capability and g.profile.ecosystem.compute_capability == capability)]
    if len(matches) > 1 and index is not None:
        # Identical cards are one group; mixed cards sharing a gfx target are told apart by
        # the device index where the report's order matches the runtime's.
        by_index = [g for g in matches if index in g.indices]
        matches = by_index or matches[:1]
    if not matches and len(groups) == 1 and name is None and arch is None \
            and capability is None:
        matches = groups
    if matches:
        return matches[0]

    gpu = Gpu(index=len(groups), name=(name or f"GPU {device}")[:_NAME_LIMIT],
              gfx_target=arch, compute_capability=capability, vram_total_bytes=memory,
              vendor=Vendor.AMD if arch else Vendor.NVIDIA if capability else None)
    profile = profile_for_gpu(gpu)
    for group in groups:
        if group.profile.spec is not None and group.profile.spec is profile.spec:
            return group
    if groups:
        notes.append(f"benchmark run {number} ran on {gpu.name}, which is none of the "
                     "report's GPUs: shown as a card of its own")
    group = _Group(gpu=gpu, profile=profile, indices=[index if index is not None else 0])
    groups.append(group)
    return group


def _measured(result: BenchmarkResult, run: BenchRun, spec: GpuSpec | None) -> MeasuredResult:
    value = result.value if result.status is ResultStatus.OK else None
    peak = datasheet_peak(spec, result.id) if spec is not None else None
    percent = (value / peak.value * 100.0 if value is not None and peak is not None
               and peak.value > 0 else None)
    hello = run.hello
    return MeasuredResult(
        benchmark_id=result.id, status=result.status, value=value, unit=result.unit,
        reason=result.reason, peak=peak, percent_of_peak=percent,
        device_name=result.device_name or (hello.device_name if hello else None),
        torch_version=hello.torch_version if hello else None,
        build=hello.build if hello else None,
        ended_unix_s=result.ended_unix_s or run.ended_unix_s)


def _bench_device(run: BenchRun, index: int | None) -> BenchDevice | None:
    devices = run.hello.devices if run.hello else ()
    if index is not None:
        found = next((d for d in devices if d.index == index), None)
        if found is not None:
            return found
    return devices[0] if len(devices) == 1 else None


def _device_index(device: str) -> int | None:
    _, _, number = device.partition(":")
    return int(number) if number.isdigit() else (0 if device in ("cuda", "hip") else None)


# ----------------------------------------------------------------------------- values


def _text(value: Any, limit: int = 2000) -> str | None:
    if not isinstance(value, str):
        return None
    text = " ".join(clean_text(value).split())[:limit]
    return text or None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _positive(value: Any) -> int | None:
    number = _int(value)
    if number is None and isinstance(value, float) and math.isfinite(value) and value.is_integer():
        number = int(value)
    return number if number is not None and 0 < number < 1 << 62 else None


def _pci_id(value: Any) -> str | None:
    text = _text(value, 10)
    if text is None:
        return None
    digits = text.lower().removeprefix("0x")
    if not 1 <= len(digits) <= 4 or any(c not in "0123456789abcdef" for c in digits):
        return None
    return "0x" + digits.zfill(4)


def _capability(value: Any) -> str | None:
    text = _text(value, 8)
    if text is None:
        return None
    major, dot, minor = text.partition(".")
    return text if dot and major.isdigit() and minor.isdigit() else None


def _enum(cls: Any, value: Any) -> Any:
    try:
        return cls(value) if isinstance(value, str) else None
    except ValueError:
        return None


def _json_kind(value: Any) -> str:
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return "a number"
