"""Update: the diff from the recorded commit to the repository's newest, the re-audit and the listing
change, then Apply (the same gate as an install)."""
from __future__ import annotations

from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (QCheckBox, QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QSplitter,
                               QTextBrowser, QVBoxLayout)
from PySide6.QtCore import Qt

from skillmanager.gui.widgets.install_dialog import preview_html


class UpdateDialog(QDialog):
    def __init__(self, controller, plan, parent=None):
        super().__init__(parent)
        self.controller, self.plan = controller, plan
        self.setWindowTitle(f"Update {plan.skill_dir.name}")
        self.resize(900, 700)
        head = QLabel(self)
        head.setWordWrap(True)
        head.setText(f"{plan.provenance.source}: {plan.provenance.commit[:12]} → {plan.new_commit[:12]}"
                     + ("  (up to date)" if plan.up_to_date else ""))
        self.diff_view = QPlainTextEdit(self)
        self.diff_view.setReadOnly(True)
        self.diff_view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.diff_view.setPlainText("".join(d.diff or f"{d.status} {d.path}\n" for d in plan.diff) or "No change.")
        self.browser = QTextBrowser(self)
        if plan.preview is not None:
            self.browser.setHtml(preview_html(plan.preview))
        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.addWidget(self.diff_view)
        splitter.addWidget(self.browser)
        gate = plan.preview.gate if plan.preview else "ok"
        self.confirm_box = QCheckBox("I have read the high findings and want to update", self)
        self.override_box = QCheckBox("Override: update despite the critical finding (recorded in History)", self)
        self.confirm_box.setVisible(gate == "confirm")
        self.override_box.setVisible(gate == "blocked")
        self.buttons = QDialogButtonBox(self)
        self.apply_button = self.buttons.addButton("Apply update", QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.apply_button.clicked.connect(self.apply)
        self.buttons.rejected.connect(self.reject)
        for box in (self.confirm_box, self.override_box):
            box.toggled.connect(self._update_buttons)
        layout = QVBoxLayout(self)
        layout.addWidget(head)
        layout.addWidget(splitter, 1)
        layout.addWidget(self.confirm_box)
        layout.addWidget(self.override_box)
        layout.addWidget(self.buttons)
        self._applied = False
        self._update_buttons()

    def _update_buttons(self) -> None:
        preview = self.plan.preview
        if preview is None:
            self.apply_button.setEnabled(False)
            return
        gate = preview.gate
        self.apply_button.setEnabled(gate == "ok" or (gate == "confirm" and self.confirm_box.isChecked())
                                     or (gate == "blocked" and self.override_box.isChecked()))

    def apply(self) -> None:
        self._applied = True
        self.controller.apply_update(self.plan, confirm_high=self.confirm_box.isChecked(),
                                     force=self.override_box.isChecked(), done=lambda _r: self.accept())

    def done(self, code: int) -> None:
        if not self._applied:
            self.plan.cleanup()
        super().done(code)
