"""amdgpu-dkms driver versions and the ROCm release each ships with
(resources/amdgpu_dkms_releases.toml)."""

from __future__ import annotations

import re

import pytest

from gpuscope.knowledge.amdgpu_releases import (
    DriverTableError,
    driver_table,
    parse_driver_table,
    rocm_release_of_driver,
)

INTERNAL = re.compile(r"facts\.md|§|\[[SKVD?]\]|corpus \d")


@pytest.mark.parametrize(("driver", "rocm"), [
    ("5.18.13", "5.4"), ("6.0.5", "5.5"), ("6.2.4", "5.7"), ("6.3.6", "6.0"), ("6.7.0", "6.1"),
    ("6.8.5", "6.2"), ("6.10.5", "6.3"), ("6.12.12", "6.4"), ("6.14.14", "7.0"),
    ("6.16.6", "7.1"), ("6.16.13", "7.2"),
])
def test_each_driver_names_its_release(driver: str, rocm: str) -> None:
    release = rocm_release_of_driver(driver)
    assert release is not None and release.rocm == rocm
    assert release.sources and all(s.startswith("https://") for s in release.sources)
    assert not any(INTERNAL.search(s) for s in release.sources)


def test_the_forms_the_tools_print() -> None:
    # dkms status keeps the build number and distribution; rocminfo and amd-smi do not.
    for text in ("6.12.12-2147987.24.04", "6.12.12", " 6.12.12 "):
        release = rocm_release_of_driver(text)
        assert release is not None and release.rocm == "6.4", text
    assert rocm_release_of_driver("6.14.14-2204008.24.04").driver_release == "30.10"  # type: ignore[union-attr]


@pytest.mark.parametrize("text", [None, "", "6.12", "6.12.13", "5.15.0-91-generic",
                                  "Linuxversion6.17.0-1012-oem", "x" * 100_000, "9" * 5000])
def test_unknown_versions_give_none(text: str | None) -> None:
    assert rocm_release_of_driver(text) is None


def test_the_table_is_well_formed() -> None:
    table = driver_table()
    assert len(table) >= 11
    with pytest.raises(DriverTableError):
        parse_driver_table({"driver": [{"version": "6.12", "rocm": "6.4",
                                        "sources": ["https://a.example"]}]})
    with pytest.raises(DriverTableError):
        parse_driver_table({"driver": [{"version": "6.12.12", "rocm": "6.4.0",
                                        "sources": ["https://a.example"]}]})
    with pytest.raises(DriverTableError):
        parse_driver_table({"driver": [{"version": "6.12.12", "rocm": "6.4",
                                        "sources": ["http://a.example"]}]})
    with pytest.raises(DriverTableError):
        parse_driver_table({})
