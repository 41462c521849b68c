from __future__ import annotations

import gzip
import json
import os
import stat
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuscope.evidence import (
    NOT_CAPTURED,
    LiveSystem,
    RecordingSystem,
    ReplaySystem,
    Snapshot,
    SnapshotError,
)
from gpuscope.model import OriginKind


def test_live_reads_are_values_not_exceptions(tmp_path: Path) -> None:
    live = LiveSystem()
    (tmp_path / "vendor").write_text("0x1002\n")
    assert live.read_text(str(tmp_path / "vendor")).stripped() == "0x1002"
    assert live.read_text(str(tmp_path / "absent")).error == "ENOENT"
    assert live.read_text(str(tmp_path)).error == "EISDIR"
    assert live.list_dir(str(tmp_path)).entries == ("vendor",)
    assert live.list_dir(str(tmp_path / "absent")).error == "ENOENT"
    assert not live.stat(str(tmp_path / "absent")).exists


def test_live_stat_sees_character_devices() -> None:
    info = LiveSystem().stat("/dev/null")
    assert info.exists and info.is_char_device
    assert info.mode_string is not None and info.mode_string.startswith("c")


def test_live_run_uses_argument_lists_and_bounds_time() -> None:
    live = LiveSystem()
    echoed = live.run([sys.executable, "-c", "import sys; print(sys.argv[1])", "a; echo b"])
    assert echoed.ok and echoed.stdout.strip() == "a; echo b"  # no shell interpreted ';'
    assert live.run(["gpuscope-no-such-program-xyz"]).error == "not_found"
    slow = live.run([sys.executable, "-c", "import time; time.sleep(5)"], timeout_s=0.3)
    assert slow.error == "timeout" and slow.duration_s is not None and slow.duration_s < 3
    failing = live.run([sys.executable, "-c", "import sys; sys.exit(3)"])
    assert failing.returncode == 3 and not failing.ok


def test_live_library_exception_becomes_evidence() -> None:
    def broken() -> None:
        raise KeyError("libamd_smi.so")

    answer = LiveSystem().library("amdsmi", broken)
    assert answer == {"status": "error", "error": "KeyError: 'libamd_smi.so'"}


@pytest.mark.parametrize("suffix", [".json", ".json.gz"])
def test_record_save_load_replay_gives_the_same_answers(tmp_path: Path, suffix: str) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "f").write_text("hello")
    os.symlink(tmp_path / "d", tmp_path / "link")
    recorder = RecordingSystem(LiveSystem())
    asked = {
        "read": recorder.read_text(str(tmp_path / "link" / "f")),
        "missing": recorder.read_text(str(tmp_path / "nope")),
        "list": recorder.list_dir(str(tmp_path / "d")),
        "stat": recorder.stat("/dev/null"),
        "access": recorder.can_open("/dev/null", write=True),
        "real": recorder.realpath(str(tmp_path / "link")),
        "run": recorder.run([sys.executable, "-c", "print('x')"]),
        "env": recorder.env("PATH"),
        "ident": recorder.identity(),
        "lib": recorder.library("fake", lambda: {"status": "ok", "n": (1, 2)}),
        "which": recorder.which("sh"),
    }
    path = tmp_path / f"snap{suffix}"
    recorder.snapshot.meta = {"description": "test"}
    recorder.snapshot.save(path)
    if suffix.endswith(".gz"):
        assert path.read_bytes()[:2] == b"\x1f\x8b"
    replay = ReplaySystem.from_file(path)
    assert replay.origin_kind is OriginKind.REPLAY
    again = {
        "read": replay.read_text(str(tmp_path / "link" / "f")),
        "missing": replay.read_text(str(tmp_path / "nope")),
        "list": replay.list_dir(str(tmp_path / "d")),
        "stat": replay.stat("/dev/null"),
        "access": replay.can_open("/dev/null", write=True),
        "real": replay.realpath(str(tmp_path / "link")),
        "run": replay.run([sys.executable, "-c", "print('x')"]),
        "env": replay.env("PATH"),
        "ident": replay.identity(),
        "lib": replay.library("fake", lambda: None),
        "which": replay.which("sh"),
    }
    assert asked.pop("lib") == {"status": "ok", "n": [1, 2]}  # JSON shape, live too
    assert again.pop("lib") == {"status": "ok", "n": [1, 2]}
    assert asked == again


def test_snapshot_is_plain_versioned_json(tmp_path: Path) -> None:
    recorder = RecordingSystem(LiveSystem())
    recorder.read_text("/proc/version")
    path = tmp_path / "s.json"
    recorder.snapshot.save(path)
    doc = json.loads(path.read_text())
    assert doc["format"] == "gpuscope-snapshot" and doc["version"] == 1
    assert "/proc/version" in doc["files"]


def test_replay_derives_directories_and_follows_recorded_links() -> None:
    device = "/sys/devices/pci0000:00/0000:00:01.1/0000:03:00.0"
    snapshot = Snapshot(
        files={f"{device}/vendor": {"text": "0x1002\n"}, f"{device}/device": {"text": "0x744c\n"}},
        realpaths={"/sys/class/drm/card0/device": device},
    )
    replay = ReplaySystem(snapshot)
    assert replay.read_text("/sys/class/drm/card0/device/vendor").stripped() == "0x1002"
    assert replay.list_dir("/sys/class/drm").entries == ("card0",)
    assert replay.list_dir("/sys/class/drm/card0/device").entries == ("device", "vendor")
    assert replay.realpath("/sys/class/drm/card0/device") == device
    assert replay.stat(device).exists and not replay.stat("/dev/kfd").exists
    assert replay.list_dir("/sys/class/kfd").error == "ENOENT"
    assert replay.library("nvml", lambda: None) == NOT_CAPTURED
    assert replay.run(["rocminfo"]).error == "not_found"


def test_replay_repeats_commands_in_order() -> None:
    snapshot = Snapshot(commands=[
        {"argv": ["x"], "returncode": 0, "stdout": "first"},
        {"argv": ["x"], "returncode": 0, "stdout": "second"},
    ])
    replay = ReplaySystem(snapshot)
    assert [replay.run(["x"]).stdout for _ in range(3)] == ["first", "second", "second"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"not json", r"not a gpuscope snapshot \(not JSON\); a pasted tool output goes to "
                      r"gpuscope doctor --from"),
        (b"{ not json", "not valid JSON"),
        (b"", "the file is empty"),
        (b"\xff\xd8\xff\xe0\x00\x10JFIF", r"not a gpuscope snapshot \(not JSON\)$"),
        (b"[1, 2]", "not a JSON object"),
        (b'{"format": "other"}', "not a gpuscope snapshot"),
        (b'{"schema": "gpuscope.report/1"}', "a 'gpuscope.report/1' document"),
        (b'{"format": "gpuscope-snapshot", "version": 99}', "newer than this gpuscope"),
        (b'{"format": "gpuscope-snapshot", "version": "1"}', "malformed snapshot: version"),
        (b'{"format": "gpuscope-snapshot", "version": 1, "files": []}', "malformed"),
        (b"\x1f\x8b\x08\x00garbage", "damaged gzip"),
        (b'{"format": "gpuscope-snapshot", "version": 1, "meta": {"n": ' + b"7" * 5000 + b"}}",
         "a number of 5,000 digits"),
        (b"[" * 100_000 + b"]" * 100_000, "nested deeper than 200 levels"),
        (b'{"format": "gpuscope-snapshot", "version": 1, "libraries": {"x": '
         + b"[" * 300 + b"]" * 300 + b"}}", "nested deeper than 200 levels"),
    ],
)
def test_bad_snapshot_files_give_one_line_reasons(
    tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(SnapshotError, match=message) as caught:
        Snapshot.load(path)
    assert "\n" not in str(caught.value)
    assert str(caught.value).startswith(f"{path}: ")  # it names the file


def test_missing_snapshot_file(tmp_path: Path) -> None:
    with pytest.raises(SnapshotError, match="cannot read") as caught:
        Snapshot.load(tmp_path / "absent.json")
    assert caught.value.kind == "unreadable"


def test_only_regular_files_are_read_as_snapshots(tmp_path: Path) -> None:
    refused = [tmp_path, Path("/dev/zero"), Path("/dev/null")]
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "pipe.json"
        os.mkfifo(fifo)  # no writer: opening it to read would block
        refused.append(fifo)
    for path in refused:
        if not os.path.exists(path):
            continue
        with pytest.raises(SnapshotError, match="gpuscope reads only regular files") as caught:
            Snapshot.load(path)
        assert caught.value.wrong_kind


def test_a_gzip_bomb_stops_at_the_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gpuscope.evidence

    monkeypatch.setattr(gpuscope.evidence, "MAX_SNAPSHOT_BYTES", 1_000_000)
    path = tmp_path / "bomb.json.gz"
    path.write_bytes(gzip.compress(b" " * 5_000_000))  # 5 KB on disk
    with pytest.raises(SnapshotError, match=r"larger than the 1 MB .* once decompressed"):
        Snapshot.load(path)
    # several gzip members are one stream: the cap counts them all
    member = gzip.compress(b" " * 400_000)
    path.write_bytes(member * 3)
    with pytest.raises(SnapshotError, match="once decompressed"):
        Snapshot.load(path)


def test_a_failed_save_leaves_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "s.json"
    target.mkdir()  # os.replace cannot put a file over a directory
    with pytest.raises(OSError):
        Snapshot().save(target)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.json"]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3)
    | st.dictionaries(st.text(max_size=6), children, max_size=3),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(
    sections=st.dictionaries(
        st.sampled_from(["files", "dirs", "stats", "access", "realpaths", "which", "commands",
                         "env", "identity", "libraries", "meta"]),
        json_values,
    ),
    path=st.sampled_from(["/", "/a", "/a/b", "/sys/class/drm/card0/device/vendor", ""]),
)
def test_any_snapshot_replays_without_exceptions(sections: dict[str, object], path: str) -> None:
    doc = {"format": "gpuscope-snapshot", "version": 1, **sections}
    try:
        snapshot = Snapshot.from_json(doc)
    except SnapshotError:
        return
    replay = ReplaySystem(snapshot)
    replay.read_text(path)
    replay.list_dir(path)
    replay.stat(path)
    replay.can_open(path, write=True)
    replay.realpath(path)
    replay.which("x")
    replay.run(["x"])
    replay.env("X")
    replay.identity()
    replay.library("nvml", lambda: None)


def test_gzip_snapshot_is_recognised_by_content_not_name(tmp_path: Path) -> None:
    doc = {"format": "gpuscope-snapshot", "version": 1, "env": {"A": "1"}}
    path = tmp_path / "renamed.json"
    path.write_bytes(gzip.compress(json.dumps(doc).encode()))
    assert ReplaySystem.from_file(path).env("A") == "1"


def test_access_recorded_per_mode() -> None:
    replay = ReplaySystem(Snapshot(
        access={"/dev/kfd|rw": False, "/dev/kfd|r": True},
        stats={"/dev/kfd": {"exists": True, "mode": stat.S_IFCHR | 0o660, "uid": 0, "gid": 110}},
    ))
    assert replay.can_open("/dev/kfd") and not replay.can_open("/dev/kfd", write=True)
    assert replay.stat("/dev/kfd").mode_string == "crw-rw----"
