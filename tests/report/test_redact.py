"""Redaction of exports (issue #6): names planted in text, paths, nested JSON, the recorded
snapshots and the diagnosis document of a replayed machine must all disappear; versions, PCI
addresses and GPU names must not."""

from __future__ import annotations

import getpass
import json
import platform
import re
import shutil
import socket
import subprocess
from pathlib import Path
from typing import Any

import pytest
from fixture_paths import SNAPSHOTS_DIR
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuscope.doctor import DoctorInput, diagnose, diagnosis_document
from gpuscope.evidence import ReplaySystem
from gpuscope.inventory import collect_frameworks, collect_inventory
from gpuscope.model import Gpu, Host, Inventory, Origin, OriginKind, Stack, Vendor
from gpuscope.report.inventory_text import inventory_to_json
from gpuscope.report.redact import (
    PLACEHOLDER_RE,
    Identity,
    Kind,
    Redactor,
    identifying,
    is_weak,
    preview_redaction,
)

USER = "zyxuser42"
HOST = "quokka-lab-7"
HOME = f"/home/{USER}"
PLANTED = Identity.of(user_names=[USER], host_names=[HOST], home_paths=[HOME])
# Short names, as a user "ai" on a host "vm" would have them.
SHORT = Identity.of(user_names=["ai", "me"], host_names=["vm"], home_paths=["/home/ai"])


def leaks(text: str, *names: str) -> list[str]:
    return [n for n in names if n.lower() in text.lower()]


# ----------------------------------------------------------------------------- identity


def test_identity_from_process_reads_user_host_and_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(getpass, "getuser", lambda: USER)
    monkeypatch.setattr(socket, "gethostname", lambda: f"{HOST}.example.lan")
    monkeypatch.setattr(platform, "node", lambda: HOST)
    monkeypatch.setattr(Path, "home", classmethod(lambda cls: Path(HOME)))
    identity = Identity.from_process(environ={"LOGNAME": "other-login", "HOME": "/root"})
    assert USER in identity.user_names and "other-login" in identity.user_names
    assert {HOST, f"{HOST}.example.lan"} <= identity.host_names
    assert identity.home_paths == {HOME}  # /root names nobody


def test_identity_from_process_survives_failing_sources(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail() -> str:
        raise OSError("no passwd entry")

    def no_home(cls: type) -> Path:
        raise RuntimeError("could not determine home directory")

    monkeypatch.setattr(getpass, "getuser", fail)
    monkeypatch.setattr(socket, "gethostname", fail)
    monkeypatch.setattr(platform, "node", lambda: "")
    monkeypatch.setattr(Path, "home", classmethod(no_home))
    assert Identity.from_process(environ={}).is_empty()


def test_identity_from_data_reads_known_fields_and_passwd_lines() -> None:
    document = {
        "host": {"hostname": HOST},
        "gpus": [{"serial_number": "1652020001234",
                  "uuid": "GPU-0a1b2c3d-1111-2222-3333-444455556666"}],
        "libraries": {"platform": {"node": "other-host", "system": "Linux", "release": "6.8.0"}},
        "files": {"/etc/passwd": {"text": "root:x:0:0:root:/root:/bin/bash\n"
                                          f"{USER}:x:1000:1000:Zora Quill,,,:{HOME}:/bin/bash\n"},
                  "/proc/sys/kernel/hostname": {"text": "vm\n"}},
        "log": "python at /home/another/.venv/bin/python, C:\\Users\\Public\\x",
    }
    identity = Identity.from_data(document)
    assert {USER, "Zora Quill", "Zora", "Quill", "another"} <= identity.user_names
    assert {HOST, "other-host", "vm"} <= identity.host_names
    assert {HOME, "/home/another"} <= identity.home_paths
    assert identity.serials == {"1652020001234"}
    assert identity.uuids == {"GPU-0a1b2c3d-1111-2222-3333-444455556666"}
    assert "root" not in identity.user_names and "Public" not in identity.user_names


def test_not_identifying_values() -> None:
    for value in ("", "N/A", "root", "localhost", "0", "00000000-0000-0000-0000-000000000000",
                  "ff:ff:ff:ff:ff:ff", "[Not Supported]"):
        assert not identifying(value), value
    assert identifying("quokka-lab-7") and identifying("1324021012345")
    assert is_weak("ai") and is_weak("me") and is_weak("ubuntu") and is_weak("dev")
    assert not is_weak(USER) and not is_weak("bob") and not is_weak(HOST)


# ----------------------------------------------------------------------------- text


PLANTED_TEXT = f"""\
{USER}@{HOST}:~$ python -m gpuscope doctor
Python: {HOME}/.venv/bin/python (user {USER}, host {HOST.upper()})
torch at {HOME}/miniconda3/lib/python3.11/site-packages/torch
Nov 22 02:39:40 {HOST} kernel: amdgpu 0000:03:00.0: amdgpu: SMU is initialized successfully!
render:x:110:{USER}
{HOST}.example.lan resolved to 192.168.1.23 and fe80::1ff:fe23:4567:890a
eth0 link/ether 00:1a:2b:3c:4d:5e
GPU 0: NVIDIA GeForce RTX 4090 (UUID: GPU-5f3c2a1e-8b4d-4c7a-9e21-7d0b6a3f9c12)
MIG 1g.10gb Device 0: (UUID: MIG-5f3c2a1e-8b4d-4c7a-9e21-7d0b6a3f9c13)
    Serial Number                         : 1324021012345
Uuid:                    GPU-ae866dfe401a6542
unique_id 12575859948243281218
C:\\Users\\{USER}\\AppData\\Local\\Programs\\Python
/mnt/c/Users/{USER}/Downloads
"""


def test_planted_names_leave_no_trace_in_text() -> None:
    redactor = Redactor(PLANTED)
    out = redactor.redact_text(PLANTED_TEXT)
    assert leaks(PLANTED_TEXT, USER, HOST)  # the check can fail
    assert leaks(out, USER, HOST, "quokka", "192.168.1.23", "fe80::1ff", "00:1a:2b",
                 "5f3c2a1e", "1324021012345", "ae866dfe401a6542", "12575859948243281218") == []
    # what is not sensitive stays
    for kept in ("0000:03:00.0", "NVIDIA GeForce RTX 4090", "python3.11", "MIG 1g.10gb",
                 "/.venv/bin/python", "AppData", "SMU is initialized"):
        assert kept in out, kept


def test_stable_placeholders_across_text_and_json() -> None:
    redactor = Redactor(PLANTED)
    first = redactor.redact_text(f"{USER} on {HOST}; {HOST}; {USER.upper()}")
    doc = redactor.redact_json({"host": {"hostname": HOST}, "who": [f"user {USER}"]})
    assert first == "<user-1> on <host-1>; <host-1>; <user-1>"
    assert doc == {"host": {"hostname": "<host-1>"}, "who": ["user <user-1>"]}
    other = redactor.redact_text("10.0.0.7 then 10.0.0.8 then 10.0.0.7")
    assert other == "<ip-1> then <ip-2> then <ip-1>"


def test_preview_lists_kind_original_placeholder_and_occurrences() -> None:
    entries = preview_redaction(PLANTED, {"hostname": HOST, "log": f"{USER}@{HOST} {HOME}/x"},
                                f"ping 192.168.7.1 from {HOST}")
    table = {(e.kind, e.original, e.placeholder): e.occurrences for e in entries}
    assert table == {
        (Kind.HOST, HOST, "<host-1>"): 3,
        (Kind.USER, USER, "<user-1>"): 1,
        (Kind.HOME, HOME, "<home-1>"): 1,
        (Kind.IP, "192.168.7.1", "<ip-1>"): 1,
    }
    assert [e.kind for e in entries] == [Kind.HOST, Kind.USER, Kind.HOME, Kind.IP]


def test_nvidia_and_amd_id_forms() -> None:
    redactor = Redactor(Identity())
    text = ("GPU-5f3c2a1e-8b4d-4c7a-9e21-7d0b6a3f9c12 "
            "MIG-GPU-5f3c2a1e-8b4d-4c7a-9e21-7d0b6a3f9c12/1/0 "
            "MIG-c6d4f1e2-5b7a-5d3c-9e8f-1a2b3c4d5e6f "
            "GPU-ae866dfe401a6542 00-1A-2B-3C-4D-5E 00:1a:2b:3c:4d:5e "
            "<serial>0321017000123</serial> serial_number: PX1234AB")
    assert redactor.redact_text(text) == (
        "<uuid-1> <uuid-2> <uuid-3> <uuid-4> <mac-1> <mac-1> "
        "<serial><serial-1></serial> serial_number: <serial-2>")


# ----------------------------------------------------------------------------- not too much

KEPT = [
    "AMD Radeon AI PRO R9700 (gfx1201), AMD Radeon RX 7900 XTX (gfx1100), Navi 31",
    "ROCm 6.2.4, HIP 6.2.41134-65d174c3e, rocm_version_full 6.2.4.60204",
    "kernel 6.8.0-45-generic; WSL kernel 5.15.153.1-microsoft-standard-WSL2",
    "NVIDIA driver 550.54.14, Windows driver 31.0.24033.1003, CUDA 12.4",
    "vbios 95.02.18.80.87, AMD vbios 113-D7020100-102",
    "PCI 0000:03:00.0, NVML bus id 00000000:01:00.0, [1002:744c]",
    "HSA_OVERRIDE_GFX_VERSION=10.3.0 makes gfx1031 run as gfx1030",
    "/dev/kfd and /dev/dri/renderD128 are crw-rw---- root:render",
    "captured 2026-11-22T02:39:40+00:00 at 12:34:56, loopback 127.0.0.1 and ::1",
    "c10::cuda::CUDAError and at::Tensor from std::vector, a::b",
    "tell me more about ai models: the AI PRO card; said, maid, vmware, kvm",
    "unique_id 0, Serial Number: N/A, Serial Number : [Not Supported]",
    "torch 2.5.1+rocm6.2 built for gfx900;gfx906;gfx908;gfx90a;gfx1030;gfx1100",
]


@pytest.mark.parametrize("text", KEPT)
def test_versions_pci_gpu_names_and_ordinary_words_stay(text: str) -> None:
    identity = SHORT | Identity.of(user_names=["dev"], host_names=["ubuntu"])
    assert Redactor(identity).redact_text(text) == text


@pytest.mark.parametrize(("text", "expected"), [
    ("/home/ai/.venv/bin/python", "<home-1>/.venv/bin/python"),
    ("/opt/models/ai/llama", "/opt/models/<user-1>/llama"),
    ("user ai is not in group render", "user <user-1> is not in group render"),
    ("USER=ai LOGNAME=ai", "USER=<user-1> LOGNAME=<user-1>"),
    ("ai@vm:~$ rocminfo", "<user-1>@<host-1>:~$ rocminfo"),
    ("render:x:110:me,ai\nvideo:x:44:ai", "render:x:110:<user-1>,<user-2>\nvideo:x:44:<user-2>"),
    ("hostname: vm", "hostname: <host-1>"),
    ("Linux vm 6.8.0-45-generic #45-Ubuntu SMP", "Linux <host-1> 6.8.0-45-generic #45-Ubuntu SMP"),
    ("Nov 22 02:39:40 vm kernel: amdgpu: probe", "Nov 22 02:39:40 <host-1> kernel: amdgpu: probe"),
    ("AMD Radeon AI PRO R9700 owned by ai", "AMD Radeon AI PRO R9700 owned by ai"),
])
def test_short_names_only_where_they_are_names(text: str, expected: str) -> None:
    assert Redactor(SHORT).redact_text(text) == expected


def test_a_whole_json_value_equal_to_a_short_name_is_redacted() -> None:
    doc = {"libraries": {"platform": {"node": "vm", "system": "Linux"}},
           "files": {"/proc/sys/kernel/hostname": {"text": "vm\n"}},
           "gpu": {"name": "AMD Radeon AI PRO R9700", "vendor": "amd"}}
    out = Redactor(SHORT).redact_json(doc)
    assert out["libraries"]["platform"]["node"] == "<host-1>"
    assert out["files"]["/proc/sys/kernel/hostname"]["text"] == "<host-1>\n"
    assert out["gpu"] == doc["gpu"]


# ----------------------------------------------------------------------------- JSON


def test_nested_json_keys_values_and_recorded_calls() -> None:
    doc: dict[str, Any] = {
        "schema": "gpuscope.diagnosis/1",
        f"{HOME}/.config/gpuscope": {"owner_user": USER, "mode": "drwx------"},
        "gpus": [{"name": "NVIDIA GeForce RTX 4090", "pci_bus": "0000:01:00.0",
                  "serial_number": "1324021012345", "vram_total_bytes": 25757220864,
                  "field_sources": {"serial_number": "nvmlDeviceGetSerial"},
                  "uuid": "GPU-5f3c2a1e-8b4d-4c7a-9e21-7d0b6a3f9c12"}],
        "nvml": {"serial": {"call": "nvmlDeviceGetSerial", "value": "0324017000999"},
                 "uuid": {"call": "nvmlDeviceGetUUID", "error": "Not Supported"}},
        "stack": {"environment": {"HOME": HOME, "ROCM_PATH": f"{HOME}/rocm"}},
        "notes": [f"ssh {USER}@{HOST}", ("tuple", f"{HOST}"), None, 3.5, True],
        "sysfs": {"/sys/class/drm/card0/device/unique_id": {"text": "ae866dfe401a6542\n"}},
    }
    out = Redactor(Identity.from_data(doc) | PLANTED).redact_json(doc)
    dumped = json.dumps(out)
    assert leaks(json.dumps(doc), USER, HOST)
    assert leaks(dumped, USER, HOST, "1324021012345", "0324017000999", "5f3c2a1e",
                 "ae866dfe401a6542") == []
    gpu = out["gpus"][0]
    assert gpu["name"] == "NVIDIA GeForce RTX 4090" and gpu["pci_bus"] == "0000:01:00.0"
    assert gpu["vram_total_bytes"] == 25757220864
    assert gpu["field_sources"] == {"serial_number": "nvmlDeviceGetSerial"}
    assert out["nvml"]["serial"]["call"] == "nvmlDeviceGetSerial"
    assert out["nvml"]["uuid"] == doc["nvml"]["uuid"]
    assert out["stack"]["environment"] == {"HOME": "<home-1>", "ROCM_PATH": "<home-1>/rocm"}
    assert out["notes"][2:] == [None, 3.5, True]
    assert out["notes"][1] == ("tuple", "<host-1>")
    assert "<home-1>/.config/gpuscope" in out


# ----------------------------------------------------------------------------- real data


@pytest.mark.parametrize("fixture", sorted(p.name for p in SNAPSHOTS_DIR.glob("*.json")))
def test_snapshot_fixtures_keep_no_name_of_their_machine(fixture: str) -> None:
    snapshot = json.loads((SNAPSHOTS_DIR / fixture).read_text())
    identity = Identity.from_data(snapshot)
    assert identity.host_names, "every snapshot records its host name"
    out = Redactor.for_export(snapshot).redact_json(snapshot)
    dumped = json.dumps(out)
    for name in identity.user_names | identity.host_names | identity.serials | identity.uuids:
        assert not re.search(rf"(?<![^\W_]){re.escape(name)}(?![^\W_])", dumped,
                             re.IGNORECASE), name
    assert "/home/" not in dumped
    assert Redactor(identity).redact_json(out) == out  # nothing left to take


@pytest.mark.parametrize(("fixture", "names"), [
    ("rx7900xtx_rocm.json", ("alice", "alice-desktop", "/home/alice")),
    ("nvidia_rtx4090.json", ("alex", "GPU-5f3c2a1e-8b4d-4c7a-9e21-7d0b6a3f9c12",
                             "GPU-b7e1d4c2-3a9f-4e65-8d10-2c4f7a9b1e03")),
    ("amd_kfd_no_access.json", ("bob", "bob-pc")),
    ("apu_dgpu.json", ("alice", "r9700-ws", "ae866dfe401a6542", "12575859948243281218")),
])
def test_snapshot_fixtures_known_names(fixture: str, names: tuple[str, ...]) -> None:
    text = (SNAPSHOTS_DIR / fixture).read_text()
    assert all(n in text for n in names)
    out = json.dumps(Redactor.for_export(json.loads(text)).redact_json(json.loads(text)))
    assert leaks(out, *names) == []
    # PCI addresses, gfx targets and versions stay
    for pattern in (r"\b[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\.\d\b", r"\bgfx[0-9a-f]{3,4}\b",
                    r"\b\d+\.\d+\.\d+\b"):
        kept = set(re.findall(pattern, text))
        assert kept <= set(re.findall(pattern, out)), pattern


def _planted_snapshot(tmp_path: Path) -> Path:
    """rx7900xtx_rocm.json as if captured by zyxuser42 on quokka-lab-7."""
    text = (SNAPSHOTS_DIR / "rx7900xtx_rocm.json").read_text()
    text = text.replace("alice-desktop", HOST).replace("Alice", USER).replace("alice", USER)
    path = tmp_path / "planted.json"
    path.write_text(text)
    return path


def test_diagnosis_document_of_a_machine_with_distinctive_names(tmp_path: Path) -> None:
    system = ReplaySystem.from_file(_planted_snapshot(tmp_path))
    inventory = collect_inventory(system)
    data = DoctorInput(inventory, collect_frameworks(system, []))
    document = diagnosis_document(data, diagnose(data))
    plain = json.dumps(document) + json.dumps(inventory_to_json(inventory))
    assert leaks(plain, USER, HOST)  # the machine's names are in the unredacted exports

    redactor = Redactor.for_export(inventory, document)
    redacted = json.dumps(redactor.redact_json(document)) + json.dumps(
        redactor.redact_json(inventory_to_json(inventory)))
    assert leaks(redacted, USER, HOST, "quokka") == []
    out = redactor.redact_json(document)
    assert out["gpus"] == json.loads(json.dumps(document["gpus"]))  # nothing personal there
    assert out["platform"] == document["platform"]
    kinds = {e.kind for e in redactor.preview()}
    assert Kind.HOST in kinds


def test_inventory_serials_and_uuids() -> None:
    gpu = Gpu(index=0, vendor=Vendor.AMD, name="AMD Radeon RX 7900 XTX", gfx_target="gfx1100",
              pci_bus="0000:03:00.0", serial_number="PX2Q9K0042",
              uuid="5fff744c-0000-1000-80c8-7a2b9e3f1d55")
    inventory = Inventory(gpus=(gpu,), stack=Stack(), host=Host(os="linux", hostname=HOST),
                          probes=(), device_index=(), origin=Origin(kind=OriginKind.LIVE))
    identity = Identity.from_data(inventory)
    assert identity.serials == {"PX2Q9K0042"} and HOST in identity.host_names
    out = Redactor(identity).redact_json(inventory_to_json(inventory))
    assert out["gpus"][0]["serial_number"] == "<serial-1>"
    assert out["gpus"][0]["uuid"] == "<uuid-1>"
    assert out["host"]["hostname"] == "<host-1>"
    assert out["gpus"][0]["gfx_target"] == "gfx1100"


# ----------------------------------------------------------------------------- properties

SENSITIVE = [USER, HOST, HOME, f"{HOME}/x", "192.168.1.23", "10.1.2.3", "00:1a:2b:3c:4d:5e",
             "GPU-5f3c2a1e-8b4d-4c7a-9e21-7d0b6a3f9c12", "fe80::1ff:fe23:4567:890a",
             "Serial Number: 1324021012345", "/home/ai/y", "user ai", "ai@vm", "@vm",
             "C:\\Users\\Zyx\\y", "unique_id 98765", "/opt/ai/z"]
SAFE = [*KEPT, "Radeon AI PRO", "tell me more", "gfx1100", "0000:03:00.0", "6.2.4",
        "5.15.153.1-microsoft-standard-WSL2", "95.02.18.80.87", "<host-1>"]
SAFE_CHARS = st.text(alphabet="ghijklnopqrstuvwxyzGHIJKLNOPQRSTUVWXYZ ,;!?()\n", max_size=20)
SEPARATORS = st.sampled_from([" ", "\n", ", ", "/", ":", "-", "=", "\t", "'", '"', ".", ""])


@st.composite
def mixed_text(draw: st.DrawFn, glued: bool = True) -> str:
    """Sensitive and safe tokens with separators; `glued` allows none ("ab" + "cd")."""
    # "-" and "." join: "192.168.1.23-foo" reads as a version ("5.15.153.1-microsoft")
    separators = SEPARATORS if glued else SEPARATORS.filter(lambda s: s not in ("", "-", "."))
    parts = draw(st.lists(st.one_of(st.sampled_from(SENSITIVE), st.sampled_from(SAFE),
                                    SAFE_CHARS), max_size=8))
    return "".join(p + draw(separators) for p in parts)


@settings(max_examples=300, deadline=None)
@given(mixed_text())
def test_redaction_is_idempotent(text: str) -> None:
    identity = PLANTED | SHORT
    redactor = Redactor(identity)
    once = redactor.redact_text(text)
    assert redactor.redact_text(once) == once
    assert Redactor(identity).redact_text(once) == once


@settings(max_examples=300, deadline=None)
@given(mixed_text(glued=False))
def test_separated_sensitive_tokens_never_survive(text: str) -> None:
    once = Redactor(PLANTED | SHORT).redact_text(text)
    assert leaks(once, HOST, "192.168.1.23", "5f3c2a1e", "1324021012345", "00:1a:2b") == []
    # a user name glued to a safe letter ("zyxuser42g") is another word; separated, it goes
    assert not re.search(rf"(?<![^\W_]){USER}(?![^\W_])", once)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(SAFE), SAFE_CHARS), max_size=8),
       st.sampled_from([" ", "\n", ", ", "; "]))
def test_text_without_sensitive_tokens_is_unchanged(parts: list[str], sep: str) -> None:
    text = sep.join(parts)
    assert Redactor(PLANTED | SHORT).redact_text(text) == text


@settings(max_examples=100, deadline=None)
@given(st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
              mixed_text()),
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.sampled_from(["hostname", "serial", "uuid", "user", "value", "text",
                                         "name", "HOME", "notes", f"{HOME}/cache",
                                         "/sys/class/drm/card0/device/serial_number"]),
                        children, max_size=4)),
    max_leaves=12))
def test_json_redaction_is_idempotent_and_never_raises(value: Any) -> None:
    redactor = Redactor(PLANTED | SHORT)
    once = redactor.redact_json(value)
    assert redactor.redact_json(once) == once
    assert all(PLACEHOLDER_RE.fullmatch(e.placeholder) for e in redactor.preview())


# ----------------------------------------------------------------------------- shell commands

BASH = shutil.which("bash")


def _bash_accepts(command: str) -> bool:
    assert BASH is not None
    done = subprocess.run([BASH, "-n", "-c", command], capture_output=True, text=True,
                          timeout=10, check=False)
    return done.returncode == 0 and not done.stderr


def test_commands_keep_their_variables_and_get_shell_safe_placeholders() -> None:
    identity = Identity.of(user_names=[USER, "user"], host_names=[HOST], home_paths=[HOME],
                           serials=["PX2Q9K0042"])
    finding = {"id": "kfd.permission_denied",
               "detail": f"user {USER} is not in group render ({HOME})",
               "fix_commands": ["sudo usermod -aG render,video $USER",
                                f"{HOME}/venv/bin/python -m pip install torch",
                                f"ls /srv/{USER}_data && echo ${{HOME}}",
                                f"ssh {USER}@{HOST} cat /sys/class/drm/card0/device/serial",
                                "echo PX2Q9K0042"]}
    redactor = Redactor(identity)
    out = redactor.redact_json({"findings": [finding]})["findings"][0]
    # Prose gets the usual placeholders; commands get words a shell runs.
    assert "<user-1>" in out["detail"] and "<home-1>" in out["detail"]
    assert out["fix_commands"] == [
        "sudo usermod -aG render,video $USER",
        "$HOME/venv/bin/python -m pip install torch",
        "ls /srv/${USER}_data && echo ${HOME}",
        "ssh $USER@REDACTED_HOST_1 cat /sys/class/drm/card0/device/serial",
        "echo REDACTED_SERIAL_1",
    ]
    text = json.dumps(out)
    assert leaks(text, USER, HOST, "PX2Q9K0042") == []
    assert not any(PLACEHOLDER_RE.search(c) for c in out["fix_commands"])
    # Redacting again changes nothing, and the preview counts what the commands replaced.
    assert redactor.redact_json({"findings": [out]})["findings"][0] == out
    counted = {e.kind: e.occurrences for e in redactor.preview()}
    assert counted[Kind.HOST] >= 1 and counted[Kind.SERIAL] >= 1


@pytest.mark.skipif(BASH is None, reason="needs bash")
def test_redacted_commands_still_parse() -> None:
    identity = Identity.of(user_names=[USER, "me"], host_names=[HOST, "vm"],
                           home_paths=[HOME, "C:\\Users\\" + USER])
    commands = ["sudo usermod -aG render,video $USER", f"cd {HOME} && ls",
                f'"{HOME}/venv/bin/python" -c "import torch"', f"ping {HOST}",
                f"echo {USER}-box me@vm",
                "CUDA_VISIBLE_DEVICES=GPU-5fff744c-0000-1000-80c8-7a2b9e3f1d55 python3 x.py",
                "ip addr show | grep 192.168.1.20"]
    redactor = Redactor(identity)
    for command in commands:
        redacted = redactor.redact_command(command)
        assert _bash_accepts(redacted), (command, redacted)
        assert "<" not in redacted and ">" not in redacted, redacted


def test_a_windows_home_in_a_powershell_fix_becomes_userprofile() -> None:
    identity = Identity.of(user_names=["ana"], home_paths=["C:\\Users\\ana"])
    command = '& "C:\\Users\\ana\\venv\\Scripts\\python.exe" -m pip install torch-directml'
    redacted = Redactor(identity).redact_command(command)
    assert redacted == ('& "$env:USERPROFILE\\venv\\Scripts\\python.exe" -m pip install '
                        "torch-directml")
    # Outside commands the placeholder stays a placeholder.
    assert "<home-1>" in Redactor(identity).redact_text("C:\\Users\\ana\\venv")


def test_a_shell_variable_is_never_taken_for_a_name() -> None:
    found = Identity.from_data({"path": "/home/$USER/venv", "text": "HOME=/home/${USER}"})
    assert not {"$USER", "${USER}"} & found.user_names
    assert not any("$" in home for home in found.home_paths)
    redactor = Redactor(Identity.of(user_names=["USER", "HOME"]))
    assert redactor.redact_text("export PATH=$HOME/bin:$PATH; echo $USER") == (
        "export PATH=$HOME/bin:$PATH; echo $USER")


def test_report_of_a_machine_keeps_fix_commands_runnable(tmp_path: Path) -> None:
    system = ReplaySystem.from_file(SNAPSHOTS_DIR / "amd_kfd_no_access.json")
    inventory = collect_inventory(system)
    data = DoctorInput(inventory, collect_frameworks(system, []))
    document = diagnosis_document(data, diagnose(data))
    redactor = Redactor.for_export(inventory, document, system.snapshot.to_json())
    out = redactor.redact_json(document)
    commands = [c for f in out["findings"] for c in f["fix_commands"]]
    assert "sudo usermod -aG render,video $USER" in commands
    assert not any(PLACEHOLDER_RE.search(c) for c in commands)


def test_a_redacted_report_shows_the_commands_as_code_and_the_words_as_text() -> None:
    from gpuscope.report.export_html import report_html
    from gpuscope.report.export_markdown import report_markdown
    from gpuscope.report.share import prepare_report

    system = ReplaySystem.from_file(SNAPSHOTS_DIR / "amd_kfd_no_access.json")
    data = DoctorInput(collect_inventory(system), collect_frameworks(system, []))
    report = prepare_report(data, diagnose(data), redact=True,
                            identity_sources=(system.snapshot.to_json(),)).report
    (denied,) = [f for f in report.findings if f.id == "kfd.permission_denied"]
    assert denied.fix_commands == ("sudo usermod -aG render,video $USER",)
    assert denied.sources and denied.fix and "$USER" not in denied.fix
    markdown = report_markdown(report)
    assert "```sh\nsudo usermod -aG render,video $USER\n```" in markdown
    assert "Fix: Add your user to the render and video groups" in markdown
    page = report_html(report)
    assert "<pre><code>sudo usermod -aG render,video $USER</code></pre>" in page
