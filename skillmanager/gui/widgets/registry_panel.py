"""Left region: the filter box and the registry tree (sources → skills)."""
from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QHBoxLayout, QHeaderView, QLabel, QLineEdit,
                               QTreeView, QVBoxLayout, QWidget)

from skillmanager.gui.context import AppContext
from skillmanager.gui.engine import Snapshot
from skillmanager.gui.models.registry_model import Column, RegistryFilterProxy, RegistryModel, Role


class RegistryPanel(QWidget):
    skill_activated = Signal(object)

    def __init__(self, context: AppContext, parent=None):
        super().__init__(parent)
        self.context = context
        self.model = RegistryModel(self)
        self.proxy = RegistryFilterProxy(self)
        self.proxy.setSourceModel(self.model)

        self.filter_edit = QLineEdit(self)
        self.filter_edit.setPlaceholderText("Filter skills (Ctrl+F)")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.textChanged.connect(self._on_filter)
        self.sort_combo = QComboBox(self)
        self.sort_combo.addItems(["Load order", "Name", "Tokens"])
        self.sort_combo.setToolTip("Sort skills inside each source")
        self.sort_combo.currentIndexChanged.connect(self._on_sort)

        self.view = QTreeView(self)
        self.view.setModel(self.proxy)
        self.view.setUniformRowHeights(True)
        self.view.setAlternatingRowColors(True)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setAllColumnsShowFocus(True)
        header = self.view.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(Column.Name, QHeaderView.ResizeMode.Stretch)
        # fixed widths from the font: ResizeToContents would measure every row on every change
        metrics = self.fontMetrics()
        for column, sample in ((Column.State, "Hidden from Claude"), (Column.Tokens, "00000")):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
            header.resizeSection(column, metrics.horizontalAdvance(sample) + 24)
        self.view.selectionModel().currentChanged.connect(self._on_current)

        self.summary = QLabel(self)
        self.summary.setWordWrap(True)

        top = QHBoxLayout()
        top.addWidget(self.filter_edit, 1)
        top.addWidget(self.sort_combo)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.summary)

        self._collapsed: set = set()
        self.view.collapsed.connect(lambda i: self._collapsed.add(i.data(Role.Identity)))
        self.view.expanded.connect(lambda i: self._collapsed.discard(i.data(Role.Identity)))
        context.snapshot_changed.connect(self.apply_snapshot)

    # --- model updates -------------------------------------------------------------------------
    def apply_snapshot(self, snapshot: Snapshot) -> None:
        current = QPersistentModelIndex(self.view.currentIndex())
        known = set(self.model.group_keys())
        self.model.apply_snapshot(snapshot)
        for row in range(self.proxy.rowCount()):
            index = self.proxy.index(row, 0)
            key = index.data(Role.Identity)
            if key not in known and key not in self._collapsed:
                self.view.expand(index)  # new groups open; groups the user closed stay closed
        if current.isValid():
            self.view.scrollTo(QModelIndex(current))
        elif self.context.selected is not None:
            self.select_identity(self.context.selected)
        count = sum(1 for _ in snapshot.skills)
        problems = "; ".join(snapshot.problems.values())
        self.summary.setText(f"{count} skills and commands" + (f" — {problems}" if problems else ""))

    def _on_filter(self, text: str) -> None:
        self.proxy.set_text(text)
        if text:
            self.view.expandAll()

    def _on_sort(self, choice: int) -> None:
        if choice == 0:
            self.proxy.sort(-1)
        elif choice == 1:
            self.proxy.sort(Column.Name, Qt.SortOrder.AscendingOrder)
        else:
            self.proxy.sort(Column.Tokens, Qt.SortOrder.DescendingOrder)

    def _on_current(self, current: QModelIndex, _previous: QModelIndex) -> None:
        skill = current.data(Role.Skill) if current.isValid() else None
        self.context.select(skill)
        if skill is not None:
            self.skill_activated.emit(skill)

    # --- selection from elsewhere (conflicts panel, tests) -------------------------------------
    def select_identity(self, identity) -> bool:
        source = self.model.index_for_identity(identity)
        if not source.isValid():
            return False
        index = self.proxy.mapFromSource(source)
        if not index.isValid():  # filtered out: clear the filter so the user sees it
            self.filter_edit.clear()
            index = self.proxy.mapFromSource(source)
        self.view.expand(index.parent())
        self.view.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)
        self.view.scrollTo(index)
        return True

    def select_skill(self, skill) -> bool:
        from skillmanager.gui.engine import skill_identity

        return self.select_identity(skill_identity(skill))

    def focus_filter(self) -> None:
        self.filter_edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.filter_edit.selectAll()
