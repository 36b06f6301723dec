"""Left region: the filter box and the registry tree (sources → skills)."""
from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, QModelIndex, QPersistentModelIndex, Qt, QTimer, Signal
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QHBoxLayout, QHeaderView, QLabel, QLineEdit,
                               QTreeView, QVBoxLayout, QWidget)

from skillmanager.gui import states
from skillmanager.gui.context import AppContext
from skillmanager.gui.engine import Snapshot
from skillmanager.gui.models.registry_model import Column, RegistryFilterProxy, RegistryModel, Role
from skillmanager.gui.plural import counted


class RegistryPanel(QWidget):
    skill_activated = Signal(object)
    problem_activated = Signal(object)  # core Diagnostic of the selected Problems row, or None

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
        self.filter_edit.returnPressed.connect(self.focus_first_match)
        self.filter_edit.installEventFilter(self)  # Down arrow: from the search box into the results
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
        self.view.setExpandsOnDoubleClick(True)
        header = self.view.header()
        header.setStretchLastSection(False)
        header.setMinimumSectionSize(24)
        header.setSectionResizeMode(Column.Name, QHeaderView.ResizeMode.Stretch)
        # State and Tokens: as wide as their widest possible text (ResizeToContents would measure every
        # row on every change); group rows span all columns, so long source names get the full width
        metrics = self.fontMetrics()
        widest_state = max(metrics.horizontalAdvance(v.label) for v in states.Visual)
        for column, width in ((Column.State, widest_state), (Column.Checks, metrics.horizontalAdvance("Checks") - 6),
                              (Column.Tokens, metrics.horizontalAdvance("Tokens") - 4)):
            # Interactive: a user who wants the longer "(simulated)" state or a wider name can drag
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
            header.resizeSection(column, width + 18)
        self.view.setMinimumWidth(260)
        # spans are kept by persistent index: only new top-level rows need one. Each setFirstColumnSpanned
        # runs the tree's pending layout and looks the row up among every visible row, so spans are set in
        # one pass after a change has inserted all its groups (not once per inserted group), before expanding
        self._span_pending = False
        self.proxy.rowsInserted.connect(self._note_new_groups)
        self.proxy.modelReset.connect(self._note_new_groups)
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

        self._regrouping = False
        self._collapsed: set = set()
        self._known: set = set()
        self.view.collapsed.connect(lambda i: self._collapsed.add(i.data(Role.Identity)))
        self.view.expanded.connect(lambda i: self._collapsed.discard(i.data(Role.Identity)))
        context.snapshot_changed.connect(self.apply_snapshot)
        context.rows_changed.connect(self.apply_rows)
        context.checks_changed.connect(self.model.set_checks)
        context.simulation_changed.connect(self.apply_session)

    # --- model updates -------------------------------------------------------------------------
    def apply_snapshot(self, snapshot: Snapshot) -> None:
        current = QPersistentModelIndex(self.view.currentIndex())
        self._known = set(self.model.group_keys())
        self.model.apply_snapshot(snapshot)
        self._expand_new_groups()
        if current.isValid():
            self.view.scrollTo(QModelIndex(current))
        elif self.context.selected is not None:
            self.select_identity(self.context.selected)
        self._summarise(snapshot)

    def apply_rows(self, snapshot: Snapshot, delta) -> None:
        """Only some rows changed (a file edit): update them in place; regroup when one moved."""
        if not self.model.apply_rows(snapshot, delta.changed):
            self.apply_snapshot(snapshot)
            return
        self._expand_new_groups()

    def apply_session(self, additions) -> None:
        """The simulator added or took back steps: show its discovered / activated skills as simulated."""
        from skillmanager.gui.engine import SESSION_ACTIVATED_KEY, SESSION_DISCOVERED_KEY

        before = set(self.model.group_keys())
        self._known = before
        selected = self.context.selected
        self._regrouping = True  # a row moving between groups must not change what the user selected
        try:
            self.model.set_session(additions)
        finally:
            self._regrouping = False
        self._expand_new_groups()
        if selected is not None:
            self.select_identity(selected)
        for key in (SESSION_DISCOVERED_KEY, SESSION_ACTIVATED_KEY):
            if key not in before and key in self.model.group_keys():  # a new simulated group: bring it into view
                index = self.proxy.mapFromSource(self.model.index_for_identity(key))
                self.view.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtCenter)
                break
        if self.model.snapshot is not None:
            self._summarise(self.model.snapshot)

    def _note_new_groups(self, parent: QModelIndex = QModelIndex(), *_rows) -> None:
        if parent.isValid() or self._span_pending:
            return  # skill rows are never spanned; a pass is already due
        self._span_pending = True
        QTimer.singleShot(0, self._span_groups)  # for changes that do not end in _expand_new_groups

    def _expand_new_groups(self) -> None:
        self._span_groups()
        for row in range(self.proxy.rowCount()):
            index = self.proxy.index(row, 0)
            key = index.data(Role.Identity)
            if key not in self._known and key not in self._collapsed:
                self.view.expand(index)  # new groups open; groups the user closed stay closed
        self._known = set(self.model.group_keys()) | self._known

    def _span_groups(self) -> None:
        if not self._span_pending:
            return
        self._span_pending = False
        for row in range(self.proxy.rowCount()):
            if not self.view.isFirstColumnSpanned(row, QModelIndex()):
                self.view.setFirstColumnSpanned(row, QModelIndex(), True)

    def _summarise(self, snapshot: Snapshot) -> None:
        """Under the tree: what the workspace holds (the status bar says what the app is doing)."""
        skills = snapshot.skills
        registry = snapshot.registry
        conflicts = len(registry.conflicts()) if registry is not None and hasattr(registry, "conflicts") else 0
        waiting = sum(1 for s in skills if s.state.conditional and not s.state.active)
        invalid = sum(1 for s in skills if states.visual_state(s) is states.Visual.INVALID)
        parts = [f"{len(skills)} skills and commands"]
        problem_count = self.model.problem_count()
        if problem_count:
            parts.append(counted(problem_count, "problem"))
        if conflicts:
            parts.append(counted(conflicts, "contested name"))
        if waiting:
            parts.append(f"{waiting} waiting")
        if invalid:
            parts.append(f"{invalid} invalid")
        marks = self.model.simulated_marks()
        if marks:
            found = sum(1 for m in marks.values() if m.how == "discovered")
            active = len(marks) - found
            bits = [f"{found} discovered" if found else "", f"{active} activated" if active else ""]
            parts.append("simulated session: " + ", ".join(b for b in bits if b))
        text = " · ".join(parts)
        problems = "; ".join(snapshot.problems.values())
        self.summary.setText(text + (f" — {problems}" if problems else ""))

    def _on_filter(self, text: str) -> None:
        self._known = set(self.model.group_keys())
        self.proxy.set_text(text)
        self._expand_new_groups()  # groups that come back with the filter open (unless closed by hand)

    def _on_sort(self, choice: int) -> None:
        if choice == 0:
            self.proxy.sort(-1)
        elif choice == 1:
            self.proxy.sort(Column.Name, Qt.SortOrder.AscendingOrder)
        else:
            self.proxy.sort(Column.Tokens, Qt.SortOrder.DescendingOrder)

    def _on_current(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if self._regrouping:
            return
        skill = current.data(Role.Skill) if current.isValid() else None
        self.context.select(skill)
        if skill is not None:
            self.skill_activated.emit(skill)
        self.problem_activated.emit(current.data(Role.Problem) if current.isValid() else None)

    def select_problems(self) -> bool:
        """Bring the Problems group into view and select its first row (the message bar's "Show")."""
        from skillmanager.gui.problems import PROBLEMS_KEY

        group = self.model.index_for_identity(PROBLEMS_KEY)
        if not group.isValid() and self.model.filter_text:
            self.filter_edit.clear()
            group = self.model.index_for_identity(PROBLEMS_KEY)
        if not group.isValid():
            return False
        index = self.proxy.mapFromSource(group)
        self.view.expand(index)
        first = self.proxy.index(0, 0, index)
        target = first if first.isValid() else index
        self.view.selectionModel().setCurrentIndex(
            target, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)
        self.view.scrollTo(target)
        return True

    # --- selection from elsewhere (conflicts panel, tests) -------------------------------------
    def select_identity(self, identity) -> bool:
        source = self.model.index_for_identity(identity)
        if not source.isValid() and self.model.filter_text:  # filtered out: clear the filter so it shows
            self.filter_edit.clear()
            source = self.model.index_for_identity(identity)
        if not source.isValid():
            return False
        index = self.proxy.mapFromSource(source)
        self.view.expand(index.parent())
        self.view.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)
        self.view.scrollTo(index)
        return True

    def select_skill(self, skill) -> bool:
        from skillmanager.gui.engine import skill_identity

        return self.select_identity(skill_identity(skill))

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt API
        from PySide6.QtCore import QEvent

        if (watched is self.filter_edit and event.type() == QEvent.Type.KeyPress
                and event.key() == Qt.Key.Key_Down):
            self.focus_first_match()
            return True
        return super().eventFilter(watched, event)

    def focus_first_match(self) -> None:
        """Enter or Down in the filter box: the first skill shown gets selected and the focus."""
        for row in range(self.proxy.rowCount()):
            group = self.proxy.index(row, 0)
            if self.proxy.rowCount(group):
                index = self.proxy.index(0, 0, group)
                self.view.expand(group)
                self.view.selectionModel().setCurrentIndex(
                    index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)
                self.view.scrollTo(index)
                break
        self.view.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def focus_filter(self) -> None:
        self.filter_edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.filter_edit.selectAll()
