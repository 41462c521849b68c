"""The amdsmi probes are tested against `tests/fakes/fake_amdsmi*.py`; this checks the fakes and
the probes against the real amdsmi wheel installed with the test extra (the PyPI `amdsmi`
package, pure Python over ctypes). Importing it needs ROCm's libamd_smi.so, so its SOURCE is
read instead, with `ast`: `__init__.py` (what `import amdsmi` exports), `amdsmi_interface.py`
(the functions, enums and the dicts they return), `amdsmi_wrapper.py` (the C constants) and
`amdsmi_exception.py`.

Checked: every function, enum member, status code and exception class the probes use exists
with the value the probes assume; each call the probes make with a fixed argument list fits
the real function's parameters; every answer key the probes read is one the library returns
(or a documented older name); the fakes' enums, status codes, exception methods, called
functions and answer keys are the wheel's, and where the wheel returns a bool the fakes do too.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from fakes import fake_amdsmi, fake_amdsmi_telemetry

from gpuscope.probes import amdsmi_telemetry

PROBES = Path(__file__).resolve().parents[2] / "gpuscope" / "probes"
PROBE_FILES = [PROBES / "amdsmi.py", PROBES / "amdsmi_telemetry.py"]
FUNCTION = re.compile(r"amdsmi_[a-z0-9_]+")
ENUM_MEMBER = re.compile(r"(AmdSmi[A-Za-z]+)\.([A-Z0-9_]+)")
EXCEPTION = re.compile(r"AmdSmi[A-Za-z]*Exception")
# Answer keys the probes read for older amdsmi versions, which 7.x no longer returns.
OLDER_KEYS = {
    "num_of_compute_units": "amdsmi 6.x's amdsmi_get_gpu_asic_info",
    "vbios_version_string": "amdsmi 6.x's amdsmi_get_gpu_vbios_info",
    "year": "amdsmi 6.x's amdsmi_get_lib_version (year, major, minor, release)",
}
# Strings of the probes that look like amdsmi functions but are gpuscope's fact ids.
FACT_IDS = {"amdsmi_library_version", "amdsmi_package_version"}
# Calls the probes make through getattr, with their positional argument counts.
GETATTR_CALLS = {("amdsmi_get_gpu_fan_speed", 2), ("amdsmi_get_gpu_fan_speed_max", 2),
                 ("amdsmi_get_gpu_process_list", 1)}


@dataclass(frozen=True)
class Wheel:
    """What the amdsmi wheel's source declares."""

    version: str
    exports: frozenset[str]
    functions: Mapping[str, ast.FunctionDef]
    enums: Mapping[str, Mapping[str, int]]
    constants: Mapping[str, int]  # amdsmi_wrapper's integer constants (AMDSMI_STATUS_*)
    exceptions: Mapping[str, ast.ClassDef]
    interface_constants: Mapping[str, int]


def _package_dir() -> Path:
    spec = importlib.util.find_spec("amdsmi")  # finds the package without importing it
    assert spec is not None and spec.submodule_search_locations, (
        "the amdsmi wheel is not installed: pip install -e '.[test]'")
    return Path(next(iter(spec.submodule_search_locations)))


def _int_assignments(tree: ast.Module) -> dict[str, int]:
    found: dict[str, int] = {}
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                continue
            if isinstance(value, int):
                found[node.targets[0].id] = value
    return found


@cache
def wheel() -> Wheel:
    folder = _package_dir()

    def parse(name: str) -> ast.Module:
        return ast.parse((folder / name).read_text(encoding="utf-8"), name)

    init, interface = parse("__init__.py"), parse("amdsmi_interface.py")
    wrapper, exception = parse("amdsmi_wrapper.py"), parse("amdsmi_exception.py")
    exports = frozenset(alias.asname or alias.name for node in ast.walk(init)
                        if isinstance(node, ast.ImportFrom) for alias in node.names)
    constants = _int_assignments(wrapper)
    enums: dict[str, dict[str, int]] = {}
    for node in interface.body:
        if isinstance(node, ast.ClassDef) and node.name.startswith("AmdSmi"):
            members: dict[str, int] = {}
            for item in node.body:
                if (isinstance(item, ast.Assign) and isinstance(item.targets[0], ast.Name)
                        and isinstance(item.value, ast.Attribute)
                        and item.value.attr in constants):
                    members[item.targets[0].id] = constants[item.value.attr]
            enums[node.name] = members
    version_text = (folder / "_version.py").read_text(encoding="utf-8")
    match = re.search(r"__version__\s*=\s*['\"]([^'\"]+)", version_text)
    if match is None:  # the 7.0.2 wheel ships an empty _version.py: ask the installed metadata
        from importlib import metadata
        version = metadata.version("amdsmi")
    else:
        version = match.group(1)
    return Wheel(
        version=version,
        exports=exports,
        functions={node.name: node for node in interface.body
                   if isinstance(node, ast.FunctionDef)},
        enums=enums,
        constants=constants,
        exceptions={node.name: node for node in exception.body
                    if isinstance(node, ast.ClassDef)},
        interface_constants=_int_assignments(interface),
    )


def accepts(function: ast.FunctionDef, count: int) -> bool:
    positional = [*function.args.posonlyargs, *function.args.args]
    required = len(positional) - len(function.args.defaults)
    return required <= count and (function.args.vararg is not None or count <= len(positional))


def answer_keys(function: ast.FunctionDef) -> set[str]:
    """Every string key of a dict the function builds (nested dicts included)."""
    return {key.value for node in ast.walk(function) if isinstance(node, ast.Dict)
            for key in node.keys if isinstance(key, ast.Constant) and isinstance(key.value, str)}


def bool_keys(function: ast.FunctionDef) -> set[str]:
    """Keys whose value the wheel turns into a bool (`_validate_if_max_uint(..., isBool=True)`)."""
    found: set[str] = set()
    for node in ast.walk(function):
        if not isinstance(node, ast.Dict):
            continue
        for key, value in zip(node.keys, node.values, strict=True):
            if (isinstance(key, ast.Constant) and isinstance(value, ast.Call)
                    and any(k.arg == "isBool" and isinstance(k.value, ast.Constant)
                            and k.value.value is True for k in value.keywords)):
                found.add(str(key.value))
    return found


# ----------------------------------------------------------------------------- the probes


def _trees() -> Iterator[ast.Module]:
    for path in PROBE_FILES:
        yield ast.parse(path.read_text(encoding="utf-8"), str(path))


def _strings_and_attributes() -> set[str]:
    found: set[str] = set()
    for tree in _trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found.add(node.value)
            elif isinstance(node, ast.Attribute):
                found.add(node.attr)
    return found


def probe_functions() -> set[str]:
    return {text for text in _strings_and_attributes()
            if FUNCTION.fullmatch(text) and text not in FACT_IDS}


def fixed_calls() -> set[tuple[str, int]]:
    """(function, positional argument count) of every call whose arguments the source fixes:
    `module.amdsmi_x(a, b)`, `_attempt(module, "amdsmi_x", (a, b), ...)`, the query tables'
    `("key", "amdsmi_x", (extra,), label)` (called with the handle first) and `_Query(metrics,
    "amdsmi_x", ("Enum.MEMBER", ...), ...)` (the handle, then the arguments)."""
    calls: set[tuple[str, int]] = set()
    for tree in _trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                function, args = node.func, node.args
                if (isinstance(function, ast.Attribute) and FUNCTION.fullmatch(function.attr)
                        and not any(isinstance(a, ast.Starred) for a in args)):
                    calls.add((function.attr, len(args)))
                name = function.id if isinstance(function, ast.Name) else ""
                if (name == "_attempt" and len(args) >= 3 and isinstance(args[1], ast.Constant)
                        and isinstance(args[2], ast.Tuple)
                        and not any(isinstance(e, ast.Starred) for e in args[2].elts)):
                    calls.add((str(args[1].value), len(args[2].elts)))
                if (name == "_Query" and len(args) >= 3 and isinstance(args[1], ast.Constant)
                        and isinstance(args[2], ast.Tuple)):
                    calls.add((str(args[1].value), 1 + len(args[2].elts)))
            elif (isinstance(node, ast.Tuple) and len(node.elts) == 4
                    and isinstance(node.elts[1], ast.Constant)
                    and FUNCTION.fullmatch(str(node.elts[1].value))
                    and isinstance(node.elts[2], ast.Tuple)):
                calls.add((str(node.elts[1].value), 1 + len(node.elts[2].elts)))
    return calls | GETATTR_CALLS


def keys_read() -> set[str]:
    """Answer keys the probes read: `_key(answer, "a", "b")` and `for key in ("a", "b")` in the
    telemetry, `take(field, call, "key", convert)` in the inventory probe."""
    keys: set[str] = set()
    for tree in _trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.For) and isinstance(node.iter, ast.Tuple):
                # `for key in ("a", "b"): answer.get(key)`
                keys.update(e.value for e in node.iter.elts
                            if isinstance(e, ast.Constant) and isinstance(e.value, str))
            if not isinstance(node, ast.Call):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else ""
            strings = [a.value for a in node.args
                       if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            if name == "_key":
                keys.update(strings)
            elif (name == "take" and len(node.args) >= 3
                    and isinstance(node.args[2], ast.Constant)
                    and isinstance(node.args[2].value, str)):
                keys.add(node.args[2].value)
    return keys


def test_the_wheel_is_the_one_the_test_extra_names() -> None:
    assert int(wheel().version.split(".")[0]) >= 7
    assert {"amdsmi_init", "AmdSmiLibraryException", "AmdSmiMemoryType"} <= wheel().exports


def test_the_probes_use_only_functions_amdsmi_exports() -> None:
    used = probe_functions()
    assert {"amdsmi_init", "amdsmi_get_temp_metric", "amdsmi_get_gpu_device_bdf"} <= used
    assert sorted(used - wheel().exports) == []
    assert sorted(used - wheel().functions.keys()) == []


def test_the_probes_calls_fit_the_real_functions() -> None:
    calls = fixed_calls()
    assert ("amdsmi_get_temp_metric", 3) in calls and ("amdsmi_get_lib_version", 0) in calls
    assert ("amdsmi_get_gpu_memory_total", 2) in calls and ("amdsmi_init", 1) in calls
    wrong = sorted((name, count) for name, count in calls
                   if not accepts(wheel().functions[name], count))
    assert wrong == []


def test_the_probes_enum_members_exist() -> None:
    members = {match.groups() for text in _strings_and_attributes()
               if (match := ENUM_MEMBER.fullmatch(text))}
    assert ("AmdSmiTemperatureType", "HOTSPOT") in members
    missing = sorted(f"{enum}.{member}" for enum, member in members
                     if member not in wheel().enums.get(enum, {}))
    assert missing == []
    assert "INIT_AMD_GPUS" in wheel().enums["AmdSmiInitFlags"]
    assert "AmdSmiInitFlags" in wheel().exports


def test_the_probes_exception_names_and_methods_exist() -> None:
    names = {text for text in _strings_and_attributes() if EXCEPTION.fullmatch(text)}
    assert names and sorted(names - wheel().exceptions.keys()) == []
    library = wheel().exceptions["AmdSmiLibraryException"]
    methods = {node.name for node in library.body if isinstance(node, ast.FunctionDef)}
    # _code and _reason in the probes call these, and read err_code where they are absent.
    assert {"get_error_code", "get_error_info"} <= methods
    assert "self.err_code" in ast.unparse(library)


@pytest.mark.parametrize("module", ["amdsmi", "amdsmi_telemetry"])
def test_the_probes_status_codes_are_amdsmis(module: str) -> None:
    tree = ast.parse((PROBES / f"{module}.py").read_text(encoding="utf-8"))
    codes = {name: value for name, value in _int_assignments(tree).items()
             if f"AMDSMI_STATUS{name}" in wheel().constants}
    assert "_NOT_SUPPORTED" in codes
    wrong = {name: (value, wheel().constants[f"AMDSMI_STATUS{name}"])
             for name, value in codes.items() if wheel().constants[f"AMDSMI_STATUS{name}"] != value}
    assert wrong == {}


def test_the_default_fan_maximum_is_amdsmis() -> None:
    assert wheel().interface_constants["AMDSMI_MAX_FAN_SPEED"] == amdsmi_telemetry._DEFAULT_FAN_MAX


def test_every_answer_key_the_probes_read_is_returned_by_amdsmi() -> None:
    returned = set().union(*(answer_keys(f) for f in wheel().functions.values()))
    read = keys_read()
    assert {"gfx_activity", "indep_throttle_status", "market_name", "power_cap"} <= read
    assert sorted(read - returned - OLDER_KEYS.keys()) == []
    assert sorted(OLDER_KEYS.keys() & returned) == []  # still older names only


# ----------------------------------------------------------------------------- the fakes


FAKE_ENUMS = [fake_amdsmi.AmdSmiInitFlags, fake_amdsmi.AmdSmiMemoryType,
              fake_amdsmi_telemetry.AmdSmiTemperatureType,
              fake_amdsmi_telemetry.AmdSmiTemperatureMetric, fake_amdsmi_telemetry.AmdSmiClkType]


@pytest.mark.parametrize("enum", FAKE_ENUMS, ids=lambda e: e.__name__)
def test_the_fake_enums_are_amdsmis(enum: Any) -> None:
    real = wheel().enums[enum.__name__]
    assert {name: int(member) for name, member in enum.__members__.items()} == {
        name: real[name] for name in enum.__members__}


def test_the_fake_status_codes_are_amdsmis() -> None:
    for module in (fake_amdsmi, fake_amdsmi_telemetry):
        for name, value in vars(module).items():
            if name.startswith("STATUS_"):
                assert wheel().constants[f"AMDSMI_{name}"] == value, name


def test_the_fake_exceptions_are_amdsmis() -> None:
    for name in ("AmdSmiException", "AmdSmiLibraryException"):
        real = wheel().exceptions[name]
        fake = getattr(fake_amdsmi, name)
        assert [b.id for b in real.bases if isinstance(b, ast.Name)] == [
            b.__name__ for b in fake.__bases__]
        for method in (n for n in real.body if isinstance(n, ast.FunctionDef)):
            if method.name in vars(fake):
                fake_method = vars(fake)[method.name].__code__
                real_names = [a.arg for a in method.args.args]
                assert list(fake_method.co_varnames[:fake_method.co_argcount]) == real_names


def _fake_tables() -> list[dict[tuple[Any, ...], Any]]:
    return [fake_amdsmi.two_radeons_table(), fake_amdsmi.two_radeons_table("24.7"),
            fake_amdsmi_telemetry.telemetry_table()]


def _dict_keys(value: Any) -> Iterator[str]:
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield str(key)
            yield from _dict_keys(item)
    elif isinstance(value, list):
        for item in value:
            yield from _dict_keys(item)


def test_the_fake_tables_answer_only_real_calls_with_real_keys() -> None:
    wrong: list[str] = []
    for table in _fake_tables():
        for key, answer in table.items():
            name, *rest = key
            function = wheel().functions.get(name)
            if function is None or name not in wheel().exports:
                wrong.append(f"{name}: not in amdsmi")
                continue
            # A device call's key carries the device index first; the real call its handle.
            if not accepts(function, len(rest)):
                wrong.append(f"{name}: {len(rest)} arguments")
            extra = set(_dict_keys(answer)) - answer_keys(function)
            if extra:
                wrong.append(f"{name}: keys amdsmi does not return: {sorted(extra)}")
            if isinstance(answer, Mapping):
                for bool_key in bool_keys(function) & answer.keys():
                    if not isinstance(answer[bool_key], bool) and answer[bool_key] != "N/A":
                        wrong.append(f"{name}: {bool_key} is a bool in amdsmi")
    assert wrong == []


def test_the_fakes_name_the_functions_the_probes_call() -> None:
    called = {key[0] for table in _fake_tables() for key in table}
    assert called <= probe_functions()
