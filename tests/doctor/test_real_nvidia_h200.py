"""A real NVIDIA H200 (a Firecracker VM with the GPU passed through, driver 580.159.04,
PyTorch 2.11.0+cu130), captured on 2026-11-27 on a machine lent to the project:

- snapshots/nvidia_h200.json: `gpuscope snapshot` with the default framework check (20 s);
- snapshots/nvidia_h200_smoke_cut_short.json: the same before, when the default check had 10 s
  and ran out of time before the smoke test finished (a first CUDA context with cuBLAS there
  took longer than the 4 s left). That is no failure of the GPU;
- outputs/{nvidia-smi-table,nvidia-smi-q,collect_env}/gpuscope-device-h200-*.txt: what a
  user of that machine would paste. Pasted, they must give the live answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpuscope.cli import main

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SNAPSHOT = FIXTURES / "snapshots" / "nvidia_h200_smoke_cut_short.json"
LIVE = FIXTURES / "snapshots" / "nvidia_h200.json"
PASTED = [FIXTURES / "outputs" / kind / f"gpuscope-device-h200-{suffix}.txt" for kind, suffix in (
    ("nvidia-smi-table", "580"), ("nvidia-smi-q", "580"), ("collect_env", "cu130"))]


def run(capsys: pytest.CaptureFixture[str], *argv: str, replay: Path = SNAPSHOT) -> str:
    assert main(["--replay", str(replay), *argv]) == 0
    return capsys.readouterr().out


def test_the_h200_is_read_from_nvml(capsys: pytest.CaptureFixture[str]) -> None:
    info = json.loads(run(capsys, "info", "--json"))
    [gpu] = info["gpus"]
    assert (gpu["vendor"], gpu["name"], gpu["compute_capability"]) == (
        "nvidia", "NVIDIA H200", "9.0")
    assert gpu["vram_total_bytes"] == 150754820096  # 143771 MiB, as nvidia-smi showed
    assert gpu["driver_version"] == "580.159.04"
    assert (gpu["pcie_link"]["current_speed_gt_s"], gpu["pcie_link"]["current_width"]) == (
        32.0, 16)
    assert gpu["power_cap_w"] == 700.0


def test_a_smoke_test_cut_short_is_not_called_a_hang(capsys: pytest.CaptureFixture[str],
                                                    ) -> None:
    document = json.loads(run(capsys, "doctor", "--json"))
    ids = {(f["id"], f["severity"], f["gpu"]) for f in document["findings"]}
    assert ("gpu.usable", "ok", 0) in ids
    assert not [f for f in document["findings"] if f["severity"] == "error"]
    [torch] = [f for f in document["frameworks"] if f["name"] == "torch"]
    assert torch["smoke_test"].startswith("unfinished: did not finish in the 4 s")
    text = run(capsys, "doctor")
    assert "! Framework (PyTorch)" in text
    assert "not yet confirmed" in text
    assert "run: gpuscope doctor --python /opt/torch/.venv/bin/python3" in text
    assert "stopped answering" not in text and "dmesg" not in text


def test_with_the_default_budget_the_smoke_test_passes(capsys: pytest.CaptureFixture[str],
                                                       ) -> None:
    document = json.loads(run(capsys, "doctor", "--json", replay=LIVE))
    [torch] = [f for f in document["frameworks"] if f["name"] == "torch"]
    assert (torch["version"], torch["build"], torch["smoke_test"]) == (
        "2.11.0+cu130", "cuda", "ok")
    assert "✓ Framework (PyTorch)        PyTorch 2.11.0+cu130 in /opt/torch/.venv/bin/python3: " \
        "yes as device 0" in run(capsys, "doctor", replay=LIVE)


def test_its_pasted_outputs_give_the_live_answer(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["doctor", "--json"] + [arg for path in PASTED for arg in ("--from", str(path))]
    assert main(argv) == 0
    pasted = json.loads(capsys.readouterr().out)
    live = json.loads(run(capsys, "doctor", "--json", replay=LIVE))
    assert [(g["name"], g["compute_capability"], g["pci_bus"], g["vram_total_bytes"] >> 20)
            for g in pasted["gpus"]] == [
        (g["name"], g["compute_capability"], g["pci_bus"], g["vram_total_bytes"] >> 20)
        for g in live["gpus"]]
    for key in ("nvidia_driver_version", "cuda_driver_version"):
        assert pasted["stack"][key] == live["stack"][key]
    assert {(f["id"], f["severity"], f["gpu"]) for f in pasted["findings"]} == {
        (f["id"], f["severity"], f["gpu"]) for f in live["findings"]}
    # collect_env names the GPU only ("GPU 0: NVIDIA H200"): matched by that name.
    assert main(["doctor"] + [arg for path in PASTED for arg in ("--from", str(path))]) == 0
    assert "in pasted collect_env: yes as device 0" in capsys.readouterr().out


# The same machine captured again (2026-11-27 09:13 UTC) after the probes were rebuilt for
# issue #11 (one reader per source, shared library-call and sighting builders): the rebuilt
# NVML probe must read the real library as the first one did.
SECOND_CAPTURE = FIXTURES / "snapshots" / "nvidia_h200_second_capture.json"


def test_the_rebuilt_probes_read_the_real_h200_as_before(capsys: pytest.CaptureFixture[str],
                                                         ) -> None:
    first = json.loads(run(capsys, "doctor", "--json", replay=LIVE))
    second = json.loads(run(capsys, "doctor", "--json", replay=SECOND_CAPTURE))
    facts = ("name", "vendor", "compute_capability", "pci_bus", "vram_total_bytes",
             "driver_version", "power_cap_w", "pcie_link", "seen_by")
    assert [{k: g.get(k) for k in facts} for g in second["gpus"]] == [
        {k: g.get(k) for k in facts} for g in first["gpus"]]
    assert [sorted(g["field_sources"].items()) for g in second["gpus"]] == [
        sorted(g["field_sources"].items()) for g in first["gpus"]]
    assert {(f["id"], f["severity"], f["gpu"]) for f in second["findings"]} == {
        (f["id"], f["severity"], f["gpu"]) for f in first["findings"]}
