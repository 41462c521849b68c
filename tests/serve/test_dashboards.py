"""The Grafana dashboards and Prometheus alert rules in resources/: they load, import cleanly
(a DS_PROMETHEUS input and variable, instance/gpu variables) and query only metrics that
`gpuscope serve` emits; the rules parse, and fire when they should under `promtool test rules`
(where Prometheus' promtool is installed). The same queries run against a real Prometheus in
test_prometheus.py."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from dashboard_queries import (
    DASHBOARDS,
    EXAMPLE_CONFIG,
    PROMETHEUS_OWN,
    RULES_FILE,
    YamlSubsetError,
    emitted_names,
    load_dashboard,
    metric_names,
    panels_of,
    queries_of,
    read_yaml_subset,
    substitute,
    variable_selector,
)

from gpuscope.serve import families as F

DS_UID = "${DS_PROMETHEUS}"
PROMTOOL = shutil.which("promtool")
needs_promtool = pytest.mark.skipif(
    PROMTOOL is None, reason="promtool (Debian/Ubuntu package 'prometheus') is not installed")


@pytest.fixture(scope="module")
def dashboards() -> dict[str, dict[str, Any]]:
    return {name: load_dashboard(name) for name in DASHBOARDS}


def _datasources(node: Any) -> list[Any]:
    """Every "datasource" value in a JSON tree."""
    found: list[Any] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "datasource":
                found.append(value)
            found.extend(_datasources(value))
    elif isinstance(node, list):
        for item in node:
            found.extend(_datasources(item))
    return found


# ------------------------------------------------------------------ dashboards


@pytest.mark.parametrize("name", DASHBOARDS)
def test_a_dashboard_imports_with_a_prometheus_input(name: str,
                                                     dashboards: dict[str, Any]) -> None:
    board = dashboards[name]
    assert board["schemaVersion"] == 39
    assert board["id"] is None and board["uid"] == name.removesuffix(".json")
    assert board["title"].startswith("gpuscope: ")
    assert board["__inputs"] == [{"name": "DS_PROMETHEUS", "label": "Prometheus",
                                  "description": "The Prometheus that scrapes gpuscope serve",
                                  "type": "datasource", "pluginId": "prometheus",
                                  "pluginName": "Prometheus"}]
    variables = {v["name"]: v for v in board["templating"]["list"]}
    # The input's name as a datasource variable too: a provisioned dashboard (which skips
    # __inputs) resolves ${DS_PROMETHEUS} through it.
    assert variables["DS_PROMETHEUS"]["type"] == "datasource"
    assert variables["DS_PROMETHEUS"]["query"] == "prometheus"
    wanted = ("instance",) if name == "gpuscope-fleet.json" else ("instance", "gpu")
    for variable_name in wanted:
        variable = variables[variable_name]
        assert variable["type"] == "query"
        assert variable["query"]["query"].startswith("label_values(")
        assert variable["query"]["query"].endswith(f", {variable_name})")
    # Every datasource in the dashboard (panels, targets, variables) is the input, but the
    # built-in annotation's.
    sources = _datasources({k: v for k, v in board.items() if k != "annotations"})
    assert sources and all(source == {"type": "prometheus", "uid": DS_UID}
                           for source in sources), sources
    used = {panel["type"] for panel in panels_of(board)} - {"row"}
    required = {item["id"] for item in board["__requires"] if item["type"] == "panel"}
    assert used == required


@pytest.mark.parametrize("name", DASHBOARDS)
def test_panels_have_unique_ids_and_do_not_overlap(name: str,
                                                   dashboards: dict[str, Any]) -> None:
    panels = panels_of(dashboards[name])
    ids = [panel["id"] for panel in panels]
    assert len(ids) == len(set(ids))
    cells: dict[tuple[int, int], str] = {}
    for panel in panels:
        grid = panel["gridPos"]
        assert grid["w"] > 0 and grid["h"] > 0 and grid["x"] + grid["w"] <= 24, panel["title"]
        for x in range(grid["x"], grid["x"] + grid["w"]):
            for y in range(grid["y"], grid["y"] + grid["h"]):
                assert (x, y) not in cells, f"{panel['title']} overlaps {cells[(x, y)]}"
                cells[(x, y)] = panel["title"]
        if panel["type"] != "row":
            assert panel["title"] and panel["description"], panel
            assert panel["targets"], panel["title"]


def test_dashboards_link_to_each_other(dashboards: dict[str, Any]) -> None:
    uids = {board["uid"] for board in dashboards.values()}
    assert len(uids) == len(DASHBOARDS)
    for board in dashboards.values():
        targets = {re.sub(r"^/d/([\w-]+).*$", r"\1", link["url"]) for link in board["links"]}
        assert targets == uids - {board["uid"]}


@pytest.mark.parametrize("name", DASHBOARDS)
def test_every_query_uses_only_metrics_the_exporter_emits(name: str,
                                                          dashboards: dict[str, Any]) -> None:
    emitted = emitted_names() | PROMETHEUS_OWN
    queries = queries_of(name, dashboards[name])
    assert len(queries) >= 10
    for query in queries:
        expr = variable_selector(query.expr) if query.variable else query.expr
        names = metric_names(substitute(expr, {"instance": "host:9840", "gpu": "0"}))
        assert names, f"{query.where}: selects no metric: {query.expr}"
        assert names <= emitted, f"{query.where}: not emitted: {sorted(names - emitted)}"
        if "up" in names:
            assert 'up{job="gpuscope"}' in query.expr, query.where


def test_the_gpu_dashboard_shows_every_gpu_and_host_family(dashboards: dict[str, Any]) -> None:
    """'One GPU: every metric': each family with a gpu label, and the host's."""
    name = "gpuscope-gpu.json"
    used: set[str] = set()
    for query in queries_of(name, dashboards[name]):
        expr = variable_selector(query.expr) if query.variable else query.expr
        used |= metric_names(substitute(expr, {"instance": "host:9840", "gpu": "0"}))
    wanted = {family.name for family in F.ALL_FAMILIES
              if "gpu" in family.labels or family.name.startswith("gpuscope_host_")}
    assert wanted - used == set()


def test_overview_and_fleet_show_findings_and_versions(dashboards: dict[str, Any]) -> None:
    for name in ("gpuscope-overview.json", "gpuscope-fleet.json"):
        used: set[str] = set()
        for query in queries_of(name, dashboards[name]):
            if not query.variable:
                used |= metric_names(substitute(query.expr, {"instance": "h", "gpu": "0"}))
        assert {F.FINDING.name, F.DRIVER_INFO.name, F.ROCM_INFO.name, F.CUDA_INFO.name,
                F.BUILD_INFO.name, F.GPU_INFO.name} <= used, name


@pytest.mark.parametrize(("expr", "names"), [
    ("gpuscope_gpu_power_watts", {"gpuscope_gpu_power_watts"}),
    ('max by (instance, gpu) (gpuscope_finding{id="gpu.usable", gpu=~"0|"})',
     {"gpuscope_finding"}),
    ("sum(rate(gpuscope_sampler_ticks_total[5m] offset 1h)) without (job) > bool 0.5e1",
     {"gpuscope_sampler_ticks_total"}),
    ("(a unless on(instance, gpu) b{x=\"up\"}) and on(instance) c * on(gpu) "
     "group_left(name, pci_bus) d or vector(0)", {"a", "b", "c", "d"}),
    ('label_replace(up{job="gpuscope"}, "machine", "$1", "instance", "(.*):.*") == Inf',
     {"up"}),
    ("count(x) by (le) / ignoring(le) group_right y", {"x", "y"}),
])
def test_metric_names_of_promql(expr: str, names: set[str]) -> None:
    assert metric_names(expr) == names


def test_metric_names_refuses_what_it_cannot_check() -> None:
    with pytest.raises(ValueError, match="__name__"):
        metric_names('{__name__=~"gpuscope_.+"}')
    with pytest.raises(ValueError, match="unbalanced"):
        metric_names("sum(x{a=\"b\"")
    with pytest.raises(ValueError, match="not label_values"):
        variable_selector("label_values(instance)")


# ------------------------------------------------------------------ alert rules


def _rules() -> list[dict[str, Any]]:
    document = read_yaml_subset(RULES_FILE.read_text(encoding="utf-8"))
    assert list(document) == ["groups"]
    rules: list[dict[str, Any]] = []
    for group in document["groups"]:
        assert group["name"] and group["rules"]
        rules.extend(group["rules"])
    return rules


def test_alert_rules_parse_and_use_only_emitted_metrics() -> None:
    emitted = emitted_names() | PROMETHEUS_OWN
    rules = {rule["alert"]: rule for rule in _rules()}
    for name, rule in rules.items():
        assert set(rule) <= {"alert", "expr", "for", "labels", "annotations"}, name
        assert re.fullmatch(r"\d+[smh]", rule["for"]), name
        assert rule["labels"]["severity"] in ("critical", "warning"), name
        assert set(rule["annotations"]) == {"summary", "description"}, name
        names = metric_names(rule["expr"])
        assert names and names <= emitted, f"{name}: not emitted: {sorted(names - emitted)}"
    # The four the issue asks for.
    assert 'gpuscope_finding{id="gpu.usable"}' in rules["GpuscopeGpuNotUsable"]["expr"]
    thermal = rules["GpuscopeGpuThermalThrottling"]
    assert 'reason="thermal"' in thermal["expr"] and thermal["for"] == "5m"
    assert "> 0.95" in rules["GpuscopeGpuVramAlmostFull"]["expr"]
    assert rules["GpuscopeExporterDown"]["expr"].strip() == 'up{job="gpuscope"} == 0'


def test_the_example_config_reads_and_scrapes_job_gpuscope() -> None:
    config = read_yaml_subset(EXAMPLE_CONFIG.read_text(encoding="utf-8"))
    assert config["rule_files"] == [RULES_FILE.name]
    jobs = [job["job_name"] for job in config["scrape_configs"]]
    assert jobs == ["gpuscope"]


@pytest.mark.parametrize(("text", "problem"), [
    ("a: {b: c}\n", "outside the subset"),
    ("a:\n\tb: c\n", "tab"),
    ("a: 1\na: 2\n", "twice"),
    ("a: b # note\n", "outside the subset"),
    ("a: >\n  folded\n", "outside the subset"),
    ("a: 'open\n", "single-quoted"),
    ("a:\n", "no value"),
    ("a: 1\n  b: 2\n", "indentation"),
])
def test_the_yaml_subset_reader_refuses_what_it_does_not_read(text: str, problem: str) -> None:
    with pytest.raises(YamlSubsetError, match=problem):
        read_yaml_subset(text)


def test_the_yaml_subset_reader_reads_blocks_and_lists() -> None:
    text = ("# comment\ntop:\n- name: 'it''s'\n  expr: |\n    a{b=\"c\"}\n\n      > 1\n"
            "  for: 5m\n- plain value\nnext:\n  k: v\n")
    assert read_yaml_subset(text) == {
        "top": [{"name": "it's", "expr": 'a{b="c"}\n\n  > 1\n', "for": "5m"},
                "plain value"],
        "next": {"k": "v"}}


# ------------------------------------------------------------------ promtool


def _promtool(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    assert PROMTOOL is not None
    return subprocess.run([PROMTOOL, *args], capture_output=True, text=True, timeout=60,
                          cwd=cwd, check=False)


@needs_promtool
def test_promtool_accepts_the_rules_and_the_example_config() -> None:
    checked = _promtool("check", "rules", str(RULES_FILE))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert f"SUCCESS: {len(_rules())} rules found" in checked.stdout
    config = _promtool("check", "config", str(EXAMPLE_CONFIG))
    assert config.returncode == 0, config.stdout + config.stderr


@needs_promtool
def test_the_commented_bearer_and_tls_variant_is_a_valid_config(tmp_path: Path) -> None:
    """Uncommented as the example says (its job replacing the plain one), with the files it
    names made here, the variant is a config Prometheus accepts."""
    lines = EXAMPLE_CONFIG.read_text(encoding="utf-8").splitlines()
    start = lines.index("scrape_configs:")
    variant = [line[4:] if line.startswith("  #   ") or line.startswith("  # -") else None
               for line in lines[start + 1:]]
    job = ["  " + line for line in variant if line is not None]
    assert any("credentials_file" in line for line in job)
    assert any("tls_config" in line for line in job)
    text = "\n".join(lines[:start + 1] + job) + "\n"
    for name in ("gpuscope.token", "gpuscope-ca.pem", "prometheus-client.pem",
                 "prometheus-client.key"):
        (tmp_path / name).write_text("placeholder\n", encoding="utf-8")
        text = re.sub(rf"/etc/prometheus/{re.escape(name)}\b", str(tmp_path / name), text)
    shutil.copy(RULES_FILE, tmp_path / RULES_FILE.name)
    (tmp_path / "prometheus.yml").write_text(text, encoding="utf-8")
    parsed = read_yaml_subset(text)
    job_config = parsed["scrape_configs"][0]
    assert job_config["job_name"] == "gpuscope"
    assert job_config["authorization"]["type"] == "Bearer"
    assert job_config["scheme"] == "https"
    checked = _promtool("check", "config", "prometheus.yml", cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr


_TEMPLATE = re.compile(r"\{\{\s*(.*?)\s*\}\}")


def _render(template: str, labels: dict[str, str], value: float) -> str:
    """The annotation templates' only actions: {{ $labels.NAME }} (a label the alert's series
    must carry) and {{ $value | humanizePercentage }} (of a ratio with a whole percentage)."""
    def action(match: re.Match[str]) -> str:
        text = match.group(1)
        if text.startswith("$labels."):
            return labels[text.removeprefix("$labels.")]
        if text == "$value | humanizePercentage":
            assert (value * 100).is_integer()
            return f"{value * 100:g}%"
        raise AssertionError(f"a template action the test does not render: {text}")
    return _TEMPLATE.sub(action, template)


def _series(name: str, labels: dict[str, str], values: str) -> dict[str, str]:
    inside = ",".join(f'{key}="{value}"' for key, value in labels.items())
    return {"series": f"{name}{{{inside}}}", "values": values}


@needs_promtool
def test_the_alerts_fire_when_they_should(tmp_path: Path) -> None:
    rules = {rule["alert"]: rule for rule in _rules()}
    job = {"job": "gpuscope"}
    a, b, c = ({**job, "instance": f"{host}:9840"} for host in ("a", "b", "c"))
    gpu0 = {"gpu": "0", "pci_bus": "0000:03:00.0", "name": "AMD Radeon RX 7900 XTX"}
    gpu1 = {"gpu": "1", "pci_bus": "0000:07:00.0", "name": "AMD Radeon RX 6700 XT"}
    info = {"vendor": "amd", "architecture": "RDNA", "gfx_target": "gfx1100",
            "compute_capability": ""}
    steady = "1x20"
    series = [
        # Machine a: GPU 0 usable, GPU 1 not; its doctor has run.
        _series(F.GPU_INFO.name, {**a, **gpu0, **info}, steady),
        _series(F.GPU_INFO.name, {**a, **gpu1, **info}, steady),
        _series(F.FINDING.name, {**a, "id": "gpu.usable", "severity": "ok", "gpu": "0"},
                steady),
        _series(F.FINDING.name, {**a, "id": "rocm.gfx_unsupported", "severity": "error",
                                 "gpu": "1"}, steady),
        _series(F.DOCTOR_LAST_RUN.name, a, "1800000000x20"),
        # Machine c: the doctor has not run yet: no verdict, no alert.
        _series(F.GPU_INFO.name, {**c, **gpu0, **info}, steady),
        # Thermal throttling: GPU 0 from minute 1 on; GPU 1 on and off.
        _series(F.GPU_THROTTLE_REASON.name, {**a, **gpu0, "reason": "thermal"}, "0 1x19"),
        _series(F.GPU_THROTTLE_REASON.name, {**a, **gpu1, "reason": "thermal"},
                "1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0"),
        _series(F.GPU_THROTTLE_REASON.name, {**a, **gpu1, "reason": "power"}, "1x20"),
        # VRAM: GPU 0 at 97%, GPU 1 at 90%.
        _series(F.GPU_MEMORY_USED.name, {**a, **gpu0}, "97x20"),
        _series(F.GPU_MEMORY_TOTAL.name, {**a, **gpu0}, "100x20"),
        _series(F.GPU_MEMORY_USED.name, {**a, **gpu1}, "90x20"),
        _series(F.GPU_MEMORY_TOTAL.name, {**a, **gpu1}, "100x20"),
        # Exporters: b stops answering at minute 2; another job's target is no concern.
        _series("up", a, steady),
        _series("up", b, "1 1 0x18"),
        _series("up", {"job": "node", "instance": "a:9100"}, "0x20"),
        # GPU 1 of machine a stops answering the sampler.
        _series(F.GPU_UP.name, {**a, **gpu0}, steady),
        _series(F.GPU_UP.name, {**a, **gpu1}, "1 1 0x18"),
    ]

    def expect(alert: str, labels: dict[str, str], value: float = 0.0) -> dict[str, Any]:
        rule = rules[alert]
        # A label with an empty value is no label in Prometheus (compute_capability="").
        full = {key: value for key, value in {**labels, **rule["labels"]}.items() if value}
        return {"exp_labels": full,
                "exp_annotations": {key: _render(text, full, value)
                                    for key, text in rule["annotations"].items()}}

    tests = [
        ("15m", "GpuscopeGpuNotUsable", [expect("GpuscopeGpuNotUsable",
                                                {**a, **gpu1, **info})]),
        ("4m", "GpuscopeGpuThermalThrottling", []),  # pending: not yet 5 minutes
        ("15m", "GpuscopeGpuThermalThrottling", [expect(
            "GpuscopeGpuThermalThrottling", {**a, **gpu0, "reason": "thermal"})]),
        ("15m", "GpuscopeGpuVramAlmostFull", [expect("GpuscopeGpuVramAlmostFull",
                                                     {**a, **gpu0}, 0.97)]),
        ("15m", "GpuscopeExporterDown", [expect("GpuscopeExporterDown", b)]),
        ("15m", "GpuscopeGpuNotAnswering", [expect("GpuscopeGpuNotAnswering",
                                                   {**a, **gpu1})]),
    ]
    unit_test = {
        "rule_files": [str(RULES_FILE)],
        "evaluation_interval": "1m",
        "tests": [{"interval": "1m", "input_series": series,
                   "alert_rule_test": [{"eval_time": at, "alertname": alert,
                                        "exp_alerts": expected}
                                       for at, alert, expected in tests]}],
    }
    assert {alert for _, alert, _ in tests} == set(rules)
    # JSON is YAML: promtool reads the test file as is.
    path = tmp_path / "gpuscope-alerts-test.yml"
    path.write_text(json.dumps(unit_test, indent=1), encoding="utf-8")
    result = _promtool("test", "rules", str(path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS" in result.stdout
