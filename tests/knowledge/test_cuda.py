"""resources/cuda_drivers.toml: driver minimums, minor-version compatibility and compute
capabilities (facts.md §2.7, §2.8)."""

from __future__ import annotations

import importlib.resources
import sys
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpuscope.knowledge.cuda import (
    CudaTableError,
    architecture_for_cc,
    cc_info,
    cuda_dropped,
    cuda_table,
    driver_key,
    driver_supports,
    min_driver_for_cuda,
    parse_cc,
    parse_cuda_table,
    sm_name,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def raw_table() -> dict[str, Any]:
    resource = importlib.resources.files("gpuscope.resources").joinpath("cuda_drivers.toml")
    with resource.open("rb") as handle:
        return tomllib.load(handle)


# ----------------------------------------------------------------------------- the table


def test_table_validation() -> None:
    doc = raw_table()
    assert doc["schema_version"] == 1
    for row in doc["toolkit"]:
        assert isinstance(row["version"], str) and isinstance(row["update"], int)
        assert driver_key(row["linux"]) is not None
        assert "windows" in row or row["windows_note"]
        assert "facts.md §2.7" in row["source"] and "[S-of-official]" in row["source"]
    for row in doc["minor_compat"] + doc["architecture"]:
        assert "facts.md §2." in row["source"]
    table = cuda_table()
    assert len(table.toolkits) == 19
    assert sorted(table.minor_compat) == [11, 12, 13]
    assert len(table.architectures) == 24


@pytest.mark.parametrize(("patch", "message"), [
    ({"toolkit": [{"version": "12.4", "update": 0, "linux": "550.54.14", "windows": "551.61",
                   "source": "s"},
                  {"version": "12.2", "update": 0, "linux": "535.54.03", "windows": "536.25",
                   "source": "s"}]}, "ascending"),
    ({"toolkit": [{"version": "12.4", "update": 0, "linux": "550.54.14", "source": "s"}]},
     "windows driver or a windows_note"),
    ({"toolkit": [{"version": "12.4", "update": 0, "linux": "new", "windows": "551.61",
                   "source": "s"}]}, "bad linux driver"),
    ({"toolkit": [{"version": "12.4", "update": 0, "linux": "550.54.14", "windows": "551.61"}]},
     "no source"),
    ({"toolkit": [{"version": "12.4", "update": 0, "linux": "560.0", "windows": "551.61",
                   "source": "s"},
                  {"version": "12.4", "update": 1, "linux": "550.54.15", "windows": "551.78",
                   "source": "s"}]}, "older than"),
    ({"architecture": [{"name": "Ada", "cc": ["8.9"], "source": "s"},
                       {"name": "Ada again", "cc": ["8.9"], "source": "s"}]}, "in two rows"),
    ({"minor_compat": [{"major": 12, "linux": "x", "source": "s"}]}, "minor_compat"),
])
def test_malformed_tables_are_rejected(patch: dict[str, Any], message: str) -> None:
    doc = raw_table()
    doc.update(patch)
    with pytest.raises(CudaTableError, match=message):
        parse_cuda_table(doc)


# ----------------------------------------------------------------------------- minimums


@pytest.mark.parametrize(("cuda", "os", "driver", "row"), [
    ("11.8", "linux", "520.61.05", "11.8 GA"),
    ("11.8", "windows", "520.06", "11.8 GA"),
    ("12.0", "linux", "525.60.13", "12.0 GA"),
    ("12.4.1", "linux", "550.54.15", "12.4 Update 1"),
    ("12.4.1", "windows", "551.78", "12.4 Update 1"),
    ("12.6", "linux", "560.28.03", "12.6 GA"),
    ("12.6.3", "linux", "560.35.05", "12.6 Update 3"),
    ("cu128", "linux", "570.26", "12.8 GA"),
    ("12.8.1", "linux", "570.124.06", "12.8 Update 1"),
    ("12.9", "windows", "576.02", "12.9 GA"),
    ("13.0.2", "linux", "580.95.05", "13.0 Update 2"),
    ("13.2", "linux", "595.45.04", "13.2 GA"),
])
def test_minimum_drivers(cuda: str, os: str, driver: str, row: str) -> None:
    requirement = min_driver_for_cuda(cuda, os)
    assert requirement is not None
    assert (requirement.min_driver, requirement.row, requirement.exact) == (driver, row, True)
    assert "Table 3" in requirement.source


def test_minor_compat_minimums_are_linux_only() -> None:
    linux = min_driver_for_cuda("12.8")
    windows = min_driver_for_cuda("12.8", "windows")
    assert linux is not None and windows is not None
    assert linux.minor_compat_min == "525"
    assert windows.minor_compat_min is None
    r11 = min_driver_for_cuda("11.8")
    r13 = min_driver_for_cuda("13.1")
    assert r11 is not None and r11.minor_compat_min == "450"
    assert r13 is not None and r13.minor_compat_min == "580"


def test_cuda13_has_no_windows_driver_figure() -> None:
    requirement = min_driver_for_cuda("13.0", "windows")
    assert requirement is not None
    assert requirement.min_driver is None
    assert "no longer bundles a Windows driver" in requirement.note
    verdict = driver_supports("581.15", "13.0", "windows")
    assert verdict.status == "unknown"


def test_update_between_rows_uses_the_older_row_and_says_so() -> None:
    requirement = min_driver_for_cuda("12.6.2")
    assert requirement is not None
    assert (requirement.min_driver, requirement.exact) == ("560.28.03", False)
    assert "later update may need a newer driver" in requirement.note


def test_release_without_a_row_still_gets_minor_compat() -> None:
    requirement = min_driver_for_cuda("11.7")  # torch 2.0's cu117
    assert requirement is not None
    assert requirement.min_driver is None
    assert requirement.minor_compat_min == "450"
    assert min_driver_for_cuda("11.7", "windows") is None
    assert min_driver_for_cuda("10.2") is None
    assert min_driver_for_cuda("12.8", "macos") is None
    assert min_driver_for_cuda("twelve") is None


# ----------------------------------------------------------------------------- verdicts


def test_driver_550_runs_cu128_through_minor_compat() -> None:
    """facts.md §2.7: torch 2.7.1+cu128 ran on driver 550.127: warn, do not fail."""
    verdict = driver_supports("550.127", "12.8")
    assert verdict.status == "minor_compat"
    assert "minor-version compatibility" in verdict.note
    assert "570.26" in verdict.note


@pytest.mark.parametrize(("driver", "cuda", "os", "status"), [
    ("570.124.06", "12.8.1", "linux", "ok"),
    ("570.133.07", "12.8", "linux", "ok"),
    ("570.26", "12.8.1", "linux", "minor_compat"),
    ("525.60.13", "12.9", "linux", "minor_compat"),
    ("520.61.05", "12.0", "linux", "too_old"),
    ("450.80.02", "11.8", "linux", "minor_compat"),
    ("440.33.01", "11.8", "linux", "too_old"),
    ("575.57.08", "13.0", "linux", "too_old"),  # 13.x needs 580 even with minor compat
    ("580.65.06", "13.1", "linux", "minor_compat"),
    ("590.44.01", "13.1", "linux", "ok"),
    ("551.61", "12.4", "windows", "ok"),
    ("531.14", "12.4", "windows", "too_old"),  # no minor-compat figure for Windows
    ("515.65.01", "11.7", "linux", "minor_compat"),  # no full figure for 11.7 in the table
    ("not-a-driver", "12.8", "linux", "unknown"),
    ("550.127", "10.2", "linux", "unknown"),
])
def test_driver_verdicts(driver: str, cuda: str, os: str, status: str) -> None:
    verdict = driver_supports(driver, cuda, os)
    assert verdict.status == status, verdict.note
    assert verdict.note


@given(st.text(max_size=20), st.text(max_size=20), st.sampled_from(["linux", "windows", "x"]))
def test_driver_checks_never_raise(driver: str, cuda: str, os: str) -> None:
    verdict = driver_supports(driver, cuda, os)
    assert verdict.status in ("ok", "minor_compat", "too_old", "unknown")


# ----------------------------------------------------------------------------- capabilities


@pytest.mark.parametrize(("cc", "arch", "sm"), [
    ("3.7", "Kepler", "sm_37"), ("5.2", "Maxwell", "sm_52"), ("6.1", "Pascal", "sm_61"),
    ("7.0", "Volta", "sm_70"), ("7.5", "Turing", "sm_75"), ("8.6", "Ampere", "sm_86"),
    ("8.9", "Ada Lovelace", "sm_89"), ("9.0", "Hopper", "sm_90"), ("10.0", "Blackwell", "sm_100"),
    ("12.0", "Blackwell", "sm_120"), ("11.0", "Blackwell", "sm_110"),
])
def test_architecture_and_sm_names(cc: str, arch: str, sm: str) -> None:
    assert architecture_for_cc(cc) == arch
    assert sm_name(cc) == sm
    assert architecture_for_cc(sm) == arch  # "sm_89" works too


def test_blackwell_variants_and_thor_rename() -> None:
    b200 = cc_info("10.0")
    rtx50 = cc_info("sm_120")
    thor = cc_info("10.1")
    assert b200 is not None and b200.variant == "datacenter"
    assert rtx50 is not None and rtx50.variant == "GeForce / workstation"
    assert thor is not None and "renamed it 11.0" in thor.note


@pytest.mark.parametrize(("cc", "dropped"), [
    ("3.0", "11.0"), ("3.5", "12.0"), ("3.7", "12.0"), ("5.0", "13.0"), ("6.1", "13.0"),
    ("7.0", "13.0"), ("7.2", "13.0"), ("7.5", None), ("8.9", None), ("12.0", None),
    ("2.1", None), ("nonsense", None),
])
def test_cuda_dropped(cc: str, dropped: str | None) -> None:
    assert cuda_dropped(cc) == dropped


def test_unknown_capabilities() -> None:
    assert architecture_for_cc("2.0") is None  # Fermi is not in facts.md
    assert sm_name("eight") is None
    assert parse_cc("sm_90a") == (9, 0)
    assert parse_cc("compute_120") == (12, 0)
    assert parse_cc("89") == (8, 9)
    assert parse_cc("8") is None


@given(st.text(max_size=12))
def test_cc_lookups_never_raise(text: str) -> None:
    architecture_for_cc(text)
    sm_name(text)
    cuda_dropped(text)
