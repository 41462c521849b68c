"""Inspecting the frameworks of Python interpreters: the framework probe run in a worker
process per interpreter, all at once within one time budget, each answer recorded through
`system.library` so that a snapshot replays it."""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gpuscope.evidence import System
from gpuscope.model import Framework, Interpreter, JsonValue, OriginKind, ProbeState
from gpuscope.probes.frameworks import (
    LIBRARY_PREFIX,
    REASON_CANCELLED,
    REASON_KILLED,
    REASON_PROBE_FAILED,
    FrameworkProbeResult,
    collect_framework_probe,
    no_answer,
    parse_framework_answer,
)
from gpuscope.probes.python_envs import InterpreterChoice, given_interpreters

log = logging.getLogger(__name__)

# An interpreter the user picked (--python, the Frameworks page's Inspect) may take its time:
# a ROCm build's first import can take tens of seconds. The default set, inspected with no
# flag, gets DEFAULT_INSPECTION_BUDGET_S for all of its interpreters together: on a real H200
# VM (PyTorch 2.11.0+cu130) importing torch and counting the GPUs took about 5 s and the smoke
# test, in its own process, about 5 s more; 10 s cut it short every time.
DEFAULT_FRAMEWORK_TIMEOUT_S = 120.0
DEFAULT_INSPECTION_BUDGET_S = 20.0
# Of the budget, what is kept for killing and reaping a worker still running at its end.
KILL_GRACE_S = 0.5
_POLL_S = 0.1
# The states in which an interpreter named on purpose cannot be used at all.
_UNUSABLE = (ProbeState.LIBRARY_MISSING, ProbeState.PERMISSION_DENIED, ProbeState.ERROR,
             ProbeState.NOT_CAPTURED)


@dataclass(frozen=True, slots=True)
class InterpreterAnswer:
    """One interpreter's answer to the framework probe, and why it was asked."""

    choice: InterpreterChoice
    result: FrameworkProbeResult

    @property
    def interpreter(self) -> Interpreter:
        return self.result.interpreter(self.choice.why)

    @property
    def frameworks(self) -> tuple[Framework, ...]:
        return self.result.frameworks_or_reason()

    @property
    def unusable_reason(self) -> str | None:
        """Why this interpreter cannot be inspected at all (missing, not a program, not a
        Python that runs the probe, not in the replayed snapshot); None when it can, or
        when it only ran out of time."""
        status = self.result.status
        if status.state not in _UNUSABLE:
            return None
        return status.reason or status.state.value


@dataclass(frozen=True, slots=True)
class FrameworkInspection:
    """The answers of the interpreters inspected, in the order they were chosen. Two paths
    that turn out to be one environment (pyenv's `python` and `python3` shims: one prefix,
    one version) count once, with both reasons."""

    answers: tuple[InterpreterAnswer, ...] = ()

    @classmethod
    def of(cls, answers: Sequence[InterpreterAnswer]) -> FrameworkInspection:
        kept: list[InterpreterAnswer] = []
        seen: dict[tuple[str, str], int] = {}
        for answer in answers:
            result = answer.result
            key = (result.prefix, result.python_version)
            if key[0] is None or key[1] is None or not result.status.available:
                kept.append(answer)
                continue
            position = seen.setdefault((key[0], key[1]), len(kept))
            if position == len(kept):
                kept.append(answer)
                continue
            first = kept[position]
            reasons = [*first.choice.why.split(", "), *answer.choice.why.split(", ")]
            why = ", ".join(dict.fromkeys(r for r in reasons if r))
            kept[position] = InterpreterAnswer(InterpreterChoice(first.choice.python, why),
                                               first.result)
        return cls(tuple(kept))

    @property
    def frameworks(self) -> tuple[Framework, ...]:
        return tuple(f for answer in self.answers for f in answer.frameworks)

    @property
    def interpreters(self) -> tuple[Interpreter, ...]:
        return tuple(answer.interpreter for answer in self.answers)

    def unusable(self) -> list[tuple[str, str]]:
        """(interpreter, reason) for each that cannot be inspected at all."""
        return [(a.choice.python, reason) for a in self.answers
                if (reason := a.unusable_reason) is not None]


AnswerCallback = Callable[[InterpreterAnswer], None]


def inspect_interpreters(
    system: System,
    choices: Sequence[InterpreterChoice],
    budget_s: float = DEFAULT_INSPECTION_BUDGET_S,
    *,
    on_answer: AnswerCallback | None = None,
    cancel: threading.Event | None = None,
    smoke_test: bool = True,
) -> FrameworkInspection:
    """Run the framework probe on every interpreter in `choices` at once, each in its own
    worker process, bounded to `budget_s` in all: an interpreter still running then is
    killed and answers "no answer within N s". `on_answer(answer)` is called on the calling
    thread as each answer arrives. Setting `cancel` kills the workers and returns what came
    back so far. Every answer goes through `system.library("python-env:<python>")`, so a
    snapshot records it and a replay answers from the record without starting anything.
    Never raises."""
    wanted = list({c.python: c for c in choices if c.python}.values())
    budget_s = max(1.0, budget_s)
    replayed = system.origin_kind is OriginKind.REPLAY
    arrived: queue.Queue[tuple[str, JsonValue]] = queue.Queue()
    if not replayed:
        runner_timeout_s = max(0.5, budget_s - KILL_GRACE_S)
        for position, choice in enumerate(wanted):
            threading.Thread(
                target=_probe_worker,
                args=(choice.python, runner_timeout_s, budget_s, smoke_test, cancel, arrived),
                daemon=True, name=f"framework-probe-{position}",
            ).start()
    answers: dict[str, InterpreterAnswer] = {}
    by_python = {c.python: c for c in wanted}

    def take(python: str, raw: JsonValue) -> None:
        answer = system.library(f"{LIBRARY_PREFIX}{python}", lambda: raw)
        answers[python] = InterpreterAnswer(by_python[python],
                                            parse_framework_answer(answer, python))
        if on_answer is not None:
            try:
                on_answer(answers[python])
            except Exception:  # a listener's bug must not cost the other answers
                log.exception("a framework answer listener failed")

    if replayed:
        for choice in wanted:
            take(choice.python, no_answer(choice.python, budget_s))
    else:
        deadline = time.monotonic() + budget_s
        while len(answers) < len(wanted):
            remaining = deadline - time.monotonic()
            if remaining <= 0 or (cancel is not None and cancel.is_set()):
                break
            try:
                python, raw = arrived.get(timeout=min(remaining, _POLL_S))
            except queue.Empty:
                continue
            take(python, raw)
        cancelled = cancel is not None and cancel.is_set()
        for choice in wanted:
            if choice.python not in answers:
                take(choice.python, _cancelled(choice.python) if cancelled
                     else no_answer(choice.python, budget_s))
    return FrameworkInspection.of([answers[c.python] for c in wanted])


def _probe_worker(python: str, timeout_s: float, budget_s: float, smoke_test: bool,
                  cancel: threading.Event | None,
                  arrived: queue.Queue[tuple[str, JsonValue]]) -> None:
    try:
        raw = collect_framework_probe(python, timeout_s, smoke_test, cancel)
    except Exception as exc:  # the runner promises not to raise; keep the promise for it
        log.exception("framework probe of %s failed", python)
        raw = {"status": ProbeState.ERROR.value, "python": python,
               "error": REASON_PROBE_FAILED.format(error=f"{type(exc).__name__}: {exc}")}
    if (isinstance(raw, dict) and raw.get("status") == ProbeState.TIMEOUT.value
            and not (cancel is not None and cancel.is_set())):
        # Killed just before the deadline: said in the budget's terms, not the runner's.
        raw["error"] = REASON_KILLED.format(seconds=f"{budget_s:g}")
    arrived.put((python, raw))


def _cancelled(python: str) -> JsonValue:
    return {"status": ProbeState.TIMEOUT.value, "python": python,
            "error": REASON_CANCELLED}


def collect_frameworks(
    system: System, pythons: Sequence[str], timeout_s: float = DEFAULT_FRAMEWORK_TIMEOUT_S,
) -> tuple[Framework, ...]:
    """The frameworks of each interpreter, inspected in parallel worker processes. An
    interpreter that cannot be inspected comes back as a `python` entry with the reason."""
    return inspect_interpreters(system, given_interpreters(pythons), timeout_s).frameworks
