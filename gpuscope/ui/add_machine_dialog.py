"""File > Add machine…: the address of another machine's `gpuscope serve`, with the bearer
token and the CA file it needs, if any."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from gpuscope.app.remote import RemoteError, normalise_url
from gpuscope.app.settings import RemoteMachineSetting
from gpuscope.i18n import localise


class AddMachineDialog(QDialog):
    """Asks for an address ("http://host:9840" or "https://…"), an optional token and an
    optional CA file; `machine()` is what was entered once it is accepted."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Add machine"))
        column = QVBoxLayout(self)
        intro = QLabel(self.tr(
            "Show another machine's GPUs, doctor answer and telemetry from its "
            "'gpuscope serve' (started there with --listen and --token or TLS)."))
        intro.setWordWrap(True)
        column.addWidget(intro)
        form = QFormLayout()
        self.address_edit = QLineEdit()
        self.address_edit.setPlaceholderText("http://192.168.1.20:9840")
        form.addRow(self.tr("Address:"), self.address_edit)
        self.token_edit = QLineEdit()
        self.token_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.token_edit.setPlaceholderText(self.tr("none"))
        form.addRow(self.tr("Token:"), self.token_edit)
        ca_row = QHBoxLayout()
        self.ca_edit = QLineEdit()
        self.ca_edit.setPlaceholderText(self.tr("the system's certificates"))
        browse = QPushButton(self.tr("Browse…"))
        browse.clicked.connect(self._browse_ca)
        ca_row.addWidget(self.ca_edit, 1)
        ca_row.addWidget(browse)
        form.addRow(self.tr("CA file (https):"), ca_row)
        column.addLayout(form)
        self.error_label = QLabel()
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet("color: #c0392b;")
        self.error_label.hide()
        column.addWidget(self.error_label)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        column.addWidget(self.buttons)
        self._machine: RemoteMachineSetting | None = None

    def machine(self) -> RemoteMachineSetting | None:
        return self._machine

    def accept(self) -> None:
        try:
            url = normalise_url(self.address_edit.text())
        except RemoteError as exc:
            self.error_label.setText(localise(str(exc.args[0])))
            self.error_label.show()
            return
        self._machine = RemoteMachineSetting(url, self.token_edit.text().strip() or None,
                                             self.ca_edit.text().strip() or None)
        super().accept()

    def _browse_ca(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("CA certificate"), "",
            self.tr("Certificates (*.pem *.crt);;All files (*)"))
        if path:
            self.ca_edit.setText(path)
