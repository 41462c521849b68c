"""Assembling an Inventory from probe results: pure, and fine with any subset of the results in
any order."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from gpuscope.inventory.device_index import build_device_index
from gpuscope.inventory.join import join_gpus
from gpuscope.model import DeviceNodeAccess, Host, Inventory, Origin, ProbeResult, Stack

_STACK_FIELDS = {f.name for f in dataclasses.fields(Stack)} - {
    "environment", "device_nodes", "extras", "field_sources", "missing_reasons",
}


def assemble_stack(results: Sequence[ProbeResult]) -> Stack:
    values: dict[str, object] = {}
    sources: dict[str, str] = {}
    missing: dict[str, str] = {}
    environment: dict[str, str | None] = {}
    extras: dict[str, str | int | float | bool] = {}
    nodes: dict[str, DeviceNodeAccess] = {}
    for result in results:
        for fact in result.stack_facts:
            if fact.key.startswith("env:"):
                name = fact.key[4:]
                if fact.value is not None:
                    environment[name] = str(fact.value)
                else:
                    environment.setdefault(name, None)
                continue
            if fact.key not in _STACK_FIELDS:
                if fact.value is not None:
                    extras.setdefault(fact.key, fact.value)
                    if fact.source:
                        sources.setdefault(fact.key, fact.source)
                elif fact.missing_reason:  # why an extra fact is not there (no HIP SDK)
                    missing.setdefault(fact.key, fact.missing_reason)
                continue
            if fact.value is not None and fact.key not in values:
                values[fact.key] = fact.value
                if fact.source:
                    sources[fact.key] = fact.source
            elif fact.value is None and fact.missing_reason:
                missing.setdefault(fact.key, fact.missing_reason)
        for node in result.device_nodes:
            nodes.setdefault(node.path, node)
    missing = {k: v for k, v in missing.items() if k not in values and k not in extras}
    return Stack(environment=dict(sorted(environment.items())), extras=dict(sorted(extras.items())),
                 device_nodes=tuple(nodes[p] for p in sorted(nodes)),
                 field_sources=sources, missing_reasons=missing,
                 **values)  # type: ignore[arg-type]


def assemble(results: Sequence[ProbeResult], origin: Origin) -> Inventory:
    """Pure: probe results (any subset, any order) to an Inventory."""
    gpus = join_gpus(s for r in results for s in r.sightings)
    stack = assemble_stack(results)
    host = next((r.host for r in results if r.host is not None), None) or Host()
    statuses = tuple(r.status for r in results)
    return Inventory(
        gpus=gpus, stack=stack, host=host, probes=statuses,
        device_index=build_device_index(gpus, stack.environment), origin=origin,
    )
