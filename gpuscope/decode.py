"""JSON back into the frozen dataclasses: the inverse of `model.to_jsonable`.

    decoded = decode(Spread, {"min": 1, "median": 2, "max": 3, "count": "five"})
    decoded.value      # None: `count` is required and is not an integer
    decoded.problems   # ("count: expected an integer, got 'five'",)

For JSON that may be old, foreign or damaged (a stored run, a worker's message, a pasted
report): nothing in the JSON makes it raise. Each field is read by its annotation, strictly:

- `str`; `int` (never a bool); `float` (an int counts; finite only); `bool`; `None`
- an `Enum`: one of its values
- a dataclass: a JSON object, read field by field (keys it does not know are ignored)
- `tuple[X, ...]`, `list[X]`: an array; an element that cannot be read is left out
- `tuple[X, Y]`: an array of exactly those
- `Mapping[str, X]`, `dict[str, X]`: an object; an entry that cannot be read is left out
- `X | Y`: the first member that reads the value; `Literal[...]`: one of its values; `Any`: as is

A field that is missing, or whose value cannot be read, takes its default: the one given to the
call, else the dataclass's, else None where its type allows None. A field with none of these
makes the whole object unreadable (`value` None). Every value left out or replaced is named in
`problems`. An annotation outside this list is a programming error: TypeError.
"""

from __future__ import annotations

import dataclasses
import enum
import math
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast

T = TypeVar("T")

# A reader of one value: the value, or None when it cannot read it.
Reader = Callable[[Any], Any]


@dataclass(frozen=True, slots=True)
class Decoded(Generic[T]):
    value: T | None  # None: the JSON is not one (problems say why)
    problems: tuple[str, ...] = ()  # "results[2].value: expected a number, got 'x'"


class _Unreadable:
    """The marker of a value that could not be read (None can be a value)."""


_UNREADABLE = _Unreadable()
_NONE_TYPE = type(None)


def _shown(raw: Any) -> str:
    """A JSON value as a problem names it: its kind, or a short repr."""
    text = {dict: "an object", list: "an array", _NONE_TYPE: "null"}.get(type(raw)) or repr(raw)
    return text if len(text) <= 40 else text[:37] + "..."


# What JSON values a scalar annotation can read (bool is an int in Python, and refused by both).
_JSON_TYPES: dict[Any, type | tuple[type, ...]] = {str: str, int: int, float: (int, float),
                                                   bool: bool}

# A compiled reader: (raw, path, problems) -> the value, or _UNREADABLE with the reason added.
_Read = Callable[[Any, str, list[str]], Any]


def _allows_none(hint: Any) -> bool:
    if hint is Any or hint is _NONE_TYPE or hint is None:
        return True
    return typing.get_origin(hint) in (typing.Union, types.UnionType) and _NONE_TYPE in \
        typing.get_args(hint)


def _refuse(problems: list[str], path: str, expected: str, raw: Any) -> _Unreadable:
    problems.append(f"{path}: expected {expected}, got {_shown(raw)}")
    return _UNREADABLE


@dataclass(frozen=True, slots=True)
class _Field:
    name: str
    read: _Read
    default: Any  # dataclasses.MISSING: none
    factory: Any  # dataclasses.MISSING: none
    nullable: bool


@dataclass(frozen=True)
class Decoder:
    """How to read. `text` cleans every value of a text field (`str`, `str | None`, the
    elements of `tuple[str, ...]`, the values of `Mapping[str, str]`; not a `str` inside a
    wider union) and may refuse it with None; `readers` read the dataclasses they name wherever
    they appear inside another (a reader returns None for JSON that is not one)."""

    text: Callable[[str], str | None] | None = None
    readers: Mapping[type, Reader] = field(default_factory=dict)
    # What each annotation compiles to, and each dataclass's fields: read once, used often.
    _compiled: dict[tuple[Any, bool], _Read] = field(default_factory=dict, init=False,
                                                     repr=False, compare=False)
    _fields: dict[type, list[_Field]] = field(default_factory=dict, init=False, repr=False,
                                              compare=False)

    def decode(self, cls: type[T], raw: Any, *, defaults: Mapping[str, Any] | None = None,
               fields: Mapping[str, Reader] | None = None) -> Decoded[T]:
        """`raw` as a `cls`. `defaults` replace the dataclass's own defaults (and give fields
        without one a default); `fields` read the fields they name instead of their annotation
        (None from such a reader: the field's default)."""
        problems: list[str] = []
        value = self._object(cls, raw, "", problems, defaults or {}, fields or {})
        if isinstance(value, _Unreadable):
            return Decoded(None, tuple(problems))
        return Decoded(cast(T, value), tuple(problems))

    # -- objects

    def _fields_of(self, cls: type) -> list[_Field]:
        found = self._fields.get(cls)
        if found is None:
            hints = typing.get_type_hints(cls)
            found = [_Field(spec.name, self._reader(hints[spec.name], True), spec.default,
                            spec.default_factory, _allows_none(hints[spec.name]))
                     for spec in dataclasses.fields(cls) if spec.init]
            self._fields[cls] = found
        return found

    def _object(self, cls: type, raw: Any, path: str, problems: list[str],
                defaults: Mapping[str, Any], fields: Mapping[str, Reader]) -> Any:
        if not isinstance(raw, dict):
            problems.append(f"{path or cls.__name__}: expected an object, got {_shown(raw)}")
            return _UNREADABLE
        values: dict[str, Any] = {}
        for spec in self._fields_of(cls):
            name = spec.name
            value: Any = _UNREADABLE
            if name in raw:
                reader = fields.get(name) if fields else None
                if reader is None:
                    value = spec.read(raw[name], f"{path}.{name}" if path else name, problems)
                else:
                    value = reader(raw[name])
                    value = _UNREADABLE if value is None else value
            if value is _UNREADABLE:
                if name in defaults:
                    value = defaults[name]
                elif spec.default is not dataclasses.MISSING:
                    value = spec.default
                elif spec.factory is not dataclasses.MISSING:
                    value = spec.factory()
                elif spec.nullable:
                    value = None
                else:
                    if name not in raw:
                        problems.append(f"{path}.{name}: missing" if path else f"{name}: missing")
                    return _UNREADABLE
            values[name] = value
        try:
            return cls(**values)
        except (TypeError, ValueError) as exc:  # a check of the dataclass's own
            problems.append(f"{path or cls.__name__}: {exc}")
            return _UNREADABLE

    # -- values

    def _reader(self, hint: Any, text: bool) -> _Read:
        key = (hint, text)
        read = self._compiled.get(key)
        if read is None:
            read = self._compile(hint, text)
            self._compiled[key] = read
        return read

    def _compile(self, hint: Any, text: bool) -> _Read:
        """The reader of values annotated `hint`."""
        origin = typing.get_origin(hint)
        if hint is Any or hint is object:
            return lambda raw, path, problems: raw
        if origin in (typing.Union, types.UnionType):
            return self._union(typing.get_args(hint), text)
        if origin is typing.Literal:
            return _literal(typing.get_args(hint))
        if origin in (tuple, list) or hint in (tuple, list):
            return self._array(origin or hint, typing.get_args(hint))
        if origin in (dict, Mapping) or hint is dict:
            return self._mapping(typing.get_args(hint))
        if not isinstance(hint, type):
            raise TypeError(f"decode cannot read a value of type {hint!r}")
        if dataclasses.is_dataclass(hint):
            return self._dataclass(hint)
        if issubclass(hint, enum.Enum):
            return _enum(hint)
        return self._scalar(hint, text)

    def _dataclass(self, cls: type) -> _Read:
        custom = self.readers.get(cls)
        if custom is None:
            return lambda raw, path, problems: self._object(cls, raw, path, problems, {}, {})
        expected = f"a {cls.__name__}"

        def read(raw: Any, path: str, problems: list[str]) -> Any:
            value = custom(raw)
            return _refuse(problems, path, expected, raw) if value is None else value
        return read

    def _scalar(self, hint: type, text: bool) -> _Read:
        if hint is str:
            clean = self.text if text else None

            def read_text(raw: Any, path: str, problems: list[str]) -> Any:
                if not isinstance(raw, str):
                    return _refuse(problems, path, "text", raw)
                if clean is None:
                    return raw
                cleaned = clean(raw)
                return cleaned if cleaned is not None else _refuse(
                    problems, path, "text that is not blank", raw)
            return read_text
        if hint is bool:
            return lambda raw, path, problems: raw if isinstance(raw, bool) else _refuse(
                problems, path, "true or false", raw)
        if hint is int:
            return lambda raw, path, problems: raw if isinstance(raw, int) and not isinstance(
                raw, bool) else _refuse(problems, path, "an integer", raw)
        if hint is float:
            return _read_float
        if hint is _NONE_TYPE:
            return lambda raw, path, problems: None if raw is None else _refuse(
                problems, path, "null", raw)
        raise TypeError(f"decode cannot read a value of type {hint.__name__}")

    def _union(self, members: tuple[Any, ...], text: bool) -> _Read:
        wanted = [m for m in members if m is not _NONE_TYPE]
        nullable = len(wanted) < len(members)
        if len(wanted) == 1:  # X | None
            single = self._reader(wanted[0], text)
            return lambda raw, path, problems: None if raw is None and nullable else single(
                raw, path, problems)
        # Each member with the JSON types it can read (a quick test before trying it).
        readers = [(_JSON_TYPES.get(m, object), self._reader(m, False)) for m in wanted]
        expected = " or ".join(getattr(m, "__name__", str(m)) for m in members)

        def read(raw: Any, path: str, problems: list[str]) -> Any:
            if raw is None and nullable:
                return None
            for types_read, member in readers:
                if isinstance(raw, types_read):
                    value = member(raw, path, [])
                    if value is not _UNREADABLE:
                        return value
            return _refuse(problems, path, expected, raw)
        return read

    def _array(self, origin: type, args: tuple[Any, ...]) -> _Read:
        if origin is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
            readers = [self._reader(a, True) for a in args]

            def read_fixed(raw: Any, path: str, problems: list[str]) -> Any:
                if not isinstance(raw, list) or len(raw) != len(readers):
                    return _refuse(problems, path, f"an array of {len(readers)}", raw)
                items = [r(item, f"{path}[{n}]", problems)
                         for n, (r, item) in enumerate(zip(readers, raw, strict=True))]
                return _UNREADABLE if any(i is _UNREADABLE for i in items) else tuple(items)
            return read_fixed
        element = self._reader(args[0] if args else Any, True)
        as_tuple = origin is tuple

        def read(raw: Any, path: str, problems: list[str]) -> Any:
            if not isinstance(raw, list):
                return _refuse(problems, path, "an array", raw)
            items = [element(item, f"{path}[{n}]", problems) for n, item in enumerate(raw)]
            kept = [i for i in items if i is not _UNREADABLE]
            return tuple(kept) if as_tuple else kept
        return read

    def _mapping(self, args: tuple[Any, ...]) -> _Read:
        key_type, value_type = args if args else (str, Any)
        if key_type is not str:
            raise TypeError("decode reads JSON objects with text keys only")
        value_reader = self._reader(value_type, True)

        def read(raw: Any, path: str, problems: list[str]) -> Any:
            if not isinstance(raw, dict):
                return _refuse(problems, path, "an object", raw)
            out: dict[str, Any] = {}
            for key, item in raw.items():
                if not isinstance(key, str):
                    problems.append(f"{path}: a key that is not text, {_shown(key)}")
                    continue
                value = value_reader(item, f"{path}[{key!r}]", problems)
                if value is not _UNREADABLE:
                    out[key] = value
            return out
        return read


def _read_float(raw: Any, path: str, problems: list[str]) -> Any:
    if isinstance(raw, (int, float)) and not isinstance(raw, bool):
        try:
            number = float(raw)
        except OverflowError:  # an integer beyond any float
            number = math.inf
        if math.isfinite(number):
            return number
    return _refuse(problems, path, "a finite number", raw)


def _literal(choices: tuple[Any, ...]) -> _Read:
    def read(raw: Any, path: str, problems: list[str]) -> Any:
        if any(raw == choice and type(raw) is type(choice) for choice in choices):
            return raw
        return _refuse(problems, path, f"one of {choices}", raw)
    return read


def _enum(cls: type[enum.Enum]) -> _Read:
    expected = f"a {cls.__name__} value"

    def read(raw: Any, path: str, problems: list[str]) -> Any:
        if isinstance(raw, (str, int, float)) and not isinstance(raw, bool):
            try:
                return cls(raw)
            except ValueError:
                pass
        return _refuse(problems, path, expected, raw)
    return read


def decode(cls: type[T], raw: Any, *, defaults: Mapping[str, Any] | None = None,
           fields: Mapping[str, Reader] | None = None) -> Decoded[T]:
    """`raw` as a `cls`, each text as it is and each nested dataclass read by its fields (see
    `Decoder.decode`)."""
    return _PLAIN.decode(cls, raw, defaults=defaults, fields=fields)


_PLAIN = Decoder()
