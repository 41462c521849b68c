"""Every reason and hint the probes give can be shown translated: each is a gpuscope.i18n
Message (its template and values kept), never a plain str built at run time.

Collected from every captured snapshot, so a reason added without `message(...)` fails here
as soon as a snapshot reaches it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from gpuscope.evidence import ReplaySystem
from gpuscope.i18n import Message, join, localise, message, set_language
from gpuscope.inventory import collect_inventory, inspect_interpreters
from gpuscope.model import Inventory, Layer, ProbeState
from gpuscope.parsers import parse_any
from gpuscope.probes.python_envs import recorded_interpreters
from gpuscope.probes.sourced import SightingBuilder, recorded_reason

SNAPSHOTS = sorted((Path(__file__).parents[1] / "fixtures" / "snapshots").glob("*.json"))


def _texts(inventory: Inventory) -> Iterator[tuple[str, str]]:
    """(where, text) of every user-facing reason and hint in `inventory`."""
    for status in inventory.probes:
        if status.reason is not None:
            yield f"probe {status.name} reason", status.reason
        if status.hint is not None:
            yield f"probe {status.name} hint", status.hint
    for node in inventory.stack.device_nodes:
        if node.reason is not None:
            yield f"device node {node.path}", node.reason
    for gpu in inventory.gpus:
        for field, reason in gpu.missing_reasons.items():
            yield f"GPU {gpu.index} missing {field}", reason
    for field, reason in inventory.stack.missing_reasons.items():
        yield f"stack missing {field}", reason
    for field, reason in inventory.host.missing_reasons.items():
        yield f"host missing {field}", reason
    for entry in inventory.device_index:
        if entry.note is not None:
            yield f"device index of GPU {entry.gpu_index}", entry.note


@pytest.mark.parametrize("snapshot", SNAPSHOTS, ids=lambda path: path.stem)
def test_every_probe_reason_and_hint_is_a_message(snapshot: Path) -> None:
    system = ReplaySystem.from_file(str(snapshot))
    inventory = collect_inventory(system)
    texts = list(_texts(inventory))
    assert texts, "a snapshot without a single reason or hint checks nothing"
    plain = [f"{where}: {text!r}" for where, text in texts if not isinstance(text, Message)]
    assert not plain, "reasons built as plain str (not translatable):\n" + "\n".join(plain)


@pytest.mark.parametrize("snapshot", SNAPSHOTS, ids=lambda path: path.stem)
def test_every_framework_probe_reason_and_hint_is_a_message(snapshot: Path) -> None:
    system = ReplaySystem.from_file(str(snapshot))
    inspection = inspect_interpreters(system, recorded_interpreters(system), budget_s=5.0)
    plain = []
    for answer in inspection.answers:
        status = answer.result.status
        for kind, text in (("reason", status.reason), ("hint", status.hint)):
            if text is not None and not isinstance(text, Message):
                plain.append(f"{status.name} {kind}: {text!r}")
        if status.state is not ProbeState.OK:
            assert status.reason is not None
    assert not plain, "reasons built as plain str (not translatable):\n" + "\n".join(plain)


def test_a_recorded_reason_reads_back_as_its_template() -> None:
    known = ("NVML could not start: {error}", "no permission")
    started = recorded_reason("NVML could not start: Unknown Error", *known)
    assert isinstance(started, Message)
    assert started == "NVML could not start: Unknown Error"
    assert started.template == "NVML could not start: {error}"
    assert started.params == {"error": "Unknown Error"}
    permission = recorded_reason("no permission", *known)
    assert isinstance(permission, Message) and permission.template == "no permission"
    foreign = recorded_reason("something the library said", *known)
    assert isinstance(foreign, Message)
    assert foreign == "something the library said" and foreign.template == "{error}"


def test_a_reason_kept_in_front_of_another_stays_translatable_part_by_part() -> None:
    fields = SightingBuilder(Layer.SYSFS)
    fields.miss_also("name", message("first {path}", path="/a"))
    fields.miss_also("name", message("second"))
    reason = fields.sighting().missing_reasons["name"]
    assert reason == "first /a; second"
    assert isinstance(reason, Message)
    assert reason.params == {"p0": "first /a", "p1": "second"}
    assert join("; ", ["a", "b"]) == "a; b"


def test_a_kfd_reason_shows_in_chinese_with_its_values_unchanged() -> None:
    snapshot = next(p for p in SNAPSHOTS if p.stem == "amd_kfd_no_access")
    inventory = collect_inventory(ReplaySystem.from_file(str(snapshot)))
    kfd = next(node for node in inventory.stack.device_nodes if node.path == "/dev/kfd")
    assert kfd.reason is not None
    if not set_language("zh_CN"):
        pytest.skip("no compiled Chinese catalogue")
    try:
        shown = localise(kfd.reason)
    finally:
        set_language("en")
    assert isinstance(kfd.reason, Message)
    for value in kfd.reason.params.values():
        assert str(value) in shown


OUTPUTS = sorted(p for p in (Path(__file__).parents[1] / "fixtures" / "outputs").rglob("*")
                 if p.is_file() and p.suffix in (".txt", ".json", ".xml", ".csv", ".log"))


def test_every_missing_reason_of_a_pasted_output_is_a_message() -> None:
    """An imported machine's GPUs show the parsers' missing reasons the same way."""
    plain: list[str] = []
    checked = 0
    for path in OUTPUTS:
        parsed = parse_any(path.read_text(encoding="utf-8", errors="replace"), path.name)
        for sighting in parsed.sightings:
            for field, reason in sighting.missing_reasons.items():
                checked += 1
                if not isinstance(reason, Message):
                    plain.append(f"{path.name} {field}: {reason!r}")
        for fact in parsed.stack_facts:
            if fact.missing_reason is not None:
                checked += 1
                if not isinstance(fact.missing_reason, Message):
                    plain.append(f"{path.name} {fact.key}: {fact.missing_reason!r}")
    assert checked, "no fixture output has a missing reason: the test checks nothing"
    assert not plain, "reasons built as plain str (not translatable):\n" + "\n".join(plain)
