"""The distribution tables: AMD's lists per ROCm release (native, ROCm 2.x for every GPU and
Radeon from 6.4.1) and for WSL (Ubuntu only), compared at the precision both sides give."""

from __future__ import annotations

import re

import pytest

from gpuscope.knowledge.distros import (
    distro_support,
    distro_table,
    normalise_distro,
    wsl_distro_support,
)

INTERNAL = re.compile(r"facts\.md|§|\[[SKV]\]|corpus \d")


@pytest.mark.parametrize(("pretty", "normal"), [
    ("Ubuntu 22.04.5 LTS", "Ubuntu 22.04"),
    ("Red Hat Enterprise Linux 9.6 (Plow)", "RHEL 9.6"),
    ("Red Hat Enterprise Linux Server 7.6 (Maipo)", "RHEL 7.6"),
    ("Oracle Linux Server 9.4", "Oracle Linux 9.4"),
    ("CentOS Linux release 7.6.1810 (Core)", "CentOS 7.6"),
    ("CentOS Linux 7 (Core)", "CentOS 7"),
    ("Debian GNU/Linux 12 (bookworm)", "Debian 12"),
    ("Fedora 29", "Fedora 29"),
    ("Fedora Linux 39 (Workstation Edition)", "Fedora 39"),
    ("Arch Linux", "Arch Linux"),
    ("", None),
])
def test_normalise(pretty: str, normal: str | None) -> None:
    assert normalise_distro(pretty) == normal


def test_rocm_2_lists_ubuntu_centos_and_rhel_for_every_gpu() -> None:
    # ROCm 2.1's README: Ubuntu 16.04.x/18.04.x, CentOS and RHEL 7.4-7.6; Fedora unsupported.
    fedora = distro_support("gfx803", "2.1", "Fedora 29")
    assert fedora.supported is False and fedora.scope == ""
    assert fedora.source is not None and fedora.source.startswith("https://github.com/")
    assert distro_support("gfx900", "2.1.96", "Ubuntu 18.04.1 LTS").supported is True
    assert distro_support("gfx906", "2.0", "CentOS Linux release 7.6.1810 (Core)").supported
    assert distro_support("gfx803", "2.1", "CentOS Linux release 7.2.1511 (Core)").supported \
        is False
    # Less precise than the list: neither on nor off it.
    assert distro_support("gfx803", "2.1", "CentOS Linux 7 (Core)").supported is None
    assert distro_support("gfx803", "2.1", "RHEL 7 family").supported is None
    assert distro_support("gfx803", "2.1", "Ubuntu").supported is None
    # ROCm 3.x documents nothing gpuscope judges.
    assert distro_support("gfx803", "3.3", "Fedora 31").supported is None


def test_radeon_lists_name_their_scope() -> None:
    verdict = distro_support("gfx1100", "6.4.1", "Debian GNU/Linux 12 (bookworm)")
    assert verdict.supported is False and verdict.scope == "Radeon GPUs"
    assert distro_support("gfx942", "6.4.1", "Debian GNU/Linux 12").supported is None


def test_wsl_lists_ubuntu_only() -> None:
    oracle = wsl_distro_support(None, "Oracle Linux Server 9.4")
    assert oracle.supported is False and oracle.distro == "Oracle Linux 9.4"
    assert oracle.source == (
        "https://rocm.docs.amd.com/projects/radeon/en/latest/docs/compatibility/wsl/"
        "wsl_compatibility.html")
    assert wsl_distro_support("6.1.3", "Ubuntu 22.04.4 LTS").supported is True
    assert wsl_distro_support("7.2.1", "Ubuntu 24.04.2 LTS").supported is True
    assert wsl_distro_support(None, "Ubuntu 20.04.6 LTS").supported is False
    assert wsl_distro_support(None, "Debian GNU/Linux 12 (bookworm)").supported is False
    # A WSL kernel's hint names no distribution; an Ubuntu without version is not judged.
    assert wsl_distro_support(None, "WSL 2").supported is None
    assert wsl_distro_support(None, "Ubuntu").supported is None
    assert wsl_distro_support(None, None).supported is None


def test_every_row_points_users_to_a_public_page() -> None:
    table = distro_table()
    for row in (*table.native, *table.wsl):
        assert row.url.startswith("https://") and not INTERNAL.search(row.url)
        assert row.distros and all(normalise_distro(d) == d for d in row.distros), row


def test_long_names_are_cut_not_scanned() -> None:
    name = "Ubuntu " + "9" * 100_000
    assert wsl_distro_support(None, name).supported is False
    assert (normalise_distro("x" * 100_000) or "") == "x" * 200


def test_wsl_gpu_list_never_names_rdna2_and_older() -> None:
    from gpuscope.knowledge.distros import wsl_gpu_support

    url = ("https://rocm.docs.amd.com/projects/radeon/en/latest/docs/compatibility/wsl/"
           "wsl_compatibility.html")
    # RX 6800 XT (ROCm/ROCm#3581), RX 6950 XT (#4503), an RX 5700 XT, a Cezanne iGPU, an MI300X.
    for target in ("gfx1030", "GFX1030", "gfx1010", "gfx90c", "gfx942", "gfx803"):
        verdict = wsl_gpu_support(target)
        assert verdict.supported is False and verdict.source == url, target
    # RDNA3 and newer: some GPUs of these families are on the lists, per release; not judged.
    for target in ("gfx1100", "gfx1101", "gfx1151", "gfx1201", None, "", "navi21"):
        assert wsl_gpu_support(target).supported is None, target

