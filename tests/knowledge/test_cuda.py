"""resources/cuda_drivers.toml: driver minimums, minor-version compatibility and compute
capabilities, and the arch-list coverage of a CUDA build."""

from __future__ import annotations

import importlib.resources
import sys
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpuscope.knowledge.cuda import (
    CudaTableError,
    arch_list_covers,
    architecture_for_cc,
    cc_info,
    cuda_dropped,
    cuda_table,
    driver_key,
    driver_supports,
    min_driver_for_cuda,
    newest_cuda_for_driver,
    parse_cc,
    parse_cuda_table,
    sm_name,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


URL = "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html"


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
        assert "Table 3" in row["source"]
        assert row["urls"] == ["https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html"]
    for row in doc["minor_compat"]:
        assert all(url.startswith("https://docs.nvidia.com/") for url in row["urls"])
    for row in doc["architecture"]:
        assert row["source"] and "facts.md" not in row["source"]
    table = cuda_table()
    assert len(table.toolkits) == 19 + 22  # 11.0 GA to 11.7 Update 1 added
    assert sorted(table.minor_compat) == [11, 12, 13]
    assert len(table.architectures) == 24


@pytest.mark.parametrize(("patch", "message"), [
    ({"toolkit": [{"version": "12.4", "update": 0, "linux": "550.54.14", "windows": "551.61",
                   "source": "s", "urls": [URL]},
                  {"version": "12.2", "update": 0, "linux": "535.54.03", "windows": "536.25",
                   "source": "s", "urls": [URL]}]}, "ascending"),
    ({"toolkit": [{"version": "12.4", "update": 0, "linux": "550.54.14", "source": "s",
                   "urls": [URL]}]},
     "windows driver or a windows_note"),
    ({"toolkit": [{"version": "12.4", "update": 0, "linux": "new", "windows": "551.61",
                   "source": "s", "urls": [URL]}]}, "bad linux driver"),
    ({"toolkit": [{"version": "12.4", "update": 0, "linux": "550.54.14", "windows": "551.61",
                   "urls": [URL]}]},
     "no source"),
    ({"toolkit": [{"version": "12.4", "update": 0, "linux": "550.54.14", "windows": "551.61",
                   "source": "s"}]}, "urls"),
    ({"toolkit": [{"version": "12.4", "update": 0, "linux": "550.54.14", "windows": "551.61",
                   "source": "s", "urls": ["facts.md"]}]}, "urls"),
    ({"toolkit": [{"version": "12.4", "update": 0, "linux": "560.0", "windows": "551.61",
                   "source": "s", "urls": [URL]},
                  {"version": "12.4", "update": 1, "linux": "550.54.15", "windows": "551.78",
                   "source": "s", "urls": [URL]}]}, "older than"),
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
    ("11.0", "linux", "450.51.05", "11.0 GA"),
    ("11.3", "linux", "465.19.01", "11.3 GA"),
    ("11.4.4", "windows", "472.50", "11.4 Update 4"),
    ("11.7.1", "linux", "515.48.07", "11.7 Update 1"),
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
    assert r11 is not None and r11.minor_compat_min == "450.80.02"
    assert "https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html" \
        in r11.urls
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
    doc = raw_table()
    doc["toolkit"] = [row for row in doc["toolkit"] if row["version"] != "11.7"]
    table = parse_cuda_table(doc)
    assert all(t.version != "11.7" for t in table.toolkits)
    requirement = min_driver_for_cuda("11.9")  # no such release: no row
    assert requirement is not None
    assert requirement.min_driver is None
    assert requirement.minor_compat_min == "450.80.02"
    assert min_driver_for_cuda("11.9", "windows") is None
    assert min_driver_for_cuda("10.2") is None
    assert min_driver_for_cuda("12.8", "macos") is None
    assert min_driver_for_cuda("twelve") is None


# ----------------------------------------------------------------------------- verdicts


@pytest.mark.parametrize("cuda", ["11.0", "11.1", "11.2", "11.3", "11.4", "11.5", "11.6",
                                  "11.7", "11.3.1", "11.7.99", "10.2", "9.0"])
def test_driver_550_runs_every_older_cuda(cuda: str) -> None:
    """Regression: "NVIDIA driver 550.54.14 is older than CUDA 11.3" was a false warning (the
    table started at 11.8, so 11.0-11.7 fell into the minor-compatibility branch)."""
    verdict = driver_supports("550.54.14", cuda)
    assert verdict.status == "ok", verdict.note
    assert driver_supports("551.61", cuda, "windows").status == "ok"


def test_an_old_driver_is_still_too_old_for_cuda_11() -> None:
    assert driver_supports("450.36.06", "11.3").status == "too_old"
    assert driver_supports("460.27.03", "11.3").status == "minor_compat"  # 450.80.02 on
    assert driver_supports("470.42.01", "11.4").status == "ok"
    assert driver_supports("470.42.01", "11.4.1").status == "minor_compat"  # U1: 470.57.02


def test_newest_cuda_for_a_driver() -> None:
    assert newest_cuda_for_driver("550.54.14") == "12.4"
    assert newest_cuda_for_driver("580.65.06") == "13.0"
    assert newest_cuda_for_driver("551.61", "windows") == "12.4"
    assert newest_cuda_for_driver("400.1") is None
    assert newest_cuda_for_driver("not a driver") is None


@pytest.mark.parametrize(("arch", "cc", "coverage"), [
    (("sm_37", "sm_50", "sm_60", "sm_70"), "8.9", "none"),  # the RTX 4090 regression
    (("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"), "8.9", "cubin"),
    (("sm_80",), "8.6", "cubin"),
    (("sm_86",), "8.0", "none"),  # a cubin never runs on a lower minor
    (("sm_90a",), "9.0", "cubin"),
    (("sm_90a",), "10.0", "none"),  # arch-specific cubins run on their own capability only
    (("sm_70", "compute_70"), "8.9", "ptx"),
    (("sm_120", "compute_120"), "12.1", "cubin"),
    (("compute_90",), "8.9", "none"),  # PTX never runs on an older GPU
    (("sm_100",), "12.0", "none"),  # another major: no
    ((), "8.9", "unknown"),
    (("sm_86",), "nonsense", "unknown"),
    (("gfx1100", "", "sm_"), "8.9", "none"),
])
def test_arch_list_coverage(arch: tuple[str, ...], cc: str, coverage: str) -> None:
    assert arch_list_covers(arch, cc) == coverage


@given(st.lists(st.text(max_size=12), max_size=6), st.text(max_size=12))
def test_arch_list_coverage_never_raises(arch: list[str], cc: str) -> None:
    assert arch_list_covers(arch, cc) in ("cubin", "ptx", "none", "unknown")


def test_driver_550_runs_cu128_through_minor_compat() -> None:
    """torch 2.7.1+cu128 ran on driver 550.127: warn, do not fail."""
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
    ("515.65.01", "11.7", "linux", "ok"),  # 11.7 GA needs 515.43.04
    ("515.43.04", "11.7.1", "linux", "minor_compat"),  # Update 1 needs 515.48.07
    ("not-a-driver", "12.8", "linux", "unknown"),
    ("550.127", "10.2", "linux", "ok"),  # no row, but it fully runs the newer 12.4
    ("400.1", "10.2", "linux", "unknown"),
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
    assert architecture_for_cc("2.0") is None  # Fermi is not in the table
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


def test_which_gpus_have_a_gsp() -> None:
    # the open kernel modules' README: Turing and later (its table starts at 1E02, TITAN RTX)
    from gpuscope.knowledge.cuda import has_gsp, kernel_module_urls

    assert [has_gsp(i) for i in ("0x1e02", "1E04", "0x2331", "0x2c58")] == [True] * 4
    assert [has_gsp(i) for i in ("0x139a", "0x1b82", "0x1d01", "0x1db1")] == [False] * 4
    assert [has_gsp(i) for i in (None, "", "0x12", "GPU-1234", "0x1e02 ")] == [
        None, None, None, None, True]
    assert all(url.startswith("https://") for url in kernel_module_urls())
