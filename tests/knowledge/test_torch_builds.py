"""resources/pytorch_wheels.toml and the torch-build lookups: the table, version parsing (of
any real ROCm, HIP and CUDA version string), arch lists, and install commands."""

from __future__ import annotations

import importlib.resources
import sys
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpuscope.knowledge.torch_builds import (
    TorchTableError,
    default_arch_list,
    index_url,
    install_command,
    known_flavours,
    known_torch_releases,
    normalise_flavour,
    official_wheel_coverage,
    official_wheel_has_target,
    parse_torch_version,
    parse_wheel_table,
    targets_never_in_official_wheels,
    torch_release,
    wheel_table,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

SEVEN = ("gfx900", "gfx906", "gfx908", "gfx90a", "gfx1030", "gfx1100", "gfx942")
ELEVEN = (*SEVEN, "gfx1101", "gfx1102", "gfx1200", "gfx1201")


URL = "https://github.com/pytorch/test-infra"


def raw_table() -> dict[str, Any]:
    resource = importlib.resources.files("gpuscope.resources").joinpath("pytorch_wheels.toml")
    with resource.open("rb") as handle:
        return tomllib.load(handle)


# ----------------------------------------------------------------------------- the table


def test_table_validation() -> None:
    doc = raw_table()
    assert doc["schema_version"] == 1
    for row in doc["release"]:
        assert {"version", "cuda", "rocm", "pypi_default", "python_min", "python_max",
                "source", "urls"} <= set(row), row["version"]
        assert all(isinstance(v, str) for v in row["cuda"] + row["rocm"])
        branch = "2.1" if row["version"] == "2.0" else row["version"]
        assert (f"https://github.com/pytorch/test-infra/blob/release/{branch}/tools/scripts/"
                "generate_binary_build_matrix.py") in row["urls"]
    for row in doc["rocm_arch_list"] + doc["cuda_arch_list"]:
        assert row["urls"] and all(u.startswith("https://") for u in row["urls"])
    table = wheel_table()  # parse_wheel_table's own checks pass on the packaged file
    assert len(table.releases) == 15
    assert table.index_urls and table.never_urls


def test_releases_20_to_214() -> None:
    assert known_torch_releases() == tuple(f"2.{n}" for n in range(15))


@pytest.mark.parametrize(("doc_patch", "message"), [
    ({"index_url": "http://example.org/whl"}, "index_url"),
    ({"release": []}, "no \\[\\[release"),
    ({"release": [{"version": "2.3", "cuda": ["12.1"], "rocm": ["6.0"], "pypi_default": "11.8",
                   "python_min": "3.8", "python_max": "3.11", "source": "s"}]},
     "pypi_default"),
    ({"release": [{"version": "2.3.1", "cuda": ["12.1"], "rocm": ["6.0"],
                   "pypi_default": "12.1", "python_min": "3.8", "python_max": "3.11",
                   "source": "s"}]}, "not major.minor"),
    ({"rocm_arch_list": [{"torch": ["2.3"], "rocm": ["6.0"], "exact": True,
                          "targets": ["gfx1031"], "source": "s", "urls": [URL]}]},
     "never in a wheel"),
    ({"rocm_arch_list": [{"torch": ["2.3"], "rocm": ["6.0"], "exact": True,
                          "targets": ["gfx1030"], "source": "s"}]}, "urls"),
    ({"release": [{"version": "2.3", "cuda": ["12.1"], "rocm": ["6.0"], "pypi_default": "12.1",
                   "python_min": "3.8", "python_max": "3.11", "source": "s",
                   "urls": ["facts.md §2.1"]}]}, "urls"),
    ({"cuda_arch_list": [{"torch": ["2.3"], "cuda": ["12.1"], "source": "s"}]},
     "either sm or min_cc"),
    ({"cuda_arch_list": [{"torch": ["9.9"], "cuda": ["12.1"], "sm": ["8.0"], "source": "s"}]},
     "unknown torch releases"),
])
def test_malformed_tables_are_rejected(doc_patch: dict[str, Any], message: str) -> None:
    doc = raw_table()
    doc.update(doc_patch)
    with pytest.raises(TorchTableError, match=message):
        parse_wheel_table(doc)


# ----------------------------------------------------------------------------- releases


def test_torch_23_rocm_wheels() -> None:
    release = torch_release("2.3.0+rocm6.0")
    assert release is not None
    assert release.version == "2.3"
    assert release.rocm == ("5.7", "6.0")
    assert release.cuda == ("11.8", "12.1")
    assert release.pypi_default_cuda == "12.1"
    assert release.has_wheel("rocm", "6.0")
    assert not release.has_wheel("rocm", "6.1")


@pytest.mark.parametrize(("version", "series", "rocm", "default"), [
    ("2.0.1", "2.0", ("5.4.2",), "11.7"),
    ("2.6.0+rocm6.2.4", "2.6", ("6.1", "6.2.4"), "12.4"),
    ("2.7.1+cu128", "2.7", ("6.2.4", "6.3"), "12.6"),
    ("2.9.0+rocmsdk20251116", "2.9", ("6.3", "6.4"), "12.8"),
    ("2.10.0a0+rocm7.10.0a20251120", "2.10", ("7.0", "7.1"), "12.8"),
    ("2.12.0", "2.12", ("7.1", "7.2"), "13.0"),
    ("2.14.0+cu132", "2.14", ("7.2", "7.14"), "13.0"),
])
def test_release_rows(version: str, series: str, rocm: tuple[str, ...], default: str) -> None:
    release = torch_release(version)
    assert release is not None
    assert (release.version, release.rocm, release.pypi_default_cuda) == (series, rocm, default)


def test_python_ranges_and_uncertain_tags() -> None:
    r29 = torch_release("2.9.0")
    assert r29 is not None and (r29.python_min, r29.python_max) == ("3.10", "3.14")
    r25 = torch_release("2.5.1")
    assert r25 is not None and r25.tags.get("pypi_default") == "?"
    r27 = torch_release("2.7.0")
    assert r27 is not None and r27.cudnn["12.8"] == "9.7.1.26"


@pytest.mark.parametrize("text", ["", "torch", "2", "abc.def", "2.15.0", "1.13.1+cu117"])
def test_unknown_versions_give_none(text: str) -> None:
    assert torch_release(text) is None


# ----------------------------------------------------------------------------- version parsing


@pytest.mark.parametrize(("text", "release", "pre", "build", "build_version", "official"), [
    ("2.3.0+rocm6.0", "2.3", False, "rocm", "6.0", True),
    ("2.10.0a0+rocm7.10.0a20251120", "2.10", True, "rocm", "7.10.0a20251120", False),
    ("2.9.0+rocmsdk20251116", "2.9", False, "rocm", None, False),
    ("2.8.0+cpu", "2.8", False, "cpu", None, True),
    ("2.7.1+cu128", "2.7", False, "cuda", "12.8", True),
    ("2.7.1+cu118", "2.7", False, "cuda", "11.8", True),
    ("2.7.1+cu121", "2.7", False, "cuda", "12.1", False),  # no cu121 wheel for 2.7
    ("2.10.0.dev20251001+rocm7.0", "2.10", True, "rocm", "7.0", False),
    ("2.6.0+rocm6.2.4", "2.6", False, "rocm", "6.2.4", True),
    ("2.5.1", "2.5", False, None, None, False),
    ("2.4.0+git1234abc", "2.4", False, None, None, False),
])
def test_parse_torch_version(text: str, release: str, pre: bool, build: str | None,
                             build_version: str | None, official: bool) -> None:
    parsed = parse_torch_version(text)
    assert parsed is not None
    assert (parsed.release, parsed.prerelease, parsed.build, parsed.build_version) == (
        release, pre, build, build_version)
    assert parsed.official_flavour is official


@given(st.text(max_size=80))
def test_version_parsing_never_raises(text: str) -> None:
    parsed = parse_torch_version(text)
    if parsed is not None:
        assert parsed.release.count(".") == 1
    torch_release(text)
    default_arch_list(text, "rocm", None)
    default_arch_list(text, "cuda", None)
    official_wheel_has_target(text, "rocm", None, "gfx1100")


@given(st.from_regex(
    r"2\.[0-9]{1,2}\.[0-9](a0|rc1|\.dev2025[0-9]{4})?\+(rocm[0-9]\.[0-9](\.[0-9])?|cu1[0-9]{2}|cpu)",
    fullmatch=True))
def test_well_formed_versions_always_parse(text: str) -> None:
    parsed = parse_torch_version(text)
    assert parsed is not None
    assert parsed.build in ("rocm", "cuda", "cpu")


def test_flavour_normalisation() -> None:
    assert normalise_flavour("cuda", "cu128") == "12.8"
    assert normalise_flavour("cuda", "12.8.1") == "12.8"
    assert normalise_flavour("cuda", "12.4.131") == "12.4"
    assert normalise_flavour("rocm", "rocm6.2.4") == "6.2.4"
    assert normalise_flavour("rocm", "6.2.0") == "6.2"
    assert normalise_flavour("rocm", "6.0.2") == "6.0.2"
    assert normalise_flavour("rocm", "6.2.41133-dd7f95766") == "6.2"  # HIP: a build number
    assert normalise_flavour("rocm", "6.0.32830-d62f6a171") == "6.0"  # a hash with an "a"
    assert normalise_flavour("rocm", "7.10.0a20251120") == "7.10"
    assert normalise_flavour("rocm", "seven") is None
    assert normalise_flavour("rocm", None) is None


@given(st.text(max_size=60), st.sampled_from(["rocm", "cuda", "cpu"]))
def test_flavour_lookups_never_raise(text: str, build: str) -> None:
    normalise_flavour(build, text)  # type: ignore[arg-type]
    assert install_command(build, text) is None or "--index-url https://" in str(
        install_command(build, text))
    index_url(build, text)
    official_wheel_coverage("2.7.1", build, text, text)


def test_a_hip_version_resolves_to_the_release_flavour() -> None:
    """torch.version.hip of a 2.6.0+rocm6.2.4 wheel is "6.2.41134-...": the wheel tag wins,
    and without one the release's only 6.2 flavour is meant."""
    assert official_wheel_has_target("2.6.0+rocm6.2.4", "rocm", "6.2.41134-65d174c3e",
                                     "gfx1100") is True
    assert official_wheel_has_target("2.7.1", "rocm", "6.2.41134-65d174c3e",
                                     "gfx1101") is True


# ----------------------------------------------------------------------------- arch lists


def test_rocm_arch_lists_from_facts() -> None:
    assert default_arch_list("2.4.1+rocm6.0", "rocm", None) == SEVEN
    assert default_arch_list("2.5.1", "rocm", "6.2") == SEVEN
    assert default_arch_list("2.7.1+rocm6.2.4", "rocm", None) == ELEVEN
    assert default_arch_list("2.7.1", "rocm", "rocm6.3") == ELEVEN
    assert default_arch_list("2.7.1", "rocm", None) == ELEVEN  # both flavours agree
    assert default_arch_list("2.2.0", "rocm", "5.7") == SEVEN[:-1]  # ROCm 5.x: no gfx942


def test_rocm_arch_lists_that_facts_do_not_give_are_none() -> None:
    assert default_arch_list("2.9.0", "rocm", "6.4") is None  # only "at least" is known
    assert default_arch_list("2.6.0", "rocm", None) is None  # rocm6.1 and rocm6.2.4 differ
    assert default_arch_list("2.10.0a0+rocm7.10.0a20251120", "rocm", None) is None  # AMD build
    assert default_arch_list("2.9.0+rocmsdk20251116", "rocm", None) is None
    assert default_arch_list("2.7.1", "rocm", "6.1") is None  # no such 2.7 wheel
    assert default_arch_list("2.15.0", "rocm", "7.2") is None


def test_cuda_arch_lists_from_facts() -> None:
    assert default_arch_list("2.9.0+cu126", "cuda", None) == (
        "sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90")
    assert default_arch_list("2.10.0", "cuda", "12.8") == (
        "sm_70", "sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120")
    assert default_arch_list("2.11.0", "cuda", "cu128") == (
        "sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120")
    assert default_arch_list("2.12.0", "cuda", "13.0") == (
        "sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120")
    # No flavour: the PyPI default (2.9 -> cu128).
    assert default_arch_list("2.9.0", "cuda", None) == default_arch_list("2.9.0", "cuda", "12.8")
    assert default_arch_list("2.12.0", "cuda", "12.6") is None  # only "5.0 … 9.0" is known
    assert default_arch_list("2.3.0", "cuda", "12.1") is None
    assert default_arch_list("2.8.0+cpu", "cpu", None) == ()
    assert default_arch_list(None, "cuda", None) == default_arch_list("2.14.0", "cuda", "13.0")
    assert default_arch_list("2.9.0", "metal", None) is None


def test_targets_never_in_official_wheels() -> None:
    assert targets_never_in_official_wheels() == ("gfx1031", "gfx1032", "gfx1035")
    for target in targets_never_in_official_wheels():
        assert official_wheel_has_target("2.7.1+rocm6.3", "rocm", None, target) is False
        assert official_wheel_has_target("2.14.0", "rocm", "7.2", target) is False


def test_official_wheel_has_target_rocm() -> None:
    assert official_wheel_has_target("2.5.1+rocm6.2", "rocm", None, "gfx1101") is False
    assert official_wheel_has_target("2.7.1+rocm6.3", "rocm", None, "gfx1101") is True
    assert official_wheel_has_target("2.9.0", "rocm", "6.4", "gfx1100") is True  # at least
    assert official_wheel_has_target("2.9.0", "rocm", "6.4", "gfx1151") is None  # not known
    assert official_wheel_has_target("2.7.1+cpu", "cpu", None, "gfx1100") is False


def test_official_wheel_has_target_cuda() -> None:
    # RTX 4090 (8.9) runs the sm_86 cubin; a GTX 1080 (6.1) has no cubin in cu130 wheels.
    assert official_wheel_has_target("2.9.0+cu130", "cuda", None, "8.9") is True
    assert official_wheel_has_target("2.9.0+cu130", "cuda", None, "6.1") is False
    assert official_wheel_has_target("2.9.0+cu126", "cuda", None, "6.1") is True
    assert official_wheel_has_target("2.11.0+cu128", "cuda", None, "7.0") is False  # Volta
    assert official_wheel_has_target("2.10.0+cu128", "cuda", None, "sm_70") is True
    assert official_wheel_has_target("2.12.0+cu126", "cuda", None, "6.1") is True  # 5.0 … 9.0
    assert official_wheel_has_target("2.12.0+cu126", "cuda", None, "12.0") is False
    assert official_wheel_has_target("2.9.0+cu130", "cuda", None, "nonsense") is None
    # How: a cubin of the same major (8.6 code on 8.9), or only PTX (12.0 PTX on 12.1).
    assert official_wheel_coverage("2.9.0+cu130", "cuda", None, "8.9") == "native"
    assert official_wheel_coverage("2.12.0+cu130", "cuda", None, "13.0") == "ptx"
    assert official_wheel_coverage("2.12.0+cu130", "cuda", None, "6.1") == "none"


# ----------------------------------------------------------------------------- install commands


def test_install_commands() -> None:
    assert install_command("rocm", "6.2") == (
        "python3 -m pip install torch --index-url https://download.pytorch.org/whl/rocm6.2")
    assert install_command("ROCm", "rocm6.2.4", python="/opt/venv/bin/python") == (
        "/opt/venv/bin/python -m pip install torch --index-url "
        "https://download.pytorch.org/whl/rocm6.2.4")
    assert str(install_command("cuda", "12.8")).endswith("/whl/cu128")
    assert str(install_command("cuda", "cu118")).endswith("/whl/cu118")
    assert str(install_command("cpu")).endswith("/whl/cpu")
    assert str(install_command("cuda")).endswith("/whl/cu130")  # 2.14's PyPI default
    assert str(install_command("rocm")).endswith("/whl/rocm7.14")  # 2.14's newest ROCm wheel
    assert install_command("rocm", "6.2.4", pin="2.6") == (
        "python3 -m pip install 'torch==2.6.*' --index-url "
        "https://download.pytorch.org/whl/rocm6.2.4")
    assert install_command("rocm", "6.2.41133-dd7f95766") == install_command("rocm", "6.2")
    assert index_url("rocm", "7.14") == "https://download.pytorch.org/whl/rocm7.14"


@pytest.mark.parametrize(("build", "version"), [
    ("rocm", "6.5"), ("rocm", "6.2.1"), ("cuda", "12.7"), ("metal", None), ("rocm", "latest"),
    ("rocm", "6.0.2"),  # a point release with no wheel of its own: said, not raised
])
def test_install_command_says_none_for_unpublished_flavours(build: str,
                                                            version: str | None) -> None:
    assert install_command(build, version) is None
    assert index_url(build, version) is None


def test_the_214_rocm_flavours_match_test_infra() -> None:
    """pytorch/test-infra release/2.14 builds ROCm 7.2 and 7.14 (PRs #8451, #8498)."""
    release = torch_release("2.14.0")
    assert release is not None and release.rocm == ("7.2", "7.14")
    assert "https://github.com/pytorch/test-infra/pull/8451" in release.urls


def test_known_flavours() -> None:
    assert known_flavours("rocm")[0] == "5.4.2"
    assert "6.2.4" in known_flavours("rocm")
    assert known_flavours("cuda") == (
        "11.7", "11.8", "12.1", "12.4", "12.6", "12.8", "12.9", "13.0", "13.2")
