"""Card profiles for the Compare page (issue #6): datasheet, ecosystem and price per unit."""

from __future__ import annotations

import math

import pytest

from gpuscope.knowledge.compare import (
    Datasheet,
    card_profile,
    compare_cards,
    ecosystem,
    price_metrics,
    profile_for_gpu,
)
from gpuscope.knowledge.rocm_support import known_rocm_releases
from gpuscope.knowledge.specs import gpu_spec
from gpuscope.model import Gpu, Vendor


def test_rx_7900_xtx() -> None:
    profile = card_profile("RX 7900 XTX")
    assert profile is not None
    assert profile.name == "AMD Radeon RX 7900 XTX" and profile.vendor == "AMD"
    eco = profile.ecosystem
    assert eco.gfx_target == "gfx1100"
    assert eco.rocm_linux is not None and eco.rocm_linux.supported is True
    assert eco.rocm_linux.first_release_listing == "5.7"
    # the newest Linux release in the table lists it
    assert eco.rocm_linux.latest_release_listing == known_rocm_releases("linux")[-1]
    assert eco.rocm_windows is not None and eco.rocm_windows.supported is True
    assert eco.hsa_override is None and eco.hsa_override_value is None
    assert eco.override_needed is False
    assert eco.compute_capability is None and eco.cuda_architecture is None
    sheet = profile.datasheet
    assert (sheet.vram_gib, sheet.memory_bandwidth_gb_s, sheet.tdp_w) == (24.0, 960.0, 355)
    assert sheet.fp32_tflops == 61.4 and sheet.fp16_tflops == 122.8
    assert sheet.bf16_tflops == 122.8 and sheet.int8_tops == 122.8
    assert sheet.vram_bytes == 24 * (1 << 30)


def test_rx_6700_xt_needs_the_10_3_0_override() -> None:
    profile = card_profile("AMD Radeon RX 6700 XT")
    assert profile is not None
    eco = profile.ecosystem
    assert eco.gfx_target == "gfx1031"
    assert eco.rocm_linux is not None and eco.rocm_linux.supported is False
    assert eco.rocm_linux.latest_release_listing is None
    assert "never been on the official Linux list" in eco.rocm_linux.note
    assert eco.hsa_override_value == "10.3.0"
    assert eco.hsa_override is not None and eco.hsa_override.pretends_to_be == "gfx1030"
    assert eco.pytorch_wheel_has_target is False
    assert eco.override_needed is True


def test_an_override_in_the_table_is_not_needed_when_the_wheel_carries_the_target() -> None:
    eco = ecosystem("gfx1101")  # RX 7800 XT: 11.0.0 is the usual value, but torch has gfx1101
    assert eco.hsa_override_value == "11.0.0"
    assert eco.pytorch_wheel_has_target is True
    assert eco.override_needed is False


def test_rtx_4090() -> None:
    profile = card_profile("NVIDIA GeForce RTX 4090")
    assert profile is not None
    eco = profile.ecosystem
    assert eco.compute_capability == "8.9"
    assert eco.cuda_architecture == "Ada Lovelace"
    assert eco.cuda_dropped_in is None
    assert eco.pytorch_wheel_has_target is True
    assert eco.gfx_target is None and eco.rocm_linux is None and eco.rocm_windows is None
    assert eco.override_needed is None
    # the datasheet FP16 is FP16-accumulate; PyTorch gets half of it
    assert profile.datasheet.fp16_tflops == 330.3
    assert profile.datasheet.pytorch_fp16_tflops == 165.2


def test_windows_and_linux_lists_differ() -> None:
    eco = ecosystem("gfx1030")  # RX 6800 XT class: Linux lists the target, Windows 7.2 does not
    assert eco.rocm_linux is not None and eco.rocm_windows is not None
    assert eco.rocm_linux.supported is True
    assert eco.rocm_windows.supported is False
    assert eco.rocm_windows.latest_release_listing == "6.4.2"


def test_price_per_tflops_and_per_gb_at_the_launch_price() -> None:
    profile = card_profile("RTX 4090")
    assert profile is not None
    price = profile.price
    assert price.price_usd == 1599 and price.is_launch_price
    assert price.usd_per_fp16_tflops == pytest.approx(1599 / 330.3)
    assert price.usd_per_pytorch_fp16_tflops == pytest.approx(1599 / 165.2)
    assert price.usd_per_vram_gib == pytest.approx(1599 / 24)


def test_an_edited_price() -> None:
    profile = card_profile("RX 7900 XTX")
    assert profile is not None
    cheaper = profile.with_price(799.0)
    assert cheaper.price.price_usd == 799 and not cheaper.price.is_launch_price
    assert cheaper.price.usd_per_fp16_tflops == pytest.approx(799 / 122.8)
    assert cheaper.price.usd_per_vram_gib == pytest.approx(799 / 24)
    assert cheaper.with_price(None).price == profile.price  # back to the launch price
    assert profile.price.usd_per_vram_gib == pytest.approx(999 / 24)
    free = profile.with_price(0)
    assert free.price.usd_per_fp16_tflops == 0
    for bad in (-1.0, math.nan, math.inf):
        with pytest.raises(ValueError):
            profile.with_price(bad)


def test_unknown_price_or_figure_gives_none() -> None:
    mi300x = card_profile("Instinct MI300X")  # no launch price in the table
    assert mi300x is not None
    assert mi300x.price.price_usd is None and mi300x.price.usd_per_vram_gib is None
    assert not mi300x.price.is_launch_price
    priced = mi300x.with_price(15000)
    assert priced.price.usd_per_vram_gib == pytest.approx(15000 / 192)
    rtx5090d = card_profile("RTX 5090 D")  # China only: no USD launch price
    assert rtx5090d is not None
    assert rtx5090d.price.price_usd is None and rtx5090d.price.usd_per_fp16_tflops is None
    spec = gpu_spec("RX 7900 XTX")
    assert spec is not None
    assert price_metrics(spec, 500).usd_per_vram_gib == pytest.approx(500 / 24)
    assert price_metrics(Datasheet.unknown(), 500).usd_per_vram_gib is None


def test_compare_cards_keeps_order_and_applies_prices() -> None:
    cards = compare_cards(["RTX 4090", "RX 7900 XTX", "RX 6700 XT"],
                          prices_usd={"AMD Radeon RX 7900 XTX": 850})
    assert [c.name for c in cards] == ["NVIDIA GeForce RTX 4090", "AMD Radeon RX 7900 XTX",
                                       "AMD Radeon RX 6700 XT"]
    assert cards[0].price.is_launch_price and cards[1].price.price_usd == 850
    with pytest.raises(ValueError, match="Voodoo 5"):
        compare_cards(["RTX 4090", "Voodoo 5"])
    assert card_profile("Voodoo 5") is None


def test_profile_of_a_gpu_from_a_report() -> None:
    gpu = Gpu(vendor=Vendor.AMD, name="AMD Radeon RX 7900 XTX", pci_vendor_id="0x1002",
              pci_device_id="0x744c", gfx_target="gfx1100", vram_total_bytes=25753026560)
    profile = profile_for_gpu(gpu, price_usd=900)
    assert profile.spec is not None and profile.name == "AMD Radeon RX 7900 XTX"
    assert profile.ecosystem.rocm_linux is not None and profile.ecosystem.rocm_linux.supported
    assert profile.price.price_usd == 900


def test_profile_of_a_gpu_the_table_does_not_know() -> None:
    gpu = Gpu(vendor=Vendor.AMD, name="AMD Radeon Graphics", gfx_target="gfx1036",
              vram_total_bytes=512 * (1 << 20))
    profile = profile_for_gpu(gpu)
    assert profile.spec is None and profile.name == "AMD Radeon Graphics"
    assert profile.vendor == "AMD"
    assert profile.datasheet.vram_bytes == 512 * (1 << 20)
    assert profile.datasheet.fp32_tflops is None
    assert profile.ecosystem.gfx_target == "gfx1036"
    assert profile.ecosystem.hsa_override_value == "10.3.0"
    assert profile.price.price_usd is None
    nameless = profile_for_gpu(Gpu(vendor=Vendor.NVIDIA, compute_capability="6.1"))
    assert nameless.name == "Unknown GPU" and nameless.vendor == "NVIDIA"
    assert nameless.ecosystem.cuda_architecture == "Pascal"
    assert nameless.ecosystem.cuda_dropped_in == "13.0"
