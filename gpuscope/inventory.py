"""The inventory: run the probes, join what each layer saw into one GPU per PCI bus address,
and number the GPUs the way each layer (and each framework, after the visible-devices
variables) will.

`assemble` is pure and takes any subset of probe results in any order, so the GUI can show
the inventory growing as probes finish; `collect_inventory` is the one-shot path of the CLI.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import importlib
import logging
import queue
import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from gpuscope import __version__
from gpuscope.evidence import ReplaySystem, System
from gpuscope.knowledge.devices import identify_device
from gpuscope.model import (
    DEVICE_TABLE_SOURCE,
    DeviceIndexEntry,
    DeviceNodeAccess,
    Framework,
    Gpu,
    GpuFacts,
    GpuKind,
    GpuSighting,
    Host,
    Interpreter,
    Inventory,
    JsonValue,
    Layer,
    Origin,
    OriginKind,
    ProbeResult,
    ProbeState,
    ProbeStatus,
    Stack,
    Vendor,
)
from gpuscope.probes.frameworks import (
    LIBRARY_PREFIX,
    FrameworkProbeResult,
    collect_framework_probe,
    no_answer,
    parse_framework_answer,
)
from gpuscope.probes.python_envs import InterpreterChoice, given_interpreters

log = logging.getLogger(__name__)

DEFAULT_PROBE_TIMEOUT_S = 10.0


@dataclass(frozen=True, slots=True)
class ProbeSpec:
    """A probe the inventory runs: `function` is `module:attribute`, imported when first run
    so that a broken probe module becomes that probe's error, not gpuscope's crash."""

    name: str
    title: str
    function: str

    def load(self) -> Callable[[System], ProbeResult]:
        module_name, _, attribute = self.function.partition(":")
        probe: Callable[[System], ProbeResult] = getattr(
            importlib.import_module(module_name), attribute
        )
        return probe


PROBES: tuple[ProbeSpec, ...] = (
    ProbeSpec("amdgpu_sysfs", "Kernel driver (sysfs)",
              "gpuscope.probes.amdgpu_sysfs:probe_amdgpu_sysfs"),
    ProbeSpec("kfd", "KFD topology (ROCm)", "gpuscope.probes.kfd:probe_kfd"),
    ProbeSpec("amdsmi", "AMD SMI", "gpuscope.probes.amdsmi:probe_amdsmi"),
    ProbeSpec("nvml", "NVIDIA NVML", "gpuscope.probes.nvml:probe_nvml"),
    ProbeSpec("host", "Host", "gpuscope.probes.host:probe_host"),
    ProbeSpec("stack", "Stack versions", "gpuscope.probes.stack:probe_stack"),
)


def run_probe(spec: ProbeSpec, system: System) -> ProbeResult:
    """Run one probe; whatever goes wrong comes back as that probe's error status."""
    try:
        return spec.load()(system)
    except Exception as exc:  # a probe bug must not take the others down; show it instead
        log.exception("probe %s failed", spec.name)
        return ProbeResult(ProbeStatus(
            spec.name, ProbeState.ERROR, reason=f"probe failed: {type(exc).__name__}: {exc}",
            hint="this is a gpuscope bug; please report it with a snapshot (gpuscope snapshot)",
        ))


def timed_out_result(spec: ProbeSpec, timeout_s: float) -> ProbeResult:
    return ProbeResult(ProbeStatus(
        spec.name, ProbeState.TIMEOUT, reason=f"no answer within {timeout_s:g} s",
        hint="a GPU or its driver may be hung; check the kernel log (dmesg)",
    ))


def collect_inventory(
    system: System,
    probes: Sequence[ProbeSpec] = PROBES,
    probe_timeout_s: float = DEFAULT_PROBE_TIMEOUT_S,
) -> Inventory:
    """Run every probe in parallel, each bounded by `probe_timeout_s`, and assemble."""
    results: dict[str, ProbeResult] = {}
    durations: dict[str, float] = {}
    lock = threading.Lock()

    def work(spec: ProbeSpec) -> None:
        started = time.monotonic()
        result = run_probe(spec, system)
        with lock:
            results[spec.name] = result
            durations[spec.name] = round(time.monotonic() - started, 4)

    # Daemon threads: a probe stuck inside a vendor library cannot be cancelled, and must
    # neither block the answer nor keep the process alive at exit.
    threads = [threading.Thread(target=work, args=(spec,), daemon=True, name=f"probe-{spec.name}")
               for spec in probes]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + probe_timeout_s
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    with lock:
        ordered = [results.get(spec.name) or timed_out_result(spec, probe_timeout_s)
                   for spec in probes]
        timings = dict(durations)
    return assemble(ordered, origin_for(system, timings))


# An interpreter the user picked (--python, the Frameworks page's Inspect) may take its time:
# a ROCm build's first import can take tens of seconds. The default set, inspected with no
# flag, gets DEFAULT_INSPECTION_BUDGET_S for all of its interpreters together: on a real H200
# VM (PyTorch 2.11.0+cu130) importing torch and counting the GPUs took about 5 s and the smoke
# test, in its own process, about 5 s more; 10 s cut it short every time.
DEFAULT_FRAMEWORK_TIMEOUT_S = 120.0
DEFAULT_INSPECTION_BUDGET_S = 20.0
# Of the budget, what is kept for killing and reaping a worker still running at its end.
KILL_GRACE_S = 0.5
_POLL_S = 0.1
# The states in which an interpreter named on purpose cannot be used at all.
_UNUSABLE = (ProbeState.LIBRARY_MISSING, ProbeState.PERMISSION_DENIED, ProbeState.ERROR,
             ProbeState.NOT_CAPTURED)


@dataclass(frozen=True, slots=True)
class InterpreterAnswer:
    """One interpreter's answer to the framework probe, and why it was asked."""

    choice: InterpreterChoice
    result: FrameworkProbeResult

    @property
    def interpreter(self) -> Interpreter:
        return self.result.interpreter(self.choice.why)

    @property
    def frameworks(self) -> tuple[Framework, ...]:
        return self.result.frameworks_or_reason()

    @property
    def unusable_reason(self) -> str | None:
        """Why this interpreter cannot be inspected at all (missing, not a program, not a
        Python that runs the probe, not in the replayed snapshot); None when it can, or
        when it only ran out of time."""
        status = self.result.status
        if status.state not in _UNUSABLE:
            return None
        return status.reason or status.state.value


@dataclass(frozen=True, slots=True)
class FrameworkInspection:
    """The answers of the interpreters inspected, in the order they were chosen. Two paths
    that turn out to be one environment (pyenv's `python` and `python3` shims: one prefix,
    one version) count once, with both reasons."""

    answers: tuple[InterpreterAnswer, ...] = ()

    @classmethod
    def of(cls, answers: Sequence[InterpreterAnswer]) -> FrameworkInspection:
        kept: list[InterpreterAnswer] = []
        seen: dict[tuple[str, str], int] = {}
        for answer in answers:
            result = answer.result
            key = (result.prefix, result.python_version)
            if key[0] is None or key[1] is None or not result.status.available:
                kept.append(answer)
                continue
            position = seen.setdefault((key[0], key[1]), len(kept))
            if position == len(kept):
                kept.append(answer)
                continue
            first = kept[position]
            reasons = [*first.choice.why.split(", "), *answer.choice.why.split(", ")]
            why = ", ".join(dict.fromkeys(r for r in reasons if r))
            kept[position] = InterpreterAnswer(InterpreterChoice(first.choice.python, why),
                                               first.result)
        return cls(tuple(kept))

    @property
    def frameworks(self) -> tuple[Framework, ...]:
        return tuple(f for answer in self.answers for f in answer.frameworks)

    @property
    def interpreters(self) -> tuple[Interpreter, ...]:
        return tuple(answer.interpreter for answer in self.answers)

    def unusable(self) -> list[tuple[str, str]]:
        """(interpreter, reason) for each that cannot be inspected at all."""
        return [(a.choice.python, reason) for a in self.answers
                if (reason := a.unusable_reason) is not None]


AnswerCallback = Callable[[InterpreterAnswer], None]


def inspect_interpreters(
    system: System,
    choices: Sequence[InterpreterChoice],
    budget_s: float = DEFAULT_INSPECTION_BUDGET_S,
    *,
    on_answer: AnswerCallback | None = None,
    cancel: threading.Event | None = None,
    smoke_test: bool = True,
) -> FrameworkInspection:
    """Run the framework probe on every interpreter in `choices` at once, each in its own
    worker process, bounded to `budget_s` in all: an interpreter still running then is
    killed and answers "no answer within N s". `on_answer(answer)` is called on the calling
    thread as each answer arrives. Setting `cancel` kills the workers and returns what came
    back so far. Every answer goes through `system.library("python-env:<python>")`, so a
    snapshot records it and a replay answers from the record without starting anything.
    Never raises."""
    wanted = list({c.python: c for c in choices if c.python}.values())
    budget_s = max(1.0, budget_s)
    replayed = system.origin_kind is OriginKind.REPLAY
    arrived: queue.Queue[tuple[str, JsonValue]] = queue.Queue()
    if not replayed:
        runner_timeout_s = max(0.5, budget_s - KILL_GRACE_S)
        for position, choice in enumerate(wanted):
            threading.Thread(
                target=_probe_worker,
                args=(choice.python, runner_timeout_s, budget_s, smoke_test, cancel, arrived),
                daemon=True, name=f"framework-probe-{position}",
            ).start()
    answers: dict[str, InterpreterAnswer] = {}
    by_python = {c.python: c for c in wanted}

    def take(python: str, raw: JsonValue) -> None:
        answer = system.library(f"{LIBRARY_PREFIX}{python}", lambda: raw)
        answers[python] = InterpreterAnswer(by_python[python],
                                            parse_framework_answer(answer, python))
        if on_answer is not None:
            try:
                on_answer(answers[python])
            except Exception:  # a listener's bug must not cost the other answers
                log.exception("a framework answer listener failed")

    if replayed:
        for choice in wanted:
            take(choice.python, no_answer(choice.python, budget_s))
    else:
        deadline = time.monotonic() + budget_s
        while len(answers) < len(wanted):
            remaining = deadline - time.monotonic()
            if remaining <= 0 or (cancel is not None and cancel.is_set()):
                break
            try:
                python, raw = arrived.get(timeout=min(remaining, _POLL_S))
            except queue.Empty:
                continue
            take(python, raw)
        cancelled = cancel is not None and cancel.is_set()
        for choice in wanted:
            if choice.python not in answers:
                take(choice.python, _cancelled(choice.python) if cancelled
                     else no_answer(choice.python, budget_s))
    return FrameworkInspection.of([answers[c.python] for c in wanted])


def _probe_worker(python: str, timeout_s: float, budget_s: float, smoke_test: bool,
                  cancel: threading.Event | None,
                  arrived: queue.Queue[tuple[str, JsonValue]]) -> None:
    try:
        raw = collect_framework_probe(python, timeout_s, smoke_test, cancel)
    except Exception as exc:  # the runner promises not to raise; keep the promise for it
        log.exception("framework probe of %s failed", python)
        raw = {"status": ProbeState.ERROR.value, "python": python,
               "error": f"probe failed: {type(exc).__name__}: {exc}"}
    if (isinstance(raw, dict) and raw.get("status") == ProbeState.TIMEOUT.value
            and not (cancel is not None and cancel.is_set())):
        # Killed just before the deadline: said in the budget's terms, not the runner's.
        raw["error"] = f"no answer within {budget_s:g} s (the probe was killed)"
    arrived.put((python, raw))


def _cancelled(python: str) -> JsonValue:
    return {"status": ProbeState.TIMEOUT.value, "python": python,
            "error": "cancelled before it answered"}


def collect_frameworks(
    system: System, pythons: Sequence[str], timeout_s: float = DEFAULT_FRAMEWORK_TIMEOUT_S,
) -> tuple[Framework, ...]:
    """The frameworks of each interpreter, inspected in parallel worker processes. An
    interpreter that cannot be inspected comes back as a `python` entry with the reason."""
    return inspect_interpreters(system, given_interpreters(pythons), timeout_s).frameworks


def origin_for(system: System, probe_durations_s: Mapping[str, float] | None = None) -> Origin:
    durations = dict(probe_durations_s or {})
    if isinstance(system, ReplaySystem):
        meta = system.snapshot.meta
        return Origin(
            kind=OriginKind.REPLAY, source=system.source,
            captured_utc=_str_or_none(meta.get("captured_utc")),
            gpuscope_version=_str_or_none(meta.get("gpuscope_version")),
            probe_durations_s=durations,
        )
    return Origin(
        kind=system.origin_kind,
        captured_utc=_dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
        gpuscope_version=__version__, probe_durations_s=durations,
    )


def _str_or_none(value: object) -> str | None:
    return str(value) if value is not None else None


# ----------------------------------------------------------------------------- joining GPUs

# Which layer's word counts first for a field; the default suits most fields: the vendor
# libraries know names and totals best, then KFD, then the kernel's sysfs.
_DEFAULT_PRIORITY = (Layer.NVML, Layer.AMDSMI, Layer.KFD, Layer.SYSFS)
_FIELD_PRIORITY: dict[str, tuple[Layer, ...]] = {
    # gpuscope decodes KFD's gfx_target_version itself; amdsmi's string has been wrong.
    "gfx_target": (Layer.KFD, Layer.AMDSMI, Layer.SYSFS, Layer.NVML),
    # sysfs knows the slot behind Radeon's on-board PCIe switch; bytes exactly.
    "pcie_link": (Layer.SYSFS, Layer.NVML, Layer.AMDSMI, Layer.KFD),
    "vram_total_bytes": (Layer.SYSFS, Layer.NVML, Layer.AMDSMI, Layer.KFD),
    "pci_device_id": (Layer.SYSFS, Layer.NVML, Layer.AMDSMI, Layer.KFD),
    "pci_vendor_id": (Layer.SYSFS, Layer.NVML, Layer.AMDSMI, Layer.KFD),
    "pci_revision": (Layer.SYSFS, Layer.AMDSMI, Layer.NVML, Layer.KFD),
    "kernel_driver": (Layer.SYSFS, Layer.NVML, Layer.AMDSMI, Layer.KFD),
}
_JOIN_FIELDS = {f.name for f in dataclasses.fields(GpuFacts)}
_GENERIC_NAME_WORDS = ("navi", "vega", "device 0x", "amd radeon graphics", "0x")


def _normalise_bus(bus: str | None) -> str | None:
    if not bus:
        return None
    bus = bus.strip().lower()
    parts = bus.split(":")
    if len(parts) == 2:  # "03:00.0" without the domain
        return f"0000:{bus}"
    if len(parts) == 3 and len(parts[0]) > 4:  # NVML's 8-digit domain "00000000:01:00.0"
        return f"{parts[0][-4:]}:{parts[1]}:{parts[2]}"
    return bus


def _layer_rank(layer: Layer, field_name: str) -> int:
    order = _FIELD_PRIORITY.get(field_name, _DEFAULT_PRIORITY)
    return order.index(layer) if layer in order else len(order)


def _merge(sightings: Sequence[GpuSighting], index: int) -> Gpu:
    values: dict[str, object] = {}
    sources: dict[str, str] = {}
    missing: dict[str, str] = {}
    for name in _JOIN_FIELDS:
        candidates = sorted(sightings, key=lambda s, n=name: _layer_rank(s.layer, n))  # type: ignore[misc]
        for sighting in candidates:
            value = getattr(sighting.facts, name)
            if value is None or value == ():
                continue
            values[name] = value
            source = sighting.field_sources.get(name)
            sources[name] = f"{sighting.layer.value}: {source}" if source else sighting.layer.value
            break
        else:
            reasons = [f"{s.layer.value}: {s.missing_reasons[name]}"
                       for s in candidates if name in s.missing_reasons]
            if reasons:
                missing[name] = "; ".join(reasons)
    if "pci_bus" in values:
        values["pci_bus"] = _normalise_bus(str(values["pci_bus"]))
    seen_by = tuple(dict.fromkeys(s.layer for s in sorted(sightings, key=_layer_order)))
    gpu = Gpu(index=index, seen_by=seen_by, field_sources=sources, missing_reasons=missing,
              **values)  # type: ignore[arg-type]
    return _identify(gpu)


def _layer_order(sighting: GpuSighting) -> int:
    return list(Layer).index(sighting.layer)


def _name_is_generic(name: str | None) -> bool:
    if not name:
        return True
    lowered = name.strip().lower()
    return lowered.startswith(_GENERIC_NAME_WORDS) or lowered.startswith("gfx")


def _identify(gpu: Gpu) -> Gpu:
    """Fill name, family, kind and targets from gpuscope's device table where the layers left
    them open; a vendor library's marketing name wins over the table, a codename does not."""
    vendor = gpu.vendor or Vendor.from_pci_vendor_id(gpu.pci_vendor_id)
    changes: dict[str, object] = {}
    sources = dict(gpu.field_sources)
    if vendor is not None and gpu.vendor is None:
        changes["vendor"] = vendor
        sources["vendor"] = "PCI vendor id " + str(gpu.pci_vendor_id)
    identity = None
    # Pasted outputs name the vendor but rarely its PCI id.
    vendor_id = gpu.pci_vendor_id or _PCI_VENDOR_IDS.get(vendor) if vendor else gpu.pci_vendor_id
    if vendor_id and gpu.pci_device_id:
        identity = identify_device(
            vendor_id, gpu.pci_device_id, vram_total_bytes=gpu.vram_total_bytes,
            compute_units=gpu.compute_units, subsystem_device_id=gpu.pci_subsystem_device_id,
            revision=gpu.pci_revision,
        )
    if identity is not None:
        source = f"{DEVICE_TABLE_SOURCE} ({identity.source})"
        name_from_table = identity.name
        if _name_is_generic(gpu.name) or (
            len(identity.candidates) <= 1 and _is_pci_ids_name(gpu)
        ):
            changes["name"] = name_from_table
            sources["name"] = f"{source}; {identity.how}" if identity.how else source
        if not gpu.name_candidates and len(identity.candidates) > 1:
            changes["name_candidates"] = tuple(identity.candidates)
        for field_name in ("family", "architecture", "gfx_target", "compute_capability"):
            table_value = getattr(identity, field_name, None)
            if table_value and getattr(gpu, field_name) is None:
                changes[field_name] = table_value
                sources[field_name] = source
        overridden = _overridden_target(gpu, identity.gfx_target)
        if overridden is not None:
            changes["gfx_target"] = identity.gfx_target
            sources["gfx_target"] = f"{source}; {overridden}"
        if identity.kind and gpu.kind is None:
            changes["kind"] = GpuKind(identity.kind)
            sources["kind"] = source
    if gpu.name is None and "name" not in changes:
        device = gpu.pci_device_id or "unknown device"
        changes["name"] = f"{(vendor or Vendor.OTHER).value.upper()} GPU {device}"
        sources["name"] = "PCI ids (no name in pci.ids or gpuscope's device table)"
    if gpu.kind is None and "kind" not in changes:
        changes["kind"] = GpuKind.UNKNOWN
    if not changes:
        return gpu
    missing = {k: v for k, v in gpu.missing_reasons.items() if k not in changes}
    return dataclasses.replace(gpu, field_sources=sources, missing_reasons=missing,
                               **changes)  # type: ignore[arg-type]


_PCI_VENDOR_IDS = {Vendor.AMD: "0x1002", Vendor.NVIDIA: "0x10de", Vendor.INTEL: "0x8086"}
# Layers that show the target ROCm's runtime reports, which HSA_OVERRIDE_GFX_VERSION changes
# (KFD's topology, sysfs and amd-smi show the chip's own).
_RUNTIME_TARGET_LAYERS = frozenset({Layer.ROCM.value, Layer.OPENCL.value, Layer.TORCH.value})
_GFX_GENERATION = re.compile(r"gfx(\d{1,2})[0-9a-f]{2}")


def _overridden_target(gpu: Gpu, chip_target: str | None) -> str | None:
    """Why the runtime's target is not this chip's, or None. A runtime reporting another
    generation than the chip's device id (gfx1201 on a 0x1586 Strix Halo, gfx1151) runs under
    HSA_OVERRIDE_GFX_VERSION: the chip's target is the real one. Within one generation (an
    RX 6700 XT's gfx1031 run as gfx1030) the id alone does not say which is meant."""
    reported = gpu.gfx_target
    if not chip_target or not reported or reported == chip_target:
        return None
    layer = gpu.field_sources.get("gfx_target", "").partition(":")[0]
    ours, theirs = _GFX_GENERATION.fullmatch(chip_target), _GFX_GENERATION.fullmatch(reported)
    if layer not in _RUNTIME_TARGET_LAYERS or ours is None or theirs is None \
            or ours.group(1) == theirs.group(1):
        return None
    return (f"{layer} reported {reported}, another generation than this chip's "
            f"{chip_target}: HSA_OVERRIDE_GFX_VERSION is set for it")


def _is_pci_ids_name(gpu: Gpu) -> bool:
    return "pci.ids" in gpu.field_sources.get("name", "")


def join_gpus(sightings: Iterable[GpuSighting]) -> tuple[Gpu, ...]:
    """One GPU per PCI bus address. A sighting without an address (a pasted collect_env,
    rocm-smi's partitions) joins the one GPU of the same KFD node or KFD gpu id (rocm-smi's
    Node and GUID columns, amd-smi's NODE_ID and KFD_ID, rocminfo's Node), else the GPU that
    the same tool numbered alike in another file, else the one GPU whose gfx target or name it
    matches; never one that already holds a sighting of the same layer from the same file (two
    identical cards stay two). Sightings that name nothing but their number (amd-smi monitor,
    rocm-smi's readings) come last, so that they cannot take a place before the sightings that
    say which GPU they are; one that still cannot be placed among GPUs of its vendor that other
    outputs describe is no GPU of its own (it would count a card twice)."""
    groups: dict[str, list[GpuSighting]] = {}
    loose: list[GpuSighting] = []
    for sighting in sightings:
        bus = _normalise_bus(sighting.facts.pci_bus)
        if bus is None:
            loose.append(sighting)
        else:
            groups.setdefault(bus, []).append(sighting)
    ordered = [groups[bus] for bus in sorted(groups)]
    numbered_only: list[GpuSighting] = []
    for sighting in loose:
        if _numbered_only(sighting):
            numbered_only.append(sighting)
            continue
        target = _kfd_target(sighting, ordered) or _loose_target(sighting, ordered)
        if target is None:
            ordered.append([sighting])
        else:
            target.append(sighting)
    unplaced: list[GpuSighting] = []
    for sighting in numbered_only:
        target = _loose_target(sighting, ordered)
        if target is None:
            unplaced.append(sighting)
        else:
            target.append(sighting)
    placed = _by_bus_order(unplaced, ordered)
    for sighting in unplaced:
        target = placed.get(id(sighting)) or _loose_target(sighting, ordered)
        if target is not None:
            target.append(sighting)
        elif not _others_of_vendor(sighting, ordered):
            ordered.append([sighting])
        # else: a number that cannot be told apart among this vendor's GPUs adds no GPU
    return tuple(_merge(group, index) for index, group in enumerate(ordered))


def _others_of_vendor(sighting: GpuSighting, groups: Sequence[list[GpuSighting]]) -> bool:
    """Some GPU of the sighting's vendor that another file (or layer) described."""
    source = _source_file(sighting)
    return any(any(s.facts.vendor is sighting.facts.vendor for s in group)
               and not any(s.layer is sighting.layer and _source_file(s) == source
                           for s in group)
               for group in groups)


def _numbered_only(sighting: GpuSighting) -> bool:
    """A sighting that says only which number a tool gave the GPU (and its readings)."""
    facts = sighting.facts
    return facts.smi_index is not None and not _identifies(sighting) and \
        facts.kfd_node is None and facts.kfd_gpu_id is None


def _kfd_target(
    sighting: GpuSighting, groups: Sequence[list[GpuSighting]],
) -> list[GpuSighting] | None:
    """The one GPU with this sighting's KFD gpu id or KFD node and no other, and nothing that
    contradicts it (another id, node, device id or target); None when none or several."""
    facts = sighting.facts
    if facts.kfd_gpu_id is None and facts.kfd_node is None:
        return None
    source = _source_file(sighting)
    found = [group for group in groups
             if not any(s.layer is sighting.layer and _source_file(s) == source for s in group)
             and not _contradicts(facts, group)
             and any(s.facts.kfd_gpu_id == facts.kfd_gpu_id is not None
                     or s.facts.kfd_node == facts.kfd_node is not None for s in group)]
    return found[0] if len(found) == 1 else None


_IDENTITY_FIELDS = ("kfd_gpu_id", "kfd_node", "pci_device_id", "gfx_target", "vendor")


def _contradicts(facts: GpuFacts, group: Sequence[GpuSighting]) -> bool:
    """The group already has another KFD gpu id, KFD node, device id, target or vendor."""
    for name in _IDENTITY_FIELDS:
        own = getattr(facts, name)
        theirs = {getattr(s.facts, name) for s in group} - {None}
        if own is not None and theirs and own not in theirs:
            return True
    return False


def _by_bus_order(
    sightings: Sequence[GpuSighting], groups: Sequence[list[GpuSighting]],
) -> dict[int, list[GpuSighting]]:
    """Numbered-only sightings of one amd-smi file, placed by their numbers: amd-smi numbers
    the GPUs in PCI bus order (its library sorts the devices by BDF, in every release since
    amd-smi came with ROCm 6.0), so GPU n is the n-th GPU by bus address. Only when the file
    numbers exactly the GPUs of that vendor it has not described yet, 0 to N-1, and every one
    of them has a bus address; otherwise nothing is placed (id of the sighting -> its GPU).
    rocm-smi's numbers are not placed so: older releases numbered the DRM cards instead."""
    batches: dict[tuple[Layer, str], list[GpuSighting]] = {}
    for sighting in sightings:
        if sighting.layer is Layer.AMDSMI:
            batches.setdefault((sighting.layer, _source_file(sighting)), []).append(sighting)
    placed: dict[int, list[GpuSighting]] = {}
    for (layer, source), batch in batches.items():
        vendor = batch[0].facts.vendor
        if any(s.facts.vendor is not vendor for s in batch):
            continue
        candidates = [g for g in groups
                      if any(s.facts.vendor is vendor for s in g)
                      and not any(s.layer is layer and _source_file(s) == source for s in g)]
        buses = [_group_bus(g) for g in candidates]
        numbers = sorted(s.facts.smi_index or 0 for s in batch)
        if not candidates or None in buses or numbers != list(range(len(candidates))):
            continue
        by_bus = [g for _, g in sorted(zip(buses, candidates, strict=True),
                                       key=lambda pair: str(pair[0]))]
        for sighting in batch:
            placed[id(sighting)] = by_bus[sighting.facts.smi_index or 0]
    return placed


def _group_bus(group: Sequence[GpuSighting]) -> str | None:
    return next((bus for s in group if (bus := _normalise_bus(s.facts.pci_bus))), None)


def _source_file(sighting: GpuSighting) -> str:
    """The file (or path) a sighting was read from: field sources are 'file:line' or paths."""
    for source in sighting.field_sources.values():
        head, _, tail = source.rpartition(":")
        return head if head and tail.isdigit() else source
    return ""


def _comparable_name(name: str | None) -> str:
    if not name:
        return ""
    lowered = name.lower()
    for word in ("amd ", "nvidia ", "geforce ", "radeon ", "(tm)", "(r)"):
        lowered = lowered.replace(word, " ")
    return " ".join(lowered.split())


def _matches(sighting: GpuSighting, group: Sequence[GpuSighting]) -> bool:
    facts = sighting.facts
    vendors = {s.facts.vendor for s in group if s.facts.vendor is not None}
    if facts.vendor is not None and vendors and facts.vendor not in vendors:
        return False
    targets = {s.facts.gfx_target for s in group if s.facts.gfx_target}
    if facts.gfx_target and targets:
        return facts.gfx_target in targets
    devices = {s.facts.pci_device_id for s in group if s.facts.pci_device_id}
    if facts.pci_device_id and devices:  # a kernel log names a GPU by its ids only
        return facts.pci_device_id in devices
    name = _comparable_name(facts.name)
    if not name:
        return False
    return any((other := _comparable_name(s.facts.name)) and (name in other or other in name)
               for s in group)


def _loose_target(
    sighting: GpuSighting, groups: Sequence[list[GpuSighting]],
) -> list[GpuSighting] | None:
    source = _source_file(sighting)
    index = sighting.facts.smi_index
    if index is not None:
        for group in groups:
            if any(s.layer is sighting.layer and s.facts.smi_index == index
                   and _source_file(s) != source for s in group):
                return group
    candidates = [
        group for group in groups
        if _matches(sighting, group)
        and not any(s.layer is sighting.layer and _source_file(s) == source for s in group)
    ]
    # Prefer a GPU this layer has not described yet: with two identical cards, the second
    # device of a listing belongs to the second card.
    fresh = [g for g in candidates if not any(s.layer is sighting.layer for s in g)]
    chosen = fresh or candidates
    if chosen:
        return chosen[0]
    ids_only = bool(sighting.facts.pci_device_id) and not any((
        sighting.facts.gfx_target, sighting.facts.name, sighting.facts.uuid,
        sighting.facts.compute_capability))
    if not _identifies(sighting) or ids_only:
        # A row that names nothing (rocm-smi's concise table: temperatures and clocks only),
        # or only its PCI ids (a kernel log), can only be the machine's one GPU of that
        # vendor (whose ids are not known to differ).
        same_vendor = [g for g in groups if any(
            s.facts.vendor is sighting.facts.vendor for s in g) and not any(
            s.layer is sighting.layer and _source_file(s) == source for s in g) and not (
            ids_only and any(s.facts.pci_device_id not in (None, sighting.facts.pci_device_id)
                             for s in g)) and not _contradicts(sighting.facts, g)]
        if ids_only and len(same_vendor) > 1 and sighting.facts.kind in (
                GpuKind.INTEGRATED, GpuKind.DISCRETE, None):
            # An iGPU beside a card: the ids' kind (an APU's device id, which the parsers
            # know) tells them apart.
            integrated = sighting.facts.kind is GpuKind.INTEGRATED
            same_vendor = [g for g in same_vendor if any(
                s.facts.kind is GpuKind.INTEGRATED for s in g) is integrated]
        if len(same_vendor) == 1:
            return same_vendor[0]
    return None


def _identifies(sighting: GpuSighting) -> bool:
    facts = sighting.facts
    return any((facts.gfx_target, facts.name, facts.pci_device_id, facts.uuid,
                facts.compute_capability))


# ----------------------------------------------------------------------------- stack, host

_STACK_FIELDS = {f.name for f in dataclasses.fields(Stack)} - {
    "environment", "device_nodes", "extras", "field_sources", "missing_reasons",
}


def assemble_stack(results: Sequence[ProbeResult]) -> Stack:
    values: dict[str, object] = {}
    sources: dict[str, str] = {}
    missing: dict[str, str] = {}
    environment: dict[str, str | None] = {}
    extras: dict[str, str | int | float | bool] = {}
    nodes: dict[str, DeviceNodeAccess] = {}
    for result in results:
        for fact in result.stack_facts:
            if fact.key.startswith("env:"):
                name = fact.key[4:]
                if fact.value is not None:
                    environment[name] = str(fact.value)
                else:
                    environment.setdefault(name, None)
                continue
            if fact.key not in _STACK_FIELDS:
                if fact.value is not None:
                    extras.setdefault(fact.key, fact.value)
                    if fact.source:
                        sources.setdefault(fact.key, fact.source)
                continue
            if fact.value is not None and fact.key not in values:
                values[fact.key] = fact.value
                if fact.source:
                    sources[fact.key] = fact.source
            elif fact.value is None and fact.missing_reason:
                missing.setdefault(fact.key, fact.missing_reason)
        for node in result.device_nodes:
            nodes.setdefault(node.path, node)
    missing = {k: v for k, v in missing.items() if k not in values}
    return Stack(environment=dict(sorted(environment.items())), extras=dict(sorted(extras.items())),
                 device_nodes=tuple(nodes[p] for p in sorted(nodes)),
                 field_sources=sources, missing_reasons=missing,
                 **values)  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- device index


def _parse_visible(value: str | None) -> list[str] | None:
    if value is None:
        return None
    return [item.strip() for item in value.split(",") if item.strip()]


def _apply_visible(
    ordered: list[Gpu], variable: str, value: str | None, hidden: dict[int, str],
) -> list[Gpu]:
    """Filter and reorder by a *_VISIBLE_DEVICES value (indices into `ordered`, or UUIDs).
    As the runtimes do, the list stops at the first entry that matches no device."""
    items = _parse_visible(value)
    if items is None:
        return ordered
    chosen: list[Gpu] = []
    for item in items:
        match = None
        if item.isdigit():
            position = int(item)
            match = ordered[position] if position < len(ordered) else None
        else:
            wanted = item.lower().removeprefix("gpu-")
            match = next((g for g in ordered if g.uuid and
                          g.uuid.lower().removeprefix("gpu-").startswith(wanted)), None)
        if match is None or match in chosen:
            break
        chosen.append(match)
    for gpu in ordered:
        if gpu not in chosen:
            hidden.setdefault(gpu.index, f"{variable}={value}")
    return chosen


def build_device_index(
    gpus: Sequence[Gpu], environment: Mapping[str, str | None],
) -> tuple[DeviceIndexEntry, ...]:
    hidden: dict[int, str] = {}
    notes: dict[int, str] = {}

    # ROCm (HIP and so PyTorch's torch.cuda on ROCm) numbers the GPU agents in KFD topology
    # order, after ROCR_VISIBLE_DEVICES, then HIP_VISIBLE_DEVICES (CUDA_VISIBLE_DEVICES is
    # honoured by HIP too).
    amd = sorted((g for g in gpus if g.kfd_node is not None), key=lambda g: g.kfd_node or 0)
    for variable in ("ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"):
        amd = _apply_visible(amd, variable, environment.get(variable), hidden)
    hip_index = {g.index: i for i, g in enumerate(amd)}

    nvidia = [g for g in gpus if g.vendor is Vendor.NVIDIA]
    order = (environment.get("CUDA_DEVICE_ORDER") or "FASTEST_FIRST").upper()
    nvidia.sort(key=lambda g: g.pci_bus or "")
    cuda_known = order == "PCI_BUS_ID" or len(nvidia) <= 1
    if not cuda_known:
        for gpu in nvidia:
            notes[gpu.index] = ("CUDA numbers the fastest GPU first (CUDA_DEVICE_ORDER unset), "
                                "so its order can differ from nvidia-smi's; set "
                                "CUDA_DEVICE_ORDER=PCI_BUS_ID")
    nvidia = _apply_visible(nvidia, "CUDA_VISIBLE_DEVICES",
                            environment.get("CUDA_VISIBLE_DEVICES"), hidden)
    cuda_index = {g.index: i for i, g in enumerate(nvidia)} if cuda_known else {}

    entries = []
    for gpu in gpus:
        note = notes.get(gpu.index)
        if gpu.vendor is Vendor.AMD and gpu.kfd_node is None:
            note = "not in the KFD topology: ROCm will not see this GPU"
        entries.append(DeviceIndexEntry(
            pci_bus=gpu.pci_bus, vendor=gpu.vendor, kind=gpu.kind or GpuKind.UNKNOWN,
            name=gpu.name, gpu_index=gpu.index, drm_card=gpu.drm_card,
            drm_render_minor=gpu.drm_render_minor, kfd_node=gpu.kfd_node,
            kfd_gpu_id=gpu.kfd_gpu_id, smi_index=gpu.smi_index,
            hip_index=hip_index.get(gpu.index), cuda_index=cuda_index.get(gpu.index),
            hidden_by=hidden.get(gpu.index), note=note,
        ))
    return tuple(entries)


# ----------------------------------------------------------------------------- assembly


def assemble(results: Sequence[ProbeResult], origin: Origin) -> Inventory:
    """Pure: probe results (any subset, any order) to an Inventory."""
    gpus = join_gpus(s for r in results for s in r.sightings)
    stack = assemble_stack(results)
    host = next((r.host for r in results if r.host is not None), None) or Host()
    statuses = tuple(r.status for r in results)
    return Inventory(
        gpus=gpus, stack=stack, host=host, probes=statuses,
        device_index=build_device_index(gpus, stack.environment), origin=origin,
    )
