"""What Python sessions and PyTorch itself print, over real pastes: tests/fixtures/outputs/
python-session/ and python-output/ (SOURCES.md there) and corpus cases 158 to 161 and 209."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from parser_properties import assert_clean, fact, property_tests, read, signals_of

from gpuscope.inventory import join_gpus
from gpuscope.model import Framework, Layer, ParsedOutput, Vendor
from gpuscope.parsers import parse_any
from gpuscope.parsers.python_text import FORMATS, parse, scan, sniff

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CORPUS = FIXTURES / "corpus"
SESSIONS = FIXTURES / "outputs" / "python-session"
OUTPUTS = FIXTURES / "outputs" / "python-output"
REAL = sorted([*SESSIONS.glob("*.txt"), *OUTPUTS.glob("*.txt")])


def load(path: Path) -> ParsedOutput:
    parsed = parse(read(path), path.name)
    assert_clean(parsed)
    return parsed


def only_torch(parsed: ParsedOutput) -> Framework:
    (torch,) = parsed.frameworks
    assert torch.name == "torch"
    return torch


def case(prefix: str, name: str) -> Path:
    (folder,) = CORPUS.glob(prefix + "*")
    return folder / name


def test_formats_and_sniff() -> None:
    assert FORMATS == ("python-session", "python-output")
    assert sniff(read(SESSIONS / "uv-14086-rocm63-arch-list-pprint.txt")) == (
        "python-session", 0.75)
    assert sniff(read(OUTPUTS / "yuan-65-dist-packages-driver-too-old-11000.txt")) == (
        "python-output", 0.6)
    assert sniff("lorem ipsum\n$ ls\n") is None
    # collect_env and the tools' own outputs keep their parsers
    collect_env = read(FIXTURES / "outputs" / "collect_env" / "pytorch-51858-windows-cu117.txt")
    assert parse_any(collect_env, "c.txt").format == "collect_env"


def test_session_with_version_and_cuda_case_158() -> None:
    parsed = load(case("158", "python-torch-version.txt"))
    torch = only_torch(parsed)
    assert (torch.version, torch.build, torch.build_version) == ("2.1.2+cu121", "cuda", "12.1")
    assert torch.python_version == "3.11.5" and torch.python is None
    assert fact(parsed, "os") == "linux"  # "[GCC 11.2.0] on linux"
    assert [e.line for e in torch.evidence] == [3, 4, 5, 6, 7]


def test_driver_too_old_warning_case_158() -> None:
    parsed = load(case("158", "torch-warning.txt"))
    torch = only_torch(parsed)
    assert (torch.build, torch.version, torch.gpu_available) == ("cuda", None, False)
    assert fact(parsed, "cuda_driver_version") == "11.8"  # found version 11080


@pytest.mark.parametrize(("name", "cuda", "python", "os"), [
    ("pytorch-162531-ci-driver-too-old-12080.txt", "12.8",
     "/opt/conda/envs/py_3.10/bin/python3.10", "linux"),
    ("yuan-65-dist-packages-driver-too-old-11000.txt", "11.0", "/usr/bin/python3.10", "linux"),
    ("trixie-9-driver-too-old-assert-2020.txt", "10.1",
     "/home/drozdyuka/anaconda3/envs/patchy_discs_model/bin/python3.7", "linux"),
])
def test_driver_too_old_in_every_layout(name: str, cuda: str, python: str, os: str) -> None:
    parsed = load(OUTPUTS / name)
    torch = only_torch(parsed)
    assert (torch.build, torch.gpu_available, torch.python) == ("cuda", False, python)
    assert fact(parsed, "cuda_driver_version") == cuda
    assert fact(parsed, "os") == os


def test_sm120_warning_case_159() -> None:
    parsed = load(case("159", "torch-warning.txt"))
    torch = only_torch(parsed)
    assert torch.build == "cuda" and torch.gpu_available is True
    assert torch.arch_list == ("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90")
    (device,) = torch.devices
    assert (device.name, device.compute_capability, device.arch) == (
        "NVIDIA GeForce RTX 5090", "12.0", "sm_120")
    (gpu,) = parsed.sightings
    assert gpu.layer is Layer.TORCH
    assert (gpu.facts.vendor, gpu.facts.name, gpu.facts.compute_capability) == (
        Vendor.NVIDIA, "NVIDIA GeForce RTX 5090", "12.0")


def test_windows_path_names_the_interpreter_case_160() -> None:
    parsed = load(case("160", "torch-warning.txt"))
    torch = only_torch(parsed)
    assert torch.python == "D:\\RVC\\RVC1006Nvidia\\runtime\\python.exe"
    assert torch.arch_list[0] == "sm_37" and torch.arch_list[-1] == "compute_37"
    assert fact(parsed, "os") == "windows"
    session = load(case("160", "python-repl.txt"))
    other = only_torch(session)
    assert (other.version, other.build, other.build_version, other.gpu_available) == (
        "2.7.0.dev20250312+cu128", "cuda", "12.8", True)
    assert [d.name for d in other.devices] == ["NVIDIA GeForce RTX 5090 D"]
    # the warning's GPU and the session's are one GPU
    assert len(join_gpus([*parsed.sightings, *session.sightings])) == 1


@pytest.mark.parametrize(("name", "python", "os", "gpu"), [
    ("framepack-702-windows-rtx5080-sm120.txt",
     "F:\\tmp\\framepack_cu126_torch26\\system\\python\\python.exe", "windows",
     "NVIDIA GeForce RTX 5080"),
    ("sd-webui-nix-9-journal-rtx5090-sm120.txt",
     "/nix/store/a1jmpf3hja9g4rx7lwxza4gwng9vscj5-python3-3.11.13-env/bin/python3.11", "linux",
     "NVIDIA GeForce RTX 5090"),
])
def test_sm120_warning_inside_logs(name: str, python: str, os: str, gpu: str) -> None:
    parsed = load(OUTPUTS / name)
    torch = only_torch(parsed)
    assert torch.python == python and fact(parsed, "os") == os
    assert [(d.name, d.compute_capability) for d in torch.devices] == [(gpu, "12.0")]
    assert "sm_120" not in torch.arch_list and "sm_90" in torch.arch_list


def test_found_gpu_too_old_is_no_kernel_image() -> None:
    parsed = load(OUTPUTS / "pytorch-16712-windows-gtx670m-too-old-2019.txt")
    torch = only_torch(parsed)
    assert torch.python == "C:\\Users\\Caner\\Anaconda3\\python.exe"
    assert [(d.name, d.compute_capability) for d in torch.devices] == [
        ("GeForce GTX 670M", "2.1")]
    (signal,) = signals_of(parsed, "cuda.no_kernel_image")
    assert signal.detail == "sm_21"
    three_lines = load(OUTPUTS / "voice-changer-447-gt720-too-old-3-lines.txt")
    assert [s.detail for s in signals_of(three_lines, "cuda.no_kernel_image")] == ["sm_35"]


def test_found_gpu_within_range_is_no_error() -> None:
    for name in ("spark-vllm-docker-15-gb10-min-max-capability.txt",
                 "pytorch-164708-one-liner-found-gpu-multiline.txt"):
        parsed = load(OUTPUTS / name)
        assert not parsed.signals
        (device,) = only_torch(parsed).devices
        assert device.compute_capability in ("12.1", "8.9")


def test_rocm_build_of_2020_calls_a_radeon_too_old() -> None:
    """ROCm's HIP port made up "cuda capability 3.0" for Radeons: no capability, no error."""
    parsed = load(OUTPUTS / "rocm-pytorch-627-rocm-build-radeon-false-too-old.txt")
    torch = only_torch(parsed)
    assert torch.build == "rocm" and torch.python is None  # ~/.local: any python3.6
    (gpu,) = parsed.sightings
    assert gpu.facts.vendor is Vendor.AMD and gpu.facts.compute_capability is None
    assert not signals_of(parsed, "cuda.no_kernel_image")


def test_hip_error_means_a_rocm_build_case_161() -> None:
    parsed = load(case("161", "torch-error.txt"))  # every line quoted with "> "
    torch = only_torch(parsed)
    assert (torch.build, torch.python_version, torch.gpu_available) == ("rocm", "3.10.2", None)
    assert fact(parsed, "os") == "linux"


def test_rocm_session_with_hip_version_and_two_line_banner() -> None:
    parsed = load(SESSIONS / "rocm-pytorch-513-rocm30-hip-version.txt")
    torch = only_torch(parsed)
    assert (torch.build, torch.build_version, torch.python_version) == (
        "rocm", "3.0.19493-36529b1", "3.6.9")
    assert fact(parsed, "os") == "linux"


def test_pretty_printed_arch_list() -> None:
    torch = only_torch(load(SESSIONS / "uv-14086-rocm63-arch-list-pprint.txt"))
    assert (torch.version, torch.build, torch.build_version) == ("2.7.1+rocm6.3", "rocm", "6.3")
    assert torch.arch_list[:2] == ("gfx900", "gfx906") and len(torch.arch_list) == 11


def test_three_sessions_are_three_builds() -> None:
    parsed = load(SESSIONS / "pytorch-182250-uv-cu126-cu128-arch-lists.txt")
    assert [(f.version, f.build_version, f.arch_list[0], f.arch_list[-1])
            for f in parsed.frameworks] == [
        ("2.11.0+cu126", "12.6", "sm_50", "sm_90"),
        ("2.11.0+cu128", "12.8", "sm_75", "sm_120"),
        ("2.10.0+cu128", "12.8", "sm_70", "sm_120")]


def test_failed_import_is_the_framework_error() -> None:
    parsed = load(SESSIONS / "rocm-libraries-4547-import-undefined-miopen-symbol.txt")
    torch = only_torch(parsed)
    assert torch.build == "rocm" and torch.version is None
    assert torch.error is not None and torch.error.startswith(
        "ImportError: /opt/rocm-7.2.0/lib/libMIOpen.so.1: undefined symbol")
    assert torch.python == "/mnt/sata/anaconda3/envs/comfyui/bin/python3.12"
    (signal,) = signals_of(parsed, "rocm.undefined_symbol")
    assert signal.detail == "/opt/rocm-7.2.0/lib/libMIOpen.so.1"
    assert fact(parsed, "rocm_version") == "7.2.0"
    hip = load(SESSIONS / "therock-723-libtorch-hip-undefined-nccl.txt")
    assert only_torch(hip).python == "/projects/TheRock/venv/bin/python3.11"
    assert [s.detail for s in signals_of(hip, "rocm.undefined_symbol")] == [
        "/projects/TheRock/venv/lib/python3.11/site-packages/torch/lib/libtorch_hip.so"]


def test_windows_prompt_names_a_relative_interpreter() -> None:
    parsed = load(SESSIONS / "pytorch-101147-windows-cmd-python-exe.txt")
    torch = only_torch(parsed)
    assert torch.python == "A:\\Data\\DDSP-SVC 3.0\\python\\python.exe"
    assert torch.python_version == "3.10.11" and fact(parsed, "os") == "windows"


def test_undefined_symbol_of_host_rocm_case_209() -> None:
    text = read(case("209", "torch-error.txt"))
    parsed = parse_any(text, "torch-error.txt")
    (signal,) = signals_of(parsed, "rocm.undefined_symbol")
    assert signal.detail == "/opt/rocm-5.7.1/lib/libhipsolver.so.0"
    assert fact(parsed, "rocm_version") == "5.7.1"


def test_an_extension_of_torch_is_no_rocm_symbol() -> None:
    """An undefined symbol in a torch extension (pyg-rocm-build#7) is not a ROCm mismatch."""
    text = ("OSError: /opt/conda/envs/py_3.12/lib/python3.12/site-packages/torch_scatter/"
            "_scatter_cpu.so: undefined symbol: _ZN5torch8autograd12VariableInfoC1ERKN2at6Tenso")
    assert not signals_of(scan(text, "x"), "rocm.undefined_symbol")


@pytest.mark.parametrize(("code", "output", "expected"), [
    ('print("torch:", torch.__version__)', "torch: 2.3.1+cu121", "2.3.1+cu121"),
    ('print(f"PyTorch {torch.__version__} CUDA={torch.cuda.is_available()}")',
     "PyTorch 2.0.1+rocm5.4.2 CUDA=True", "2.0.1+rocm5.4.2"),
    ("torch.__version__  # which one", "'1.13.1+cu117'", "1.13.1+cu117"),
])
def test_printed_values_inside_literal_text(code: str, output: str, expected: str) -> None:
    torch = only_torch(parse(f">>> import torch\n>>> {code}\n{output}\n", "s"))
    assert torch.version == expected


def test_echoed_strings_must_be_quoted() -> None:
    """A REPL echoes a string's repr: unquoted text after it is prose, not the value."""
    parsed = parse(">>> torch.__version__\nThis is what I get\n", "s")
    assert not parsed.frameworks


def test_one_liner_prints_map_to_lines() -> None:
    text = ("$ /opt/venv/bin/python -c 'import torch; print(torch.__version__); "
            "print(torch.cuda.is_available()); print(torch.cuda.get_device_name(0))'\n"
            "2.4.0+cu124\nTrue\nNVIDIA A100-SXM4-80GB\n")
    torch = only_torch(parse(text, "s"))
    assert (torch.version, torch.gpu_available, torch.python) == (
        "2.4.0+cu124", True, "/opt/venv/bin/python")
    assert [d.name for d in torch.devices] == ["NVIDIA A100-SXM4-80GB"]


def test_device_properties_and_capability() -> None:
    text = (">>> torch.cuda.get_device_properties(0)\n"
            "_CudaDeviceProperties(name='AMD Radeon RX 7900 XTX', major=11, minor=0, "
            "gcnArchName='gfx1100', total_memory=24560MB, multi_processor_count=48)\n"
            ">>> torch.cuda.get_device_capability(1)\n(8, 6)\n")
    parsed = parse(text, "s")
    by_index = {d.index: d for d in only_torch(parsed).devices}
    assert (by_index[0].name, by_index[0].arch) == ("AMD Radeon RX 7900 XTX", "gfx1100")
    assert by_index[0].total_memory_bytes == 24560 * 1024 * 1024
    assert by_index[1].compute_capability == "8.6"


def test_not_python_text() -> None:
    parsed = parse("hello\nworld\n", "x")
    assert not parsed.frameworks and parsed.problems


test_random_text_never_raises, test_truncated_real_output_never_raises, \
    test_shuffled_real_output_never_raises = property_tests(sniff, parse, [read(p) for p in REAL])


@pytest.mark.parametrize(("path", "interpreter"), [
    ("D:\\stable-diffusion-webui\\venv\\lib\\site-packages\\torch",
     "D:\\stable-diffusion-webui\\venv\\Scripts\\python.exe"),
    ("C:\\ComfyUI_windows_portable\\python_embeded\\Lib\\site-packages\\torch",
     "C:\\ComfyUI_windows_portable\\python_embeded\\python.exe"),
    ("C:\\Users\\x\\AppData\\Roaming\\Python\\Python310\\site-packages\\torch", None),
    ("/usr/lib/python3/dist-packages/torch", "/usr/bin/python3"),
    ("/usr/local/lib/python3.10/site-packages/torch", "/usr/local/bin/python3.10"),
    ("/home/u/.local/lib/python3.10/site-packages/torch", None),
    ("/usr/lib64/python3.11/site-packages/torch", "/usr/bin/python3.11"),
])
def test_interpreter_of_each_layout(path: str, interpreter: str | None) -> None:
    from gpuscope.parsers.python_env import interpreter_of

    assert interpreter_of(path) == interpreter


def test_sessions_past_the_limit_are_named_not_read() -> None:
    text = "".join(f">>> torch.__version__\n'2.{i}.0+cu121'\n" for i in range(60))
    parsed = parse(text, "many")
    assert len(parsed.frameworks) == 50 and parsed.frameworks[-1].version == "2.49.0+cu121"
    assert parsed.problems == ("more than 50 PyTorch sessions: 10 more were not read",)


@pytest.mark.parametrize(("argument", "index"), [
    ("()", 0), ("(1)", 1), ("('cuda:1')", 1), ("(torch.cuda.current_device())", 0),
    ("(device=0)", 0), ("(torch.device('cuda'))", 0), ("(i)", None)])
def test_device_argument(argument: str, index: int | None) -> None:
    from gpuscope.parsers.python_repl import device_argument

    call = "torch.cuda.get_device_name"
    assert device_argument(call + argument, call) == index


# ----------------------------------------------------------------------------- Windows DLLs


@pytest.mark.parametrize(("path", "line", "scanned_line"), [
    (case("271", "whisper-gui-output.txt"), 1, 1),  # "Could not locate cudnn_ops_infer64_8.dll"
    (OUTPUTS / "dictate-wizard-2-ctranslate2-cudnn8-dll-error-126.txt", 1, 1),
    (OUTPUTS / "comfyui-reactor-396-cudnn8-dll-not-located.txt", 6, 6),
    (OUTPUTS / "lightweight-mmm-23-tensorflow-cudart-dll-not-found.txt", 1, 1),
    (OUTPUTS / "diffusers-5247-winerror-126-c10-dll-french.txt", 1, 1),
    # the parser reads its torch path first (line 4), the scan only the DLL's line
    (OUTPUTS / "framepack-zluda-5-winerror-126-cudnn64-9-dll.txt", 4, 8),
])
def test_a_windows_library_means_windows(path: Path, line: int, scanned_line: int) -> None:
    text = read(path)
    for parsed, number in ((parse_any(text, path.name), line),
                           (scan(text, path.name), scanned_line)):
        found = [f for f in parsed.host_facts if f.key == "os"]
        assert [(f.value, f.source) for f in found] == [("windows", f"{path.name}:{number}")]


def test_a_windows_library_inside_another_format() -> None:
    # the scan reads it inside any paste: nvidia-smi's table, then a DLL error
    nvidia_smi = read(FIXTURES / "outputs" / "nvidia-smi-table" / sorted(
        p.name for p in (FIXTURES / "outputs" / "nvidia-smi-table").glob("*.txt"))[0])
    text = nvidia_smi + "\nCould not locate cudnn_ops_infer64_8.dll. Please make sure it is " \
                        "in your library path!\n"
    assert "windows" in [f.value for f in parse_any(text, "x").host_facts if f.key == "os"]


@pytest.mark.parametrize("text", [
    "ls /usr/lib/wsl/drivers/nv_dispi.inf_amd64_1234/\nnvcuda.dll  nvapi64.dll\n",  # WSL
    "Linux version 5.15.153.1-microsoft-standard-WSL2\nCould not locate cudnn64_9.dll\n",
    "wine: could not load L\"C:\\\\windows\\\\system32\\\\nvcuda.dll\"\n",
    "/home/me/.wine/drive_c/windows/system32/nvcuda.dll\n",  # a POSIX path
    "the .dll extension\n", "see readme.dllx\n",
])
def test_no_windows_from_these_library_mentions(text: str) -> None:
    assert not [f for f in scan(text, "x").host_facts if f.key == "os"]


def test_the_python_version_of_a_site_packages_path() -> None:
    # corpus 269: "/opt/python11Venv/lib/python3.11/site-packages/torch/cuda/__init__.py"
    torch = only_torch(load(case("269", "torch-warning.txt")))
    assert (torch.python, torch.python_version) == ("/opt/python11Venv/bin/python3.11", "3.11")


@pytest.mark.parametrize("path", [
    FIXTURES / "outputs" / "error-text" / "pytorch-70036-no-hip-gpus.txt",
    OUTPUTS / "voice-changer-447-gt720-too-old-3-lines.txt",
    case("160", "python-repl.txt"),
])
def test_a_paste_repeated_says_what_one_copy_says(path: Path) -> None:
    # each distinct line and statement is read once, and a repeat that adds nothing is skipped
    text = read(path)
    one, many = parse(text, "x"), parse(text * 3000, "x")
    assert_clean(many)
    assert [dataclasses.replace(f, evidence=()) for f in many.frameworks] == \
        [dataclasses.replace(f, evidence=()) for f in one.frameworks]
    assert [(s.kind, s.detail) for s in many.signals] == [(s.kind, s.detail) for s in one.signals]
    assert many.stack_facts == one.stack_facts and many.host_facts == one.host_facts
    scanned, scanned_once = scan(text * 3000, "x"), scan(text, "x")
    assert [(s.kind, s.detail) for s in scanned.signals] == \
        [(s.kind, s.detail) for s in scanned_once.signals]
    assert scanned.stack_facts == scanned_once.stack_facts


def test_different_statements_past_the_cap_are_counted() -> None:
    text = "".join(f">>> torch.cuda.is_available()  # {n}\nTrue\n" for n in range(5003))
    parsed = parse(text, "x")
    assert only_torch(parsed).gpu_available is True and parsed.problems == (
        "more than 5,000 different statements about PyTorch: 3 more were not read",)
