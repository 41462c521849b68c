"""The table from the metric catalogue to Prometheus families."""

from __future__ import annotations

import re

import gpuscope.serve.families as F
from gpuscope.metrics import CATALOGUE, Metric, ThrottleReason

_NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")


def test_every_catalogue_metric_has_one_family() -> None:
    # Throttle reasons are flags: one gauge per reason instead of a value.
    assert set(F.METRIC_FAMILIES) == set(CATALOGUE) - {Metric.THROTTLE_REASONS}
    for metric, row in F.METRIC_FAMILIES.items():
        assert row.metric is metric
        assert row.family in F.ALL_FAMILIES
        assert row.family.name.startswith("gpuscope_host_" if CATALOGUE[metric].host
                                          else "gpuscope_gpu_")


def test_names_carry_their_unit_and_gpu_labels() -> None:
    names = [f.name for f in F.ALL_FAMILIES]
    assert len(names) == len(set(names))
    for family in F.ALL_FAMILIES:
        assert _NAME.fullmatch(family.name), family.name
        assert family.type in ("gauge", "counter")
        if family.unit:
            assert family.name.endswith("_" + family.unit), family.name
        if family.name.startswith("gpuscope_gpu_"):
            assert family.labels[:3] == ("gpu", "pci_bus", "name"), family.name
        assert family.help and "\n" not in family.help


def test_units_and_scales_are_prometheus_base_units() -> None:
    rows = F.METRIC_FAMILIES
    assert rows[Metric.GPU_UTIL_PERCENT].family.name == "gpuscope_gpu_utilization_ratio"
    assert rows[Metric.GPU_UTIL_PERCENT].scale == 0.01
    assert rows[Metric.SCLK_MHZ].family.name == "gpuscope_gpu_clock_hertz"
    assert rows[Metric.SCLK_MHZ].scale == 1e6
    assert rows[Metric.SCLK_MHZ].extra_label == ("clock", "graphics")
    assert rows[Metric.MCLK_MHZ].extra_label == ("clock", "memory")
    sensors = {rows[m].extra_label for m in (Metric.TEMP_EDGE_C, Metric.TEMP_JUNCTION_C,
                                             Metric.TEMP_MEMORY_C)}
    assert sensors == {("sensor", "edge"), ("sensor", "junction"), ("sensor", "memory")}
    assert rows[Metric.POWER_W].family.name == "gpuscope_gpu_power_watts"
    assert rows[Metric.VRAM_USED_BYTES].family.name == "gpuscope_gpu_memory_used_bytes"
    assert rows[Metric.HOST_CPU_PERCENT].family.name == "gpuscope_host_cpu_utilization_ratio"


def test_help_comes_from_the_catalogue_label() -> None:
    for metric, row in F.METRIC_FAMILIES.items():
        assert CATALOGUE[metric].label in row.family.help, (metric, row.family.help)


def test_throttle_reasons_have_stable_label_values() -> None:
    assert set(F.THROTTLE_LABELS) == set(ThrottleReason)
    assert F.THROTTLE_LABELS[ThrottleReason.POWER] == "power"
    assert F.THROTTLE_LABELS[ThrottleReason.THERMAL] == "thermal"


def test_the_module_docstring_lists_every_family() -> None:
    doc = F.__doc__ or ""
    for family in F.ALL_FAMILIES:
        assert family.name in doc, family.name


def test_cpu_core_ids() -> None:
    assert F.cpu_core_of("cpu3_percent") == 3
    assert F.cpu_core_of("cpu12_percent") == 12
    assert F.cpu_core_of("host_cpu_percent") is None
    assert F.cpu_core_of("cpux_percent") is None
