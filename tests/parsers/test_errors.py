"""The error-text scanner over real pasted errors (corpus cases 010, 016, 035 and the fixtures
in tests/fixtures/outputs/error-text/, sources in SOURCES.md there)."""

from __future__ import annotations

from pathlib import Path

from parser_properties import property_tests, read

from gpuscope.model import Signal
from gpuscope.parsers.errors import parse_error_text, scan_signals

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CORPUS = FIXTURES / "corpus"
OUTPUTS = FIXTURES / "outputs" / "error-text"


def kinds(signals: tuple[Signal, ...]) -> set[str]:
    return {s.kind for s in signals}


def only(signals: tuple[Signal, ...], kind: str) -> Signal:
    found = [s for s in signals if s.kind == kind]
    assert len(found) == 1, [s.kind for s in signals]
    return found[0]


def test_torch_invalid_device_function_case_035() -> None:
    signals = scan_signals(read(CORPUS / "035-rx6700xt-gfx1031-invalid-device-function"
                                / "torch-error.txt"), "torch-error.txt")
    signal = only(signals, "hip.invalid_device_function")
    assert signal.evidence[0].label() == "torch-error.txt:1"
    assert signal.evidence[0].text == "RuntimeError: HIP error: invalid device function"
    assert signal.gfx_target is None  # the traceback names no target
    assert kinds(signals) == {"hip.invalid_device_function"}


def test_target_named_elsewhere_in_the_same_paste_is_used() -> None:
    case = CORPUS / "035-rx6700xt-gfx1031-invalid-device-function"
    text = read(case / "rocminfo.txt") + "\n" + read(case / "torch-error.txt")
    signal = only(scan_signals(text, "paste.txt"), "hip.invalid_device_function")
    assert signal.gfx_target == "gfx1031"


def test_rocblas_tensile_and_rocm_path_case_010() -> None:
    text = read(CORPUS / "010-apu-780m-gfx1103-rocm57-rocblas" / "rocblas-error.txt")
    parsed = parse_error_text(text, "rocblas-error.txt")
    assert parsed.format == "error-text"
    tensile = only(parsed.signals, "rocblas.tensile_missing")
    assert tensile.gfx_target == "gfx1103"  # the arch it looked for, not the 12 it listed
    assert tensile.evidence[0].line == 1
    path = only(parsed.signals, "rocm.path_version")
    assert path.detail == "5.7.0"
    assert len(path.evidence) == 13  # every line naming /opt/rocm-5.7.0, one signal
    assert [(f.key, f.value, f.source) for f in parsed.stack_facts] == [
        ("rocm_version", "5.7.0", "rocblas-error.txt:1")]
    assert parsed.problems == ()


def test_nvml_mismatch_case_016() -> None:
    text = read(CORPUS / "016-nvml-driver-library-mismatch-570" / "nvidia-smi.txt")
    signals = scan_signals(text, "nvidia-smi.txt")
    assert only(signals, "nvml.driver_library_mismatch").evidence[0].line == 1
    assert "nvidia.driver_not_loaded" not in kinds(signals)


def test_nvidia_container_cli_mismatch() -> None:
    signals = scan_signals(read(OUTPUTS / "dalle-playground-104-container-nvml-mismatch.txt"),
                           "docker.txt")
    assert only(signals, "nvml.driver_library_mismatch").evidence[0].line == 4


def test_old_no_binary_wording() -> None:
    signals = scan_signals(read(OUTPUTS / "tensorflow-upstream-1106-no-binary-old-wording.txt"),
                           "tf.txt")
    assert kinds(signals) == {"hip.no_binary_for_gpu"}


def test_no_binary_current_wording_with_target() -> None:
    # Titles of ROCm/legacy-rocm-build#2061 and the rocBLAS wording named in the brief.
    text = ("hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\n"
            "Cannot read /opt/rocm-5.7.0/lib/rocblas/library/TensileLibrary.dat: No such file "
            "or directory for GPU arch : gfx1031\n")
    signals = scan_signals(text, "paste.txt")
    assert only(signals, "hip.no_binary_for_gpu").gfx_target == "gfx1031"
    assert only(signals, "rocblas.tensile_missing").gfx_target == "gfx1031"


def test_hsa_status_named_and_numeric() -> None:
    signals = scan_signals(read(OUTPUTS / "legacy-rocm-2232-rocminfo-out-of-resources.txt"),
                           "rocminfo.txt")
    assert only(signals, "hsa.error").detail == "HSA_STATUS_ERROR_OUT_OF_RESOURCES"
    # ROCm/legacy-rocm-build#670's title: old rocminfo printed the number.
    numeric = scan_signals("Ubuntu 18.04 w/ rx480 shows: Call returned 4104", "title")
    assert only(numeric, "hsa.error").detail == "HSA_STATUS_ERROR_OUT_OF_RESOURCES"


def test_cuda_capability_warning_is_no_kernel_image() -> None:
    signals = scan_signals(read(OUTPUTS / "stable-diffusion-k8s-10-sm90-not-compatible.txt"),
                           "warn.txt")
    signal = only(signals, "cuda.no_kernel_image")
    assert signal.detail == "sm_90"
    assert signal.evidence[0].line == 2


def test_no_hip_devices() -> None:
    for name in ("pytorch-70036-no-hip-gpus.txt", "pytorch-70036-hip-error-no-device.txt"):
        signals = scan_signals(read(OUTPUTS / name), name)
        assert kinds(signals) == {"hip.no_device"}, name


def test_kfd_lines_in_pasted_rocminfo() -> None:
    text = read(CORPUS / "024-2x-radeon-vii-gfx906-rock-not-loaded" / "rocminfo.txt")
    assert "kfd.not_loaded" in kinds(scan_signals(text, "rocminfo.txt"))


def test_collect_env_availability_lines_are_not_errors() -> None:
    for path in (CORPUS / "029-windows-cpu-only-torch-collect-env" / "collect_env.txt",
                 *sorted((CORPUS / "015-windows-rx7900xtx-therock-collect-env").glob("*.txt")),
                 *sorted((FIXTURES / "outputs" / "collect_env").glob("*.txt"))):
        assert scan_signals(read(path), path.name) == (), path.name


def test_clean_outputs_yield_nothing() -> None:
    for path in (CORPUS / "019-nvidia-smi-table-layout-variants-440-460-470"
                 / "nvidia-smi-440.txt",
                 CORPUS / "005-wsl2-rx7900xtx-rocminfo" / "rocminfo.txt"):
        assert scan_signals(read(path), path.name) == (), path.name


def test_several_rocm_versions_give_no_rocm_version_fact() -> None:
    text = ("Cannot read /opt/rocm-5.7.0/lib/rocblas/library/TensileLibrary.dat\n"
            "/opt/rocm-6.0.2/lib/libamdhip64.so\n")
    parsed = parse_error_text(text, "mixed.txt")
    assert {s.detail for s in parsed.signals if s.kind == "rocm.path_version"} == {
        "5.7.0", "6.0.2"}
    assert parsed.stack_facts == ()
    assert parsed.problems


# ----------------------------------------------------------------------------- properties

REAL = [read(p) for p in sorted(OUTPUTS.glob("*.txt"))] + [
    read(CORPUS / "010-apu-780m-gfx1103-rocm57-rocblas" / "rocblas-error.txt"),
    read(CORPUS / "035-rx6700xt-gfx1031-invalid-device-function" / "torch-error.txt"),
]


def _scan(text: str) -> None:
    """The error scan runs on every input, whatever its format: it stands in for `sniff`."""
    scan_signals(text, "random")


(
    test_random_text_never_raises,
    test_truncated_real_text_never_raises,
    test_shuffled_real_text_never_raises,
) = property_tests(_scan, parse_error_text, REAL)
