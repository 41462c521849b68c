"""Writes resources/grafana/*.json, the Grafana dashboards over `gpuscope serve`'s metrics
(tests/serve/test_dashboards.py checks every query against the families the exporter emits).

    python3 tools/make_grafana_dashboards.py
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parents[1] / "resources" / "grafana"
DS = {"type": "prometheus", "uid": "${DS_PROMETHEUS}"}
GRAFANA_MIN = "10.4.0"
WIDTH = 24

Json = dict[str, Any]


class Layout:
    """Places panels left to right in rows of 24 columns; a row panel starts a new line."""

    def __init__(self) -> None:
        self.x = 0
        self.y = 0
        self.line_h = 0
        self.next_id = 1
        self.panels: list[Json] = []

    def add(self, panel: Json, w: int, h: int) -> None:
        if self.x + w > WIDTH:
            self.newline()
        panel["gridPos"] = {"h": h, "w": w, "x": self.x, "y": self.y}
        panel["id"] = self.next_id
        self.next_id += 1
        self.panels.append(panel)
        self.x += w
        self.line_h = max(self.line_h, h)

    def newline(self) -> None:
        if self.x:
            self.y += self.line_h
        self.x = 0
        self.line_h = 0

    def row(self, title: str) -> None:
        self.newline()
        self.add({"type": "row", "title": title, "collapsed": False, "panels": []}, WIDTH, 1)
        self.newline()


def target(expr: str, legend: str = "", ref: str = "A", *, instant: bool = False,
           table: bool = False) -> Json:
    t: Json = {"datasource": DS, "editorMode": "code", "expr": expr, "refId": ref,
               "legendFormat": legend or "__auto", "range": not instant, "instant": instant}
    if table:
        t["format"] = "table"
    return t


def _refs(targets: list[Json]) -> list[Json]:
    for i, t in enumerate(targets):
        t["refId"] = chr(ord("A") + i)
    return targets


def thresholds(*steps: tuple[str, float | None]) -> Json:
    return {"mode": "absolute",
            "steps": [{"color": color, "value": value} for color, value in steps]}


GREEN = (("green", None),)


def timeseries(title: str, targets: list[Json], unit: str, description: str, *,
               minimum: float | None = 0, maximum: float | None = None,
               overrides: list[Json] | None = None, step: bool = False) -> Json:
    defaults: Json = {
        "color": {"mode": "palette-classic"},
        "custom": {"drawStyle": "line", "lineWidth": 1, "fillOpacity": 10,
                   "lineInterpolation": "stepAfter" if step else "linear",
                   "showPoints": "never", "spanNulls": False,
                   "axisPlacement": "auto", "axisLabel": "",
                   "stacking": {"group": "A", "mode": "none"},
                   "thresholdsStyle": {"mode": "off"}},
        "unit": unit, "thresholds": thresholds(*GREEN)}
    if minimum is not None:
        defaults["min"] = minimum
    if maximum is not None:
        defaults["max"] = maximum
    return {"type": "timeseries", "title": title, "description": description,
            "datasource": DS, "targets": _refs(targets),
            "fieldConfig": {"defaults": defaults, "overrides": overrides or []},
            "options": {"legend": {"displayMode": "table", "placement": "bottom",
                                   "showLegend": True, "calcs": ["lastNotNull", "max"]},
                        "tooltip": {"mode": "multi", "sort": "desc"}}}


def stat(title: str, targets: list[Json], unit: str, description: str, *,
         steps: tuple[tuple[str, float | None], ...] = GREEN,
         mappings: list[Json] | None = None, color_mode: str = "value",
         text_mode: str = "auto") -> Json:
    return {"type": "stat", "title": title, "description": description, "datasource": DS,
            "targets": _refs(targets),
            "fieldConfig": {"defaults": {"unit": unit, "thresholds": thresholds(*steps),
                                         "color": {"mode": "thresholds"},
                                         "mappings": mappings or []},
                            "overrides": []},
            "options": {"reduceOptions": {"calcs": ["lastNotNull"], "fields": "",
                                          "values": False},
                        "colorMode": color_mode, "graphMode": "none", "justifyMode": "auto",
                        "orientation": "auto", "textMode": text_mode,
                        "wideLayout": True, "showPercentChange": False}}


def bargauge(title: str, targets: list[Json], unit: str, description: str, *,
             minimum: float = 0, maximum: float | None = None,
             steps: tuple[tuple[str, float | None], ...] = GREEN) -> Json:
    defaults: Json = {"unit": unit, "min": minimum, "thresholds": thresholds(*steps),
                      "color": {"mode": "thresholds"}}
    if maximum is not None:
        defaults["max"] = maximum
    return {"type": "bargauge", "title": title, "description": description, "datasource": DS,
            "targets": _refs(targets),
            "fieldConfig": {"defaults": defaults, "overrides": []},
            "options": {"reduceOptions": {"calcs": ["lastNotNull"], "fields": "",
                                          "values": False},
                        "orientation": "horizontal", "displayMode": "gradient",
                        "valueMode": "color", "showUnfilled": True, "namePlacement": "auto",
                        "sizing": "auto", "minVizHeight": 16, "minVizWidth": 8,
                        "maxVizHeight": 300}}


def table(title: str, targets: list[Json], description: str, *, hide: tuple[str, ...] = (),
          rename: dict[str, str] | None = None, order: tuple[str, ...] = (),
          mappings: list[Json] | None = None, value_name: str | None = None,
          value_unit: str | None = None, no_value: str = "") -> Json:
    """An instant table of series labels; `hide` drops columns; Time, __name__ and job always
    go. With one query the value column is 'Value' (renamed to `value_name`, or hidden)."""
    excluded = {"Time": True, "__name__": True, "job": True}
    excluded.update({name: True for name in hide})
    names = dict(rename or {})
    if value_name is None:
        excluded["Value"] = True
    else:
        names["Value"] = value_name
    defaults: Json = {"custom": {"align": "auto", "cellOptions": {"type": "auto"},
                                 "filterable": True, "inspect": False},
                      "mappings": [], "thresholds": thresholds(*GREEN),
                      "color": {"mode": "thresholds"}}
    overrides: list[Json] = []
    # Mappings and units on the value column only: a GPU index "0" is not "not usable".
    if value_name is not None and (mappings or value_unit):
        properties: list[Json] = []
        if mappings:
            properties += [{"id": "mappings", "value": mappings},
                           {"id": "custom.cellOptions",
                            "value": {"type": "color-background", "mode": "basic"}}]
        if value_unit:
            properties.append({"id": "unit", "value": value_unit})
        overrides.append({"matcher": {"id": "byName", "options": value_name},
                          "properties": properties})
    if no_value:
        defaults["noValue"] = no_value
    return {"type": "table", "title": title, "description": description, "datasource": DS,
            "targets": _refs(targets),
            "fieldConfig": {"defaults": defaults, "overrides": overrides},
            "options": {"showHeader": True, "cellHeight": "sm",
                        "footer": {"show": False, "reducer": ["sum"], "countRows": False,
                                   "fields": ""}},
            "transformations": [{"id": "organize", "options": {
                "excludeByName": excluded, "renameByName": names,
                "indexByName": {name: i for i, name in enumerate(order)},
                "includeByName": {}}}]}


def state_timeline(title: str, targets: list[Json], description: str,
                   mappings: list[Json]) -> Json:
    return {"type": "state-timeline", "title": title, "description": description,
            "datasource": DS, "targets": _refs(targets),
            "fieldConfig": {"defaults": {"color": {"mode": "thresholds"},
                                         "custom": {"fillOpacity": 80, "lineWidth": 0},
                                         "mappings": mappings,
                                         "thresholds": thresholds(*GREEN)},
                            "overrides": []},
            "options": {"showValue": "never", "mergeValues": True, "alignValue": "left",
                        "rowHeight": 0.9,
                        "legend": {"displayMode": "list", "placement": "bottom",
                                   "showLegend": True},
                        "tooltip": {"mode": "single", "sort": "none"}}}


def value_map(*entries: tuple[str, str, str]) -> list[Json]:
    """Value mappings: (value, text, color)."""
    return [{"type": "value", "options": {value: {"text": text, "color": color, "index": i}}}
            for i, (value, text, color) in enumerate(entries)]


USABLE_MAP = value_map(("1", "usable", "green"), ("0", "not usable", "red"))
AVAILABLE_MAP = value_map(("1", "available", "green"), ("0", "not available", "orange"))
UP_MAP = value_map(("1", "up", "green"), ("0", "down", "red"))
THROTTLE_MAP = value_map(("1", "holding clocks back", "orange"), ("0", "no", "transparent"))


def templating_ds() -> Json:
    # A datasource variable of the same name as the __inputs entry: an import through the UI
    # fills ${DS_PROMETHEUS} in; a provisioned file (which skips __inputs) resolves it through
    # this variable (https://github.com/grafana/grafana/issues/10786).
    return {"name": "DS_PROMETHEUS", "label": "Data source", "type": "datasource",
            "query": "prometheus", "current": {}, "hide": 0, "includeAll": False,
            "multi": False, "options": [], "refresh": 1, "regex": "", "skipUrlSync": False}


def query_var(name: str, label: str, query: str, *, multi: bool, description: str) -> Json:
    return {"name": name, "label": label, "type": "query", "datasource": DS,
            "definition": query,
            "query": {"qryType": 1, "query": query,
                      "refId": "PrometheusVariableQueryEditor-VariableQuery"},
            "current": {}, "hide": 0, "includeAll": multi, "multi": multi,
            "options": [], "refresh": 2, "regex": "",
            "sort": 3 if name == "gpu" else 1, "skipUrlSync": False,
            "description": description, **({"allValue": ".*"} if multi else {})}


def dashboard(uid: str, title: str, description: str, layout: Layout, variables: list[Json],
              panel_types: set[str], links: list[Json]) -> Json:
    plugin_names = {"timeseries": "Time series", "stat": "Stat", "table": "Table",
                    "bargauge": "Bar gauge", "state-timeline": "State timeline"}
    requires = [{"type": "grafana", "id": "grafana", "name": "Grafana",
                 "version": GRAFANA_MIN},
                {"type": "datasource", "id": "prometheus", "name": "Prometheus",
                 "version": "1.0.0"}]
    requires += [{"type": "panel", "id": kind, "name": plugin_names[kind], "version": ""}
                 for kind in sorted(panel_types)]
    return {
        "__inputs": [{"name": "DS_PROMETHEUS", "label": "Prometheus",
                      "description": "The Prometheus that scrapes gpuscope serve",
                      "type": "datasource", "pluginId": "prometheus",
                      "pluginName": "Prometheus"}],
        "__elements": {},
        "__requires": requires,
        "annotations": {"list": [{"builtIn": 1,
                                  "datasource": {"type": "grafana", "uid": "-- Grafana --"},
                                  "enable": True, "hide": True,
                                  "iconColor": "rgba(0, 211, 255, 1)",
                                  "name": "Annotations & Alerts", "type": "dashboard"}]},
        "description": description,
        "editable": True,
        "fiscalYearStartMonth": 0,
        "graphTooltip": 1,
        "id": None,
        "links": links,
        "liveNow": False,
        "panels": layout.panels,
        "refresh": "30s",
        "schemaVersion": 39,
        "tags": ["gpuscope", "gpu"],
        "templating": {"list": [templating_ds(), *variables]},
        "time": {"from": "now-6h", "to": "now"},
        "timepicker": {},
        "timezone": "browser",
        "title": title,
        "uid": uid,
        "version": 1,
        "weekStart": "",
    }


def links_to(*uids_titles: tuple[str, str]) -> list[Json]:
    return [{"title": title, "type": "link", "url": f"/d/{uid}",
             "asDropdown": False, "icon": "dashboard", "includeVars": True,
             "keepTime": True, "targetBlank": False, "tags": [], "tooltip": ""}
            for uid, title in uids_titles]


# ------------------------------------------------------------------ shared PromQL

MULTI = 'instance=~"$instance", gpu=~"$gpu"'
ONE = 'instance="$instance", gpu="$gpu"'
GPU_LEGEND = "{{instance}} GPU {{gpu}} {{name}}"


def not_usable(selector: str) -> str:
    # A GPU the doctor judged (it has run on that machine) without a gpu.usable finding.
    return (f"(gpuscope_gpu_info{{{selector}}} unless on(instance, gpu) "
            f"gpuscope_finding{{id=\"gpu.usable\"}}) "
            f"and on(instance) gpuscope_doctor_last_run_timestamp_seconds")


def usable_value(selector: str) -> str:
    # 1 per usable GPU, 0 per GPU the doctor judged not usable (the labels of gpuscope_gpu_info).
    return (f"(gpuscope_gpu_info{{{selector}}} * on(instance, gpu) group_left() "
            f"max by (instance, gpu) (gpuscope_finding{{id=\"gpu.usable\"}})) "
            f"or ({not_usable(selector)}) * 0")


def findings_with_names(selector: str) -> str:
    # Findings about one GPU get its name and PCI address; whole-system ones (gpu="") stay.
    return (f"(gpuscope_finding{{{selector}}} * on(instance, gpu) group_left(name, pci_bus) "
            f"gpuscope_gpu_info) or on(instance, id, severity, gpu) "
            f"gpuscope_finding{{{selector}}}")


FINDING_COLUMNS = ("instance", "severity", "id", "gpu", "name", "pci_bus")
FINDING_RENAME = {"instance": "Machine", "severity": "Severity", "id": "Finding",
                  "gpu": "GPU", "name": "Name", "pci_bus": "PCI bus"}
SEVERITY_OVERRIDE = {"matcher": {"id": "byName", "options": "Severity"},
                     "properties": [
                         {"id": "mappings", "value": [{"type": "value", "options": {
                             "error": {"color": "red", "index": 0},
                             "warning": {"color": "orange", "index": 1},
                             "info": {"color": "blue", "index": 2},
                             "ok": {"color": "green", "index": 3}}}]},
                         {"id": "custom.cellOptions", "value": {"type": "color-text"}}]}
DOCTOR_HELP = ("Finding ids are those of `gpuscope doctor --json`; run `gpuscope doctor` on "
               "the machine for the details and the fix.")


def findings_table(title: str, selector: str, description: str) -> Json:
    panel = table(title, [target(findings_with_names(selector), instant=True, table=True)],
                  description, rename=FINDING_RENAME, order=FINDING_COLUMNS,
                  no_value="No findings")
    panel["fieldConfig"]["overrides"].append(SEVERITY_OVERRIDE)
    return panel


def version_tables(lay: Layout, selector: str, w: int, h: int) -> None:
    lay.add(table("gpuscope", [target(f"gpuscope_build_info{{{selector}}}", instant=True,
                                      table=True)],
                  "The gpuscope version each machine's exporter runs.",
                  rename={"instance": "Machine", "version": "gpuscope"},
                  order=("instance", "version")), w, h)
    lay.add(table("Kernel drivers", [target(f"gpuscope_driver_info{{{selector}}}",
                                            instant=True, table=True)],
                  "The GPU kernel drivers in use (amdgpu, nvidia) and their versions; an "
                  "empty amdgpu version is the driver built into the kernel.",
                  rename={"instance": "Machine", "driver": "Driver", "version": "Version",
                          "kernel": "Kernel"},
                  order=("instance", "driver", "version", "kernel")), w, h)
    lay.add(table("ROCm", [target(f"gpuscope_rocm_info{{{selector}}}", instant=True,
                                  table=True)],
                  "The ROCm installation each machine has (none listed: no ROCm found).",
                  rename={"instance": "Machine", "version": "ROCm", "hip_version": "HIP"},
                  order=("instance", "version", "hip_version"),
                  no_value="No ROCm found"), w, h)
    lay.add(table("CUDA", [target(f"gpuscope_cuda_info{{{selector}}}", instant=True,
                                  table=True)],
                  "The CUDA version each NVIDIA driver supports and the CUDA toolkit found.",
                  rename={"instance": "Machine", "driver_cuda_version": "Driver supports CUDA",
                          "toolkit_version": "CUDA toolkit"},
                  order=("instance", "driver_cuda_version", "toolkit_version"),
                  no_value="No CUDA found"), w, h)


# ------------------------------------------------------------------ overview

def overview() -> Json:
    lay = Layout()
    lay.row("At a glance")
    sel = 'instance=~"$instance"'
    lay.add(stat("Machines", [target(f"count(gpuscope_build_info{{{sel}}})", instant=True)],
                 "none", "Machines whose gpuscope serve Prometheus scrapes."), 4, 4)
    lay.add(stat("GPUs", [target(f"count(gpuscope_gpu_info{{{MULTI}}})", instant=True)],
                 "none", "GPUs gpuscope found on those machines."), 4, 4)
    lay.add(stat("GPUs not usable",
                 [target(f"count({not_usable(MULTI)}) or vector(0)", instant=True)],
                 "none", "GPUs the doctor found something blocking (no gpu.usable finding).",
                 steps=(("green", None), ("red", 1))), 4, 4)
    lay.add(stat("Errors found",
                 [target(f'count(gpuscope_finding{{{sel}, severity="error"}}) or vector(0)',
                         instant=True)],
                 "none", "The doctor's findings of severity error, all machines.",
                 steps=(("green", None), ("red", 1))), 4, 4)
    lay.add(stat("Warnings found",
                 [target(f'count(gpuscope_finding{{{sel}, severity="warning"}}) or vector(0)',
                         instant=True)],
                 "none", "The doctor's findings of severity warning, all machines.",
                 steps=(("green", None), ("orange", 1))), 4, 4)
    lay.add(stat("Exporters down",
                 [target('count(up{job="gpuscope"} == 0) or vector(0)', instant=True)],
                 "none", 'Targets of the scrape job "gpuscope" that did not answer the last '
                 "scrape.", steps=(("green", None), ("red", 1))), 4, 4)
    lay.add(bargauge("Utilization", [target(f"gpuscope_gpu_utilization_ratio{{{MULTI}}}",
                                            GPU_LEGEND, instant=True)],
                     "percentunit", "How busy each GPU is now (0 to 100%).", maximum=1,
                     steps=(("green", None), ("yellow", 0.7), ("red", 0.9))), 6, 8)
    lay.add(bargauge("VRAM used", [target(
        f"gpuscope_gpu_memory_used_bytes{{{MULTI}}} / gpuscope_gpu_memory_total_bytes",
        GPU_LEGEND, instant=True)],
        "percentunit", "VRAM in use as a share of each GPU's VRAM.", maximum=1,
        steps=(("green", None), ("yellow", 0.8), ("red", 0.95))), 6, 8)
    lay.add(bargauge("Hottest sensor", [target(
        f"max by (instance, gpu, name) (gpuscope_gpu_temperature_celsius{{{MULTI}}})",
        GPU_LEGEND, instant=True)],
        "celsius", "The hottest of each GPU's temperature sensors (edge, junction/hotspot, "
        "memory).", maximum=110, steps=(("green", None), ("yellow", 80), ("red", 95))), 6, 8)
    lay.add(bargauge("Power / cap", [target(
        f"gpuscope_gpu_power_watts{{{MULTI}}} / gpuscope_gpu_power_cap_watts",
        GPU_LEGEND, instant=True)],
        "percentunit", "Each GPU's power draw as a share of its power cap.", maximum=1,
        steps=(("green", None), ("yellow", 0.9), ("red", 1))), 6, 8)

    lay.row("Telemetry")
    lay.add(timeseries("GPU utilization", [target(
        f"gpuscope_gpu_utilization_ratio{{{MULTI}}}", GPU_LEGEND)],
        "percentunit", "How busy each GPU is.", maximum=1), 12, 9)
    lay.add(timeseries("VRAM used and total", [
        target(f"gpuscope_gpu_memory_used_bytes{{{MULTI}}}", f"{GPU_LEGEND} used"),
        target(f"gpuscope_gpu_memory_total_bytes{{{MULTI}}}", f"{GPU_LEGEND} total")],
        "bytes", "VRAM in use and each GPU's VRAM size (dashed).",
        overrides=[{"matcher": {"id": "byRegexp", "options": ".* total$"},
                    "properties": [{"id": "custom.lineStyle",
                                    "value": {"fill": "dash", "dash": [10, 10]}},
                                   {"id": "custom.fillOpacity", "value": 0}]}]), 12, 9)
    lay.add(timeseries("Temperature", [target(
        f"gpuscope_gpu_temperature_celsius{{{MULTI}}}", f"{GPU_LEGEND} {{{{sensor}}}}")],
        "celsius", "Every temperature sensor of each GPU: edge, junction (AMD) or hotspot "
        "(NVIDIA), memory."), 12, 9)
    lay.add(timeseries("Power", [
        target(f"gpuscope_gpu_power_watts{{{MULTI}}}", GPU_LEGEND),
        target(f"gpuscope_gpu_power_cap_watts{{{MULTI}}}", f"{GPU_LEGEND} cap")],
        "watt", "Each GPU's power draw and its power cap (dashed).",
        overrides=[{"matcher": {"id": "byRegexp", "options": ".* cap$"},
                    "properties": [{"id": "custom.lineStyle",
                                    "value": {"fill": "dash", "dash": [10, 10]}},
                                   {"id": "custom.fillOpacity", "value": 0}]}]), 12, 9)

    lay.row("Findings and versions")
    lay.add(findings_table("Findings (not ok)", f'{sel}, severity!="ok"',
                           f"What the doctor found on each machine, ok findings left out. "
                           f"{DOCTOR_HELP}"), 24, 8)
    version_tables(lay, sel, 6, 6)
    return dashboard("gpuscope-overview", "gpuscope: GPUs at a glance",
                     "Every GPU of every machine running gpuscope serve: utilization, VRAM, "
                     "temperature, power, the doctor's findings and the stack's versions.",
                     lay, [query_var("instance", "Machine",
                                     "label_values(gpuscope_build_info, instance)", multi=True,
                                     description="Machines running gpuscope serve"),
                           query_var("gpu", "GPU",
                                     'label_values(gpuscope_gpu_info{instance=~"$instance"}, '
                                     "gpu)", multi=True,
                                     description="GPU index on its machine")],
                     {"stat", "bargauge", "timeseries", "table"},
                     links_to(("gpuscope-gpu", "One GPU"), ("gpuscope-fleet",
                                                            "Findings and versions")))


# ------------------------------------------------------------------ one GPU

def one_gpu() -> Json:
    lay = Layout()
    lay.row("This GPU")
    lay.add(table("GPU", [target(f"gpuscope_gpu_info{{{ONE}}}", instant=True, table=True)],
                  "What gpuscope knows of this GPU.", hide=("instance", "gpu"),
                  rename={"name": "Name", "pci_bus": "PCI bus", "vendor": "Vendor",
                          "architecture": "Architecture", "gfx_target": "gfx target",
                          "compute_capability": "Compute capability"},
                  order=("name", "vendor", "architecture", "gfx_target",
                         "compute_capability", "pci_bus")), 24, 4)
    lay.add(stat("Usable", [target(usable_value(ONE), instant=True)], "none",
                 "The doctor's verdict: usable when nothing blocks this GPU (finding "
                 "gpu.usable); the findings below say why not.",
                 steps=(("red", None), ("green", 1)), mappings=USABLE_MAP,
                 color_mode="background"), 4, 4)
    lay.add(stat("Answering", [target(f"gpuscope_gpu_up{{{ONE}}}", instant=True)], "none",
                 "Whether the GPU answered the sampler's last tick.",
                 steps=(("red", None), ("green", 1)), mappings=UP_MAP,
                 color_mode="background"), 4, 4)
    lay.add(stat("Utilization", [target(f"gpuscope_gpu_utilization_ratio{{{ONE}}}",
                                        instant=True)], "percentunit", "How busy it is now.",
                 steps=(("green", None), ("yellow", 0.7), ("red", 0.9))), 4, 4)
    lay.add(stat("VRAM used", [target(
        f"gpuscope_gpu_memory_used_bytes{{{ONE}}} / gpuscope_gpu_memory_total_bytes",
        instant=True)], "percentunit", "VRAM in use as a share of its VRAM.",
        steps=(("green", None), ("yellow", 0.8), ("red", 0.95))), 4, 4)
    lay.add(stat("Hottest sensor", [target(
        f"max(gpuscope_gpu_temperature_celsius{{{ONE}}})", instant=True)], "celsius",
        "The hottest of its temperature sensors.",
        steps=(("green", None), ("yellow", 80), ("red", 95))), 4, 4)
    lay.add(stat("Power", [target(f"gpuscope_gpu_power_watts{{{ONE}}}", instant=True)],
                 "watt", "Its power draw now."), 4, 4)

    lay.row("Telemetry")
    legend_one = "{{name}}"
    dashed = [{"matcher": {"id": "byRegexp", "options": "^(total|cap)$"},
               "properties": [{"id": "custom.lineStyle",
                               "value": {"fill": "dash", "dash": [10, 10]}},
                              {"id": "custom.fillOpacity", "value": 0}]}]
    lay.add(timeseries("Utilization", [target(f"gpuscope_gpu_utilization_ratio{{{ONE}}}",
                                              legend_one)],
                       "percentunit", "How busy the GPU is.", maximum=1), 12, 8)
    lay.add(timeseries("Memory", [
        target(f"gpuscope_gpu_memory_used_bytes{{{ONE}}}", "VRAM used"),
        target(f"gpuscope_gpu_memory_total_bytes{{{ONE}}}", "total"),
        target(f"gpuscope_gpu_gtt_used_bytes{{{ONE}}}", "GTT used (system memory)")],
        "bytes", "VRAM in use, VRAM size (dashed) and, on AMD, GTT: system memory the GPU "
        "has mapped.", overrides=dashed), 12, 8)
    lay.add(timeseries("Temperature", [target(f"gpuscope_gpu_temperature_celsius{{{ONE}}}",
                                              "{{sensor}}")],
                       "celsius", "Each sensor: edge, junction (AMD) or hotspot (NVIDIA), "
                       "memory."), 12, 8)
    lay.add(timeseries("Power", [
        target(f"gpuscope_gpu_power_watts{{{ONE}}}", "power"),
        target(f"gpuscope_gpu_power_cap_watts{{{ONE}}}", "cap")],
        "watt", "Power draw and the power cap (dashed).", overrides=dashed), 12, 8)
    lay.add(timeseries("Clocks", [target(f"gpuscope_gpu_clock_hertz{{{ONE}}}", "{{clock}}")],
                       "hertz", "Graphics and memory clocks."), 12, 8)
    lay.add(timeseries("Fan", [
        target(f"gpuscope_gpu_fan_speed_rpm{{{ONE}}}", "RPM"),
        target(f"gpuscope_gpu_fan_speed_ratio{{{ONE}}}", "share of maximum")],
        "rotrpm", "Fan speed in RPM and as a share of its maximum (right axis).",
        overrides=[{"matcher": {"id": "byName", "options": "share of maximum"},
                    "properties": [{"id": "unit", "value": "percentunit"},
                                   {"id": "max", "value": 1},
                                   {"id": "custom.axisPlacement", "value": "right"}]}]),
            12, 8)
    lay.add(timeseries("PCIe traffic", [
        target(f"gpuscope_gpu_pcie_throughput_bytes_per_second{{{ONE}}}", "{{direction}}"),
        target(f"gpuscope_gpu_pcie_bandwidth_bytes_per_second{{{ONE}}}",
               "both directions")],
        "Bps", "PCIe traffic by direction (NVIDIA, sysfs) or both together (amdsmi)."), 12, 8)
    lay.add(timeseries("PCIe link", [
        target(f"gpuscope_gpu_pcie_link_generation{{{ONE}}}", "generation"),
        target(f"gpuscope_gpu_pcie_link_width_lanes{{{ONE}}}", "lanes")],
        "none", "The current PCIe link: generation and width. Many GPUs drop both while "
        "idle.", step=True), 12, 8)
    lay.add(state_timeline("Throttle reasons", [target(
        f"gpuscope_gpu_throttle_reason{{{ONE}}}", "{{reason}}")],
        "Why the clocks are held back, per reason (power cap, thermal, current limit, "
        "hardware slowdown, clock setting, idle, other).", THROTTLE_MAP), 24, 8)

    lay.row("Availability and findings")
    lay.add(table("Metric availability", [target(
        f"gpuscope_metric_available{{{ONE}}}", instant=True, table=True)],
        "Each metric of this GPU: available, or not with the reason.",
        hide=("instance", "gpu"), rename={"metric": "Metric", "reason": "Why not"},
        order=("metric", "Value", "reason"), mappings=AVAILABLE_MAP,
        value_name="Available"), 12, 12)
    lay.add(findings_table("Findings", 'instance="$instance", gpu=~"$gpu|"',
                           f"The doctor's findings for this GPU and for the whole machine. "
                           f"{DOCTOR_HELP}"), 12, 12)

    lay.row("Host and exporter")
    host = 'instance="$instance"'
    lay.add(timeseries("Host CPU", [
        target(f"gpuscope_host_cpu_utilization_ratio{{{host}}}", "all cores"),
        target(f"gpuscope_host_cpu_core_utilization_ratio{{{host}}}", "core {{core}}")],
        "percentunit", "The machine's CPU load, all cores and each core.", maximum=1), 8, 8)
    lay.add(timeseries("Host memory", [
        target(f"gpuscope_host_memory_used_bytes{{{host}}}", "RAM used"),
        target(f"gpuscope_host_swap_used_bytes{{{host}}}", "swap used")],
        "bytes", "The machine's RAM and swap in use."), 8, 8)
    lay.add(timeseries("Sampler", [
        target(f"gpuscope_sampler_tick_duration_seconds{{{host}}}", "tick duration"),
        target(f"rate(gpuscope_sampler_ticks_total{{{host}}}[$__rate_interval])",
               "ticks per second")],
        "s", "How long the exporter's telemetry tick takes, and how often it ticks "
        "(right axis).",
        overrides=[{"matcher": {"id": "byName", "options": "ticks per second"},
                    "properties": [{"id": "unit", "value": "none"},
                                   {"id": "custom.axisPlacement", "value": "right"}]}]),
            8, 8)
    lay.add(table("Host metric availability", [target(
        f'gpuscope_metric_available{{{host}, gpu="host"}}', instant=True, table=True)],
        "Each host metric: available, or not with the reason.",
        hide=("instance", "gpu"), rename={"metric": "Metric", "reason": "Why not"},
        order=("metric", "Value", "reason"), mappings=AVAILABLE_MAP,
        value_name="Available"), 12, 6)
    lay.add(stat("Doctor last ran", [target(
        f"gpuscope_doctor_last_run_timestamp_seconds{{{host}}} * 1000", instant=True)],
        "dateTimeFromNow", "When the exporter's doctor last finished (it runs at start and "
        "every few minutes)."), 12, 6)
    return dashboard("gpuscope-gpu", "gpuscope: one GPU",
                     "One GPU of one machine running gpuscope serve: every metric, its "
                     "throttle reasons, which metrics are available (and why not), and the "
                     "doctor's findings.",
                     lay, [query_var("instance", "Machine",
                                     "label_values(gpuscope_build_info, instance)",
                                     multi=False,
                                     description="Machine running gpuscope serve"),
                           query_var("gpu", "GPU",
                                     'label_values(gpuscope_gpu_info{instance="$instance"}, '
                                     "gpu)", multi=False,
                                     description="GPU index on that machine")],
                     {"stat", "timeseries", "table", "state-timeline"},
                     links_to(("gpuscope-overview", "GPUs at a glance"),
                              ("gpuscope-fleet", "Findings and versions")))


# ------------------------------------------------------------------ fleet

def fleet() -> Json:
    lay = Layout()
    sel = 'instance=~"$instance"'
    lay.row("Machines")
    lay.add(table("Exporters", [target('up{job="gpuscope"}', instant=True, table=True)],
                  'Each target of the scrape job "gpuscope": up, or down when the last '
                  "scrape failed.", rename={"instance": "Machine"},
                  order=("instance", "Value"), mappings=UP_MAP, value_name="Exporter"),
            8, 8)
    lay.add(table("Doctor last ran", [target(
        f"gpuscope_doctor_last_run_timestamp_seconds{{{sel}}} * 1000", instant=True,
        table=True)], "When each machine's doctor last finished.",
        rename={"instance": "Machine"}, order=("instance", "Value"),
        value_name="Doctor last ran", value_unit="dateTimeFromNow"), 8, 8)
    lay.add(stat("GPUs not usable", [
        target(f"count({not_usable(sel)}) or vector(0)", instant=True)], "none",
        "GPUs the doctor found something blocking.", steps=(("green", None), ("red", 1)),
        color_mode="background"), 8, 8)

    lay.row("GPUs")
    lay.add(table("Which GPU is usable", [target(usable_value(sel), instant=True,
                                                 table=True)],
                  "Every GPU of every machine, with the doctor's verdict: usable (finding "
                  "gpu.usable) or not usable (the findings below say why).",
                  rename={"instance": "Machine", "gpu": "GPU", "name": "Name",
                          "pci_bus": "PCI bus", "vendor": "Vendor",
                          "architecture": "Architecture", "gfx_target": "gfx target",
                          "compute_capability": "Compute capability"},
                  order=("instance", "gpu", "name", "Value", "vendor", "architecture",
                         "gfx_target", "compute_capability", "pci_bus"),
                  mappings=USABLE_MAP, value_name="Verdict"), 24, 8)
    lay.add(findings_table("Findings", sel,
                           f"Every finding of every machine's doctor. {DOCTOR_HELP}"), 24, 10)

    lay.row("Versions")
    version_tables(lay, sel, 12, 6)
    return dashboard("gpuscope-fleet", "gpuscope: findings and versions",
                     "Across machines running gpuscope serve: which GPU is not usable and "
                     "why, and the driver, ROCm and CUDA versions of each machine.",
                     lay, [query_var("instance", "Machine",
                                     "label_values(gpuscope_build_info, instance)", multi=True,
                                     description="Machines running gpuscope serve")],
                     {"stat", "table"},
                     links_to(("gpuscope-overview", "GPUs at a glance"),
                              ("gpuscope-gpu", "One GPU")))


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, build in (("gpuscope-overview", overview), ("gpuscope-gpu", one_gpu),
                        ("gpuscope-fleet", fleet)):
        text = json.dumps(build(), indent=2, ensure_ascii=False) + "\n"
        (OUT / f"{name}.json").write_text(text, encoding="utf-8")
        print(name, len(text))


if __name__ == "__main__":
    main()
