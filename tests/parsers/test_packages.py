"""dkms status, dpkg -l, nvcc --version and the distributions' package lists and install logs
over real pastes: corpus cases 035 (dkms), 019 (nvcc), 101 (rpm -qa), 111 and 152
(amdgpu-install), 112 (pacman -Ss), 203 (a dnf transaction), and
tests/fixtures/outputs/{dkms-status,dpkg-list,nvcc-version,package-list}/ (SOURCES.md there)."""

from __future__ import annotations

from pathlib import Path

from parser_properties import property_tests, read

from gpuscope.model import ParsedOutput
from gpuscope.parsers.packages import FORMATS, parse, sniff

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CORPUS = FIXTURES / "corpus"
OUTPUTS = FIXTURES / "outputs"


def load(path: Path) -> ParsedOutput:
    return parse(read(path), path.name)


def facts(parsed: ParsedOutput) -> dict[str, object]:
    return {f.key: f.value for f in parsed.stack_facts}


def test_formats() -> None:
    assert FORMATS == ("dkms-status", "dpkg-list", "nvcc-version", "package-rpm",
                       "package-pacman", "package-apt", "package-apt-log", "package-zypper")


# ----------------------------------------------------------------------------- dkms

def test_dkms_status_case_035() -> None:
    path = CORPUS / "035-rx6700xt-gfx1031-invalid-device-function" / "dkms-status.txt"
    assert sniff(read(path)) == ("dkms-status", 0.9)
    parsed = load(path)
    assert parsed.format == "dkms-status"
    assert [(f.key, f.value, f.source) for f in parsed.stack_facts] == [
        ("amdgpu_driver_version", "6.2.4", "dkms-status.txt:1"),
        ("amdgpu_dkms_kernels", "5.14.0-373.el9.x86_64", "dkms-status.txt:1")]
    assert parsed.signals == () and parsed.problems == ()


def test_dkms_old_layout_only_installed_counts() -> None:
    parsed = load(OUTPUTS / "dkms-status" / "legacy-rocm-804-el7-built-and-installed.txt")
    assert facts(parsed) == {"amdgpu_driver_version": "2.4",  # 19.10 was only built
                             "amdgpu_dkms_kernels": "3.10.0-957.12.2.el7.x86_64,"
                                                    "3.10.0-957.el7.x86_64"}
    assert parsed.stack_facts[0].source.endswith(":2")
    added = load(OUTPUTS / "dkms-status" / "legacy-rocm-774-added-and-installed.txt")
    assert facts(added) == {"amdgpu_driver_version": "2.3",  # 18.50 was only added
                            "amdgpu_dkms_kernels": "5.0.8-1.el7.elrepo.x86_64"}


def test_dkms_built_for_another_kernel_is_not_the_loaded_driver() -> None:
    # Corpus 107: amdgpu-dkms is installed for 5.4.0-53, uname says 5.4.0-54 runs.
    from gpuscope.importer import import_texts

    folder = next(CORPUS.glob("107-*"))
    dkms = ("dkms-status.txt", read(folder / "dkms-status.txt"))
    machine = import_texts([dkms, ("uname.txt", read(folder / "uname.txt"))])
    stack = machine.inventory.stack
    assert stack.amdgpu_driver_version is None
    assert "not for the running kernel 5.4.0-54-generic" in (
        stack.missing_reasons["amdgpu_driver_version"])
    same = dkms[1].replace("5.4.0-53-generic", "5.4.0-54-generic")
    running = import_texts([("dkms.txt", same), ("uname.txt", read(folder / "uname.txt"))])
    assert running.inventory.stack.amdgpu_driver_version == "3.10"
    alone = import_texts([dkms])  # no running kernel known: the version stands
    assert alone.inventory.stack.amdgpu_driver_version == "3.10"


def test_dkms_errors() -> None:
    broken = load(OUTPUTS / "dkms-status" / "legacy-rocm-3701-missing-dkms-conf.txt")
    assert [(s.kind, s.detail) for s in broken.signals] == [
        ("dkms.error", "Could not locate dkms.conf file.")]
    assert broken.stack_facts == ()
    failed = load(OUTPUTS / "dkms-status" / "m-bab-101-nvidia-build-failed.txt")
    assert [(s.kind, s.detail, s.evidence[0].line) for s in failed.signals] == [
        ("dkms.build_failed", "5.13.18-21.09.16.amdgpu.ubuntu", 5)]


def test_dkms_module_never_installed() -> None:
    # Only "added" (sources registered, never built) or "built" (never installed): no kernel
    # can load that module. Corpus 237 is the current kind beside a kernel it cannot build for.
    signals = {}
    for name in ("legacy-rocm-687-added-only.txt", "legacy-rocm-660-built-not-installed.txt"):
        parsed = load(OUTPUTS / "dkms-status" / name)
        assert parsed.format == "dkms-status" and facts(parsed) == {}
        signals[name] = [(s.kind, s.detail, s.evidence[0].line) for s in parsed.signals]
    assert signals == {
        "legacy-rocm-687-added-only.txt": [("dkms.not_installed", "amdgpu/2.0-89: added", 1)],
        "legacy-rocm-660-built-not-installed.txt": [
            ("dkms.not_installed", "amdgpu/2.0-89: built", 1)]}
    case = load(next(CORPUS.glob("237-*")) / "dkms-status.txt")
    assert [(s.kind, s.detail) for s in case.signals] == [
        ("dkms.not_installed", "amdgpu/1.9-307: added")]
    current = parse("amdgpu/6.8.5-2009582.24.04: added\n", "dkms.txt")
    assert [s.detail for s in current.signals] == ["amdgpu/6.8.5-2009582.24.04: added"]


def test_dkms_a_version_installed_for_some_kernel_is_no_never_installed_module() -> None:
    for name in ("legacy-rocm-774-added-and-installed.txt",
                 "legacy-rocm-804-el7-built-and-installed.txt"):
        parsed = load(OUTPUTS / "dkms-status" / name)
        assert not [s for s in parsed.signals if s.kind == "dkms.not_installed"], name


def test_dkms_nvidia_module() -> None:
    # The dkms line for the driver of open-gpu-kernel-modules#626 (550.67), current layout.
    parsed = parse("nvidia/550.67, 6.8.7-arch1-1, x86_64: installed\n", "dkms.txt")
    assert facts(parsed) == {"nvidia_driver_version": "550.67",
                             "nvidia_dkms_kernels": "6.8.7-arch1-1"}


# ----------------------------------------------------------------------------- dpkg

def test_dpkg_rocm40_without_rocm_core() -> None:
    parsed = load(OUTPUTS / "dpkg-list" / "legacy-rocm-1044-rocm40.txt")
    assert parsed.format == "dpkg-list"
    # rocm-dev 4.0.0.40000-23: the build tag 40000 is ROCm 4.0.0
    assert facts(parsed) == {"rocm_version": "4.0.0"}
    assert parsed.stack_facts[0].source.endswith(":11")


def test_dpkg_nvidia_510_with_a_removed_495() -> None:
    parsed = load(OUTPUTS / "dpkg-list" / "nvidia-container-toolkit-188-nvidia510.txt")
    assert facts(parsed)["nvidia_driver_version"] == "510.47.03"


def test_dpkg_removed_packages_do_not_count() -> None:
    removed = load(OUTPUTS / "dpkg-list" / "legacy-rocm-1436-amdgpu-dkms-removed.txt")
    assert "amdgpu_driver_version" not in facts(removed)  # amdgpu-dkms is "rc"
    narrow = load(OUTPUTS / "dpkg-list" / "nvidia-docker-1506-narrow-columns.txt")
    assert facts(narrow)["nvidia_driver_version"] == "465.19.01"  # not the rc 440/418/410


def test_dpkg_rock_dkms() -> None:
    parsed = load(OUTPUTS / "dpkg-list" / "rocm-amdgpu-115-rock-dkms.txt")
    assert facts(parsed) == {"amdgpu_driver_version": "4.3"}


def test_dpkg_current_rocm_packages() -> None:
    # Versions as ROCm's repository names them (ROCm/legacy-rocm-build#1748's install log and
    # the corpus 035 dkms version), in dpkg -l's column layout.
    text = ("ii  amdgpu-dkms      1:6.2.4.50700-1652687.22.04  all    amdgpu driver in DKMS\n"
            "ii  hip-runtime-amd  5.7.31921.50700-63~22.04     amd64  HIP runtime\n"
            "ii  rocm-core        5.7.0.50700-63~22.04         amd64  Radeon Open Compute\n")
    assert sniff(text) == ("dpkg-list", 0.85)
    assert facts(parse(text, "dpkg.txt")) == {
        "rocm_version": "5.7.0", "hip_runtime_version": "5.7.31921",
        "amdgpu_driver_version": "6.2.4"}


# ----------------------------------------------------------------------------- nvcc

def test_nvcc_case_019() -> None:
    path = CORPUS / "019-nvidia-smi-table-layout-variants-440-460-470" / "nvcc-V-440-era.txt"
    assert sniff(read(path)) == ("nvcc-version", 0.95)
    parsed = load(path)
    assert [(f.key, f.value, f.source) for f in parsed.stack_facts] == [
        ("cuda_toolkit_version", "10.2", "nvcc-V-440-era.txt:4")]
    assert "cuda_driver_version" not in facts(parsed)


def test_nvcc_10_0() -> None:
    parsed = load(OUTPUTS / "nvcc-version" / "qixuema-envs-4-nvcc-10.0.txt")
    assert facts(parsed) == {"cuda_toolkit_version": "10.0"}


def test_sniff_leaves_other_formats_alone() -> None:
    for path in (CORPUS / "005-wsl2-rx7900xtx-rocminfo" / "rocminfo.txt",
                 CORPUS / "035-rx6700xt-gfx1031-invalid-device-function" / "lspci-vga.txt",
                 CORPUS / "035-rx6700xt-gfx1031-invalid-device-function" / "rocm-smi.txt",
                 CORPUS / "029-windows-cpu-only-torch-collect-env" / "collect_env.txt",
                 OUTPUTS / "kernel-log" / "ollama-2453-amdgpu-dkms-6.2.4-polaris.txt",
                 OUTPUTS / "nvidia-smi-table" / "yamda-10-440-quadro-rtx6000.txt"):
        assert sniff(read(path)) is None, path.name


# ----------------------------------------------------------------------------- package lists

def corpus(case: str, name: str) -> Path:
    return next(CORPUS.glob(f"{case}-*")) / name


def rocm(path: Path) -> tuple[str, object, str]:
    parsed = load(path)
    found = [f for f in parsed.stack_facts if f.key == "rocm_version"]
    assert len(found) == 1, (parsed.format, parsed.stack_facts, parsed.problems)
    return parsed.format, found[0].value, found[0].source


def test_rpm_qa_fedora_rocm_core_case_101() -> None:
    assert rocm(corpus("101", "rpm-qa.txt")) == ("package-rpm", "7.1.0", "rpm-qa.txt:4")


def test_dnf_transaction_tail_case_203() -> None:
    # Fedora's own rocminfo is versioned by the ROCm release.
    assert rocm(corpus("203", "dnf-install.txt")) == ("package-rpm", "5.7.0", "dnf-install.txt:1")


def test_pacman_ss_installed_rows_case_112() -> None:
    # Arch's rocm-core 6.2.4 wins over its meta packages' 6.2.2 and hsa-rocr's 6.2.1.
    assert rocm(corpus("112", "pacman-rocm.txt")) == (
        "package-pacman", "6.2.4", "pacman-rocm.txt:9")


def test_amdgpu_install_already_newest_case_111() -> None:
    parsed = load(corpus("111", "amdgpu-install.txt"))
    assert parsed.format == "package-apt-log"
    assert facts(parsed) == {"rocm_version": "6.0.3"}  # rocm-utils 6.0.3.60003
    assert [(s.kind, s.detail) for s in parsed.signals] == [
        ("dkms.error", "Could not locate dkms.conf file."), ("dkms.build_failed", None)]


def test_amdgpu_install_on_wsl_case_152() -> None:
    parsed = load(corpus("152", "amdgpu-install.txt"))
    assert parsed.format == "package-apt-log"
    assert facts(parsed) == {}  # amdgpu-dkms was unpacked, its module never built
    host = {f.key: (f.value, f.source) for f in parsed.host_facts}
    assert host == {"kernel": ("5.15.153.1-microsoft-standard-WSL2", "amdgpu-install.txt:17"),
                    "os": ("wsl", "amdgpu-install.txt:17")}
    kinds = [(s.kind, s.detail) for s in parsed.signals]
    assert ("dkms.build_failed", "5.15.153.1-microsoft-standard-WSL2") in kinds
    assert ("platform.wsl", None) in kinds


def test_rpm_qa_rocm21_build_numbers_are_no_patch_release() -> None:
    # rocm-dev 2.1.96: before ROCm 3 the third number was a build; rocminfo 1.0.0 is
    # versioned on its own and does not say ROCm 1.0.
    path = OUTPUTS / "package-list" / "rpm-qa-legacy-rocm-419-centos7-rocm21.txt"
    assert rocm(path) == ("package-rpm", "2.1", f"{path.name}:1")


def test_rpm_fedora_rocm_core_beats_amd_el9_tags() -> None:
    # rocm-smi-lib 7.0.0.60100 (AMD's el9 build) says 6.1.0; Fedora's rocm-core says 6.0.2.
    path = OUTPUTS / "package-list" / "rpm-pytorch-128313-fedora40-mixed-el9.txt"
    assert rocm(path) == ("package-rpm", "6.0.2", f"{path.name}:7")


def test_yay_qs_local_rows_with_descriptions() -> None:
    path = OUTPUTS / "package-list" / "yay-qs-rocm-arch-289-rocm35.txt"
    assert rocm(path) == ("package-pacman", "3.5.0", f"{path.name}:26")  # rocm-dev


def test_apt_list_counts_only_installed_rows() -> None:
    path = OUTPUTS / "package-list" / "apt-list-legacy-rocm-5657-rocm710.txt"
    assert rocm(path) == ("package-apt", "7.1.0", f"{path.name}:24")
    text = read(path).replace(" [installed,automatic]", "")
    assert "rocm_version" not in facts(parse(text, "available.txt"))


def test_apt_log_in_another_language() -> None:
    path = OUTPUTS / "package-list" / "apt-log-cs-legacy-rocm-1748-rocm513.txt"
    parsed = load(path)
    assert parsed.format == "package-apt-log"
    assert facts(parsed) == {"rocm_version": "5.1.3"}  # no driver version from a log


def test_dnf_list_available_is_not_installed() -> None:
    # dnf list's layout: name.arch  version-release  repo (@repo when installed).
    text = ("Installed Packages\n"
            "rocm-core.x86_64            6.0.2.60002-115.el9       @rocm\n"
            "Available Packages\n"
            "rocm-core.x86_64            6.1.0.60100-82.el9        rocm\n")
    assert sniff(text) == ("package-rpm", 0.8)
    assert facts(parse(text, "dnf.txt")) == {"rocm_version": "6.0.2"}
    available = text.split("Available Packages\n")[1]
    assert "rocm_version" not in facts(parse("Available Packages\n" + available, "a.txt"))


def test_zypper_search_installed_rows() -> None:
    text = ("S  | Name      | Type    | Version                 | Arch   | Repository\n"
            "---+-----------+---------+-------------------------+--------+-----------\n"
            "i+ | rocm-core | package | 6.2.0.60200-sles155.66  | x86_64 | rocm\n"
            "v  | rocm-core | package | 6.2.1.60201-sles155.112 | x86_64 | rocm\n")
    assert sniff(text) == ("package-zypper", 0.8)
    assert facts(parse(text, "z.txt")) == {"rocm_version": "6.2.0"}


def test_distribution_lists_name_the_drivers() -> None:
    pacman = facts(parse("nvidia-utils 550.78-1\nnvidia-dkms 550.78-1\ncuda 12.4.1-4\n",
                         "q.txt"))
    assert (pacman["nvidia_driver_version"], pacman["cuda_toolkit_version"]) == (
        "550.78", "12.4")
    assert "rocm_version" not in pacman
    rpm = "amdgpu-dkms-6.3.6-1718217.el9.noarch\nrocm-core-6.0.2.60002-115.el9.x86_64\n"
    assert facts(parse(rpm, "rpm.txt")) == {"rocm_version": "6.0.2",
                                             "amdgpu_driver_version": "6.3.6"}


def test_package_lists_leave_other_text_alone() -> None:
    for text in ("Linux host 5.15.0-91-generic #101-Ubuntu SMP x86_64 GNU/Linux\n",
                 "torch 2.6.0+rocm6.2.4\ntorchvision 0.21.0+rocm6.2.4\n",
                 "GPU 0: NVIDIA GeForce RTX 4090 (UUID: GPU-1)\n"):
        assert sniff(text) is None, text


# ----------------------------------------------------------------------------- properties

REAL_TEXTS = [read(p) for d in ("dkms-status", "dpkg-list", "nvcc-version", "package-list")
              for p in sorted((OUTPUTS / d).glob("*.txt"))] + [
    read(CORPUS / "035-rx6700xt-gfx1031-invalid-device-function" / "dkms-status.txt")] + [
    read(corpus(case, name)) for case, name in (
        ("101", "rpm-qa.txt"), ("111", "amdgpu-install.txt"), ("112", "pacman-rocm.txt"),
        ("152", "amdgpu-install.txt"), ("203", "dnf-install.txt"))]


(
    test_random_text_never_raises,
    test_truncated_real_output_never_raises,
    test_shuffled_real_output_never_raises,
) = property_tests(sniff, parse, REAL_TEXTS)
