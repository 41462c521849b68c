"""`serve_command`: refused configurations, the live host, the textfile, units, signals."""

from __future__ import annotations

import http.client
import io
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families
from serve_helpers import REPLAY, start_exporter

from gpuscope.serve.command import (
    ServeOptions,
    add_serve_arguments,
    parse_listen,
    serve_command,
    unit_options,
)
from gpuscope.serve.listen import ServeConfigError, is_loopback
from gpuscope.serve.units import exec_start, install_unit, unit_text

ROOT = Path(__file__).resolve().parents[2]


def _refused(options: ServeOptions) -> str:
    err = io.StringIO()
    assert serve_command(options, out=io.StringIO(), err=err) == 2
    text = err.getvalue()
    assert text.startswith("gpuscope serve: ") and text.count("\n") == 1, text
    return text


@pytest.mark.parametrize("listen", ["0.0.0.0:9840", "0.0.0.0", "[::]:9840", "192.168.1.5",
                                    "myhost.lan:9840"])
def test_non_loopback_without_token_or_tls_is_refused(listen: str) -> None:
    assert "refusing to listen on" in _refused(ServeOptions(listen=listen))


@pytest.mark.parametrize(("options", "words"), [
    (ServeOptions(token="a", token_file="f"), "give one"),
    (ServeOptions(tls_cert="c.pem"), "--tls-cert and --tls-key"),
    (ServeOptions(client_ca="ca.pem"), "--client-ca"),
    (ServeOptions(no_http=True), "--no-http"),
    (ServeOptions(user=True), "--user goes with --install-unit"),
    (ServeOptions(listen="127.0.0.1:9840", port=9841), "two ports"),
    (ServeOptions(listen="127.0.0.1:http"), "not a port"),
    (ServeOptions(port=70000), "not a port"),
    (ServeOptions(rate=100.0), "--rate"),
    (ServeOptions(token_file="/nonexistent/token"), "--token-file"),
    (ServeOptions(textfile="/nonexistent/dir"), "no such directory"),
    (ServeOptions(replay=__file__), ""),
])
def test_refused_configurations_are_one_line_and_exit_2(options: ServeOptions,
                                                        words: str) -> None:
    assert words in _refused(options)


def test_a_token_file_or_tls_opens_any_address(tmp_path: Path) -> None:
    from gpuscope.serve.command import check_options

    token = tmp_path / "token"
    token.write_text("  abc123  \nignored\n")
    host, port, found, tls = check_options(ServeOptions(listen="0.0.0.0:9840",
                                                        token_file=str(token)))
    assert (host, port, found, tls) == ("0.0.0.0", 9840, "abc123", None)
    token.write_text("\n")
    with pytest.raises(ServeConfigError, match="empty"):
        check_options(ServeOptions(token_file=str(token)))


def test_listen_addresses() -> None:
    assert parse_listen(None, None) == ("127.0.0.1", 9840)
    assert parse_listen("0.0.0.0:9100", None) == ("0.0.0.0", 9100)
    assert parse_listen("[::1]:9841", None) == ("::1", 9841)
    assert parse_listen("::1", 9000) == ("::1", 9000)
    assert parse_listen("localhost", 0) == ("localhost", 0)
    assert is_loopback("127.0.0.2") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("::") and not is_loopback("host")


def test_a_taken_port_fails_at_once() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        err = io.StringIO()
        code = serve_command(ServeOptions(port=taken.getsockname()[1], replay=REPLAY),
                             out=io.StringIO(), err=err)
    assert code == 1
    assert err.getvalue().startswith("gpuscope serve: cannot listen on 127.0.0.1:")


def test_this_machine_serves_live_host_metrics() -> None:
    started = start_exporter(ServeOptions(port=0, no_frameworks=True))
    try:
        time.sleep(1.2)  # a tick or two of psutil's CPU load
        connection = http.client.HTTPConnection("127.0.0.1", started.port, timeout=10)
        connection.request("GET", "/metrics")
        text = connection.getresponse().read().decode()
        connection.close()
    finally:
        assert started.close() == 0
    families = {f.name: f for f in text_string_to_metric_families(text)}
    memory = families["gpuscope_host_memory_used_bytes"].samples[0].value
    assert 0 < memory < os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    cpu = families["gpuscope_host_cpu_utilization_ratio"].samples[0].value
    assert 0.0 <= cpu <= 1.0
    cores = families["gpuscope_host_cpu_core_utilization_ratio"].samples
    assert len(cores) == os.cpu_count()
    assert "# HELP gpuscope_host_memory_used_bytes Host RAM used (bytes)" in text
    assert families["gpuscope_build_info"].samples
    assert "gpuscope_finding" in families


def test_textfile_for_node_exporter(tmp_path: Path) -> None:
    started_at = time.time()
    err = io.StringIO()
    import threading

    stop = threading.Event()
    result: list[int] = []
    thread = threading.Thread(target=lambda: result.append(serve_command(
        ServeOptions(replay=REPLAY, no_http=True, textfile=str(tmp_path), no_frameworks=True,
                     textfile_interval=1.0, rate=4.0), stop=stop, err=err)), daemon=True)
    thread.start()
    target = tmp_path / "gpuscope.prom"
    deadline = time.monotonic() + 30
    text = ""
    while time.monotonic() < deadline:
        if target.exists():
            text = target.read_text()
            if "gpuscope_gpu_power_watts{" in text and "gpuscope_finding{" in text:
                break
        time.sleep(0.2)
    stop.set()
    thread.join(10)
    assert result == [0], err.getvalue()
    families = {f.name: f for f in text_string_to_metric_families(text)}
    assert families["gpuscope_gpu_power_watts"].samples[0].value == 27.0
    assert target.stat().st_mtime >= started_at - 1
    assert [p.name for p in tmp_path.iterdir()] == ["gpuscope.prom"]  # no temporary left


def test_user_unit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    out = io.StringIO()
    token = tmp_path / "token"
    token.write_text("abc\n")
    code = serve_command(ServeOptions(install_unit=True, user=True, port=9100,
                                      token_file=str(token)), out=out, err=io.StringIO())
    assert code == 0
    unit = tmp_path / "systemd/user/gpuscope.service"
    text = unit.read_text()
    assert f"ExecStart={sys.executable} -m gpuscope serve --port 9100 --token-file {token}\n" in (
        text)
    assert "WantedBy=default.target" in text
    assert oct(unit.stat().st_mode & 0o777) == "0o644"
    printed = out.getvalue()
    assert str(unit) in printed
    assert "systemctl --user daemon-reload" in printed
    assert "systemctl --user enable --now gpuscope.service" in printed


def test_a_unit_never_holds_the_token_itself() -> None:
    assert "--token-file" in _refused(ServeOptions(install_unit=True, user=True, token="x"))
    with pytest.raises(ServeConfigError):
        unit_options(ServeOptions(replay=REPLAY))


def test_system_unit(tmp_path: Path) -> None:
    text = unit_text(False, ["/opt/venv/bin/python", "-m", "gpuscope", "serve"],
                     run_as="alice", group_exists=lambda name: name == "render")
    assert "\nUser=alice\n" in text and "\nDynamicUser=yes\n" not in text
    assert "SupplementaryGroups=render\n" in text
    assert "ExecStart=/opt/venv/bin/python -m gpuscope serve\n" in text
    assert "WantedBy=multi-user.target" in text
    text = unit_text(False, ["/usr/bin/python3"], writable=["/var/lib/node exporter"],
                     group_exists=lambda name: False)
    assert "\nDynamicUser=yes\n" in text and "\nSupplementaryGroups" not in text
    assert "\nProtectSystem=strict\nReadWritePaths=\"/var/lib/node exporter\"\n" in text
    installed = install_unit(False, ["--port", "9100"], path=tmp_path / "gpuscope.service",
                             run_as="alice")
    assert installed.next_commands[-1].endswith("systemctl enable --now gpuscope.service")
    systemd_analyze = __import__("shutil").which("systemd-analyze")
    if systemd_analyze:
        checked = subprocess.run([systemd_analyze, "verify", "--man=no",
                                  str(installed.path)], capture_output=True, text=True,
                                 timeout=60)
        assert "gpuscope.service:" not in checked.stderr, checked.stderr


def test_exec_start_quoting() -> None:
    assert exec_start(["/a b/python", "-m", "x", "100%", "$HOME"]) == (
        '"/a b/python" -m x 100%% "$$HOME"')


def test_argparse_options_reach_serve_command() -> None:
    import argparse

    parser = argparse.ArgumentParser()
    add_serve_arguments(parser)
    args = parser.parse_args(["--listen", "0.0.0.0:9840", "--python", "/usr/bin/python3",
                              "--doctor-interval", "5"])
    options = ServeOptions.from_args(args)
    assert options.listen == "0.0.0.0:9840" and options.python == ("/usr/bin/python3",)
    assert options.doctor_interval == 5.0
    assert "refusing" in _refused(options)


def test_sigterm_stops_cleanly() -> None:
    code = ("import sys; from gpuscope.serve.command import ServeOptions, serve_command; "
            f"sys.exit(serve_command(ServeOptions(port=0, replay={REPLAY!r}, "
            "no_frameworks=True)))")
    process = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stderr=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        assert "serving http://127.0.0.1:" in line, line
        process.send_signal(signal.SIGTERM)
        assert process.wait(15) == 0
        assert process.stderr.read() == ""
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
