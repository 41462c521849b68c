"""The NVML probes are tested against `tests/fakes/fake_pynvml*.py`; this checks the fakes and
the probes against the real nvidia-ml-py installed with the test extra, so that a name or an
argument count that exists only in the fake fails here (the probes also ran for real on an
NVIDIA H200: tests/fixtures/snapshots/nvidia_h200.json).

Every name the probes use on `pynvml` (a function, constant or error class, whether written as
an attribute or as the string a call goes through) exists in pynvml; each call the probes make
with a fixed argument list, and each call the fakes' tables answer, fits the real function's
parameters; the fakes' error codes and class names are pynvml's."""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pynvml
import pytest
from fakes import fake_pynvml, fake_pynvml_telemetry

PROBES = Path(__file__).resolve().parents[2] / "gpuscope" / "probes"
PROBE_FILES = [PROBES / "nvml.py", PROBES / "nvml_telemetry.py"]
NAME = re.compile(r"nvml[A-Z]\w*|NVML_[A-Z0-9_]+|NVMLError\w*")
# Names the probes read that are not pynvml attributes, with where they are instead.
NOT_MODULE_ATTRIBUTES = {"nvmlReturn": "a field of c_nvmlFieldValue_t"}


def _trees() -> Iterator[ast.AST]:
    for path in PROBE_FILES:
        yield ast.parse(path.read_text(), str(path))


def names_used() -> set[str]:
    found: set[str] = set()
    for tree in _trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = node.value
            elif isinstance(node, ast.Attribute):
                text = node.attr
            else:
                continue
            if NAME.fullmatch(text):
                found.add(text)
    return found


def fixed_calls() -> set[tuple[str, int]]:
    """(function, positional argument count) of every call whose arguments are fixed in the
    source: `_attempt(nvml, "name", (a, b), ...)` and `_Query(metrics, ("name", ...), (args),
    ...)`, which calls name(handle, *args)."""
    calls: set[tuple[str, int]] = set()
    for tree in _trees():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            args = node.args
            if (node.func.id == "_attempt" and len(args) >= 3
                    and isinstance(args[1], ast.Constant) and isinstance(args[2], ast.Tuple)
                    and not any(isinstance(e, ast.Starred) for e in args[2].elts)):
                calls.add((str(args[1].value), len(args[2].elts)))
            if (node.func.id == "_Query" and len(args) >= 3
                    and isinstance(args[1], ast.Tuple) and isinstance(args[2], ast.Tuple)):
                for name in args[1].elts:
                    if isinstance(name, ast.Constant):
                        calls.add((str(name.value), 1 + len(args[2].elts)))
    return calls


def accepts(function: Any, count: int) -> bool:
    parameters = inspect.signature(function).parameters.values()
    positional = [p for p in parameters
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    variadic = any(p.kind is p.VAR_POSITIONAL for p in parameters)
    return len(required) <= count and (variadic or count <= len(positional))


def test_the_probes_use_only_names_pynvml_has() -> None:
    used = names_used()
    assert {"nvmlInit", "nvmlDeviceGetHandleByIndex", "NVML_CLOCK_GRAPHICS"} <= used
    missing = sorted(n for n in used - NOT_MODULE_ATTRIBUTES.keys() if not hasattr(pynvml, n))
    assert missing == []
    field_names = [field[0] for field in pynvml.c_nvmlFieldValue_t._fields_]
    assert "nvmlReturn" in field_names


def test_the_probes_calls_fit_the_real_functions() -> None:
    calls = fixed_calls()
    assert ("nvmlDeviceGetClockInfo", 2) in calls and ("nvmlSystemGetDriverVersion", 0) in calls
    wrong = sorted((name, count) for name, count in calls
                   if not accepts(getattr(pynvml, name), count))
    assert wrong == []


def _table_calls(table: dict[tuple[Any, ...], Any]) -> set[tuple[str, int]]:
    calls = set()
    for key in table:
        name, *rest = key
        # A device call's key carries the device index first; the real call takes its handle.
        calls.add((name, len(rest)))
    return calls


@pytest.mark.parametrize("table", [
    fake_pynvml.desktop_table(), fake_pynvml.desktop_table(lost_gpu=1),
])
def test_the_fake_tables_answer_only_real_calls(table: dict[tuple[Any, ...], Any]) -> None:
    calls = _table_calls(table)
    assert calls
    unknown = sorted(name for name, _ in calls if not hasattr(pynvml, name))
    assert unknown == []
    wrong = sorted((n, c) for n, c in calls if not accepts(getattr(pynvml, n), c))
    assert wrong == []


def test_the_fake_telemetry_tables_answer_only_real_calls() -> None:
    tables = [value() if callable(value) else value
              for name, value in vars(fake_pynvml_telemetry).items()
              if name.endswith("_table") and not name.startswith("_")]
    calls = set().union(*(_table_calls(t) for t in tables if isinstance(t, dict)))
    assert calls
    assert sorted(name for name, _ in calls if not hasattr(pynvml, name)) == []


def test_the_fake_errors_are_pynvmls() -> None:
    for name, code in fake_pynvml.ERROR_CODES.items():
        constant = "NVML_ERROR_" + re.sub(r"(?<!^)(?=[A-Z])", "_", name).upper()
        assert getattr(pynvml, constant) == code, name
        assert type(pynvml.NVMLError(code)).__name__ == f"NVMLError_{name}"
        assert type(fake_pynvml.NVMLError(code)).__name__ == f"NVMLError_{name}"
