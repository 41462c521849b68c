"""The card database of issue #12: every card people hold has a complete, sourced row, and the
spec loader reads several gpu_specs*.toml files, launch dates and unsupported number formats."""

from __future__ import annotations

import importlib.resources
import re
import sys
from collections.abc import Mapping
from typing import Any

import pytest

from gpuscope.knowledge.sources import CONFIDENCE
from gpuscope.knowledge.specs import (
    FIGURES,
    FORMAT_FIGURES,
    RESOURCE,
    GpuSpec,
    SpecTableError,
    all_specs,
    gpu_spec,
    parse_spec_table,
    parse_spec_tables,
    resource_names,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

# The cards of issue #12, item 6, spelled as a user or a driver would.
AMD_CONSUMER = [
    # RDNA2
    "RX 6400", "RX 6500 XT", "RX 6600", "RX 6600 XT", "RX 6650 XT", "RX 6700", "RX 6700 XT",
    "RX 6750 XT", "RX 6800", "RX 6800 XT", "RX 6900 XT", "RX 6950 XT",
    # RDNA3
    "RX 7600", "RX 7600 XT", "RX 7700 XT", "RX 7800 XT", "RX 7900 GRE", "RX 7900 XT",
    "RX 7900 XTX",
    # RDNA4
    "RX 9060 XT 8GB", "RX 9060 XT 16GB", "RX 9070", "RX 9070 XT", "RX 9070 GRE",
]
NVIDIA_CONSUMER = [
    "RTX 3050 8GB", "RTX 3060 12GB", "RTX 3060 Ti", "RTX 3070", "RTX 3070 Ti", "RTX 3080 10GB",
    "RTX 3080 12GB", "RTX 3080 Ti", "RTX 3090", "RTX 3090 Ti",
    "RTX 4060", "RTX 4060 Ti 8GB", "RTX 4060 Ti 16GB", "RTX 4070", "RTX 4070 SUPER", "RTX 4070 Ti",
    "RTX 4070 Ti SUPER", "RTX 4080", "RTX 4080 SUPER", "RTX 4090", "RTX 4090 D",
    "RTX 5060", "RTX 5060 Ti 8GB", "RTX 5060 Ti 16GB", "RTX 5070", "RTX 5070 Ti", "RTX 5080",
    "RTX 5090", "RTX 5090 D",
]
WORKSTATION = [
    "Radeon PRO W7900", "Radeon PRO W7800", "Radeon AI PRO R9700", "RTX A4000", "RTX A4500",
    "RTX A5000", "RTX A6000", "Instinct MI50 16GB", "Instinct MI50 32GB", "Instinct MI60",
    "Instinct MI100",
]
CARDS = AMD_CONSUMER + NVIDIA_CONSUMER + WORKSTATION
# Figures no public source at hand gives yet (searched for in this project's corpus of public
# pages; see the rows' notes). Strict: when a row gets its figure, the mark must go.
KNOWN_GAPS = {
    "RX 9070 GRE": "no launch price found (USD or CNY)",
    "RTX 5090 D": "no yuan (or USD) launch price in a citable source",
    "Radeon AI PRO R9700": "no exact launch price in a citable source",
    "Instinct MI50 32GB": "no launch date of the 32 GB model in a citable source",
}


def _with_gaps_marked(names: list[str]) -> list[Any]:
    return [pytest.param(name, marks=pytest.mark.xfail(reason=KNOWN_GAPS[name], strict=True))
            if name in KNOWN_GAPS else name for name in names]

# What a complete row has: these figures (fp16/bf16/int8 may instead be declared unsupported),
# and a launch price (below: USD, a China-market card's yuan, or a sourced "no list price").
REQUIRED_FIGURES = ("fp32_tflops", "fp16_tflops", "bf16_tflops", "int8_tops",
                    "memory_bandwidth_gb_s", "vram_gib", "tdp_w")
CHINA_TAG = "china"  # a card sold only in China may be priced in yuan instead of USD
_DATE = re.compile(r"\d{4}-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?")
_HTTPS = re.compile(r"https://[A-Za-z0-9.-]+\.[A-Za-z]{2,}(/\S*)?")


def _raw_files() -> dict[str, dict[str, Any]]:
    files = importlib.resources.files("gpuscope.resources")
    return {name: tomllib.loads(files.joinpath(name).read_text(encoding="utf-8"))
            for name in resource_names()}


def _raw_row(name: str) -> tuple[str, Mapping[str, Any]]:
    """The file and the TOML row that define the card `name` (last definition wins, as the lead
    removes duplicates from the main file)."""
    found = [(file, row) for file, doc in _raw_files().items() for row in doc.get("gpu", [])
             if row.get("name") == name]
    assert found, f"{name}: no row in {resource_names()}"
    return found[-1]


def _missing(name: str) -> list[str]:
    """What the card's row lacks, in words; empty when complete."""
    spec = gpu_spec(name)
    if spec is None:
        return ["no row answers to this name"]
    problems: list[str] = []
    for figure in REQUIRED_FIGURES:
        fmt = next((f for f, key in FORMAT_FIGURES.items() if key == figure), None)
        if getattr(spec, figure) is not None:
            if spec.confidence(figure) not in CONFIDENCE:
                problems.append(f"{figure} has no field_confidence")
        elif fmt is not None and fmt in spec.unsupported_formats:
            if not spec.notes:
                problems.append(f"{fmt} is unsupported without notes saying why")
        else:
            problems.append(figure)
    problems += _price_problems(spec)
    if spec.launch_date is None:
        problems.append("launch_date")
    elif not _DATE.fullmatch(spec.launch_date):
        problems.append(f"launch_date {spec.launch_date!r} is no YYYY-MM(-DD) date")
    if spec.vendor == "AMD" and spec.gfx_target is None:
        problems.append("gfx_target")
    if spec.vendor == "NVIDIA" and spec.compute_capability is None:
        problems.append("compute_capability")
    for what in ("architecture", "aliases", "tags", "sources"):
        if not getattr(spec, what):
            problems.append(what)
    present = {k for k in FIGURES if getattr(spec, k) is not None}
    if set(spec.field_confidence) != present:
        problems.append(f"field_confidence covers {sorted(spec.field_confidence)}, "
                        f"figures are {sorted(present)}")
    return problems


def _price_problems(spec: GpuSpec) -> list[str]:
    """A launch price in USD; for a card tagged "china", USD or yuan; or, for a card its vendor
    never priced, a `no_list_price` statement (whose row then has sources to back it)."""
    prices = ["launch_price_usd"]
    if CHINA_TAG in spec.tags:
        prices.append("launch_price_cny")
    given = [p for p in prices if getattr(spec, p) is not None]
    if not given:
        return [] if spec.no_list_price else [" or ".join(prices)]
    return [f"{p} has no field_confidence" for p in given if spec.confidence(p) not in CONFIDENCE]


def _source_problems(name: str) -> list[str]:
    """Source citations of the card's row (by its table name) that are neither a key its file
    (or the main file) defines nor an https URL, or that resolve to no https URL."""
    file, row = _raw_row(name)
    files = _raw_files()
    named = {**files[RESOURCE].get("sources", {}), **files[file].get("sources", {})}
    problems = []
    for item in row.get("sources", []):
        url = named[item]["url"] if item in named else item
        if not isinstance(url, str) or not _HTTPS.fullmatch(url):
            problems.append(f"source {item!r} is no defined key or https URL")
    return problems


@pytest.mark.parametrize("name", _with_gaps_marked(CARDS))
def test_every_card_of_issue_12_has_a_complete_sourced_row(name: str) -> None:
    problems = _missing(name)
    spec = gpu_spec(name)
    if spec is not None:
        problems += _source_problems(spec.name)
    assert not problems, f"{name}: missing or wrong: {', '.join(problems)}"


def test_the_card_list_names_each_card_once() -> None:
    specs = [gpu_spec(name) for name in CARDS]
    found = [s.name for s in specs if s is not None]
    assert len(found) == len(set(found))  # no two spellings of the list land on one row


def test_amd_consumer_rows_follow_their_architecture() -> None:
    """RDNA2 has no BF16 rate; its FP16 is 2 x and INT8 4 x FP32. RDNA3 WMMA runs FP16, BF16
    and INT8 at 2 x the dual-issue FP32; RDNA4 FP16/BF16 at 4 x and INT8 at 8 x."""
    ratios = {"RDNA2": (2.0, None, 4.0), "RDNA3": (2.0, 2.0, 2.0), "RDNA4": (4.0, 4.0, 8.0)}
    for name in AMD_CONSUMER:
        spec = gpu_spec(name)
        assert spec is not None and spec.architecture in ratios, name
        if spec.fp32_tflops is None:
            continue  # reported by the completeness test
        fp16, bf16, int8 = ratios[spec.architecture]
        for figure, ratio in (("fp16_tflops", fp16), ("bf16_tflops", bf16), ("int8_tops", int8)):
            value = getattr(spec, figure)
            if ratio is None:
                assert value is None and "bf16" in spec.unsupported_formats, name
            elif value is not None:
                assert value == pytest.approx(ratio * spec.fp32_tflops, rel=0.01), (name, figure)


def test_rx_6700_xt_is_complete_now() -> None:
    spec = gpu_spec("AMD Radeon RX 6700 XT")
    assert spec is not None
    assert (spec.fp32_tflops, spec.fp16_tflops, spec.memory_bandwidth_gb_s) == (13.21, 26.43, 384)
    assert (spec.tdp_w, spec.launch_price_usd, spec.launch_date) == (230, 479, "2021-03-18")
    assert spec.bf16_tflops is None and spec.unsupported_formats == ("bf16",)
    assert spec.confidence("int8_tops") == "derived" and "v_dot4_i32_i8" in spec.notes


def test_9060_xt_variants_are_told_apart_by_name_and_vram() -> None:
    eight, sixteen = gpu_spec("AMD Radeon RX 9060 XT 8GB"), gpu_spec("RX 9060 XT 16 GB")
    assert eight is not None and sixteen is not None and eight is not sixteen
    assert (eight.vram_gib, sixteen.vram_gib) == (8.0, 16.0)
    assert gpu_spec("AMD Radeon RX 9060 XT") is None  # the name alone does not decide
    assert gpu_spec("AMD Radeon RX 9060 XT", vendor_id="0x1002", device_id="0x7590",
                    vram_bytes=16 << 30) is sixteen


# ----------------------------------------------------------------------------- the loader


def _row(name: str, **extra: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "name": name, "vendor": "AMD", "aliases": [], "vram_gib": 16, "fp32_tflops": 20.0,
        "field_confidence": {"vram_gib": "primary", "fp32_tflops": "derived"},
        "sources": ["main_src"], "tags": ["consumer"]}
    row.update(extra)
    return row


def _main(*rows: dict[str, Any]) -> dict[str, Any]:
    return {"sources": {"main_src": {"url": "https://example.com/main", "label": "main"}},
            "gpu": list(rows) or [_row("AMD Radeon RX Test")]}


@pytest.mark.parametrize("date", ["2022-10-12", "2022-10", "2024-02-29"])
def test_launch_date_accepts_a_day_or_a_month(date: str) -> None:
    (spec,) = parse_spec_table(_main(_row("Card A", launch_date=date)))
    assert spec.launch_date == date


@pytest.mark.parametrize("date", ["2022-13", "2022-02-30", "2023-02-29", "Oct 2022", "2022",
                                  "2022-1-5", 2022])
def test_launch_date_rejects_what_is_no_date(date: Any) -> None:
    with pytest.raises(SpecTableError, match="launch_date"):
        parse_spec_table(_main(_row("Card A", launch_date=date)))


def test_launch_date_rejects_a_toml_date_value() -> None:
    doc = tomllib.loads('[[gpu]]\nname = "x"\nlaunch_date = 2022-10-12\n')
    row = _row("Card A", launch_date=doc["gpu"][0]["launch_date"])
    with pytest.raises(SpecTableError, match="launch_date"):
        parse_spec_table(_main(row))


def test_unsupported_formats_are_exposed() -> None:
    (spec,) = parse_spec_table(_main(_row(
        "Card A", unsupported=["bf16", "int8"], notes="No BF16 or INT8 rate.")))
    assert spec.unsupported_formats == ("bf16", "int8")
    assert spec.bf16_tflops is None and spec.int8_tops is None
    (plain,) = parse_spec_table(_main(_row("Card B")))
    assert plain.unsupported_formats == ()


@pytest.mark.parametrize(("extra", "message"), [
    ({"unsupported": ["fp8"], "notes": "x"}, "may only list"),
    ({"unsupported": ["bf16"]}, "need notes"),
    ({"unsupported": ["bf16", "bf16"], "notes": "x"}, "twice"),
    ({"unsupported": "bf16", "notes": "x"}, "list of strings"),
    ({"unsupported": ["bf16"], "notes": "x", "bf16_tflops": 40.0,
      "field_confidence": {"vram_gib": "primary", "fp32_tflops": "derived",
                           "bf16_tflops": "derived"}}, "unsupported but bf16_tflops is given"),
])
def test_malformed_unsupported_is_rejected(extra: dict[str, Any], message: str) -> None:
    with pytest.raises(SpecTableError, match=message):
        parse_spec_table(_main(_row("Card A", **extra)))


def test_a_yuan_price_is_a_figure_with_a_confidence() -> None:
    (spec,) = parse_spec_table(_main(_row(
        "Card A", launch_price_cny=12999, tags=["consumer", "china"],
        field_confidence={"vram_gib": "primary", "fp32_tflops": "derived",
                          "launch_price_cny": "secondary"})))
    assert (spec.launch_price_cny, spec.launch_price_usd) == (12999, None)
    assert spec.confidence("launch_price_cny") == "secondary"
    (plain,) = parse_spec_table(_main(_row("Card B")))
    assert plain.launch_price_cny is None and plain.no_list_price is None


@pytest.mark.parametrize(("extra", "message"), [
    ({"launch_price_cny": 12999}, "field_confidence must cover"),
    ({"launch_price_cny": 12999.5, "field_confidence": {
        "vram_gib": "primary", "fp32_tflops": "derived", "launch_price_cny": "secondary"}},
     "launch_price_cny must be an integer"),
    ({"launch_price_cny": 5, "field_confidence": {
        "vram_gib": "primary", "fp32_tflops": "derived", "launch_price_cny": "secondary"}},
     "outside"),
])
def test_a_malformed_yuan_price_is_rejected(extra: dict[str, Any], message: str) -> None:
    with pytest.raises(SpecTableError, match=message):
        parse_spec_table(_main(_row("Card A", **extra)))


def test_no_list_price_says_why_a_card_has_no_price() -> None:
    (spec,) = parse_spec_table(_main(_row(
        "Card A", no_list_price="  Sold to OEMs only; no list price was published.  ")))
    assert spec.no_list_price == "Sold to OEMs only; no list price was published."
    assert spec.launch_price_usd is None and spec.launch_price_cny is None


@pytest.mark.parametrize(("extra", "message"), [
    ({"no_list_price": ""}, "non-empty string"),
    ({"no_list_price": "   "}, "non-empty string"),
    ({"no_list_price": ["no price"]}, "non-empty string"),
    ({"no_list_price": "none", "launch_price_usd": 999, "field_confidence": {
        "vram_gib": "primary", "fp32_tflops": "derived", "launch_price_usd": "secondary"}},
     "contradicts launch_price_usd"),
    ({"no_list_price": "none", "launch_price_cny": 9999, "field_confidence": {
        "vram_gib": "primary", "fp32_tflops": "derived", "launch_price_cny": "secondary"}},
     "contradicts launch_price_cny"),
])
def test_a_malformed_no_list_price_is_rejected(extra: dict[str, Any], message: str) -> None:
    with pytest.raises(SpecTableError, match=message):
        parse_spec_table(_main(_row("Card A", **extra)))


def _price_check(**extra: Any) -> list[str]:
    (spec,) = parse_spec_table(_main(_row("Card A", **extra)))
    return _price_problems(spec)


def test_the_completeness_check_takes_yuan_only_for_china_market_cards() -> None:
    cny = {"launch_price_cny": 12999, "field_confidence": {
        "vram_gib": "primary", "fp32_tflops": "derived", "launch_price_cny": "secondary"}}
    assert _price_check(tags=["consumer", "china"], **cny) == []
    assert _price_check(**cny) == ["launch_price_usd"]  # a yuan price alone elsewhere: missing
    assert _price_check(tags=["consumer", "china"]) == ["launch_price_usd or launch_price_cny"]
    assert _price_check() == ["launch_price_usd"]
    assert _price_check(no_list_price="No list price was published.") == []


def test_china_market_and_unpriced_rows_of_the_table() -> None:
    rtx4090d = gpu_spec("RTX 4090 D")
    assert rtx4090d is not None and CHINA_TAG in rtx4090d.tags
    assert (rtx4090d.launch_price_usd, rtx4090d.launch_price_cny) == (None, 12999)
    assert any("hardwaretimes" in src.url for src in rtx4090d.sources)
    for name in ("Instinct MI50 16GB", "Instinct MI50 32GB", "Instinct MI60"):
        spec = gpu_spec(name)
        assert spec is not None and spec.no_list_price, name
        assert "not announced" in spec.no_list_price and "No launch price" in spec.notes, name
    for spec in all_specs():  # a statement that there is no price never sits beside one
        assert not (spec.no_list_price and (spec.launch_price_usd or spec.launch_price_cny))
        if spec.launch_price_cny is not None:
            assert CHINA_TAG in spec.tags, spec.name


def _other(*rows: dict[str, Any], sources: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"sources": sources if sources is not None else
            {"own_src": {"url": "https://example.com/own", "label": "own"}},
            "gpu": list(rows)}


def test_two_files_cite_their_own_and_the_main_sources() -> None:
    specs = parse_spec_tables([
        ("gpu_specs.toml", _main(_row("Card A"))),
        ("gpu_specs_extra.toml", _other(_row("Card B", sources=["own_src", "main_src"]))),
    ])
    assert [s.name for s in specs] == ["Card A", "Card B"]
    assert [src.url for src in specs[1].sources] == ["https://example.com/own",
                                                     "https://example.com/main"]


def test_a_main_source_cited_only_by_another_file_counts_as_used() -> None:
    main = _main(_row("Card A"))
    main["sources"]["shared"] = {"url": "https://example.com/shared", "label": "shared"}
    specs = parse_spec_tables([
        ("gpu_specs.toml", main),
        ("gpu_specs_extra.toml", _other(_row("Card B", sources=["shared", "own_src"]))),
    ])
    assert specs[1].sources[0].url == "https://example.com/shared"


def test_a_source_key_with_two_urls_is_rejected() -> None:
    clash = {"main_src": {"url": "https://example.com/elsewhere", "label": "main"}}
    with pytest.raises(SpecTableError, match=r"main_src.*elsewhere"):
        parse_spec_tables([("gpu_specs.toml", _main(_row("Card A"))),
                           ("gpu_specs_extra.toml", _other(_row("Card B"), sources=clash))])


def test_a_source_key_redefined_with_the_same_url_is_fine() -> None:
    same = {"main_src": {"url": "https://example.com/main", "label": "main, again"}}
    specs = parse_spec_tables([("gpu_specs.toml", _main(_row("Card A"))),
                               ("gpu_specs_extra.toml", _other(_row("Card B"), sources=same))])
    assert specs[1].sources[0].label == "main, again"


def test_an_unused_source_of_another_file_is_rejected() -> None:
    with pytest.raises(SpecTableError, match=r"gpu_specs_extra\.toml.*no row cites.*own_src"):
        parse_spec_tables([("gpu_specs.toml", _main(_row("Card A"))),
                           ("gpu_specs_extra.toml", _other(_row("Card B")))])


def test_a_file_cannot_cite_another_non_main_files_source() -> None:
    with pytest.raises(SpecTableError, match=r"neither a \[sources\] key"):
        parse_spec_tables([
            ("gpu_specs.toml", _main(_row("Card A"))),
            ("gpu_specs_a.toml", _other(_row("Card B", sources=["own_src"]))),
            ("gpu_specs_b.toml", _other(_row("Card C", sources=["own_src"]), sources={})),
        ])


def test_a_card_defined_in_two_files_is_rejected() -> None:
    both = r"Card A is defined in both gpu_specs\.toml and gpu_specs_extra\.toml"
    with pytest.raises(SpecTableError, match=both):
        parse_spec_tables([
            ("gpu_specs.toml", _main(_row("Card A"))),
            ("gpu_specs_extra.toml", _other(_row("Card A", sources=["own_src"]))),
        ])


def test_a_spelling_two_files_claim_is_rejected() -> None:
    with pytest.raises(SpecTableError, match="would match Card A and Card B"):
        parse_spec_tables([
            ("gpu_specs.toml", _main(_row("Card A", aliases=["Card X"]))),
            ("gpu_specs_extra.toml", _other(_row("Card B", aliases=["Card X"],
                                                 sources=["own_src"]))),
        ])


def test_a_file_without_rows_is_rejected() -> None:
    with pytest.raises(SpecTableError, match=r"gpu_specs_extra\.toml: no \[\[gpu\]\] rows"):
        parse_spec_tables([("gpu_specs.toml", _main()), ("gpu_specs_extra.toml", {"gpu": []})])


def test_the_packaged_tables_are_all_read() -> None:
    names = resource_names()
    assert names[0] == RESOURCE
    assert all(re.fullmatch(r"gpu_specs(_[a-z0-9_]+)?\.toml", n) for n in names)
    rows = {row["name"] for doc in _raw_files().values() for row in doc["gpu"]}
    assert rows == {s.name for s in all_specs()}

