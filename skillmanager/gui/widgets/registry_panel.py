"""Left region: the filter box and the registry tree (sources → skills)."""
from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, QModelIndex, QPersistentModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication, QPalette
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QFrame, QHBoxLayout, QHeaderView, QLabel, QLineEdit,
                               QMenu, QPushButton, QStyle, QStyledItemDelegate, QStyleOptionViewItem, QToolButton,
                               QTreeView, QVBoxLayout, QWidget)

from skillmanager.core.rules.buckets import Bucket
from skillmanager.gui import states
from skillmanager.gui.context import AppContext
from skillmanager.gui.engine import Snapshot
from skillmanager.gui.models.registry_model import Column, RegistryFilterProxy, RegistryModel, Role
from skillmanager.gui.plural import counted
from skillmanager.gui.widgets.flow_layout import FlowLayout


NAME_GAP = "\u2002"  # between a skill's name and its description in the Name column


class NameDelegate(QStyledItemDelegate):
    """The name in full where it fits, else elided in the middle (look-alike names differ at both ends);
    the first line of the description after it, dimmer."""

    def paint(self, painter, option, index) -> None:
        text = index.data(Qt.ItemDataRole.DisplayRole) or ""
        if index.data(Role.IsGroup) or NAME_GAP not in text:
            super().paint(painter, option, index)
            return
        name, description = text.split(NAME_GAP, 1)
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        style = opt.widget.style() if opt.widget else QGuiApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        rect = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, opt, opt.widget)
        metrics = opt.fontMetrics
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        palette = opt.palette
        painter.save()
        painter.setFont(opt.font)
        painter.setPen(palette.color(QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text))
        shown_name = metrics.elidedText(name, Qt.TextElideMode.ElideMiddle, rect.width())
        painter.drawText(rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), shown_name)
        used = metrics.horizontalAdvance(shown_name) + metrics.horizontalAdvance("  ")
        rest = rect.adjusted(used, 0, 0, 0)
        if rest.width() > metrics.horizontalAdvance("…") * 4:
            dim = palette.color(QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.PlaceholderText)
            painter.setPen(dim)
            painter.drawText(rest, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                             metrics.elidedText(description, Qt.TextElideMode.ElideRight, rest.width()))
        painter.restore()


class RegistryPanel(QWidget):
    skill_activated = Signal(object)
    problem_activated = Signal(object)  # core Diagnostic of the selected Problems row, or None
    switch_requested = Signal(object, bool)  # (list of skills, turn on): row switch, Space, context menu
    remedy_requested = Signal(object)  # core BudgetRemedy: the budget banner's button
    show_in_listing = Signal(object)  # a skill: the context menu's "Show in listing"

    def __init__(self, context: AppContext, parent=None):
        super().__init__(parent)
        self.context = context
        self.model = RegistryModel(self)
        self.proxy = RegistryFilterProxy(self)
        self.proxy.setSourceModel(self.model)

        self.filter_edit = QLineEdit(self)
        self.filter_edit.setPlaceholderText("Filter skills (Ctrl+F)")
        self.filter_edit.setAccessibleName("Filter skills")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.textChanged.connect(self._on_filter)
        self.filter_edit.returnPressed.connect(self.focus_first_match)
        self.filter_edit.installEventFilter(self)  # Down arrow: from the search box into the results
        self.sort_combo = QComboBox(self)
        self.sort_combo.addItems(["Load order", "Name", "Tokens", "Least used"])
        self.sort_combo.setToolTip("Sort skills inside each source")
        self.sort_combo.setAccessibleName("Sort skills")
        self.sort_combo.currentIndexChanged.connect(self._on_sort)

        # quick filters: which skills are on, off, cut, contested, need review, wait (core decides the buckets)
        self.chip_box = QWidget(self)
        # the chosen chip in the selection colours: a pressed tool button is barely darker in a dark palette
        self.chip_box.setStyleSheet("QToolButton:checked { background: palette(highlight); "
                                    "color: palette(highlighted-text); border: 1px solid palette(highlight); "
                                    "border-radius: 3px; padding: 3px 6px; }")
        chips = FlowLayout(self.chip_box)
        self.chips: dict[Bucket, QToolButton] = {}
        for bucket in Bucket:
            chip = QToolButton(self.chip_box)
            chip.setCheckable(True)
            chip.setToolTip(bucket.meaning)
            chip.toggled.connect(lambda on, b=bucket: self.choose_bucket(b if on else None))
            chips.addWidget(chip)
            self.chips[bucket] = chip
        self._show_counts(self.model.bucket_counts())
        self.model.buckets_changed.connect(self._show_counts)

        self.view = QTreeView(self)
        self.view.setModel(self.proxy)
        self.view.setUniformRowHeights(True)
        self.view.setAlternatingRowColors(True)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)  # several rows: one switch
        self.view.setAccessibleName("Skills")
        self.view.setItemDelegateForColumn(Column.Name, NameDelegate(self.view))
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._context_menu)
        self.view.installEventFilter(self)  # Space: the switch of the selected rows
        self.model.switch_requested.connect(lambda skill, on: self.switch_requested.emit([skill], on))
        self.view.setAllColumnsShowFocus(True)
        self.view.setExpandsOnDoubleClick(True)
        header = self.view.header()
        header.setStretchLastSection(False)
        header.setMinimumSectionSize(24)
        header.setSectionResizeMode(Column.Name, QHeaderView.ResizeMode.Stretch)
        # State and Tokens: as wide as their widest possible text (ResizeToContents would measure every
        # row on every change); group rows span all columns, so long source names get the full width
        metrics = self.fontMetrics()
        widest_state = max(metrics.horizontalAdvance(v.label) for v in states.Visual) + 36  # switch and icon
        for column, width in ((Column.State, widest_state), (Column.Checks, metrics.horizontalAdvance("Checks") - 6),
                              (Column.Tokens, metrics.horizontalAdvance("Tokens") - 4),
                              (Column.Used, metrics.horizontalAdvance("never"))):
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

        # the budget banner: how many descriptions are cut and why, and core's remedy in one click
        self.budget_banner = QFrame(self)
        self.budget_banner.setObjectName("budget-banner")
        self.budget_banner.setStyleSheet("QFrame#budget-banner { border: 1px solid #b07a00; border-radius: 4px; "
                                         "background: rgba(214, 154, 28, 0.14); }")
        self.budget_text = QLabel(self.budget_banner)
        self.budget_text.setWordWrap(True)
        self.budget_apply = QPushButton("Apply", self.budget_banner)
        self.budget_apply.setAccessibleName("Apply the budget remedy")
        self.budget_apply.clicked.connect(lambda: self.remedy_requested.emit(self._remedy))
        banner_layout = QHBoxLayout(self.budget_banner)
        banner_layout.setContentsMargins(8, 4, 4, 4)
        banner_layout.addWidget(self.budget_text, 1)
        banner_layout.addWidget(self.budget_apply, 0, Qt.AlignmentFlag.AlignTop)
        self.budget_banner.hide()
        self._remedy = None
        self.no_results = QLabel("No skill matches the filter. Press Esc to clear it.", self)
        self.no_results.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.no_results.hide()

        top = QHBoxLayout()
        top.addWidget(self.filter_edit, 1)
        top.addWidget(self.sort_combo)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.chip_box)
        layout.addWidget(self.budget_banner)
        layout.addWidget(self.no_results)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.summary)

        self._regrouping = False
        self._invalid_by_object: dict = {}  # id(skill) -> (skill, invalid?), for _counts: skills never change
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
        self._show_remedy(snapshot)
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
            if not self.model.set_session(additions):
                return  # nothing simulated, before or now: the tree and its summary stay as they are
        finally:
            self._regrouping = False
        self._expand_new_groups()
        if selected is not None:
            self.select_identity(selected)
        for key in (SESSION_DISCOVERED_KEY, SESSION_ACTIVATED_KEY):
            if key not in before and key in self.model.group_keys():  # a new simulated group: bring it into view
                index = self.proxy.from_registry(self.model.index_for_identity(key))
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
        # expansions first, spans after: the first setFirstColumnSpanned runs the pending layout, which then
        # includes the groups opened here (spans first cost a second layout of every visible row)
        opening = []
        keys = self.model.group_keys()
        known, collapsed = self._known, self._collapsed
        if all(key in known or key in collapsed for key in keys):
            rows = range(0)  # no group to open (most keystrokes): no pass over the proxy's rows
        else:
            rows = range(self.proxy.rowCount())
        for row in rows:
            index = self.proxy.index(row, 0)
            key = index.data(Role.Identity)
            if key not in self._known and key not in self._collapsed:
                opening.append(index)  # new groups open; groups the user closed stay closed
        if len(opening) > 1:
            # with a layout pending, expand() only records the index: one layout for all of them at the
            # next paint instead of one per group (200 groups coming back when a filter is cleared)
            self.view.scheduleDelayedItemsLayout()
        for index in opening:
            self.view.expand(index)
        self._span_groups()
        self._known = set(keys) | self._known

    def _span_groups(self) -> None:
        if not self._span_pending:
            return
        self._span_pending = False
        for row in range(self.proxy.rowCount()):
            if not self.view.isFirstColumnSpanned(row, QModelIndex()):
                self.view.setFirstColumnSpanned(row, QModelIndex(), True)

    _counted: tuple = (None, ())

    def _counts(self, snapshot: Snapshot) -> tuple[int, int, int, int, int]:
        """(skills, contested names, waiting, invalid, cut by the budget) of a snapshot, counted once: a
        keystroke only changes how many are shown (at 5,000 skills these passes cost a keystroke ~100 ms)."""
        if self._counted[0] is snapshot:
            return self._counted[1]
        skills = snapshot.skills
        registry = snapshot.registry
        if not snapshot.partial and snapshot.conflict_count is not None:
            conflicts = snapshot.conflict_count  # counted by the engine, off the UI thread
        else:  # rows came or went: the registry is current, the engine's figures follow
            conflicts = len(registry.conflicts()) if registry is not None and hasattr(registry, "conflicts") else 0
        waiting = sum(1 for s in skills if s.state.conditional and not s.state.active)
        known, self._invalid_by_object = self._invalid_by_object, {}  # only this snapshot's skills are kept
        for skill in skills:
            found = known.get(id(skill))
            if found is None or found[0] is not skill:
                found = (skill, states.visual_state(skill) is states.Visual.INVALID)
            self._invalid_by_object[id(skill)] = found
        invalid = sum(1 for _skill, is_invalid in self._invalid_by_object.values() if is_invalid)
        outcomes = getattr(snapshot, "outcomes", {}) or {}
        shortened = sum(1 for o in outcomes.values() if o.cut_for_room)
        counts = (len(skills), conflicts, waiting, invalid, shortened)
        self._counted = (snapshot, counts)
        return counts

    def _summarise(self, snapshot: Snapshot) -> None:
        """Under the tree: what the workspace holds (the status bar says what the app is doing)."""
        total, conflicts, waiting, invalid, shortened = self._counts(snapshot)
        if self.model.filtering:
            shown = self.model.shown_rows()
            parts = [f"{shown:,} of {total:,} shown"]
        else:
            parts = [f"{total:,} skills and commands"]
        if shortened:
            parts.append(f"{shortened:,} cut in the listing")
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
        with self.context.typing():
            self._known = set(self.model.group_keys())
            self.proxy.set_text(text)
            self._after_filter()

    def choose_bucket(self, bucket: Bucket | None) -> None:
        """One chip at a time (choosing one releases the other); None shows every skill again."""
        with self.context.typing():
            for other, chip in self.chips.items():
                if chip.isChecked() != (other is bucket):
                    chip.blockSignals(True)
                    chip.setChecked(other is bucket)
                    chip.blockSignals(False)
            self._known = set(self.model.group_keys())
            if self.model.set_bucket(bucket):
                self._after_filter()
            self._show_counts(self.model.bucket_counts())

    def clear_filters(self) -> None:
        self.filter_edit.clear()
        self.choose_bucket(None)

    def _after_filter(self) -> None:
        self._expand_new_groups()  # groups that come back with the filter open (unless closed by hand)
        shown = self.model.shown_rows()
        empty = self.model.filtering and shown == 0
        if empty:
            bucket = self.model.bucket
            text = self.filter_edit.text().strip()
            where = f" among “{bucket.word}”" if bucket is not None else ""
            what = f"No skill matches “{text}”{where}." if text else f"No skill in “{bucket.word}”."
            self.no_results.setText(f"{what} Press Esc to clear the filter.")
        self.no_results.setVisible(empty)
        if self.model.snapshot is not None:
            self._summarise(self.model.snapshot)

    def _show_counts(self, counts: dict) -> None:
        chosen = self.model.bucket
        for bucket, chip in self.chips.items():
            count = counts.get(bucket, 0)
            chip.setText(f"{bucket.word} {count:,}")
            chip.setAccessibleName(f"Show only {bucket.word}: {counted(count, 'skill')}")
            chip.setEnabled(count > 0 or bucket is chosen)

    def _show_remedy(self, snapshot: Snapshot) -> None:
        remedy = getattr(snapshot, "remedy", None)
        if snapshot.partial:
            return
        self._remedy = remedy
        self.budget_banner.setVisible(remedy is not None)
        if remedy is not None:
            self.budget_text.setText(f"<b>{remedy.headline}</b> {remedy.proposal}")
            self.budget_text.setToolTip("\n".join(remedy.names))
            self.budget_apply.setToolTip(f"{remedy.proposal}\nSkills: {', '.join(remedy.names[:20])}"
                                         + (" …" if len(remedy.names) > 20 else ""))

    # --- the switch, for the selected rows --------------------------------------------------------
    def selected_skills(self) -> list:
        rows = self.view.selectionModel().selectedRows(0)
        skills = [i.data(Role.Skill) for i in rows]
        return [s for s in skills if s is not None]

    def toggle_selected(self) -> bool:
        """Space: turn the selected skills off when all are on, else on (one change)."""
        indexes = [i for i in self.view.selectionModel().selectedRows(0) if i.data(Role.Switch) is not None]
        facts = [i.data(Role.Switch) for i in indexes]
        if not indexes or not any(f.enabled for f in facts):
            return False
        turn_on = not all(f.is_on for f in facts)
        self.switch_requested.emit([i.data(Role.Skill) for i, f in zip(indexes, facts) if f.enabled], turn_on)
        return True

    def _context_menu(self, pos) -> None:
        index = self.view.indexAt(pos)
        skill = index.data(Role.Skill) if index.isValid() else None
        if skill is None:
            return
        menu = self._row_menu(skill, index)
        menu.exec(self.view.viewport().mapToGlobal(pos))

    def _row_menu(self, skill, index) -> QMenu:
        from PySide6.QtCore import QUrl
        from PySide6.QtGui import QDesktopServices

        menu = QMenu(self)
        facts = index.data(Role.Switch)
        selected = self.selected_skills()
        if not any(s is skill for s in selected):
            selected = [skill]  # the menu of a row outside the selection acts on that row only
        if facts is not None:
            label = "Turn off" if facts.is_on else "Turn on"
            if len(selected) > 1:
                label += f" ({len(selected)} skills)"
            action = menu.addAction(label)
            action.setEnabled(facts.enabled)
            action.setToolTip(facts.tooltip)
            action.triggered.connect(lambda: self.switch_requested.emit(selected, not facts.is_on))
        folder = skill.skill_dir or (skill.path.parent if skill.path else None)
        open_folder = menu.addAction("Open folder")
        open_folder.setEnabled(folder is not None)
        open_folder.triggered.connect(lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder))))
        open_file = menu.addAction("Open in editor")
        open_file.setEnabled(skill.path is not None)
        open_file.triggered.connect(lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(str(skill.path))))
        copy = menu.addAction("Copy name")
        copy.triggered.connect(lambda: QGuiApplication.clipboard().setText(skill.name))
        listing = menu.addAction("Show in listing")
        listing.triggered.connect(lambda: self.show_in_listing.emit(skill))
        if self.extra_row_actions:
            menu.addSeparator()
            for action in self.extra_row_actions:
                menu.addAction(action)
        return menu

    extra_row_actions: list = []  # the window's Rename, Move, Delete… (they act on the selected skill)

    def _on_sort(self, choice: int) -> None:
        if choice == 0:
            self.proxy.sort(-1)
        elif choice == 1:
            self.proxy.sort(Column.Name, Qt.SortOrder.AscendingOrder)
        elif choice == 2:
            self.proxy.sort(Column.Tokens, Qt.SortOrder.DescendingOrder)
        else:  # the candidates for turning off first
            self.proxy.sort(Column.Used, Qt.SortOrder.AscendingOrder)

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
        if not group.isValid() and self.model.filtering:
            self.clear_filters()
            group = self.model.index_for_identity(PROBLEMS_KEY)
        if not group.isValid():
            return False
        index = self.proxy.from_registry(group)
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
        if not source.isValid() and self.model.filtering:  # filtered out: clear the filter so it shows
            self.clear_filters()
            source = self.model.index_for_identity(identity)
        if not source.isValid():
            return False
        index = self.proxy.from_registry(source)
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

        if watched is self.filter_edit and event.type() == QEvent.Type.KeyPress:
            self.context.note_typing()  # before the text changes: the checks step aside now
        if (watched is self.filter_edit and event.type() == QEvent.Type.KeyPress
                and event.key() == Qt.Key.Key_Down):
            self.focus_first_match()
            return True
        if (watched in (self.filter_edit, self.view) and event.type() == QEvent.Type.KeyPress
                and event.key() == Qt.Key.Key_Escape and self.model.filtering):
            if watched is self.filter_edit and self.filter_edit.text():
                self.filter_edit.clear()  # the text first, then the chip
            else:
                self.clear_filters()
            return True
        if (watched is self.view and event.type() == QEvent.Type.KeyPress and event.key() == Qt.Key.Key_Space
                and not event.modifiers()):
            return self.toggle_selected() or super().eventFilter(watched, event)
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
