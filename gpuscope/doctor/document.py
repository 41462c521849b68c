"""The public `gpuscope doctor --json` document, schema `gpuscope.diagnosis/1`.

Fields may be added; none is renamed or removed without bumping the schema number.
Unknown values are null, never guessed.
"""

from __future__ import annotations

from typing import Any

from gpuscope.doctor.fixes import in_container, in_virtual_machine, kfd_loaded_but_node_missing
from gpuscope.doctor.rules import DoctorInput
from gpuscope.model import Finding, Framework, Gpu, LlmRuntime, to_jsonable

DIAGNOSIS_SCHEMA = "gpuscope.diagnosis/1"


def _gpu(gpu: Gpu) -> dict[str, Any]:
    doc = to_jsonable(gpu)
    assert isinstance(doc, dict)
    ordered = {key: doc.get(key) for key in (
        "index", "vendor", "name", "kind", "gfx_target", "compute_capability",
        "pci_device_id", "pci_bus", "vram_total_bytes", "compute_units", "seen_by",
    )}
    return {**ordered, **{k: v for k, v in doc.items() if k not in ordered}}


def _framework(framework: Framework) -> dict[str, Any]:
    doc = to_jsonable(framework)
    assert isinstance(doc, dict)
    doc["evidence"] = [ref.label() for ref in framework.evidence]
    return doc


def _llm_runtime(runtime: LlmRuntime) -> dict[str, Any]:
    doc = to_jsonable(runtime)
    assert isinstance(doc, dict)
    doc["evidence"] = [ref.label() for ref in runtime.evidence]
    ordered = {key: doc.get(key) for key in (
        "name", "found", "version", "reason", "backend", "gpus", "models")}
    return {**ordered, **{k: v for k, v in doc.items() if k not in ordered}}


def _finding(finding: Finding) -> dict[str, Any]:
    return {
        "id": finding.id,
        "severity": finding.severity.value,
        "gpu": finding.gpu,
        "title": finding.title,
        "detail": finding.detail,
        "fix": finding.fix,
        "fix_commands": list(finding.fix_commands),
        "sources": list(finding.sources),
        "framework": to_jsonable(finding.framework),
        "evidence": [ref.label() for ref in finding.evidence],
    }


def diagnosis_document(data: DoctorInput, findings: tuple[Finding, ...]) -> dict[str, Any]:
    inventory = data.inventory
    host = inventory.host
    stack = to_jsonable(inventory.stack)
    assert isinstance(stack, dict)
    return {
        "schema": DIAGNOSIS_SCHEMA,
        "origin": inventory.origin.kind.value,
        "origin_source": inventory.origin.source,
        "platform": {
            "os": host.os if host.os in ("linux", "windows", "wsl", "macos") else "unknown",
            # The doctor's reading of the evidence: a container can show only in its traces
            # (KFD loaded but no /dev/kfd node), beside what the host facts say. False needs
            # a check that found nothing (a live probe's); pasted files that do not speak of
            # it leave it unknown.
            "container": True if in_container(data) or kfd_loaded_but_node_missing(data)
            else (host.container if "container" in host.field_sources else None),
            "virtual_machine": True if in_virtual_machine(data)
            else (host.virtual_machine if "virtual_machine" in host.field_sources else None),
            "distro": host.distro,
            "kernel": host.kernel,
        },
        "gpus": [_gpu(gpu) for gpu in inventory.gpus],
        "stack": stack,
        "frameworks": [_framework(f) for f in data.frameworks],
        # Each interpreter inspected (or not, with why), so "no PyTorch" is told from
        # "nothing inspected".
        "interpreters": [to_jsonable(i) for i in data.interpreters],
        # Each local LLM runtime, found or not with why (schema "Additions").
        "llm_runtimes": [_llm_runtime(r) for r in data.llm_runtimes],
        "findings": [_finding(f) for f in findings],
        "probes": to_jsonable(inventory.probes),
    }
