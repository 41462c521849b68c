"""Host facts and platform traces (parsers/host.py) over real pastes in
tests/fixtures/outputs/host-info/ and the other output folders (SOURCES.md there): kernel
releases from uname and module paths, distributions, WSL kernels, containers and VM guests."""

from __future__ import annotations

from pathlib import Path

import pytest
from parser_properties import property_tests, read

from gpuscope.model import Fact, ParsedOutput, Signal
from gpuscope.parsers import parse_any
from gpuscope.parsers.host import FORMATS, distro_of_release, parse, scan_host, sniff

OUTPUTS = Path(__file__).resolve().parents[1] / "fixtures" / "outputs"
HOST = OUTPUTS / "host-info"


def facts(found: tuple[Fact, ...] | ParsedOutput) -> dict[str, object]:
    items = found.host_facts if isinstance(found, ParsedOutput) else found
    return {f.key: f.value for f in items}


def kinds(signals: tuple[Signal, ...]) -> list[tuple[str, str | None]]:
    return [(s.kind, s.detail) for s in signals]


def test_formats_and_every_fixture_sniffs_or_is_found_by_parse_any() -> None:
    assert FORMATS == ("host-info",)
    for path in sorted(HOST.glob("*.txt")):
        parsed = parse_any(read(path), path.name)
        assert parsed.format == "host-info", path.name
        assert parsed.host_facts, path.name
        assert not parsed.problems, (path.name, parsed.problems)


@pytest.mark.parametrize(("name", "kernel", "distro"), [
    ("uname-a-fedora29-issue719.txt", "4.20.13-200.fc29.x86_64", "Fedora 29"),
    ("uname-a-ubuntu-redacted-host-issue1318.txt", "5.4.0-54-generic", "Ubuntu"),
    ("uname-srmv-vmware-guest-issue1626.txt", "5.4.0-90-generic", "Ubuntu"),
])
def test_uname_gives_the_kernel_linux_and_a_distribution_hint(name: str, kernel: str,
                                                              distro: str) -> None:
    parsed = parse(read(HOST / name), name)
    assert sniff(read(HOST / name)) == ("host-info", 0.7)
    assert facts(parsed) == {"kernel": kernel, "os": "linux", "distro_hint": distro}
    assert parsed.host_facts[0].source == f"{name}:1"
    assert parsed.signals == ()


def test_os_release_names_the_distribution() -> None:
    parsed = parse(read(HOST / "etc-release-ubuntu1804-issue1626.txt"), "release.txt")
    assert facts(parsed) == {"distro": "Ubuntu 18.04.6 LTS"}
    assert parsed.host_facts[0].source == "release.txt:10"  # PRETTY_NAME beats the others


def test_wsl_kernel_in_a_module_path_is_wsl() -> None:
    name = "modprobe-wsl2-kernel-issue3470.txt"
    parsed = parse_any(read(HOST / name), name)
    assert facts(parsed) == {"kernel": "5.15.153.1-microsoft-standard-WSL2", "os": "wsl",
                             "distro_hint": "WSL 2"}
    assert kinds(parsed.signals) == [("platform.wsl", None)]


def test_module_paths_and_uname_r_give_the_kernel() -> None:
    text = ("$ uname -r\n6.8.0-45-generic\n"
            "insmod /lib/modules/6.8.0-45-generic/updates/dkms/amdgpu.ko\n")
    parsed = parse(text, "paste.txt")
    assert facts(parsed) == {"kernel": "6.8.0-45-generic", "os": "linux", "distro_hint": "Ubuntu"}
    assert parsed.host_facts[0].source == "paste.txt:2"


@pytest.mark.parametrize(("release", "distro"), [
    ("6.8.0-45-generic", "Ubuntu"), ("6.5.0-1025-azure", "Ubuntu"),
    ("6.1.0-18-amd64", "Debian"), ("6.12.57+deb13-amd64", "Debian 13"),
    ("4.18.0-513.5.1.el8_9.x86_64", "RHEL 8 family"), ("6.8.9-300.fc40.x86_64", "Fedora 40"),
    ("6.6.1-arch1-1", "Arch Linux"), ("6.8.12-4-pve", "Proxmox VE"),
    ("5.15.153.1-microsoft-standard-WSL2", "WSL 2"), ("4.4.0-19041-Microsoft", "WSL 1"),
    ("6.4.0-150600.23.25-default", "openSUSE or SLES"), ("6.9.3", None),
])
def test_distribution_hints_of_kernel_releases(release: str, distro: str | None) -> None:
    assert distro_of_release(release) == distro


def test_container_traces() -> None:
    cases = {
        "root@3f2a1b4c5d6e:/workspace# rocminfo": "docker",
        "0::/system.slice/docker-3f2a1b4c5d6e7f.scope": "docker",
        "12:devices:/kubepods/besteffort/pod1234/abcd": "kubernetes",
        "-rwxr-xr-x 1 root root 0 Nov 24 09:00 /.dockerenv": "docker",
        "container=podman": "podman",
        "$ podman run --device /dev/kfd -it rocm/dev-ubuntu-22.04 bash": "podman",
        "docker pull rocm/pytorch:latest": "docker",
    }
    for line, engine in cases.items():
        found_facts, signals = scan_host(f"noise\n{line}\nmore noise\n", "paste.txt")
        assert facts(found_facts)["container"] is True, line
        assert ("platform.container", engine) in kinds(signals), line
        assert signals[0].evidence[0].line == 2


def test_not_container_traces() -> None:
    for line in ("ls: cannot access '/.dockerenv': No such file or directory",
                 "user@workstation:~$ rocminfo", "user@deadbeefcafe:~$ ls",
                 "I do not use docker at all"):
        assert "container" not in facts(scan_host(line, "x")[0]), line


def test_real_container_traces_in_other_formats() -> None:
    name = "docker-prompt-no-kfd-issue1798.txt"
    parsed = parse_any(read(OUTPUTS / "rocminfo" / name), name)
    assert parsed.format == "rocminfo"
    assert facts(parsed)["container"] is True
    assert facts(parsed)["container_hint"] == (
        "docker (the shell prompt's host name 101acc334128)")
    assert ("kfd.missing", "No such file or directory") in kinds(parsed.signals)
    docker = parse_any(read(HOST / "docker-run-nvidia-docker-1671.txt"), "docker.txt")
    assert facts(docker) == {"container": True, "container_hint": "docker (docker command)"}


def test_vm_guest_traces() -> None:
    dmesg = parse_any(read(OUTPUTS / "kernel-log" / "rocm-1626-vmware-guest-boot.txt"), "d")
    assert dmesg.format == "kernel-log"
    assert facts(dmesg) == {"kernel": "5.4.0-90-generic", "os": "linux", "distro_hint": "Ubuntu",
                            "virtual_machine": True, "virtual_machine_hint": "VMware (DMI)"}
    assert kinds(dmesg.signals) == [("platform.virtual_machine", "VMware")]
    qemu = parse_any(read(HOST / "qemu-command-vfio-issue1711.txt"), "qemu.txt")
    assert facts(qemu)["virtual_machine_hint"] == "QEMU/KVM (qemu command)"
    lshw = OUTPUTS / "lshw" / "lshw-display-azure-hyperv-mi25-mxgpu-issue1638.txt"
    hyperv = parse_any(read(lshw), "l")
    assert facts(hyperv)["virtual_machine_hint"] == "Hyper-V (its display adapter)"
    gce = parse_any(read(OUTPUTS / "lspci" / "cml-1065-gce-vm-v100-virtio.txt"), "lspci.txt")
    assert gce.format == "lspci" and facts(gce)["virtual_machine"] is True
    assert len(gce.sightings) == 1  # the V100, passed through; virtio devices are no GPUs


def test_not_vm_traces() -> None:
    # A KVM host (its kvm module), a GPU's own "VM mode" and WSL's Hyper-V are no VM guests.
    for text in ("[    5.1] kvm_amd: Nested Virtualization enabled",
                 "[    2.0] [drm] UVD(0) is enabled in VM mode",
                 "[    0.0] Hypervisor detected: Microsoft Hyper-V\n"
                 "[    0.0] Linux version 5.15.153.1-microsoft-standard-WSL2 (root@x) (gcc)"):
        assert "virtual_machine" not in facts(scan_host(text, "x")[0]), text


def test_parser_facts_win_over_traces() -> None:
    # collect_env says Windows; a stray module path in the paste does not make it Linux.
    text = read(OUTPUTS / "collect_env" / "pytorch-51858-windows-cu117.txt")
    parsed = parse_any(text + "\n/lib/modules/6.8.0-45-generic/kernel\n", "env.txt")
    assert facts(parsed)["os"] == "windows"


def test_scan_is_linear_on_a_large_paste() -> None:
    # Correctness on a 2 MB paste whose only trace is at its end (the time is measured by
    # benchmarks/parser_fuzz.py, not here).
    text = "x" * 200 + "\n"
    found = scan_host(text * 10_000 + "Linux build 6.8.0-45-generic #45-Ubuntu SMP\n", "big")
    assert facts(found[0])["kernel"] == "6.8.0-45-generic"
    assert found[0][0].source == "big:10001"


REAL_TEXTS = [read(path) for path in sorted(HOST.glob("*.txt"))]

(test_random_text_never_raises, test_truncated_real_output_never_raises,
 test_shuffled_real_output_never_raises) = property_tests(sniff, parse, REAL_TEXTS)


def test_a_hypervisor_host_is_no_guest() -> None:
    # A host that runs VMs or containers: its packages and the docker daemon's own cgroup.
    text = ("ii  qemu-system-x86  1:6.2+dfsg-2ubuntu6.22  amd64  QEMU full system emulation\n"
            "0::/system.slice/docker.service\n")
    found = facts(scan_host(text, "x")[0])
    assert "virtual_machine" not in found and "container" not in found
    guest = facts(scan_host("qemu-system-x86_64 -enable-kvm -m 8G -device vfio-pci,host=03:00.0",
                            "x")[0])
    assert guest["virtual_machine_hint"] == "QEMU/KVM (qemu command)"


def test_lsb_release_names_the_distribution_and_a_package_description_does_not() -> None:
    lsb = "Distributor ID:\tUbuntu\nDescription:\tUbuntu 22.04.3 LTS\nRelease:\t22.04\n"
    assert facts(parse(lsb, "lsb.txt")) == {"distro": "Ubuntu 22.04.3 LTS"}
    apt = "Package: rocm-core\nDescription: Radeon Open Compute (ROCm) Runtime software stack\n"
    assert "distro" not in facts(scan_host(apt, "apt.txt")[0])
