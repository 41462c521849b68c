"""`gpuscope report`: every format from the command line, labelled, redacted by default; and
the acceptance test of redaction: run as another user on a host with another name, no export
holds that user name, host name or home path."""

from __future__ import annotations

import json
import os
import random
import shutil
import string
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from fixture_paths import SNAPSHOTS_DIR, TESTS_DIR

from gpuscope.bench.results import run_from_json
from gpuscope.cli import main
from gpuscope.report.compare_import import ImportedReport, read_compare_report

sys.path.insert(0, str(TESTS_DIR / "report"))
from report_fixtures import (
    PLANTED_HOME,
    PLANTED_NAMES,
    bench_run_document,
    planted_snapshot,
)

REPO = TESTS_DIR.parent
RX7900 = str(SNAPSHOTS_DIR / "rx7900xtx_rocm.json")


@pytest.fixture(autouse=True)
def _private_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Saved benchmark runs are read from a folder of the test's own."""
    monkeypatch.setenv("GPUSCOPE_DATA_DIR", str(tmp_path / "data"))


def _run(*args: str) -> tuple[int, str, str]:
    completed = subprocess.run(
        [sys.executable, "-m", "gpuscope", *args], capture_output=True, text=True,
        timeout=240, env={**os.environ, "QT_QPA_PLATFORM": "offscreen"}, check=False)
    return completed.returncode, completed.stdout, completed.stderr


# ----------------------------------------------------------------------------- this machine


def test_png_of_this_machine_is_1200_px_wide(tmp_path: Path) -> None:
    """The acceptance command, live, in a process of its own."""
    out = tmp_path / "r.png"
    code, stdout, stderr = _run("report", "--format", "png", "-o", str(out), "--sample", "1")
    assert code == 0, stderr
    assert f"Wrote {out} (PNG report, 1200x" in stdout
    assert "probing the GPUs" in stderr  # progress on stderr
    with open(out, "rb") as handle:
        header = handle.read(24)
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(header[16:20], "big") == 1200


@pytest.mark.parametrize("fmt", ["html", "md", "json"])
def test_text_formats_of_this_machine(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      fmt: str) -> None:
    out = tmp_path / f"r.{fmt}"
    code = main(["report", "--format", fmt, "-o", str(out), "--no-frameworks",
                 "--sample", "0"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    text = out.read_text(encoding="utf-8")
    if fmt == "html":
        assert "http://" not in text and "https://" not in text
        assert "Live reading of this machine" in text
    if fmt == "md":
        assert text.startswith("# GPU report") and "<details>" in text
    if fmt == "json":
        document = json.loads(text)
        assert document["schema"] == "gpuscope.report/1" and document["redacted"] is True
        assert document["origin"]["kind"] == "live"
        assert document["diagnosis"]["schema"] == "gpuscope.diagnosis/1"
        # Compare reads it back, whether this machine has a GPU or not
        imported = read_compare_report(out)
        assert isinstance(imported, ImportedReport)
        assert len(imported.cards) == len(document["diagnosis"]["gpus"])


# ----------------------------------------------------------------------------- a replay


@pytest.mark.parametrize("fmt", ["html", "md", "json"])
def test_a_replay_is_labelled_in_every_format(capsys: pytest.CaptureFixture[str],
                                              fmt: str) -> None:
    code = main(["--replay", RX7900, "report", "--format", fmt, "-q"])
    captured = capsys.readouterr()
    assert code == 0
    if fmt == "json":
        origin = json.loads(captured.out)["origin"]
        assert origin["kind"] == "replay" and "REPLAYED SNAPSHOT" in origin["label"]
    else:
        assert "REPLAYED SNAPSHOT" in captured.out
    assert "Labelled: REPLAYED SNAPSHOT" in captured.err  # stdout is the report itself


def test_the_json_re_imports_into_compare(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run.json"
    run.write_text(json.dumps(bench_run_document()))
    out = tmp_path / "shared.json"
    assert main(["report", "--replay", RX7900, "-o", str(out), "--bench", str(run),
                 "-q"]) == 0  # the format from the extension
    imported = read_compare_report(out)
    assert isinstance(imported, ImportedReport)
    (card,) = imported.cards
    assert card.profile.name == "AMD Radeon RX 7900 XTX"
    assert card.result("matmul.fp16") is not None
    assert "Wrote" in capsys.readouterr().out


def test_markdown_goes_to_stdout_without_o(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "--replay", RX7900]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("# GPU report: AMD Radeon RX 7900 XTX (replay)")
    assert "gpuscope: replaying rx7900xtx_rocm.json…" in captured.err
    assert "Redacted:" in captured.err


def test_the_planted_machine_leaks_nothing_unless_asked(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    snapshot = planted_snapshot(tmp_path)
    run = tmp_path / "run.json"
    run.write_text(json.dumps(bench_run_document(python=f"{PLANTED_HOME}/venv/bin/python")))
    for fmt in ("html", "md", "json"):
        out = tmp_path / f"r.{fmt}"
        assert main(["report", "--replay", str(snapshot), "--bench", str(run), "-o",
                     str(out), "-q"]) == 0
        text = out.read_text(encoding="utf-8").lower()
        assert [n for n in PLANTED_NAMES if n.lower() in text] == [], fmt
    out = tmp_path / "plain.json"
    assert main(["report", "--replay", str(snapshot), "--bench", str(run), "-o", str(out),
                 "--no-redact", "-q"]) == 0
    assert PLANTED_HOME in out.read_text(encoding="utf-8")
    assert "Not redacted" in capsys.readouterr().out


@pytest.mark.parametrize(("args", "words"), [
    (["--replay", "/nonexistent/snap.json"], "snap.json"),
    (["--bench", str(SNAPSHOTS_DIR / "rx7900xtx_rocm.json")], "not a benchmark run"),
    (["--bench", "/nonexistent/run.json"], "no such file"),
    (["--recording", str(SNAPSHOTS_DIR / "rx7900xtx_rocm.json")], "not a gpuscope recording"),
])
def test_bad_inputs_fail_with_one_line(capsys: pytest.CaptureFixture[str], args: list[str],
                                       words: str) -> None:
    code = main(["report", "--no-frameworks", "--sample", "0", "-q", *args])
    err = capsys.readouterr().err
    assert code == 1 and words in err and err.startswith("gpuscope: ")
    assert "Traceback" not in err


# ----------------------------------------------------------------------------- another user


@dataclass(frozen=True)
class Stranger:
    user: str
    host: str
    home: Path
    python: list[str]  # how that user runs gpuscope's interpreter with gpuscope importable


def _random_name(prefix: str) -> str:
    return prefix + "".join(random.choices(string.ascii_lowercase, k=7))


def _runs_as(user: str, argv: list[str]) -> bool:
    try:
        return subprocess.run(["runuser", "-u", user, "--", *argv], capture_output=True,
                              timeout=60, check=False).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@pytest.fixture
def stranger() -> Iterator[Stranger]:
    """A throwaway user with a distinctive name and home, removed afterwards."""
    if os.name != "posix" or os.geteuid() != 0:
        pytest.skip("adding a throwaway user needs root (this test runs in CI containers)")
    for tool in ("useradd", "userdel", "runuser", "unshare", "hostname"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")
    user, host = _random_name("zq"), _random_name("gsq-host-")
    home = Path("/home") / user
    made = subprocess.run(["useradd", "-m", "-d", str(home), "-s", "/bin/sh", user],
                          capture_output=True, text=True, check=False)
    if made.returncode != 0:
        pytest.skip(f"useradd is not permitted here: {made.stderr.strip()}")
    try:
        probe = subprocess.run(["unshare", "--uts", "--", "sh", "-c",
                                'hostname "$0" && hostname', host],
                               capture_output=True, text=True, check=False)
        if probe.returncode != 0 or probe.stdout.strip() != host:
            pytest.skip(f"a host name of its own (unshare --uts) is not permitted here: "
                        f"{probe.stderr.strip()}")
        # The interpreter running the tests, if that user may run it; else the system's
        # Python of the same version with this environment's packages added.
        boot = ("import site, sys; site.addsitedir(sys.argv.pop(1)); "
                "from gpuscope.cli import main; sys.exit(main(sys.argv[1:]))")
        site_dir = sysconfig.get_paths()["purelib"]
        version = f"python{sys.version_info.major}.{sys.version_info.minor}"
        python: list[str] | None = None
        for candidate in (sys.executable, shutil.which(version) or "",
                          f"/usr/bin/{version}"):
            if candidate and _runs_as(user, [candidate, "-c", boot, site_dir, "--version"]):
                python = [candidate, "-c", boot, site_dir]
                break
        if python is None:
            pytest.skip(f"user {user} can run no {version} that imports gpuscope")
        yield Stranger(user, host, home, python)
    finally:
        subprocess.run(["userdel", "-r", "-f", user], capture_output=True, check=False)


def _report_as(stranger: Stranger, *args: str) -> subprocess.CompletedProcess[str]:
    home = str(stranger.home)
    env = [f"HOME={home}", f"USER={stranger.user}", f"LOGNAME={stranger.user}",
           "PATH=/usr/local/bin:/usr/bin:/bin", "QT_QPA_PLATFORM=offscreen",
           f"GPUSCOPE_DATA_DIR={home}/.local/share/gpuscope",
           # Where a user's names reach a report: their paths in the stack's variables.
           f"ROCM_PATH={home}/rocm", f"HIP_PATH=/net/{stranger.host}/opt/rocm"]
    argv = ["unshare", "--uts", "--", "sh", "-c", 'hostname "$0" && exec "$@"', stranger.host,
            "runuser", "-u", stranger.user, "--", "env", "-i", *env, *stranger.python,
            "report", *args]
    return subprocess.run(argv, capture_output=True, text=True, timeout=240, check=False,
                          cwd=home)


def test_exports_made_by_another_user_on_another_host_hold_none_of_their_names(
        stranger: Stranger) -> None:
    home = stranger.home
    out = home / "out"
    # Files the user makes: their interpreter under their home (a link) and a benchmark run.
    subprocess.run(["runuser", "-u", stranger.user, "--", "mkdir", "-p", str(out),
                    str(home / "venv" / "bin")], check=True)
    python_link = home / "venv" / "bin" / "python"
    python_link.symlink_to(os.path.realpath(stranger.python[0]))
    run = home / "run.json"
    run.write_text(json.dumps(bench_run_document(python=str(python_link))))
    shutil.chown(run, stranger.user)
    common = ["--python", str(python_link), "--bench", str(run), "--sample", "1"]

    plain = _report_as(stranger, "--format", "json", "-o", str(out / "plain.json"),
                       "--no-redact", *common)
    assert plain.returncode == 0, plain.stderr
    unredacted = (out / "plain.json").read_text(encoding="utf-8")
    # The check below can fail: unredacted, the report holds all three.
    for name in (stranger.user, stranger.host, str(home)):
        assert name in unredacted, name

    for fmt in ("png", "html", "md", "json"):
        done = _report_as(stranger, "--format", fmt, "-o", str(out / f"r.{fmt}"), *common)
        assert done.returncode == 0, done.stderr
        assert "Redacted:" in done.stdout
        data = (out / f"r.{fmt}").read_bytes()
        if fmt == "png":
            # The picture is drawn from the redacted report only (its drawn text is checked
            # in tests/ui/test_report_render.py); here: it exists at its width.
            assert data[:8] == b"\x89PNG\r\n\x1a\n" and int.from_bytes(data[16:20], "big") == 1200
            continue
        text = data.decode("utf-8").lower()
        for name in (stranger.user, stranger.host, str(home)):
            assert name.lower() not in text, f"{name} in the {fmt} export"
        assert "<home-1>" in text or "&lt;home-1&gt;" in text


def test_the_telemetry_strip_from_a_recording(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """A recording of the planted machine: its GPU by name in the strip, its host name
    (which the recording keeps) nowhere."""
    import numpy as np
    from report_fixtures import PLANTED_HOST

    from gpuscope.evidence import ReplaySystem
    from gpuscope.inventory import collect_inventory
    from gpuscope.metrics import Metric, series_name
    from gpuscope.telemetry.recorder import write_recording

    snapshot = planted_snapshot(tmp_path)
    inventory = collect_inventory(ReplaySystem.from_file(snapshot))
    assert inventory.host.hostname == PLANTED_HOST
    times = 1_795_000_000.0 + np.arange(60.0)
    load = np.where((times - times[0] > 10) & (times - times[0] < 40), 1.0, 0.0)
    recording = tmp_path / "run.sqlite"
    write_recording(recording, times, {
        series_name("0000:03:00.0", Metric.POWER_W): 40 + 300 * load,
        series_name("0000:03:00.0", Metric.GPU_UTIL_PERCENT): 100 * load,
        series_name("host", Metric.HOST_CPU_PERCENT): 5 + 20 * load,
    }, rate_hz=1.0, inventory=inventory)
    out = tmp_path / "r.md"
    assert main(["report", "--replay", str(snapshot), "--recording", str(recording),
                 "-o", str(out), "-q"]) == 0
    text = out.read_text(encoding="utf-8")
    telemetry = text.split("## Telemetry", 1)[1]
    assert "recording run.sqlite: 59 s" in telemetry
    assert "GPU 0: AMD Radeon RX 7900 XTX" in telemetry and "| 340 W |" in telemetry
    assert PLANTED_HOST not in text
    capsys.readouterr()


# ----------------------------------------------------------------------------- the language


NO_ACCESS = str(SNAPSHOTS_DIR / "amd_kfd_no_access.json")


def _has_chinese(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


@pytest.fixture
def chinese_locale(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A machine whose locale is Simplified Chinese; English again afterwards (the command
    sets the language of this whole process)."""
    from gpuscope.i18n import ENGLISH, set_language

    for name in ("GPUSCOPE_LANG", "LC_ALL", "LC_MESSAGES", "LANGUAGE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    yield
    set_language(ENGLISH)


def _without_time(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if "generated_unix_s" not in line)


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_the_report_follows_the_locale_and_lang_en_gives_english(
        chinese_locale: None, capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    assert main(["--replay", NO_ACCESS, "report", "--format", fmt, "-q"]) == 0
    chinese = capsys.readouterr()
    assert main(["--lang", "en", "--replay", NO_ACCESS, "report", "--format", fmt, "-q"]) == 0
    english = capsys.readouterr()
    if fmt == "md":
        assert chinese.out.startswith("# GPU 报告：AMD Radeon RX 6700 XT（回放）")
        assert "## 诊断结果" in chinese.out and "修复：" in chinese.out
        assert english.out.startswith("# GPU report: AMD Radeon RX 6700 XT (replay)")
    else:
        assert '<html lang="zh-CN">' in chinese.out and "<h2>诊断结果</h2>" in chinese.out
        assert '<html lang="en">' in english.out
    assert "sudo usermod -aG render,video $USER" in chinese.out  # commands as they are
    assert "已标注：回放的快照 — 不是实时读数。" in chinese.err
    assert not _has_chinese(english.out) and not _has_chinese(english.err)
    assert "Labelled: REPLAYED SNAPSHOT — not a live reading." in english.err


def test_json_stays_english_byte_for_byte(chinese_locale: None,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    outputs = []
    for lang in ([], ["--lang", "en"]):
        assert main([*lang, "--replay", NO_ACCESS, "report", "--format", "json", "-q"]) == 0
        report = capsys.readouterr().out
        assert main([*lang, "--replay", NO_ACCESS, "info", "--json"]) == 0
        info = json.loads(capsys.readouterr().out)
        info["origin"].pop("probe_durations_s")  # how long each probe took this time
        outputs.append((_without_time(report), json.dumps(info)))
    assert outputs[0] == outputs[1]
    assert not any(_has_chinese(text) for text in outputs[0])


def test_info_follows_the_locale(chinese_locale: None,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--replay", NO_ACCESS, "info"]) == 0
    chinese = capsys.readouterr().out
    assert main(["--lang", "en", "--replay", NO_ACCESS, "info"]) == 0
    english = capsys.readouterr().out
    assert "\n主机\n" in chinese and "\n探测\n" in chinese and "不可用：" in chinese
    assert "\nHost\n" in english and "unavailable: " in english
    assert not _has_chinese(english)


def test_a_json_report_after_a_failed_and_a_successful_run_holds_only_the_successful_one(
        tmp_path: Path) -> None:
    """Issue #12's acceptance: a failed run (no torch) and a successful one, both given;
    the report's JSON carries the successful run only, and says why the other is left out."""
    good = bench_run_document(1_700_000_000.0)
    failed = bench_run_document(1_700_000_600.0)
    failed["results"] = []
    failed["errors"] = [{"kind": "no_torch", "message": "No module named 'torch'"}]
    parsed = run_from_json(failed)
    assert parsed is not None and not parsed.ok  # a run that failed, not an unreadable file
    paths = []
    for name, document in (("good.json", good), ("failed.json", failed)):
        path = tmp_path / name
        path.write_text(json.dumps(document), encoding="utf-8")
        paths.append(str(path))
    code, stdout, stderr = _run("--replay", RX7900, "report", "--format", "json",
                                "--no-frameworks", "--sample", "0", "--bench", paths[0],
                                "--bench", paths[1])
    assert code == 0, stderr
    runs = json.loads(stdout)["bench_runs"]
    assert [run["started_unix_s"] for run in runs] == [1_700_000_000.0]
    assert all(result["status"] == "ok" for result in runs[0]["results"]
               if result["id"] != "matmul.int8")
