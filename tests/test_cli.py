"""The CLI as a user runs it: a real process, exit codes, JSON on stdout, reasons on stderr."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from fixture_paths import SNAPSHOTS_DIR


def gpuscope(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gpuscope", *args], capture_output=True,
                          text=True, timeout=60, env=env, check=False)


def info_json(*args: str) -> dict[str, Any]:
    result = gpuscope(*args, "info", "--json")
    assert result.returncode == 0, result.stderr
    doc: dict[str, Any] = json.loads(result.stdout)
    return doc


def test_info_json_on_this_machine_lists_no_gpu_and_says_why() -> None:
    doc = info_json()
    assert {"gpus", "stack", "host", "probes", "device_index", "origin"} <= doc.keys()
    assert doc["gpus"] == [] and doc["device_index"] == []
    assert doc["origin"]["kind"] == "live"
    assert doc["host"]["os"] == "linux" and doc["host"]["ram_total_bytes"] > 0
    probes = {p["name"]: p for p in doc["probes"]}
    for name in ("nvml", "amdsmi"):
        assert probes[name]["state"] != "ok", probes[name]
        assert probes[name]["reason"], probes[name]
    assert probes["nvml"]["state"] == "library_missing"


def test_snapshot_then_replay_equals_live_apart_from_origin(tmp_path: Path) -> None:
    snapshot = tmp_path / "s.json"
    written = gpuscope("snapshot", "-o", str(snapshot))
    assert written.returncode == 0, written.stderr
    assert "Wrote" in written.stdout
    live = info_json()
    replayed = info_json("--replay", str(snapshot))
    assert replayed["origin"]["kind"] == "replay"
    assert replayed["origin"]["source"] == str(snapshot)
    live.pop("origin")
    replayed.pop("origin")
    assert replayed == live


def test_gzip_snapshot_round_trip(tmp_path: Path) -> None:
    snapshot = tmp_path / "s.json.gz"
    assert gpuscope("snapshot", "-o", str(snapshot)).returncode == 0
    assert snapshot.read_bytes()[:2] == b"\x1f\x8b"
    assert info_json("--replay", str(snapshot))["origin"]["kind"] == "replay"


def test_replay_of_the_rx7900xtx_fixture_shows_gfx1100_seen_by_sysfs_and_kfd() -> None:
    doc = info_json("--replay", str(SNAPSHOTS_DIR / "rx7900xtx_rocm.json"))
    assert len(doc["gpus"]) == 1
    gpu = doc["gpus"][0]
    assert gpu["gfx_target"] == "gfx1100"
    assert {"sysfs", "kfd"} <= set(gpu["seen_by"])
    assert "7900 XTX" in gpu["name"]


def test_readable_info_names_the_replay() -> None:
    fixture = SNAPSHOTS_DIR / "rx7900xtx_rocm.json"
    result = gpuscope("--replay", str(fixture), "info")
    assert result.returncode == 0, result.stderr
    assert f"Replay of {fixture}" in result.stdout
    assert "gfx1100" in result.stdout and "seen by" in result.stdout


def test_version() -> None:
    result = gpuscope("--version")
    assert result.returncode == 0 and result.stdout.startswith("gpuscope ")


def test_usage_errors_exit_2() -> None:
    assert gpuscope("no-such-command").returncode == 2
    assert gpuscope("snapshot").returncode == 2  # -o is required


def test_a_bad_replay_file_is_one_line_and_exit_1(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{ not json")
    for args in (("--replay", str(bad), "info"), ("--replay", str(tmp_path / "absent"), "info")):
        result = gpuscope(*args)
        assert result.returncode == 1
        assert result.stderr.startswith("gpuscope: ") and result.stderr.count("\n") == 1
        assert result.stdout == ""


def test_unwritable_snapshot_path_is_exit_1(tmp_path: Path) -> None:
    result = gpuscope("snapshot", "-o", str(tmp_path / "no-dir" / "s.json"))
    assert result.returncode == 1 and "cannot write" in result.stderr


def test_window_without_a_display_points_to_the_cli() -> None:
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    result = gpuscope(env=env)
    assert result.returncode == 1
    assert "no display" in result.stderr and "gpuscope info" in result.stderr


def test_readable_info_shows_the_device_index_with_visible_devices() -> None:
    result = gpuscope("--replay", str(SNAPSHOTS_DIR / "apu_dgpu.json"), "info")
    assert result.returncode == 0, result.stderr
    index = result.stdout.split("Device index\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert index[0].split() == ["GPU", "PCI", "bus", "kind", "DRM", "KFD", "node", "SMI", "HIP",
                                "CUDA"]
    assert index[1].split()[:3] == ["0", "0000:03:00.0", "discrete"]
    assert index[2].split()[:3] == ["1", "0000:13:00.0", "integrated"]
    assert [row.split()[6] for row in index[1:3]] == ["0", "1"]  # HIP numbers both


CORPUS_DIR = SNAPSHOTS_DIR.parent / "corpus"


def doctor_json(*args: str, expect_codes: tuple[int, ...] = (0, 3)) -> dict[str, Any]:
    result = gpuscope(*args)
    assert result.returncode in expect_codes, result.stderr
    doc: dict[str, Any] = json.loads(result.stdout)
    return doc


def _bare_venv(folder: Path) -> str:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True,
                   capture_output=True, timeout=120)
    return str(folder / "bin" / "python")


def test_doctor_on_this_machine_finds_the_cpu_build_of_torch_and_no_gpu(tmp_path: Path) -> None:
    """With no flag: gpuscope's own interpreter (its torch), and the others a user runs,
    here one added in the window (the settings file)."""
    added = _bare_venv(tmp_path / "added")
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "settings.json").write_text(json.dumps({"interpreters": [added]}))
    env = {**os.environ, "GPUSCOPE_CONFIG_DIR": str(tmp_path / "config")}
    result = gpuscope("doctor", "--json", env=env)
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["schema"] == "gpuscope.diagnosis/1" and doc["origin"] == "live"
    assert doc["gpus"] == []
    assert doc["platform"]["os"] == "linux"
    torch = [f for f in doc["frameworks"] if f["name"] == "torch"]
    assert torch and torch[0]["build"] == "cpu" and torch[0]["version"].startswith("2.13.0")
    assert torch[0]["gpu_available"] is False and torch[0]["python"] == sys.executable
    ids = {f["id"] for f in doc["findings"]}
    assert "torch.cpu_build" in ids
    assert not [f for f in doc["findings"] if f["severity"] == "error"]
    interpreters = {i["python"]: i for i in doc["interpreters"]}
    own = doc["interpreters"][0]
    assert (own["python"], own["inspected"], own["error"]) == (sys.executable, True, None)
    assert own["why"].startswith("gpuscope's interpreter") and "torch" not in own["not_installed"]
    assert interpreters[added]["why"] == "added in gpuscope"
    assert interpreters[added]["inspected"] and "torch" in interpreters[added]["not_installed"]


def test_doctor_without_frameworks_inspects_nothing() -> None:
    doc = doctor_json("doctor", "--json", "--no-frameworks")
    assert doc["frameworks"] == [] and doc["interpreters"] == []


def test_a_python_that_cannot_be_run_is_a_usage_error(tmp_path: Path) -> None:
    not_python = tmp_path / "not-python"
    not_python.write_text("#!/bin/sh\nexit 1\n")
    not_python.chmod(0o755)
    for python, reason in ((str(tmp_path / "absent"), "Python interpreter not found"),
                           (str(tmp_path), "not allowed to run"),
                           (str(not_python), "did not start the probe (exit status 1)")):
        result = gpuscope("doctor", "--python", python)
        assert result.returncode == 2, (python, result.stderr)
        assert result.stdout == "" and result.stderr.count("\n") == 1
        assert result.stderr.startswith(f"gpuscope: --python {python}: ") and reason in \
            result.stderr, result.stderr
    snapshot = tmp_path / "s.json"
    written = gpuscope("snapshot", "-o", str(snapshot), "--python", str(tmp_path / "absent"))
    assert written.returncode == 2 and "Python interpreter not found" in written.stderr
    assert not snapshot.exists()
    report = gpuscope("report", "-q", "--no-bench", "--sample", "0", "--python",
                      str(tmp_path / "absent"))
    assert report.returncode == 2 and report.stderr.count("\n") == 1, report.stderr
    assert "--python" in report.stderr and "not found" in report.stderr


def test_a_replay_answers_for_the_interpreters_its_capture_chose_and_says_why() -> None:
    fixture = str(SNAPSHOTS_DIR / "rx7900xtx_no_torch.json")
    doc = doctor_json("--replay", fixture, "doctor", "--json")
    assert [(i["python"], i["why"], i["inspected"], i["python_version"])
            for i in doc["interpreters"]] == [
        ("/usr/bin/python3", "gpuscope's interpreter", True, "3.12.1"),
        ("/home/alice/venvs/llm/bin/python", "VIRTUAL_ENV, python3 on PATH, python on PATH",
         True, "3.12.1"),
    ]
    assert all("torch" in i["not_installed"] for i in doc["interpreters"])
    assert doc["frameworks"] == []
    assert doc["gpus"][0]["gfx_target"] == "gfx1100"
    # --python asks for an interpreter the capture did not inspect: nothing to answer with.
    other = gpuscope("--replay", fixture, "doctor", "--python", sys.executable)
    assert other.returncode == 2 and "not captured in this snapshot" in other.stderr


def test_doctor_replays_a_snapshot_with_its_frameworks(tmp_path: Path) -> None:
    # The interpreter is named so that each run has the per-interpreter limit: two runs of
    # the default set (20 s in all) on a loaded machine could differ by a smoke test that ran
    # out of time in one of them.
    python = ("--python", sys.executable)
    snapshot = tmp_path / "s.json.gz"
    assert gpuscope("snapshot", "-o", str(snapshot), *python).returncode == 0
    live = doctor_json("doctor", "--json", *python)
    replayed = doctor_json("--replay", str(snapshot), "doctor", "--json", *python)
    assert replayed["origin"] == "replay"
    for doc in (live, replayed):
        for key in ("origin", "origin_source", "probes"):
            doc.pop(key)
    assert replayed == live


def test_doctor_from_pasted_outputs_exits_3_on_an_error_finding() -> None:
    case = CORPUS_DIR / "035-rx6700xt-gfx1031-invalid-device-function"
    files = ["rocminfo.txt", "rocm-smi.txt", "dkms-status.txt", "lspci-vga.txt", "torch-error.txt"]
    args = [arg for name in files for arg in ("--from", str(case / name))]
    doc = doctor_json("doctor", "--json", *args, expect_codes=(3,))
    assert doc["origin"] == "imported"
    missing = next(f for f in doc["findings"] if f["id"] == "torch.arch_missing")
    assert missing["fix_commands"] == ["export HSA_OVERRIDE_GFX_VERSION=10.3.0"]
    text = gpuscope("doctor", *args)
    assert text.returncode == 3
    assert "✗ Framework (PyTorch)" in text.stdout
    assert "HSA_OVERRIDE_GFX_VERSION=10.3.0" in text.stdout


def test_doctor_reads_standard_input() -> None:
    rocminfo = (CORPUS_DIR / "005-wsl2-rx7900xtx-rocminfo" / "rocminfo.txt").read_text()
    result = subprocess.run([sys.executable, "-m", "gpuscope", "doctor", "--json", "--from", "-"],
                            input=rocminfo, capture_output=True, text=True, timeout=60,
                            check=False)
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["platform"]["os"] == "wsl" and doc["gpus"][0]["gfx_target"] == "gfx1100"


def test_doctor_failures_are_one_line_exit_1(tmp_path: Path) -> None:
    missing = gpuscope("doctor", "--from", str(tmp_path / "absent.txt"))
    assert missing.returncode == 1 and missing.stderr.startswith("gpuscope: cannot read")
    both = gpuscope("--replay", str(SNAPSHOTS_DIR / "apu_dgpu.json"), "doctor", "--from", "x")
    assert both.returncode == 1 and "--from and --replay" in both.stderr


HOSTILE_DIR = SNAPSHOTS_DIR.parent / "hostile"


def test_doctor_from_a_jpeg_is_exit_2_and_one_line_naming_it_and_the_formats() -> None:
    photo = HOSTILE_DIR / "photo.jpg"
    result = gpuscope("doctor", "--from", str(photo))
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"gpuscope: {photo} is a JPEG image, not a tool's output. "
                                    "gpuscope reads the output of rocminfo, ")


def test_a_fifo_with_no_writer_never_blocks(tmp_path: Path) -> None:
    if not hasattr(os, "mkfifo"):
        return
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for args in (("--replay", str(fifo), "info"), ("doctor", "--from", str(fifo))):
        result = gpuscope(*args)  # a hang would end in subprocess.TimeoutExpired
        assert result.returncode == 2
        assert result.stderr == (f"gpuscope: cannot read {fifo}: it is a named pipe (FIFO); "
                                 "gpuscope reads only regular files\n")


def test_doctor_says_no_gpu_found_plainly_when_nothing_shows_one(tmp_path: Path) -> None:
    lspci = tmp_path / "lspci.txt"
    lspci.write_text(
        "00:00.0 Host bridge: Intel Corporation 8th Gen Core Processor Host Bridge/DRAM "
        "Registers (rev 07)\n"
        "00:14.0 USB controller: Intel Corporation Cannon Lake PCH USB 3.1 xHCI Host "
        "Controller (rev 10)\n")
    result = gpuscope("doctor", "--from", str(lspci))
    assert result.returncode == 0, result.stderr
    assert "No GPU found." in result.stdout
    assert "nothing wrong found" not in result.stdout
