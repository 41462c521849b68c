"""Reading the version strings ROCm, HIP and CUDA print: real shapes, and no exception on
anything (hypothesis over generated version-like and arbitrary strings)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpuscope.knowledge.cuda import driver_supports, min_driver_for_cuda
from gpuscope.knowledge.torch_builds import normalise_flavour, parse_torch_version
from gpuscope.knowledge.versions import (
    is_therock_build,
    major_minor,
    rocm_release,
    version_numbers,
)
from gpuscope.knowledge.wheel_choice import choose_cuda_wheel, choose_rocm_wheel


@pytest.mark.parametrize(("text", "release"), [
    ("6.0.2", (6, 0, 2)),  # a point release
    ("6.0.2-115", (6, 0, 2)),  # /opt/rocm/.info/version
    ("6.0.2.60002-115~22.04", (6, 0, 2)),  # a Debian package version
    ("6.0.32831-204d35d16", (6, 0, 0)),  # HIP: major.minor.build-githash
    ("6.0.32830-d62f6a171", (6, 0, 0)),  # a git hash with an "a" in it
    ("6.2.41133-dd7f95766", (6, 2, 0)),
    ("7.10.0a20251120", (7, 10, 0)),  # AMD TheRock nightly
    ("7.1.52802-561cc400e1", (7, 1, 0)),
    ("rocm6.2.4", (6, 2, 4)),
    ("ROCm 5.7.1", (5, 7, 1)),
    ("v6.3", (6, 3, 0)),
    ("6", None),
    ("", None),
    ("unknown", None),
])
def test_rocm_and_hip_versions(text: str, release: tuple[int, int, int] | None) -> None:
    assert rocm_release(text) == release


@pytest.mark.parametrize(("text", "pair"), [
    ("12.4.131", (12, 4)), ("V12.8.93", (12, 8)), ("11.8", (11, 8)), ("cuda 12.1", (12, 1)),
    ("12", None), ("cu128", None),
])
def test_cuda_versions(text: str, pair: tuple[int, int] | None) -> None:
    assert major_minor(text) == pair


def test_version_numbers_stop_at_the_first_non_number() -> None:
    assert version_numbers("7.10.0a20251120") == (7, 10, 0)
    assert version_numbers("1.2.3.4.5", parts=2) == (1, 2)
    assert version_numbers("9" * 5000) is None  # no 5,000-digit int
    assert version_numbers(None) is None


def test_therock_builds_are_told_by_their_dated_prerelease() -> None:
    assert is_therock_build("7.10.0a20251120")
    assert is_therock_build("7.9.0rc20250925")
    assert not is_therock_build("6.0.32830-d62f6a171")  # the old "a in the hash" mistake
    assert not is_therock_build("6.2.4")
    assert not is_therock_build(None)


version_like = st.from_regex(
    r"(rocm|v|V|cu|ROCm )?[0-9]{1,6}(\.[0-9]{1,8}){0,4}"
    r"(a[0-9]{8}|rc[0-9]{1,8}|-[0-9a-f]{6,12}|\.[0-9]{5}-[0-9]+~[0-9]{2}\.[0-9]{2})?",
    fullmatch=True)


@given(st.one_of(version_like, st.text(max_size=60)))
def test_version_parsing_never_raises(text: str) -> None:
    for result in (version_numbers(text), rocm_release(text), major_minor(text)):
        assert result is None or all(isinstance(n, int) and n >= 0 for n in result)
    is_therock_build(text)
    normalise_flavour("rocm", text)
    normalise_flavour("cuda", text)
    parse_torch_version(text)
    min_driver_for_cuda(text)
    driver_supports(text, text)
    choose_rocm_wheel(text, "gfx1100")
    choose_cuda_wheel(text, "8.9")


@given(version_like, st.sampled_from(["gfx1100", "gfx1031", "gfx906", "gfx1151", None]))
def test_a_rocm_choice_is_made_for_any_host_version(host: str, gfx: str | None) -> None:
    choice = choose_rocm_wheel(host, gfx)
    assert choice.flavour is not None and choice.index_url is not None
    assert choice.note
