"""The Benchmarks page's default interpreter: the inspected one whose PyTorch can use the GPU (a
GPU build first, then a CPU build), chosen as `gpuscope bench` chooses it
(`gpuscope.bench.interpreter`), off the GUI thread; or, when none has PyTorch, the same one
line naming the install command. Over this machine it is chosen when the page is first shown;
over a replay (screenshots, another machine's files) only when a Run button asks for it."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from gpuscope.bench.interpreter import BenchInterpreter, BenchInterpreters, choose, install_line
from gpuscope.evidence import LiveSystem
from gpuscope.inventory import FrameworkInspection
from gpuscope.model import Inventory
from gpuscope.ui.background import BackgroundTask

# Called with gpuscope's own interpreter, off the GUI thread.
InterpreterPicker = Callable[[str], BenchInterpreter]


def live_pick(current_python: str) -> BenchInterpreter:
    """This machine's default interpreters, inspected (about 20 s at most), and the choice."""
    return BenchInterpreters(LiveSystem(), current_python).choose("auto")


def pick_from(inspection: FrameworkInspection, inventory: Inventory) -> BenchInterpreter:
    """The choice among interpreters already inspected (the doctor's live inspection)."""
    pick = choose(inspection, inventory.gpus)
    if pick.python is not None:
        return pick
    return choose(inspection, inventory.gpus, "auto", install_line(inventory, inspection))


class DefaultInterpreter(QObject):
    """Runs the picker once, in the background, and says `picked(BenchInterpreter)`; a choice
    made from an inspection given (`use`) replaces it."""

    picked = Signal(object)

    def __init__(self, picker: InterpreterPicker | None, current_python: str,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._picker = picker
        self._python = current_python
        self._started = False
        self.pick: BenchInterpreter | None = None
        self._pending: Callable[[], None] | None = None  # a run waiting for the choice
        self._task = BackgroundTask("bench-interpreter", self)
        self._task.done.connect(self._on_done)
        self._task.failed.connect(self._on_failed)

    @property
    def is_running(self) -> bool:
        return self._task.is_running

    def start(self) -> None:
        """Choose once (later calls do nothing); nothing without a picker."""
        if self._started or self._picker is None:
            return
        self._started = True
        self._task.start(self._picker, self._python)

    def after_pick(self, action: Callable[[], None]) -> bool:
        """Do `action` once the default is chosen (choosing it now if need be); False, and
        nothing kept, when it is chosen already or there is no picker."""
        if self.pick is not None or self._picker is None:
            return False
        self._pending = action
        self.start()
        return True

    def use(self, pick: BenchInterpreter) -> None:
        self._started = True
        self._task.cancel()
        self._on_done(pick)

    def cancel(self) -> None:
        self._pending = None
        self._task.cancel()

    def _on_done(self, pick: object) -> None:
        if isinstance(pick, BenchInterpreter):
            self.pick = pick
            self.picked.emit(pick)
            pending, self._pending = self._pending, None
            if pending is not None:
                pending()

    def _on_failed(self, message: str) -> None:
        self._on_done(BenchInterpreter(None, self.tr("choosing an interpreter failed: {message}")
                                       .format(message=message)))
