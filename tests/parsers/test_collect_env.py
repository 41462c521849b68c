"""collect_env importer over real pastes: corpus cases 015 (TheRock Windows ROCm nightlies) and
029 (Windows CPU-only), and tests/fixtures/outputs/collect_env/ (SOURCES.md there): 2020
layouts, Linux CUDA/ROCm, WSL2, macOS."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from parser_properties import assert_clean, property_tests, read

from gpuscope.inventory import join_gpus
from gpuscope.model import Framework, GpuKind, Layer, ParsedOutput, Vendor
from gpuscope.parsers.collect_env import FORMATS, parse, sniff

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CORPUS = FIXTURES / "corpus"
OUTPUTS = FIXTURES / "outputs" / "collect_env"
CASE_015 = CORPUS / "015-windows-rx7900xtx-therock-collect-env"


def load(path: Path) -> ParsedOutput:
    return parse(read(path), path.name)


def torch_of(parsed: ParsedOutput) -> Framework:
    (framework,) = parsed.frameworks
    assert framework.name == "torch"
    assert framework.python == "pasted collect_env"
    return framework


def facts(parsed: ParsedOutput, which: str) -> dict[str, object]:
    items = parsed.host_facts if which == "host" else parsed.stack_facts
    return {f.key: f.value for f in items}


def test_formats() -> None:
    assert FORMATS == ("collect_env",)


def test_therock_nightly_case_015() -> None:
    path = CASE_015 / "collect_env-torch2.10-nightly.txt"
    assert sniff(read(path)) == ("collect_env", 0.96)  # no banner line in this paste
    parsed = load(path)
    torch = torch_of(parsed)
    assert (torch.version, torch.build, torch.build_version) == (
        "2.10.0a0+rocm7.10.0a20251120", "rocm", "7.10.0")
    assert torch.gpu_available is True
    assert [(d.name, d.arch) for d in torch.devices] == [("AMD Radeon RX 7900 XTX", "gfx1100")]
    assert torch.math_library_version == "3.5.1"  # MIOpen
    assert torch.python_version == "3.12.10"
    (gpu,) = parsed.sightings
    assert gpu.layer is Layer.TORCH
    assert (gpu.facts.name, gpu.facts.gfx_target, gpu.facts.vendor) == (
        "AMD Radeon RX 7900 XTX", "gfx1100", Vendor.AMD)
    assert gpu.facts.pci_bus is None and "pci_bus" in gpu.missing_reasons
    assert gpu.field_sources["gfx_target"] == "collect_env-torch2.10-nightly.txt:17"
    assert facts(parsed, "host") == {
        "os": "windows", "distro": "Microsoft Windows 11 Pro (10.0.22631 64-bit)",
        "cpu_model": "13th Gen Intel(R) Core(TM) i7-13700F"}
    # HIP 7.2.0 is the runtime's own number (TheRock); the build's 7.10.0 stays on the build.
    assert facts(parsed, "stack") == {"hip_runtime_version": "7.2.0"}
    assert parsed.signals == () and parsed.problems == ()


def test_therock_rocmsdk_case_015() -> None:
    parsed = load(CASE_015 / "collect_env-torch2.9-rocm711.txt")
    torch = torch_of(parsed)
    assert (torch.version, torch.build, torch.build_version) == (
        "2.9.0+rocmsdk20251116", "rocm", "7.1.52802-561cc400e1")
    assert facts(parsed, "stack") == {"hip_runtime_version": "7.1.52802"}


def test_both_015_environments_are_one_gpu() -> None:
    sightings = [s for path in sorted(CASE_015.glob("*.txt")) for s in load(path).sightings]
    (gpu,) = join_gpus(sightings)
    assert gpu.gfx_target == "gfx1100"


def test_windows_cpu_only_case_029() -> None:
    parsed = load(CORPUS / "029-windows-cpu-only-torch-collect-env" / "collect_env.txt")
    torch = torch_of(parsed)
    assert (torch.version, torch.build, torch.gpu_available) == (
        "2.8.0.dev20250528+cpu", "cpu", False)
    assert torch.devices == () and parsed.sightings == ()
    assert facts(parsed, "host")["os"] == "windows"
    assert facts(parsed, "host")["cpu_model"] == "12th Gen Intel(R) Core(TM) i7-1270P"
    # "No CUDA" everywhere is not a driver version, nor a problem.
    assert parsed.stack_facts == () and parsed.signals == ()
    assert torch.evidence[0].label() == "collect_env.txt:4"  # after the two warning lines


def test_rocm_2020_layout_without_platform_line() -> None:
    parsed = load(OUTPUTS / "pytorch-44106-rocm37-2020.txt")
    torch = torch_of(parsed)
    assert (torch.build, torch.build_version, torch.gpu_available) == (
        "rocm", "3.7.20315-077bcfa0", True)
    assert torch.python_version == "3.6"
    (gpu,) = parsed.sightings
    assert (gpu.layer, gpu.facts.name, gpu.facts.pci_device_id, gpu.facts.vendor) == (
        Layer.TORCH, "Device 66a1", "0x66a1", Vendor.AMD)
    assert facts(parsed, "host") == {"os": "linux", "distro": "Ubuntu 18.04.4 LTS"}
    assert facts(parsed, "stack") == {"hip_runtime_version": "3.18.2"}
    assert torch.math_library_version == "2.6.0"


def test_feature_suffix_is_dropped_from_targets() -> None:
    for name, target in (("pytorch-145670-gentoo-rocm63-gfx1010.txt", "gfx1010"),
                         ("pytorch-131901-mi210-rocm61.txt", "gfx90a"),
                         ("pytorch-180500-mi300x-therock-rocm713.txt", "gfx942"),
                         ("groundingdino-328-rocm60-gfx1030-warning.txt", "gfx1030")):
        parsed = load(OUTPUTS / name)
        assert [s.facts.gfx_target for s in parsed.sightings] == [target], name
        assert torch_of(parsed).build == "rocm", name


def test_linux_host_facts_from_platform_and_lscpu() -> None:
    parsed = load(OUTPUTS / "pytorch-180500-mi300x-therock-rocm713.txt")
    assert facts(parsed, "host") == {
        "os": "linux", "distro": "Ubuntu 24.04.4 LTS", "kernel": "6.2.0-25-generic",
        "cpu_model": "AMD EPYC 9654 96-Core Processor"}
    gentoo = load(OUTPUTS / "pytorch-145670-gentoo-rocm63-gfx1010.txt")
    assert facts(gentoo, "host")["kernel"] == "6.7.7-gentoo-dist"


def test_source_build_without_rocm_suffix_is_rocm() -> None:
    torch = torch_of(load(OUTPUTS / "pytorch-131901-mi210-rocm61.txt"))
    assert (torch.version, torch.build) == ("2.3.0a0+gitae01701", "rocm")


def test_cuda_windows_build() -> None:
    parsed = load(OUTPUTS / "pytorch-51858-windows-cu117.txt")
    torch = torch_of(parsed)
    assert (torch.build, torch.build_version, torch.gpu_available) == ("cuda", "11.7", True)
    assert torch.math_library_version == "8"  # cudnn_ops_train64_8.dll
    assert [(s.layer, s.facts.name) for s in parsed.sightings] == [
        (Layer.NVML, "NVIDIA GeForce GTX 1050 Ti"), (Layer.TORCH, "NVIDIA GeForce GTX 1050 Ti")]
    stack = facts(parsed, "stack")
    assert stack["nvidia_driver_version"] == "535.98"
    assert stack["cuda_toolkit_version"] == "11.7"  # "CUDA runtime version" is the toolkit
    assert "cuda_driver_version" not in stack
    assert facts(parsed, "host")["cpu_model"] == "Intel(R) Core(TM) i7-10700 CPU @ 2.90GHz"


def test_eight_h100_multi_line_gpu_list() -> None:
    parsed = load(OUTPUTS / "vllm-6408-h100x8-cu121.txt")
    torch = torch_of(parsed)
    assert [d.index for d in torch.devices] == list(range(8))
    assert torch.math_library_version == "8.9.7"
    nvml = [s for s in parsed.sightings if s.layer is Layer.NVML]
    assert len(nvml) == 8 and {s.facts.name for s in nvml} == {"NVIDIA H100 80GB HBM3"}
    assert nvml[0].field_sources["name"] == "vllm-6408-h100x8-cu121.txt:19"
    gpus = join_gpus(parsed.sightings)
    assert len(gpus) == 8  # torch's view of each card joins nvidia-smi's, never merges cards
    assert all(set(g.seen_by) == {Layer.NVML, Layer.TORCH} for g in gpus)


def test_2020_layout_cuda_not_available() -> None:
    parsed = load(OUTPUTS / "pytorch-43058-rhel-v100x2-2020.txt")
    torch = torch_of(parsed)
    assert (torch.version, torch.build, torch.build_version, torch.gpu_available) == (
        "1.6.0", "cuda", "10.2", False)
    assert torch.devices == ()  # torch sees none; the names came from nvidia-smi -L
    assert [(s.layer, s.facts.name) for s in parsed.sightings] == [
        (Layer.NVML, "Tesla V100-PCIE-16GB")] * 2
    assert facts(parsed, "host")["distro"] == "Red Hat Enterprise Linux Server 7.6 (Maipo)"


def test_wsl2() -> None:
    parsed = load(OUTPUTS / "wsl-8102-wsl2-cu113-not-available.txt")
    assert facts(parsed, "host")["os"] == "wsl"
    assert facts(parsed, "host")["kernel"] == "5.10.16.3-microsoft-standard-WSL2"
    assert [s.kind for s in parsed.signals] == ["platform.wsl"]
    assert parsed.signals[0].evidence[0].line == 14
    assert torch_of(parsed).gpu_available is False
    assert facts(parsed, "stack")["nvidia_driver_version"] == "511.79"


def test_macos_arm64() -> None:
    parsed = load(OUTPUTS / "pytorch-164943-macos-arm64-nightly.txt")
    torch = torch_of(parsed)
    assert (torch.build, torch.gpu_available) == ("mps", None)
    assert facts(parsed, "host") == {"os": "macos", "distro": "macOS 13.7.4",
                                     "cpu_model": "Apple M2 Max"}
    assert parsed.sightings == () and parsed.stack_facts == ()


def test_unknown_cuda_build_is_not_called_cpu() -> None:
    # pytorch/pytorch#44303 (2020): "CUDA used to build PyTorch: Could not collect".
    text = ("PyTorch version: 1.3.1\nIs debug build: No\n"
            "CUDA used to build PyTorch: Could not collect\n\nOS: Ubuntu 18.04.4 LTS\n")
    assert torch_of(parse(text, "x")).build == "unknown"


def test_not_collect_env() -> None:
    assert sniff(read(CORPUS / "005-wsl2-rx7900xtx-rocminfo" / "rocminfo.txt")) is None
    assert sniff(read(FIXTURES / "outputs" / "nvidia-smi-table"
                      / "hami-1903-580-a800x2.txt")) is None
    parsed = parse("no torch here", "x")
    assert parsed.frameworks == () and parsed.problems


# ----------------------------------------------------------------------------- properties

REAL_TEXTS = [read(p) for p in sorted(OUTPUTS.glob("*.txt"))] + [
    read(p) for p in sorted(CASE_015.glob("*.txt"))] + [
    read(CORPUS / "029-windows-cpu-only-torch-collect-env" / "collect_env.txt")]


(
    test_random_text_never_raises,
    test_truncated_real_output_never_raises,
    test_shuffled_real_output_never_raises,
) = property_tests(sniff, parse, REAL_TEXTS)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=3000))
def test_random_text_after_pytorch_version_never_raises(text: str) -> None:
    assert_clean(parse("PyTorch version: " + text, "random"))


def test_rocm_build_lists_an_igpu_beside_the_card() -> None:
    # collect_env of a ROCm build prints torch.cuda.get_device_name() with the gfx target.
    text = read(OUTPUTS / "groundingdino-328-rocm60-gfx1030-warning.txt").replace(
        "AMD Radeon RX 6800 XT (gfx1030)",
        "AMD Radeon RX 6800 XT (gfx1030)\nAMD Radeon Graphics (gfx1036)")
    parsed = parse(text, "env.txt")
    assert [(s.facts.gfx_target, s.facts.kind) for s in parsed.sightings] == [
        ("gfx1030", None), ("gfx1036", GpuKind.INTEGRATED)]
