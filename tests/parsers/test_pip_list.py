"""pip show / list / freeze and conda list over real pastes: corpus case 112 (pip show torch)
and tests/fixtures/outputs/pip/ (SOURCES.md there)."""

from __future__ import annotations

from pathlib import Path

from parser_properties import assert_clean, property_tests, read

from gpuscope.model import Framework, ParsedOutput
from gpuscope.parsers import parse_any
from gpuscope.parsers.pip_list import FORMATS, parse, sniff

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CORPUS = FIXTURES / "corpus"
OUTPUTS = FIXTURES / "outputs" / "pip"


def torch_of(parsed: ParsedOutput) -> Framework:
    assert_clean(parsed)
    assert len(parsed.frameworks) == 1, parsed
    return parsed.frameworks[0]


def test_formats() -> None:
    assert FORMATS == ("pip-show", "pip-list", "pip-freeze", "pip-conda-list")


def test_pip_show_case_112_rocm_build() -> None:
    path = next(CORPUS.glob("112-*")) / "pip-show-torch.txt"
    parsed = parse_any(read(path), path.name)
    assert parsed.format == "pip-show"
    torch = torch_of(parsed)
    assert (torch.name, torch.version, torch.build, torch.build_version) == (
        "torch", "2.6.0+rocm6.2.4", "rocm", "6.2.4")
    assert torch.python_version == "3.12" and torch.gpu_available is None
    assert torch.python is not None and torch.python.startswith("pasted pip show")
    assert [(e.line, e.text) for e in torch.evidence] == [(1, "Name: torch")]


def test_pip_show_nightly_with_the_command_line() -> None:
    torch = torch_of(parse(read(OUTPUTS / "show-rocm63-nightly-rocm-4437.txt"), "show.txt"))
    assert (torch.version, torch.build, torch.build_version) == (
        "2.8.0.dev20250314+rocm6.3", "rocm", "6.3")


def test_pip_show_of_several_packages_plain_version_cuda_requirements() -> None:
    parsed = parse(read(OUTPUTS / "show-many-cuda12-deps-gptqmodel-2404.txt"), "many.txt")
    torch = torch_of(parsed)
    # 2.10.0 has no local tag: its nvidia-*-cu12 requirements say CUDA 12, not which 12.x
    assert (torch.version, torch.build, torch.build_version) == ("2.10.0", "cuda", None)
    assert torch.python_version == "3.13"
    assert torch.evidence[0].line == 13


def test_pip_show_on_windows() -> None:
    parsed = parse(read(OUTPUTS / "show-windows-cu130-gptqmodel-2856.txt"), "win.txt")
    torch = torch_of(parsed)
    assert (torch.version, torch.build, torch.build_version) == ("2.11.0+cu130", "cuda", "13.0")
    assert [(f.key, f.value) for f in parsed.host_facts] == [("os", "windows")]


def test_pip_list_table_and_grepped_rows() -> None:
    table = ("Package            Version\n"
             "------------------ ---------------\n"
             "numpy              1.26.4\n"
             "torch              2.1.2+cu121\n"
             "torchvision        0.16.2+cu121\n")
    assert sniff(table) == ("pip-list", 0.9)
    torch = torch_of(parse(table, "list.txt"))
    assert (torch.version, torch.build, torch.build_version) == ("2.1.2+cu121", "cuda", "12.1")
    grepped = "torch                    2.3.0+rocm6.0\ntorchaudio               2.3.0+rocm6.0\n"
    assert sniff(grepped) == ("pip-list", 0.7)
    assert torch_of(parse(grepped, "grep.txt")).build_version == "6.0"


def test_pip_freeze_pins_and_urls() -> None:
    # The pins of ROCm-AI-Installer's requirements for a ROCm 5.7 nightly (pip freeze lines).
    freeze = ("pytorch-triton-rocm==2.1.0+dafe145982\ntorch==2.2.0.dev20231203+rocm5.7\n"
              "torchvision==0.17.0.dev20231203+rocm5.7\n")
    assert sniff(freeze) == ("pip-freeze", 0.8)
    assert (torch_of(parse(freeze, "f")).build, torch_of(parse(freeze, "f")).build_version) == (
        "rocm", "5.7")
    url = ("torch @ https://download.pytorch.org/whl/rocm6.2/torch-2.5.1%2Brocm6.2-cp312-cp312-"
           "linux_x86_64.whl\nnumpy==2.1.3\n")
    torch = torch_of(parse(url, "u"))
    assert (torch.version, torch.build, torch.build_version) == ("2.5.1+rocm6.2", "rocm", "6.2")


def test_conda_list_build_string() -> None:
    text = ("# packages in environment at /home/u/miniconda3/envs/pt:\n#\n"
            "# Name                    Version                   Build  Channel\n"
            "pytorch                   2.1.0           py3.10_cuda11.8_cudnn8.7.0_0    pytorch\n"
            "pytorch-cuda              11.8                 h7e8668a_5    pytorch\n")
    assert sniff(text) == ("pip-conda-list", 0.9)
    torch = torch_of(parse(text, "conda.txt"))
    assert (torch.version, torch.build, torch.build_version) == ("2.1.0", "cuda", "11.8")


def test_cpu_and_amd_sdk_builds() -> None:
    assert torch_of(parse("torch==2.4.0+cpu\nnumpy==1.0\n", "c")).build == "cpu"
    sdk = torch_of(parse("torch==2.9.0+rocmsdk20251116\nnumpy==2\n", "s"))
    assert (sdk.build, sdk.build_version) == ("rocm", None)  # a date, not a ROCm version


def test_no_torch_no_framework() -> None:
    parsed = parse("Name: numpy\nVersion: 1.26.4\nLocation: /usr/lib/python3/dist-packages\n", "n")
    assert parsed.format == "pip-show" and parsed.frameworks == ()


def test_sniff_leaves_other_formats_alone() -> None:
    for path in (CORPUS / "005-wsl2-rx7900xtx-rocminfo" / "rocminfo.txt",
                 CORPUS / "029-windows-cpu-only-torch-collect-env" / "collect_env.txt",
                 next(CORPUS.glob("112-*")) / "pacman-rocm.txt",
                 next(CORPUS.glob("101-*")) / "rpm-qa.txt"):
        assert sniff(read(path)) is None, path.name


REAL_TEXTS = [read(p) for p in sorted(OUTPUTS.glob("*.txt"))] + [
    read(next(CORPUS.glob("112-*")) / "pip-show-torch.txt")]

(
    test_random_text_never_raises,
    test_truncated_real_output_never_raises,
    test_shuffled_real_output_never_raises,
) = property_tests(sniff, parse, REAL_TEXTS)
