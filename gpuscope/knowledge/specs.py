"""GPU specifications for comparisons (memory, bandwidth, peak throughput, power, price, launch
date), from resources/gpu_specs*.toml (gpu_specs.toml, the main table, plus further files such as
gpu_specs_workstation.toml); each card cites the public sources of its figures and says how sure
each figure is (`GpuSpec.confidence`). A number format the hardware has no native rate for is
named in `GpuSpec.unsupported_formats` instead of being given a figure. A China-market card may
carry its yuan price (`launch_price_cny`) in place of a USD one, and a card sold without any list
price says so in `GpuSpec.no_list_price` instead of being given a number.

For "peak FP16" on GeForce cards the datasheet figure is the FP16-accumulate tensor rate; PyTorch
fp16/bf16 matmul accumulates in FP32, which runs at half that rate (RTX 4090: 165, not 330).
`GpuSpec.pytorch_fp16_tflops` is the figure to compare PyTorch results against.
"""

from __future__ import annotations

import datetime
import functools
import importlib.resources
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gpuscope.knowledge._resources import load_toml_resource
from gpuscope.knowledge.devices import normalise_id
from gpuscope.knowledge.sources import (
    CONFIDENCE,
    Citations,
    Source,
    SourceError,
    check_all_used,
    named_sources,
)

RESOURCE = "gpu_specs.toml"  # the main table; its [sources] serve every other file too
RESOURCE_PATTERN = re.compile(r"gpu_specs(?:_[a-z0-9_]+)?\.toml")
GIB = 1 << 30
# Drivers report a little less than the nominal size; the nearest card within this wins.
VRAM_TOLERANCE_GIB = 1.0

VENDORS = {"AMD": "0x1002", "NVIDIA": "0x10de"}
# Numeric figures: key -> (type, lowest, highest) as a sanity range for the table's units.
FIGURES: dict[str, tuple[type, float, float]] = {
    "vram_gib": (float, 1, 1024),
    "compute_units": (int, 1, 1024),
    "memory_bandwidth_gb_s": (float, 50, 20_000),
    "fp32_tflops": (float, 0.5, 500),
    "fp16_tflops": (float, 1, 10_000),
    "fp16_fp32acc_tflops": (float, 1, 10_000),
    "bf16_tflops": (float, 1, 10_000),
    "tf32_tflops": (float, 1, 10_000),
    "fp8_tflops": (float, 1, 20_000),
    "int8_tops": (float, 1, 20_000),
    "tdp_w": (int, 10, 2_000),
    "launch_price_usd": (int, 50, 100_000),
    "launch_price_cny": (int, 300, 1_000_000),  # China-market cards priced only in yuan
}
# Words that say who made the card rather than which card it is.
_BRAND_WORDS = frozenset({"amd", "ati", "nvidia", "radeon", "geforce", "instinct", "corporation",
                          "inc", "advanced", "micro", "devices"})
_TRADEMARKS = re.compile(r"\((?:tm|r)\)|[™®]", re.IGNORECASE)
_SIZE = re.compile(r"\b(\d+)\s*(gb|gib)\b")
_ID = re.compile(r"0x[0-9a-f]{4}:0x[0-9a-f]{4}")
# A number format a row may declare unsupported, and the figure it then leaves out.
FORMAT_FIGURES = {"fp16": "fp16_tflops", "bf16": "bf16_tflops", "int8": "int8_tops"}
_LAUNCH_DATE = re.compile(r"(\d{4})-(\d{2})(?:-(\d{2}))?")


class SpecTableError(ValueError):
    """resources/gpu_specs.toml does not have the expected shape."""


@dataclass(frozen=True, slots=True)
class GpuSpec:
    """One card's published figures. A figure no source gives is None."""

    name: str
    vendor: str  # "AMD" / "NVIDIA"
    architecture: str | None
    gfx_target: str | None
    compute_capability: str | None
    aliases: tuple[str, ...]
    pci_ids: tuple[tuple[str, str], ...]  # (vendor id, device id), "0x1002", "0x744c"
    vram_gib: float | None
    vram_bytes: int | None
    compute_units: int | None  # AMD CUs
    memory_bandwidth_gb_s: float | None
    fp32_tflops: float | None
    fp16_tflops: float | None  # dense matrix rate as the datasheet quotes it
    fp16_accumulate: str | None  # "fp16": fp16_tflops is the FP16-accumulate rate (GeForce)
    fp16_fp32acc_tflops: float | None  # FP16 in, FP32 accumulate: what PyTorch matmul uses
    bf16_tflops: float | None
    tf32_tflops: float | None
    fp8_tflops: float | None
    int8_tops: float | None
    tdp_w: int | None
    pcie: str | None  # "4.0 x16"
    launch_price_usd: int | None
    launch_date: str | None
    field_confidence: Mapping[str, str] = field(hash=False)  # figure -> a CONFIDENCE word
    notes: str = ""
    sources: tuple[Source, ...] = ()
    tags: tuple[str, ...] = ()
    # Formats ("fp16", "bf16", "int8") with no native rate on this card; the notes say why.
    unsupported_formats: tuple[str, ...] = ()
    launch_price_cny: int | None = None  # launch price in yuan (China-market cards)
    # Why the card has no launch price at all ("sold to OEMs only; AMD published no list
    # price"): a sourced statement instead of a figure, never beside one.
    no_list_price: str | None = None

    @property
    def pytorch_fp16_tflops(self) -> float | None:
        """The FP16 peak to compare a PyTorch fp16 matmul against: the FP32-accumulate rate
        where the datasheet's figure is an FP16-accumulate one, else the matrix rate; None when
        only an FP16-accumulate figure is known (RTX 5090, 5080)."""
        if self.fp16_fp32acc_tflops is not None:
            return self.fp16_fp32acc_tflops
        if self.fp16_accumulate == "fp16":
            return None
        return self.fp16_tflops

    def confidence(self, figure: str) -> str | None:
        """How sure one figure is ("fp32_tflops" -> "secondary"); None when absent."""
        return self.field_confidence.get(figure)


# ----------------------------------------------------------------------------- names


def normalise_name(name: str) -> str:
    """A name reduced to what tells cards apart: lower case, no trademarks, no vendor or brand
    words, "-"/"_" as spaces, "16 GB" as "16gb". "NVIDIA GeForce RTX 4090" -> "rtx 4090";
    "AMD Radeon RX 7900 XT" -> "rx 7900 xt" (never the XTX)."""
    text = _TRADEMARKS.sub(" ", name.lower())
    text = re.sub(r"[-_/,()\[\]]", " ", text)
    text = _SIZE.sub(lambda m: f"{m.group(1)}gb", text)
    return " ".join(w for w in text.split() if w not in _BRAND_WORDS)


# ----------------------------------------------------------------------------- parsing


def parse_spec_table(doc: Mapping[str, Any]) -> tuple[GpuSpec, ...]:
    """One TOML document to specs; raises SpecTableError on a malformed row, a figure without
    a confidence, a source that is no public URL, text citing internal notes, or two cards that
    one spelling would match."""
    return parse_spec_tables([(RESOURCE, doc)])


def parse_spec_tables(docs: Sequence[tuple[str, Mapping[str, Any]]]) -> tuple[GpuSpec, ...]:
    """Several documents, (file name, document), the main table first, to specs in file and row
    order. A file's rows cite its own [sources] or the main file's; a source key two files
    define with different URLs, a card two files both define, or any error of
    `parse_spec_table` raises SpecTableError naming the file."""
    if not docs:
        raise SpecTableError("no spec tables")
    main_name, main_doc = docs[0]
    main = _named(main_doc, main_name)
    specs: list[GpuSpec] = []
    defined_in: dict[str, str] = {}
    main_used: set[str] = set()
    for file_name, doc in docs:
        own = main if file_name == main_name else _named(doc, file_name)
        for key in own.keys() & main.keys():
            if own[key].url != main[key].url:
                raise SpecTableError(f"{file_name}: source {key!r} is {own[key].url} here but "
                                     f"{main[key].url} in {main_name}")
        rows = doc.get("gpu")
        if not isinstance(rows, list) or not rows:
            raise SpecTableError(f"{file_name}: no [[gpu]] rows")
        cited = Citations({**main, **own}, SpecTableError)
        for row in rows:
            try:
                spec = _spec(row, cited)
            except SpecTableError as exc:
                raise SpecTableError(f"{file_name}: {exc}") from exc
            if spec.name in defined_in:
                where = defined_in[spec.name]
                raise SpecTableError(f"{spec.name} is defined twice in {file_name}"
                                     if where == file_name else
                                     f"{spec.name} is defined in both {where} and {file_name}")
            defined_in[spec.name] = file_name
            specs.append(spec)
        main_used |= cited.used & main.keys()
        try:  # the main file's entries may be cited by any file: checked once, below
            check_all_used({k: v for k, v in own.items() if k not in main}, cited.used)
        except SourceError as exc:
            raise SpecTableError(f"{file_name}: {exc}") from exc
    try:
        check_all_used(main, main_used)
    except SourceError as exc:
        raise SpecTableError(f"{main_name}: {exc}") from exc
    owners: dict[str, str] = {}
    for spec in specs:
        for key in {normalise_name(n) for n in (spec.name, *spec.aliases)}:
            if not key:
                raise SpecTableError(f"{spec.name}: a spelling is empty once normalised")
            if owners.setdefault(key, spec.name) != spec.name:
                raise SpecTableError(f"{key!r} would match {owners[key]} and {spec.name}")
    return tuple(specs)


def _named(doc: Mapping[str, Any], file_name: str) -> dict[str, Source]:
    try:
        return named_sources(doc)
    except SourceError as exc:
        raise SpecTableError(f"{file_name}: {exc}") from exc


def _spec(row: Any, cited: Citations) -> GpuSpec:
    if not isinstance(row, dict):
        raise SpecTableError("a [[gpu]] row is not a table")
    name = row.get("name")
    if not isinstance(name, str) or not name:
        raise SpecTableError("a [[gpu]] without a name")
    vendor = row.get("vendor")
    if vendor not in VENDORS:
        raise SpecTableError(f"{name}: vendor must be one of {sorted(VENDORS)}")
    known = {"name", "vendor", "architecture", "gfx_target", "compute_capability", "aliases",
             "pci_ids", "fp16_accumulate", "pcie", "launch_date", "unsupported",
             "no_list_price", "field_confidence", "notes", "sources", "tags", *FIGURES}
    unknown = set(row) - known
    if unknown:
        raise SpecTableError(f"{name}: unknown keys {sorted(unknown)}")

    figures: dict[str, float | int | None] = {}
    for key, (kind, low, high) in FIGURES.items():
        value = row.get(key)
        if value is None:
            figures[key] = None
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or (
                kind is int and not isinstance(value, int)):
            what = "an integer" if kind is int else "a number"
            raise SpecTableError(f"{name}: {key} must be {what}")
        if not low <= value <= high:
            raise SpecTableError(f"{name}: {key} = {value} is outside {low}..{high}")
        figures[key] = value

    confidence = row.get("field_confidence", {})
    if not isinstance(confidence, dict) or not all(v in CONFIDENCE
                                                   for v in confidence.values()):
        raise SpecTableError(f"{name}: field_confidence values must be one of {CONFIDENCE}")
    present = {k for k, v in figures.items() if v is not None}
    if present != set(confidence):
        raise SpecTableError(f"{name}: field_confidence must cover exactly its figures "
                             f"(missing {sorted(present - set(confidence))}, "
                             f"stray {sorted(set(confidence) - present)})")

    accumulate = row.get("fp16_accumulate")
    if accumulate not in (None, "fp16"):
        raise SpecTableError(f"{name}: fp16_accumulate may only be 'fp16'")
    if figures["fp16_fp32acc_tflops"] is not None and accumulate != "fp16":
        raise SpecTableError(f"{name}: fp16_fp32acc_tflops needs fp16_accumulate = 'fp16'")
    if accumulate == "fp16" and figures["fp16_tflops"] is None:
        raise SpecTableError(f"{name}: fp16_accumulate without fp16_tflops")

    pci: list[tuple[str, str]] = []
    for value in _strings(row, "pci_ids", name):
        if not _ID.fullmatch(value):
            raise SpecTableError(f"{name}: pci id {value!r} is not '0xvvvv:0xdddd' lower case")
        vendor_id, device_id = value.split(":")
        if vendor_id != VENDORS[vendor]:
            raise SpecTableError(f"{name}: pci id {value} is not a {vendor} id")
        pci.append((vendor_id, device_id))

    sources = cited.sources(row.get("sources"), name)
    no_price = _no_list_price(row, figures, name)
    for text in (name, *_strings(row, "aliases", name), _opt(row, "notes", name) or "",
                 no_price or ""):
        cited.public(text, name)
    gfx, cc = row.get("gfx_target"), row.get("compute_capability")
    if gfx is not None and (vendor != "AMD" or not re.fullmatch(r"gfx[0-9a-f]{3,4}", str(gfx))):
        raise SpecTableError(f"{name}: bad gfx_target {gfx!r}")
    if cc is not None and (vendor != "NVIDIA" or not re.fullmatch(r"\d{1,2}\.\d", str(cc))):
        raise SpecTableError(f"{name}: bad compute_capability {cc!r}")
    launch_date = _launch_date(row.get("launch_date"), name)
    unsupported = _strings(row, "unsupported", name)
    for fmt in unsupported:
        if fmt not in FORMAT_FIGURES:
            raise SpecTableError(f"{name}: unsupported may only list {sorted(FORMAT_FIGURES)}")
        if figures[FORMAT_FIGURES[fmt]] is not None:
            raise SpecTableError(f"{name}: {fmt} is unsupported but {FORMAT_FIGURES[fmt]} "
                                 "is given")
    if len(set(unsupported)) != len(unsupported):
        raise SpecTableError(f"{name}: unsupported lists a format twice")
    if unsupported and not _opt(row, "notes", name):
        raise SpecTableError(f"{name}: unsupported formats need notes saying why")

    vram = figures["vram_gib"]
    return GpuSpec(
        name=name, vendor=vendor, architecture=_opt(row, "architecture", name),
        gfx_target=gfx, compute_capability=cc, aliases=_strings(row, "aliases", name),
        pci_ids=tuple(pci), vram_gib=float(vram) if vram is not None else None,
        vram_bytes=round(vram * GIB) if vram is not None else None,
        compute_units=_int(figures["compute_units"]),
        memory_bandwidth_gb_s=_float(figures["memory_bandwidth_gb_s"]),
        fp32_tflops=_float(figures["fp32_tflops"]), fp16_tflops=_float(figures["fp16_tflops"]),
        fp16_accumulate=accumulate,
        fp16_fp32acc_tflops=_float(figures["fp16_fp32acc_tflops"]),
        bf16_tflops=_float(figures["bf16_tflops"]), tf32_tflops=_float(figures["tf32_tflops"]),
        fp8_tflops=_float(figures["fp8_tflops"]), int8_tops=_float(figures["int8_tops"]),
        tdp_w=_int(figures["tdp_w"]), pcie=_opt(row, "pcie", name),
        launch_price_usd=_int(figures["launch_price_usd"]),
        launch_date=launch_date,
        field_confidence=dict(confidence), notes=_opt(row, "notes", name) or "",
        sources=sources,
        tags=_strings(row, "tags", name), unsupported_formats=unsupported,
        launch_price_cny=_int(figures["launch_price_cny"]), no_list_price=no_price)


def _no_list_price(row: Mapping[str, Any], figures: Mapping[str, float | int | None],
                   name: str) -> str | None:
    """The row's `no_list_price` statement: non-empty text, and only on a row without a
    launch price (a card cannot both have a price and none)."""
    value = row.get("no_list_price")
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise SpecTableError(f"{name}: no_list_price must be a non-empty string saying why")
    priced = [k for k in ("launch_price_usd", "launch_price_cny") if figures[k] is not None]
    if priced:
        raise SpecTableError(f"{name}: no_list_price contradicts {', '.join(priced)}")
    return value.strip()


def _strings(row: Mapping[str, Any], key: str, name: str) -> tuple[str, ...]:
    values = row.get(key, [])
    if not isinstance(values, list) or not all(isinstance(v, str) and v for v in values):
        raise SpecTableError(f"{name}: {key} must be a list of strings")
    return tuple(values)


def _launch_date(value: Any, name: str) -> str | None:
    """"2022-10-12" or "2022-10" (only the month sourced), checked to be a real date."""
    if value is None:
        return None
    found = _LAUNCH_DATE.fullmatch(value) if isinstance(value, str) else None
    try:
        if found is None:
            raise ValueError(value)
        year, month, day = found.groups()
        datetime.date(int(year), int(month), int(day or 1))
    except ValueError:
        raise SpecTableError(f"{name}: launch_date {value!r} is not a 'YYYY-MM-DD' or "
                             "'YYYY-MM' string") from None
    return str(value)


def _opt(row: Mapping[str, Any], key: str, name: str) -> str | None:
    value = row.get(key)
    if value is not None and not isinstance(value, str):
        raise SpecTableError(f"{name}: {key} must be a string")
    return value


def _float(value: float | int | None) -> float | None:
    return float(value) if value is not None else None


def _int(value: float | int | None) -> int | None:
    return int(value) if value is not None else None


def resource_names() -> tuple[str, ...]:
    """The packaged spec tables: gpu_specs.toml first, then gpu_specs_*.toml by name."""
    found = {entry.name for entry in importlib.resources.files("gpuscope.resources").iterdir()
             if RESOURCE_PATTERN.fullmatch(entry.name)}
    return (RESOURCE, *sorted(found - {RESOURCE}))


@functools.cache
def all_specs() -> tuple[GpuSpec, ...]:
    """Every card of the packaged tables, loaded once, in file and row order."""
    return parse_spec_tables([(name, load_toml_resource(name)) for name in resource_names()])


@functools.cache
def _by_name() -> dict[str, GpuSpec]:
    return {normalise_name(n): spec for spec in all_specs() for n in (spec.name, *spec.aliases)}


# ----------------------------------------------------------------------------- lookup


def gpu_spec(name: str | None = None, *, vendor_id: str | None = None,
             device_id: str | None = None, vram_bytes: int | None = None) -> GpuSpec | None:
    """The card a name ("NVIDIA GeForce RTX 4090", "Radeon RX 7900 XT", "MI300X") or a PCI id
    names; None when nothing matches or the evidence is ambiguous. Names match exactly once
    vendor and brand words, case and punctuation are set aside: "RX 7900 XT" is never the
    XTX, a laptop part never the desktop card. A PCI id shared by several cards (0x744c) needs
    the name or vram_bytes to decide; a name that contradicts the PCI id gives None."""
    by_id: list[GpuSpec] | None = None
    if device_id is not None:
        device = normalise_id(device_id)
        vendor = normalise_id(vendor_id) if vendor_id is not None else None
        if device is None or (vendor_id is not None and vendor is None):
            return None
        by_id = [s for s in all_specs() if any(
            d == device and (vendor is None or v == vendor) for v, d in s.pci_ids)]

    if name is not None:
        spec = _by_name().get(normalise_name(name))
        if spec is not None:
            if by_id and spec not in by_id:
                return None  # the name and the PCI id disagree
            return spec
    if not by_id:
        return None
    if len(by_id) > 1 and vram_bytes is not None and vram_bytes > 0:
        measured = vram_bytes / GIB
        near = [s for s in by_id
                if s.vram_gib is not None and abs(measured - s.vram_gib) <= VRAM_TOLERANCE_GIB]
        by_id = near or by_id
    return by_id[0] if len(by_id) == 1 else None
