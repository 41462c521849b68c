"""What the Compare page shows before any input: the peers of this machine's card, found by
the documented rule from the figures, and the reference pair when there is no GPU."""

from __future__ import annotations

from gpuscope.app.compare_defaults import (
    card_distance,
    hobbyist_pair,
    peers_of,
    spec_peers,
    suggested_specs,
)
from gpuscope.knowledge.compare import profile_for_gpu
from gpuscope.knowledge.specs import GIB, GpuSpec, gpu_spec
from gpuscope.model import Gpu, Vendor


def spec(name: str, vendor: str, architecture: str, vram_gib: float | None,
         price_usd: int | None = None, fp16_tflops: float | None = None,
         launch_date: str | None = None, segment: str = "consumer") -> GpuSpec:
    return GpuSpec(
        name=name, vendor=vendor, architecture=architecture, gfx_target=None,
        compute_capability=None, aliases=(), pci_ids=(), vram_gib=vram_gib,
        vram_bytes=round(vram_gib * GIB) if vram_gib else None, compute_units=None,
        memory_bandwidth_gb_s=None, fp32_tflops=None, fp16_tflops=fp16_tflops,
        fp16_accumulate=None, fp16_fp32acc_tflops=None, bf16_tflops=None, tf32_tflops=None,
        fp8_tflops=None, int8_tops=None, tdp_w=None, pcie=None,
        launch_price_usd=price_usd, launch_date=launch_date, field_confidence={},
        tags=(segment, architecture.lower()))


# A small table shaped like the real one.
A24 = spec("A24", "AMD", "RDNA3", 24, 999, 122.8, "2022-12")
A20 = spec("A20", "AMD", "RDNA3", 20, 899, 103.0, "2022-12")
A16_NEXT = spec("A16 next", "AMD", "RDNA4", 16, 599, 194.6, "2025-03")
A16_PREVIOUS = spec("A16 previous", "AMD", "RDNA2", 16, 649, 41.5, "2020-11")
N24 = spec("N24", "NVIDIA", "Ada", 24, 1599, 165.2, "2022-10")
N16 = spec("N16", "NVIDIA", "Ada", 16, 999, 104.0, "2024-01")
N24_PREVIOUS = spec("N24 previous", "NVIDIA", "Ampere", 24, 1499, 71.0, "2020-09")
N32 = spec("N32", "NVIDIA", "Blackwell", 32, 1999, None, "2025-01")
# The same figures as A24 but sold to datacenters: never a consumer card's peer.
A24_DATACENTER = spec("A24 datacenter", "AMD", "CDNA", 24, 999, 122.8, "2022-12",
                      segment="datacenter")
N24_BARE = spec("N24 bare", "NVIDIA", "Ada", 24)  # VRAM only: gaps rank it last
TABLE = (A24, A20, A16_NEXT, A16_PREVIOUS, N24, N16, N24_PREVIOUS, N32, A24_DATACENTER,
         N24_BARE)


def test_the_rival_is_the_other_vendors_nearest_and_the_step_another_generation() -> None:
    # A20 is nearer than either RDNA4 or RDNA2 card, but it is the same generation.
    assert card_distance(A24, A20) < card_distance(A24, A16_NEXT)
    assert spec_peers(A24, specs=TABLE) == (N24, A16_NEXT)
    assert spec_peers(N24, specs=TABLE) == (A24, N24_PREVIOUS)


def test_peers_stay_in_the_cards_segment_and_never_repeat_the_machine() -> None:
    peers = spec_peers(A24, specs=TABLE)
    assert A24_DATACENTER not in peers and A24 not in peers
    # A machine holding both A24 and N24: the rival is the next nearest NVIDIA card.
    assert N24 not in spec_peers(A24, exclude={"N24"}, specs=TABLE)
    # The datacenter card's only peers are outside its segment: the rule widens the pool.
    assert len(spec_peers(A24_DATACENTER, specs=TABLE)) == 2


def test_a_missing_figure_counts_against_the_candidate_not_the_reference() -> None:
    assert card_distance(A24, N24_BARE) > card_distance(A24, N24)
    # The reference lacks an FP16 rate: no candidate is judged on it.
    no_fp16 = spec("no fp16", "AMD", "RDNA3", 24, 999, None, "2022-12")
    assert card_distance(no_fp16, N24) < card_distance(A24, N24)
    assert card_distance(A24, A24) == 0


def test_a_card_the_table_lacks_gets_peers_by_what_the_machine_reported() -> None:
    reported = profile_for_gpu(Gpu(index=0, vendor=Vendor.INTEL, name="Intel Arc Z999",
                                   vram_total_bytes=16 * GIB))
    assert reported.spec is None
    peers = peers_of(reported.datasheet, reported.vendor, specs=TABLE)
    assert len(peers) == 2 and all(p.vram_gib == 16 for p in peers)
    assert suggested_specs([reported], specs=TABLE) == peers


def test_without_a_gpu_the_pair_is_the_largest_vram_both_vendors_sell() -> None:
    # N32 has more VRAM, but AMD sells no consumer 32 GB card; at 24 GB, the faster NVIDIA.
    assert hobbyist_pair(TABLE) == (A24, N24)
    assert suggested_specs([], specs=TABLE) == (A24, N24)
    assert hobbyist_pair((A24, A20)) == ()  # one vendor: no head-to-head
    unknown = profile_for_gpu(Gpu(index=0, vendor=Vendor.AMD, name="Mystery GPU"))
    assert unknown.datasheet.vram_gib is None
    assert suggested_specs([unknown], specs=TABLE) == (A24, N24)


def test_the_packaged_table_gives_the_pairs_people_compare() -> None:
    xtx, rtx_4090 = gpu_spec("RX 7900 XTX"), gpu_spec("RTX 4090")
    assert xtx is not None and rtx_4090 is not None
    assert hobbyist_pair() == (xtx, rtx_4090)
    assert spec_peers(xtx)[0] == rtx_4090
    assert spec_peers(rtx_4090)[0] == xtx
    for card in (xtx, rtx_4090):
        peers = spec_peers(card)
        assert len(peers) == 2 and card not in peers
        assert peers[1].vendor == card.vendor and peers[1].architecture != card.architecture
