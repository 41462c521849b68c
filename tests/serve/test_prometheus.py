"""`gpuscope serve` against a real Prometheus server (issue #15).

The test starts the `prometheus` binary of the system's packages on 127.0.0.1 and a free port,
scraping every second a `gpuscope serve` started here (in a process of its own) on a replayed
RX 7900 XTX machine (tests/fixtures/snapshots/rx7900xtx_rocm.json: the replay's amdgpu sysfs
files give its telemetry), with the alert rules of resources/prometheus loaded. It waits for
a scrape, then asks Prometheus' HTTP API for the machine's `gpuscope_` series, runs every
dashboard query and checks the rules evaluate. Both processes are stopped in every case.
Without the binary (.ci/run installs it with apt when root) the tests skip with that reason.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from dashboard_queries import (
    DASHBOARDS,
    RULES_FILE,
    emitted_names,
    load_dashboard,
    queries_of,
    read_yaml_subset,
    substitute,
    variable_selector,
)
from fixture_paths import SNAPSHOTS_DIR

PROMETHEUS = shutil.which("prometheus")
pytestmark = pytest.mark.skipif(
    PROMETHEUS is None,
    reason="the prometheus binary is not installed (Debian/Ubuntu package 'prometheus'; "
           ".ci/run installs it with apt when it runs as root)")

REPLAY = SNAPSHOTS_DIR / "rx7900xtx_rocm.json"
GPU_LABELS = {"gpu": "0", "pci_bus": "0000:03:00.0", "name": "AMD Radeon RX 7900 XTX"}
START_TIMEOUT_S = 60.0
SCRAPE_TIMEOUT_S = 30.0

def exporter_command(snapshot: Path) -> list[str]:
    """The command line of an exporter on a free loopback port serving `snapshot`."""
    return [sys.executable, "-m", "gpuscope", "--replay", str(snapshot), "serve",
            "--port", "0", "--no-frameworks"]


@dataclass
class Process:
    """A child process whose output is drained on a thread (a full pipe never blocks it)."""

    name: str
    popen: subprocess.Popen[str]
    lines: list[str] = field(default_factory=list)
    reader: threading.Thread | None = None

    @classmethod
    def start(cls, name: str, command: list[str], **kwargs: Any) -> Process:
        popen = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL, text=True, encoding="utf-8",
                                 errors="replace", **kwargs)
        process = cls(name, popen)
        process.reader = threading.Thread(target=process._drain, daemon=True,
                                          name=f"drain-{name}")
        process.reader.start()
        return process

    def _drain(self) -> None:
        assert self.popen.stdout is not None
        for line in self.popen.stdout:
            self.lines.append(line.rstrip("\n"))

    def output(self, last: int = 40) -> str:
        return f"{self.name} said:\n" + "\n".join(self.lines[-last:])

    def wait_for(self, what: str, found: Callable[[], Any], timeout_s: float) -> Any:
        """Poll `found` until it returns something true; fail with the process' output when
        it exits first or `timeout_s` passes."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            result = found()
            if result:
                return result
            if self.popen.poll() is not None:
                time.sleep(0.2)  # the last lines
                pytest.fail(f"{self.name} exited ({self.popen.returncode}) before {what}\n"
                            f"{self.output()}")
            time.sleep(0.2)
        pytest.fail(f"no {what} within {timeout_s:g} s\n{self.output()}")

    def stop(self) -> int:
        if self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(15)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(15)
        if self.reader is not None:
            self.reader.join(5)
        return self.popen.returncode


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _get_json(url: str, timeout_s: float = 5.0) -> Any:
    with urllib.request.urlopen(url, timeout=timeout_s) as answer:
        return json.load(answer)


@dataclass(frozen=True)
class Stack:
    prometheus_url: str
    target: str  # the exporter's host:port, Prometheus' `instance` label
    exporter: Process
    prometheus: Process

    def query(self, promql: str) -> list[dict[str, Any]]:
        url = f"{self.prometheus_url}/api/v1/query?" + urllib.parse.urlencode({"query": promql})
        try:
            answer = _get_json(url)
        except urllib.error.HTTPError as exc:  # 400 with the error for a bad query
            answer = json.load(exc)
        assert answer["status"] == "success", f"{promql}: {answer.get('error')}"
        result = answer["data"]["result"]
        assert isinstance(result, list)
        return result


def _start_exporter(tmp_path: Path) -> tuple[Process, str]:
    env = dict(os.environ, GPUSCOPE_LANG="en", PYTHONUNBUFFERED="1")
    exporter = Process.start("gpuscope serve", exporter_command(REPLAY), env=env,
                             cwd=tmp_path)
    url_line = re.compile(r"https?://(127\.0\.0\.1:\d+)/metrics")

    def serving() -> str | None:
        for line in list(exporter.lines):
            match = url_line.search(line)
            if match:
                return match.group(1)
        return None

    target: str = exporter.wait_for("the exporter's 'serving' line", serving, START_TIMEOUT_S)
    return exporter, target


def _start_prometheus(tmp_path: Path, target: str) -> tuple[Process, str]:
    assert PROMETHEUS is not None
    rules = tmp_path / RULES_FILE.name
    shutil.copy(RULES_FILE, rules)
    config = {  # JSON is YAML
        "global": {"scrape_interval": "1s", "scrape_timeout": "1s",
                   "evaluation_interval": "1s"},
        "rule_files": [str(rules)],
        "scrape_configs": [{"job_name": "gpuscope",
                            "static_configs": [{"targets": [target]}]}],
    }
    config_path = tmp_path / "prometheus.yml"
    config_path.write_text(json.dumps(config, indent=1), encoding="utf-8")
    last: Process | None = None
    for _attempt in range(3):  # another process may take the free port before Prometheus
        port = _free_port()
        url = f"http://127.0.0.1:{port}"
        last = Process.start("prometheus", [
            PROMETHEUS, f"--config.file={config_path}",
            f"--storage.tsdb.path={tmp_path / 'data'}",
            f"--web.listen-address=127.0.0.1:{port}", "--log.level=warn"], cwd=tmp_path)

        def ready(url: str = url) -> bool:
            try:
                with urllib.request.urlopen(f"{url}/-/ready", timeout=2) as answer:
                    return bool(answer.status == 200)
            except OSError:
                return False

        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline and last.popen.poll() is None:
            if ready():
                return last, url
            time.sleep(0.2)
        last.stop()
        if not any("address already in use" in line for line in last.lines):
            break
    assert last is not None
    pytest.fail(f"Prometheus did not become ready\n{last.output()}")


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    tmp_path = tmp_path_factory.mktemp("prometheus")
    exporter: Process | None = None
    prometheus: Process | None = None
    try:
        exporter, target = _start_exporter(tmp_path)
        prometheus, url = _start_prometheus(tmp_path, target)
        running = Stack(url, target, exporter, prometheus)

        def scraped() -> bool:
            targets = _get_json(f"{url}/api/v1/targets")["data"]["activeTargets"]
            return any(t["labels"].get("instance") == target and t["health"] == "up"
                       and t["labels"].get("job") == "gpuscope" for t in targets)

        prometheus.wait_for("a successful scrape of the exporter", scraped, SCRAPE_TIMEOUT_S)
        # The doctor's first verdict comes a moment after the exporter starts, and a rate()
        # needs two samples: wait for three scrapes, the last with the doctor's findings.
        prometheus.wait_for("three scrapes, the doctor's findings in the last", lambda: (
            running.query('count_over_time(up{job="gpuscope"}[1m]) >= 3')
            and running.query("gpuscope_doctor_last_run_timestamp_seconds")),
            SCRAPE_TIMEOUT_S)
        yield running
    finally:
        codes = {process.name: process.stop() for process in (prometheus, exporter)
                 if process is not None}
    # After the stack is down: SIGTERM stops the exporter cleanly.
    assert codes.get("gpuscope serve") == 0, exporter.output() if exporter else codes


def test_prometheus_scrapes_the_replayed_gpus_series(stack: Stack) -> None:
    series = stack.query('{__name__=~"gpuscope_.+"}')
    by_name: dict[str, list[dict[str, str]]] = {}
    for item in series:
        by_name.setdefault(item["metric"]["__name__"], []).append(item["metric"])
    for labels in (item["metric"] for item in series):
        assert labels["job"] == "gpuscope" and labels["instance"] == stack.target
    # The replayed RX 7900 XTX, with its telemetry from the snapshot's sysfs files.
    for name in ("gpuscope_gpu_utilization_ratio", "gpuscope_gpu_memory_used_bytes",
                 "gpuscope_gpu_memory_total_bytes", "gpuscope_gpu_temperature_celsius",
                 "gpuscope_gpu_power_watts", "gpuscope_gpu_clock_hertz", "gpuscope_gpu_up",
                 "gpuscope_gpu_info"):
        assert by_name.get(name), f"no {name} series: {sorted(by_name)}"
        for labels in by_name[name]:
            assert {k: labels.get(k) for k in GPU_LABELS} == GPU_LABELS, labels
    sensors = {labels["sensor"] for labels in by_name["gpuscope_gpu_temperature_celsius"]}
    assert sensors == {"edge", "junction", "memory"}
    [info] = by_name["gpuscope_gpu_info"]
    assert (info["vendor"], info["gfx_target"]) == ("amd", "gfx1100")
    # The values are the snapshot's: mem_info_vram_total and the junction sensor.
    [total] = stack.query(f'gpuscope_gpu_memory_total_bytes{{instance="{stack.target}"}}')
    assert float(total["value"][1]) == 25753026560
    [junction] = stack.query('gpuscope_gpu_temperature_celsius{sensor="junction"}')
    assert float(junction["value"][1]) == 48.0
    # The doctor's verdict and the versions.
    assert {"id": "gpu.usable", "severity": "ok", "gpu": "0"}.items() <= {
        k: v for labels in by_name["gpuscope_finding"] for k, v in labels.items()
        if labels["id"] == "gpu.usable"}.items()
    [rocm] = by_name["gpuscope_rocm_info"]
    assert rocm["version"] == "6.2.4"
    assert any(labels["driver"] == "amdgpu" for labels in by_name["gpuscope_driver_info"])
    # Why a metric is missing is a series too.
    missing = stack.query('gpuscope_metric_available{metric="throttle_reasons"} == 0')
    assert missing and missing[0]["metric"]["reason"]


def test_every_series_name_prometheus_took_is_one_the_dashboards_may_use(stack: Stack) -> None:
    answer = _get_json(f"{stack.prometheus_url}/api/v1/label/__name__/values")
    taken = {name for name in answer["data"] if name.startswith("gpuscope_")}
    assert taken, answer
    assert taken <= emitted_names(), sorted(taken - emitted_names())


# Queries the replayed machine rightly answers with nothing.
_EMPTY_ON_THE_REPLAY = {
    # It has no finding but gpu.usable.
    "gpuscope-overview.json: panel 'Findings (not ok)' target A",
    # A snapshot has no CUDA, no throttle reasons, no PCIe traffic and no live host readings
    # (gpuscope_metric_available says why).
    "gpuscope-overview.json: panel 'CUDA' target A",
    "gpuscope-fleet.json: panel 'CUDA' target A",
    "gpuscope-gpu.json: panel 'PCIe traffic' target A",
    "gpuscope-gpu.json: panel 'PCIe traffic' target B",
    "gpuscope-gpu.json: panel 'Throttle reasons' target A",
    "gpuscope-gpu.json: panel 'Host CPU' target A",
    "gpuscope-gpu.json: panel 'Host CPU' target B",
    "gpuscope-gpu.json: panel 'Host memory' target A",
    "gpuscope-gpu.json: panel 'Host memory' target B",
}


# What the joins and ratios answer for the replayed machine: its one GPU, usable (the doctor's
# gpu.usable), with 1327644672 of 25753026560 bytes of VRAM in use (the snapshot's mem_info_*).
_VALUES_ON_THE_REPLAY = {
    "gpuscope-overview.json: panel 'GPUs' target A": [1.0],
    "gpuscope-overview.json: panel 'GPUs not usable' target A": [0.0],
    "gpuscope-overview.json: panel 'Exporters down' target A": [0.0],
    "gpuscope-overview.json: panel 'VRAM used' target A": [1327644672 / 25753026560],
    "gpuscope-overview.json: panel 'Power / cap' target A": [27.0 / 355.0],
    "gpuscope-gpu.json: panel 'Usable' target A": [1.0],
    "gpuscope-gpu.json: panel 'Hottest sensor' target A": [52.0],
    "gpuscope-fleet.json: panel 'Which GPU is usable' target A": [1.0],
    "gpuscope-fleet.json: panel 'GPUs not usable' target A": [0.0],
}


@pytest.mark.parametrize("name", DASHBOARDS)
def test_every_dashboard_query_runs_on_prometheus(stack: Stack, name: str) -> None:
    """Each query, the dashboard's variables set to the replayed machine and its GPU, is
    PromQL that Prometheus accepts; all but those the replay cannot fill return series, and
    the joins answer what the replayed machine is."""
    values = {"instance": stack.target, "gpu": "0"}
    empty: list[str] = []
    answers: dict[str, list[dict[str, Any]]] = {}
    for query in queries_of(name, load_dashboard(name)):
        if query.variable:
            # label_values(selector, label): the selector finds the machine's label value.
            label = query.expr.rsplit(",", 1)[1].strip(" )")
            result = stack.query(substitute(variable_selector(query.expr), values))
            assert values[label] in {item["metric"].get(label) for item in result}, query
            continue
        answers[query.where] = stack.query(substitute(query.expr, values))
        if not answers[query.where]:
            empty.append(query.where)
    expected = sorted(where for where in _EMPTY_ON_THE_REPLAY if where.startswith(name))
    assert sorted(empty) == expected
    for where, wanted in _VALUES_ON_THE_REPLAY.items():
        if where.startswith(name):
            got = [float(item["value"][1]) for item in answers[where]]
            assert got == pytest.approx(wanted), where
    # The findings tables name the GPU a finding is about.
    for where, result in answers.items():
        if "panel 'Findings" in where:
            for item in result:
                if item["metric"].get("gpu") == "0":
                    assert item["metric"]["name"] == GPU_LABELS["name"], where


def test_prometheus_evaluates_the_alert_rules_and_none_fires(stack: Stack) -> None:
    document = read_yaml_subset(RULES_FILE.read_text(encoding="utf-8"))
    wanted = {rule["alert"] for group in document["groups"] for rule in group["rules"]}

    def evaluated() -> list[dict[str, Any]] | None:
        groups = _get_json(f"{stack.prometheus_url}/api/v1/rules")["data"]["groups"]
        rules = [rule for group in groups for rule in group["rules"]]
        done = all(not rule["lastEvaluation"].startswith("0001-") for rule in rules)
        return rules if done and {rule["name"] for rule in rules} == wanted else None

    rules = stack.prometheus.wait_for("an evaluation of every alert rule", evaluated,
                                      SCRAPE_TIMEOUT_S)
    for rule in rules:
        assert rule["type"] == "alerting" and rule["health"] == "ok", rule
        # The replayed GPU is usable, cool, has room and answers; the exporter is up.
        assert rule["state"] == "inactive", rule
