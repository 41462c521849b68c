"""The host probe over hand-built snapshots (one per kind of machine) and on this machine."""

from __future__ import annotations

import stat
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gpuscope.evidence import FileRead, LiveSystem, RecordingSystem, ReplaySystem, Snapshot
from gpuscope.model import JsonValue, ProbeState
from gpuscope.probes.host import (
    HostEvidence,
    build_host_result,
    collect_platform,
    collect_psutil,
    probe_host,
)
from gpuscope.probes.host_files import (
    container_engines_in_cgroup,
    dmi_hypervisor,
    is_wsl_kernel,
    os_release_pretty_name,
    parse_cpuinfo,
    parse_meminfo_kib,
    parse_os_release,
    parse_proc_version_release,
    wsl_generation,
)

GIB = 1024**3

# os-release(5) format; the values are Ubuntu 22.04.4's published /etc/os-release.
UBUNTU_OS_RELEASE = """\
PRETTY_NAME="Ubuntu 22.04.4 LTS"
NAME="Ubuntu"
VERSION_ID="22.04"
VERSION="22.04.4 LTS (Jammy Jellyfish)"
VERSION_CODENAME=jammy
ID=ubuntu
ID_LIKE=debian
HOME_URL="https://www.ubuntu.com/"
SUPPORT_URL="https://help.ubuntu.com/"
BUG_REPORT_URL="https://bugs.launchpad.net/ubuntu/"
PRIVACY_POLICY_URL="https://www.ubuntu.com/legal/terms-and-policies/privacy-policy"
UBUNTU_CODENAME=jammy
"""

DEBIAN_OS_RELEASE = """\
PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"
NAME="Debian GNU/Linux"
VERSION_ID="12"
VERSION="12 (bookworm)"
VERSION_CODENAME=bookworm
ID=debian
"""

X86_FLAGS = ("fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush "
             "mmx fxsr sse sse2 ht syscall nx mmxext fxsr_opt pdpe1gb rdtscp lm constant_tsc "
             "rep_good nopl nonstop_tsc cpuid extd_apicid aperfmperf pni pclmulqdq monitor ssse3 "
             "fma cx16 sse4_1 sse4_2 x2apic movbe popcnt aes xsave avx f16c rdrand lahf_lm")


def x86_cpuinfo(model: str, cores: int, threads_per_core: int, hypervisor: bool = False) -> str:
    """/proc/cpuinfo in the x86 kernel's format (arch/x86/kernel/cpu/proc.c): one block per
    logical CPU with `processor`, `model name`, `physical id`, `core id` and `flags`."""
    flags = X86_FLAGS + (" hypervisor" if hypervisor else "")
    blocks = []
    for processor in range(cores * threads_per_core):
        blocks.append(
            f"processor\t: {processor}\n"
            "vendor_id\t: AuthenticAMD\n"
            "cpu family\t: 25\n"
            "model\t\t: 97\n"
            f"model name\t: {model}\n"
            "physical id\t: 0\n"
            f"siblings\t: {cores * threads_per_core}\n"
            f"core id\t\t: {processor % cores}\n"
            f"cpu cores\t: {cores}\n"
            f"flags\t\t: {flags}\n"
        )
    return "\n".join(blocks) + "\n"


def psutil_answer(logical: int, physical: int, ram: int, swap: int) -> dict[str, JsonValue]:
    return {"status": "ok", "cpu_logical": logical, "cpu_physical": physical,
            "ram_total_bytes": ram, "swap_total_bytes": swap}


def linux_platform(release: str, node: str = "desk") -> dict[str, JsonValue]:
    return {"status": "ok", "system": "Linux", "release": release,
            "version": "#45~22.04.1-Ubuntu SMP PREEMPT_DYNAMIC Mon Sep 23 12:20:26 UTC 2024",
            "machine": "x86_64", "node": node, "python_version": "3.10.12",
            "processor": "x86_64"}


def make_snapshot(
    description: str,
    files: dict[str, str] | None = None,
    libraries: dict[str, JsonValue] | None = None,
    env: dict[str, str | None] | None = None,
    stats: dict[str, dict[str, Any]] | None = None,
    commands: list[dict[str, Any]] | None = None,
) -> Snapshot:
    return Snapshot(
        files={path: {"text": text} for path, text in (files or {}).items()},
        libraries=dict(libraries or {}), env=dict(env or {}), stats=dict(stats or {}),
        commands=list(commands or []),
        meta={"description": description,
              "sources": ["hand-built: os-release(5), proc(5) and sysfs-class-dmi formats; "
                          "psutil and platform answers in collect_psutil/collect_platform's "
                          "envelope"]},
    )


def run(snapshot: Snapshot) -> Any:
    return probe_host(ReplaySystem(snapshot))


KERNEL = "6.8.0-45-generic"
UBUNTU_DESKTOP = make_snapshot(
    "Ubuntu 22.04 desktop, Ryzen 9 7950X, 64 GiB",
    files={
        "/etc/os-release": UBUNTU_OS_RELEASE,
        "/proc/cpuinfo": x86_cpuinfo("AMD Ryzen 9 7950X 16-Core Processor", 16, 2),
        "/proc/sys/kernel/osrelease": KERNEL + "\n",
        "/proc/version": f"Linux version {KERNEL} (buildd@lcy02-amd64-051) (x86_64-linux-gnu-"
                         "gcc-12 (Ubuntu 12.3.0-1ubuntu1~22.04) 12.3.0) #45~22.04.1-Ubuntu SMP "
                         "PREEMPT_DYNAMIC Mon Sep 23 12:20:26 UTC 2024\n",
        "/proc/1/cgroup": "0::/init.scope\n",
        "/sys/class/dmi/id/sys_vendor": "Micro-Star International Co., Ltd.\n",
        "/sys/class/dmi/id/product_name": "MS-7D70\n",
    },
    libraries={"psutil": psutil_answer(32, 16, 64 * GIB, 2 * GIB),
               "platform": linux_platform(KERNEL)},
)


def test_ubuntu_desktop() -> None:
    result = run(UBUNTU_DESKTOP)
    host = result.host
    assert result.status.state is ProbeState.OK
    assert result.status.reason == (
        "Ubuntu 22.04.4 LTS, kernel 6.8.0-45-generic, 32 logical CPUs, 64.0 GiB RAM")
    assert host.os == "linux"
    assert host.distro == "Ubuntu 22.04.4 LTS"
    assert host.kernel == KERNEL
    assert host.architecture == "x86_64"
    assert host.cpu_model == "AMD Ryzen 9 7950X 16-Core Processor"
    assert (host.cpu_logical_cores, host.cpu_physical_cores) == (32, 16)
    assert host.ram_total_bytes == 64 * GIB
    assert host.swap_total_bytes == 2 * GIB
    assert host.hostname == "desk"
    assert host.python_version == "3.10.12"
    assert not host.wsl and not host.container and not host.virtual_machine
    assert host.container_hint is None and host.virtual_machine_hint is None
    assert host.field_sources["distro"] == "/etc/os-release PRETTY_NAME"
    assert host.field_sources["kernel"] == "/proc/sys/kernel/osrelease"
    assert host.field_sources["ram_total_bytes"] == "psutil.virtual_memory().total"
    assert host.field_sources["cpu_model"] == "/proc/cpuinfo 'model name'"
    assert host.missing_reasons == {}
    assert result.device_nodes == ()


WSL_KERNEL = "5.15.153.1-microsoft-standard-WSL2"
WSL2 = make_snapshot(
    "Ubuntu 22.04 under WSL2 with GPU paravirtualisation",
    files={
        "/etc/os-release": UBUNTU_OS_RELEASE,
        "/proc/cpuinfo": x86_cpuinfo("AMD Ryzen 7 7800X3D 8-Core Processor", 8, 2,
                                     hypervisor=True),
        "/proc/sys/kernel/osrelease": WSL_KERNEL + "\n",
        "/proc/version": f"Linux version {WSL_KERNEL} (root@941d701f84f1) (gcc (GCC) 11.2.0, "
                         "GNU ld (GNU Binutils) 2.37) #1 SMP Fri Mar 29 23:14:13 UTC 2024\n",
        "/proc/1/cgroup": "0::/init.scope\n",
    },
    stats={"/dev/dxg": {"exists": True, "mode": stat.S_IFCHR | 0o666, "uid": 0, "gid": 0}},
    env={"WSL_DISTRO_NAME": "Ubuntu-22.04"},
    libraries={"psutil": psutil_answer(16, 8, 31 * GIB, 8 * GIB),
               "platform": linux_platform(WSL_KERNEL)},
)


def test_wsl2() -> None:
    result = run(WSL2)
    host = result.host
    assert host.os == "wsl"
    assert host.wsl is True
    assert host.kernel == WSL_KERNEL
    assert host.distro == "Ubuntu 22.04.4 LTS"
    assert "WSL2" in host.field_sources["wsl"]
    assert "/dev/dxg present" in host.field_sources["wsl"]
    assert "WSL_DISTRO_NAME=Ubuntu-22.04" in host.field_sources["wsl"]
    assert result.status.reason == (
        f"Ubuntu 22.04.4 LTS (WSL2), kernel {WSL_KERNEL}, 16 logical CPUs, 31.0 GiB RAM")
    # The WSL2 utility VM runs under Hyper-V, and its CPUs carry the hypervisor flag.
    assert host.virtual_machine is True
    assert host.virtual_machine_hint == "hypervisor CPU flag (/proc/cpuinfo)"
    (dxg,) = result.device_nodes
    assert dxg.path == "/dev/dxg" and dxg.exists
    assert dxg.mode == "crw-rw-rw-"
    assert "paravirtualisation" in (dxg.reason or "")


def test_wsl_without_dxg_records_its_absence() -> None:
    snapshot = make_snapshot("WSL2 without /dev/dxg", files={
        "/proc/sys/kernel/osrelease": WSL_KERNEL + "\n", "/etc/os-release": UBUNTU_OS_RELEASE,
    })
    result = run(snapshot)
    assert result.host.os == "wsl"
    (dxg,) = result.device_nodes
    assert not dxg.exists
    assert "no /dev/dxg" in (dxg.reason or "")


def test_wsl1_kernel() -> None:
    assert is_wsl_kernel("4.4.0-19041-Microsoft")
    assert wsl_generation("4.4.0-19041-Microsoft", dxg_present=False) == "WSL1"
    assert wsl_generation(WSL_KERNEL, dxg_present=False) == "WSL2"
    assert not is_wsl_kernel(KERNEL)


DOCKER = make_snapshot(
    "Debian 12 in a docker container on a cgroup v1 host",
    files={
        "/.dockerenv": "",
        "/etc/os-release": DEBIAN_OS_RELEASE,
        "/proc/cpuinfo": x86_cpuinfo("AMD EPYC 7763 64-Core Processor", 4, 1),
        "/proc/sys/kernel/osrelease": "5.15.0-119-generic\n",
        "/proc/1/cgroup": (
            "12:pids:/docker/3f0c8e0a0c3c3b1dd3c7b1c1c2a2d1a9f0f5d9e2f3c3c4b5a6a7b8c9d0e1f2a3\n"
            "11:memory:/docker/3f0c8e0a0c3c3b1dd3c7b1c1c2a2d1a9f0f5d9e2f3c3c4b5a6a7b8c9d0e1f2a3\n"
            "0::/\n"
        ),
    },
    libraries={"psutil": psutil_answer(4, 4, 16 * GIB, 0),
               "platform": linux_platform("5.15.0-119-generic", node="3f0c8e0a0c3c")},
)


def test_docker_container() -> None:
    result = run(DOCKER)
    host = result.host
    assert host.os == "linux"
    assert host.container is True
    assert host.container_hint == "docker (/.dockerenv); docker (/proc/1/cgroup)"
    assert host.distro == "Debian GNU/Linux 12 (bookworm)"
    assert host.swap_total_bytes == 0
    assert result.status.reason.endswith("; container: docker")
    assert not host.virtual_machine


def test_podman_container() -> None:
    snapshot = make_snapshot("Fedora in podman", files={
        "/run/.containerenv": 'engine="podman-4.9.3"\nname="devbox"\nrootless=1\n',
        "/etc/os-release": 'NAME="Fedora Linux"\nVERSION_ID=40\n',
        "/proc/sys/kernel/osrelease": "6.9.7-200.fc40.x86_64\n",
    }, env={"container": "podman"})
    host = run(snapshot).host
    assert host.container is True
    assert host.container_hint == "podman (/run/.containerenv); podman (env container=podman)"
    assert host.distro == "Fedora Linux 40"  # no PRETTY_NAME: NAME + VERSION_ID
    assert host.field_sources["distro"] == "/etc/os-release NAME"


def test_kubernetes_cgroup() -> None:
    assert container_engines_in_cgroup(
        "11:cpuset:/kubepods/besteffort/pod1c2d/cri-containerd-0a1b2c.scope\n"
    ) == ["kubepods", "containerd"]
    assert container_engines_in_cgroup("1:name=systemd:/lxc/web01\n") == ["lxc"]
    assert container_engines_in_cgroup("0::/system.slice/lxcfs.service\n") == []
    assert container_engines_in_cgroup("0::/init.scope\n") == []


KVM_GUEST = make_snapshot(
    "Rocky Linux 9 guest on KVM (oVirt): DMI product name 'KVM'",
    files={
        "/etc/os-release": 'NAME="Rocky Linux"\nVERSION_ID="9.4"\n'
                           'PRETTY_NAME="Rocky Linux 9.4 (Blue Onyx)"\n',
        "/proc/cpuinfo": x86_cpuinfo("AMD EPYC-Milan Processor", 8, 1, hypervisor=True),
        "/proc/sys/kernel/osrelease": "5.14.0-427.13.1.el9_4.x86_64\n",
        "/sys/class/dmi/id/sys_vendor": "Red Hat\n",
        "/sys/class/dmi/id/product_name": "KVM\n",
    },
    libraries={"psutil": psutil_answer(8, 8, 32 * GIB, 4 * GIB),
               "platform": linux_platform("5.14.0-427.13.1.el9_4.x86_64", node="vm1")},
)


def test_kvm_guest() -> None:
    result = run(KVM_GUEST)
    host = result.host
    assert host.virtual_machine is True
    assert host.virtual_machine_hint == (
        "KVM (DMI product name 'KVM'); hypervisor CPU flag (/proc/cpuinfo)")
    assert result.status.reason.endswith("; virtual machine: KVM")
    assert host.distro == "Rocky Linux 9.4 (Blue Onyx)"
    assert not host.container


def test_dmi_hypervisor_names() -> None:
    assert dmi_hypervisor("QEMU", "Standard PC (Q35 + ICH9, 2009)") == \
        "QEMU (DMI sys_vendor 'QEMU')"
    assert dmi_hypervisor("VMware, Inc.", "VMware Virtual Platform") == \
        "VMware (DMI product name 'VMware Virtual Platform')"
    assert dmi_hypervisor("innotek GmbH", "VirtualBox").startswith("VirtualBox (")
    assert dmi_hypervisor("Microsoft Corporation", "Virtual Machine").startswith("Hyper-V (")
    assert dmi_hypervisor("Microsoft Corporation", "Surface Laptop 5") is None
    assert dmi_hypervisor("Xen", "HVM domU").startswith("Xen (")
    assert dmi_hypervisor("Amazon EC2", "m5.xlarge") == "Amazon EC2 (DMI sys_vendor 'Amazon EC2')"
    assert dmi_hypervisor("Google", "Google Compute Engine").startswith("Google Compute Engine (")
    assert dmi_hypervisor("Parallels Software International Inc.", "Parallels Virtual Platform"
                          ).startswith("Parallels (")
    assert dmi_hypervisor("Bochs", "Bochs").startswith("Bochs (")
    assert dmi_hypervisor("ASUS", "System Product Name") is None
    assert dmi_hypervisor(None, None) is None


def test_xen_hypervisor_type_file() -> None:
    snapshot = make_snapshot("Xen PV guest", files={
        "/proc/sys/kernel/osrelease": "6.1.0-25-amd64\n", "/sys/hypervisor/type": "xen\n",
    })
    host = run(snapshot).host
    assert host.virtual_machine is True
    assert host.virtual_machine_hint == "xen (/sys/hypervisor/type)"
    flag_only = make_snapshot("a guest known only by the CPU flag", files={
        "/proc/sys/kernel/osrelease": "6.1.0-25-amd64\n",
        "/proc/cpuinfo": x86_cpuinfo("AMD EPYC", 2, 1, hypervisor=True)})
    assert (run(flag_only).status.reason or "").endswith("; virtual machine (hypervisor CPU flag)")


MEMINFO = """\
MemTotal:       32803740 kB
MemFree:         1234567 kB
MemAvailable:   20000000 kB
SwapCached:            0 kB
SwapTotal:       8388604 kB
SwapFree:        8388604 kB
"""


def test_psutil_not_captured_falls_back_to_proc() -> None:
    snapshot = make_snapshot(
        "psutil absent from the snapshot: /proc/meminfo and /proc/cpuinfo instead",
        files={"/etc/os-release": UBUNTU_OS_RELEASE, "/proc/meminfo": MEMINFO,
               "/proc/cpuinfo": x86_cpuinfo("AMD Ryzen 5 5600X 6-Core Processor", 6, 2),
               "/proc/sys/kernel/osrelease": KERNEL + "\n"},
        libraries={"platform": linux_platform(KERNEL)},
    )
    result = run(snapshot)
    host = result.host
    assert result.status.state is ProbeState.OK
    assert host.ram_total_bytes == 32803740 * 1024
    assert host.swap_total_bytes == 8388604 * 1024
    assert host.cpu_logical_cores == 12
    assert host.cpu_physical_cores == 6
    assert host.field_sources["ram_total_bytes"] == (
        "/proc/meminfo MemTotal (psutil not captured in this snapshot)")
    assert host.field_sources["cpu_logical_cores"].startswith("/proc/cpuinfo 'processor' entries")


def test_psutil_missing_and_no_meminfo() -> None:
    snapshot = make_snapshot(
        "psutil not installed, /proc/meminfo unreadable",
        files={"/proc/sys/kernel/osrelease": KERNEL + "\n"},
        libraries={"psutil": {"status": "library_missing",
                              "error": "psutil is not installed (No module named 'psutil')"},
                   "platform": linux_platform(KERNEL)},
    )
    result = run(snapshot)
    host = result.host
    assert result.status.state is ProbeState.OK
    assert host.ram_total_bytes is None
    assert host.missing_reasons["ram_total_bytes"] == (
        "psutil is not installed; /proc/meminfo unreadable (ENOENT)")
    assert "pip install psutil" in (result.status.hint or "")
    assert host.missing_reasons["distro"].startswith("/etc/os-release unreadable (ENOENT)")


def test_windows_11() -> None:
    snapshot = make_snapshot("Windows 11 Pro", libraries={
        "psutil": psutil_answer(24, 12, 32 * GIB, 4 * GIB),
        "platform": {"status": "ok", "system": "Windows", "release": "10",
                     "version": "10.0.22631", "machine": "AMD64", "node": "GAMING-PC",
                     "python_version": "3.12.4",
                     "processor": "AMD64 Family 25 Model 33 Stepping 0, AuthenticAMD",
                     "win32_ver": ["10", "10.0.22631", "SP0", "Multiprocessor Free"],
                     "win32_edition": "Professional"},
    })
    result = run(snapshot)
    host = result.host
    assert host.os == "windows"
    assert host.distro == "Windows 11 Professional (build 22631)"
    assert host.kernel == "10.0.22631"
    assert host.cpu_model == "AMD64 Family 25 Model 33 Stepping 0, AuthenticAMD"
    assert host.ram_total_bytes == 32 * GIB
    assert not host.wsl and not host.container
    assert result.status.reason.startswith("Windows 11 Professional (build 22631), kernel")


def test_macos() -> None:
    snapshot = make_snapshot(
        "macOS 14.5 on Apple M2 Pro",
        libraries={"psutil": psutil_answer(12, 12, 32 * GIB, 0),
                   "platform": {"status": "ok", "system": "Darwin", "release": "23.5.0",
                                "version": "Darwin Kernel Version 23.5.0", "machine": "arm64",
                                "node": "mbp", "python_version": "3.12.4", "processor": "arm",
                                "mac_ver": ["14.5", "arm64"]}},
        commands=[{"argv": ["sysctl", "-n", "machdep.cpu.brand_string"], "returncode": 0,
                   "stdout": "Apple M2 Pro\n", "stderr": ""}],
    )
    host = run(snapshot).host
    assert host.os == "macos"
    assert host.distro == "macOS 14.5"
    assert host.kernel == "23.5.0"
    assert host.cpu_model == "Apple M2 Pro"


def test_raspberry_pi_cpuinfo() -> None:
    text = ("processor\t: 0\nBogoMIPS\t: 108.00\nFeatures\t: fp asimd evtstrm crc32 cpuid\n"
            "CPU implementer\t: 0x41\nCPU part\t: 0xd08\n\n"
            "processor\t: 1\nBogoMIPS\t: 108.00\nFeatures\t: fp asimd evtstrm crc32 cpuid\n\n"
            "Hardware\t: BCM2835\nRevision\t: c03114\nModel\t\t: Raspberry Pi 4 Model B Rev 1.4\n")
    info = parse_cpuinfo(text)
    assert info.model == "BCM2835" and info.model_field == "hardware"
    assert info.logical_cpus == 2
    assert info.physical_cores is None
    assert not info.hypervisor_flag


def test_empty_snapshot_is_not_captured() -> None:
    result = run(Snapshot())
    assert result.status.state is ProbeState.NOT_CAPTURED
    assert result.status.reason == "host details not captured in this snapshot"
    assert result.host is not None and result.host.os == "unknown"


def test_os_release_quoting() -> None:
    text = (
        "# a comment\n\n"
        'PRETTY_NAME="Foo \\"Bar\\" \\$HOME \\\\ end"\n'
        "NAME='Single quoted \\n stays'\n"
        "ID=foo\\ bar\n"
        "VERSION_ID= 1.2 \n"
        "not a line\n"
        "1BAD=x\n"
    )
    values = parse_os_release(text)
    assert values["PRETTY_NAME"] == 'Foo "Bar" $HOME \\ end'
    assert values["NAME"] == "Single quoted \\n stays"
    assert values["ID"] == "foo bar"
    assert values["VERSION_ID"] == "1.2"
    assert "1BAD" not in values
    assert os_release_pretty_name({"NAME": "Arch Linux"}) == "Arch Linux"
    assert os_release_pretty_name({}) is None


def test_usr_lib_os_release_fallback() -> None:
    snapshot = make_snapshot("only /usr/lib/os-release", files={
        "/usr/lib/os-release": 'PRETTY_NAME="Arch Linux"\n',
        "/proc/sys/kernel/osrelease": "6.10.10-arch1-1\n",
    })
    host = run(snapshot).host
    assert host.distro == "Arch Linux"
    assert host.field_sources["distro"] == "/usr/lib/os-release PRETTY_NAME"
    assert host.os == "linux"  # platform not captured: /proc says Linux


def test_small_parsers() -> None:
    assert parse_meminfo_kib(MEMINFO, "MemTotal") == 32803740 * 1024
    assert parse_meminfo_kib(MEMINFO, "Nope") is None
    assert parse_proc_version_release(
        "Linux version 6.8.0-45-generic (buildd@x) (gcc 12) #45") == "6.8.0-45-generic"
    assert parse_proc_version_release("garbage") is None


def test_collectors_answer_in_the_envelope() -> None:
    psutil = collect_psutil()
    assert isinstance(psutil, dict) and psutil["status"] == "ok"
    assert isinstance(psutil["ram_total_bytes"], int) and psutil["ram_total_bytes"] > 0
    plat = collect_platform()
    assert isinstance(plat, dict) and plat["status"] == "ok"
    assert plat["system"] in ("Linux", "Windows", "Darwin")


def test_live_system_on_this_machine() -> None:
    result = probe_host(LiveSystem())
    host = result.host
    assert result.status.state is ProbeState.OK
    assert host.os in ("linux", "wsl")
    assert host.kernel
    assert host.ram_total_bytes is not None and host.ram_total_bytes > 0
    assert host.cpu_logical_cores is not None and host.cpu_logical_cores >= 1


def test_recorded_live_replays_to_the_same_host() -> None:
    recorder = RecordingSystem(LiveSystem())
    live = probe_host(recorder)
    snapshot = Snapshot.from_json(recorder.snapshot.to_json())
    replayed = probe_host(ReplaySystem(snapshot))
    assert replayed.host == live.host
    assert replayed.status == live.status


# ----------------------------------------------------------------------------- properties

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=12), children, max_size=4),
    max_leaves=12,
)


@given(st.text())
def test_parse_os_release_accepts_any_text(text: str) -> None:
    values = parse_os_release(text)
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in values.items())
    os_release_pretty_name(values)


@given(st.text())
def test_parse_cpuinfo_accepts_any_text(text: str) -> None:
    info = parse_cpuinfo(text)
    assert info.logical_cpus is None or info.logical_cpus > 0
    assert info.model is None or info.model.strip() == info.model


@given(st.text(), st.text(), st.text(), st.text())
def test_small_parsers_accept_any_text(a: str, b: str, c: str, d: str) -> None:
    parse_meminfo_kib(a, "MemTotal")
    parse_proc_version_release(a)
    container_engines_in_cgroup(b)
    dmi_hypervisor(c, d)
    wsl_generation(a, dxg_present=False)


_PATHS = ("/etc/os-release", "/usr/lib/os-release", "/proc/cpuinfo", "/proc/meminfo",
          "/proc/version", "/proc/sys/kernel/osrelease", "/proc/1/cgroup",
          "/run/.containerenv", "/sys/class/dmi/id/sys_vendor",
          "/sys/class/dmi/id/product_name", "/sys/hypervisor/type")


@settings(max_examples=200)
@given(
    files=st.dictionaries(st.sampled_from(_PATHS), st.text(max_size=200), max_size=len(_PATHS)),
    psutil=st.one_of(_json, st.fixed_dictionaries({"status": st.just("ok")}, optional={
        "cpu_logical": _json, "ram_total_bytes": _json, "swap_total_bytes": _json})),
    platform=st.one_of(_json, st.fixed_dictionaries({"status": st.just("ok")}, optional={
        "system": st.sampled_from(["Linux", "Windows", "Darwin", "FreeBSD"]) | _json,
        "release": _json, "win32_ver": _json, "mac_ver": _json, "machine": _json})),
    env=st.dictionaries(st.sampled_from(["container", "WSL_DISTRO_NAME"]),
                        st.none() | st.text(max_size=20)),
)
def test_build_host_never_raises(
    files: dict[str, str], psutil: JsonValue, platform: JsonValue, env: dict[str, str | None],
) -> None:
    evidence = HostEvidence(psutil=psutil, platform=platform,
                            files={p: FileRead(text=t) for p, t in files.items()}, env=env)
    result = build_host_result(evidence)
    assert result.status.state in (ProbeState.OK, ProbeState.ERROR, ProbeState.NOT_CAPTURED)
    assert result.host is not None
    assert result.host.os in ("linux", "wsl", "windows", "macos", "unknown")
