"""The PyTorch answer when the window opens: the interpreters a user plausibly runs are
inspected off the GUI thread, the pages fill in as each answers, a replay shows those its
capture chose (and why), an interpreter added on the Frameworks page is kept for the next
start, and closing the window stops the workers."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from gpuscope.app.settings import SettingsStore
from gpuscope.evidence import LiveSystem, ReplaySystem, System
from gpuscope.inventory import (
    DEFAULT_INSPECTION_BUDGET_S,
    AnswerCallback,
    FrameworkInspection,
    InterpreterAnswer,
)
from gpuscope.model import Framework, ProbeState, ProbeStatus
from gpuscope.probes.frameworks import FrameworkProbeResult
from gpuscope.probes.python_envs import InterpreterChoice
from gpuscope.ui.main_window import MainWindow

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
OWN = "/opt/gpuscope/bin/python"
WindowFactory = Callable[..., MainWindow]


def _answer(choice: InterpreterChoice) -> InterpreterAnswer:
    """gpuscope's own interpreter has a CPU torch; every other one has nothing."""
    frameworks = (Framework(name="torch", version="2.5.1+cpu", build="cpu",
                            gpu_available=False, python=choice.python),) \
        if choice.python == OWN else ()
    return InterpreterAnswer(choice, FrameworkProbeResult(
        ProbeStatus(f"frameworks:{choice.python}", ProbeState.OK), frameworks,
        not_installed=() if frameworks else ("torch",), python=choice.python,
        prefix=choice.python, python_version="3.12.3"))


class SteppedInspector:
    """Answers the interpreters one by one, each when `step` is set (or when cancelled),
    and notes what it was asked and on which thread."""

    def __init__(self) -> None:
        self.step = threading.Event()
        self.calls: list[tuple[tuple[InterpreterChoice, ...], float]] = []
        self.on_gui_thread: list[bool] = []
        self.cancelled = threading.Event()

    def __call__(self, system: System, choices: Sequence[InterpreterChoice],
                 budget_s: float = 0.0, *, on_answer: AnswerCallback | None = None,
                 cancel: threading.Event | None = None,
                 smoke_test: bool = True) -> FrameworkInspection:
        self.calls.append((tuple(choices), budget_s))
        self.on_gui_thread.append(threading.current_thread() is threading.main_thread())
        answers = []
        for choice in choices:
            while not self.step.wait(0.02):
                if cancel is not None and cancel.is_set():
                    self.cancelled.set()
                    return FrameworkInspection(tuple(answers))
            self.step.clear()
            answers.append(_answer(choice))
            if on_answer is not None:
                on_answer(answers[-1])
        return FrameworkInspection.of(answers)


def test_a_replay_shows_the_interpreters_its_capture_chose_and_why(
    qtbot: Any, make_window: WindowFactory,
) -> None:
    system = ReplaySystem.from_file(FIXTURES / "snapshots" / "rx7900xtx_no_torch.json")
    window = make_window(system, inspect_frameworks=True)
    qtbot.waitUntil(lambda: len(window.doctor.inspected_pythons) == 2
                    and not window.doctor.is_inspecting, timeout=10_000)
    expected = [("/usr/bin/python3", "gpuscope's interpreter"),
                ("/home/alice/venvs/llm/bin/python",
                 "VIRTUAL_ENV, python3 on PATH, python on PATH")]
    assert [(i.python, i.why) for i in window.diagnosis.data.interpreters] == expected
    assert all(i.inspected and "torch" in i.not_installed
               for i in window.diagnosis.data.interpreters)
    # The Frameworks page lists and ticks what was inspected, with why.
    window.select_page("frameworks")
    page = window.frameworks_page
    qtbot.waitUntil(lambda: bool(page.environments()), timeout=5000)
    assert page.checked_pythons() == [python for python, _why in expected]
    assert [r.python for r in page.results()] == [python for python, _why in expected]


def test_answers_fill_the_pages_in_as_they_come_off_the_gui_thread(
    qtbot: Any, make_window: WindowFactory, tmp_path: Path,
) -> None:
    added = tmp_path / "sd" / "bin" / "python"
    added.parent.mkdir(parents=True)
    added.write_text("")
    store_path = tmp_path / "settings.json"
    store_path.write_text(json.dumps({"schema_version": 1, "interpreters": [str(added)]}))
    inspector = SteppedInspector()
    window = make_window(LiveSystem(), probes=(), current_python=OWN,
                         framework_inspector=inspector, inspect_frameworks=True,
                         settings=SettingsStore(store_path))
    page = window.frameworks_page
    qtbot.waitUntil(lambda: bool(inspector.calls), timeout=5000)
    ((choices, budget_s),) = inspector.calls
    assert inspector.on_gui_thread == [False]
    assert budget_s == DEFAULT_INSPECTION_BUDGET_S
    assert choices[0] == InterpreterChoice(OWN, "gpuscope's interpreter")
    assert choices[-1] == InterpreterChoice(str(added), "added in gpuscope")
    qtbot.waitUntil(lambda: page.progress_text() is not None, timeout=5000)
    assert page.progress_text() == f"Inspecting {len(choices)} environments…"
    assert window.diagnosis.frameworks == ()

    inspector.step.set()  # gpuscope's own answers first: its torch shows at once
    qtbot.waitUntil(lambda: window.doctor.inspected_pythons == (OWN,), timeout=5000)
    assert [f.version for f in window.diagnosis.frameworks] == ["2.5.1+cpu"]
    assert [i.python for i in window.diagnosis.data.interpreters] == [OWN]
    assert window.doctor.is_inspecting
    assert [r.python for r in page.results()] == [OWN]

    for count in range(2, len(choices) + 1):
        inspector.step.set()
        qtbot.waitUntil(lambda n=count: len(window.doctor.inspected_pythons) == n,
                        timeout=5000)
    qtbot.waitUntil(lambda: not window.doctor.is_inspecting, timeout=5000)
    assert [i.python for i in window.diagnosis.data.interpreters] == [c.python
                                                                       for c in choices]
    assert page.progress_text() is None


def test_an_interpreter_added_on_the_page_is_inspected_at_the_next_start(
    qtbot: Any, make_window: WindowFactory, tmp_path: Path,
) -> None:
    added = tmp_path / "env" / "bin" / "python"
    added.parent.mkdir(parents=True)
    added.symlink_to(sys.executable)
    store = SettingsStore(tmp_path / "settings.json")
    first = make_window(LiveSystem(), probes=(), settings=store)
    first.frameworks_page.add_interpreter(str(added))
    assert store.current.interpreters == (str(added),)
    assert json.loads((tmp_path / "settings.json").read_text())["interpreters"] == [
        str(added)]
    first.close()

    inspector = SteppedInspector()
    inspector.step.set()
    make_window(LiveSystem(), probes=(), framework_inspector=inspector,
                inspect_frameworks=True, settings=SettingsStore(tmp_path / "settings.json"))
    qtbot.waitUntil(lambda: bool(inspector.calls), timeout=5000)
    ((choices, _budget),) = inspector.calls
    assert InterpreterChoice(str(added), "added in gpuscope") in choices


def test_closing_the_window_stops_the_inspection(
    qtbot: Any, make_window: WindowFactory,
) -> None:
    inspector = SteppedInspector()
    window = make_window(LiveSystem(), probes=(), framework_inspector=inspector,
                         inspect_frameworks=True)
    qtbot.waitUntil(lambda: bool(inspector.calls), timeout=5000)
    window.close()
    assert inspector.cancelled.wait(5)  # the workers are told to stop, not waited for


def test_no_inspection_unless_asked(qtbot: Any, make_window: WindowFactory) -> None:
    inspector = SteppedInspector()
    window = make_window(LiveSystem(), probes=(), framework_inspector=inspector)
    qtbot.wait(200)
    assert inspector.calls == [] and not window.doctor.is_inspecting
