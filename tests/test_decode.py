"""The generic JSON decoder: the inverse of `model.to_jsonable` on the model's own dataclasses,
strict about types, defaults and problems instead of exceptions, and never raising on JSON."""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuscope.decode import Decoder, decode
from gpuscope.model import (
    EvidenceRef,
    Framework,
    FrameworkDevice,
    PcieLink,
    ProbeState,
    ProbeStatus,
    to_jsonable,
)


class Colour(str, enum.Enum):
    RED = "red"
    BLUE = "blue"


@dataclass(frozen=True, slots=True)
class Inner:
    name: str
    size: int = 0


@dataclass(frozen=True, slots=True)
class Outer:
    id: str
    ratio: float
    colour: Colour
    inner: Inner | None = None
    inners: tuple[Inner, ...] = ()
    tags: Mapping[str, str] = field(default_factory=dict)
    values: Mapping[str, str | int | float | bool | None] = field(default_factory=dict)
    pair: tuple[int, str] | None = None
    mode: Literal["fast", "slow"] = "fast"
    extra: Any = None
    flag: bool | None = None


SAMPLE = Outer(id="a", ratio=0.5, colour=Colour.BLUE, inner=Inner("x", 3),
               inners=(Inner("y"), Inner("z", 9)), tags={"k": "v"},
               values={"n": 1, "f": 2.5, "b": True, "s": " spaced ", "none": None},
               pair=(1, "one"), mode="slow", extra={"any": [1, 2]}, flag=False)


def test_round_trips_what_to_jsonable_writes() -> None:
    raw = json.loads(json.dumps(to_jsonable(SAMPLE)))
    decoded = decode(Outer, raw)
    assert decoded.value == SAMPLE
    assert decoded.problems == ()


def test_round_trips_model_classes() -> None:
    framework = Framework(
        name="torch", version="2.5.1", build="rocm", gpu_available=True,
        arch_list=("gfx1100",), devices=(FrameworkDevice(index=0, name="RX 7900 XTX",
                                                         arch="gfx1100", bf16=True),),
        evidence=(EvidenceRef(source="probe", text="ok"),))
    for value in (framework, ProbeStatus("kfd", ProbeState.TIMEOUT, "slow", None),
                  PcieLink(16.0, 16, 32.0, 16, "slot")):
        raw = json.loads(json.dumps(to_jsonable(value)))
        assert decode(type(value), raw).value == value


def test_types_are_strict() -> None:
    decoded = decode(Outer, {"id": "a", "ratio": True, "colour": "blue"})
    assert decoded.value is None  # a bool is not a number, and ratio has no default
    assert decoded.problems == ("ratio: expected a finite number, got True",)
    assert decode(Inner, {"name": "x", "size": 1.0}).value == Inner("x")  # 1.0 is no int
    assert decode(Inner, {"name": "x", "size": 7}).value == Inner("x", 7)
    assert decode(Outer, {"id": "a", "ratio": 1, "colour": "blue"}).value == Outer(
        "a", 1.0, Colour.BLUE)  # an int is a number
    for ratio in (float("nan"), float("inf"), 10 ** 400, "1.5", None):
        assert decode(Outer, {"id": "a", "ratio": ratio, "colour": "red"}).value is None


def test_a_missing_or_unreadable_field_takes_its_default_or_none() -> None:
    decoded = decode(Outer, {"id": "a", "ratio": 2, "colour": "blue", "inner": {"size": 1},
                             "flag": "yes", "mode": "medium", "pair": [1, 2]})
    assert decoded.value == Outer("a", 2.0, Colour.BLUE)
    assert decoded.problems == (
        "inner.name: missing", "pair[1]: expected text, got 2",
        "mode: expected one of ('fast', 'slow'), got 'medium'",
        "flag: expected true or false, got 'yes'")
    assert decode(Outer, {"id": "a", "ratio": 2, "colour": "green"}).value is None
    given_default = decode(Outer, {"id": "a", "ratio": 2, "colour": "green"},
                           defaults={"colour": Colour.RED, "mode": "slow"})
    assert given_default.value == Outer("a", 2.0, Colour.RED, mode="slow")


def test_unreadable_elements_and_entries_are_left_out() -> None:
    decoded = decode(Outer, {
        "id": "a", "ratio": 1, "colour": "red",
        "inners": [{"name": "ok"}, {"size": 2}, "text", {"name": "also", "size": 2}],
        "tags": {"good": "yes", "bad": 3},
        "values": {"nan": float("nan"), "list": [1], "int": 4, "bool": False}})
    assert decoded.value is not None
    assert decoded.value.inners == (Inner("ok"), Inner("also", 2))
    assert decoded.value.tags == {"good": "yes"}
    assert decoded.value.values == {"int": 4, "bool": False}
    assert len(decoded.problems) == 5


def test_text_rule_readers_and_field_readers() -> None:
    decoder = Decoder(text=lambda text: text.strip() or None,
                      readers={Inner: lambda raw: Inner("read") if raw else None})
    decoded = decoder.decode(
        Outer, {"id": "  a ", "ratio": 1, "colour": "red", "inner": {"name": "x"},
                "inners": [{}, {"name": "y"}], "tags": {"k": " v ", "blank": "  "},
                "values": {"s": " kept as is "}, "extra": "raw"},
        fields={"extra": lambda raw: raw.upper() if isinstance(raw, str) else None})
    assert decoded.value == Outer(
        "a", 1.0, Colour.RED, inner=Inner("read"), inners=(Inner("read"),), tags={"k": "v"},
        values={"s": " kept as is "}, extra="RAW")
    assert decoder.decode(Outer, {"id": "  ", "ratio": 1, "colour": "red"}).value is None


def test_not_an_object() -> None:
    for raw in (None, [], "x", 3):
        decoded = decode(Inner, raw)
        assert decoded.value is None and len(decoded.problems) == 1


def test_an_annotation_it_cannot_read_is_a_programming_error() -> None:
    @dataclass(frozen=True)
    class Odd:
        items: set[int]

    with pytest.raises(TypeError, match="cannot read"):
        decode(Odd, {"items": [1]})


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.sampled_from(["id", "ratio", "colour", "inner", "inners", "tags",
                                       "values", "pair", "mode", "extra", "flag", "name",
                                       "size"]) | st.text(max_size=4), children, max_size=8),
    max_leaves=30)


@settings(max_examples=300, deadline=None)
@given(JSON)
def test_never_raises_on_any_json(raw: Any) -> None:
    for cls in (Outer, Inner, Framework, PcieLink):
        decoded = decode(cls, raw)
        assert decoded.value is None or isinstance(decoded.value, cls)
