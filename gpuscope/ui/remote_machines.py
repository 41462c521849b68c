"""Other machines in the window: File > Add machine…, a machine selector ("This machine" and
each `gpuscope serve` added), and showing the chosen remote machine on the Overview, Stack and
Telemetry pages, with a "Remote: <address>" banner.

Each added machine is polled by its own `gpuscope.app.remote.RemoteMachine` thread; this
controller reads them on a GUI timer (never blocking on the network) and redraws only what
changed. An unreachable machine keeps what it last showed, says why in the selector and the
banner, and comes back by itself.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QAction, QColor
from PySide6.QtWidgets import QComboBox, QSizePolicy

from gpuscope.app.remote import (
    RemoteDoctor,
    RemoteFeed,
    RemoteMachine,
    RemoteStatus,
    empty_doctor,
)
from gpuscope.app.settings import RemoteMachineSetting
from gpuscope.doctor.inputs import DoctorInput
from gpuscope.i18n import localise
from gpuscope.ui.add_machine_dialog import AddMachineDialog
from gpuscope.ui.doctor_loader import Diagnosis

if TYPE_CHECKING:
    from gpuscope.ui.main_window import MainWindow

REFRESH_MS = 500
REMOTE_BANNER_BACKGROUND = QColor("#9ecbff")
UNREACHABLE_BANNER_BACKGROUND = QColor("#f4a6a6")


def remote_diagnosis(doctor: RemoteDoctor, address: str | None = None) -> Diagnosis:
    """The pages' Diagnosis of a remote doctor document, with that machine's own findings."""
    data = DoctorInput(doctor.inventory, doctor.frameworks, (), doctor.interpreters,
                       llm_runtimes=doctor.llm_runtimes)
    return Diagnosis(data, doctor.findings, remote=address)


class RemoteMachines(QObject):
    """The window's remote machines: the selector, the Add action, and what is on show."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.machines: list[RemoteMachine] = []
        self.selector = QComboBox()
        self.selector.setObjectName("machineSelector")
        self.selector.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.selector.setMinimumContentsLength(10)
        self.selector.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.selector.setToolTip(self.tr("Which machine the Overview, Stack and Telemetry "
                                         "pages show"))
        self.selector.addItem(self.tr("This machine"))
        self.add_action = QAction(self.tr("Add &machine…"), window)
        self.add_action.setIconText(self.tr("Add machine…"))
        self.add_action.setToolTip(self.tr(
            "Show another machine's GPUs from its 'gpuscope serve'"))
        self.add_action.triggered.connect(self.open_add_dialog)
        window.file_menu.insertAction(window.back_action, self.add_action)
        window.toolbar.insertWidget(window.toolbar.actions()[0], self.selector)
        self._shown: RemoteMachine | None = None
        self._shown_changes = -1
        self._shown_generation = -1
        self._shown_doctor: RemoteDoctor | None = None
        self._dialog: AddMachineDialog | None = None
        for saved in window.settings.remote_machines:
            self._add(saved)
        # The Compare page lists these machines to take their measured results.
        window.compare_page.remote_results.set_machines(lambda: tuple(self.machines))
        self.selector.currentIndexChanged.connect(self._on_selected)
        # This machine's pages change when its probes or doctor finish: a remote machine on
        # show is drawn again over them (these run after the window's own slots).
        window.loader.inventory_changed.connect(self._on_local_change)
        window.doctor.diagnosis_changed.connect(self._on_local_change)
        self.timer = QTimer(self)
        self.timer.setInterval(REFRESH_MS)
        self.timer.timeout.connect(self.refresh)
        self.timer.start()

    @property
    def showing(self) -> RemoteMachine | None:
        """The remote machine on show; None for this machine."""
        return self._shown

    def open_add_dialog(self) -> AddMachineDialog:
        if self._dialog is None:
            self._dialog = AddMachineDialog(self.window)
            self._dialog.accepted.connect(self._on_dialog_accepted)
        self._dialog.open()
        return self._dialog

    def add_machine(self, setting: RemoteMachineSetting, *, select: bool = True,
                    save: bool = True) -> RemoteMachine:
        """Poll `setting`'s machine, list it in the selector (and the settings), and show it."""
        existing = next((m for m in self.machines if m.url == setting.url), None)
        machine = existing or self._add(setting)
        if save and existing is None:
            window = self.window
            kept = tuple(m for m in window.settings.remote_machines if m.url != setting.url)
            window._put_settings(dataclasses.replace(
                window.settings, remote_machines=(*kept, setting)))
            window.save_settings()
        if select:
            self.selector.setCurrentIndex(self.machines.index(machine) + 1)
        return machine

    def select(self, machine: RemoteMachine | None) -> None:
        self.selector.setCurrentIndex(0 if machine is None else self.machines.index(machine) + 1)

    def shutdown(self) -> None:
        self.timer.stop()
        for machine in self.machines:
            machine.stop(0.5)

    # ------------------------------------------------------------------ internals

    def _add(self, setting: RemoteMachineSetting) -> RemoteMachine:
        machine = RemoteMachine(setting.url, setting.token, setting.ca_file)
        self.machines.append(machine)
        self.selector.addItem(self._item_text(machine))
        machine.start()
        return machine

    def _on_dialog_accepted(self) -> None:
        if self._dialog is not None and (setting := self._dialog.machine()) is not None:
            self.add_machine(setting)

    def _item_text(self, machine: RemoteMachine) -> str:
        state = machine.state
        name = machine.url or machine.address
        if state.status is RemoteStatus.UNREACHABLE:
            return self.tr("{address} (unreachable)").format(address=name)
        if state.status is RemoteStatus.CONNECTING:
            return self.tr("{address} (connecting)").format(address=name)
        return name

    def _state_text(self, machine: RemoteMachine) -> str:
        state = machine.state
        if state.status is RemoteStatus.UNREACHABLE:
            return self.tr("unreachable: {reason}; trying again by itself").format(
                reason=localise(state.reason or ""))
        if state.status is RemoteStatus.CONNECTING:
            return self.tr("connecting…")
        return self.tr("connected")

    def refresh(self) -> None:
        """Sync the selector's texts and redraw the machine on show if it changed."""
        for row, listed in enumerate(self.machines, start=1):
            text = self._item_text(listed)
            if self.selector.itemText(row) != text:
                self.selector.setItemText(row, text)
            reason = listed.state.reason if listed.state.status is (
                RemoteStatus.UNREACHABLE) else None
            self.selector.setItemData(row, localise(reason) if reason else None,
                                      Qt.ItemDataRole.ToolTipRole)
        shown = self._shown
        if shown is None or shown.changes == self._shown_changes:
            return
        self._shown_changes = shown.changes
        self._show_remote(shown)

    def _on_local_change(self, _value: object) -> None:
        machine = self._shown
        if machine is None:
            return
        if self.window.doctor.imported is not None:  # imported outputs take the pages over
            self._shown = None
            self.selector.blockSignals(True)
            self.selector.setCurrentIndex(0)
            self.selector.blockSignals(False)
            return
        self._shown_doctor = None
        self._show_remote(machine)

    def _on_selected(self, row: int) -> None:
        machine = self.machines[row - 1] if 1 <= row <= len(self.machines) else None
        if machine is self._shown:
            return
        self._shown = machine
        self._shown_changes = -1
        self._shown_generation = -1
        self._shown_doctor = None
        if machine is None:
            self._show_local()
            return
        machine.retry_now()
        self._show_remote(machine)

    def _show_remote(self, machine: RemoteMachine) -> None:
        window = self.window
        state = machine.state
        window.banner.setText(self.tr("Remote: {address}, {state}").format(
            address=machine.url or machine.address, state=self._state_text(machine)))
        window.banner.setToolTip(machine.url)
        window._set_banner_color(UNREACHABLE_BANNER_BACKGROUND
                                 if state.status is RemoteStatus.UNREACHABLE
                                 else REMOTE_BANNER_BACKGROUND)
        window.banner.setVisible(True)
        window.banner_row.setVisible(True)
        window.banner_back_button.setVisible(False)
        window.setWindowTitle(self.tr("gpuscope — {address}").format(
            address=machine.url or machine.address))
        # Until its doctor document comes, none of this machine's GPUs stay on show.
        doctor = machine.doctor or self._shown_doctor or empty_doctor(machine.url)
        if doctor is not self._shown_doctor:
            self._shown_doctor = doctor
            diagnosis = remote_diagnosis(doctor, machine.url or machine.address)
            window.overview_page.set_inventory(doctor.inventory, ())
            window.overview_page.set_diagnosis(diagnosis)
            window.stack_page.set_diagnosis(diagnosis)
        generation = machine.rings_generation
        if generation != self._shown_generation:
            self._shown_generation = generation
            window.telemetry_page.set_feed(RemoteFeed(machine, self.tr(
                "Remote: {address}").format(address=machine.url or machine.address)))

    def _show_local(self) -> None:
        window = self.window
        window.show_live()  # this machine's inventory, diagnosis and banner
        sampler = window.session.sampler
        window._showing_recording = False  # the remote feed took the place of any recording
        if sampler is not None:
            window._on_sampler_ready(sampler)
        else:
            window.telemetry_page.set_feed(None)
