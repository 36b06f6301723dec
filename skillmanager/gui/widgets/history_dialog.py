"""Edit > History: every change the CLI and the app wrote (core's journal in the app data dir), each with
its backup; a restorable one can be put back. Expired entries stay listed as "no longer restorable"."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QHBoxLayout, QLabel, QPushButton, QTreeWidget,
                               QTreeWidgetItem, QVBoxLayout)

from skillmanager.gui.context import AppContext


class HistoryDialog(QDialog):
    def __init__(self, context: AppContext, parent=None):
        super().__init__(parent)
        self.context = context
        self.setWindowTitle("History of changes")
        self.resize(820, 420)
        self.tree = QTreeWidget(self)
        self.tree.setAccessibleName("Changes")
        self.tree.setHeaderLabels(["When", "Change", "Files", "Restorable"])
        self.tree.setRootIsDecorated(False)
        self.tree.currentItemChanged.connect(lambda *_: self._update_buttons())
        self.note = QLabel(self)
        self.note.setWordWrap(True)
        self.restore_button = QPushButton("Restore the files as they were before", self)
        self.restore_button.setAccessibleName("Restore the selected change")
        self.restore_button.clicked.connect(self.restore_selected)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.close)
        row = QHBoxLayout()
        row.addWidget(self.restore_button)
        row.addStretch(1)
        row.addWidget(buttons)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.note)
        layout.addLayout(row)
        self.entries = []
        self.reload()

    def reload(self) -> None:
        from skillmanager.core.edit import history

        journal = history.load_journal()
        self.entries = list(reversed(journal.entries))  # newest first
        self.tree.clear()
        for entry in self.entries:
            files = "\n".join(f.path + (f" (backup: {f.backup})" if f.backup else " (created by the change)")
                              for f in entry.files)
            restorable = "yes" if entry.restorable else f"no longer restorable ({entry.expired_reason or 'expired'})"
            item = QTreeWidgetItem([entry.when.astimezone().strftime("%Y-%m-%d %H:%M:%S"), entry.summary,
                                    ", ".join(f.path for f in entry.files), restorable])
            item.setToolTip(2, files)
            item.setToolTip(1, entry.summary)
            item.setData(0, Qt.ItemDataRole.UserRole, entry.id)
            self.tree.addTopLevelItem(item)
        for column in range(3):
            self.tree.resizeColumnToContents(column)
        if self.entries:
            self.tree.setCurrentItem(self.tree.topLevelItem(0))
        self.note.setText("; ".join(journal.diagnostics) if journal.diagnostics else
                          f"{len(self.entries)} changes. Backups live in the app's data folder, never beside "
                          "your files.")
        self._update_buttons()

    def _selected(self):
        item = self.tree.currentItem()
        if item is None:
            return None
        entry_id = item.data(0, Qt.ItemDataRole.UserRole)
        return next((e for e in self.entries if e.id == entry_id), None)

    def _update_buttons(self) -> None:
        entry = self._selected()
        self.restore_button.setEnabled(entry is not None and entry.restorable)

    def restore_selected(self) -> bool:
        from skillmanager.core.edit import history

        entry = self._selected()
        if entry is None:
            return False
        try:
            new = history.restore(entry.id)
        except history.HistoryError as error:
            self.note.setText(f"Not restored: {error}")
            return False
        for change in new.files:
            self.context.remember_write(change.path, None)
        self.context.refresh([f.path for f in new.files])
        self.reload()
        self.note.setText(f"Restored: {entry.summary}")
        return True
