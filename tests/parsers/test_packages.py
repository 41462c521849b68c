"""dkms status, dpkg -l and nvcc --version over real pastes: corpus cases 035 (dkms) and 019
(nvcc), and tests/fixtures/outputs/{dkms-status,dpkg-list,nvcc-version}/ (SOURCES.md there)."""

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
    assert FORMATS == ("dkms-status", "dpkg-list", "nvcc-version")


# ----------------------------------------------------------------------------- dkms

def test_dkms_status_case_035() -> None:
    path = CORPUS / "035-rx6700xt-gfx1031-invalid-device-function" / "dkms-status.txt"
    assert sniff(read(path)) == ("dkms-status", 0.9)
    parsed = load(path)
    assert parsed.format == "dkms-status"
    assert [(f.key, f.value, f.source) for f in parsed.stack_facts] == [
        ("amdgpu_driver_version", "6.2.4", "dkms-status.txt:1")]
    assert parsed.signals == () and parsed.problems == ()


def test_dkms_old_layout_only_installed_counts() -> None:
    parsed = load(OUTPUTS / "dkms-status" / "legacy-rocm-804-el7-built-and-installed.txt")
    assert facts(parsed) == {"amdgpu_driver_version": "2.4"}  # 19.10 was only built
    assert parsed.stack_facts[0].source.endswith(":2")
    added = load(OUTPUTS / "dkms-status" / "legacy-rocm-774-added-and-installed.txt")
    assert facts(added) == {"amdgpu_driver_version": "2.3"}  # 18.50 was only added


def test_dkms_errors() -> None:
    broken = load(OUTPUTS / "dkms-status" / "legacy-rocm-3701-missing-dkms-conf.txt")
    assert [(s.kind, s.detail) for s in broken.signals] == [
        ("dkms.error", "Could not locate dkms.conf file.")]
    assert broken.stack_facts == ()
    failed = load(OUTPUTS / "dkms-status" / "m-bab-101-nvidia-build-failed.txt")
    assert [(s.kind, s.detail, s.evidence[0].line) for s in failed.signals] == [
        ("dkms.build_failed", "5.13.18-21.09.16.amdgpu.ubuntu", 5)]


def test_dkms_nvidia_module() -> None:
    # The dkms line for the driver of open-gpu-kernel-modules#626 (550.67), current layout.
    parsed = parse("nvidia/550.67, 6.8.7-arch1-1, x86_64: installed\n", "dkms.txt")
    assert facts(parsed) == {"nvidia_driver_version": "550.67"}


# ----------------------------------------------------------------------------- dpkg

def test_dpkg_rocm40_without_rocm_core() -> None:
    parsed = load(OUTPUTS / "dpkg-list" / "legacy-rocm-1044-rocm40.txt")
    assert parsed.format == "dpkg-list"
    # rocm-dev 4.0.0.40000-23: the build tag 40000 is ROCm 4.0.0
    assert facts(parsed) == {"rocm_version": "4.0.0"}
    assert parsed.stack_facts[0].source.endswith(":11")


def test_dpkg_nvidia_510_with_a_removed_495() -> None:
    parsed = load(OUTPUTS / "dpkg-list" / "nvidia-container-toolkit-188-nvidia510.txt")
    assert facts(parsed) == {"nvidia_driver_version": "510.47.03"}


def test_dpkg_removed_packages_do_not_count() -> None:
    removed = load(OUTPUTS / "dpkg-list" / "legacy-rocm-1436-amdgpu-dkms-removed.txt")
    assert "amdgpu_driver_version" not in facts(removed)  # amdgpu-dkms is "rc"
    narrow = load(OUTPUTS / "dpkg-list" / "nvidia-docker-1506-narrow-columns.txt")
    assert facts(narrow) == {"nvidia_driver_version": "465.19.01"}  # not the rc 440/418/410


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


# ----------------------------------------------------------------------------- properties

REAL_TEXTS = [read(p) for d in ("dkms-status", "dpkg-list", "nvcc-version")
              for p in sorted((OUTPUTS / d).glob("*.txt"))] + [
    read(CORPUS / "035-rx6700xt-gfx1031-invalid-device-function" / "dkms-status.txt")]


(
    test_random_text_never_raises,
    test_truncated_real_output_never_raises,
    test_shuffled_real_output_never_raises,
) = property_tests(sniff, parse, REAL_TEXTS)
