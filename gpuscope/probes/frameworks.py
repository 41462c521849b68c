"""The framework probe's runner: starts the folder `framework_probe/` with a Python interpreter
the user picked and turns its JSON lines into `Framework` records.

gpuscope itself never imports torch (or any framework): the script runs in a worker process,
by path, with the chosen interpreter. `collect_framework_probe` does the running and returns
plain JSON (what a snapshot keeps under `python-env:<interpreter>`); `parse_framework_answer`
is pure and maps that JSON to the model.

The interpreter runs without `-I` or `-s`: isolated mode would drop PYTHONPATH and the user's
site-packages (`pip install --user torch` lives there), and the point is to report what
`python -c "import torch"` sees in that environment. The environment is passed through for the
same reason (HSA_OVERRIDE_GFX_VERSION, *_VISIBLE_DEVICES, LD_LIBRARY_PATH must reach it). The
probe takes its own folder off `sys.path`, so its modules cannot shadow the real packages.
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpuscope.evidence import System
from gpuscope.i18n import N_, Message, join, message
from gpuscope.model import (
    EvidenceRef,
    Framework,
    FrameworkDevice,
    Interpreter,
    JsonValue,
    ProbeState,
    ProbeStatus,
)
from gpuscope.model import json_bool as _bool
from gpuscope.model import json_dict as _dict
from gpuscope.model import json_int as _int
from gpuscope.model import json_list as _list
from gpuscope.probes.framework_probe.limits import SMOKE_HANG_S
from gpuscope.probes.sourced import recorded_reason
from gpuscope.probes.worker_process import (
    START_REASONS,
    JsonLineReader,
    WorkerProcess,
    WorkerStartError,
    last_error_line,
    signal_name,
)

PROTOCOL = 1
# Run by path with the chosen interpreter: `python <folder> ...` (see framework_probe/__init__.py).
PROBE_PATH = Path(__file__).resolve().parent / "framework_probe"
DEFAULT_TIMEOUT_S = 60.0
LIBRARY_PREFIX = "python-env:"

# Why an interpreter could not be inspected, as the runner records it (in English) and reads
# it back translatable; the more specific of two similar texts first.
_REASON_TIMEOUT = N_("the framework probe did not finish within {seconds} s and was killed")
_REASON_OLD_PYTHON = N_("this interpreter cannot run the probe script (it needs Python 3.9 "
                        "or newer): {detail}")
_REASON_NOT_STARTED_DETAIL = N_("the interpreter did not start the probe ({how}): {detail}")
_REASON_NOT_STARTED = N_("the interpreter did not start the probe ({how})")
_REASON_PROTOCOL = N_("the probe script speaks protocol {protocol}, this gpuscope reads "
                      "{expected}")
_REASON_ENDED_DETAIL = N_("the framework probe ended before it was done ({how}): {detail}")
_REASON_ENDED = N_("the framework probe ended before it was done ({how})")
_REASON_NO_ANSWER = N_("no answer within {seconds} s")
# Recorded by the inspection that runs the probes (gpuscope.inventory.frameworks).
REASON_PROBE_FAILED = N_("probe failed: {error}")
REASON_KILLED = N_("no answer within {seconds} s (the probe was killed)")
REASON_CANCELLED = N_("cancelled before it answered")
_REASON_CANCELLED_EARLY = N_("cancelled before it started")
_KNOWN_REASONS = (*START_REASONS, _REASON_CANCELLED_EARLY, _REASON_TIMEOUT, _REASON_OLD_PYTHON,
                  _REASON_NOT_STARTED_DETAIL, _REASON_NOT_STARTED, _REASON_PROTOCOL,
                  _REASON_ENDED_DETAIL, _REASON_ENDED, REASON_KILLED, _REASON_NO_ANSWER,
                  REASON_PROBE_FAILED, REASON_CANCELLED)

BUILDS = ("rocm", "cuda", "cpu", "xpu", "mps", "directml", "unknown")
# The order frameworks are listed in, whatever order their results arrived in.
FRAMEWORK_ORDER = ("torch", "torch_directml", "onnxruntime", "jax", "tensorflow")


@dataclass(frozen=True, slots=True)
class FrameworkProbeResult:
    """The frameworks one interpreter has. `status.name` is `frameworks:<interpreter>`."""

    status: ProbeStatus
    frameworks: tuple[Framework, ...] = ()
    not_installed: tuple[str, ...] = ()  # frameworks the interpreter cannot import at all
    python: str | None = None  # the interpreter as asked for
    executable: str | None = None  # sys.executable as the interpreter reported it
    python_version: str | None = None
    # The variables that change what frameworks see, as that interpreter saw them.
    environment: Mapping[str, str | None] = field(default_factory=dict)
    stderr_tail: str | None = None
    prefix: str | None = None  # sys.prefix: two paths with one prefix and version are one env
    packages: Mapping[str, str] = field(default_factory=dict)  # vllm, sglang -> version
    externally_managed: bool | None = None  # PEP 668: pip refuses to install there

    def interpreter(self, why: str | None = None) -> Interpreter:
        """The model's record of this interpreter: inspected or why not, and what it lacks."""
        python = self.python or self.status.name.removeprefix("frameworks:")
        inspected = self.status.state is ProbeState.OK
        return Interpreter(
            python=python, inspected=inspected, why=why, executable=self.executable,
            python_version=self.python_version, not_installed=self.not_installed,
            error=None if inspected else (self.status.reason or self.status.state.value),
            packages=self.packages, externally_managed=self.externally_managed,
        )

    def frameworks_or_reason(self) -> tuple[Framework, ...]:
        """Its frameworks, and for an interpreter that could not be inspected a `python`
        entry carrying the reason (what the Frameworks page lists as "could not inspect")."""
        if self.status.available:
            return self.frameworks
        python = self.python or self.status.name.removeprefix("frameworks:")
        return (*self.frameworks,
                Framework(name="python", python=python, error=self.status.summary()))


# ----------------------------------------------------------------------------- the runner


def _script_budget(timeout_s: float) -> float:
    # The script ends itself a little before the runner would kill it, so that a slow
    # framework still comes back as a result ("timed out") rather than as a killed probe.
    margin = min(5.0, max(1.0, timeout_s * 0.1))
    return max(1.0, timeout_s - margin)


def run_probe_script(
    python: str,
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    script_timeout_s: float | None = None,
    smoke_test: bool = True,
    script: str | os.PathLike[str] | None = None,
    extra_args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    cancel: threading.Event | None = None,
) -> dict[str, JsonValue]:
    """Run the framework probe script with `python` and gather its answer. Never raises.

    The script runs in a new session (its own process group) so that a timeout kills it with
    every framework and smoke-test process it started; stragglers are swept the same way
    after a normal exit. `cancel`, once set, kills it the same way (the answer then says
    so). `script` replaces the packaged probe (tests); `env` replaces the inherited
    environment."""
    path = Path(script) if script is not None else PROBE_PATH
    return _run(python, path, timeout_s, script_timeout_s, smoke_test, extra_args, env, cancel)


CANCEL_POLL_S = 0.05


def _run(
    python: str, script: Path, timeout_s: float, script_timeout_s: float | None,
    smoke_test: bool, extra_args: Sequence[str], env: Mapping[str, str] | None,
    cancel: threading.Event | None,
) -> dict[str, JsonValue]:
    budget = script_timeout_s if script_timeout_s is not None else _script_budget(timeout_s)
    argv = [python, str(script), "--timeout-s", f"{budget:g}"]
    if not smoke_test:
        argv.append("--no-smoke-test")
    argv.extend(extra_args)
    started = time.monotonic()
    if cancel is not None and cancel.is_set():
        return {"status": ProbeState.TIMEOUT.value, "python": python,
                "error": _REASON_CANCELLED_EARLY}
    try:
        worker = WorkerProcess.start(argv, env=env, name="framework-probe")
    except WorkerStartError as exc:
        return {"status": exc.state.value, "python": python, "error": exc.message}
    deadline = started + timeout_s
    cancelled = False
    while True:
        remaining = deadline - time.monotonic()
        if worker.wait_exit(max(0.0, min(remaining, CANCEL_POLL_S if cancel else remaining))):
            timed_out = False
            break
        if cancel is not None and cancel.is_set():
            timed_out = cancelled = True
            break
        if remaining <= 0:
            timed_out = True
            break
    if timed_out:
        worker.kill()
    # finish() also sweeps stragglers (a smoke test whose parent the script killed) with the
    # group: the script has exited but is not reaped yet, so its group id cannot be reused.
    returncode = worker.finish()
    answer = _answer(python, worker.reader, worker.stderr_tail(), returncode,
                     timed_out, timeout_s, time.monotonic() - started)
    if cancelled:
        answer["error"] = "cancelled: the framework probe was stopped before it finished"
    return answer


def _answer(
    python: str, reader: JsonLineReader, stderr: str, returncode: int | None,
    timed_out: bool, timeout_s: float, duration_s: float,
) -> dict[str, JsonValue]:
    hello: dict[str, Any] | None = None
    results: list[JsonValue] = []
    script_errors: list[JsonValue] = []
    done = False
    for record in reader.messages:
        kind = record.get("type")
        if kind == "hello" and hello is None:
            hello = record
        elif kind == "result" and isinstance(record.get("framework"), dict):
            results.append(record["framework"])
        elif kind == "error":
            script_errors.append(str(record.get("error")))
        elif kind == "done":
            done = True
    answer: dict[str, JsonValue] = {
        "status": ProbeState.OK.value, "python": python, "hello": hello, "results": results,
        "stderr_tail": stderr, "log_lines": list(reader.log_lines),
        "returncode": returncode, "signal": signal_name(returncode),
        "duration_s": round(duration_s, 3),
    }
    if script_errors:
        answer["script_errors"] = script_errors
    if timed_out:
        answer.update(status=ProbeState.TIMEOUT.value,
                      error=_REASON_TIMEOUT.format(seconds=f"{timeout_s:g}"))
    elif hello is None:
        detail = last_error_line(stderr)
        if detail and "SyntaxError" in stderr:
            error = _REASON_OLD_PYTHON.format(detail=detail)
        else:
            how = signal_name(returncode) or f"exit status {returncode}"
            error = (_REASON_NOT_STARTED_DETAIL.format(how=how, detail=detail) if detail
                     else _REASON_NOT_STARTED.format(how=how))
        answer.update(status=ProbeState.ERROR.value, error=error)
    elif hello.get("protocol") != PROTOCOL:
        answer.update(status=ProbeState.ERROR.value,
                      error=_REASON_PROTOCOL.format(protocol=repr(hello.get("protocol")),
                                                    expected=PROTOCOL))
    elif not done:
        how = signal_name(returncode) or f"exit status {returncode}"
        detail = last_error_line(stderr)
        answer.update(status=ProbeState.ERROR.value,
                      error=(_REASON_ENDED_DETAIL.format(how=how, detail=detail) if detail
                             else _REASON_ENDED.format(how=how)))
    return answer


def collect_framework_probe(
    python: str, timeout_s: float = DEFAULT_TIMEOUT_S, smoke_test: bool = True,
    cancel: threading.Event | None = None,
) -> JsonValue:
    """The collect step passed to `system.library("python-env:<python>", ...)`."""
    return run_probe_script(python, timeout_s=timeout_s, smoke_test=smoke_test, cancel=cancel)


def no_answer(python: str, budget_s: float) -> dict[str, JsonValue]:
    """The answer recorded for an interpreter still running when the inspection's time was
    up (it is killed, not waited for)."""
    return {"status": ProbeState.TIMEOUT.value, "python": python,
            "error": _REASON_NO_ANSWER.format(seconds=f"{budget_s:g}")}


def probe_python_env(
    system: System, python: str, timeout_s: float = DEFAULT_TIMEOUT_S, smoke_test: bool = True,
) -> FrameworkProbeResult:
    """What the frameworks installed for `python` can do with the GPUs. Never raises."""
    answer = system.library(
        f"{LIBRARY_PREFIX}{python}",
        lambda: collect_framework_probe(python, timeout_s, smoke_test),
    )
    return parse_framework_answer(answer, python)


# ----------------------------------------------------------------------------- parsing


def _str(value: Any) -> str | None:
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None






def _str_tuple(value: Any) -> tuple[str, ...]:
    return tuple(s for s in (_str(v) for v in _list(value)) if s is not None)


def normalise_build(value: Any) -> str:
    """A build name in the model's vocabulary: rocm | cuda | cpu | xpu | mps | directml |
    unknown."""
    text = _str(value)
    if text is None:
        return "unknown"
    text = text.lower()
    if text in BUILDS:
        return text
    for prefix, build in (("rocm", "rocm"), ("hip", "rocm"), ("cu", "cuda"), ("xpu", "xpu"),
                          ("mps", "mps"), ("metal", "mps"), ("dml", "directml"),
                          ("directml", "directml"), ("cpu", "cpu")):
        if text.startswith(prefix):
            return build
    return "unknown"


def _pci_bus(value: Any) -> str | None:
    text = _str(value)
    return text.lower() if text else None


def _device(raw: dict[str, Any], position: int) -> FrameworkDevice:
    index = _int(raw.get("index"))
    memory = _int(raw.get("total_memory_bytes"))
    arch = _str(raw.get("arch"))
    if arch is None and (gcn := _str(raw.get("gcn_arch_name"))):
        arch = gcn.split(":", 1)[0]
    return FrameworkDevice(
        index=index if index is not None else position,
        name=_str(raw.get("name")),
        arch=arch,
        compute_capability=_str(raw.get("compute_capability")),
        total_memory_bytes=memory if memory is not None and memory >= 0 else None,
        pci_bus=_pci_bus(raw.get("pci_bus")),
        fp16=_bool(raw.get("fp16")),
        bf16=_bool(raw.get("bf16")),
        tf32=_bool(raw.get("tf32")),
    )


_KILLED_AT_BUDGET = re.compile(r"timed out after (\d+) s \(the smoke test was killed\)$")


def _cut_short(test: dict[str, Any]) -> dict[str, Any]:
    """A smoke test of an older capture that the time budget killed within SMOKE_HANG_S was
    recorded as "failed"; it is "unfinished", as the probe now says itself."""
    match = _KILLED_AT_BUDGET.match(_str(test.get("reason")) or "")
    if test.get("status") != "failed" or match is None or int(match.group(1)) >= SMOKE_HANG_S:
        return test
    return {**test, "status": "unfinished",
            "reason": message("did not finish in the {seconds} s the inspection had left (not "
                              "a sign of a hang)", seconds=match.group(1))}


def smoke_test_summary(tests: Any) -> str | None:
    """One line for `Framework.smoke_test`: "ok", "ok (ran on the CPU: ...)",
    "failed: <reason>" or, when the time budget cut a test short, "unfinished: <reason>"
    (with each such device named when there are several)."""
    records = [_cut_short(t) for t in _list(tests) if isinstance(t, dict)]
    if not records:
        return None
    failed = [t for t in records if t.get("status") not in ("ok", "unfinished")]
    unfinished = [t for t in records if t.get("status") == "unfinished"]
    if not failed and not unfinished:
        notes = {n for n in (_str(t.get("note")) for t in records) if n}
        return message("ok ({notes})", notes="; ".join(sorted(notes))) if notes else message("ok")

    def reason(test: dict[str, Any]) -> str:
        text = test.get("reason")
        if isinstance(text, str) and text.strip():
            return text if isinstance(text, Message) else text.strip()
        return _str(test.get("status")) or message("no reason given")

    # A failure outweighs a test the budget cut short; either names its devices when several
    # were tested.
    shown = failed or unfinished
    if len(records) == 1:
        why = reason(shown[0])
    else:
        why = join("; ", [message("{device}: {reason}", device=_str(t.get("device")) or "?",
                                  reason=reason(t)) for t in shown])
    return (message("failed: {reason}", reason=why) if failed
            else message("unfinished: {reason}", reason=why))


def _math_library(raw: Any) -> str | None:
    library = _dict(raw)
    version = _str(library.get("version"))
    if version is None:
        return None
    name = _str(library.get("name"))
    return f"{name} {version}" if name else version


def _framework(raw: dict[str, Any], python: str, python_version: str | None) -> Framework:
    name = _str(raw.get("name")) or "unknown"
    source = f"framework probe of {python}"
    evidence: list[EvidenceRef] = []
    error = _str(raw.get("error"))
    if error:
        evidence.append(EvidenceRef(source=f"{source}: import {name}", text=error[:300]))
    for test in _list(raw.get("smoke_tests")):
        if isinstance(test, dict) and test.get("status") != "ok":
            line = _str(test.get("key_line")) or _str(test.get("reason"))
            evidence.append(EvidenceRef(
                source=f"{source}: smoke test on {_str(test.get('device')) or '?'}",
                text=line[:300] if line else None))
    version = _str(raw.get("version"))
    if version is None:
        dists = [d for d in _list(raw.get("distributions")) if isinstance(d, dict)]
        version = _str(dists[0].get("version")) if dists else None
    devices = tuple(_device(d, n) for n, d in enumerate(_list(raw.get("devices")))
                    if isinstance(d, dict))
    gpu_available = _bool(raw.get("gpu_available"))
    return Framework(
        name=name,
        version=version,
        build=normalise_build(raw.get("build")),
        build_version=_str(raw.get("build_version")),
        gpu_available=gpu_available,
        arch_list=_str_tuple(raw.get("arch_list")),
        devices=devices,
        python=python,
        python_version=python_version,
        math_library_version=_math_library(raw.get("math_library")),
        sdpa_backends=_str_tuple(raw.get("sdpa_backends")),
        providers=_str_tuple(raw.get("providers")),
        smoke_test=smoke_test_summary(raw.get("smoke_tests")),
        error=error,
        evidence=tuple(evidence),
    )


def _order(framework: Framework) -> int:
    try:
        return FRAMEWORK_ORDER.index(framework.name)
    except ValueError:
        return len(FRAMEWORK_ORDER)


_HINTS: dict[ProbeState, str] = {
    ProbeState.LIBRARY_MISSING: N_("Pick an interpreter that exists; gpuscope lists the "
                                   "environments it found."),
    ProbeState.TIMEOUT: N_("A framework import or the GPU smoke test hung. Run `python -c "
                           "\"import torch; print(torch.cuda.is_available())\"` with this "
                           "interpreter to see where it stops, or allow more time."),
    ProbeState.PERMISSION_DENIED: N_("Check that this user may execute the interpreter."),
    ProbeState.ERROR: N_("Check that this is a working Python 3.9+ interpreter: run it with "
                         "`-c \"print(1)\"`."),
}


def _hint(state: ProbeState) -> str | None:
    hint = _HINTS.get(state)
    return message(hint) if hint is not None else None


def parse_framework_answer(answer: JsonValue, python: str) -> FrameworkProbeResult:
    """The runner's JSON (live or from a snapshot) as a FrameworkProbeResult. Pure; never
    raises, whatever the JSON."""
    name = f"frameworks:{python}"
    if not isinstance(answer, dict):
        return FrameworkProbeResult(
            status=ProbeStatus(name, ProbeState.ERROR,
                               message("malformed framework probe answer"),
                               _hint(ProbeState.ERROR)),
            python=python)
    raw_status = answer.get("status")
    try:
        state = ProbeState(raw_status) if isinstance(raw_status, str) else ProbeState.ERROR
    except ValueError:
        state = ProbeState.ERROR
    hello = _dict(answer.get("hello"))
    python_version = _str(hello.get("python_version"))
    frameworks: list[Framework] = []
    not_installed: list[str] = []
    for raw in _list(answer.get("results")):
        if not isinstance(raw, dict) or _str(raw.get("name")) is None:
            continue
        if raw.get("installed") is False:
            not_installed.append(str(raw["name"]).strip())
        else:
            frameworks.append(_framework(raw, python, python_version))
    frameworks.sort(key=_order)
    environment = {str(k): (v if isinstance(v, str) else None)
                   for k, v in _dict(hello.get("env")).items()}

    if state is ProbeState.OK:
        found = ", ".join(
            f"{f.name} {f.version or '?'} ({f.build})" for f in frameworks)
        status = ProbeStatus(name, state, message("{frameworks}", frameworks=found) if found
                             else message("no framework installed"))
    elif state is ProbeState.NOT_CAPTURED:
        status = ProbeStatus(name, state, message(
            "frameworks of {python} not captured in this snapshot", python=python))
    else:
        error = _str(answer.get("error"))
        reason = (recorded_reason(error, *_KNOWN_REASONS) if error
                  else recorded_reason(raw_status.strip()) if isinstance(raw_status, str)
                  and raw_status.strip() else message("unknown failure"))
        if raw_status != state.value:
            reason = message("unexpected status {status!r}: {reason}", status=raw_status,
                             reason=reason)
        status = ProbeStatus(name, state, reason, _hint(state))
    stderr = answer.get("stderr_tail")
    return FrameworkProbeResult(
        status=status,
        frameworks=tuple(frameworks),
        not_installed=tuple(not_installed),
        python=python,
        executable=_str(hello.get("python")),
        python_version=python_version,
        environment=environment,
        stderr_tail=stderr if isinstance(stderr, str) and stderr else None,
        prefix=_str(hello.get("prefix")),
        packages={str(k): v.strip() for k, v in _dict(hello.get("packages")).items()
                  if isinstance(v, str) and v.strip()},
        externally_managed=managed if isinstance(managed := hello.get("externally_managed"),
                                                 bool) else None,
    )


def _main() -> None:  # pragma: no cover - a manual check: python -m gpuscope.probes.frameworks
    python = sys.argv[1] if len(sys.argv) > 1 else sys.executable
    print(json.dumps(run_probe_script(python), indent=1))


if __name__ == "__main__":  # pragma: no cover
    _main()
