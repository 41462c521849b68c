"""resources/rocm_support.toml and official_support."""

from __future__ import annotations

import importlib.resources
import sys
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpuscope.knowledge.rocm_support import (
    LISTS,
    RocmTableError,
    known_rocm_releases,
    normalise_gfx,
    official_support,
    parse_support_table,
    support_table,
    version_key,
)
from gpuscope.knowledge.sources import has_internal_marks

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def raw_table() -> dict[str, Any]:
    resource = importlib.resources.files("gpuscope.resources").joinpath("rocm_support.toml")
    with resource.open("rb") as handle:
        return tomllib.load(handle)


# ----------------------------------------------------------------------------- the table


def test_table_has_every_release_amd_lists() -> None:
    # AMD's Linux lists: 5.0 to 5.6 (one list each, all alike), 5.7, 6.0, 6.1, 6.2, 6.3,
    # 6.4.0, 6.4.1+, 7.0.x, 7.1–7.2.
    assert known_rocm_releases("linux") == (
        "5.0", "5.1", "5.2", "5.3", "5.4", "5.5", "5.6",
        "5.7", "6.0", "6.1", "6.2", "6.3", "6.4.0", "6.4.1", "7.0", "7.1", "7.2")
    # AMD's Windows lists: 5.7, 6.0 (6.0.2), 6.1–6.2, 6.4.2, 7.2.
    assert known_rocm_releases("windows") == (
        "5.7", "6.0.0", "6.0.2", "6.1", "6.2", "6.4.2", "7.2")
    assert known_rocm_releases("Linux") == known_rocm_releases("linux")
    assert known_rocm_releases("darwin") == ()


def test_every_release_row_is_sourced_and_typed() -> None:
    doc = raw_table()
    assert doc["schema_version"] == 1
    for os_name, body in doc["os"].items():
        assert os_name in ("linux", "windows")
        assert body["source"] and "facts.md" not in body["source"]
        for row in body["release"]:
            assert isinstance(row["version"], str) and version_key(row["version"])
            assert "[" in row["source"] and "facts.md" not in row["source"], row["version"]
            # Users are pointed to AMD's public page of that release's list.
            assert row["url"].startswith("https://rocm.docs.amd.com/"), row["version"]
            for level in LISTS:
                assert isinstance(row[level], list), (row["version"], level)
                for target in row[level]:
                    assert normalise_gfx(target) == target, target
            for target, note in row.get("target_notes", {}).items():
                assert normalise_gfx(target) == target and note
                assert not has_internal_marks(note), note


def test_aggregate_lists_match_the_compatibility_matrix() -> None:
    """AMD's list folded per LLVM target."""
    linux = {r.version: r for r in support_table()["linux"].releases}

    def supported(version: str) -> set[str]:
        return {t for t, level in linux[version].levels.items() if level == "supported"}

    five = {"gfx1100", "gfx1030", "gfx942", "gfx90a", "gfx908"}
    for version in ("6.0", "6.1", "6.2", "6.3", "6.4.0"):
        assert supported(version) == five, version
    assert supported("6.4.1") == five | {"gfx1201", "gfx1200", "gfx1101"}
    nine = five | {"gfx950", "gfx1201", "gfx1200", "gfx1101"}
    for version in ("7.0", "7.1", "7.2"):
        assert supported(version) == nine, version


@pytest.mark.parametrize(("doc", "message"), [
    ({}, "no \\[os"),
    ({"os": {"macos": {}}}, "unknown OS"),
    ({"os": {"linux": {"source": "s", "release": []}}}, "no \\[\\[release"),
    ({"os": {"linux": {"source": "s", "release": [
        {"version": "6.0", "source": "s", "supported": ["gfx1100"], "deprecated": [],
         "listed": [], "runtime_only": [], "uncertain": [], "unsupported": ["gfx1100"]}]}}},
     "is in supported and unsupported"),
    ({"os": {"linux": {"source": "s", "release": [
        {"version": "6.0", "source": "s", "supported": ["RX 7900"], "deprecated": [],
         "listed": [], "runtime_only": [], "uncertain": [], "unsupported": []}]}}},
     "not a gfx target"),
    ({"os": {"linux": {"source": "s", "release": [
        {"version": "6.1", "source": "s", "supported": [], "deprecated": [], "listed": [],
         "runtime_only": [], "uncertain": [], "unsupported": []},
        {"version": "6.0", "source": "s", "supported": [], "deprecated": [], "listed": [],
         "runtime_only": [], "uncertain": [], "unsupported": []}]}}}, "ascending"),
    ({"os": {"linux": {"source": "s", "release": [
        {"version": "6.0", "supported": [], "deprecated": [], "listed": [],
         "runtime_only": [], "uncertain": [], "unsupported": []}]}}}, "source"),
])
def test_malformed_tables_are_rejected(doc: dict[str, Any], message: str) -> None:
    with pytest.raises(RocmTableError, match=message):
        parse_support_table(doc)


# ----------------------------------------------------------------------------- Linux verdicts


@pytest.mark.parametrize("version", ["6.0", "6.1", "6.2", "6.3.1", "6.4.0", "6.4.3"])
def test_gfx1100_is_supported_on_linux_6x(version: str) -> None:
    verdict = official_support("gfx1100", version, "linux")
    assert verdict.supported is True
    assert verdict.level == "supported"
    assert verdict.first_supported_release == "5.7"
    assert verdict.last_supported_release == "7.2"
    assert "[V]" in verdict.provenance
    assert verdict.source.startswith("https://rocm.docs.amd.com/")


def test_gfx1100_in_57_is_ubuntu_2204_only() -> None:
    verdict = official_support("gfx1100", "5.7.1", "linux")
    assert verdict.supported is True
    assert verdict.release_checked == "5.7"
    assert "Ubuntu 22.04 only" in verdict.note


@pytest.mark.parametrize("version", ["5.7", "6.2", "6.4.1", "7.2", None])
def test_gfx1031_is_never_official_on_linux(version: str | None) -> None:
    verdict = official_support("gfx1031", version, "linux")
    assert verdict.supported is False
    assert verdict.first_supported_release is None
    assert verdict.last_supported_release is None
    assert "HSA_OVERRIDE_GFX_VERSION=10.3.0" in verdict.note


def test_gfx1103_not_on_linux_57() -> None:
    verdict = official_support("gfx1103", "5.7", "linux")
    assert verdict.supported is False
    assert verdict.release_checked == "5.7"
    assert "780M" in verdict.note


def test_gfx1201_from_641() -> None:
    assert official_support("gfx1201", "6.4.0", "linux").supported is False
    verdict = official_support("gfx1201", "6.4.1", "linux")
    assert verdict.supported is True
    assert verdict.first_supported_release == "6.4.1"
    assert "Ubuntu 24.04.2" in verdict.note  # OS-gated from 6.4.1 (footnote of AMD's list)
    assert official_support("gfx1201", "6.3", "linux").supported is False


def test_gfx906_deprecated_then_dropped_in_640() -> None:
    assert official_support("gfx906", "5.7", "linux").level == "supported"
    deprecated = official_support("gfx906", "6.1", "linux")
    assert (deprecated.supported, deprecated.level) == (True, "deprecated")
    uncertain = official_support("gfx906", "6.3", "linux")
    assert uncertain.supported is None and uncertain.level == "uncertain"
    dropped = official_support("gfx906", "6.4.0", "linux")
    assert (dropped.supported, dropped.level) == (False, "unsupported")
    assert dropped.last_supported_release == "6.2"
    assert "listed as unsupported" in dropped.note
    # ROCm/ROCm#4625 (corpus 109): 6.4.0's rocBLAS has no gfx906 kernels; the note says so.
    assert "rocBLAS ships no gfx906 kernels" in dropped.note
    assert "rocBLAS ships no" not in official_support("gfx906", "6.4.1", "linux").note


@pytest.mark.parametrize("version", ["5.7", "6.2.4", "7.1.0", None])
def test_rdna1_targets_were_never_listed_on_linux(version: str | None) -> None:
    for target in ("gfx1010", "gfx1012"):
        verdict = official_support(target, version, "linux")
        assert (verdict.supported, verdict.first_supported_release) == (False, None), target
        assert "never been on AMD's Linux list" in verdict.note


def test_gfx942_from_60_and_gfx950_from_70() -> None:
    assert official_support("gfx942", "5.7", "linux").supported is False
    assert official_support("gfx942", "6.0", "linux").supported is True
    assert official_support("gfx950", "6.4.1", "linux").supported is False
    assert official_support("gfx950", "7.0.2", "linux").first_supported_release == "7.0"


def test_gfx1101_rx7700xt_era() -> None:
    assert official_support("gfx1101", "6.4.0", "linux").supported is False
    verdict = official_support("gfx1101", "7.0", "linux")
    assert verdict.supported is True
    assert "RX 7700 XT from 7.0" in verdict.note


def test_consumer_rdna2_note_on_gfx1030() -> None:
    verdict = official_support("gfx1030", "6.2", "linux")
    assert verdict.supported is True
    assert "never been on the official Linux list" in verdict.note


def test_gfx1102_never_on_linux_but_on_windows() -> None:
    assert official_support("gfx1102", "6.2", "linux").supported is False
    windows = official_support("gfx1102", "6.2", "windows")
    assert windows.supported is True
    assert windows.first_supported_release == "5.7"


# ----------------------------------------------------------------------------- Windows verdicts


def test_windows_differs_for_rx6000() -> None:
    # RX 6700 XT: HIP runtime only on Windows; nothing on Linux.
    rt_only = official_support("gfx1031", "6.1", "windows")
    assert (rt_only.supported, rt_only.level) == (False, "runtime_only")
    assert "HIP runtime" in rt_only.note
    # gfx1030 on Windows: listed up to 6.4.2, W6800 unsupported in 7.2.
    assert official_support("gfx1030", "6.4.2", "windows").supported is True
    dropped = official_support("gfx1030", "7.2", "windows")
    assert dropped.supported is False
    assert dropped.last_supported_release == "6.4.2"


def test_windows_gfx1101_from_602() -> None:
    assert official_support("gfx1101", "6.0.0", "windows").supported is False
    assert official_support("gfx1101", "6.0.2", "windows").supported is True


def test_windows_72_is_windows_11_only() -> None:
    verdict = official_support("gfx1100", "7.2", "windows")
    assert verdict.supported is True
    assert "Windows 11 only" in verdict.note


def test_strix_halo_is_listed_on_windows_and_on_the_linux_ryzen_page_of_7_2() -> None:
    windows = official_support("gfx1151", "7.2", "windows")
    assert (windows.supported, windows.level) == (True, "listed")
    linux = official_support("gfx1151", "7.2", "linux")
    assert (linux.supported, linux.level) == (True, "listed")
    assert "native_linux_compatibility" in linux.note
    # Before 7.2 the Ryzen pages could not be read: no claim either way.
    assert official_support("gfx1151", "7.0", "linux").supported is None


def test_windows_release_between_rows_uses_the_newest_older_one() -> None:
    verdict = official_support("gfx1201", "7.0", "windows")
    assert verdict.release_checked == "6.4.2"
    assert verdict.supported is True
    assert "newest older release" in verdict.note


# ----------------------------------------------------------------------------- release picking


def test_no_version_answers_for_the_newest_release() -> None:
    verdict = official_support("gfx1100", None, "linux")
    assert verdict.release_checked == "7.2"
    assert "No ROCm version given" in verdict.note


def test_newer_than_the_table_uses_the_newest_row_and_says_so() -> None:
    verdict = official_support("gfx1100", "7.14", "linux")
    assert verdict.release_checked == "7.2"
    assert "newer than every Linux release" in verdict.note


@pytest.mark.parametrize(("asked", "used"), [
    ("6.4.3", "6.4.1"), ("6.4.0", "6.4.0"), ("6.2.4", "6.2"), ("rocm-6.0.2", "6.0"),
    ("7.2.1", "7.2"), ("6.2.41134-65d174c3e", "6.2"),
])
def test_release_matching(asked: str, used: str) -> None:
    assert official_support("gfx90a", asked, "linux").release_checked == used


def test_older_than_the_table_is_unknown() -> None:
    verdict = official_support("gfx1100", "4.5.2", "linux")
    assert verdict.supported is None
    assert verdict.release_checked is None
    assert "older than every Linux release" in verdict.note


@pytest.mark.parametrize(("target", "supported"), [
    ("gfx90a", True), ("gfx906", True), ("gfx1030", True), ("gfx900", False),
    ("gfx90c", False), ("gfx1100", False),
])
def test_rocm_5_4_lists_cdna_vega20_and_navi21_only(target: str, supported: bool) -> None:
    # docs/release/gpu_os_support.md of ROCm 5.4.3: MI200/MI100/MI50, W6800/V620, (Pro) VII;
    # the RX 7900 came with 5.7, APUs such as the 5600G's gfx90c were never listed.
    verdict = official_support(target, "5.4.3", "linux")
    assert verdict.supported is supported
    assert verdict.release_checked == "5.4"
    assert verdict.source == "https://rocm.docs.amd.com/en/docs-5.4.3/release/gpu_os_support.html"


@pytest.mark.parametrize(("target", "rocm", "os", "why"), [
    ("gfx1100", "6.2", "darwin", "no official support list"),
    ("RX 7900", "6.2", "linux", "not a gfx target"),
    ("gfx1100", "latest", "linux", "Could not read a ROCm version"),
])
def test_unknown_inputs_give_none(target: str, rocm: str, os: str, why: str) -> None:
    verdict = official_support(target, rocm, os)
    assert verdict.supported is None
    assert why in verdict.note


def test_torch_arch_name_form_is_accepted() -> None:
    assert official_support("gfx90a:sramecc+:xnack-", "6.2", "linux").supported is True
    assert official_support("GFX1100", "6.2", "Linux").supported is True


@given(st.text(max_size=30), st.one_of(st.none(), st.text(max_size=30)), st.text(max_size=10))
def test_official_support_never_raises(target: str, rocm: str | None, os: str) -> None:
    verdict = official_support(target, rocm, os)
    assert verdict.supported in (True, False, None)
    assert verdict.note
