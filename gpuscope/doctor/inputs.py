"""What the rules read (`DoctorInput`: the model, the frameworks and the signals of pasted
outputs) and the small helpers every rule module shares."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from gpuscope.i18n import message, prose
from gpuscope.model import (
    DEVICE_TABLE_SOURCE,
    LLM_RUNTIME_NAMES,
    EvidenceRef,
    Framework,
    Gpu,
    Interpreter,
    Inventory,
    LlmRuntime,
    OriginKind,
    Signal,
    Vendor,
)


@dataclass(frozen=True, slots=True)
class DoctorInput:
    inventory: Inventory
    frameworks: tuple[Framework, ...] = ()
    signals: tuple[Signal, ...] = ()
    # The interpreters whose frameworks were inspected (or could not be); empty when none was.
    interpreters: tuple[Interpreter, ...] = ()
    notes: tuple[str, ...] = field(default=())
    # The local LLM runtimes, found or not (live and replayed), or those pasted logs show.
    llm_runtimes: tuple[LlmRuntime, ...] = ()

    @property
    def imported(self) -> bool:
        return self.inventory.origin.kind is OriginKind.IMPORTED

    @property
    def os(self) -> str:
        if any(s.kind == "platform.wsl" for s in self.signals):
            return "wsl"
        return self.inventory.host.os

    def signals_of(self, kind: str) -> list[Signal]:
        return [s for s in self.signals if s.kind == kind]

    def gpus_of(self, vendor: Vendor) -> list[Gpu]:
        return [g for g in self.inventory.gpus if g.vendor is vendor]

    def torch_builds(self) -> list[Framework]:
        return [f for f in self.frameworks if f.name == "torch" and f.version is not None]


def refs(signals: Iterable[Signal]) -> tuple[EvidenceRef, ...]:
    return tuple(dict.fromkeys(ref for s in signals for ref in s.evidence))


def gpu_refs(gpu: Gpu, *fields: str) -> tuple[EvidenceRef, ...]:
    refs = []
    for name in fields:
        source = gpu.field_sources.get(name)
        if source and source.startswith(DEVICE_TABLE_SOURCE):
            # The table's public sources are long prose; the evidence is the id it matched.
            refs.append(EvidenceRef(f"{DEVICE_TABLE_SOURCE}: {gpu.pci_device_id}"
                                    if gpu.pci_device_id else DEVICE_TABLE_SOURCE))
        elif source:
            layer, _, where = source.partition(": ")
            label = where or layer
            file, _, line = label.rpartition(":")
            refs.append(EvidenceRef(file, int(line)) if file and line.isdigit()
                        else EvidenceRef(label))
    return tuple(dict.fromkeys(refs))


def major_minor(version: str | None) -> str | None:
    if not version:
        return None
    parts = version.split(".")
    digits = [p for p in parts[:2] if p.isdigit()]
    return ".".join(digits) if len(digits) == 2 else None


def version_tuple(version: str | None) -> tuple[int, ...] | None:
    if not version:
        return None
    parts = []
    for part in version.split("."):
        digits = "".join(ch for ch in part if ch.isdigit())
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts) or None



def blocked_targets(data: DoctorInput) -> dict[str, list[Signal]]:
    """gfx target (or "" when unnamed) -> the signals saying no kernel runs on it."""
    found: dict[str, list[Signal]] = {}
    for kind in ("hip.invalid_device_function", "hip.no_binary_for_gpu", "cuda.no_kernel_image"):
        for signal in data.signals_of(kind):
            if signal.detail in LLM_RUNTIME_NAMES:  # an LLM runtime's build, not PyTorch's
                continue
            found.setdefault(signal.gfx_target or "", []).append(signal)
    return found



def first_sentences(text: str, count: int) -> str:
    """The first `count` sentences of a paragraph of the knowledge files, translatable
    sentence by sentence (`gpuscope.i18n.prose`)."""
    sentences = text.replace("\n", " ").split(". ")
    short = ". ".join(sentences[:count]).strip()
    return prose(short if short.endswith(".") else short + ".")


def or_list(names: Sequence[str]) -> str:
    """"A or B or C", translatable ("{first} or {second}", folded from the left)."""
    text = names[0] if names else ""
    for name in names[1:]:
        text = message("{first} or {second}", first=text, second=name)
    return text


def and_list(names: Sequence[str]) -> str:
    """"A and B and C", translatable ("{first} and {last}", folded from the left)."""
    text = names[0] if names else ""
    for name in names[1:]:
        text = message("{first} and {last}", first=text, last=name)
    return text
