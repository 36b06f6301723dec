"""History…: every change skillmanager made (toggles, installs, renames, moves, deletes, updates), newest
first, each with its backup; Restore puts a change's files back (core/edit/history.py, on a worker thread;
refused when a file changed since). Expired entries stay listed as "no longer restorable"."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QHeaderView, QLabel, QTreeWidget, QTreeWidgetItem,
                               QVBoxLayout)

from skillmanager.gui.plural import counted


class HistoryDialog(QDialog):
    def __init__(self, context, controller, parent=None):
        super().__init__(parent)
        self.context, self.controller = context, controller
        self.setWindowTitle("History of changes")
        self.resize(900, 480)
        self.tree = QTreeWidget(self)
        self.tree.setAccessibleName("Changes")
        self.tree.setHeaderLabels(["When", "Change", "Summary", "Files", "Restorable"])
        self.tree.setRootIsDecorated(False)
        self.tree.setColumnWidth(0, 150)
        self.tree.setColumnWidth(1, 80)
        self.tree.setColumnWidth(2, 320)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # file paths differ at their ends
        self.tree.header().setStretchLastSection(False)
        self.tree.header().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)  # the summary takes the room
        self.tree.setColumnWidth(3, 220)
        self.tree.currentItemChanged.connect(lambda *_: self._update_buttons())
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self.buttons = QDialogButtonBox(self)
        self.restore_button = self.buttons.addButton("Restore the files as they were before",
                                                     QDialogButtonBox.ButtonRole.ActionRole)
        self.restore_button.setAccessibleName("Restore the selected change")
        self.restore_button.clicked.connect(self.restore_selected)
        self.buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.status)
        layout.addWidget(self.buttons)
        controller.failed.connect(self._on_failed)
        self.reload()

    def reload(self) -> None:
        def work():
            from skillmanager.core.edit import history

            return history.load_journal()

        self.context.tasks.run(("history", "load"), work, self._show)

    def _show(self, journal) -> None:
        self.tree.clear()
        entries = list(reversed(journal.entries))  # newest first
        for entry in entries:
            restorable = "yes" if entry.restorable else (entry.expired_reason or "no longer restorable")
            item = QTreeWidgetItem([entry.when.astimezone().strftime("%Y-%m-%d %H:%M:%S"), entry.action,
                                    entry.summary, ", ".join(c.path for c in entry.files[:3])
                                    + (f" and {len(entry.files) - 3} more" if len(entry.files) > 3 else ""),
                                    restorable])
            item.setData(0, Qt.ItemDataRole.UserRole, entry.id)
            item.setToolTip(2, entry.summary)
            item.setToolTip(3, "\n".join(c.path + (f" (backup: {c.backup})" if c.backup else " (created by the change)")
                                         for c in entry.files[:20]))
            if not entry.restorable:
                item.setDisabled(True)
            self.tree.addTopLevelItem(item)
        self.status.setText("; ".join(journal.diagnostics) if journal.diagnostics else
                            f"{counted(len(entries), 'change')}. Backups live in the app's data folder, never beside your files.")
        if self.tree.topLevelItemCount():
            self.tree.setCurrentItem(self.tree.topLevelItem(0))
        self._update_buttons()

    def _update_buttons(self) -> None:
        item = self.tree.currentItem()
        self.restore_button.setEnabled(item is not None and not item.isDisabled())

    def select_entry(self, entry_id: str) -> bool:
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            if item.data(0, Qt.ItemDataRole.UserRole) == entry_id:
                self.tree.setCurrentItem(item)
                return True
        return False

    def restore_selected(self) -> None:
        item = self.tree.currentItem()
        if item is None:
            return
        self.controller.restore(item.data(0, Qt.ItemDataRole.UserRole), done=self._on_restored)

    def _on_restored(self, result) -> None:
        self.status.setText(result.summary)
        self.reload()

    def _on_failed(self, error: str) -> None:
        self.status.setText(error)

    def done(self, code: int) -> None:
        try:
            self.controller.failed.disconnect(self._on_failed)
        except (RuntimeError, TypeError):
            pass
        super().done(code)
