"""The Compare page's "Add a remote machine's results" button: a menu of the remote machines
the window knows (File > Add machine…); choosing one fetches that machine's share report
(`/api/report` of its `gpuscope serve`, `RemoteMachine.fetch_report`) off the GUI thread and
adds its cards, with their measured benchmark results, labelled with the machine's address.

The page gives it its own import path (`add`, as an imported report file goes) and its message
line (`show`); the window's remote machines give it the list (`set_machines`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QMenu, QPushButton, QWidget

from gpuscope.app.remote import RemoteMachine, RemoteStatus
from gpuscope.i18n import localise
from gpuscope.report.compare_import import CompareImport, CompareImportFailure, ImportedReport
from gpuscope.ui.background import BackgroundTask
from gpuscope.ui.widgets import plain_tooltip

AddImported = Callable[[CompareImport], object]
ShowMessage = Callable[..., None]  # (text, *, error=False)


def _no_machines() -> Sequence[RemoteMachine]:
    return ()


class RemoteResults(QObject):
    """The button, its menu and the fetch. `fetch(machine)` is what choosing it in the menu
    does; `fetching` is the machine being fetched, None when idle."""

    def __init__(self, add: AddImported, show: ShowMessage, parent: QWidget) -> None:
        super().__init__(parent)
        self._add = add
        self._show = show
        self._machines: Callable[[], Sequence[RemoteMachine]] = _no_machines
        self.fetching: RemoteMachine | None = None
        # A short text: the picker row must still fit a narrow window.
        self.button = QPushButton(self.tr("Remote results"), parent)
        self.button.setToolTip(plain_tooltip(self.tr(
            "Add a remote machine's results: the GPUs and saved benchmark results of a "
            "machine added with File > Add machine… (its 'gpuscope serve' report).")))
        self.menu = QMenu(self.button)
        self.menu.aboutToShow.connect(self.fill_menu)
        self.button.setMenu(self.menu)
        self._task = BackgroundTask("compare-remote", parent=self)
        self._task.done.connect(self._on_fetched)
        self._task.failed.connect(self._on_failed)

    def set_machines(self, machines: Callable[[], Sequence[RemoteMachine]]) -> None:
        """Where the list comes from: called each time the menu opens."""
        self._machines = machines

    def machines(self) -> Sequence[RemoteMachine]:
        return tuple(self._machines())

    def fill_menu(self) -> None:
        self.menu.clear()
        machines = self.machines()
        if not machines:
            empty = self.menu.addAction(self.tr(
                "No remote machine yet: add one with File > Add machine…"))
            empty.setEnabled(False)
            return
        for machine in machines:
            address = machine.url or machine.address
            text = address if machine.state.status is not RemoteStatus.UNREACHABLE else (
                self.tr("{address} (unreachable)").format(address=address))
            action = self.menu.addAction(text)
            action.setEnabled(self.fetching is None)
            action.triggered.connect(lambda _checked=False, m=machine: self.fetch(m))

    def fetch(self, machine: RemoteMachine) -> None:
        """Fetch `machine`'s report off the GUI thread; its cards are added when it comes."""
        if self.fetching is not None:
            return
        self.fetching = machine
        self.button.setEnabled(False)
        self._show(self.tr("Fetching the results of {address}…").format(
            address=machine.url or machine.address))
        self._task.start(machine.fetch_report)

    @property
    def is_fetching(self) -> bool:
        return self.fetching is not None

    def _done(self) -> None:
        self.fetching = None
        self.button.setEnabled(True)

    def _on_fetched(self, outcome: object) -> None:
        self._done()
        if isinstance(outcome, CompareImportFailure):
            self._add(CompareImportFailure(localise(outcome.reason)))
        elif isinstance(outcome, ImportedReport):
            self._add(outcome)

    def _on_failed(self, reason: str) -> None:
        machine = self.fetching
        self._done()
        address = machine.url if machine is not None else ""
        self._add(CompareImportFailure(f"{address}: {reason}"))
