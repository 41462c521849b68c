"""What the Compare page shows before the user picks anything: this machine's cards and the
two cards an owner of them most likely weighs them against, found from the spec table's
figures, never listed per card.

The peers of a card (`peers_of`):

1. Its class is its market segment, the spec table's tag "consumer", "workstation" or
   "datacenter"; peers come from the same segment while it has candidates (a gaming card is
   weighed against gaming cards, an Instinct against datacenter cards).
2. Distance between two cards (`card_distance`) is the sum over the figures both have of how
   far apart they are on a log scale: VRAM (counted twice: it decides which models fit),
   launch price, PyTorch FP16 rate, and the launch date (half a point a year). A figure the
   candidate lacks and the reference has costs a full point, so rows with gaps rank last.
3. Peer one is the nearest card of another vendor: the rival (RX 7900 XTX -> RTX 4090).
   Peer two is the nearest card of the same vendor from another architecture, the generation
   before or after (RTX 4090 -> RTX 3090 or 5090); failing that, the same vendor's nearest
   card; failing that, the nearest card left.

Without a GPU (`hobbyist_pair`): among consumer cards, the largest VRAM size both vendors sell,
and at that size each vendor's card with the highest PyTorch FP16 rate (newest first on a tie):
the head-to-head of the most memory a hobbyist can buy from either vendor (with the table of
2026: RX 7900 XTX and RTX 4090, 24 GB each).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Protocol

from gpuscope.knowledge.compare import CardProfile
from gpuscope.knowledge.specs import GpuSpec, all_specs

SEGMENTS: tuple[str, ...] = ("consumer", "workstation", "datacenter")
PEER_COUNT = 2
VRAM_WEIGHT = 2.0
YEAR_WEIGHT = 0.5
MISSING_PENALTY = 1.0


class Figures(Protocol):
    """What the distance reads; a GpuSpec and a compare Datasheet both have it."""

    @property
    def vram_gib(self) -> float | None: ...
    @property
    def launch_price_usd(self) -> int | None: ...
    @property
    def pytorch_fp16_tflops(self) -> float | None: ...
    @property
    def launch_date(self) -> str | None: ...


def segment(spec: GpuSpec) -> str | None:
    """The card's market segment ("consumer", ...), the first segment tag it carries."""
    return next((tag for tag in spec.tags if tag in SEGMENTS), None)


def launch_year(date: str | None) -> float | None:
    """"2022-12-13" -> 2022.96; None for no date or one that is not 'YYYY-MM[-DD]'."""
    if not date:
        return None
    parts = date.split("-")
    try:
        year, month = int(parts[0]), int(parts[1])
    except (IndexError, ValueError):
        return None
    return year + (month - 1) / 12


def _log_gap(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or a <= 0 or b <= 0:
        return None
    return abs(math.log(a / b))


def card_distance(reference: Figures, candidate: Figures) -> float:
    """How far `candidate` is from `reference` (0: the same figures); see the module's rule."""
    total = 0.0
    pairs: tuple[tuple[float | None, float | None, float, bool], ...] = (
        (reference.vram_gib, candidate.vram_gib, VRAM_WEIGHT, True),
        (_float(reference.launch_price_usd), _float(candidate.launch_price_usd), 1.0, True),
        (reference.pytorch_fp16_tflops, candidate.pytorch_fp16_tflops, 1.0, True),
        (launch_year(reference.launch_date), launch_year(candidate.launch_date), YEAR_WEIGHT,
         False),
    )
    for ours, theirs, weight, logarithmic in pairs:
        if ours is None:
            continue  # the reference lacks it: no candidate is judged on it
        if theirs is None:
            total += MISSING_PENALTY
            continue
        gap = _log_gap(ours, theirs) if logarithmic else abs(ours - theirs)
        total += weight * (gap if gap is not None else MISSING_PENALTY)
    return total


def _float(value: int | None) -> float | None:
    return float(value) if value is not None else None


def _nearest(reference: Figures, candidates: Iterable[GpuSpec]) -> GpuSpec | None:
    # min() keeps the first of equals: table order breaks ties.
    return min(candidates, key=lambda spec: card_distance(reference, spec), default=None)


def peers_of(reference: Figures, vendor: str, *, architecture: str | None = None,
             segment_tag: str | None = None, exclude: Iterable[str] = (),
             specs: Sequence[GpuSpec] | None = None) -> tuple[GpuSpec, ...]:
    """The PEER_COUNT cards most worth comparing with a card of `vendor` whose figures are
    `reference` (a GpuSpec, or the Datasheet of a card the table lacks): the other vendor's
    nearest, then the same vendor's nearest of another architecture (the module's rule).
    Cards named in `exclude` are never picked."""
    table = all_specs() if specs is None else specs
    skip = set(exclude)
    pool = [s for s in table if s.name not in skip and s.vram_gib is not None]
    in_segment = [s for s in pool if segment(s) == segment_tag] if segment_tag else []
    candidates = in_segment or pool
    picks: list[GpuSpec] = []
    rival = _nearest(reference, (s for s in candidates if s.vendor != vendor))
    if rival is not None:
        picks.append(rival)
    same = [s for s in candidates if s.vendor == vendor and s not in picks]
    step = _nearest(reference, (s for s in same if architecture is None
                                or s.architecture != architecture)) or _nearest(reference, same)
    if step is not None:
        picks.append(step)
    while len(picks) < PEER_COUNT:
        extra = _nearest(reference, (s for s in candidates if s not in picks))
        if extra is None:
            break
        picks.append(extra)
    return tuple(picks[:PEER_COUNT])


def spec_peers(spec: GpuSpec, exclude: Iterable[str] = (),
               specs: Sequence[GpuSpec] | None = None) -> tuple[GpuSpec, ...]:
    """`peers_of` a card of the spec table (never itself)."""
    return peers_of(spec, spec.vendor, architecture=spec.architecture,
                    segment_tag=segment(spec), exclude={spec.name, *exclude}, specs=specs)


def hobbyist_pair(specs: Sequence[GpuSpec] | None = None) -> tuple[GpuSpec, ...]:
    """The cards shown without a GPU (the module's rule); fewer when the table lacks them."""
    table = all_specs() if specs is None else specs
    consumer = [s for s in table if segment(s) == "consumer" and s.vram_gib is not None]
    vendors = sorted({s.vendor for s in consumer})
    sizes = [{s.vram_gib for s in consumer if s.vendor == vendor} for vendor in vendors]
    shared = set.intersection(*sizes) if len(sizes) > 1 else set()
    if not shared:
        return ()
    size = max(v for v in shared if v is not None)
    pair: list[GpuSpec] = []
    for vendor in vendors:
        cards = [s for s in consumer if s.vendor == vendor and s.vram_gib == size]
        pair.append(max(cards, key=lambda s: (s.pytorch_fp16_tflops or 0.0,
                                              launch_year(s.launch_date) or 0.0)))
    # AMD, then NVIDIA: the order of VENDORS, alphabetical.
    return tuple(pair)


def suggested_specs(machine: Sequence[CardProfile],
                    specs: Sequence[GpuSpec] | None = None) -> tuple[GpuSpec, ...]:
    """The cards to show beside this machine's (`machine`, its cards' profiles, first
    first): the peers of its first card the spec table knows, else of its first card by what
    the machine reported of it; the hobbyist pair with no GPU, or with one whose VRAM is not
    even known. Never one of the machine's own cards."""
    own = {profile.name for profile in machine}
    if not machine:
        return hobbyist_pair(specs)
    known = next((p for p in machine if p.spec is not None), None)
    if known is not None and known.spec is not None:
        return spec_peers(known.spec, own, specs)
    first = machine[0]
    if first.datasheet.vram_gib is None:
        return tuple(s for s in hobbyist_pair(specs) if s.name not in own)
    return peers_of(first.datasheet, first.vendor, architecture=first.architecture,
                    exclude=own, specs=specs)
