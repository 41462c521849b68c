"""One card's profile for the Compare page: its datasheet (specs.py), its ecosystem (official
ROCm support on Linux and Windows from rocm_support.py, the usual HSA_OVERRIDE_GFX_VERSION from
overrides.py, whether the newest official PyTorch wheel carries native code for it from
torch_builds.py, the CUDA compute capability and architecture from cuda.py) and what it costs
per FP16 TFLOPS and per GB of VRAM at a price (the launch price unless another is given).

Nothing here measures anything: measured results come from reports and are joined by the view.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from gpuscope.knowledge.cuda import architecture_for_cc, cuda_dropped
from gpuscope.knowledge.overrides import OverrideAdvice, hsa_override_for
from gpuscope.knowledge.rocm_support import normalise_gfx, official_support
from gpuscope.knowledge.sources import Source
from gpuscope.knowledge.specs import GpuSpec, gpu_spec
from gpuscope.knowledge.torch_builds import known_torch_releases, official_wheel_has_target
from gpuscope.model import Gpu, Vendor

GIB = 1 << 30


@dataclass(frozen=True, slots=True)
class Datasheet:
    """The published figures the comparison shows; None where the table has none."""

    vram_bytes: int | None
    vram_gib: float | None  # as sold: "24 GB" cards hold 24 GiB
    memory_bandwidth_gb_s: float | None
    fp32_tflops: float | None
    fp16_tflops: float | None  # the datasheet's dense FP16 matrix rate
    # FP16 with FP32 accumulation, what a PyTorch matmul runs at (half the datasheet figure on
    # GeForce cards, whose datasheet quotes FP16 accumulation); see GpuSpec.pytorch_fp16_tflops
    pytorch_fp16_tflops: float | None
    bf16_tflops: float | None
    int8_tops: float | None
    tdp_w: int | None
    launch_price_usd: int | None
    launch_date: str | None
    sources: tuple[Source, ...] = ()  # public sources of the figures

    @classmethod
    def from_spec(cls, spec: GpuSpec) -> Datasheet:
        return cls(
            vram_bytes=spec.vram_bytes, vram_gib=spec.vram_gib,
            memory_bandwidth_gb_s=spec.memory_bandwidth_gb_s, fp32_tflops=spec.fp32_tflops,
            fp16_tflops=spec.fp16_tflops, pytorch_fp16_tflops=spec.pytorch_fp16_tflops,
            bf16_tflops=spec.bf16_tflops, int8_tops=spec.int8_tops, tdp_w=spec.tdp_w,
            launch_price_usd=spec.launch_price_usd, launch_date=spec.launch_date,
            sources=spec.sources)

    @classmethod
    def unknown(cls, vram_bytes: int | None = None) -> Datasheet:
        """A card the table does not have: only what a report measured (its VRAM)."""
        return cls(vram_bytes=vram_bytes,
                   vram_gib=round(vram_bytes / GIB, 1) if vram_bytes else None,
                   memory_bandwidth_gb_s=None, fp32_tflops=None, fp16_tflops=None,
                   pytorch_fp16_tflops=None, bf16_tflops=None, int8_tops=None, tdp_w=None,
                   launch_price_usd=None, launch_date=None)


@dataclass(frozen=True, slots=True)
class RocmStatus:
    """Official ROCm support of a gfx target on one OS, as of the newest release in the table."""

    os: str  # "linux" / "windows"
    supported: bool | None  # None: the table could not read the status
    level: str  # "supported", "deprecated", "runtime_only", "unsupported", ...
    release_checked: str | None  # the newest release of the table, which answered
    latest_release_listing: str | None  # the newest release that lists the target
    first_release_listing: str | None
    note: str
    source: str


@dataclass(frozen=True, slots=True)
class Ecosystem:
    """What software runs on the card. AMD fields are None on NVIDIA cards and the CUDA ones
    on AMD cards."""

    gfx_target: str | None
    rocm_linux: RocmStatus | None
    rocm_windows: RocmStatus | None
    hsa_override: OverrideAdvice | None  # the usual value ("10.3.0") where one is known
    # An override exists and the newest official PyTorch ROCm wheel has no native code for the
    # target, so PyTorch needs HSA_OVERRIDE_GFX_VERSION to run on it.
    override_needed: bool | None
    pytorch_wheel_has_target: bool | None  # newest torch release in the table; None: unknown
    pytorch_release_checked: str | None
    compute_capability: str | None
    cuda_architecture: str | None  # "Ada Lovelace"
    cuda_dropped_in: str | None  # the CUDA release that removed this capability

    @property
    def hsa_override_value(self) -> str | None:
        return self.hsa_override.value if self.hsa_override else None


@dataclass(frozen=True, slots=True)
class PriceMetrics:
    """Cost per unit at `price_usd`; None where the price or the figure is unknown."""

    price_usd: float | None
    is_launch_price: bool
    usd_per_fp16_tflops: float | None  # against the datasheet FP16 figure
    usd_per_pytorch_fp16_tflops: float | None  # against FP16 with FP32 accumulation
    usd_per_vram_gib: float | None  # per GB as sold (the datasheet's "24 GB")


@dataclass(frozen=True, slots=True)
class CardProfile:
    name: str
    vendor: str  # "AMD", "NVIDIA", or the vendor a report names
    architecture: str | None
    spec: GpuSpec | None  # None for a card from a report that the table does not have
    datasheet: Datasheet
    ecosystem: Ecosystem
    price: PriceMetrics

    def with_price(self, price_usd: float | None) -> CardProfile:
        """The same card at another price (None: back to the launch price)."""
        return dataclasses.replace(self, price=price_metrics(self.datasheet, price_usd))


# ----------------------------------------------------------------------------- parts


def price_metrics(datasheet: Datasheet | GpuSpec, price_usd: float | None = None) -> PriceMetrics:
    """USD per datasheet FP16 TFLOPS, per PyTorch FP16 TFLOPS and per GB of VRAM at
    `price_usd`, or at the launch price when it is None. Raises ValueError for a negative or
    non-finite price."""
    sheet = datasheet if isinstance(datasheet, Datasheet) else Datasheet.from_spec(datasheet)
    if price_usd is not None and (not math.isfinite(price_usd) or price_usd < 0):
        raise ValueError(f"a price must be a finite number of dollars >= 0, not {price_usd!r}")
    is_launch = price_usd is None
    price = float(sheet.launch_price_usd) if (
        price_usd is None and sheet.launch_price_usd is not None) else price_usd

    def per(figure: float | None) -> float | None:
        if price is None or figure is None or figure <= 0:
            return None
        return price / figure

    return PriceMetrics(
        price_usd=price, is_launch_price=is_launch and price is not None,
        usd_per_fp16_tflops=per(sheet.fp16_tflops),
        usd_per_pytorch_fp16_tflops=per(sheet.pytorch_fp16_tflops),
        usd_per_vram_gib=per(sheet.vram_gib))


def _rocm_status(target: str, os_name: str, rocm_version: str | None) -> RocmStatus:
    verdict = official_support(target, rocm_version, os_name)
    return RocmStatus(os=os_name, supported=verdict.supported, level=verdict.level,
                      release_checked=verdict.release_checked,
                      latest_release_listing=verdict.last_supported_release,
                      first_release_listing=verdict.first_supported_release, note=verdict.note,
                      source=verdict.source)


def ecosystem(gfx_target: str | None = None, compute_capability: str | None = None, *,
              rocm_version: str | None = None) -> Ecosystem:
    """The software facts for a gfx target (AMD) or a compute capability (NVIDIA).
    `rocm_version` None answers for the newest ROCm release in the table."""
    target = normalise_gfx(gfx_target) if gfx_target else None
    newest_torch = known_torch_releases()[-1] if known_torch_releases() else None
    if target is not None:
        advice = hsa_override_for(target)
        in_wheel = official_wheel_has_target(None, "rocm", None, target)
        return Ecosystem(
            gfx_target=target, rocm_linux=_rocm_status(target, "linux", rocm_version),
            rocm_windows=_rocm_status(target, "windows", rocm_version), hsa_override=advice,
            override_needed=advice is not None and in_wheel is not True,
            pytorch_wheel_has_target=in_wheel, pytorch_release_checked=newest_torch,
            compute_capability=None, cuda_architecture=None, cuda_dropped_in=None)
    cc = compute_capability.strip() if compute_capability and compute_capability.strip() \
        else None
    return Ecosystem(
        gfx_target=None, rocm_linux=None, rocm_windows=None, hsa_override=None,
        override_needed=None,
        pytorch_wheel_has_target=official_wheel_has_target(None, "cuda", None, cc)
        if cc else None,
        pytorch_release_checked=newest_torch if cc else None,
        compute_capability=cc, cuda_architecture=architecture_for_cc(cc) if cc else None,
        cuda_dropped_in=cuda_dropped(cc) if cc else None)


# ----------------------------------------------------------------------------- profiles


def card_profile(card: GpuSpec | str, *, price_usd: float | None = None,
                 rocm_version: str | None = None) -> CardProfile | None:
    """The profile of a card in the knowledge base, by spec or by name ("RX 7900 XTX",
    "NVIDIA GeForce RTX 4090"); None for a name the table does not know."""
    spec = gpu_spec(card) if isinstance(card, str) else card
    if spec is None:
        return None
    sheet = Datasheet.from_spec(spec)
    return CardProfile(
        name=spec.name, vendor=spec.vendor, architecture=spec.architecture, spec=spec,
        datasheet=sheet,
        ecosystem=ecosystem(spec.gfx_target, spec.compute_capability, rocm_version=rocm_version),
        price=price_metrics(sheet, price_usd))


def profile_for_gpu(gpu: Gpu, *, price_usd: float | None = None,
                    rocm_version: str | None = None) -> CardProfile:
    """The profile of a GPU from an inventory or an imported report: the table's card when
    its name or PCI id finds one, else what the report itself says (name, VRAM, gfx target,
    compute capability). The report's gfx target and compute capability win over the table's
    (an override or a partition changes what the software sees)."""
    spec = gpu_spec(gpu.name, vendor_id=gpu.pci_vendor_id, device_id=gpu.pci_device_id,
                    vram_bytes=gpu.vram_total_bytes) if (gpu.name or gpu.pci_device_id) else None
    sheet = Datasheet.from_spec(spec) if spec else Datasheet.unknown(gpu.vram_total_bytes)
    gfx = gpu.gfx_target or (spec.gfx_target if spec else None)
    cc = gpu.compute_capability or (spec.compute_capability if spec else None)
    vendor = spec.vendor if spec else _vendor_label(gpu.vendor)
    return CardProfile(
        name=spec.name if spec else (gpu.name or "Unknown GPU"), vendor=vendor,
        architecture=spec.architecture if spec else gpu.architecture, spec=spec,
        datasheet=sheet, ecosystem=ecosystem(gfx, cc, rocm_version=rocm_version),
        price=price_metrics(sheet, price_usd))


def _vendor_label(vendor: Vendor | None) -> str:
    return {Vendor.AMD: "AMD", Vendor.NVIDIA: "NVIDIA", Vendor.INTEL: "Intel"}.get(
        vendor, "unknown") if vendor else "unknown"


def compare_cards(cards: Iterable[GpuSpec | str],
                  prices_usd: Mapping[str, float] | None = None) -> tuple[CardProfile, ...]:
    """Profiles of several cards of the knowledge base, in the order given. `prices_usd` maps a
    card's name (as the table spells it) to the price to use instead of its launch price.
    Raises ValueError naming the cards the table does not know."""
    prices = dict(prices_usd or {})
    profiles: list[CardProfile] = []
    unknown: list[str] = []
    for card in cards:
        profile = card_profile(card)
        if profile is None:
            unknown.append(str(card))
            continue
        price = prices.get(profile.name)
        profiles.append(profile.with_price(price) if price is not None else profile)
    if unknown:
        raise ValueError(f"not in the knowledge base: {', '.join(unknown)}")
    return tuple(profiles)
