"""Tools ▸ Check with my Claude Code: runs core.verify on the shown workspace off the UI thread and shows its
report (the text `skillmanager verify` prints), ready to copy into a bug report."""
from __future__ import annotations

import shutil
import threading
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QFileDialog, QHBoxLayout, QLabel, QLineEdit, QListWidget,
                               QPlainTextEdit, QPushButton, QVBoxLayout)

from skillmanager.core.verify.runner import DIFFERS, MATCHES, options_for_workspace, run_verify

INTRO = ("Runs your installed Claude Code against a fake API on this computer and compares what it sends — the "
         "skill listing, and what each file below reveals when it is read — with skillmanager's prediction. "
         "It runs with a throwaway home, cleaned settings copies and no network where the system allows it; "
         "the report says which protections applied.")
VERDICT = {MATCHES: "Everything matches.", DIFFERS: "Differences found: the report below is a bug report.",
           "cannot-run": "Could not run safely:"}


class _Done(QObject):
    finished = Signal(object)  # VerifyReport


class VerifyDialog(QDialog):
    def __init__(self, workspace, parent=None, *, use_namespaces: bool = True):
        super().__init__(parent)
        self.setWindowTitle("Check with my Claude Code")
        self.workspace = workspace
        self.use_namespaces = use_namespaces
        self.report = None
        self._done = _Done(self)
        self._done.finished.connect(self._show_report)
        intro = QLabel(INTRO, self)
        intro.setWordWrap(True)
        self.claude_edit = QLineEdit(shutil.which("claude") or "", self)
        self.claude_edit.setPlaceholderText("path to claude (native binary or cli.js)")
        browse = QPushButton("Browse…", self)
        browse.clicked.connect(self._browse_claude)
        claude_row = QHBoxLayout()
        claude_row.addWidget(QLabel("Claude Code:", self))
        claude_row.addWidget(self.claude_edit, 1)
        claude_row.addWidget(browse)
        self.reads = QListWidget(self)
        add, remove = QPushButton("Add files to read…", self), QPushButton("Remove", self)
        add.clicked.connect(self._add_reads)
        remove.clicked.connect(lambda: [self.reads.takeItem(self.reads.row(i)) for i in self.reads.selectedItems()])
        read_row = QHBoxLayout()
        read_row.addWidget(add)
        read_row.addWidget(remove)
        read_row.addStretch(1)
        self.run_button = QPushButton("Run check", self)
        self.run_button.clicked.connect(self.start)
        self.status = QLabel("", self)
        self.status.setWordWrap(True)
        self.output = QPlainTextEdit(self)
        self.output.setReadOnly(True)
        self.output.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.copy_button = buttons.addButton("Copy report", QDialogButtonBox.ButtonRole.ActionRole)
        self.copy_button.setEnabled(False)
        self.copy_button.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.output.toPlainText()))
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        for widget in (intro,):
            layout.addWidget(widget)
        layout.addLayout(claude_row)
        layout.addWidget(QLabel("Files the fake model reads, in order:", self))
        layout.addWidget(self.reads)
        layout.addLayout(read_row)
        layout.addWidget(self.run_button)
        layout.addWidget(self.status)
        layout.addWidget(self.output, 1)
        layout.addWidget(buttons)
        self.resize(900, 700)

    def _browse_claude(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Claude Code executable or cli.js")
        if path:
            self.claude_edit.setText(path)

    def _add_reads(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Files to read", str(self.workspace.cwd))
        self.add_reads(paths)

    def add_reads(self, paths) -> None:
        for path in paths:
            self.reads.addItem(str(Path(path)))

    def start(self) -> threading.Thread:
        reads = [self.reads.item(i).text() for i in range(self.reads.count())]
        options = options_for_workspace(self.workspace, claude=self.claude_edit.text().strip() or None, reads=reads,
                                        use_namespaces=self.use_namespaces)
        self.run_button.setEnabled(False)
        self.copy_button.setEnabled(False)
        self.status.setText("Running Claude Code in the sandbox (10–20 s)…")
        self.output.clear()
        worker = threading.Thread(target=lambda: self._done.finished.emit(run_verify(options)), daemon=True,
                                  name="verify")
        worker.start()
        return worker

    def _show_report(self, report) -> None:
        self.report = report
        verdict = VERDICT.get(report.status, report.status)
        self.status.setText(verdict + (f" {report.reason}" if report.reason else ""))
        self.output.setPlainText("\n".join(report.lines()))
        self.run_button.setEnabled(True)
        self.copy_button.setEnabled(True)
